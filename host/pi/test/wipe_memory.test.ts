// wipe_memory in Pi's real agent loop: seed 000's validation list.

import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { fauxAssistantMessage, fauxToolCall } from "@earendil-works/pi-ai";
import { SessionManager } from "@earendil-works/pi-coding-agent";
import { BOUNDARY, contiguous, labels, requestTexts, settle, startPi, type Pi } from "./harness.ts";

const PAD = "lorem ipsum dolor sit amet ".repeat(340); // about 2300 tokens

function markerWindows(pi: Pi): string[] {
	return pi
		.persisted()
		.filter((e) => e.type === "custom" && e.customType === "resetpolicy/reset-marker")
		.map((e) => (e as { data: { windowId: string } }).data.windowId);
}

function assertRetainNone(pi: Pi): void {
	for (const e of pi.persisted()) {
		if (e.type === "compaction" && e.summary === "") {
			assert.equal(e.firstKeptEntryId, e.id, "the reset compaction keeps only itself");
		}
	}
}

async function waitFor(cond: () => boolean, what: string): Promise<void> {
	for (let i = 0; i < 200; i++) {
		if (cond()) return;
		await new Promise((r) => setTimeout(r, 10));
	}
	throw new Error(`timed out waiting for ${what}`);
}

test("seed 000 `/wipe-memory` idle: the hidden warning starts a turn, the close-out commits at settlement and the run stops", async () => {
	const pi = await startPi();
	try {
		pi.respond(fauxAssistantMessage("notes saved"));
		await pi.session.prompt("/wipe-memory");
		await settle(pi);
		const got = labels(pi.persisted());
		assert.ok(
			contiguous(got, ["custom_message:resetpolicy/manual_checkpoint_warning", "assistant:notes saved", ...BOUNDARY]),
			`order: ${got.join(", ")}`,
		);
		assert.deepEqual(got.slice(-4), BOUNDARY, "nothing after the boundary: the committed reset stops the run");
		assert.equal(pi.requests.length, 1, "no fresh-window continuation");
		assert.ok(requestTexts(pi.requests[0]!).some((t) => t.includes("Context checkpoint")), "the warning went to the model");
		assert.ok(pi.notices.some((n) => n.text.startsWith("Closing out")), "the command is acknowledged at once");
		assertRetainNone(pi);
	} finally {
		await pi.dispose();
	}
});

test("seed 000 manual close-out spans turns: the agent's own wipe_memory only acknowledges, the stop commits", async () => {
	const pi = await startPi();
	try {
		pi.respond(fauxAssistantMessage(fauxToolCall("wipe_memory", {})), fauxAssistantMessage("done"));
		await pi.session.prompt("/wipe-memory");
		await settle(pi);
		const entries = pi.persisted();
		const got = labels(entries);
		assert.ok(contiguous(got, ["assistant:call:wipe_memory", "toolResult:wipe_memory", "assistant:done", ...BOUNDARY]), got.join(", "));
		assert.equal(got.filter((l) => l === "compaction:reset").length, 1, "one reset, at settlement");
		const result = entries.find((e) => e.type === "message" && e.message.role === "toolResult");
		assert.match(JSON.stringify(result), /The user asked for this close-out/);
		assert.equal(pi.requests.length, 2);
	} finally {
		await pi.dispose();
	}
});

test("seed 000 `wipe_memory` tool: direct wipe commits at turn_end and continues in the fresh window; raw history kept", async () => {
	const pi = await startPi();
	try {
		pi.respond(fauxAssistantMessage(fauxToolCall("wipe_memory", {})), fauxAssistantMessage("continuing from my notes"));
		await pi.session.prompt("fix the bug");
		await settle(pi);
		const got = labels(pi.persisted());
		assert.ok(
			contiguous(got, ["user:fix the bug", "assistant:call:wipe_memory", "toolResult:wipe_memory", ...BOUNDARY, "assistant:continuing from my notes"]),
			got.join(", "),
		);
		assertRetainNone(pi);
		assert.equal(pi.requests.length, 2);
		const fresh = requestTexts(pi.requests[1]!);
		assert.ok(!fresh.some((t) => t.includes("fix the bug")), `the fresh window carries no old conversation: ${fresh.join(" | ")}`);
		assert.ok(fresh.some((t) => t.includes("fresh context window")), "boot and continuation are in the fresh window");
	} finally {
		await pi.dispose();
	}
});

test("seed 000 budget close-out: the warning goes into the request, an explicit wipe commits at turn_end", async () => {
	const pi = await startPi({ contextWindow: 20000 });
	try {
		pi.respond(fauxAssistantMessage(fauxToolCall("wipe_memory", {})), fauxAssistantMessage("fresh"));
		await pi.session.prompt("keep going");
		await settle(pi);
		const got = labels(pi.persisted());
		assert.ok(
			contiguous(got, ["toolResult:wipe_memory", "custom_message:resetpolicy/checkpoint_warning", ...BOUNDARY, "assistant:fresh"]),
			`the durable warning precedes the boundary: ${got.join(", ")}`,
		);
		const first = requestTexts(pi.requests[0]!);
		assert.match(first[first.length - 1]!, /Context checkpoint/, "the hidden warning is the last message of the request");
		assert.ok(pi.notices.some((n) => n.level === "warning" && n.text.startsWith("Context window nearly full")));
	} finally {
		await pi.dispose();
	}
});

test("seed 000 budget close-out: a successful normal stop alone never resets", async () => {
	const pi = await startPi({ contextWindow: 20000 });
	try {
		pi.respond(fauxAssistantMessage("just an answer"));
		await pi.session.prompt("keep going");
		await settle(pi);
		const got = labels(pi.persisted());
		assert.ok(got.includes("custom_message:resetpolicy/checkpoint_warning"), got.join(", "));
		assert.ok(!got.includes("compaction:reset"), `no reset: ${got.join(", ")}`);
		assert.equal(pi.requests.length, 1);
	} finally {
		await pi.dispose();
	}
});

test("seed 000 abort: a user abort of the close-out turn clears it; no reset, later prompts work normally", async () => {
	const pi = await startPi({ decisionLog: true });
	try {
		pi.respond((_ctx, options) =>
			new Promise((resolve) => {
				const done = () => resolve(fauxAssistantMessage("", { stopReason: "aborted" }));
				if (options?.signal?.aborted) done();
				else options?.signal?.addEventListener("abort", done);
			}),
		);
		await pi.session.prompt("/wipe-memory");
		await waitFor(() => pi.requests.length === 1, "the close-out request");
		await pi.session.abort();
		await settle(pi);
		pi.respond(fauxAssistantMessage("hello again"));
		await pi.session.prompt("hello");
		await settle(pi);
		const got = labels(pi.persisted());
		assert.ok(!got.some((l) => l.startsWith("compaction")), `no reset after the abort: ${got.join(", ")}`);
		assert.equal(got[got.length - 1], "assistant:hello again");
		const turnEnd = pi.decisions().find((d) => d.event.event === "turn_end");
		assert.equal(turnEnd?.event.outcome, "aborted");
		assert.equal(turnEnd?.event.synthetic_abort, false, "Pi's actual operation cancellation is a user abort");
		assert.deepEqual(turnEnd?.rules, ["turn_end_user_abort_clears_everything"]);
	} finally {
		await pi.dispose();
	}
});

test("seed 000 synthetic abort: an assistant message stopped as aborted does not commit the close-out", async () => {
	const pi = await startPi({ decisionLog: true });
	try {
		pi.respond(fauxAssistantMessage("partial", { stopReason: "aborted" }));
		await pi.session.prompt("/wipe-memory");
		await settle(pi);
		pi.respond(fauxAssistantMessage("normal answer"));
		await pi.session.prompt("go on");
		await settle(pi);
		const got = labels(pi.persisted());
		assert.ok(!got.some((l) => l.startsWith("compaction")), `no reset: ${got.join(", ")}`);
		const turnEnd = pi.decisions().find((d) => d.event.event === "turn_end");
		assert.equal(turnEnd?.event.synthetic_abort, true);
		assert.deepEqual(turnEnd?.rules, ["turn_end_synthetic_abort_clears_without_commit"]);
	} finally {
		await pi.dispose();
	}
});

test("seed 000 queued follow-up is answered before the manual stop commits", async () => {
	const pi = await startPi();
	try {
		pi.respond(
			async () => {
				await pi.session.followUp("also update the README");
				return fauxAssistantMessage("notes saved");
			},
			fauxAssistantMessage("README updated"),
		);
		await pi.session.prompt("/wipe-memory");
		await settle(pi);
		const got = labels(pi.persisted());
		assert.ok(
			contiguous(got, ["assistant:notes saved", "user:also update the README", "assistant:README updated", ...BOUNDARY]),
			got.join(", "),
		);
		assert.deepEqual(got.slice(-4), BOUNDARY, "the run stops after the boundary");
	} finally {
		await pi.dispose();
	}
});

test("seed 000 hard reserve: a completed turn at Pi's reserve commits at turn_end and continues", async () => {
	// A 10000-token window cannot hold Pi's default 16384-token reserve; the
	// rest of Pi's compaction settings stay at their defaults.
	const pi = await startPi({ contextWindow: 10000, compaction: { reserveTokens: 8000 } });
	try {
		pi.respond(fauxAssistantMessage("read it"), fauxAssistantMessage("fresh and small"));
		await pi.session.prompt(PAD);
		await settle(pi);
		const got = labels(pi.persisted());
		assert.ok(contiguous(got, [...BOUNDARY, "assistant:fresh and small"]), got.join(", "));
		assert.equal(got.filter((l) => l === "compaction:reset").length, 1, "the small fresh window is not reset again");
		assert.ok(got.indexOf("assistant:read it") < got.indexOf("compaction:reset"));
	} finally {
		await pi.dispose();
	}
});

test("seed 000 successive resets, then SessionManager reopens the file after two retain-none checkpoints", async () => {
	const dir = mkdtempSync(join(tmpdir(), "resetpolicy-reopen-"));
	const pi = await startPi({ dir });
	let file = "";
	try {
		pi.respond(
			fauxAssistantMessage(fauxToolCall("wipe_memory", {})),
			fauxAssistantMessage(fauxToolCall("wipe_memory", {})),
			fauxAssistantMessage("done in the third window"),
		);
		await pi.session.prompt("fix the bug");
		await settle(pi);
		const got = labels(pi.persisted());
		assert.equal(got.filter((l) => l === "compaction:reset").length, 2, got.join(", "));
		const windows = markerWindows(pi);
		assert.equal(windows.length, 2);
		assert.notEqual(windows[0], windows[1], "each reset opens its own window");
		const third = requestTexts(pi.requests[2]!);
		assert.equal(third.filter((t) => t.includes("This is a fresh context window")).length, 1, "only the latest boot is in context");
		assert.ok(!third.some((t) => t.includes("fix the bug")));
		assertRetainNone(pi);
		file = pi.sessionFile();

		// Pi's own SessionManager reads the file: the projection is the last window only,
		// the raw history is all there.
		const sm = SessionManager.open(file, pi.sessionDir);
		const text = JSON.stringify(sm.buildSessionProjection().messages);
		assert.ok(!text.includes("fix the bug"), "the projection holds no pre-reset conversation");
		assert.equal(text.split("This is a fresh context window").length - 1, 1, "one boot in the projection");
		assert.ok(text.includes("done in the third window"));
		assert.ok(JSON.stringify(sm.getEntries()).includes("fix the bug"), "raw history preserved");
	} finally {
		await pi.dispose();
	}

	// A new Pi on the same file starts in the latest window.
	const again = await startPi({ dir, sessionFile: file, decisionLog: true });
	try {
		again.respond(fauxAssistantMessage("still in the third window"));
		await again.session.prompt("next");
		await settle(again);
		const req = requestTexts(again.requests[0]!);
		assert.ok(!req.some((t) => t.includes("fix the bug")), req.join(" | "));
		const last = again.decisions().filter((d) => d.event.event === "request").pop();
		assert.equal(last?.event.window_id, markerWindows(again)[1], "the reopened session decides in the latest window");
	} finally {
		await again.dispose();
		rmSync(dir, { recursive: true, force: true });
	}
});

/** Writes a session file with Pi's own SessionManager and returns its path. */
function writeSession(dir: string, build: (sm: SessionManager) => void): string {
	const cwd = join(dir, "project");
	const sm = SessionManager.create(cwd, join(dir, "sessions"));
	const now = Date.now();
	sm.appendMessage({ role: "user", content: "the old secret task", timestamp: now });
	sm.appendMessage(fauxAssistantMessage("working on it", { timestamp: now }));
	build(sm);
	const file = sm.getSessionFile();
	assert.ok(file !== undefined);
	return file;
}

test("seed 000 startup repair completes a checkpoint-backed boundary whose continuation is missing", async () => {
	const dir = mkdtempSync(join(tmpdir(), "resetpolicy-repair-"));
	try {
		const file = writeSession(dir, (sm) => {
			sm.appendCompaction("", null, 10, { windowId: "w-old" }, true);
			sm.appendCustomEntry("resetpolicy/reset-marker", { windowId: "w-old" });
			sm.appendCustomMessageEntry("resetpolicy/boot", "boot text", false, { windowId: "w-old" });
		});
		const pi = await startPi({ dir, sessionFile: file });
		try {
			// Model and thinking-level entries Pi writes on open are neutral.
			const got = labels(pi.persisted()).filter((l) => l !== "thinking_level_change" && l !== "model_change");
			assert.deepEqual(got.slice(-4), BOUNDARY, `the continuation is appended at startup: ${got.join(", ")}`);
			assert.equal(got.filter((l) => l.startsWith("compaction")).length, 1, "repair never adds a compaction");
			pi.respond(fauxAssistantMessage("resuming"));
			await pi.session.prompt("go on");
			await settle(pi);
			const req = requestTexts(pi.requests[0]!);
			assert.ok(!req.some((t) => t.includes("the old secret task")), req.join(" | "));
		} finally {
			await pi.dispose();
		}
	} finally {
		rmSync(dir, { recursive: true, force: true });
	}
});

test("seed 000 projection: a marker whose boot is absent stops the request instead of sending raw history", async () => {
	const dir = mkdtempSync(join(tmpdir(), "resetpolicy-noboot-"));
	try {
		// A marker-only (legacy) reset with no boot, and later conversation: not repairable.
		const file = writeSession(dir, (sm) => {
			sm.appendCustomEntry("pi-context/reset-marker", { windowId: "w-legacy" });
			sm.appendMessage({ role: "user", content: "after the marker", timestamp: Date.now() });
		});
		const pi = await startPi({ dir, sessionFile: file });
		try {
			pi.respond(fauxAssistantMessage("should not see the old task"));
			await pi.session.prompt("continue");
			await settle(pi);
			for (const r of pi.requests) {
				assert.ok(!requestTexts(r).some((t) => t.includes("the old secret task")), "raw pre-reset history was sent");
			}
			assert.ok(pi.notices.some((n) => n.level === "warning" && /boot message .* is absent/.test(n.text)), JSON.stringify(pi.notices));
		} finally {
			await pi.dispose();
		}
	} finally {
		rmSync(dir, { recursive: true, force: true });
	}
});

test("seed 000 /tree: the summary of a branch that crosses a reset is suppressed with an empty summary", async () => {
	const pi = await startPi();
	try {
		pi.respond(fauxAssistantMessage(fauxToolCall("wipe_memory", {})), fauxAssistantMessage("in the fresh window"));
		await pi.session.prompt("fix the bug");
		await settle(pi);
		const user = pi.persisted().find((e) => e.type === "message" && e.message.role === "user");
		assert.ok(user !== undefined);
		const before = pi.requests.length;
		const r = await pi.session.navigateTree(user.id, { summarize: true });
		assert.equal(r.cancelled, false);
		assert.equal(pi.requests.length, before, "no summary was generated from the raw pre-reset history");
		assert.ok(!labels(pi.persisted()).includes("branch_summary"), labels(pi.persisted()).join(", "));
		assert.equal(pi.notices.filter((n) => n.level === "error").length, 0, JSON.stringify(pi.notices));
	} finally {
		await pi.dispose();
	}
});
