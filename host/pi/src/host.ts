// The adapter: forwards Pi's hooks to the engine as host contract events
// (DESIGN §4) and carries out the effects it decides with Pi's public API.
// It decides nothing itself; the boundary mechanics (building, confirming,
// inspecting and projecting entries) are asked of the engine too.

import { getCurrentSystemMessage, isContextOverflow, type AssistantMessage } from "@earendil-works/pi-ai";
import {
	generateSummaryWithUsage,
	type AgentBeforeSettleEvent,
	type BoundaryResult,
	type ContextWithSystemEvent,
	type ExtensionAPI,
	type ExtensionCommandContext,
	type ExtensionContext,
	type SessionBeforeCompactEvent,
	type SessionBeforeCompactResult,
	type SessionBeforeTreeEvent,
	type SessionBeforeTreeResult,
	type SessionBoundaryDraft,
	type SessionCompactEvent,
	type SessionCompactFailedEvent,
	type SessionEntry,
	type TurnEndEvent,
} from "@earendil-works/pi-coding-agent";
import { type TSchema, Type } from "typebox";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { Engine, EngineDown, errorText, MAX_LINE } from "./engine.ts";
import {
	CONTINUATION_TYPE,
	MARKER_TYPES,
	MESSAGE_TYPE_PREFIX,
	STATE_TYPE,
	type Decision,
	type Draft,
	type DraftsResult,
	type Effect,
	type InitializeResult,
	type PolicyTool,
	type ProjectResult,
	type RepairResult,
} from "./protocol.ts";

/** Where an effect is carried out: what the handler can return to Pi. */
type Site = "turn_end" | "before_settle" | "request" | "before_compact" | "before_tree" | "tool" | "command" | "other";

type AgentMessages = ContextWithSystemEvent["messages"];

/** What carrying out a decision's effects asks the handler to return. */
class Outcome {
	readonly site: Site;
	entries: Draft[] = [];
	continueRun: boolean | undefined;
	stop = false;
	reply: { text: string; terminate: boolean } | undefined;
	compaction: SessionBeforeCompactResult | undefined;
	tree: SessionBeforeTreeResult | undefined;
	requestMessages: AgentMessages = [];
	/** The questions of ask effects, in order (a command's dialog). */
	asks: { title: string; value: string; command: string }[] = [];
	constructor(site: Site) {
		this.site = site;
	}
	get boundary(): boolean {
		return this.site === "turn_end" || this.site === "before_settle";
	}
}

/** The host checkpoint in flight when the checkpoint effect runs outside a turn boundary. */
interface HostCheckpoint {
	continueRun: boolean;
	ctx: ExtensionContext;
	/** Why the summary failed, when it did: Pi's compaction was cancelled for it. */
	error?: string;
	/** The summary was aborted (Pi's abort signal), not an error of its own. */
	aborted?: boolean;
}

/**
 * Pi's compact() refuses before asking any extension when the context since
 * the last compaction is within keepRecentTokens or already ends in a
 * compaction; its error texts are the only sign of it.
 */
const ALREADY_COMPACT = /^(Nothing to compact|Already compacted)/;

const STATUS_KEY = "resetpolicy";
const LOG_LINES = 50;
/** The host contract's default context_window (rules/contract). */
const DEFAULT_CONTEXT_WINDOW = 200000;

/** How to get a missing engine: only when the binary could not be run. */
function engineFix(reason: string): string {
	if (!/ENOENT|EACCES|cannot (run|start)/.test(reason)) return "";
	return " Install it with `go install github.com/resetpolicy/resetpolicy/cmd/resetpolicy@latest`, or set RESETPOLICY_BIN to the path of a built binary.";
}

export interface HostOptions {
	/** Engine request timeout (ms); RESETPOLICY_TIMEOUT_MS or 10 s. */
	timeoutMs?: number;
}

export class ResetPolicyHost {
	private readonly pi: ExtensionAPI;
	private readonly opts: HostOptions;
	private engine: Engine | undefined;
	private init: InitializeResult | undefined;
	private live = false;
	private noticeShown = false;
	/** Models already warned of reporting no context window. */
	private windowWarned = new Set<string>();
	private lastCtx: ExtensionContext | undefined;
	private readonly logs: string[] = [];
	private readonly registeredTools = new Set<string>();
	private readonly registeredCommands = new Set<string>();

	private sessionKey = "";
	private windowId = "w1";
	private pendingWindow: string | undefined;
	private pendingCompactionWindow: string | undefined;
	private enabled = true;
	/**
	 * Bumped by every lifecycle change (session start, tree, shutdown,
	 * toggle, engine loss): work that awaited across one is stale.
	 */
	private generation = 0;
	/** The durable slots' values on the current branch (as last restored or persisted). */
	private durable: Record<string, unknown> = {};
	private requestDrafts: { window: string; draft: Draft }[] = [];
	private stopRequested = false;
	private inflightAttempt: number | undefined;
	private compactionAttempt: number | undefined;
	private hostCheckpoint: HostCheckpoint | undefined;

	constructor(pi: ExtensionAPI, opts: HostOptions = {}) {
		this.pi = pi;
		this.opts = opts;
	}

	/** Registers the hooks and the host's own command. */
	register(): void {
		const pi = this.pi;
		pi.on("session_start", (e, ctx) => this.onSessionStart(e.reason, ctx));
		pi.on("session_shutdown", (e, ctx) => this.onSessionShutdown(e.reason, ctx));
		pi.on("session_tree", (_e, ctx) => this.guard(ctx, () => this.onSessionTree(ctx)));
		pi.on("session_before_tree", (e, ctx) => this.guard(ctx, () => this.onBeforeTree(e, ctx)));
		pi.on("model_select", (e, ctx) =>
			this.guard(ctx, () => this.simple(ctx, "model_select", { model: `${e.model.provider}/${e.model.id}` })),
		);
		pi.on("context_with_system", (e, ctx) => this.guard(ctx, () => this.onRequest(e, ctx)));
		pi.on("turn_end", (e, ctx) => this.guard(ctx, () => this.onTurnEnd(e, ctx)));
		pi.on("agent_end", (_e, ctx) => this.guard(ctx, () => this.simple(ctx, "agent_end", {})));
		pi.on("agent_before_settle", (e, ctx) => this.guard(ctx, () => this.onBeforeSettle(e, ctx)));
		pi.on("agent_settled", (e, ctx) => this.guard(ctx, () => this.onSettled(e.aborted, ctx)));
		pi.on("session_before_compact", (e, ctx) => this.guard(ctx, () => this.onBeforeCompact(e, ctx)));
		pi.on("session_compact", (e, ctx) => this.guard(ctx, () => this.onCompact(e, ctx)));
		pi.on("session_compact_failed", (e, ctx) => this.guard(ctx, () => this.onCompactFailed(e, ctx)));
		pi.registerCommand("resetpolicy", {
			description: "resetpolicy: status, or on/off to switch the policy for this session",
			getArgumentCompletions: (prefix) =>
				["status", "on", "off"].filter((x) => x.startsWith(prefix)).map((x) => ({ value: x, label: x })),
			handler: (args, ctx) => this.onHostCommand(args.trim(), ctx),
		});
	}

	// ------------------------------------------------------------ engine life

	private async onSessionStart(reason: string, ctx: ExtensionContext): Promise<void> {
		this.lastCtx = ctx;
		this.resetSessionState();
		this.sessionKey = ctx.sessionManager.getSessionId();
		if (!(await this.startEngine(ctx))) return;
		await this.guard(ctx, async () => {
			const w = await this.request<{ windowId: string }>("activeWindow", { entries: this.fit(ctx.sessionManager.getBranch()) });
			this.windowId = w.windowId !== "" ? w.windowId : "w1";
			await this.restoreDurable(ctx);
			const d = await this.decide(ctx, "session_start", { reason });
			await this.apply(d.effects, new Outcome("other"), ctx);
		});
	}

	private async startEngine(ctx: ExtensionContext): Promise<boolean> {
		this.engine?.close();
		this.live = false;
		this.noticeShown = false;
		const timeout = this.opts.timeoutMs ?? (Number(process.env.RESETPOLICY_TIMEOUT_MS) || 10000);
		const engine = new Engine({
			timeoutMs: timeout,
			onDown: (reason) => this.failSafe(reason),
			onLog: (line) => {
				this.logs.push(line);
				if (this.logs.length > LOG_LINES) this.logs.shift();
			},
		});
		this.engine = engine;
		engine.start();
		try {
			const init = await engine.request<InitializeResult>("initialize", {
				projectDir: ctx.cwd,
				trusted: ctx.isProjectTrusted(),
			});
			this.init = init;
			this.live = true;
			this.registerSurface(init);
			if (init.error !== undefined && init.error !== "") this.say(ctx, init.error, "error");
			return true;
		} catch (err) {
			this.failSafe(errorText(err));
			return false;
		}
	}

	private async onSessionShutdown(reason: string, ctx: ExtensionContext): Promise<void> {
		this.generation++;
		// "Session replacement also cancels stale work": a summary still being
		// written is not written, reported or continued once the session is
		// shut down (onBeforeCompact cancels it, finish() reports nothing).
		this.hostCheckpoint = undefined;
		const engine = this.engine;
		if (engine === undefined) return;
		if (this.live) {
			try {
				const d = await this.decide(ctx, "session_shutdown", { reason });
				await this.apply(d.effects, new Outcome("other"), ctx);
				await engine.request("closeSession", { session: this.sessionKey });
			} catch {
				// shutting down anyway
			}
		}
		this.live = false;
		engine.close();
		this.engine = undefined;
	}

	/** The engine is gone: one visible error, no reset, Pi keeps working. */
	private failSafe(reason: string): void {
		this.generation++;
		this.live = false;
		this.pendingWindow = undefined;
		this.pendingCompactionWindow = undefined;
		this.requestDrafts = [];
		this.hostCheckpoint = undefined;
		if (this.noticeShown) return;
		this.noticeShown = true;
		const text = `resetpolicy: the policy engine is not running (${reason}).${engineFix(reason)} No context resets happen until the next session start; Pi keeps working and the session history is untouched.`;
		try {
			this.lastCtx?.ui.notify(text, "error");
		} catch {
			// the context may be gone with its session
		}
	}

	private resetSessionState(): void {
		this.generation++;
		this.windowId = "w1";
		this.pendingWindow = undefined;
		this.pendingCompactionWindow = undefined;
		this.requestDrafts = [];
		this.stopRequested = false;
		this.inflightAttempt = undefined;
		this.compactionAttempt = undefined;
		this.hostCheckpoint = undefined;
	}

	/**
	 * Runs a handler while the engine is live. Any failure leaves Pi's own
	 * behaviour in place (undefined result: no entries, no reset).
	 */
	private async guard<T>(ctx: ExtensionContext, fn: () => Promise<T | undefined>): Promise<T | undefined> {
		this.lastCtx = ctx;
		if (!this.live) return undefined;
		try {
			return await fn();
		} catch (err) {
			if (!(err instanceof EngineDown)) this.say(ctx, `resetpolicy: ${errorText(err)}; nothing was reset.`, "error");
			return undefined;
		}
	}

	private request<T>(method: string, params: unknown): Promise<T> {
		const engine = this.engine;
		if (engine === undefined || !this.live) return Promise.reject(new EngineDown("the engine is not running"));
		return engine.request<T>(method, params);
	}

	// ------------------------------------------------------------ facts

	private facts(ctx: ExtensionContext): Record<string, unknown> {
		const usage = ctx.getContextUsage();
		const settings = this.pi.getSettings() as {
			compaction?: {
				enabled?: boolean;
				reserveTokens?: number;
				modelOverrides?: Record<string, { reserveTokens?: number }>;
			};
		};
		const comp = settings.compaction ?? {};
		const model = ctx.model;
		let reserve = comp.reserveTokens ?? 16384;
		const override = model !== undefined ? comp.modelOverrides?.[`${model.provider}/${model.id}`] : undefined;
		if (override?.reserveTokens !== undefined) reserve = override.reserveTokens;
		return {
			window_id: this.windowId,
			now_ms: Date.now(),
			enabled: this.enabled,
			// Seed 000 reads "automatic resets are enabled" from Pi's compaction
			// setting: automatic compaction on means automatic resets on.
			auto_reset: comp.enabled ?? true,
			auto_compaction: comp.enabled ?? true,
			tokens: Math.max(0, Math.round(usage?.tokens ?? 0)),
			context_window: this.contextWindow(usage?.contextWindow, model, ctx),
			reserve: Math.round(reserve),
			idle: ctx.isIdle(),
			queued: ctx.hasPendingMessages(),
		};
	}

	/**
	 * The model's context window; a model that reports none (or 0) gets the
	 * host contract's default, with one warning per model.
	 */
	private contextWindow(fromUsage: number | undefined, model: ExtensionContext["model"], ctx: ExtensionContext): number {
		for (const w of [fromUsage, model?.contextWindow]) if (typeof w === "number" && w > 0) return Math.round(w);
		const key = model !== undefined ? `${model.provider}/${model.id}` : "(no model)";
		if (!this.windowWarned.has(key)) {
			this.windowWarned.add(key);
			ctx.ui.notify(`resetpolicy: model ${key} reports no context window; assuming ${DEFAULT_CONTEXT_WINDOW} tokens, the host contract's default.`, "warning");
		}
		return DEFAULT_CONTEXT_WINDOW;
	}

	private async decide(ctx: ExtensionContext, event: string, extra: Record<string, unknown>): Promise<Decision> {
		const d = await this.request<Decision>("decide", {
			session: this.sessionKey,
			event: { event, ...this.facts(ctx), ...extra },
		});
		this.persistDurable(d.state);
		return d;
	}

	// ------------------------------------------------------------ durable state

	/**
	 * Appends the durable slots to the branch when a decision changed one,
	 * so that reopening, forking or navigating the session finds them. A
	 * custom entry is outside the model's context and neutral to the reset
	 * boundary checks.
	 */
	private persistDurable(state: Record<string, unknown> | undefined): void {
		const names = Object.keys(this.init?.surface.durable ?? {});
		if (names.length === 0 || state === undefined) return;
		const slots: Record<string, unknown> = {};
		for (const n of names) slots[n] = state[n];
		if (names.every((n) => this.durable[n] === slots[n])) return;
		this.durable = slots;
		this.pi.appendEntry(STATE_TYPE, { policy: this.init?.policy.name ?? "", slots });
	}

	/** The session's state in the engine; undefined when it has none yet. */
	private async snapshot(): Promise<Record<string, unknown> | undefined> {
		try {
			return (await this.request<{ state: Record<string, unknown> }>("snapshot", { session: this.sessionKey })).state;
		} catch (err) {
			if (err instanceof EngineDown) throw err;
			return undefined;
		}
	}

	/**
	 * Restores the durable slots from the latest state entry of this policy
	 * on the current branch (their initial values when there is none), keeping
	 * every other slot as it is.
	 */
	private async restoreDurable(ctx: ExtensionContext): Promise<void> {
		const initial = this.init?.surface.durable ?? {};
		const names = Object.keys(initial);
		this.durable = {};
		if (names.length === 0) return;
		const values: Record<string, unknown> = { ...initial };
		const branch = ctx.sessionManager.getBranch();
		for (let i = branch.length - 1; i >= 0; i--) {
			const e = branch[i]!;
			if (e.type !== "custom" || e.customType !== STATE_TYPE) continue;
			const data = e.data as { policy?: unknown; slots?: unknown } | undefined;
			if (data?.policy !== this.init?.policy.name || typeof data?.slots !== "object" || data.slots === null) continue;
			const saved = data.slots as Record<string, unknown>;
			for (const n of names) if (n in saved) values[n] = saved[n];
			break;
		}
		// At session start the engine has no session yet: the other slots
		// then take their initial values (restore accepts a partial state).
		const state0 = await this.snapshot();
		let state = state0 ?? {};
		try {
			state = (await this.request<{ state: Record<string, unknown> }>("restore", { session: this.sessionKey, state: { ...state0, ...values } })).state;
		} catch (err) {
			// A malformed entry leaves the state as it was.
			if (err instanceof EngineDown) throw err;
		}
		for (const n of names) this.durable[n] = state[n];
	}

	private async simple(ctx: ExtensionContext, event: string, extra: Record<string, unknown>): Promise<undefined> {
		await this.confirmWindow(ctx);
		const d = await this.decide(ctx, event, extra);
		await this.apply(d.effects, new Outcome("other"), ctx);
		return undefined;
	}

	/**
	 * The branch for a request: all of it when it fits in one request line,
	 * else its newest entries that do.
	 */
	private fit(branch: SessionEntry[]): SessionEntry[] {
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

	/** A committed boundary makes its window the active one. */
	private async confirmWindow(ctx: ExtensionContext): Promise<void> {
		const w = this.pendingWindow;
		if (w === undefined) return;
		const r = await this.request<{ committed: boolean }>("committed", {
			entries: this.fit(ctx.sessionManager.getBranch()),
			windowId: w,
		});
		if (r.committed) {
			this.windowId = w;
			this.pendingWindow = undefined;
			this.requestDrafts = [];
			// "UI success notices use confirmation, not the repair predicate,
			// and remain committed-only": shown only now that the boundary is
			// confirmed in the session.
			const notice = this.init?.surface.messages.reset_notice;
			if (notice !== undefined && notice !== "") ctx.ui.notify(notice, "info");
		}
	}

	// ------------------------------------------------------------ hooks

	private async onSessionTree(ctx: ExtensionContext): Promise<undefined> {
		this.generation++;
		this.pendingWindow = undefined;
		this.requestDrafts = [];
		await this.reloadSettings(ctx);
		const w = await this.request<{ windowId: string }>("activeWindow", { entries: this.fit(ctx.sessionManager.getBranch()) });
		this.windowId = w.windowId !== "" ? w.windowId : "w1";
		await this.restoreDurable(ctx);
		const d = await this.decide(ctx, "session_tree", {});
		await this.apply(d.effects, new Outcome("other"), ctx);
		return undefined;
	}

	/**
	 * Seed 002: "The extension reads settings from the current project at
	 * session start. A session tree change reloads them." The engine is
	 * initialized again with the project's settings (a limit saved with
	 * `/autocompacter set`, or removed with `reset`, comes into force); the
	 * session's policy state (failures, cooldown, notices of the cycle) is
	 * kept across it when the policy stays the same.
	 */
	private async reloadSettings(ctx: ExtensionContext): Promise<void> {
		const snap = await this.snapshot();
		const before = this.init?.policy.name;
		const init = await this.request<InitializeResult>("initialize", { projectDir: ctx.cwd, trusted: ctx.isProjectTrusted() });
		this.init = init;
		this.registerSurface(init);
		if (init.error !== undefined && init.error !== "") this.say(ctx, init.error, "error");
		if (snap !== undefined && init.sessionsReset === true && init.policy.name === before) {
			try {
				await this.request("restore", { session: this.sessionKey, state: snap });
			} catch (err) {
				if (err instanceof EngineDown) throw err;
				// A policy whose slots changed starts the session afresh.
			}
		}
	}

	private async onBeforeTree(e: SessionBeforeTreeEvent, ctx: ExtensionContext): Promise<SessionBeforeTreeResult | undefined> {
		if (!e.preparation.userWantsSummary || e.preparation.oldLeafId === null) return undefined;
		const sm = ctx.sessionManager;
		// The host reports whether either branch crosses a reset; whether the
		// summary is suppressed is the policy's before_tree decision.
		const r = await this.request<{ suppress: boolean }>("suppressTreeSummary", {
			oldPath: this.fit(sm.getBranch(e.preparation.oldLeafId)),
			newPath: this.fit(sm.getBranch(e.preparation.targetId)),
		});
		const d = await this.decide(ctx, "before_tree", { crosses_reset: r.suppress });
		const out = new Outcome("before_tree");
		await this.apply(d.effects, out, ctx);
		return out.tree;
	}

	private async onRequest(e: ContextWithSystemEvent, ctx: ExtensionContext): Promise<{ messages: AgentMessages } | undefined> {
		await this.confirmWindow(ctx);
		let messages = e.messages;
		let changed = false;
		const branch = ctx.sessionManager.getBranch();
		if (branch.some((x) => x.type === "custom" && MARKER_TYPES.includes(x.customType))) {
			const pr = await this.request<ProjectResult>("project", { entries: this.fit(branch) });
			if (pr.mode === "abort") {
				ctx.abort();
				ctx.ui.notify(`resetpolicy: ${pr.reason ?? "the reset boundary is incomplete"}; the request was stopped instead of sending the old history.`, "warning");
				return { messages: systemOnly(messages) };
			}
			if (pr.mode === "legacy" || pr.clamped) {
				messages = pr.messages as AgentMessages;
				changed = true;
			}
		}
		const d = await this.decide(ctx, "request", { user_input: userInputAfterReset(e.messages) });
		const out = new Outcome("request");
		await this.apply(d.effects, out, ctx);
		if (out.stop || this.stopRequested) {
			this.stopRequested = false;
			ctx.abort();
			return { messages: systemOnly(messages) };
		}
		if (out.requestMessages.length > 0) {
			messages = [...messages, ...out.requestMessages];
			changed = true;
		}
		return changed ? { messages } : undefined;
	}

	private async onTurnEnd(e: TurnEndEvent, ctx: ExtensionContext): Promise<BoundaryResult | undefined> {
		await this.confirmWindow(ctx);
		const msg = e.message as AssistantMessage;
		const syntheticAbort = msg.stopReason === "aborted" && ctx.signal?.aborted !== true;
		let error = "";
		if (e.outcome === "error") error = isContextOverflow(msg, ctx.model?.contextWindow) ? "overflow" : "other";
		const out = new Outcome("turn_end");
		// Hidden request messages become durable at a completed turn, before
		// any boundary; they are discarded otherwise. They are collected
		// before anything is awaited, so a failed decision or boundary build
		// still keeps them ("preserve already-collected entries without
		// claiming a continuation").
		if (e.outcome === "completed" && !syntheticAbort) {
			for (const r of this.requestDrafts) if (r.window === this.windowId) out.entries.push(r.draft);
		}
		this.requestDrafts = [];
		try {
			const d = await this.decide(ctx, "turn_end", {
				outcome: e.outcome,
				error,
				synthetic_abort: syntheticAbort,
				tool_results: e.toolResults.length,
			});
			await this.apply(d.effects, out, ctx, { turn: e });
		} catch (err) {
			if (!(err instanceof EngineDown)) ctx.ui.notify(`resetpolicy: ${errorText(err)}; nothing was reset.`, "error");
			out.continueRun = undefined;
		}
		return boundaryResult(e.entries, out);
	}

	private async onBeforeSettle(e: AgentBeforeSettleEvent, ctx: ExtensionContext): Promise<BoundaryResult | undefined> {
		await this.confirmWindow(ctx);
		const d = await this.decide(ctx, "before_settle", { outcome: e.outcome });
		const out = new Outcome("before_settle");
		await this.apply(d.effects, out, ctx);
		return boundaryResult(e.entries, out);
	}

	private async onSettled(aborted: boolean, ctx: ExtensionContext): Promise<undefined> {
		await this.confirmWindow(ctx);
		this.stopRequested = false;
		this.requestDrafts = [];
		const d = await this.decide(ctx, "settled", { aborted });
		await this.apply(d.effects, new Outcome("other"), ctx);
		return undefined;
	}

	private async onBeforeCompact(e: SessionBeforeCompactEvent, ctx: ExtensionContext): Promise<SessionBeforeCompactResult | undefined> {
		const hc = this.hostCheckpoint;
		if (hc !== undefined && e.reason === "manual") {
			// The host's own checkpoint (the checkpoint effect outside a turn
			// boundary): a summary of the whole context, self-retaining. If
			// the summary fails, Pi must not write its own summary in its
			// place ("A summary error leaves the session context unchanged"):
			// the compaction is cancelled and finish() reports the error.
			const messages = ctx.sessionManager.buildSessionProjection().messages;
			let r: Awaited<ReturnType<typeof this.summarize>>;
			try {
				r = await this.summarize(ctx, messages, e.signal);
			} catch (err) {
				hc.error = errorText(err);
				hc.aborted = e.signal.aborted;
				return { cancel: true };
			}
			// A session shutdown meanwhile dropped this checkpoint.
			if (this.hostCheckpoint !== hc) return { cancel: true };
			return {
				compaction: {
					summary: r.text,
					firstKeptEntryId: null as unknown as string,
					tokensBefore: e.preparation.tokensBefore,
					usage: r.usage,
				},
			};
		}
		await this.confirmWindow(ctx);
		this.compactionAttempt = this.inflightAttempt !== undefined && e.reason === "manual" ? this.inflightAttempt : undefined;
		const d = await this.decide(ctx, "before_compact", {
			reason: e.reason,
			will_retry: e.willRetry,
			signal_aborted: e.signal.aborted,
			after_reset: ctx.sessionManager.getBranch().some((x) => x.type === "custom" && MARKER_TYPES.includes(x.customType)),
		});
		const out = new Outcome("before_compact");
		await this.apply(d.effects, out, ctx, { tokensBefore: e.preparation.tokensBefore });
		return out.compaction;
	}

	private async onCompact(e: SessionCompactEvent, ctx: ExtensionContext): Promise<undefined> {
		if (this.hostCheckpoint !== undefined && e.reason === "manual") return undefined; // reported by onComplete
		const w = this.pendingCompactionWindow;
		this.pendingCompactionWindow = undefined;
		if (w !== undefined) {
			const r = await this.request<{ found: boolean }>("findCompactionReset", {
				entries: this.fit(ctx.sessionManager.getBranch()),
				windowId: w,
			});
			if (r.found) {
				this.windowId = w;
				this.pendingWindow = undefined;
				this.requestDrafts = [];
			}
		}
		const attempt = this.compactionAttempt ?? 0;
		this.compactionAttempt = undefined;
		const d = await this.decide(ctx, "compact_done", { reason: e.reason, attempt });
		await this.apply(d.effects, new Outcome("other"), ctx);
		return undefined;
	}

	private async onCompactFailed(e: SessionCompactFailedEvent, ctx: ExtensionContext): Promise<undefined> {
		if (this.hostCheckpoint !== undefined && e.reason === "manual") return undefined; // reported by onError
		this.pendingCompactionWindow = undefined;
		const attempt = this.compactionAttempt ?? 0;
		this.compactionAttempt = undefined;
		const d = await this.decide(ctx, "compact_failed", {
			reason: e.reason,
			attempt,
			error: e.errorMessage ?? "",
			aborted: e.aborted,
		});
		await this.apply(d.effects, new Outcome("other"), ctx);
		return undefined;
	}

	private async onHostCommand(args: string, ctx: ExtensionCommandContext): Promise<void> {
		this.lastCtx = ctx;
		if (args === "on" || args === "off") {
			if (!this.live) {
				ctx.ui.notify(`resetpolicy: the policy engine is not running (${this.engine?.reason ?? "not started"}).`, "error");
				return;
			}
			this.enabled = args === "on";
			this.generation++;
			await this.guard(ctx, () => this.simple(ctx, "toggle", { on: this.enabled }));
			ctx.ui.notify(`resetpolicy: ${this.init?.policy.name ?? "the policy"} is ${args} for this session.`, "info");
			return;
		}
		const lines: string[] = [];
		if (this.init !== undefined) {
			const p = this.init.policy;
			lines.push(`policy ${p.name} (${p.source === "builtin" ? "built-in" : p.source}; ${p.origin})${this.enabled ? "" : " — off"}`);
			for (const prm of this.init.surface.params) lines.push(`  ${prm.name} = ${JSON.stringify(prm.value)}  (${prm.origin})`);
			if (this.init.decisionLog !== undefined) lines.push(`decision log ${this.init.decisionLog}`);
		}
		lines.push(this.live ? `engine running; window ${this.windowId}` : `engine not running (${this.engine?.reason ?? "not started"})`);
		if (!ctx.isProjectTrusted() && existsSync(join(ctx.cwd, ".pi", "resetpolicy.hcl"))) {
			lines.push(
				".pi/resetpolicy.hcl exists but was ignored: this project is not trusted. Trust it with /trust (or start pi with --approve), then start a new session.",
			);
		}
		ctx.ui.notify(lines.join("\n"), "info");
	}

	// ------------------------------------------------------------ surface

	private registerSurface(init: InitializeResult): void {
		for (const tool of init.surface.tools) {
			if (this.registeredTools.has(tool.name)) continue;
			this.registeredTools.add(tool.name);
			this.registerPolicyTool(tool);
		}
		for (const cmd of init.surface.commands) {
			if (this.registeredCommands.has(cmd.name) || cmd.name === "resetpolicy") continue;
			this.registeredCommands.add(cmd.name);
			this.pi.registerCommand(cmd.name, {
				description: cmd.description,
				handler: (args, ctx) => this.onPolicyCommand(cmd.name, args, ctx),
			});
		}
	}

	private registerPolicyTool(tool: PolicyTool): void {
		const props: Record<string, TSchema> = {};
		for (const p of tool.parameters) {
			const opts = { description: p.description };
			let s: TSchema;
			switch (p.type) {
				case "number":
					s = Type.Number(opts);
					break;
				case "integer":
					s = Type.Integer(opts);
					break;
				case "boolean":
					s = Type.Boolean(opts);
					break;
				default:
					s = Type.String(opts);
			}
			props[p.name] = p.required ? s : Type.Optional(s);
		}
		this.pi.registerTool({
			name: tool.name,
			label: tool.name,
			description: tool.description,
			parameters: Type.Object(props),
			execute: async (_id, params, _signal, _onUpdate, ctx) => {
				this.lastCtx = ctx;
				if (!this.live) {
					return errorResult(`resetpolicy: the policy engine is not running (${this.engine?.reason ?? "not started"}); nothing was done.`);
				}
				try {
					await this.confirmWindow(ctx);
					const d = await this.decide(ctx, "tool", { name: tool.name, args: params });
					const out = new Outcome("tool");
					await this.apply(d.effects, out, ctx);
					return {
						content: [{ type: "text" as const, text: out.reply?.text ?? "Done." }],
						details: { rules: d.rules },
						...(out.reply?.terminate === true ? { terminate: true } : {}),
					};
				} catch (err) {
					return errorResult(`resetpolicy: ${errorText(err)}; nothing was done.`);
				}
			},
		});
	}

	private async onPolicyCommand(name: string, args: string, ctx: ExtensionCommandContext): Promise<void> {
		this.lastCtx = ctx;
		if (!this.live) {
			this.say(ctx, `resetpolicy: the policy engine is not running (${this.engine?.reason ?? "not started"}); /${name} did nothing.`, "error");
			return;
		}
		await this.guard(ctx, async () => {
			await this.confirmWindow(ctx);
			const dialog = hasDialogs(ctx);
			const d = await this.decide(ctx, "command", { name, args: args.trim(), dialog });
			const out = new Outcome("command");
			await this.apply(d.effects, out, ctx);
			if (out.asks.length > 0) await this.dialog(name, out.asks, ctx);
			return undefined;
		});
	}

	/**
	 * The ask effects of one command decision: the questions in Pi's dialog
	 * UI, then the same command once more with the answers after each
	 * group's command arguments (an empty answer takes the offered value).
	 * A cancelled question runs nothing.
	 */
	private async dialog(name: string, asks: Outcome["asks"], ctx: ExtensionCommandContext): Promise<void> {
		if (!hasDialogs(ctx)) {
			this.say(ctx, `resetpolicy: /${name} asks questions, and this mode of Pi has no dialogs; nothing was changed.`, "warning");
			return;
		}
		const runs: { command: string; answers: string[] }[] = [];
		for (const q of asks) {
			const answer = await ctx.ui.input(q.value === "" ? q.title : `${q.title} [${q.value}]`, q.value);
			if (answer === undefined) {
				this.say(ctx, `/${name}: cancelled; nothing was changed.`, "info");
				return;
			}
			const last = runs[runs.length - 1];
			const a = answer.trim() === "" ? q.value : answer.trim();
			if (last !== undefined && last.command === q.command) last.answers.push(a);
			else runs.push({ command: q.command, answers: [a] });
		}
		for (const r of runs) {
			const d = await this.decide(ctx, "command", { name, args: [r.command, ...r.answers].join(" ").trim(), dialog: true });
			await this.apply(d.effects, new Outcome("command"), ctx);
		}
	}

	// ------------------------------------------------------------ effects

	/**
	 * Shows a reply or notice in every mode. With a UI (Pi's terminal and RPC
	 * modes, ctx.hasUI) it is a notice; RPC clients get it as a notify
	 * request. In print and JSON mode ctx.ui.notify does nothing and stdout
	 * carries only the answer or the JSON event stream, so the line goes to
	 * stderr as Pi writes its own diagnostics and extension errors there
	 * ("Error: …", "Warning: …", info plain).
	 */
	private say(ctx: ExtensionContext, text: string, level: "info" | "warning" | "error"): void {
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

	private text(name: string): string {
		return this.init?.surface.messages[name] ?? name;
	}

	private hidden(name: string): { customType: string; content: string; display: boolean; details: unknown } {
		return {
			customType: MESSAGE_TYPE_PREFIX + name,
			content: this.text(name),
			display: false,
			details: { windowId: this.windowId, message: name },
		};
	}

	private continuation(): { customType: string; content: string; display: boolean; details: unknown } {
		return {
			customType: CONTINUATION_TYPE,
			content: this.init?.texts.continuation ?? "Continue.",
			display: false,
			details: { windowId: this.windowId },
		};
	}

	/** Carries out effects in order. */
	private async apply(
		effects: Effect[],
		out: Outcome,
		ctx: ExtensionContext,
		extra: { turn?: TurnEndEvent; tokensBefore?: number } = {},
	): Promise<void> {
		for (const ef of effects) {
			switch (ef.effect) {
				case "reply": {
					const text = String(ef.text ?? "");
					out.reply = { text, terminate: ef.terminate === true };
					if (out.site === "command") this.say(ctx, text, "info");
					break;
				}
				case "notify": {
					const level = ef.level === "error" || ef.level === "warning" ? ef.level : "info";
					this.say(ctx, String(ef.text ?? ""), level);
					break;
				}
				case "ask":
					out.asks.push({ title: String(ef.title ?? ""), value: String(ef.value ?? ""), command: String(ef.command ?? "") });
					break;
				case "status":
					ctx.ui.setStatus(STATUS_KEY, String(ef.text ?? "") || undefined);
					break;
				case "inject":
					this.inject(String(ef.message), String(ef.deliver), out, ctx);
					break;
				case "commit_reset":
					await this.commitReset(ef.continue === true, ef.stop === true, out, ctx);
					break;
				case "provide_reset":
					await this.provideReset(out, ctx, extra.tokensBefore ?? 0);
					break;
				case "suppress_summary":
					if (out.site === "before_tree") out.tree = { summary: { summary: "" } };
					break;
				case "cancel_compaction":
					if (out.site === "before_compact") out.compaction = { cancel: true };
					if (typeof ef.text === "string" && ef.text !== "") this.say(ctx, ef.text, "warning");
					break;
				case "compact":
					this.compact(Number(ef.attempt), ctx);
					break;
				case "checkpoint":
					await this.checkpoint(ef.continue === true, Number(ef.attempt ?? 0), out, ctx, extra);
					break;
				case "continue":
					if (out.boundary) out.continueRun = true;
					else this.pi.sendMessage(this.continuation(), ctx.isIdle() ? { triggerTurn: true } : { triggerTurn: true, deliverAs: "followUp" });
					break;
				case "stop":
					if (out.site === "request") out.stop = true;
					else if (out.boundary) {
						out.continueRun = false;
						this.stopRequested = true;
					} else ctx.abort();
					break;
				case "repair":
					await this.repair(ctx);
					break;
				case "save_param":
				case "clear_param": {
					const method = ef.effect === "save_param" ? "saveParam" : "clearParam";
					const params = ef.effect === "save_param" ? { name: ef.name, value: ef.value } : { name: ef.name };
					try {
						await this.request(method, params);
					} catch (err) {
						this.say(ctx, `resetpolicy: ${errorText(err)}`, "error");
					}
					break;
				}
				default:
					ctx.ui.notify(`resetpolicy: unknown effect ${ef.effect}; ignored.`, "warning");
			}
		}
	}

	private inject(name: string, deliver: string, out: Outcome, ctx: ExtensionContext): void {
		const msg = this.hidden(name);
		if (deliver === "request" && out.site === "request") {
			out.requestMessages.push({ role: "custom", ...msg, timestamp: Date.now() } as AgentMessages[number]);
			this.requestDrafts.push({ window: this.windowId, draft: { type: "custom_message", ...msg } });
			return;
		}
		if (deliver === "turn" && out.boundary) {
			out.entries.push({ type: "custom_message", ...msg });
			out.continueRun = true;
			return;
		}
		if (deliver === "turn") {
			this.pi.sendMessage(msg, ctx.isIdle() ? { triggerTurn: true } : { triggerTurn: true, deliverAs: "followUp" });
			return;
		}
		// steer (and a request message outside a request): into the running
		// turn, or a new turn when idle.
		this.pi.sendMessage(msg, { triggerTurn: true, deliverAs: "steer" });
	}

	/** What a handler captures before awaiting, to recheck afterwards. */
	private lifecycle(): { generation: number; session: string; window: string } {
		return { generation: this.generation, session: this.sessionKey, window: this.windowId };
	}

	private current(l: { generation: number; session: string; window: string }, ctx: ExtensionContext): boolean {
		return (
			this.live &&
			this.enabled &&
			l.generation === this.generation &&
			l.session === this.sessionKey &&
			l.window === this.windowId &&
			ctx.signal?.aborted !== true
		);
	}

	private async commitReset(continueRun: boolean, stop: boolean, out: Outcome, ctx: ExtensionContext): Promise<void> {
		if (!out.boundary) {
			ctx.ui.notify("resetpolicy: a reset can only be committed at the end of a turn or before the run settles; nothing was reset.", "warning");
			return;
		}
		// Seed 000: "the handler captures its session/window generation before
		// awaiting, then rechecks generation, session, window, enabled state,
		// and abort status before returning drafts. A stale completion is
		// discarded while incoming/budget entries survive ... Construction
		// failures notify only while the initiating lifecycle is still current
		// and preserve already-collected entries without claiming a
		// continuation."
		const before = this.lifecycle();
		let b: DraftsResult;
		try {
			b = await this.request<DraftsResult>("boundary", {});
		} catch (err) {
			if (this.current(before, ctx) && !(err instanceof EngineDown)) {
				ctx.ui.notify(`resetpolicy: the reset boundary could not be built (${errorText(err)}); nothing was reset.`, "error");
			}
			return;
		}
		if (!this.current(before, ctx)) return;
		out.entries.push(...b.entries);
		this.pendingWindow = b.windowId;
		if (continueRun) out.continueRun = true;
		else if (out.continueRun === undefined) out.continueRun = false;
		if (stop) {
			out.continueRun = false;
			this.stopRequested = out.site === "turn_end";
		}
	}

	private async provideReset(out: Outcome, ctx: ExtensionContext, tokensBefore: number): Promise<void> {
		if (out.site !== "before_compact") {
			ctx.ui.notify("resetpolicy: provide_reset outside a compaction; nothing was reset.", "warning");
			return;
		}
		const r = await this.request<{ windowId: string; result: SessionBeforeCompactResult }>("compactionReset", {
			tokensBefore: Math.round(tokensBefore),
		});
		this.pendingCompactionWindow = r.windowId;
		out.compaction = r.result;
	}

	/** Starts ctx.compact for an identified attempt; its callbacks become events. */
	private compact(attempt: number, ctx: ExtensionContext): void {
		this.inflightAttempt = attempt;
		const done = (event: string, extra: Record<string, unknown>) => {
			if (this.inflightAttempt === attempt) this.inflightAttempt = undefined;
			void this.guard(ctx, async () => {
				await this.confirmWindow(ctx);
				const d = await this.decide(ctx, event, { attempt, ...extra });
				await this.apply(d.effects, new Outcome("other"), ctx);
				return undefined;
			});
		};
		try {
			ctx.compact({
				onComplete: () => done("attempt_complete", {}),
				onError: (err) => done("attempt_error", { error: err.message }),
			});
		} catch (err) {
			done("attempt_error", { error: errorText(err) });
		}
	}

	private async summarize(
		ctx: ExtensionContext,
		messages: AgentMessages,
		signal: AbortSignal | undefined,
	): Promise<{ text: string; usage: AssistantMessage["usage"] | undefined }> {
		const model = ctx.model;
		if (model === undefined) throw new Error("no model is selected to write the summary");
		const r = await generateSummaryWithUsage(
			messages,
			model,
			undefined,
			undefined,
			undefined,
			signal,
			undefined,
			undefined,
			undefined,
			(m, c, o) => ctx.modelRegistry.streamSimple(m, c, o),
		);
		if (r.text.trim() === "") throw new Error("the summary came back empty");
		return { text: r.text, usage: r.usage };
	}

	/**
	 * Seed 002's checkpoint: at a turn boundary the summary of the context
	 * preview becomes a self-retaining compaction draft; elsewhere (a command
	 * while idle) a host compaction writes it. Either way summary_done echoes
	 * the effect's attempt: the summary is asynchronous, and the policy takes
	 * only its outstanding checkpoint's result, not a late one of a checkpoint
	 * a session change dropped.
	 */
	private async checkpoint(
		continueRun: boolean,
		attempt: number,
		out: Outcome,
		ctx: ExtensionContext,
		extra: { turn?: TurnEndEvent },
	): Promise<void> {
		if (out.site === "turn_end" && extra.turn !== undefined) {
			let ok = false;
			let error = "";
			try {
				const r = await this.summarize(ctx, extra.turn.context.contextMessages, ctx.signal);
				const c = await this.request<{ entry: Draft }>("checkpoint", { summary: r.text, usage: r.usage });
				out.entries.push(c.entry);
				ok = true;
			} catch (err) {
				if (err instanceof EngineDown) throw err;
				error = errorText(err);
			}
			const aborted = !ok && ctx.signal?.aborted === true;
			const d = await this.decide(ctx, "summary_done", { ok, error, attempt, aborted });
			if (ok && continueRun) out.continueRun = true;
			await this.apply(d.effects, out, ctx, extra);
			return;
		}
		if (this.hostCheckpoint !== undefined) return;
		const hc: HostCheckpoint = { continueRun, ctx };
		this.hostCheckpoint = hc;
		const finish = (ok: boolean, piError: string) => {
			// A session change since the start dropped this checkpoint: the
			// policy ignores its summary by identity, and the host must not
			// continue a run on its behalf either ("Session replacement also
			// cancels stale work").
			const current = this.hostCheckpoint === hc;
			if (current) this.hostCheckpoint = undefined;
			// Pi's own refusal ("Nothing to compact", "Already compacted") is
			// the session being compact already, not a summary error. A
			// cancelled compaction is the summary's failure when the summary
			// failed (onBeforeCompact cancelled it), else an abort.
			const alreadyCompact = !ok && hc.error === undefined && ALREADY_COMPACT.test(piError);
			const aborted = !ok && !alreadyCompact && (hc.aborted === true || (hc.error === undefined && piError === "Compaction cancelled"));
			const error = hc.error ?? piError;
			void this.guard(ctx, async () => {
				const d = await this.decide(ctx, "summary_done", { ok, error, attempt, aborted, already_compact: alreadyCompact });
				await this.apply(d.effects, new Outcome("other"), ctx);
				if (ok && continueRun && current) this.pi.sendMessage(this.continuation(), { triggerTurn: true });
				return undefined;
			});
		};
		try {
			ctx.compact({ onComplete: () => finish(true, ""), onError: (err) => finish(false, err.message) });
		} catch (err) {
			finish(false, errorText(err));
		}
	}

	/** Completes a repairable reset tail with the drafts the engine builds. */
	private async repair(ctx: ExtensionContext): Promise<void> {
		const before = this.lifecycle();
		const r = await this.request<RepairResult>("repair", { entries: this.fit(ctx.sessionManager.getBranch()) });
		// "It awaits ... and rechecks lifecycle/window identity before sending
		// a repaired boot or continuation."
		if (!this.current(before, ctx)) return;
		for (const d of r.entries) {
			if (d.type === "custom_message") {
				this.pi.sendMessage({ customType: d.customType, content: d.content, display: d.display, details: d.details });
			} else if (d.type === "custom") {
				this.pi.appendEntry(d.customType, d.data);
			}
		}
		if (r.entries.length > 0 && r.windowId !== undefined) this.windowId = r.windowId;
	}
}

function boundaryResult(incoming: SessionBoundaryDraft[], out: Outcome): BoundaryResult | undefined {
	const result: BoundaryResult = {};
	if (out.entries.length > 0) result.entries = [...incoming, ...(out.entries as SessionBoundaryDraft[])];
	if (out.continueRun !== undefined) result.continue = out.continueRun;
	return result.entries === undefined && result.continue === undefined ? undefined : result;
}

/**
 * Whether a real user message follows the latest reset boundary in the
 * request (its boot message, or the checkpoint's summary wrapper). Pi takes
 * a steering or follow-up message off its queue before context_with_system,
 * so the request carries it while `queued` is already false.
 */
function userInputAfterReset(messages: AgentMessages): boolean {
	let last = -1;
	messages.forEach((m, i) => {
		const x = m as { role: string; customType?: string };
		if (x.role === "compactionSummary" || (x.role === "custom" && (x.customType === "resetpolicy/boot" || x.customType === "pi-context/boot"))) last = i;
	});
	if (last < 0) return false;
	return messages.slice(last + 1).some((m) => m.role === "user");
}

/** The request reduced to its system head: the replayed prompt and tools. */
function systemOnly(messages: AgentMessages): AgentMessages {
	const head = getCurrentSystemMessage(messages as Parameters<typeof getCurrentSystemMessage>[0]);
	if (head !== undefined) return [head as AgentMessages[number]];
	return messages.filter((m) => m.role === "system").slice(0, 1);
}

/** Pi's terminal and RPC modes answer input dialogs; print and JSON mode have no UI. */
function hasDialogs(ctx: ExtensionContext): boolean {
	try {
		return ctx.hasUI;
	} catch {
		return false;
	}
}

function errorResult(text: string) {
	return { content: [{ type: "text" as const, text }], details: undefined, isError: true };
}
