// The context window of an opencode session as this plugin keeps it: a
// reset is a durable boundary, a user message whose synthetic text part
// carries {resetpolicy: {boundary: windowId, after: messageId}} and the
// policy's boot text; the request transform sends only the boundary and
// what follows the message it names. The raw history stays in the
// session, untouched.

import type { Message, Part } from "@opencode-ai/sdk";
import { META } from "./protocol.ts";

export interface WithParts {
	info: Message;
	parts: Part[];
}

export interface BoundaryMeta {
	boundary: string;
	after: string;
}

/** The boundary a message carries, if it is one. */
export function boundaryOf(m: WithParts): BoundaryMeta | undefined {
	if (m.info.role !== "user") return undefined;
	for (const p of m.parts) {
		if (p.type !== "text") continue;
		const meta = (p.metadata as Record<string, unknown> | undefined)?.[META] as Partial<BoundaryMeta> | undefined;
		if (typeof meta?.boundary === "string" && typeof meta.after === "string") return { boundary: meta.boundary, after: meta.after };
	}
	return undefined;
}

/**
 * The latest boundary of the messages, with its index: the one that
 * follows the latest message (a boundary is written when the run settles,
 * so its place in the list may be later than the message it follows).
 */
export function latestBoundary(msgs: WithParts[]): { index: number; meta: BoundaryMeta } | undefined {
	let best: { index: number; meta: BoundaryMeta } | undefined;
	msgs.forEach((m, index) => {
		const meta = boundaryOf(m);
		if (meta !== undefined && (best === undefined || meta.after >= best.meta.after)) best = { index, meta };
	});
	return best;
}

/**
 * A message this plugin committed but has not written yet: opencode's loop
 * takes a user message newer than its last answer as a new prompt, so
 * nothing is written into a session while its run goes on; until the run
 * settles the message lives here and every request carries it in place.
 */
export interface Unwritten {
	id: string;
	/** The message it follows. */
	after: string;
	texts: string[];
	meta: Record<string, unknown>;
}

/** The messages with the unwritten ones put in place, each right after the message it follows. */
export function withUnwritten(msgs: WithParts[], unwritten: Unwritten[]): WithParts[] {
	if (unwritten.length === 0) return msgs;
	const have = new Set(msgs.map((m) => m.info.id));
	const out: WithParts[] = [];
	for (const m of msgs) {
		out.push(m);
		for (const u of unwritten) {
			if (u.after === m.info.id && !have.has(u.id)) out.push(synthetic(msgs, u.id, u.texts, u.meta));
		}
	}
	return out;
}

/**
 * The messages a request sends: the latest boundary and what follows the
 * message it names, or all of them when the session has none (a boundary
 * older than a summary of opencode's own compaction is cut away with the
 * history before the summary, and the summary rules).
 */
export function activeWindow(msgs: WithParts[]): { messages: WithParts[]; windowId: string | undefined } {
	const b = latestBoundary(msgs);
	if (b === undefined) return { messages: msgs, windowId: undefined };
	const head = msgs[b.index]!;
	const after = b.meta.after;
	const rest = msgs.filter((m) => m !== head && m.info.id > after && boundaryOf(m) === undefined);
	return { messages: [head, ...rest], windowId: b.meta.boundary };
}

/**
 * A user message that exists only in one request: the text parts given,
 * marked synthetic, with the session, agent and model of the session's
 * latest user message.
 */
export function synthetic(msgs: WithParts[], id: string, texts: string[], meta?: Record<string, unknown>): WithParts {
	const user = [...msgs].reverse().find((m) => m.info.role === "user");
	const sessionID = msgs[0]?.info.sessionID ?? "";
	const info = {
		...(user?.info ?? { role: "user", agent: "build", time: { created: Date.now() } }),
		id,
		sessionID,
	} as Message;
	const parts = texts.map(
		(text, i) =>
			({
				id: `prt_${id.slice(4)}${i}`,
				sessionID,
				messageID: id,
				type: "text",
				text,
				synthetic: true,
				...(meta !== undefined && i === 0 ? { metadata: { [META]: meta } } : {}),
			}) as Part,
	);
	return { info, parts };
}

/** Tokens a completed assistant message's request and answer held. */
export function usageTokens(info: Message): number {
	if (info.role !== "assistant") return 0;
	const t = info.tokens;
	return t.input + t.output + t.reasoning + t.cache.read + t.cache.write;
}

/**
 * The active window's tokens: the last answered request's usage when one
 * was answered in this window, else an estimate of the text sent (four
 * characters a token), never 0 for a window that holds text.
 */
export function windowTokens(window: WithParts[]): number {
	for (let i = window.length - 1; i >= 0; i--) {
		const n = usageTokens(window[i]!.info);
		if (n > 0) return n;
	}
	let chars = 0;
	for (const m of window) {
		for (const p of m.parts) {
			if (p.type === "text") chars += p.text.length;
			else if (p.type === "tool" && p.state.status === "completed") chars += p.state.output.length + JSON.stringify(p.state.input).length;
		}
	}
	return Math.ceil(chars / 4);
}

/** Tool calls of a message that have a result. */
export function toolResults(parts: Part[]): number {
	return parts.filter((p) => p.type === "tool" && (p.state.status === "completed" || p.state.status === "error")).length;
}
