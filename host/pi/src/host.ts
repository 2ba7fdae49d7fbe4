// The adapter: forwards Pi's hooks to the engine as host contract events
// (DESIGN §4) and carries out the effects it decides with Pi's public API.
// It decides nothing itself; the boundary mechanics (building, confirming,
// inspecting and projecting entries) are asked of the engine too.
//
// This file holds ResetPolicyHost, which owns the host state and registers
// Pi's hooks, and what is not yet in a file of its own. Already apart: the
// host state and its primitives (state.ts); the durable slots (durable.ts);
// the reported facts and the decision (facts.ts); carrying out effects
// (effects.ts); the policy's tools and commands (surface.ts).

import type {
	AgentBeforeSettleEvent,
	BoundaryResult,
	ContextWithSystemEvent,
	ExtensionAPI,
	ExtensionContext,
	SessionBeforeCompactEvent,
	SessionBeforeCompactResult,
	SessionBeforeTreeEvent,
	SessionBeforeTreeResult,
	SessionBoundaryDraft,
	SessionCompactEvent,
	SessionCompactFailedEvent,
	TurnEndEvent,
} from "@earendil-works/pi-coding-agent";
import { type AssistantMessage, getCurrentSystemMessage, isContextOverflow } from "@earendil-works/pi-ai";
import { restoreDurable, snapshot } from "./durable.ts";
import { apply, simple, summarize } from "./effects.ts";
import { Engine, EngineDown, errorText } from "./engine.ts";
import { confirmWindow, decide } from "./facts.ts";
import { type InitializeResult, MARKER_TYPES, type ProjectResult } from "./protocol.ts";
import {
	type AgentMessages,
	fit,
	guard,
	type HostOptions,
	type HostState,
	newHostState,
	Outcome,
	request,
	say,
} from "./state.ts";
import { onHostCommand, registerSurface } from "./surface.ts";

export type { HostOptions } from "./state.ts";

const LOG_LINES = 50;

/** How to get a missing engine: only when the binary could not be run. */
function engineFix(reason: string): string {
	if (!/ENOENT|EACCES|cannot (run|start)/.test(reason)) return "";
	return " Install it with `go install github.com/resetpolicy/resetpolicy/cmd/resetpolicy@latest`, or set RESETPOLICY_BIN to the path of a built binary.";
}

export class ResetPolicyHost {
	private readonly h: HostState;

	constructor(pi: ExtensionAPI, opts: HostOptions = {}) {
		this.h = newHostState(pi, opts);
	}

	/** Registers the hooks and the host's own command. */
	register(): void {
		const h = this.h;
		const pi = h.pi;
		pi.on("session_start", (e, ctx) => onSessionStart(h, e.reason, ctx));
		pi.on("session_shutdown", (e, ctx) => onSessionShutdown(h, e.reason, ctx));
		pi.on("session_tree", (_e, ctx) => guard(h, ctx, () => onSessionTree(h, ctx)));
		pi.on("session_before_tree", (e, ctx) => guard(h, ctx, () => onBeforeTree(h, e, ctx)));
		pi.on("model_select", (e, ctx) =>
			guard(h, ctx, () => simple(h, ctx, "model_select", { model: `${e.model.provider}/${e.model.id}` })),
		);
		pi.on("context_with_system", (e, ctx) => guard(h, ctx, () => onRequest(h, e, ctx)));
		pi.on("turn_end", (e, ctx) => guard(h, ctx, () => onTurnEnd(h, e, ctx)));
		pi.on("agent_end", (_e, ctx) => guard(h, ctx, () => simple(h, ctx, "agent_end", {})));
		pi.on("agent_before_settle", (e, ctx) => guard(h, ctx, () => onBeforeSettle(h, e, ctx)));
		pi.on("agent_settled", (e, ctx) => guard(h, ctx, () => onSettled(h, e.aborted, ctx)));
		pi.on("session_before_compact", (e, ctx) => guard(h, ctx, () => onBeforeCompact(h, e, ctx)));
		pi.on("session_compact", (e, ctx) => guard(h, ctx, () => onCompact(h, e, ctx)));
		pi.on("session_compact_failed", (e, ctx) => guard(h, ctx, () => onCompactFailed(h, e, ctx)));
		pi.registerCommand("resetpolicy", {
			description: "resetpolicy: status, or on/off to switch the policy for this session",
			getArgumentCompletions: (prefix) =>
				["status", "on", "off"].filter((x) => x.startsWith(prefix)).map((x) => ({ value: x, label: x })),
			handler: (args, ctx) => onHostCommand(h, args.trim(), ctx),
		});
	}
}

// ------------------------------------------------------------ engine life

async function onSessionStart(h: HostState, reason: string, ctx: ExtensionContext): Promise<void> {
	h.lastCtx = ctx;
	resetSessionState(h);
	h.sessionKey = ctx.sessionManager.getSessionId();
	if (!(await startEngine(h, ctx))) return;
	await guard(h, ctx, async () => {
		const w = await request<{ windowId: string }>(h, "activeWindow", { entries: fit(ctx.sessionManager.getBranch()) });
		h.windowId = w.windowId !== "" ? w.windowId : "w1";
		await restoreDurable(h, ctx);
		const d = await decide(h, ctx, "session_start", { reason });
		await apply(h, d.effects, new Outcome("other"), ctx);
	});
}

async function startEngine(h: HostState, ctx: ExtensionContext): Promise<boolean> {
	h.engine?.close();
	h.live = false;
	h.noticeShown = false;
	const timeout = h.opts.timeoutMs ?? (Number(process.env.RESETPOLICY_TIMEOUT_MS) || 10000);
	const engine = new Engine({
		timeoutMs: timeout,
		onDown: (reason) => failSafe(h, reason),
		onLog: (line) => {
			h.logs.push(line);
			if (h.logs.length > LOG_LINES) h.logs.shift();
		},
	});
	h.engine = engine;
	engine.start();
	try {
		const init = await engine.request<InitializeResult>("initialize", {
			projectDir: ctx.cwd,
			trusted: ctx.isProjectTrusted(),
		});
		h.init = init;
		h.live = true;
		registerSurface(h, init);
		if (init.error !== undefined && init.error !== "") say(ctx, init.error, "error");
		return true;
	} catch (err) {
		failSafe(h, errorText(err));
		return false;
	}
}

async function onSessionShutdown(h: HostState, reason: string, ctx: ExtensionContext): Promise<void> {
	h.generation++;
	// "Session replacement also cancels stale work": a summary still being
	// written is not written, reported or continued once the session is
	// shut down (onBeforeCompact cancels it, finish() reports nothing).
	h.hostCheckpoint = undefined;
	const engine = h.engine;
	if (engine === undefined) return;
	if (h.live) {
		try {
			const d = await decide(h, ctx, "session_shutdown", { reason });
			await apply(h, d.effects, new Outcome("other"), ctx);
			await engine.request("closeSession", { session: h.sessionKey });
		} catch {
			// shutting down anyway
		}
	}
	h.live = false;
	engine.close();
	h.engine = undefined;
}

/** The engine is gone: one visible error, no reset, Pi keeps working. */
function failSafe(h: HostState, reason: string): void {
	h.generation++;
	h.live = false;
	h.pendingWindow = undefined;
	h.pendingCompactionWindow = undefined;
	h.requestDrafts = [];
	h.hostCheckpoint = undefined;
	if (h.noticeShown) return;
	h.noticeShown = true;
	const text = `resetpolicy: the policy engine is not running (${reason}).${engineFix(reason)} No context resets happen until the next session start; Pi keeps working and the session history is untouched.`;
	try {
		h.lastCtx?.ui.notify(text, "error");
	} catch {
		// the context may be gone with its session
	}
}

function resetSessionState(h: HostState): void {
	h.generation++;
	h.windowId = "w1";
	h.pendingWindow = undefined;
	h.pendingCompactionWindow = undefined;
	h.requestDrafts = [];
	h.stopRequested = false;
	h.inflightAttempt = undefined;
	h.compactionAttempt = undefined;
	h.hostCheckpoint = undefined;
}

// ------------------------------------------------------------ hooks

export async function onSessionTree(h: HostState, ctx: ExtensionContext): Promise<undefined> {
	h.generation++;
	h.pendingWindow = undefined;
	h.requestDrafts = [];
	await reloadSettings(h, ctx);
	const w = await request<{ windowId: string }>(h, "activeWindow", { entries: fit(ctx.sessionManager.getBranch()) });
	h.windowId = w.windowId !== "" ? w.windowId : "w1";
	await restoreDurable(h, ctx);
	const d = await decide(h, ctx, "session_tree", {});
	await apply(h, d.effects, new Outcome("other"), ctx);
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
async function reloadSettings(h: HostState, ctx: ExtensionContext): Promise<void> {
	const snap = await snapshot(h);
	const before = h.init?.policy.name;
	const init = await request<InitializeResult>(h, "initialize", { projectDir: ctx.cwd, trusted: ctx.isProjectTrusted() });
	h.init = init;
	registerSurface(h, init);
	if (init.error !== undefined && init.error !== "") say(ctx, init.error, "error");
	if (snap !== undefined && init.sessionsReset === true && init.policy.name === before) {
		try {
			await request(h, "restore", { session: h.sessionKey, state: snap });
		} catch (err) {
			if (err instanceof EngineDown) throw err;
			// A policy whose slots changed starts the session afresh.
		}
	}
}

export async function onBeforeTree(h: HostState, e: SessionBeforeTreeEvent, ctx: ExtensionContext): Promise<SessionBeforeTreeResult | undefined> {
	if (!e.preparation.userWantsSummary || e.preparation.oldLeafId === null) return undefined;
	const sm = ctx.sessionManager;
	// The host reports whether either branch crosses a reset; whether the
	// summary is suppressed is the policy's before_tree decision.
	const r = await request<{ suppress: boolean }>(h, "suppressTreeSummary", {
		oldPath: fit(sm.getBranch(e.preparation.oldLeafId)),
		newPath: fit(sm.getBranch(e.preparation.targetId)),
	});
	const d = await decide(h, ctx, "before_tree", { crosses_reset: r.suppress });
	const out = new Outcome("before_tree");
	await apply(h, d.effects, out, ctx);
	return out.tree;
}

export async function onRequest(h: HostState, e: ContextWithSystemEvent, ctx: ExtensionContext): Promise<{ messages: AgentMessages } | undefined> {
	await confirmWindow(h, ctx);
	let messages = e.messages;
	let changed = false;
	const branch = ctx.sessionManager.getBranch();
	if (branch.some((x) => x.type === "custom" && MARKER_TYPES.includes(x.customType))) {
		const pr = await request<ProjectResult>(h, "project", { entries: fit(branch) });
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
	const d = await decide(h, ctx, "request", { user_input: userInputAfterReset(e.messages) });
	const out = new Outcome("request");
	await apply(h, d.effects, out, ctx);
	if (out.stop || h.stopRequested) {
		h.stopRequested = false;
		ctx.abort();
		return { messages: systemOnly(messages) };
	}
	if (out.requestMessages.length > 0) {
		messages = [...messages, ...out.requestMessages];
		changed = true;
	}
	return changed ? { messages } : undefined;
}

export async function onTurnEnd(h: HostState, e: TurnEndEvent, ctx: ExtensionContext): Promise<BoundaryResult | undefined> {
	await confirmWindow(h, ctx);
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
		for (const r of h.requestDrafts) if (r.window === h.windowId) out.entries.push(r.draft);
	}
	h.requestDrafts = [];
	try {
		const d = await decide(h, ctx, "turn_end", {
			outcome: e.outcome,
			error,
			synthetic_abort: syntheticAbort,
			tool_results: e.toolResults.length,
		});
		await apply(h, d.effects, out, ctx, { turn: e });
	} catch (err) {
		if (!(err instanceof EngineDown)) ctx.ui.notify(`resetpolicy: ${errorText(err)}; nothing was reset.`, "error");
		out.continueRun = undefined;
	}
	return boundaryResult(e.entries, out);
}

export async function onBeforeSettle(h: HostState, e: AgentBeforeSettleEvent, ctx: ExtensionContext): Promise<BoundaryResult | undefined> {
	await confirmWindow(h, ctx);
	const d = await decide(h, ctx, "before_settle", { outcome: e.outcome });
	const out = new Outcome("before_settle");
	await apply(h, d.effects, out, ctx);
	return boundaryResult(e.entries, out);
}

export async function onSettled(h: HostState, aborted: boolean, ctx: ExtensionContext): Promise<undefined> {
	await confirmWindow(h, ctx);
	h.stopRequested = false;
	h.requestDrafts = [];
	const d = await decide(h, ctx, "settled", { aborted });
	await apply(h, d.effects, new Outcome("other"), ctx);
	return undefined;
}

export async function onBeforeCompact(h: HostState, e: SessionBeforeCompactEvent, ctx: ExtensionContext): Promise<SessionBeforeCompactResult | undefined> {
	const hc = h.hostCheckpoint;
	if (hc !== undefined && e.reason === "manual") {
		// The host's own checkpoint (the checkpoint effect outside a turn
		// boundary): a summary of the whole context, self-retaining. If
		// the summary fails, Pi must not write its own summary in its
		// place ("A summary error leaves the session context unchanged"):
		// the compaction is cancelled and finish() reports the error.
		const messages = ctx.sessionManager.buildSessionProjection().messages;
		let r: Awaited<ReturnType<typeof summarize>>;
		try {
			r = await summarize(ctx, messages, e.signal);
		} catch (err) {
			hc.error = errorText(err);
			hc.aborted = e.signal.aborted;
			return { cancel: true };
		}
		// A session shutdown meanwhile dropped this checkpoint.
		if (h.hostCheckpoint !== hc) return { cancel: true };
		return {
			compaction: {
				summary: r.text,
				firstKeptEntryId: null as unknown as string,
				tokensBefore: e.preparation.tokensBefore,
				usage: r.usage,
			},
		};
	}
	await confirmWindow(h, ctx);
	h.compactionAttempt = h.inflightAttempt !== undefined && e.reason === "manual" ? h.inflightAttempt : undefined;
	const d = await decide(h, ctx, "before_compact", {
		reason: e.reason,
		will_retry: e.willRetry,
		signal_aborted: e.signal.aborted,
		after_reset: ctx.sessionManager.getBranch().some((x) => x.type === "custom" && MARKER_TYPES.includes(x.customType)),
	});
	const out = new Outcome("before_compact");
	await apply(h, d.effects, out, ctx, { tokensBefore: e.preparation.tokensBefore });
	return out.compaction;
}

export async function onCompact(h: HostState, e: SessionCompactEvent, ctx: ExtensionContext): Promise<undefined> {
	if (h.hostCheckpoint !== undefined && e.reason === "manual") return undefined; // reported by onComplete
	const w = h.pendingCompactionWindow;
	h.pendingCompactionWindow = undefined;
	if (w !== undefined) {
		const r = await request<{ found: boolean }>(h, "findCompactionReset", {
			entries: fit(ctx.sessionManager.getBranch()),
			windowId: w,
		});
		if (r.found) {
			h.windowId = w;
			h.pendingWindow = undefined;
			h.requestDrafts = [];
		}
	}
	const attempt = h.compactionAttempt ?? 0;
	h.compactionAttempt = undefined;
	const d = await decide(h, ctx, "compact_done", { reason: e.reason, attempt });
	await apply(h, d.effects, new Outcome("other"), ctx);
	return undefined;
}

export async function onCompactFailed(h: HostState, e: SessionCompactFailedEvent, ctx: ExtensionContext): Promise<undefined> {
	if (h.hostCheckpoint !== undefined && e.reason === "manual") return undefined; // reported by onError
	h.pendingCompactionWindow = undefined;
	const attempt = h.compactionAttempt ?? 0;
	h.compactionAttempt = undefined;
	const d = await decide(h, ctx, "compact_failed", {
		reason: e.reason,
		attempt,
		error: e.errorMessage ?? "",
		aborted: e.aborted,
	});
	await apply(h, d.effects, new Outcome("other"), ctx);
	return undefined;
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
