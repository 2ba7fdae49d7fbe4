// The host's state and the few primitives every other part uses. One
// HostState object holds what the adapter knows between hooks: the engine
// and what it answered at initialize, the session and window it reports,
// the drafts, attempts and checkpoint in flight. The handlers (hooks.ts),
// the effects (effects.ts), the facts (facts.ts), the durable slots
// (durable.ts) and the policy's surface (surface.ts) are functions of it;
// ResetPolicyHost (host.ts) owns it. Here too: asking the engine, guarding a
// handler, telling the user, the lifecycle check before a late result is
// used, and fitting a branch into one request.

import type {
	ContextWithSystemEvent,
	ExtensionAPI,
	ExtensionContext,
	SessionBeforeCompactResult,
	SessionBeforeTreeResult,
	SessionEntry,
} from "@earendil-works/pi-coding-agent";
import type { AssistantMessage } from "@earendil-works/pi-ai";
import { type Engine, EngineDown, errorText, MAX_LINE } from "./engine.ts";
import type { Draft, InitializeResult } from "./protocol.ts";

/** Where an effect is carried out: what the handler can return to Pi. */
export type Site = "turn_end" | "before_settle" | "request" | "before_compact" | "before_tree" | "tool" | "command" | "other";

export type AgentMessages = ContextWithSystemEvent["messages"];

/** What carrying out a decision's effects asks the handler to return. */
export class Outcome {
	readonly site: Site;
	entries: Draft[] = [];
	continueRun: boolean | undefined;
	stop = false;
	reply: { text: string; terminate: boolean } | undefined;
	compaction: SessionBeforeCompactResult | undefined;
	tree: SessionBeforeTreeResult | undefined;
	requestMessages: AgentMessages = [];
	/**
	 * Notices held back until the hidden entries of this turn are durable
	 * (set at a turn_end that returns request drafts); see pendingNotices.
	 */
	deferNotices = false;
	notices: Notice[] = [];
	/** The questions of ask effects, in order (a command's dialog). */
	asks: { title: string; value: string; command: string }[] = [];
	constructor(site: Site) {
		this.site = site;
	}
	get boundary(): boolean {
		return this.site === "turn_end" || this.site === "before_settle";
	}
}

export interface Notice {
	text: string;
	level: "info" | "warning" | "error";
}

/** Notices of a turn_end waiting for that turn's hidden entries to be in the session. */
export interface PendingNotices {
	drafts: Draft[];
	notices: Notice[];
}

/** The host checkpoint in flight when the checkpoint effect runs outside a turn boundary. */
export interface HostCheckpoint {
	continueRun: boolean;
	ctx: ExtensionContext;
	/** Why the summary failed, when it did: Pi's compaction was cancelled for it. */
	error?: string;
	/** The summary was aborted (Pi's abort signal), not an error of its own. */
	aborted?: boolean;
	/** The summary made before Pi's compaction is asked again, and the padding's share of Pi's count (effects.ts, padded). */
	summary?: { text: string; usage: AssistantMessage["usage"] | undefined; paddingTokens: number };
	/** Settles once the checkpoint's result is decided and carried out (its continuation started). */
	done: Promise<void>;
}

export interface HostOptions {
	/** Engine request timeout (ms); RESETPOLICY_TIMEOUT_MS or 10 s. */
	timeoutMs?: number;
}

/** What the host knows between hooks; see newHostState for the initial values. */
export interface HostState {
	readonly pi: ExtensionAPI;
	readonly opts: HostOptions;
	engine: Engine | undefined;
	init: InitializeResult | undefined;
	live: boolean;
	noticeShown: boolean;
	/** Why the engine is not running, once it failed to start or died. */
	downReason: string | undefined;
	/** Models already warned of reporting no context window. */
	readonly windowWarned: Set<string>;
	lastCtx: ExtensionContext | undefined;
	readonly logs: string[];
	readonly registeredTools: Set<string>;
	readonly registeredCommands: Set<string>;

	sessionKey: string;
	windowId: string;
	pendingWindow: string | undefined;
	pendingCompactionWindow: string | undefined;
	enabled: boolean;
	/**
	 * Bumped by every lifecycle change (session start, tree, shutdown,
	 * toggle, engine loss): work that awaited across one is stale.
	 */
	generation: number;
	/** The durable slots' values on the current branch (as last restored or persisted). */
	durable: Record<string, unknown>;
	requestDrafts: { window: string; draft: Draft }[];
	/**
	 * Seed 000: "UI reminder notices are emitted only after the matching
	 * hidden entry is durable". A turn_end's notices wait here until Pi has
	 * appended the hidden entries the turn returned (confirmWindow shows
	 * them); the next turn_end drops what never became durable.
	 */
	pendingNotices: PendingNotices[];
	stopRequested: boolean;
	inflightAttempt: number | undefined;
	compactionAttempt: number | undefined;
	hostCheckpoint: HostCheckpoint | undefined;
	/**
	 * The outstanding explicit compaction attempt's work: settles once its
	 * callback's decision is carried out (see holdForExit).
	 */
	attemptWork: Promise<void> | undefined;
	/** While a turn boundary is decided: the durable-state entries to return to Pi after the turn's entries. */
	durableDrafts: Draft[] | undefined;
}

export function newHostState(pi: ExtensionAPI, opts: HostOptions): HostState {
	return {
		pi,
		opts,
		engine: undefined,
		init: undefined,
		live: false,
		noticeShown: false,
		downReason: undefined,
		windowWarned: new Set<string>(),
		lastCtx: undefined,
		logs: [],
		registeredTools: new Set<string>(),
		registeredCommands: new Set<string>(),
		sessionKey: "",
		windowId: "w1",
		pendingWindow: undefined,
		pendingCompactionWindow: undefined,
		enabled: true,
		generation: 0,
		durable: {},
		requestDrafts: [],
		pendingNotices: [],
		stopRequested: false,
		inflightAttempt: undefined,
		compactionAttempt: undefined,
		hostCheckpoint: undefined,
		attemptWork: undefined,
		durableDrafts: undefined,
	};
}

/**
 * Runs a handler while the engine is live. Any failure leaves Pi's own
 * behaviour in place (undefined result: no entries, no reset).
 */
export async function guard<T>(h: HostState, ctx: ExtensionContext, fn: () => Promise<T | undefined>): Promise<T | undefined> {
	h.lastCtx = ctx;
	if (!h.live) return undefined;
	try {
		return await fn();
	} catch (err) {
		if (!(err instanceof EngineDown)) say(ctx, `resetpolicy: ${errorText(err)}; nothing was reset.`, "error");
		return undefined;
	}
}

export function request<T>(h: HostState, method: string, params: unknown): Promise<T> {
	const engine = h.engine;
	if (engine === undefined || !h.live) return Promise.reject(new EngineDown("the engine is not running"));
	return engine.request<T>(method, params);
}

/**
 * Shows a reply or notice in every mode. With a UI (Pi's terminal and RPC
 * modes, ctx.hasUI) it is a notice; RPC clients get it as a notify
 * request. In print and JSON mode ctx.ui.notify does nothing and stdout
 * carries only the answer or the JSON event stream, so the line goes to
 * stderr as Pi writes its own diagnostics and extension errors there
 * ("Error: …", "Warning: …", info plain).
 */
export function say(ctx: ExtensionContext, text: string, level: "info" | "warning" | "error"): void {
	try {
		if (ctx.hasUI) {
			ctx.ui.notify(text, level);
			return;
		}
	} catch {
		// a context whose session is gone: stderr still reaches the user
	}
	const prefix = level === "error" ? "Error: " : level === "warning" ? "Warning: " : "";
	process.stderr.write(`${prefix}${text}\n`);
}

/** What a handler captures before awaiting, to recheck afterwards. */
export function lifecycle(h: HostState): { generation: number; session: string; window: string } {
	return { generation: h.generation, session: h.sessionKey, window: h.windowId };
}

export function current(h: HostState, l: { generation: number; session: string; window: string }, ctx: ExtensionContext): boolean {
	return (
		h.live &&
		h.enabled &&
		l.generation === h.generation &&
		l.session === h.sessionKey &&
		l.window === h.windowId &&
		ctx.signal?.aborted !== true
	);
}

/**
 * The branch for a request: all of it when it fits in one request line,
 * else its newest entries that do.
 */
export function fit(branch: SessionEntry[]): SessionEntry[] {
	const budget = MAX_LINE - 64 * 1024;
	let size = 0;
	let start = branch.length;
	while (start > 0) {
		const n = Buffer.byteLength(JSON.stringify(branch[start - 1])) + 1;
		if (size + n > budget) break;
		size += n;
		start--;
	}
	return start === 0 ? branch : branch.slice(start);
}

/**
 * How long a Pi without a UI waits, at most, for work a command or tool
 * promised (RESETPOLICY_EXIT_WAIT_MS, else ten minutes: a close-out may
 * take several model turns).
 */
function exitWaitMs(): number {
	const v = Number(process.env.RESETPOLICY_EXIT_WAIT_MS);
	return Number.isFinite(v) && v > 0 ? v : 600_000;
}

/**
 * Print and JSON mode (no UI) dispose the runtime, aborting whatever still
 * runs, as soon as Pi's prompt() returns, and prompt() returns when the
 * command handler or the run's agent_settled handlers do. Work a command
 * or tool promised the user (a close-out turn, a reset when the run
 * settles) is awaited there, so that it happens before Pi exits; bounded,
 * and said if the bound is hit. The terminal and RPC modes stay and do not
 * wait.
 */
export async function holdForExit(ctx: ExtensionContext, what: string, work: () => Promise<unknown>): Promise<void> {
	if (hasUI(ctx)) return;
	const ms = exitWaitMs();
	let timer: NodeJS.Timeout | undefined;
	const bound = new Promise<"bound">((r) => {
		timer = setTimeout(() => r("bound"), ms);
	});
	try {
		const r = await Promise.race([work().then(() => "done" as const), bound]);
		if (r === "bound") say(ctx, `resetpolicy: ${what} did not finish within ${Math.round(ms / 1000)} s; Pi exits without waiting for it, and it may not have happened.`, "warning");
	} finally {
		clearTimeout(timer);
	}
}

function hasUI(ctx: ExtensionContext): boolean {
	try {
		return ctx.hasUI;
	} catch {
		return false;
	}
}
