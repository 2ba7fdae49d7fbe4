// Carrying out the effects the engine decides, in order, with Pi's public
// API: replies and notices, injected messages, committing a reset at a turn
// boundary, providing one for a compaction, starting a compaction,
// writing a checkpoint's summary, and repairing an incomplete reset tail.
// Each effect records in the Outcome what the handler that asked for it
// returns to Pi; where the effect awaits, the lifecycle is checked again
// before its result is used.

import { DEFAULT_COMPACTION_SETTINGS, type ExtensionContext, type SessionBeforeCompactResult, type TurnEndEvent } from "@earendil-works/pi-coding-agent";
import { EngineDown, errorText } from "./engine.ts";
import { CONTINUATION_TYPE, MESSAGE_TYPE_PREFIX, type Draft, type DraftsResult, type Effect, type RepairResult } from "./protocol.ts";
import { confirmWindow, decide } from "./facts.ts";
import {
	type AgentMessages,
	current,
	fit,
	guard,
	type HostCheckpoint,
	type HostState,
	lifecycle,
	Outcome,
	request,
	say,
} from "./state.ts";
import { summarize } from "./summary.ts";

export { summarize } from "./summary.ts";

/**
 * Pi's compact() refuses before asking any extension when the context since
 * the last compaction is within keepRecentTokens or already ends in a
 * compaction; its error texts are the only sign of it.
 */
const ALREADY_COMPACT = /^(Nothing to compact|Already compacted)/;
const NOTHING_TO_CUT = /^Nothing to compact/;

/** The hidden message that lets Pi's compact() cut a small context (see padded). */
const PADDING_TYPE = "resetpolicy/checkpoint-padding";
const PADDING_HEAD = "Padding for the checkpoint after it; never sent to the model.\n";
/**
 * The padding's bound, 1 MB: keepRecentTokens of 250,000 (Pi's default is
 * 20,000). Past it the idle checkpoint takes one short model turn instead.
 */
const MAX_PADDING_CHARS = 1_000_000;

const STATUS_KEY = "resetpolicy";

/** Carries out effects in order. */
export async function apply(
	h: HostState,
	effects: Effect[],
	out: Outcome,
	ctx: ExtensionContext,
	extra: { turn?: TurnEndEvent; tokensBefore?: number; signal?: AbortSignal } = {},
): Promise<void> {
	for (const ef of effects) {
		switch (ef.effect) {
			case "reply": {
				const text = String(ef.text ?? "");
				out.reply = { text, terminate: ef.terminate === true };
				if (out.site === "command") say(ctx, text, "info");
				break;
			}
			case "notify": {
				const level = ef.level === "error" || ef.level === "warning" ? ef.level : "info";
				if (out.deferNotices) out.notices.push({ text: String(ef.text ?? ""), level });
				else say(ctx, String(ef.text ?? ""), level);
				break;
			}
			case "ask":
				out.asks.push({ title: String(ef.title ?? ""), value: String(ef.value ?? ""), command: String(ef.command ?? "") });
				break;
			case "status":
				ctx.ui.setStatus(STATUS_KEY, String(ef.text ?? "") || undefined);
				break;
			case "inject":
				inject(h, String(ef.message), String(ef.deliver), out, ctx);
				break;
			case "commit_reset":
				await commitReset(h, ef.continue === true, ef.stop === true, out, ctx);
				break;
			case "provide_reset":
				await provideReset(h, out, ctx, extra.tokensBefore ?? 0, extra.signal);
				break;
			case "suppress_summary":
				if (out.site === "before_tree") out.tree = { summary: { summary: "" } };
				break;
			case "cancel_compaction":
				if (out.site === "before_compact") out.compaction = { cancel: true };
				if (typeof ef.text === "string" && ef.text !== "") say(ctx, ef.text, "warning");
				break;
			case "compact":
				compact(h, Number(ef.attempt), ctx);
				break;
			case "checkpoint":
				await checkpoint(h, ef.continue === true, Number(ef.attempt ?? 0), out, ctx, extra);
				break;
			case "continue":
				if (out.boundary) out.continueRun = true;
				else h.pi.sendMessage(continuation(h), ctx.isIdle() ? { triggerTurn: true } : { triggerTurn: true, deliverAs: "followUp" });
				break;
			case "stop":
				if (out.site === "request") out.stop = true;
				else if (out.boundary) {
					out.continueRun = false;
					h.stopRequested = true;
				} else ctx.abort();
				break;
			case "repair":
				await repair(h, ctx);
				break;
			case "save_param":
			case "clear_param": {
				const method = ef.effect === "save_param" ? "saveParam" : "clearParam";
				const params = ef.effect === "save_param" ? { name: ef.name, value: ef.value } : { name: ef.name };
				try {
					await request(h, method, params);
				} catch (err) {
					say(ctx, `resetpolicy: ${errorText(err)}`, "error");
				}
				break;
			}
			default:
				ctx.ui.notify(`resetpolicy: unknown effect ${ef.effect}; ignored.`, "warning");
		}
	}
}

function text(h: HostState, name: string): string {
	return h.init?.surface.messages[name] ?? name;
}

function hidden(h: HostState, name: string): { customType: string; content: string; display: boolean; details: unknown } {
	return {
		customType: MESSAGE_TYPE_PREFIX + name,
		content: text(h, name),
		display: false,
		details: { windowId: h.windowId, message: name },
	};
}

function continuation(h: HostState): { customType: string; content: string; display: boolean; details: unknown } {
	return {
		customType: CONTINUATION_TYPE,
		content: h.init?.texts.continuation ?? "Continue.",
		display: false,
		details: { windowId: h.windowId },
	};
}

function inject(h: HostState, name: string, deliver: string, out: Outcome, ctx: ExtensionContext): void {
	const msg = hidden(h, name);
	if (deliver === "request" && out.site === "request") {
		out.requestMessages.push({ role: "custom", ...msg, timestamp: Date.now() } as AgentMessages[number]);
		h.requestDrafts.push({ window: h.windowId, draft: { type: "custom_message", ...msg } });
		return;
	}
	if (deliver === "turn" && out.boundary) {
		out.entries.push({ type: "custom_message", ...msg });
		out.continueRun = true;
		return;
	}
	if (deliver === "turn") {
		h.pi.sendMessage(msg, ctx.isIdle() ? { triggerTurn: true } : { triggerTurn: true, deliverAs: "followUp" });
		return;
	}
	// steer (and a request message outside a request): into the running
	// turn, or a new turn when idle.
	h.pi.sendMessage(msg, { triggerTurn: true, deliverAs: "steer" });
}

async function commitReset(h: HostState, continueRun: boolean, stop: boolean, out: Outcome, ctx: ExtensionContext): Promise<void> {
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
	const before = lifecycle(h);
	let b: DraftsResult;
	try {
		b = await request<DraftsResult>(h, "boundary", {});
	} catch (err) {
		if (current(h, before, ctx) && !(err instanceof EngineDown)) {
			ctx.ui.notify(`resetpolicy: the reset boundary could not be built (${errorText(err)}); nothing was reset.`, "error");
		}
		return;
	}
	if (!current(h, before, ctx)) return;
	out.entries.push(...b.entries);
	h.pendingWindow = b.windowId;
	if (continueRun) out.continueRun = true;
	else if (out.continueRun === undefined) out.continueRun = false;
	if (stop) {
		out.continueRun = false;
		h.stopRequested = out.site === "turn_end";
	}
}

async function provideReset(h: HostState, out: Outcome, ctx: ExtensionContext, tokensBefore: number, signal: AbortSignal | undefined): Promise<void> {
	if (out.site !== "before_compact") {
		ctx.ui.notify("resetpolicy: provide_reset outside a compaction; nothing was reset.", "warning");
		return;
	}
	// Seed 000 (the same machinery): the handler "rechecks generation,
	// session, window, enabled state, and abort status before returning
	// drafts". A switch off, a session or tree change, or an abort while
	// the boundary was built discards it; the compaction is cancelled
	// rather than left to Pi, whose summary nobody asked for.
	const before = lifecycle(h);
	const r = await request<{ windowId: string; result: SessionBeforeCompactResult }>(h, "compactionReset", {
		tokensBefore: Math.round(tokensBefore),
	});
	const stale =
		!h.live || !h.enabled || before.generation !== h.generation || before.session !== h.sessionKey || before.window !== h.windowId || signal?.aborted === true;
	if (stale) {
		out.compaction = { cancel: true };
		return;
	}
	h.pendingCompactionWindow = r.windowId;
	out.compaction = r.result;
}

/** Starts ctx.compact for an identified attempt; its callbacks become events. */
function compact(h: HostState, attempt: number, ctx: ExtensionContext): void {
	h.inflightAttempt = attempt;
	let finished = () => {};
	const work = new Promise<void>((r) => (finished = r));
	h.attemptWork = work;
	const done = (event: string, extra: Record<string, unknown>) => {
		if (h.inflightAttempt === attempt) h.inflightAttempt = undefined;
		void guard(h, ctx, async () => {
			await confirmWindow(h, ctx);
			const d = await decide(h, ctx, event, { attempt, ...extra });
			await apply(h, d.effects, new Outcome("other"), ctx);
			return undefined;
		}).finally(() => {
			if (h.attemptWork === work) h.attemptWork = undefined;
			finished();
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

/**
 * Seed 002's checkpoint: at a turn boundary the summary of the context
 * preview becomes a self-retaining compaction draft; elsewhere (a command
 * while idle) a host compaction writes it. Either way summary_done echoes
 * the effect's attempt: the summary is asynchronous, and the policy takes
 * only its outstanding checkpoint's result, not a late one of a checkpoint
 * a session change dropped.
 */
async function checkpoint(
	h: HostState,
	continueRun: boolean,
	attempt: number,
	out: Outcome,
	ctx: ExtensionContext,
	extra: { turn?: TurnEndEvent; tokensBefore?: number; signal?: AbortSignal },
): Promise<void> {
	if (out.site === "before_compact") {
		// The host's own compaction answered with the checkpoint: the
		// summary of the whole context, self-retaining (firstKeptEntryId
		// null), in place of Pi's native summary. A failed summary cancels
		// the compaction ("A summary error leaves the session context
		// unchanged").
		let ok = false;
		let error = "";
		try {
			const r = await summarize(ctx, ctx.sessionManager.buildSessionProjection().messages, extra.signal);
			out.compaction = {
				compaction: {
					summary: r.text,
					firstKeptEntryId: null as unknown as string,
					tokensBefore: extra.tokensBefore ?? 0,
					usage: r.usage,
				},
			};
			ok = true;
		} catch (err) {
			if (err instanceof EngineDown) throw err;
			error = errorText(err);
			out.compaction = { cancel: true };
		}
		const aborted = !ok && extra.signal?.aborted === true;
		const d = await decide(h, ctx, "summary_done", { ok, error, attempt, aborted });
		await apply(h, d.effects, new Outcome("other"), ctx);
		return;
	}
	if (out.site === "turn_end" && extra.turn !== undefined) {
		let ok = false;
		let error = "";
		try {
			const r = await summarize(ctx, extra.turn.context.contextMessages, ctx.signal);
			const c = await request<{ entry: Draft }>(h, "checkpoint", { summary: r.text, usage: r.usage });
			out.entries.push(c.entry);
			ok = true;
		} catch (err) {
			if (err instanceof EngineDown) throw err;
			error = errorText(err);
		}
		const aborted = !ok && ctx.signal?.aborted === true;
		const d = await decide(h, ctx, "summary_done", { ok, error, attempt, aborted });
		if (ok && continueRun) out.continueRun = true;
		await apply(h, d.effects, out, ctx, extra);
		return;
	}
	if (h.hostCheckpoint !== undefined) return;
	let settled = () => {};
	const hc: HostCheckpoint = { continueRun, ctx, done: new Promise<void>((r) => (settled = r)) };
	h.hostCheckpoint = hc;
	const finish = (ok: boolean, piError: string) => {
		// A session change since the start dropped this checkpoint: the
		// policy ignores its summary by identity, and the host must not
		// continue a run on its behalf either ("Session replacement also
		// cancels stale work").
		const current = h.hostCheckpoint === hc;
		if (current) h.hostCheckpoint = undefined;
		// Pi's own refusal ("Nothing to compact", "Already compacted") is no
		// summary error; the policy tells the two apart by the error text
		// (nothing to cut: the checkpoint is taken at a turn end instead). A
		// cancelled compaction is the summary's failure when the summary
		// failed (onBeforeCompact cancelled it), else an abort.
		const alreadyCompact = !ok && hc.error === undefined && ALREADY_COMPACT.test(piError);
		const aborted = !ok && !alreadyCompact && (hc.aborted === true || (hc.error === undefined && piError === "Compaction cancelled"));
		const error = hc.error ?? piError;
		void guard(h, ctx, async () => {
			const d = await decide(h, ctx, "summary_done", { ok, error, attempt, aborted, already_compact: alreadyCompact });
			await apply(h, d.effects, new Outcome("other"), ctx);
			if (ok && continueRun && current) h.pi.sendMessage(continuation(h), { triggerTurn: true });
			return undefined;
		}).finally(settled);
	};
	void (async () => {
		let r = await piCompact(ctx);
		if (!r.ok && hc.error === undefined && NOTHING_TO_CUT.test(r.error) && h.hostCheckpoint === hc) r = await padded(h, hc, ctx, r);
		finish(r.ok, r.error);
	})().catch((err) => finish(false, errorText(err)));
}

/** Pi's compact() as a promise of its outcome. */
function piCompact(ctx: ExtensionContext): Promise<{ ok: boolean; error: string }> {
	return new Promise((resolve) => {
		try {
			ctx.compact({ onComplete: () => resolve({ ok: true, error: "" }), onError: (err) => resolve({ ok: false, error: err.message }) });
		} catch (err) {
			resolve({ ok: false, error: errorText(err) });
		}
	});
}

/**
 * Pi's compact() found nothing to cut: the context since the last
 * compaction is within keepRecentTokens, or one turn. Seed 002's idle
 * checkpoint needs no model turn first, and Pi 1.6 gives an extension no
 * other way to write a compaction entry while idle, so the extension
 * summarises the context itself, then appends one hidden message that
 * Pi's cut-point search counts as keepRecentTokens of recent context, and
 * compacts again with the summary ready (onBeforeCompact returns it). The
 * self-retaining entry leaves the padding out of every later context; it
 * is written only after the summary succeeded, so a failed summary leaves
 * the session as it was.
 */
async function padded(h: HostState, hc: HostCheckpoint, ctx: ExtensionContext, refused: { ok: boolean; error: string }): Promise<{ ok: boolean; error: string }> {
	const size = paddingChars(h, ctx);
	if (size === undefined || !ctx.isIdle()) return refused;
	try {
		hc.summary = { ...(await summarize(ctx, ctx.sessionManager.buildSessionProjection().messages, undefined)), paddingTokens: Math.ceil(size / 4) };
	} catch (err) {
		if (err instanceof EngineDown) throw err;
		hc.error = errorText(err);
		return { ok: false, error: hc.error };
	}
	// A session change or shutdown meanwhile dropped this checkpoint.
	if (h.hostCheckpoint !== hc || !ctx.isIdle()) {
		hc.aborted = true;
		return { ok: false, error: "Compaction cancelled" };
	}
	h.pi.sendMessage({ customType: PADDING_TYPE, content: PADDING_HEAD + " ".repeat(size), display: false, details: { windowId: h.windowId } });
	return await piCompact(ctx);
}

/**
 * Characters Pi's estimate (4 a token) counts as keepRecentTokens for the
 * current model, resolved as Pi's settings do; undefined past the bound.
 */
function paddingChars(h: HostState, ctx: ExtensionContext): number | undefined {
	const c = (h.pi.getSettings() as { compaction?: { keepRecentTokens?: number; modelOverrides?: Record<string, { keepRecentTokens?: number }> } }).compaction;
	const key = ctx.model === undefined ? "" : `${ctx.model.provider}/${ctx.model.id}`;
	const keep = c?.modelOverrides?.[key]?.keepRecentTokens ?? c?.keepRecentTokens ?? DEFAULT_COMPACTION_SETTINGS.keepRecentTokens;
	const chars = keep * 4 + 4;
	return Number.isSafeInteger(chars) && chars <= MAX_PADDING_CHARS ? chars : undefined;
}

/** Completes a repairable reset tail with the drafts the engine builds. */
async function repair(h: HostState, ctx: ExtensionContext): Promise<void> {
	const before = lifecycle(h);
	const r = await request<RepairResult>(h, "repair", { entries: fit(ctx.sessionManager.getBranch()) });
	// "It awaits ... and rechecks lifecycle/window identity before sending
	// a repaired boot or continuation."
	if (!current(h, before, ctx)) return;
	for (const d of r.entries) {
		if (d.type === "custom_message") {
			h.pi.sendMessage({ customType: d.customType, content: d.content, display: d.display, details: d.details });
		} else if (d.type === "custom") {
			h.pi.appendEntry(d.customType, d.data);
		}
	}
	if (r.entries.length > 0 && r.windowId !== undefined) h.windowId = r.windowId;
}

/** An event whose handler returns nothing to Pi: confirm the window, decide, carry out the effects. */
export async function simple(h: HostState, ctx: ExtensionContext, event: string, extra: Record<string, unknown>): Promise<undefined> {
	await confirmWindow(h, ctx);
	const d = await decide(h, ctx, event, extra);
	await apply(h, d.effects, new Outcome("other"), ctx);
	return undefined;
}
