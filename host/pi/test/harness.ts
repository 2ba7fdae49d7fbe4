// A Pi 1.6 agent session driven by pi-ai's faux provider, with the
// resetpolicy extension loaded from src/ and the engine binary from
// RESETPOLICY_BIN. No network: the model runtime does not refresh and the
// only provider is the faux one.

import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import {
	fauxProvider,
	type FauxProviderHandle,
	type FauxResponseStep,
	type TranscriptContext,
} from "@earendil-works/pi-ai";
import {
	type AgentSession,
	createAgentSession,
	DefaultResourceLoader,
	type ExtensionUIContext,
	ModelRuntime,
	type SessionEntry,
	SessionManager,
	SettingsManager,
} from "@earendil-works/pi-coding-agent";

const here = dirname(fileURLToPath(import.meta.url));
// The package directory: Pi reads its package.json "pi" manifest, as `pi -e ./host/pi` does.
export const extensionPath = resolve(here, "..");

if (process.env.RESETPOLICY_BIN === undefined || process.env.RESETPOLICY_BIN === "") {
	throw new Error("RESETPOLICY_BIN must name the resetpolicy binary (the Go test that runs this suite builds it)");
}
// No user config of the machine running the tests.
process.env.XDG_CONFIG_HOME = mkdtempSync(join(tmpdir(), "resetpolicy-xdg-"));
delete process.env.RESETPOLICY_POLICY;
delete process.env.RESETPOLICY_CONFIG;
delete process.env.RESETPOLICY_DECISION_LOG;

/** Pi's wait before its first retry of a failed request, in the tests (Pi's default is 2000 ms). */
export const RETRY_BASE_DELAY_MS = 20;

export interface Notice {
	level: string;
	text: string;
}

export interface PiOptions {
	/** Files to write below the project directory, e.g. {".pi/resetpolicy.yaml": "policy: new_context\n"}. */
	project?: Record<string, string>;
	trusted?: boolean;
	contextWindow?: number;
	/** Further models the faux provider offers (faux-1 is selected), e.g. one with a smaller window to switch to. */
	moreModels?: { id: string; contextWindow: number }[];
	compaction?: { enabled?: boolean; reserveTokens?: number; keepRecentTokens?: number };
	/** An existing session file to open instead of a new session. */
	sessionFile?: string;
	/** Reuse a directory (for reopening a session). */
	dir?: string;
	/** Have the engine write a decision log (see Pi.decisions). */
	decisionLog?: boolean;
	/**
	 * Pi's mode: "rpc" (the default) binds a UI context, as Pi's RPC and
	 * terminal modes do; "print" and "json" bind none, as `pi -p` and
	 * `pi --mode json` do (ctx.hasUI is false, ctx.ui does nothing).
	 */
	mode?: "rpc" | "print" | "json";
	/** Further extensions to load beside resetpolicy (paths), e.g. a test tool. */
	extensions?: string[];
	/** Answers of the UI's input dialogs, in order (undefined: cancelled). */
	inputs?: (string | undefined)[];
	/**
	 * An agent directory whose settings.json Pi reads, with the packages
	 * `pi install` put there; the extension is then loaded from those
	 * packages only, not from src/.
	 */
	agentDir?: string;
	/** The resetpolicy package to load instead of host/pi (a copy set up as a test needs it). */
	extensionPath?: string;
}

export interface LoggedDecision {
	session: string;
	policy: string;
	event: Record<string, unknown> & { event: string };
	rules: string[];
	effects: { effect: string; [arg: string]: unknown }[];
}

export interface Pi {
	session: AgentSession;
	faux: FauxProviderHandle;
	notices: Notice[];
	/** For each notice, the session branch (labels()) at the moment it was shown. */
	noticeBranches: string[][];
	statuses: (string | undefined)[];
	/** The titles of the input dialogs asked, in order. */
	dialogs: string[];
	/** The contexts the provider was asked with, in order. */
	requests: TranscriptContext[];
	dir: string;
	cwd: string;
	sessionDir: string;
	/** Queues scripted model responses; each records the request it answers. */
	respond(...steps: FauxResponseStep[]): void;
	/** The engine's decision log, when PiOptions.decisionLog was set. */
	decisions(): LoggedDecision[];
	/** Every entry Pi persisted, read back from the session file. */
	persisted(): SessionEntry[];
	sessionFile(): string;
	dispose(): Promise<void>;
}

export async function startPi(opts: PiOptions = {}): Promise<Pi> {
	const dir = opts.dir ?? mkdtempSync(join(tmpdir(), "resetpolicy-pi-"));
	const cwd = join(dir, "project");
	const agentDir = opts.agentDir ?? join(dir, "agent");
	const sessionDir = join(dir, "sessions");
	for (const d of [cwd, agentDir, sessionDir]) mkdirSync(d, { recursive: true });
	for (const [name, text] of Object.entries(opts.project ?? {})) {
		mkdirSync(dirname(join(cwd, name)), { recursive: true });
		writeFileSync(join(cwd, name), text);
	}

	const faux = fauxProvider({
		models: [
			{ id: "faux-1", contextWindow: opts.contextWindow ?? 1_000_000, maxTokens: 4096 },
			...(opts.moreModels ?? []).map((m) => ({ ...m, maxTokens: 4096 })),
		],
	});
	const modelRuntime = await ModelRuntime.create({
		authPath: join(agentDir, "auth.json"),
		modelsPath: null,
		refreshOnCreate: false,
	});
	modelRuntime.registerNativeProvider(faux.provider);

	// Pi's default settings (automatic compaction on, default reserveTokens
	// and keepRecentTokens, retries on); a test that departs passes
	// opts.compaction and says why in a comment. Only the retry's wait is
	// shorter: a retry is what the tests look at, Pi's 2 s before it is
	// time spent waiting.
	const settingsManager =
		opts.agentDir !== undefined
			? SettingsManager.create(cwd, agentDir, { projectTrusted: opts.trusted ?? true })
			: SettingsManager.inMemory(
					{ retry: { baseDelayMs: RETRY_BASE_DELAY_MS }, ...(opts.compaction !== undefined ? { compaction: opts.compaction } : {}) },
					{ projectTrusted: opts.trusted ?? true },
				);
	const resourceLoader = new DefaultResourceLoader({
		cwd,
		agentDir,
		settingsManager,
		additionalExtensionPaths: [...(opts.agentDir !== undefined ? [] : [opts.extensionPath ?? extensionPath]), ...(opts.extensions ?? [])],
		noSkills: true,
		noPromptTemplates: true,
		noThemes: true,
		noContextFiles: true,
		systemPrompt: "You are a test agent.",
	});
	await resourceLoader.reload();
	const sessionManager =
		opts.sessionFile !== undefined ? SessionManager.open(opts.sessionFile, sessionDir) : SessionManager.create(cwd, sessionDir);

	const { session } = await createAgentSession({
		cwd,
		agentDir,
		model: faux.getModel(),
		thinkingLevel: "off",
		modelRuntime,
		resourceLoader,
		sessionManager,
		settingsManager,
		noTools: "builtin",
	});
	const notices: Notice[] = [];
	const noticeBranches: string[][] = [];
	const statuses: (string | undefined)[] = [];
	const dialogs: string[] = [];
	const inputs = [...(opts.inputs ?? [])];
	const ui = {
		notify: (text: string, level?: string) => {
			notices.push({ level: level ?? "info", text });
			noticeBranches.push(labels(session.sessionManager.getBranch()));
		},
		setStatus: (_key: string, text: string | undefined) => statuses.push(text),
		select: async () => undefined,
		confirm: async () => false,
		input: async (title: string) => {
			dialogs.push(title);
			return inputs.shift();
		},
		editor: async () => undefined,
		custom: async () => undefined,
	};
	const uiContext = new Proxy(ui, {
		get: (target, prop) => (prop in target ? target[prop as keyof typeof target] : () => undefined),
	}) as unknown as ExtensionUIContext;
	const logFile = join(dir, `decisions-${Math.random().toString(36).slice(2)}.jsonl`);
	const savedLog = process.env.RESETPOLICY_DECISION_LOG;
	if (opts.decisionLog === true) process.env.RESETPOLICY_DECISION_LOG = logFile;
	try {
		const mode = opts.mode ?? "rpc";
		// The command context's session actions, as Pi's print, JSON and RPC
		// modes bind them (waitForIdle above all); the tests replace sessions
		// themselves, so the rest refuse.
		const refuse = async (): Promise<never> => {
			throw new Error("not available in the test harness");
		};
		const commandContextActions = {
			waitForIdle: () => session.waitForIdle(),
			newSession: refuse,
			fork: refuse,
			navigateTree: async (targetId: string, o?: { summarize?: boolean; customInstructions?: string; replaceInstructions?: boolean; label?: string }) => ({
				cancelled: (await session.navigateTree(targetId, o)).cancelled,
			}),
			switchSession: refuse,
			reload: async () => await session.reload(),
		};
		await session.bindExtensions(mode === "rpc" ? { uiContext, mode, commandContextActions } : { mode, commandContextActions });
	} finally {
		if (savedLog === undefined) delete process.env.RESETPOLICY_DECISION_LOG;
		else process.env.RESETPOLICY_DECISION_LOG = savedLog;
	}

	const requests: TranscriptContext[] = [];
	const respond = (...steps: FauxResponseStep[]) => {
		faux.appendResponses(
			steps.map((step) => (context: TranscriptContext, options, state, model) => {
				requests.push(structuredClone(context));
				return typeof step === "function" ? step(context, options, state, model) : step;
			}),
		);
	};
	const sessionFile = () => {
		const f = session.sessionFile;
		if (f === undefined) throw new Error("the session has no file");
		return f;
	};
	return {
		session,
		faux,
		notices,
		noticeBranches,
		statuses,
		dialogs,
		requests,
		dir,
		cwd,
		sessionDir,
		respond,
		sessionFile,
		decisions: () =>
			(existsSync(logFile) ? readFileSync(logFile, "utf8") : "")
				.split("\n")
				.filter((l) => l.trim() !== "")
				.map((l) => JSON.parse(l) as LoggedDecision),
		persisted: () =>
			(existsSync(sessionFile()) ? readFileSync(sessionFile(), "utf8") : "")
				.split("\n")
				.filter((l) => l.trim() !== "")
				.map((l) => JSON.parse(l) as SessionEntry | { type: "session" })
				.filter((e): e is SessionEntry => e.type !== "session"),
		dispose: async () => {
			await session.abort();
			// As Pi does when it quits: the extension stops its engine.
			await session.extensionRunner.emit({ type: "session_shutdown", reason: "quit" });
			session.dispose();
			// Give the engine a moment to see EOF before the directory goes.
			await new Promise((r) => setTimeout(r, 20));
			if (opts.dir === undefined && process.env.RESETPOLICY_KEEP !== "1") rmSync(dir, { recursive: true, force: true });
		},
	};
}

/**
 * A short label per entry: type, role or custom type. Handy in assertions.
 * The policy's durable-state entries (resetpolicy/state) are bookkeeping
 * outside the model's context and are left out; durableStates() reads them.
 */
export function labels(entries: SessionEntry[]): string[] {
	return entries.filter((e) => !(e.type === "custom" && e.customType === "resetpolicy/state")).map((e) => {
		switch (e.type) {
			case "message": {
				const m = e.message as { role: string; customType?: string; content?: unknown };
				if (m.role === "assistant") {
					const blocks = (m.content as { type: string; name?: string; text?: string }[]) ?? [];
					const call = blocks.find((b) => b.type === "toolCall");
					return call !== undefined ? `assistant:call:${call.name}` : `assistant:${blocks.map((b) => b.text ?? "").join("")}`;
				}
				if (m.role === "toolResult") return `toolResult:${(e.message as { toolName: string }).toolName}`;
				if (m.role === "user") {
					const c = m.content;
					const text = typeof c === "string" ? c : (c as { text?: string }[]).map((b) => b.text ?? "").join("");
					return `user:${text.length > 60 ? `${text.slice(0, 60)}…` : text}`;
				}
				return m.role;
			}
			case "custom":
				return `custom:${e.customType}`;
			case "custom_message":
				return `custom_message:${e.customType}`;
			case "compaction":
				return e.summary === "" ? "compaction:reset" : "compaction:summary";
			default:
				return e.type;
		}
	});
}

/** The durable slots persisted on the branch, oldest first. */
export function durableStates(entries: SessionEntry[]): Record<string, unknown>[] {
	return entries
		.filter((e) => e.type === "custom" && e.customType === "resetpolicy/state")
		.map((e) => ((e as { data: { slots: Record<string, unknown> } }).data.slots));
}

/** The text of every message of a provider request, one string per message. */
export function requestTexts(ctx: TranscriptContext): string[] {
	return ctx.messages.map((m) => {
		const c = (m as { content?: unknown }).content;
		if (typeof c === "string") return `${m.role}:${c}`;
		if (Array.isArray(c)) return `${m.role}:${c.map((b: { text?: string; name?: string }) => b.text ?? b.name ?? "").join("")}`;
		return m.role;
	});
}

export async function settle(pi: Pi): Promise<void> {
	await pi.session.waitForIdle();
	// agent_settled handlers and their deferred work run after idle.
	await new Promise((r) => setTimeout(r, 50));
	await pi.session.waitForIdle();
}

/** Asserts that want occurs in got in this order, each item right after the previous one. */
export function contiguous(got: string[], want: string[]): boolean {
	for (let i = 0; i + want.length <= got.length; i++) {
		if (want.every((w, j) => got[i + j] === w)) return true;
	}
	return false;
}

/** The ordered retain-none boundary (seed 000, "A new boundary is ordered as"). */
export const BOUNDARY = [
	"compaction:reset",
	"custom:resetpolicy/reset-marker",
	"custom_message:resetpolicy/boot",
	"custom_message:resetpolicy/continuation",
];

/** The engine processes this test process started (children named resetpolicy). */
export function enginePids(): number[] {
	const out: number[] = [];
	for (const name of readdirSync("/proc")) {
		if (!/^\d+$/.test(name)) continue;
		try {
			const stat = readFileSync(`/proc/${name}/stat`, "utf8");
			const close = stat.lastIndexOf(")");
			const comm = stat.slice(stat.indexOf("(") + 1, close);
			const fields = stat.slice(close + 2).split(" ");
			if (comm === "resetpolicy" && Number(fields[1]) === process.pid && fields[0] !== "Z") out.push(Number(name));
		} catch {
			// gone meanwhile
		}
	}
	return out;
}

/** Collects what the process writes to stderr while fn runs (print and JSON mode output). */
export async function stderrOf(fn: () => Promise<void>): Promise<string> {
	const original = process.stderr.write.bind(process.stderr);
	let out = "";
	process.stderr.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
		out += typeof chunk === "string" ? chunk : Buffer.from(chunk).toString();
		return (original as (c: unknown, ...r: unknown[]) => boolean)(chunk, ...rest);
	}) as typeof process.stderr.write;
	try {
		await fn();
	} finally {
		process.stderr.write = original;
	}
	return out;
}
