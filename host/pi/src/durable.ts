// The policy's durable slots in the session. A decision that changes one
// appends a state entry to the branch, so that reopening, forking or
// navigating the session finds them; session start and a tree change
// restore them from the branch into the engine's session state.

import type { ExtensionContext } from "@earendil-works/pi-coding-agent";
import { EngineDown } from "./engine.ts";
import { STATE_TYPE } from "./protocol.ts";
import { type HostState, request } from "./state.ts";

/**
 * Appends the durable slots to the branch when a decision changed one,
 * so that reopening, forking or navigating the session finds them. A
 * custom entry is outside the model's context and neutral to the reset
 * boundary checks. At a turn boundary the entry is returned to Pi with the
 * turn's other entries, after them (h.durableDrafts): a latch must never be
 * on a branch that lacks what it latches, and a /tree onto the hidden
 * entry it latches puts the leaf on that entry's parent.
 */
export function persistDurable(h: HostState, state: Record<string, unknown> | undefined): void {
	const names = Object.keys(h.init?.surface.durable ?? {});
	if (names.length === 0 || state === undefined) return;
	const slots: Record<string, unknown> = {};
	for (const n of names) slots[n] = state[n];
	if (names.every((n) => h.durable[n] === slots[n])) return;
	h.durable = slots;
	const data = { policy: h.init?.policy.name ?? "", slots };
	if (h.durableDrafts !== undefined) h.durableDrafts.push({ type: "custom", customType: STATE_TYPE, data });
	else h.pi.appendEntry(STATE_TYPE, data);
}

/** The session's state in the engine; undefined when it has none yet. */
export async function snapshot(h: HostState): Promise<Record<string, unknown> | undefined> {
	try {
		return (await request<{ state: Record<string, unknown> }>(h, "snapshot", { session: h.sessionKey })).state;
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
export async function restoreDurable(h: HostState, ctx: ExtensionContext): Promise<void> {
	const initial = h.init?.surface.durable ?? {};
	const names = Object.keys(initial);
	h.durable = {};
	if (names.length === 0) return;
	const values: Record<string, unknown> = { ...initial };
	const branch = ctx.sessionManager.getBranch();
	for (let i = branch.length - 1; i >= 0; i--) {
		const e = branch[i]!;
		if (e.type !== "custom" || e.customType !== STATE_TYPE) continue;
		const data = e.data as { policy?: unknown; slots?: unknown } | undefined;
		if (data?.policy !== h.init?.policy.name || typeof data?.slots !== "object" || data.slots === null) continue;
		const saved = data.slots as Record<string, unknown>;
		for (const n of names) if (n in saved) values[n] = saved[n];
		break;
	}
	// At session start the engine has no session yet: the other slots
	// then take their initial values (restore accepts a partial state).
	const state0 = await snapshot(h);
	let state = state0 ?? {};
	try {
		state = (await request<{ state: Record<string, unknown> }>(h, "restore", { session: h.sessionKey, state: { ...state0, ...values } })).state;
	} catch (err) {
		// A malformed entry leaves the state as it was.
		if (err instanceof EngineDown) throw err;
	}
	for (const n of names) h.durable[n] = state[n];
}
