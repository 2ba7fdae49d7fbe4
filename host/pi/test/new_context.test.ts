// new_context in Pi's real agent loop: seed 001's scripted SDK tests.

import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { fauxAssistantMessage, fauxToolCall } from "@earendil-works/pi-ai";
import { contiguous, labels, type Pi, requestTexts, settle, startPi } from "./harness.ts";

const PROJECT = { ".pi/resetpolicy.yaml": "policy: new_context\n" };
const PAD = "lorem ipsum dolor sit amet ".repeat(340); // about 2300 tokens

/**
 * Three exchanges of about 11500 tokens each: more history than Pi's default
 * keepRecentTokens (20000), so Pi finds something to compact ("Pi also
 * determines compaction eligibility before the extension hook").
 */
async function fillHistory(pi: Pi): Promise<void> {
	for (let i = 0; i < 3; i++) {
		pi.respond(fauxAssistantMessage(`noted part ${i}`));
		await pi.session.prompt(`part ${i}: ${PAD.repeat(5)}`);
		await settle(pi);
	}
}

test("seed 001 explicit success: new_context compacts at settle through one attempt, then continues in the fresh window", async () => {
	const pi = await startPi({ project: PROJECT });
	try {
		await fillHistory(pi);
		const before = pi.requests.length;
		pi.respond(fauxAssistantMessage(fauxToolCall("new_context", {})), fauxAssistantMessage("fresh start"));
		await pi.session.prompt("do the task");
		await settle(pi);
		await settle(pi);
		const entries = pi.persisted();
		const got = labels(entries);
		assert.ok(
			contiguous(got, [
				"assistant:call:new_context",
				"toolResult:new_context",
				"compaction:reset",
				"custom_message:resetpolicy/continuation",
				"assistant:fresh start",
			]),
			got.join(", "),
		);
		const reset = entries.find((e) => e.type === "compaction");
		assert.ok(reset !== undefined && reset.type === "compaction");
		assert.equal(reset.firstKeptEntryId, reset.id, "retain-none: the compaction keeps only itself");
		assert.match(JSON.stringify(reset.details), /"windowId":"w-/);
		assert.equal(pi.requests.length - before, 2, "the reset itself takes no model turn");
		const fresh = requestTexts(pi.requests[pi.requests.length - 1]!);
		assert.ok(!fresh.some((t) => t.includes("do the task") || t.includes("lorem ipsum")), fresh.join(" | "));
		const result = entries.find((e) => e.type === "message" && e.message.role === "toolResult");
		assert.match(JSON.stringify(result), /New context requested/);
	} finally {
		await pi.dispose();
	}
});

test("seed 001 instant automatic reset: threshold compaction is answered with the reset boundary, no model turn", async () => {
	// Pi's default settings; a 60000-token window crosses Pi's threshold
	// (window minus the default 16384 reserve) after four exchanges, with
	// more history than the default keepRecentTokens to compact.
	const pi = await startPi({ project: PROJECT, contextWindow: 60000 });
	try {
		await fillHistory(pi);
		pi.respond(fauxAssistantMessage("read it"), fauxAssistantMessage("answer in the fresh window"));
		await pi.session.prompt(`part 3: ${PAD.repeat(5)}`);
		await settle(pi);
		const before = pi.requests.length;
		await pi.session.prompt("second question");
		await settle(pi);
		const got = labels(pi.persisted());
		assert.ok(contiguous(got, ["assistant:read it", "compaction:reset", "user:second question", "assistant:answer in the fresh window"]), got.join(", "));
		assert.equal(pi.requests.length - before, 1, "no model turn for the reset");
		const second = requestTexts(pi.requests[pi.requests.length - 1]!);
		assert.ok(!second.some((t) => t.includes("lorem ipsum")), "the old window is gone from the request");
		assert.ok(second.some((t) => t.includes("second question")));
	} finally {
		await pi.dispose();
	}
});

test("seed 001 core compaction rejection: the attempt fails with a warning, history stays, the next prompt works", async () => {
	// Pi's default keepRecentTokens leaves nothing to compact in a short session.
	const pi = await startPi({ project: PROJECT });
	try {
		pi.respond(fauxAssistantMessage(fauxToolCall("new_context", {})));
		await pi.session.prompt("do the task");
		await settle(pi);
		await settle(pi);
		const warnings = pi.notices.filter((n) => n.text.startsWith("The new context could not be started"));
		assert.equal(warnings.length, 1, JSON.stringify(pi.notices));
		assert.equal(warnings[0]!.level, "warning");
		pi.respond(fauxAssistantMessage("normal answer"));
		await pi.session.prompt("next question");
		await settle(pi);
		const got = labels(pi.persisted());
		assert.ok(!got.some((l) => l.startsWith("compaction")), got.join(", "));
		assert.ok(contiguous(got, ["user:next question", "assistant:normal answer"]), got.join(", "));
		assert.ok(got.includes("user:do the task"), "history retained");
		assert.equal(pi.requests.length, 2, "no retry loop");
	} finally {
		await pi.dispose();
	}
});

test("seed 001 the checkpoint warning is steered 'once per window', also after the session file is reopened", async () => {
	const dir = mkdtempSync(join(tmpdir(), "resetpolicy-durable-"));
	const warnings = (pi: Pi) => labels(pi.persisted()).filter((l) => l === "custom_message:resetpolicy/checkpoint_warning").length;
	try {
		// A 20000-token window is inside the warning runway from the start.
		const first = await startPi({ dir, project: PROJECT, contextWindow: 20000 });
		let file = "";
		try {
			first.respond(fauxAssistantMessage("an answer"));
			await first.session.prompt("keep going");
			await settle(first);
			file = first.sessionFile();
			assert.equal(warnings(first), 1);
		} finally {
			await first.dispose();
		}
		const again = await startPi({ dir, project: PROJECT, contextWindow: 20000, sessionFile: file });
		try {
			again.respond(fauxAssistantMessage("another answer"));
			await again.session.prompt("and more");
			await settle(again);
			assert.equal(warnings(again), 1, labels(again.persisted()).join(", "));
		} finally {
			await again.dispose();
		}
	} finally {
		rmSync(dir, { recursive: true, force: true });
	}
});

test("seed 001 'or rides into Pi's automatic compaction, which resets on the spot': a native reset satisfies a pending new_context, no second attempt", async () => {
	// Pi's default settings; a 60000-token window crosses Pi's threshold in
	// the turn that calls new_context.
	const pi = await startPi({ project: PROJECT, contextWindow: 60000, decisionLog: true });
	try {
		await fillHistory(pi);
		const before = pi.requests.length;
		pi.respond(fauxAssistantMessage(fauxToolCall("new_context", {})), fauxAssistantMessage("must not be asked for"));
		await pi.session.prompt(`part 3: ${PAD.repeat(5)}`);
		await settle(pi);
		await settle(pi);
		const got = labels(pi.persisted());
		assert.equal(got.filter((l) => l === "compaction:reset").length, 1, got.join(", "));
		assert.ok(!got.includes("custom_message:resetpolicy/continuation"), `no continuation: ${got.join(", ")}`);
		assert.equal(pi.requests.length - before, 1, "no model turn after the reset");
		assert.ok(!pi.notices.some((n) => n.text.startsWith("The new context could not be started")), JSON.stringify(pi.notices));
		const rules = pi.decisions().flatMap((d) => d.rules);
		assert.ok(rules.includes("native_reset_satisfies_pending_request"), rules.join(", "));
		assert.ok(!rules.includes("settled_starts_one_identified_attempt"), "no second attempt");
	} finally {
		await pi.dispose();
	}
});
