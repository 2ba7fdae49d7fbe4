// The real `pi` CLI as a child process, in print (-p), JSON (--mode json)
// and RPC (--mode rpc) mode, with the resetpolicy extension loaded
// (-e host/pi) and the model scripted by fixtures/faux-cli.ts. Each run
// gets its own HOME, XDG and agent directories and no network; each child
// is bounded by CPU time (the kernel's RLIMIT_CPU) and, against a child
// that hangs without working, by a hang guard well inside node:test's
// per-test timeout.

import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { SessionEntry } from "@earendil-works/pi-coding-agent";

const here = dirname(fileURLToPath(import.meta.url));
export const extensionPath = resolve(here, "..");
export const cliPath = join(extensionPath, "node_modules", "@earendil-works", "pi-coding-agent", "dist", "cli.js");
const fauxPath = join(here, "fixtures", "faux-cli.ts");

/** One scripted model response: text, tool calls, or a provider error (e.g. an overflow: "prompt is too long: …"). */
export interface FauxStep {
	/** A user message queued as a follow-up while this request is in flight, as a user typing meanwhile would. */
	followUp?: string;
	text?: string;
	calls?: { name: string; arguments?: Record<string, unknown> }[];
	error?: string;
}

export interface CliOptions {
	/** The scripted responses, in the order the provider is asked; past the end the provider answers with an error. */
	responses: FauxStep[];
	/** The models the faux provider offers; the first is selected. Default: faux-1 with a 1M-token window. */
	models?: { id: string; contextWindow: number }[];
	/** Files below the project directory (the child's cwd), e.g. {".pi/resetpolicy.yaml": "policy: new_context\n"}. */
	project?: Record<string, string>;
	/** Further CLI arguments (before the messages). */
	args?: string[];
	/** Have the engine write a decision log (CliRun.decisions). */
	decisionLog?: boolean;
	/** The child's CPU-time bound in seconds (default 30). */
	cpuSeconds?: number;
}

export interface CliRun {
	code: number | null;
	signal: NodeJS.Signals | null;
	stdout: string;
	stderr: string;
	/** Each provider request's message texts ("role:text"), in order. */
	requests: string[][];
	/** Every entry of the session file Pi wrote (there is one per run). */
	entries: SessionEntry[];
	/** The engine's decision log lines, when CliOptions.decisionLog was set. */
	decisions: { rules: string[]; event: { event: string } }[];
}

interface Prepared {
	dir: string;
	cmd: string;
	argv: string[];
	env: NodeJS.ProcessEnv;
	cwd: string;
	result(code: number | null, signal: NodeJS.Signals | null, stdout: string, stderr: string): CliRun;
}

// Milliseconds a child may sit without exiting before it is killed: a
// guard against a hang (a child waiting on nothing uses no CPU), not a
// verdict on speed, which RLIMIT_CPU bounds.
const HANG_GUARD_MS = 90_000;

function prepare(opts: CliOptions, modeArgs: string[]): Prepared {
	const bin = process.env.RESETPOLICY_BIN;
	if (bin === undefined || bin === "") throw new Error("RESETPOLICY_BIN must name the resetpolicy binary");
	const dir = mkdtempSync(join(tmpdir(), "resetpolicy-cli-"));
	const cwd = join(dir, "project");
	const home = join(dir, "home");
	const sessions = join(dir, "sessions");
	for (const d of [cwd, home, sessions, join(dir, "agent"), join(dir, "xdg")]) mkdirSync(d, { recursive: true });
	for (const [name, text] of Object.entries(opts.project ?? {})) {
		mkdirSync(dirname(join(cwd, name)), { recursive: true });
		writeFileSync(join(cwd, name), text);
	}
	const models = opts.models ?? [{ id: "faux-1", contextWindow: 1_000_000 }];
	writeFileSync(join(dir, "script.json"), JSON.stringify({ models, responses: opts.responses }));
	const requestLog = join(dir, "requests.jsonl");
	const decisionLog = join(dir, "decisions.jsonl");
	const env: NodeJS.ProcessEnv = {
		PATH: process.env.PATH,
		HOME: home,
		XDG_CONFIG_HOME: join(dir, "xdg", "config"),
		XDG_DATA_HOME: join(dir, "xdg", "data"),
		XDG_CACHE_HOME: join(dir, "xdg", "cache"),
		XDG_STATE_HOME: join(dir, "xdg", "state"),
		PI_CODING_AGENT_DIR: join(dir, "agent"),
		PI_CODING_AGENT_SESSION_DIR: sessions,
		PI_OFFLINE: "1",
		PI_SKIP_VERSION_CHECK: "1",
		PI_TELEMETRY: "0",
		NO_COLOR: "1",
		RESETPOLICY_BIN: bin,
		RESETPOLICY_FAUX_SCRIPT: join(dir, "script.json"),
		RESETPOLICY_FAUX_LOG: requestLog,
		...(opts.decisionLog === true ? { RESETPOLICY_DECISION_LOG: decisionLog } : {}),
	};
	const cpu = opts.cpuSeconds ?? 30;
	const piArgs = [
		cliPath,
		...modeArgs,
		"--provider",
		"faux",
		"--model",
		models[0]!.id,
		"--thinking",
		"off",
		"--no-extensions",
		"-e",
		extensionPath,
		"-e",
		fauxPath,
		"--no-builtin-tools",
		"--no-skills",
		"--no-prompt-templates",
		"--no-themes",
		"--no-context-files",
		"--approve",
		"--system-prompt",
		"You are a test agent.",
		...(opts.args ?? []),
	];
	return {
		dir,
		cwd,
		env,
		// The CPU bound is set by the shell, then the shell becomes node.
		cmd: "/bin/sh",
		argv: ["-c", `ulimit -t ${cpu} && exec "$0" "$@"`, process.execPath, ...piArgs],
		result: (code, signal, stdout, stderr) => ({
			code,
			signal,
			stdout,
			stderr,
			requests: jsonLines(requestLog) as string[][],
			entries: sessionEntries(sessions),
			decisions: jsonLines(decisionLog) as CliRun["decisions"],
		}),
	};
}

function jsonLines(file: string): unknown[] {
	if (!existsSync(file)) return [];
	return readFileSync(file, "utf8")
		.split("\n")
		.filter((l) => l.trim() !== "")
		.map((l) => JSON.parse(l) as unknown);
}

function sessionEntries(dir: string): SessionEntry[] {
	const files: string[] = [];
	const walk = (d: string) => {
		for (const e of readdirSync(d, { withFileTypes: true })) {
			if (e.isDirectory()) walk(join(d, e.name));
			else if (e.name.endsWith(".jsonl")) files.push(join(d, e.name));
		}
	};
	walk(dir);
	if (files.length > 1) throw new Error(`more than one session file: ${files.join(", ")}`);
	if (files.length === 0) return [];
	return (jsonLines(files[0]!) as (SessionEntry | { type: "session" })[]).filter((e): e is SessionEntry => e.type !== "session");
}

function cleanup(dir: string): void {
	if (process.env.RESETPOLICY_KEEP !== "1") rmSync(dir, { recursive: true, force: true });
}

function guard(child: ChildProcess, what: string, stderr: () => string): { clear(): void; fired(): boolean } {
	let fired = false;
	const t = setTimeout(() => {
		fired = true;
		child.kill("SIGKILL");
		process.stderr.write(`${what}: killed after ${HANG_GUARD_MS} ms without exiting\n${stderr()}\n`);
	}, HANG_GUARD_MS);
	return { clear: () => clearTimeout(t), fired: () => fired };
}

/**
 * Runs `pi -p <messages…>` (mode "print") or `pi --mode json <messages…>`
 * to its exit, as a user's script does: no stdin.
 */
export async function runPi(mode: "print" | "json", messages: string[], opts: CliOptions): Promise<CliRun> {
	const p = prepare(opts, mode === "print" ? ["-p"] : ["--mode", "json"]);
	try {
		const child = spawn(p.cmd, [...p.argv, ...messages], { cwd: p.cwd, env: p.env, stdio: ["ignore", "pipe", "pipe"] });
		let stdout = "";
		let stderr = "";
		child.stdout!.on("data", (d: Buffer) => (stdout += d.toString()));
		child.stderr!.on("data", (d: Buffer) => (stderr += d.toString()));
		const g = guard(child, `pi ${mode}`, () => stderr);
		const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((res, rej) => {
			child.once("error", rej);
			child.once("close", (c, s) => res([c, s]));
		});
		g.clear();
		if (g.fired()) throw new Error(`pi ${mode} hung:\n${stderr}`);
		return p.result(code, signal, stdout, stderr);
	} finally {
		cleanup(p.dir);
	}
}

/** The JSON records of a JSON- or RPC-mode stdout. */
export function records(stdout: string): { type: string; [k: string]: unknown }[] {
	return stdout
		.split("\n")
		.filter((l) => l.trim().startsWith("{"))
		.map((l) => JSON.parse(l) as { type: string; [k: string]: unknown });
}

export interface RpcPi {
	/** Every record Pi wrote so far (responses, events, extension UI requests). */
	records: { type: string; [k: string]: unknown }[];
	/** The notify requests of the extension UI sub-protocol, as notices. */
	notices(): { level: string; text: string }[];
	/** Sends a command and resolves with its response. */
	send(command: Record<string, unknown>): Promise<{ success: boolean; data?: unknown; error?: string }>;
	/** Resolves at the next record that matches (already seen ones count from index `from`). */
	next(match: (r: { type: string; [k: string]: unknown }) => boolean, from?: number): Promise<{ type: string; [k: string]: unknown }>;
	/** Closes stdin, waits for the exit and returns what the run left. */
	close(): Promise<CliRun>;
}

/**
 * Starts `pi --mode rpc` and drives it as an RPC client does: commands on
 * stdin, one JSON line each, correlated with their responses by id.
 * Dialog requests are answered from `inputs` in order, then cancelled.
 */
export async function startRpc(opts: CliOptions & { inputs?: (string | undefined)[] }): Promise<RpcPi> {
	const p = prepare(opts, ["--mode", "rpc"]);
	const child = spawn(p.cmd, p.argv, { cwd: p.cwd, env: p.env, stdio: ["pipe", "pipe", "pipe"] });
	const inputs = [...(opts.inputs ?? [])];
	const recs: { type: string; [k: string]: unknown }[] = [];
	const waiters: { match: (r: { type: string }) => boolean; res: (r: { type: string; [k: string]: unknown }) => void }[] = [];
	let stdout = "";
	let stderr = "";
	let pending = "";
	let exited = false;
	child.stderr!.on("data", (d: Buffer) => (stderr += d.toString()));
	child.stdout!.on("data", (d: Buffer) => {
		stdout += d.toString();
		pending += d.toString();
		// Records are split on LF only (JSON strings may hold U+2028).
		let nl: number;
		while ((nl = pending.indexOf("\n")) >= 0) {
			const line = pending.slice(0, nl).replace(/\r$/, "");
			pending = pending.slice(nl + 1);
			if (!line.startsWith("{")) continue;
			const r = JSON.parse(line) as { type: string; [k: string]: unknown };
			recs.push(r);
			if (r.type === "extension_ui_request" && ["select", "confirm", "input", "editor"].includes(String(r.method))) {
				const v = inputs.shift();
				child.stdin!.write(`${JSON.stringify(v === undefined ? { type: "extension_ui_response", id: r.id, cancelled: true } : { type: "extension_ui_response", id: r.id, value: v })}\n`);
			}
			for (const w of [...waiters]) {
				if (w.match(r)) {
					waiters.splice(waiters.indexOf(w), 1);
					w.res(r);
				}
			}
		}
	});
	const g = guard(child, "pi rpc", () => stderr);
	const closed = new Promise<[number | null, NodeJS.Signals | null]>((res) =>
		child.once("close", (c, s) => {
			exited = true;
			res([c, s]);
		}),
	);
	let id = 0;
	const next: RpcPi["next"] = (match, from = recs.length) => {
		const seen = recs.slice(from).find(match);
		if (seen !== undefined) return Promise.resolve(seen);
		if (exited) return Promise.reject(new Error(`pi rpc exited before the record came:\n${stderr}`));
		return new Promise((res, rej) => {
			waiters.push({ match, res });
			void closed.then(() => rej(new Error(`pi rpc exited before the record came:\n${stderr}`)));
		});
	};
	return {
		records: recs,
		notices: () =>
			recs
				.filter((r) => r.type === "extension_ui_request" && r.method === "notify")
				.map((r) => ({ level: String(r.notifyType ?? "info"), text: String(r.message) })),
		send: async (command) => {
			const cid = `c${++id}`;
			const from = recs.length;
			child.stdin!.write(`${JSON.stringify({ ...command, id: cid })}\n`);
			return (await next((r) => r.type === "response" && r.id === cid, from)) as never;
		},
		next,
		close: async () => {
			child.stdin!.end();
			const [code, signal] = await closed;
			g.clear();
			try {
				if (g.fired()) throw new Error(`pi rpc hung:\n${stderr}`);
				return p.result(code, signal, stdout, stderr);
			} finally {
				cleanup(p.dir);
			}
		},
	};
}
