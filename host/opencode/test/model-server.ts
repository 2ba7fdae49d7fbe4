// A scripted OpenAI-compatible model server on 127.0.0.1 for the
// end-to-end tests: it answers POST /v1/chat/completions with streamed
// chunks taken from a script, and records every request it receives, so a
// test checks what real opencode sent to the model.
//
// opencode also asks the model for a session title; those requests are
// recognised by their system prompt, answered with a fixed title and
// recorded apart, so they never consume the script.

import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface ToolCall {
	name: string;
	args: Record<string, unknown>;
}

/** One scripted answer to one chat request. */
export interface Reply {
	text?: string;
	toolCalls?: ToolCall[];
	/** Usage reported in the last chunk. */
	usage?: { prompt: number; completion: number };
	/** Answer with this HTTP status and error body instead of a stream. */
	error?: { status: number; message: string; code?: string };
	/** Send the first chunk, then hold the stream open until the client goes away. */
	hang?: boolean;
}

/** One request as received. */
export interface Received {
	kind: "chat" | "title";
	body: ChatBody;
	/** The request's messages flattened to text, one entry per message: "role: text". */
	lines: string[];
}

export interface ChatBody {
	model: string;
	messages: { role: string; content: unknown; tool_calls?: { function: { name: string; arguments: string } }[]; tool_call_id?: string }[];
	tools?: { function: { name: string } }[];
	stream?: boolean;
}

/** Bytes one request body may have. */
const MAX_BODY = 16 << 20;

export class ModelServer {
	readonly received: Received[] = [];
	private readonly script: Reply[] = [];
	private server: Server | undefined;
	private waiters: { n: number; resolve: () => void }[] = [];
	/** What an unscripted chat request gets. */
	fallback: Reply = { text: "ok", usage: { prompt: 1000, completion: 10 } };
	/** Streams held open by `hang` replies, ended by close(). */
	private readonly hanging = new Set<ServerResponse>();

	/** Queues replies for the next chat requests, in order. */
	push(...replies: Reply[]): void {
		this.script.push(...replies);
	}

	/** The chat requests (not the title requests). */
	get chats(): Received[] {
		return this.received.filter((r) => r.kind === "chat");
	}

	/** Replies still queued. */
	get pending(): number {
		return this.script.length;
	}

	/** Resolves once n chat requests have arrived. */
	waitChats(n: number): Promise<void> {
		if (this.chats.length >= n) return Promise.resolve();
		return new Promise((resolve) => this.waiters.push({ n, resolve }));
	}

	async start(): Promise<string> {
		this.server = createServer((req, res) => void this.handle(req, res));
		await new Promise<void>((resolve) => this.server!.listen(0, "127.0.0.1", resolve));
		const { port } = this.server.address() as AddressInfo;
		return `http://127.0.0.1:${port}/v1`;
	}

	async close(): Promise<void> {
		for (const res of this.hanging) res.destroy();
		this.hanging.clear();
		const s = this.server;
		if (s === undefined) return;
		s.closeAllConnections();
		await new Promise<void>((resolve) => s.close(() => resolve()));
	}

	private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
		if (req.method === "GET" && req.url?.endsWith("/models")) {
			json(res, 200, { object: "list", data: [{ id: "scripted", object: "model" }] });
			return;
		}
		if (req.method !== "POST" || !req.url?.endsWith("/chat/completions")) {
			json(res, 404, { error: { message: `no route ${req.method} ${req.url}` } });
			return;
		}
		let size = 0;
		const chunks: Buffer[] = [];
		for await (const c of req) {
			size += (c as Buffer).length;
			if (size > MAX_BODY) {
				json(res, 413, { error: { message: "request too large" } });
				return;
			}
			chunks.push(c as Buffer);
		}
		let body: ChatBody;
		try {
			body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as ChatBody;
		} catch {
			json(res, 400, { error: { message: "unreadable JSON" } });
			return;
		}
		const lines = body.messages.map(messageLine);
		const kind = lines[0]?.startsWith("system:") && /title generator/i.test(lines[0]) ? "title" : "chat";
		this.received.push({ kind, body, lines });
		if (kind === "title") {
			stream(res, body.model, { text: "Scripted session", usage: { prompt: 10, completion: 2 } }, this.hanging);
			return;
		}
		const n = this.chats.length;
		this.waiters = this.waiters.filter((w) => {
			if (n >= w.n) w.resolve();
			return n < w.n;
		});
		const reply = this.script.shift() ?? this.fallback;
		if (reply.error !== undefined) {
			json(res, reply.error.status, { error: { message: reply.error.message, type: "scripted", code: reply.error.code ?? null } });
			return;
		}
		stream(res, body.model, reply, this.hanging);
	}
}

function json(res: ServerResponse, status: number, value: unknown): void {
	res.writeHead(status, { "content-type": "application/json" });
	res.end(JSON.stringify(value));
}

function stream(res: ServerResponse, model: string, reply: Reply, hanging: Set<ServerResponse>): void {
	res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" });
	const id = `chatcmpl-${Math.random().toString(36).slice(2)}`;
	const send = (delta: unknown, finish: string | null, usage?: unknown): void => {
		const chunk: Record<string, unknown> = { id, object: "chat.completion.chunk", created: 0, model, choices: [{ index: 0, delta, finish_reason: finish }] };
		if (usage !== undefined) chunk.usage = usage;
		res.write(`data: ${JSON.stringify(chunk)}\n\n`);
	};
	send({ role: "assistant", content: "" }, null);
	if (reply.hang === true) {
		send({ content: reply.text ?? "working" }, null);
		hanging.add(res);
		res.on("close", () => hanging.delete(res));
		return;
	}
	if (reply.text !== undefined && reply.text !== "") send({ content: reply.text }, null);
	(reply.toolCalls ?? []).forEach((call, index) => {
		send({ tool_calls: [{ index, id: `call_${index}_${id.slice(-6)}`, type: "function", function: { name: call.name, arguments: JSON.stringify(call.args) } }] }, null);
	});
	const usage = reply.usage ?? { prompt: 1000, completion: 10 };
	send({}, (reply.toolCalls ?? []).length > 0 ? "tool_calls" : "stop", {
		prompt_tokens: usage.prompt,
		completion_tokens: usage.completion,
		total_tokens: usage.prompt + usage.completion,
	});
	res.write("data: [DONE]\n\n");
	res.end();
}

/** A message as one line of text: its role and its text parts (tool calls named). */
function messageLine(m: ChatBody["messages"][number]): string {
	let text = "";
	if (typeof m.content === "string") text = m.content;
	else if (Array.isArray(m.content)) {
		text = m.content
			.map((p: { type?: string; text?: string }) => (p.type === "text" && typeof p.text === "string" ? p.text : `[${p.type ?? "part"}]`))
			.join("\n");
	}
	for (const c of m.tool_calls ?? []) text += `${text === "" ? "" : "\n"}[call ${c.function.name} ${c.function.arguments}]`;
	return `${m.role}: ${text}`;
}
