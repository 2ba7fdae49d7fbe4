// The engine's stderr is always read: an engine that logs more than a pipe
// holds (64 KiB) before it answers would otherwise block on its next log
// line and never answer. Lines are kept to MAX_LOG_LINE characters.

import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { Engine, MAX_LOG_LINE } from "../src/engine.ts";

// A stand-in engine that writes 5,000 log lines (about 1 MB) and one line of
// 1 MB without an end before it reads its first request, then answers it.
const chatty = `
const line = "resetpolicy serve: session evicted " + "x".repeat(200) + "\\n";
let buf = "";
for (let i = 0; i < 5000; i++) buf += line;
process.stderr.write(buf);
process.stderr.write("y".repeat(1 << 20) + "\\nlast line");
process.stdin.once("data", (d) => {
	const id = JSON.parse(String(d).split("\\n")[0]).id;
	process.stdout.write(JSON.stringify({ jsonrpc: "2.0", id, result: { ok: true } }) + "\\n");
	process.stdin.on("end", () => process.exit(0));
});
`;

test("MAX_LOG_LINE is what the README says", () => assert.equal(MAX_LOG_LINE, 4096));

for (const listening of [false, true]) {
	test(`an engine logging megabytes before it answers is answered${listening ? ", its lines cut" : " with no log listener"}`, async () => {
		const dir = mkdtempSync(join(tmpdir(), "resetpolicy-stderr-"));
		const script = join(dir, "chatty.cjs");
		writeFileSync(script, chatty);
		const logs: string[] = [];
		const engine = new Engine({
			bin: process.execPath,
			args: [script],
			timeoutMs: 30000,
			onLog: listening ? (l) => logs.push(l) : undefined,
		});
		try {
			engine.start();
			const res = await engine.request<{ ok: boolean }>("initialize", {});
			assert.deepEqual(res, { ok: true });
			if (listening) {
				// The rest of the log may still be on its way.
				for (let i = 0; i < 100 && logs.length < 5001; i++) await new Promise((r) => setTimeout(r, 100));
				engine.close(); // the last line, without an end, comes with the end of stderr
				for (let i = 0; i < 100 && logs.length < 5002; i++) await new Promise((r) => setTimeout(r, 100));
				assert.equal(logs.length, 5002, `lines: ${logs.length}`);
				assert.ok(logs.every((l) => l.length <= MAX_LOG_LINE + 1), "every line is cut at MAX_LOG_LINE");
				assert.equal(logs[5000], `${"y".repeat(MAX_LOG_LINE)}…`);
				assert.equal(logs[5001], "last line");
			}
		} finally {
			engine.close();
			rmSync(dir, { recursive: true, force: true });
		}
	});
}
