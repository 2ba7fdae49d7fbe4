// The summary of a checkpoint (seed 002): "The extension summarizes the
// complete context preview. This preview includes the turn's tool
// results." Pi's summariser (generateSummaryWithUsage: its prompt, retries
// and failure checks) is used as it is, except for what it reads: Pi's
// serializer keeps only the first 2,000 characters of each tool result,
// so the conversation block of the request is written again here with
// every tool result whole. The only bound is the summariser's own window:
// when the conversation does not fit, its oldest messages are left out and
// the request says so.

import type { AssistantMessage, Context, Model, Api } from "@earendil-works/pi-ai";
import { convertToLlm, generateSummaryWithUsage, serializeConversation, type ExtensionContext } from "@earendil-works/pi-coding-agent";
import type { AgentMessages } from "./state.ts";

const OPEN = "<conversation>\n";
const CLOSE = "\n</conversation>";

/** Characters kept free in the summariser's window for the prompt around the conversation. */
const PROMPT_CHARS = 16_000;

/**
 * The conversation as Pi's serializer writes it, tool results whole, in at
 * most maxChars characters: the newest messages that fit, and a note of
 * what was left out before them.
 */
export function wholeConversation(messages: AgentMessages, maxChars: number): { text: string; omitted: number } {
	const parts: string[] = [];
	for (const m of convertToLlm(messages as Parameters<typeof convertToLlm>[0])) {
		if (m.role === "toolResult") {
			const text = m.content.map((b) => (b.type === "text" ? b.text : "")).join("");
			if (text !== "") parts.push(`[Tool result]: ${text}`);
			continue;
		}
		const s = serializeConversation([m]);
		if (s !== "") parts.push(s);
	}
	let size = 0;
	let start = parts.length;
	while (start > 0 && size + parts[start - 1]!.length + 2 <= maxChars) {
		size += parts[start - 1]!.length + 2;
		start--;
	}
	const omitted = parts.slice(0, start).reduce((n, p) => n + p.length + 2, 0);
	const kept = parts.slice(start).join("\n\n");
	if (omitted === 0) return { text: kept, omitted };
	const note = `[The oldest ${start} messages of this conversation (${omitted} characters) did not fit in the summariser's context window and are left out here; summarise what follows and say in the summary that the earlier history is missing.]`;
	return { text: `${note}\n\n${kept}`, omitted };
}

/** The summariser's room for the conversation, in characters (Pi's estimate: 4 per token). */
function budget(model: Model<Api>): number {
	const window = model.contextWindow > 0 ? model.contextWindow : 200_000;
	const output = model.maxTokens > 0 ? Math.min(model.maxTokens, window / 2) : 0;
	return Math.max(4_000, (window - output) * 4 - PROMPT_CHARS);
}

/** The request with its conversation block replaced by the given text; unchanged when it has none. */
function withConversation(c: Context, text: string): Context {
	const messages = c.messages.map((m) => {
		if (m.role !== "user" || typeof m.content === "string") return m;
		const content = m.content.map((b) => {
			if (b.type !== "text" || !b.text.startsWith(OPEN)) return b;
			const end = b.text.lastIndexOf(CLOSE);
			if (end < 0) return b;
			return { ...b, text: OPEN + text + b.text.slice(end) };
		});
		return { ...m, content };
	});
	return { ...c, messages };
}

export async function summarize(
	ctx: ExtensionContext,
	messages: AgentMessages,
	signal: AbortSignal | undefined,
): Promise<{ text: string; usage: AssistantMessage["usage"] | undefined }> {
	const model = ctx.model;
	if (model === undefined) throw new Error("no model is selected to write the summary");
	const whole = wholeConversation(messages, budget(model));
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
		(m, c, o) => ctx.modelRegistry.streamSimple(m, withConversation(c, whole.text), o),
	);
	if (r.text.trim() === "") throw new Error("the summary came back empty");
	return { text: r.text, usage: r.usage };
}
