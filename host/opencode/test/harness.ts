// Real opencode, headless: one `opencode serve` per test process (the
// files a process runs share it, the install starts its own), one project
// directory per test (opencode starts an instance, and so the plugin and
// its engine, per directory), each project's opencode.json pointing the
// provider at a scripted model server on 127.0.0.1 and loading the plugin
// from this checkout.

import { type ChildProcess, spawn } from "node:child_process";
import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { after } from "node:test";
import { fileURLToPath, pathToFileURL } from "node:url";
import { createOpencodeClient, type OpencodeClient } from "@opencode-ai/sdk";
import { ModelServer } from "./model-server.ts";

export const pkg = resolve(dirname(fileURLToPath(import.meta.url)), "..");
export const opencodeBin = join(pkg, "node_modules", "opencode-linux-x64", "bin", "opencode");
const plugin = pathToFileURL(join(pkg, "src", "index.ts")).href;

/** Polls of session state: at most this many, POLL_MS apart, before a wait fails. */
const POLL_MS = 100;
const MAX_POLLS = 900;

export interface Server {
	url: string;
	logs: string[];
	child: ChildProcess;
	home: string;
	close(): Promise<void>;
}

/** The environment opencode runs in: its own home, no network features, the engine given by the test run. */
export function env(home: string, extra: Record<string, string>): NodeJS.ProcessEnv {
	return {
		PATH: process.env.PATH,
		HOME: home,
		XDG_CONFIG_HOME: join(home, "config"),
		XDG_DATA_HOME: join(home, "data"),
		XDG_CACHE_HOME: join(home, "cache"),
		XDG_STATE_HOME: join(home, "state"),
		OPENCODE_DISABLE_MODELS_FETCH: "1",
		OPENCODE_DISABLE_AUTOUPDATE: "1",
		OPENCODE_DISABLE_LSP_DOWNLOAD: "1",
		OPENCODE_DISABLE_DEFAULT_PLUGINS: "1",
		OPENCODE_DISABLE_SHARE: "1",
		OPENCODE_DISABLE_CLAUDE_CODE: "1",
		RESETPOLICY_BIN: process.env.RESETPOLICY_BIN ?? "",
		...extra,
	};
}

let shared: Promise<Server> | undefined;
let enginePids = "";

/**
 * The one opencode server of this test process (a process runs several
 * files: starting opencode is a large cost). The
 * engine is started through a script that records each engine's process
 * id, so a test can kill exactly the engine its project started.
 */
export function server(): Promise<Server> {
	if (shared === undefined) {
		const dir = mkdtempSync(join(tmpdir(), "rp-oc-engine-"));
		enginePids = join(dir, "pids");
		const wrapper = join(dir, "resetpolicy");
		const real = process.env.RESETPOLICY_BIN ?? "resetpolicy";
		writeFileSync(wrapper, `#!/bin/sh\necho $$ >> "${enginePids}"\nexec "${real}" "$@"\n`);
		chmodSync(wrapper, 0o755);
		shared = startServer({ RESETPOLICY_BIN: wrapper });
		void shared.then((s) => {
			// The shared server must not keep the test process alive once
			// the tests are done; it is killed when the process exits.
			s.child.unref();
			(s.child.stdout as unknown as { unref(): void }).unref();
			(s.child.stderr as unknown as { unref(): void }).unref();
			process.once("exit", () => {
				s.child.kill("SIGKILL");
				rmSync(s.home, { recursive: true, force: true });
				rmSync(dir, { recursive: true, force: true });
			});
		});
	}
	return shared;
}

// After the last test the shared server is stopped and waited for, so
// that its CPU time counts in the test process's own (what go test's
// process tree is measured by).
after(async () => {
	if (shared === undefined) return;
	const s = await shared;
	// The server's CPU time, the suite's main cost, for the record (user +
	// system clock ticks of /proc/PID/stat, 100 a second).
	try {
		const f = readFileSync(`/proc/${s.child.pid}/stat`, "utf8").split(") ")[1]!.split(" ");
		process.stderr.write(`opencode server CPU: ${((Number(f[11]) + Number(f[12])) / 100).toFixed(1)} s\n`);
	} catch {
		// not Linux, or already gone
	}
	await s.close();
});

/** The process id of the engine started last. */
export function lastEnginePid(): number {
	const lines = readFileSync(enginePids, "utf8").trim().split("\n");
	return Number(lines[lines.length - 1]);
}

/**
 * opencode's configuration directory as opencode prepares it in a fresh
 * home: at its first instance it installs @opencode-ai/plugin and its
 * dependencies there (about 8 s of CPU, the same files every time). The
 * first server of a test run prepares it once and leaves a copy here;
 * every later server, in this process or another that names the same
 * directory (OC_CONFIG_TEMPLATE, set by the Go test that runs the
 * suite in shards), starts with a copy instead.
 */
const configTemplate = process.env.OC_CONFIG_TEMPLATE ?? join(mkdtempSync(join(tmpdir(), "rp-oc-config-")), "opencode");
if (process.env.OC_CONFIG_TEMPLATE === undefined) process.once("exit", () => rmSync(dirname(configTemplate), { recursive: true, force: true }));

/** Waits for another process's configuration directory: at most this many polls, POLL_MS apart (a bound that only catches a process that died preparing it). */
const MAX_CONFIG_POLLS = 1200;

/**
 * Gives home opencode's prepared configuration directory: a copy of the
 * template once there is one; else this server prepares it (the first to
 * take the lock does) or waits for the process that does.
 */
async function prepareConfig(home: string, started: () => Promise<Server>): Promise<Server> {
	const target = join(home, "config", "opencode");
	const ready = (): boolean => existsSync(join(configTemplate, "package-lock.json"));
	let mine = false;
	if (!ready()) {
		try {
			mkdirSync(`${configTemplate}.lock`, { recursive: false });
			mine = true;
		} catch {
			for (let i = 0; i < MAX_CONFIG_POLLS && !ready(); i++) await new Promise((r) => setTimeout(r, POLL_MS));
		}
	}
	if (ready()) {
		mkdirSync(dirname(target), { recursive: true });
		cpSync(configTemplate, target, { recursive: true, verbatimSymlinks: true });
		return started();
	}
	const server = await started();
	if (mine) {
		// An instance with a plugin makes opencode install its own packages
		// into the configuration directory (with none it installs nothing);
		// this one does nothing.
		const noop = join(home, "noop-plugin.ts");
		writeFileSync(noop, "export const Noop = async () => ({});\n");
		const p = await project(server, { plugin: pathToFileURL(noop).href });
		await newSession(p);
		await p.close();
		const tmp = `${configTemplate}.${process.pid}.tmp`;
		cpSync(target, tmp, { recursive: true, verbatimSymlinks: true });
		renameSync(tmp, configTemplate);
	}
	return server;
}

/**
 * Gives a configuration directory (a project's .opencode) the packages
 * opencode installs into each one at its first instance, from the
 * prepared copy: as in a project opencode has opened before. A server of
 * this process must have started first.
 */
export function preparePackages(dir: string): void {
	if (!existsSync(join(configTemplate, "package-lock.json"))) throw new Error("no prepared configuration directory: start a server first");
	for (const f of ["package.json", "package-lock.json", "node_modules", ".gitignore"]) {
		cpSync(join(configTemplate, f), join(dir, f), { recursive: true, verbatimSymlinks: true });
	}
}

export async function startServer(extra: Record<string, string> = {}): Promise<Server> {
	if (!existsSync(opencodeBin)) throw new Error(`opencode is not installed at ${opencodeBin} (npm ci in host/opencode)`);
	const home = mkdtempSync(join(tmpdir(), "rp-oc-home-"));
	return prepareConfig(home, () => spawnServer(home, extra));
}

async function spawnServer(home: string, extra: Record<string, string>): Promise<Server> {
	const child = spawn(opencodeBin, ["serve", "--port", "0", "--hostname", "127.0.0.1", "--print-logs", "--log-level", process.env.OC_LOG ?? "INFO"], {
		cwd: home,
		env: { ...env(home, extra), PWD: home },
		stdio: ["ignore", "pipe", "pipe"],
	});
	const logs: string[] = [];
	let buf = "";
	const url = await new Promise<string>((resolveUrl, reject) => {
		const onData = (chunk: Buffer): void => {
			buf += chunk.toString();
			const lines = buf.split("\n");
			buf = lines.pop() ?? "";
			for (const line of lines) {
				logs.push(line);
				const m = /listening on (http:\/\/[\d.:]+)/.exec(line);
				if (m !== null) resolveUrl(m[1]!);
			}
		};
		child.stdout!.on("data", onData);
		child.stderr!.on("data", onData);
		child.on("exit", (code) => reject(new Error(`opencode serve exited (${code}):\n${logs.join("\n")}`)));
	});
	return {
		url,
		logs,
		child,
		home,
		async close() {
			if (child.exitCode === null) {
				child.kill("SIGTERM");
				await new Promise((r) => {
					const t = setTimeout(() => {
						child.kill("SIGKILL");
						r(undefined);
					}, 3000);
					child.once("exit", () => {
						clearTimeout(t);
						r(undefined);
					});
				});
			}
			rmSync(home, { recursive: true, force: true });
		},
	};
}

export interface Project {
	dir: string;
	model: ModelServer;
	client: OpencodeClient;
	/** Each session's last state on the event stream, and when it came (follow). */
	statuses: Map<string, { busy: boolean; at: number }>;
	events: AbortController;
	following?: Promise<void>;
	close(): Promise<void>;
}

/**
 * A project directory with the scripted provider and the plugin; files are
 * extra project files. plugin is the entry of opencode.json's "plugin"
 * list: this checkout's src/index.ts unless given; null names none.
 */
export async function project(
	server: Server,
	opts: { files?: Record<string, string>; config?: Record<string, unknown>; context?: number; plugin?: string | null } = {},
): Promise<Project> {
	const model = new ModelServer();
	const baseURL = await model.start();
	const dir = mkdtempSync(join(tmpdir(), "rp-oc-project-"));
	writeFileSync(
		join(dir, "opencode.json"),
		JSON.stringify(
			{
				$schema: "https://opencode.ai/config.json",
				provider: {
					scripted: {
						npm: "@ai-sdk/openai-compatible",
						name: "Scripted",
						options: { baseURL, apiKey: "scripted" },
						models: { scripted: { name: "Scripted", limit: { context: opts.context ?? 200000, output: 8000 } } },
					},
				},
				model: "scripted/scripted",
				small_model: "scripted/scripted",
				plugin: opts.plugin === null ? [] : [opts.plugin ?? plugin],
				...opts.config,
			},
			null,
			2,
		),
	);
	for (const [name, text] of Object.entries(opts.files ?? {})) {
		mkdirSync(dirname(join(dir, name)), { recursive: true });
		writeFileSync(join(dir, name), text);
	}
	const client = createOpencodeClient({ baseUrl: server.url, directory: dir });
	const events = new AbortController();
	return {
		dir,
		model,
		client,
		statuses: new Map(),
		events,
		async close() {
			events.abort();
			await client.instance.dispose().catch(() => {});
			await model.close();
			rmSync(dir, { recursive: true, force: true });
		},
	};
}

/**
 * Follows the project's session states on opencode's event stream, from
 * the first wait on: not at once, as the stream starts the project's
 * instance, which reads the project's configuration then. Until a
 * session's first event its state is what session.status says once.
 */
async function follow(p: Project): Promise<void> {
	if (p.following !== undefined) return p.following;
	p.following = (async () => {
		const sub = await p.client.event.subscribe({ signal: p.events.signal, sseMaxRetryAttempts: 1 });
		let connected!: () => void;
		const ready = new Promise<void>((r) => (connected = r));
		void (async () => {
			try {
				for await (const e of sub.stream) {
					if (e.type === "server.connected") connected();
					if (e.type === "session.status") p.statuses.set(e.properties.sessionID, { busy: e.properties.status.type !== "idle", at: Date.now() });
				}
			} catch {
				// the stream ends with the project
			}
		})();
		await ready;
		const st = await p.client.session.status();
		for (const [id, s] of Object.entries(st.data ?? {})) {
			if (!p.statuses.has(id)) p.statuses.set(id, { busy: s.type !== "idle", at: Date.now() });
		}
	})();
	return p.following;
}

export async function newSession(p: Project): Promise<string> {
	const r = await p.client.session.create({ body: {} });
	if (r.data === undefined) throw new Error(`session.create: ${JSON.stringify(r.error)}`);
	return r.data.id;
}

/** Sends a user message and waits until the session is idle again and no reply is left in the script. */
export async function prompt(p: Project, session: string, text: string): Promise<void> {
	const r = await p.client.session.promptAsync({ path: { id: session }, body: { parts: [{ type: "text", text }] } });
	if (r.error !== undefined) throw new Error(`prompt: ${JSON.stringify(r.error)}`);
	await settled(p, session);
}

/** Runs a command and waits until the session is idle again. */
export async function command(p: Project, session: string, name: string, args = ""): Promise<void> {
	void p.client.session.command({ path: { id: session }, body: { command: name, arguments: args } });
	await settled(p, session);
}

/**
 * Waits until the session has been idle, with every scripted reply
 * consumed, for quietPolls polls in a row (and as long since its state
 * last changed): a continuation the plugin starts after the run settled
 * makes the session busy again in between. The state comes from
 * opencode's event stream, so a poll asks the server nothing (a status
 * request costs opencode about 15 ms of CPU) and a short busy spell
 * between two polls is seen.
 */
export async function settled(p: Project, session: string, quietPolls = 8): Promise<void> {
	await follow(p);
	let quiet = 0;
	for (let i = 0; i < MAX_POLLS; i++) {
		await new Promise((r) => setTimeout(r, POLL_MS));
		const st = p.statuses.get(session);
		const changed = st !== undefined && Date.now() - st.at < POLL_MS;
		quiet = st?.busy === true || changed || p.model.pending > 0 ? 0 : quiet + 1;
		if (quiet >= quietPolls) return;
	}
	throw new Error(`session ${session} did not settle within ${MAX_POLLS} polls`);
}

/** The session's messages as opencode stored them. */
export async function messages(p: Project, session: string) {
	const r = await p.client.session.messages({ path: { id: session } });
	return r.data ?? [];
}

/** The plugin's notices in the server's log. */
export function notices(server: Server): string[] {
	return server.logs.filter((l) => l.includes("message=\"resetpolicy"));
}

/** The plugin's notices that match, once at least one does (notices reach the log asynchronously); bounded by polls. */
export async function noticesMatching(server: Server, re: RegExp, polls = 50): Promise<string[]> {
	for (let i = 0; i < polls; i++) {
		const found = notices(server).filter((l) => re.test(l));
		if (found.length > 0) return found;
		await new Promise((r) => setTimeout(r, POLL_MS));
	}
	return [];
}

export const once = (haystack: string[], needle: string): number => haystack.filter((l) => l.includes(needle)).length;

/** The requests the model received, one line each part cut short: for assertion messages. */
export function dump(p: Project): string {
	return p.model.chats.map((c, i) => `#${i} ${c.lines.map((l) => l.replace(/\s+/g, " ").slice(0, 70)).join(" | ")}`).join("\n");
}
