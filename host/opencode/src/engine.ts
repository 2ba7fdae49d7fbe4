// The engine process: `resetpolicy serve --stdio`, spoken to over
// newline-delimited JSON-RPC 2.0. One client per extension instance.

import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { createInterface } from "node:readline";

/** Where the engine binary comes from: RESETPOLICY_BIN, else `resetpolicy` on PATH. */
export function engineBinary(env: NodeJS.ProcessEnv = process.env): string {
	const bin = env.RESETPOLICY_BIN;
	return bin !== undefined && bin !== "" ? bin : "resetpolicy";
}

/** A JSON-RPC error the engine answered with. */
export class EngineError extends Error {
	readonly code: number;
	constructor(code: number, message: string) {
		super(message);
		this.name = "EngineError";
		this.code = code;
	}
}

/** The engine is not running: it could not start, it exited or it stopped answering. */
export class EngineDown extends Error {
	constructor(message: string) {
		super(message);
		this.name = "EngineDown";
	}
}

interface Pending {
	resolve: (value: unknown) => void;
	reject: (error: Error) => void;
	timer: NodeJS.Timeout;
	method: string;
}

export interface EngineOptions {
	bin?: string;
	args?: string[];
	env?: NodeJS.ProcessEnv;
	/** How long one request may take before the engine counts as hung (ms). */
	timeoutMs?: number;
	/** Called once, when the engine goes down for any reason but close(). */
	onDown?: (reason: string) => void;
	/** Receives the engine's stderr lines (its logs). */
	onLog?: (line: string) => void;
}

/** How long a closed output waits for the process's exit status (ms). */
const EXIT_WAIT_MS = 200;

/** Bytes one request line may have; the server refuses longer lines. */
export const MAX_LINE = 1 << 20;

/** Characters of one engine log line kept; the rest of a longer one is dropped. */
export const MAX_LOG_LINE = 4096;

export class Engine {
	private child: ChildProcessWithoutNullStreams | undefined;
	private nextId = 1;
	private readonly pending = new Map<number, Pending>();
	private downReason: string | undefined;
	private closing = false;
	private readonly opts: EngineOptions;

	constructor(opts: EngineOptions = {}) {
		this.opts = opts;
	}

	/** Whether the engine is running and answering. */
	get alive(): boolean {
		return this.child !== undefined && this.downReason === undefined;
	}

	/** Why the engine is down, when it is. */
	get reason(): string | undefined {
		return this.downReason;
	}

	/** Starts the process. Failing to start is reported through the first request. */
	start(): void {
		const bin = this.opts.bin ?? engineBinary(this.opts.env);
		let child: ChildProcessWithoutNullStreams;
		try {
			child = spawn(bin, this.opts.args ?? ["serve", "--stdio"], {
				env: this.opts.env ?? process.env,
				stdio: ["pipe", "pipe", "pipe"],
			});
		} catch (err) {
			this.down(`cannot start ${bin}: ${errorText(err)}`);
			return;
		}
		this.child = child;
		child.on("error", (err) => this.down(`cannot run ${bin}: ${errorText(err)}`));
		let exitWait: NodeJS.Timeout | undefined;
		child.on("exit", (code, signal) => {
			clearTimeout(exitWait);
			if (!this.closing) this.down(`${bin} exited (${signal ?? `status ${code}`})`);
		});
		// The end of its output is the first sign of an engine that died:
		// the child handle is unref'd, so its "exit" may never be delivered
		// when nothing else keeps the event loop alive, and a request in
		// flight would wait forever. This timer holds the loop for the
		// moment "exit" needs to say how it died.
		child.stdout.on("close", () => {
			if (this.closing || this.downReason !== undefined) return;
			exitWait = setTimeout(() => this.down(`${bin} exited (its output closed)`), EXIT_WAIT_MS);
		});
		child.stdin.on("error", (err) => this.down(`writing to ${bin}: ${errorText(err)}`));
		// The engine must not keep Node alive on its own: its pipes hold the
		// event loop only while a request waits for an answer.
		child.unref();
		this.hold(false);
		const out = createInterface({ input: child.stdout, crlfDelay: Infinity });
		out.on("line", (line) => this.onLine(line));
		// Always read stderr to its end, whether or not anyone wants the
		// lines: an engine whose stderr pipe fills blocks on its next log
		// line. Each line is kept to MAX_LOG_LINE characters, so a line
		// without an end does not grow without bound either.
		child.stderr.setEncoding("utf8");
		let partial = "";
		let cut = false;
		child.stderr.on("data", (chunk: string) => {
			let start = 0;
			for (;;) {
				const nl = chunk.indexOf("\n", start);
				const piece = chunk.slice(start, nl < 0 ? chunk.length : nl);
				if (!cut) {
					const room = MAX_LOG_LINE - partial.length;
					cut = piece.length > room;
					partial += piece.slice(0, room);
				}
				if (nl < 0) break;
				this.opts.onLog?.(partial.replace(/\r$/, "") + (cut ? "…" : ""));
				partial = "";
				cut = false;
				start = nl + 1;
			}
		});
		child.stderr.on("end", () => {
			if (partial !== "") this.opts.onLog?.(partial + (cut ? "…" : ""));
			partial = "";
		});
	}

	/** Sends one request and resolves with its result. */
	request<T>(method: string, params: unknown): Promise<T> {
		if (this.downReason !== undefined || this.child === undefined) {
			return Promise.reject(new EngineDown(this.downReason ?? "the engine was not started"));
		}
		const id = this.nextId++;
		const line = JSON.stringify({ jsonrpc: "2.0", id, method, params });
		if (Buffer.byteLength(line) > MAX_LINE) {
			return Promise.reject(new EngineError(-32600, `${method}: request of ${Buffer.byteLength(line)} bytes exceeds ${MAX_LINE}`));
		}
		return new Promise<T>((resolve, reject) => {
			const timer = setTimeout(() => {
				this.down(`no answer to ${method} within ${this.opts.timeoutMs ?? 10000} ms`);
			}, this.opts.timeoutMs ?? 10000);
			timer.unref();
			this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject, timer, method });
			this.hold(true);
			this.child?.stdin.write(`${line}\n`);
		});
	}

	/** Stops the process; pending requests fail. Not reported as a failure. */
	close(): void {
		this.closing = true;
		this.failPending(new EngineDown("the engine was closed"));
		if (this.downReason === undefined) this.downReason = "closed";
		const child = this.child;
		if (child !== undefined) {
			child.stdin.end();
			const t = setTimeout(() => child.kill("SIGKILL"), 2000);
			t.unref();
			child.once("exit", () => clearTimeout(t));
		}
	}

	/** Kills the process as a crash would (for tests and for a hung engine). */
	kill(): void {
		this.child?.kill("SIGKILL");
	}

	private onLine(line: string): void {
		if (line.trim() === "") return;
		let msg: { id?: unknown; result?: unknown; error?: { code?: unknown; message?: unknown } };
		try {
			msg = JSON.parse(line) as typeof msg;
		} catch {
			this.opts.onLog?.(`unreadable engine output: ${line.slice(0, 200)}`);
			return;
		}
		if (typeof msg.id !== "number") {
			if (msg.error !== undefined) this.opts.onLog?.(`engine error: ${String(msg.error.message)}`);
			return;
		}
		const p = this.pending.get(msg.id);
		if (p === undefined) return;
		this.pending.delete(msg.id);
		if (this.pending.size === 0) this.hold(false);
		clearTimeout(p.timer);
		if (msg.error !== undefined) {
			const code = typeof msg.error.code === "number" ? msg.error.code : -32603;
			p.reject(new EngineError(code, `${p.method}: ${String(msg.error.message)}`));
		} else {
			p.resolve(msg.result);
		}
	}

	private down(reason: string): void {
		if (this.downReason !== undefined) return;
		this.downReason = reason;
		this.failPending(new EngineDown(reason));
		const child = this.child;
		if (child !== undefined && child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
		if (!this.closing) this.opts.onDown?.(reason);
	}

	/** Refs the engine's pipes while requests wait, unrefs them otherwise. */
	private hold(on: boolean): void {
		const child = this.child;
		if (child === undefined) return;
		for (const s of [child.stdin, child.stdout, child.stderr] as unknown as { ref?: () => void; unref?: () => void }[]) {
			if (on) s.ref?.();
			else s.unref?.();
		}
	}

	private failPending(err: Error): void {
		for (const [id, p] of this.pending) {
			clearTimeout(p.timer);
			this.pending.delete(id);
			p.reject(err);
		}
	}
}

export function errorText(err: unknown): string {
	return err instanceof Error ? err.message : String(err);
}
