// autocompacter in Pi's real agent loop: seed 002's checkpoint lifecycle.

import assert from "node:assert/strict";
import { test } from "node:test";
import { fauxAssistantMessage, fauxToolCall } from "@earendil-works/pi-ai";
import { DEFAULT_COMPACTION_SETTINGS } from "@earendil-works/pi-coding-agent";
import { contiguous, labels, requestTexts, settle, startPi } from "./harness.ts";

const SUMMARY = "## Goal\nFix the parser bug.\n\n## Next Steps\n1. Add the test.";
const PAD = "lorem ipsum dolor sit amet ".repeat(1360); // about 9200 tokens
const PAD31 = "lorem ipsum dolor sit amet ".repeat(4600); // about 31000 tokens

function project(params = "") {
	return { ".pi/resetpolicy.yaml": `policy: autocompacter\n${params}` };
}

test("seed 002 request → checkpoint → resume: self-compact is summarised at turn end and the agent resumes from the summary", async () => {
	const pi = await startPi({ project: project() });
	try {
		pi.respond(fauxAssistantMessage(fauxToolCall("self-compact", {})), fauxAssistantMessage(SUMMARY), fauxAssistantMessage("resumed"));
		await pi.session.prompt("fix the parser bug");
		await settle(pi);
		const entries = pi.persisted();
		const got = labels(entries);
		assert.ok(
			contiguous(got, ["assistant:call:self-compact", "toolResult:self-compact", "compaction:summary", "assistant:resumed"]),
			got.join(", "),
		);
		const cp = entries.find((e) => e.type === "compaction");
		assert.ok(cp !== undefined && cp.type === "compaction");
		assert.equal(cp.firstKeptEntryId, cp.id, "self-retaining");
		assert.equal(cp.summary, SUMMARY);
		assert.ok(requestTexts(pi.requests[1]!).some((t) => t.includes("<conversation>")), "the second request writes the summary");
		const resumed = requestTexts(pi.requests[2]!);
		assert.ok(resumed.some((t) => t.includes("Fix the parser bug")), "the agent resumes from the summary");
		assert.ok(!resumed.some((t) => t === "user:fix the parser bug"), "the raw conversation is not in context");
		assert.ok(got.includes("user:fix the parser bug"), "raw history preserved");
	} finally {
		await pi.dispose();
	}
});

test("seed 002 force at the limit: a completed turn at the active force limit is checkpointed without an extra turn", async () => {
	const pi = await startPi({ project: project(), contextWindow: 10000, compaction: { reserveTokens: 100 } });
	try {
		pi.respond(fauxAssistantMessage("answer"), fauxAssistantMessage(SUMMARY));
		await pi.session.prompt(PAD);
		await settle(pi);
		const got = labels(pi.persisted());
		assert.deepEqual(got.slice(-2), ["assistant:answer", "compaction:summary"], got.join(", "));
		assert.equal(pi.requests.length, 2, "a completed response without pending work does not create an extra model turn");
	} finally {
		await pi.dispose();
	}
});

test("seed 002 summary failure → retry → pause after three, /autocompacter clears the failures and checkpoints", async () => {
	// Pi's own compaction settings at their defaults: the policy's limits are set
	// low instead (force at 30000 tokens, far below the 1M window's
	// threshold), so the final idle /autocompacter has more context than
	// Pi's default keepRecentTokens (20000) to compact.
	const params =
		"params:\n  retry_delays_ms: [0]\n  cooldown_ms: 0\n  notice_limit: 20000\n  warning_limit: 25000\n  force_limit: 30000\n";
	const pi = await startPi({ project: project(params), compaction: { ...DEFAULT_COMPACTION_SETTINGS } });
	const fail = () => fauxAssistantMessage("", { stopReason: "error", errorMessage: "invalid request: summary refused" });
	try {
		pi.respond(fauxAssistantMessage("answer 1"), fail());
		await pi.session.prompt(PAD31);
		await settle(pi);
		for (let i = 2; i <= 3; i++) {
			pi.respond(fauxAssistantMessage(`answer ${i}`), fail());
			await pi.session.prompt(`more ${i}`);
			await settle(pi);
		}
		const failed = pi.notices.filter((n) => n.level === "error" && n.text.startsWith("Checkpoint failed"));
		assert.equal(failed.length, 3, JSON.stringify(pi.notices));
		assert.match(failed[2]!.text, /paused/, "the third failure pauses");
		assert.doesNotMatch(failed[1]!.text, /paused/);
		assert.ok(!labels(pi.persisted()).some((l) => l.startsWith("compaction")), "a failed summary leaves the context unchanged");

		// Paused, the force limit takes no checkpoint; the warning level still
		// starts its turn ("Notice and warning messages start a model turn").
		pi.respond(fauxAssistantMessage("answer 4"), fauxAssistantMessage("heeding the warning"));
		// Long enough that Pi's compact() has the earlier turns to summarise.
		await pi.session.prompt(`${PAD31} more 4`);
		await settle(pi);
		assert.equal(pi.requests.length, 8);
		assert.ok(!pi.requests.slice(6).some((r) => requestTexts(r).some((t) => t.includes("<conversation>"))), "paused: no summary attempt");
		assert.ok(contiguous(labels(pi.persisted()), ["assistant:answer 4", "custom_message:resetpolicy/warning", "assistant:heeding the warning"]));

		pi.respond(fauxAssistantMessage(SUMMARY), fauxAssistantMessage("resumed after the checkpoint"));
		await pi.session.prompt("/autocompacter");
		await settle(pi);
		await settle(pi);
		const got = labels(pi.persisted());
		assert.ok(
			contiguous(got, ["assistant:heeding the warning", "compaction:summary", "custom_message:resetpolicy/continuation", "assistant:resumed after the checkpoint"]),
			got.join(", "),
		);
		assert.ok(pi.notices.some((n) => n.text.startsWith("Checkpoint started")));
	} finally {
		await pi.dispose();
	}
});

test("seed 002 /autocompacter while a turn runs: the request is stored, taken at turn end, and the next turn starts from the summary", async () => {
	const pi = await startPi({ project: project() });
	try {
		pi.respond(
			async () => {
				await pi.session.prompt("/autocompacter");
				return fauxAssistantMessage("a plain answer");
			},
			fauxAssistantMessage(SUMMARY),
			fauxAssistantMessage("resumed"),
		);
		await pi.session.prompt("fix the parser bug");
		await settle(pi);
		const got = labels(pi.persisted());
		assert.ok(contiguous(got, ["assistant:a plain answer", "compaction:summary", "assistant:resumed"]), got.join(", "));
		assert.ok(pi.notices.some((n) => n.text.startsWith("Checkpoint requested")), JSON.stringify(pi.notices));
		assert.equal(pi.requests.length, 3, "a requested checkpoint starts the next model turn");
	} finally {
		await pi.dispose();
	}
});
