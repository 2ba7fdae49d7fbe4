// The adapter: forwards Pi's hooks to the engine as host contract events
// (DESIGN §4) and carries out the effects it decides with Pi's public API.
// It decides nothing itself; the boundary mechanics (building, confirming,
// inspecting and projecting entries) are asked of the engine too.
//
// This file owns the host's life: ResetPolicyHost holds the state
// (state.ts) and registers Pi's hooks; session start starts the engine and
// session shutdown stops it; a dying engine fails safe. The rest is split
// by what a reader looks for: the hook handlers (hooks.ts), carrying out
// effects (effects.ts), the reported facts and the decision (facts.ts),
// the durable slots (durable.ts) and the policy's tools and commands
// (surface.ts).

import type { ExtensionAPI, ExtensionContext } from "@earendil-works/pi-coding-agent";
import { Engine, errorText } from "./engine.ts";
import { findEngine, type Located, type Progress } from "./install.ts";
import type { InitializeResult } from "./protocol.ts";
import { restoreDurable } from "./durable.ts";
import { apply, simple } from "./effects.ts";
import { decide } from "./facts.ts";
import {
	onBeforeCompact,
	onBeforeSettle,
	onBeforeTree,
	onCompact,
	onCompactFailed,
	onRequest,
	onSessionTree,
	onSettled,
	onTurnEnd,
} from "./hooks.ts";
import { fit, guard, type HostOptions, type HostState, newHostState, Outcome, request, say } from "./state.ts";
import { onHostCommand, registerSurface } from "./surface.ts";

export type { HostOptions } from "./state.ts";

const LOG_LINES = 50;

/**
 * Warnings of the settings already shown (a user config param the policy
 * lacks): once per Pi process, across sessions and /reload (which loads
 * this module afresh, hence the global).
 */
const SHOWN = Symbol.for("resetpolicy.shownWarnings");
const shownWarnings: Set<string> = ((globalThis as Record<symbol, unknown>)[SHOWN] as Set<string> | undefined) ?? new Set<string>();
(globalThis as Record<symbol, unknown>)[SHOWN] = shownWarnings;

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
			description: "resetpolicy: status, on/off to switch the policy for this session, or help",
			getArgumentCompletions: (prefix) =>
				["status", "on", "off", "help"].filter((x) => x.startsWith(prefix)).map((x) => ({ value: x, label: x })),
			handler: (args, ctx) => onHostCommand(h, args.trim(), ctx),
		});
	}
}

// ------------------------------------------------------------ engine life

/**
 * The session start each host is on: a build that ends after its session
 * was shut down or replaced starts nothing.
 */
const currentStart = new WeakMap<HostState, object>();

async function onSessionStart(h: HostState, reason: string, ctx: ExtensionContext): Promise<void> {
	h.lastCtx = ctx;
	resetSessionState(h);
	h.sessionKey = ctx.sessionManager.getSessionId();
	const token = {};
	currentStart.set(h, token);
	h.engine?.close();
	h.engine = undefined;
	h.live = false;
	h.noticeShown = false;
	h.downReason = undefined;
	const found = findEngine(buildProgress(ctx));
	if ("pending" in found) {
		// The first start builds the engine: the session starts now,
		// without a policy, and the policy comes into force when the
		// engine is ready (or the build's problem is the one notice).
		void found.pending.then(async (located) => {
			if (currentStart.get(h) !== token) return;
			if ("bin" in located && (await startEngine(h, ctx, located))) {
				await beginSession(h, reason, ctx);
				// Told once the session start is decided: the policy is in
				// force from here.
				if (currentStart.get(h) === token && h.live) {
					say(ctx, `resetpolicy: engine built in ${(located.built?.seconds ?? 0).toFixed(0)} s: ${located.bin}; the policy is in force from now on.`, "info");
				}
				return;
			}
			if ("problem" in located) failSafe(h, located.problem, false);
		});
		return;
	}
	if (!(await startEngine(h, ctx, found))) return;
	await beginSession(h, reason, ctx);
}

/** What the session start decides once the engine answers. */
async function beginSession(h: HostState, reason: string, ctx: ExtensionContext): Promise<void> {
	await guard(h, ctx, async () => {
		const w = await request<{ windowId: string }>(h, "activeWindow", { entries: fit(ctx.sessionManager.getBranch()) });
		h.windowId = w.windowId !== "" ? w.windowId : "w1";
		await restoreDurable(h, ctx);
		const d = await decide(h, ctx, "session_start", { reason });
		await apply(h, d.effects, new Outcome("other"), ctx);
	});
}

/** The build's notices and footer, in this session's UI. */
function buildProgress(ctx: ExtensionContext): Progress {
	return {
		say: (text) => say(ctx, text, "info"),
		status: (text) => {
			try {
				ctx.ui.setStatus("resetpolicy-build", text);
			} catch {
				// no UI
			}
		},
	};
}

async function startEngine(h: HostState, ctx: ExtensionContext, found: Located): Promise<boolean> {
	h.engine?.close();
	h.live = false;
	h.noticeShown = false;
	h.downReason = undefined;
	const timeout = h.opts.timeoutMs ?? (Number(process.env.RESETPOLICY_TIMEOUT_MS) || 10000);
	if ("problem" in found) {
		h.engine = undefined;
		failSafe(h, found.problem, false);
		return false;
	}
	const engine = new Engine({
		bin: found.bin,
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
		for (const d of init.diagnostics ?? []) {
			if (d.severity !== "warning") continue;
			const text = `resetpolicy: ${d.summary}: ${d.detail}`;
			if (shownWarnings.has(text)) continue;
			shownWarnings.add(text);
			say(ctx, text, "warning");
		}
		return true;
	} catch (err) {
		failSafe(h, errorText(err));
		return false;
	}
}

async function onSessionShutdown(h: HostState, reason: string, ctx: ExtensionContext): Promise<void> {
	h.generation++;
	currentStart.delete(h); // a build still running starts no engine for this session
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
function failSafe(h: HostState, reason: string, started = true): void {
	h.generation++;
	h.live = false;
	h.pendingWindow = undefined;
	h.pendingCompactionWindow = undefined;
	h.requestDrafts = [];
	h.hostCheckpoint = undefined;
	h.downReason = started ? reason : `it cannot start: ${reason}`;
	if (h.noticeShown) return;
	h.noticeShown = true;
	const what = started ? `the policy engine is not running (${reason}).` : `the policy engine cannot start: ${reason}`;
	const text = `resetpolicy: ${what} No context resets happen until the next session start; Pi keeps working and the session history is untouched.`;
	// say: a notice with a UI, stderr in print and JSON mode.
	if (h.lastCtx !== undefined) say(h.lastCtx, text, "error");
}

function resetSessionState(h: HostState): void {
	h.generation++;
	h.windowId = "w1";
	h.pendingWindow = undefined;
	h.pendingCompactionWindow = undefined;
	h.requestDrafts = [];
	h.pendingNotices = [];
	h.stopRequested = false;
	h.inflightAttempt = undefined;
	h.compactionAttempt = undefined;
	h.hostCheckpoint = undefined;
}
