// The facts the host reports with every event (window, tokens, context
// window, reserve, idle, queued, settings), the decision asked with them,
// and the confirmation that makes a committed boundary's window the active
// one before the next event is reported.

import { getCurrentSystemMessage } from "@earendil-works/pi-ai";
import { estimateTokens, type ExtensionContext } from "@earendil-works/pi-coding-agent";
import type { Decision, Draft } from "./protocol.ts";
import { persistDurable } from "./durable.ts";
import { type AgentMessages, fit, type HostState, request, say } from "./state.ts";

/** The host contract's default context_window (rules/contract). */
const DEFAULT_CONTEXT_WINDOW = 200000;

function facts(h: HostState, ctx: ExtensionContext, messages?: AgentMessages): Record<string, unknown> {
	const usage = ctx.getContextUsage();
	const settings = h.pi.getSettings() as {
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
		window_id: h.windowId,
		now_ms: Date.now(),
		enabled: h.enabled,
		// Seed 000 reads "automatic resets are enabled" from Pi's compaction
		// setting: automatic compaction on means automatic resets on.
		auto_reset: comp.enabled ?? true,
		auto_compaction: comp.enabled ?? true,
		tokens: Math.max(0, Math.round(usage?.tokens ?? projectedTokens(ctx, messages))),
		context_window: contextWindow(h, usage?.contextWindow, model, ctx),
		reserve: Math.round(reserve),
		idle: ctx.isIdle(),
		queued: ctx.hasPendingMessages(),
	};
}

/**
 * The model's context window; a model that reports none (or 0) gets the
 * host contract's default, with one warning per model.
 */
function contextWindow(h: HostState, fromUsage: number | undefined, model: ExtensionContext["model"], ctx: ExtensionContext): number {
	for (const w of [fromUsage, model?.contextWindow]) if (typeof w === "number" && w > 0) return Math.round(w);
	const key = model !== undefined ? `${model.provider}/${model.id}` : "(no model)";
	if (!h.windowWarned.has(key)) {
		h.windowWarned.add(key);
		ctx.ui.notify(`resetpolicy: model ${key} reports no context window; assuming ${DEFAULT_CONTEXT_WINDOW} tokens, the host contract's default.`, "warning");
	}
	return DEFAULT_CONTEXT_WINDOW;
}

/**
 * The active window's size when Pi's getContextUsage() does not know it
 * (tokens: null after a compaction — the policy's own retain-none reset
 * included — until the model answers in the new window): Pi 1.6's own
 * checkpoint-aware estimate for that case (estimateProjectedContextTokens
 * in its compaction.js, when no usage after the latest compaction can be
 * trusted: the current system message plus every other message of the
 * projection, each by estimateTokens, chars/4). The projection starts at
 * the boundary, so this is the boundary's size plus the messages after it.
 * A request is measured on what it sends (its messages), the other events
 * on the session's projection. It is an estimate, never "unknown": 0 would
 * read as an empty window.
 */
function projectedTokens(ctx: ExtensionContext, messages: AgentMessages | undefined): number {
	const ms = messages ?? (ctx.sessionManager.buildSessionProjection().messages as AgentMessages);
	const system = getCurrentSystemMessage(ms as Parameters<typeof getCurrentSystemMessage>[0]);
	let tokens = system !== undefined ? estimateTokens(system as Parameters<typeof estimateTokens>[0]) : 0;
	for (const m of ms) if (m.role !== "system") tokens += estimateTokens(m as Parameters<typeof estimateTokens>[0]);
	return tokens;
}

/**
 * Asks the engine for a decision on the event with the facts of now; a
 * request passes the messages it sends, which its size is measured on when
 * Pi does not know it.
 */
export async function decide(
	h: HostState,
	ctx: ExtensionContext,
	event: string,
	extra: Record<string, unknown>,
	messages?: AgentMessages,
): Promise<Decision> {
	const d = await request<Decision>(h, "decide", {
		session: h.sessionKey,
		event: { event, ...facts(h, ctx, messages), ...extra },
	});
	persistDurable(h, d.state);
	return d;
}

/**
 * A committed boundary makes its window the active one; notices held back
 * for hidden entries are shown once those entries are in the session.
 */
export async function confirmWindow(h: HostState, ctx: ExtensionContext): Promise<void> {
	showDurableNotices(h, ctx);
	const w = h.pendingWindow;
	if (w === undefined) return;
	const r = await request<{ committed: boolean }>(h, "committed", {
		entries: fit(ctx.sessionManager.getBranch()),
		windowId: w,
	});
	if (r.committed) {
		h.windowId = w;
		h.pendingWindow = undefined;
		h.requestDrafts = [];
		// "UI success notices use confirmation, not the repair predicate,
		// and remain committed-only": shown only now that the boundary is
		// confirmed in the session.
		const notice = h.init?.surface.messages.reset_notice;
		if (notice !== undefined && notice !== "") ctx.ui.notify(notice, "info");
	}
}

/**
 * Seed 000: "UI reminder notices are emitted only after the matching hidden
 * entry is durable, so failed requests do not report an uncommitted
 * warning." The same wait as the reset notice's: a turn's notices are shown
 * at the first hook after Pi appended every hidden entry that turn returned
 * (the same message, for the same window, on the branch).
 */
function showDurableNotices(h: HostState, ctx: ExtensionContext): void {
	if (h.pendingNotices.length === 0) return;
	const branch = ctx.sessionManager.getBranch();
	const durable = (d: Draft) =>
		d.type !== "custom_message" ||
		branch.some((e) => {
			if (e.type !== "custom_message" || e.customType !== d.customType) return false;
			const got = e.details as { windowId?: unknown; message?: unknown } | undefined;
			const want = d.details as { windowId?: unknown; message?: unknown } | undefined;
			return got?.windowId === want?.windowId && got?.message === want?.message;
		});
	h.pendingNotices = h.pendingNotices.filter((p) => {
		if (!p.drafts.every(durable)) return true;
		for (const n of p.notices) say(ctx, n.text, n.level);
		return false;
	});
}
