// One handler per Pi hook that reports an event to the engine (session
// tree, tree summary, request, turn end, before settle, settled, compaction
// and its outcome), each returning to Pi what the decided effects asked for.
// Session start and shutdown, which start and stop the engine, are in
// host.ts; the simple events (model_select, agent_end) go through
// simple() in effects.ts.

import { getCurrentSystemMessage, isContextOverflow, type AssistantMessage } from "@earendil-works/pi-ai";
import type {
	AgentBeforeSettleEvent,
	BoundaryResult,
	ContextWithSystemEvent,
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
import { EngineDown, errorText } from "./engine.ts";
import { MARKER_TYPES, type InitializeResult, type ProjectResult } from "./protocol.ts";
import { restoreDurable, snapshot } from "./durable.ts";
import { apply, summarize } from "./effects.ts";
import { confirmWindow, decide } from "./facts.ts";
import { type AgentMessages, fit, holdForExit, type HostState, Outcome, request, say } from "./state.ts";
import { registerSurface } from "./surface.ts";

export async function onSessionTree(h: HostState, ctx: ExtensionContext): Promise<undefined> {
	h.generation++;
	h.pendingWindow = undefined;
	h.requestDrafts = [];
	h.pendingNotices = [];
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
	const d = await decide(h, ctx, "request", { user_input: userInputAfterReset(e.messages) }, messages);
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
	// The notices of this turn wait for its hidden entries (Pi appends them
	// after this handler returns); confirmWindow above showed every earlier
	// turn's that became durable, and the rest never will.
	const drafts = [...out.entries];
	out.deferNotices = drafts.length > 0;
	h.pendingNotices = [];
	h.durableDrafts = [];
	try {
		const d = await decide(h, ctx, "turn_end", {
			outcome: e.outcome,
			error,
			synthetic_abort: syntheticAbort,
			// The policy's own tools answer from the policy (a self-compact
			// dropped in the cooldown, say): their results are its replies,
			// not work the turn did.
			tool_results: e.toolResults.filter((r) => !h.registeredTools.has(r.toolName)).length,
		});
		await apply(h, d.effects, out, ctx, { turn: e });
	} catch (err) {
		if (!(err instanceof EngineDown)) ctx.ui.notify(`resetpolicy: ${errorText(err)}; nothing was reset.`, "error");
		out.continueRun = undefined;
	} finally {
		// The latches after what they latch (persistDurable).
		out.entries.push(...h.durableDrafts);
		h.durableDrafts = undefined;
	}
	if (out.notices.length > 0) h.pendingNotices.push({ drafts, notices: out.notices });
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
	// Seed 001: "agent_settled: ... create one identified attempt and
	// request ctx.compact"; the tool told the model the window is reset
	// when the run settles. Without a UI Pi exits once this returns.
	const work = h.attemptWork;
	if (work !== undefined) await holdForExit(ctx, "the requested context reset", () => work);
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
			r = hc.summary ?? (await summarize(ctx, messages, e.signal));
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
				tokensBefore: Math.max(0, e.preparation.tokensBefore - (hc.summary?.paddingTokens ?? 0)),
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
	await apply(h, d.effects, out, ctx, { tokensBefore: e.preparation.tokensBefore, signal: e.signal });
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
