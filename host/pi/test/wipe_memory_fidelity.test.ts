// wipe_memory in Pi's real loop with Pi's default settings: the places where
// a policy that says nothing would leave Pi's own behaviour in charge.

import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { fauxAssistantMessage, fauxToolCall } from "@earendil-works/pi-ai";
import { BOUNDARY, contiguous, durableStates, labels, requestTexts, settle, startPi, type Pi } from "./harness.ts";

const PAD = "lorem ipsum dolor sit amet ".repeat(340); // about 2300 tokens
const OVERFLOW = "prompt is too long: 213462 tokens > 200000 maximum";

/**
 * Three exchanges of about 11500 tokens each: more history than Pi's default
 * keepRecentTokens (20000), so Pi finds something to summarise and its
 * compaction hook runs.
 */
async function fillHistory(pi: Pi): Promise<void> {
	for (let i = 0; i < 3; i++) {
		pi.respond(fauxAssistantMessage(`noted part ${i}`));
		await pi.session.prompt(`part ${i}: ${PAD.repeat(5)}`);
		await settle(pi);
	}
}

test("seed 000 `/compact` while active: a manual /compact with no close-out armed is cancelled with the /wipe-memory notice; no summary is asked of the model", async () => {
	const pi = await startPi();
	try {
		await fillHistory(pi);
		const before = pi.requests.length;
		// Were the compaction not cancelled, Pi would ask the model for this summary.
		pi.respond(fauxAssistantMessage("a summary of the old history"));
		await assert.rejects(pi.session.compact(), /cancelled/i);
		assert.equal(pi.requests.length, before, "no summary was requested from the model");
		const got = labels(pi.persisted());
		assert.ok(!got.some((l) => l.startsWith("compaction")), got.join(", "));
		const notice = pi.notices.find((n) => n.text.includes("/wipe-memory") && n.text.startsWith("/compact"));
		assert.ok(notice !== undefined, JSON.stringify(pi.notices));
	} finally {
		await pi.dispose();
	}
});

test("seed 000 `/compact` while switched off: a branch that already holds a reset is not summarised (after_reset)", async () => {
	const pi = await startPi();
	try {
		pi.respond(fauxAssistantMessage(fauxToolCall("wipe_memory", {})), fauxAssistantMessage("fresh"));
		await pi.session.prompt("fix the bug");
		await settle(pi);
		await fillHistory(pi);
		await pi.session.prompt("/resetpolicy off");
		const before = pi.requests.length;
		pi.respond(fauxAssistantMessage("a summary that would carry wiped history back"));
		await assert.rejects(pi.session.compact(), /cancelled/i);
		assert.equal(pi.requests.length, before, "no summary was requested from the model");
		assert.ok(!labels(pi.persisted()).includes("compaction:summary"));
		assert.ok(pi.notices.some((n) => n.text.includes("holds a context reset")), JSON.stringify(pi.notices));
	} finally {
		await pi.dispose();
	}
});

test("seed 000 bounded overflow recovery: a provider overflow is recovered exactly once, by the policy's own boundary; no summary compaction", async () => {
	const pi = await startPi({ decisionLog: true });
	try {
		await fillHistory(pi);
		const before = pi.requests.length;
		pi.respond(
			fauxAssistantMessage("", { stopReason: "error", errorMessage: OVERFLOW }),
			fauxAssistantMessage("continued in the fresh window"),
			fauxAssistantMessage("a summary Pi must not ask for"),
		);
		await pi.session.prompt("next step");
		await settle(pi);
		const got = labels(pi.persisted());
		assert.ok(!got.includes("compaction:summary"), `no summary compaction: ${got.join(", ")}`);
		assert.equal(got.filter((l) => l === "compaction:reset").length, 1, `one reset: ${got.join(", ")}`);
		assert.ok(contiguous(got, [...BOUNDARY, "assistant:continued in the fresh window"]), got.join(", "));
		assert.equal(pi.requests.length - before, 2, "the failed request and the fresh-window continuation; no summary request");
		const fresh = requestTexts(pi.requests[pi.requests.length - 1]!);
		assert.ok(!fresh.some((t) => t.includes("lorem ipsum")), "the old history is gone from the fresh window");
		const rules = pi.decisions().flatMap((d) => d.rules);
		assert.equal(rules.filter((r) => r === "settle_overflow_recovery_gets_one_attempt").length, 1);
		assert.ok(rules.includes("automatic_compact_cancelled_while_active"), "Pi's own overflow compaction was cancelled");
	} finally {
		await pi.dispose();
	}
});

for (const how of ["steer", "followUp"] as const) {
	test(`seed 000 hard reserve: a ${how === "steer" ? "steer" : "follow-up"} typed during a manual hard-reserve wipe turn is answered, not swallowed ('real queued user input is answered before stopping')`, async () => {
		// A 10000-token window cannot hold Pi's default 16384-token reserve.
		const pi = await startPi({ contextWindow: 10000, compaction: { reserveTokens: 8000 } });
		try {
			pi.respond(
				async () => {
					await pi.session[how]("and check the tests");
					return fauxAssistantMessage(`notes saved. ${PAD}`);
				},
				fauxAssistantMessage("tests checked"),
			);
			await pi.session.prompt("/wipe-memory");
			await settle(pi);
			const got = labels(pi.persisted());
			assert.equal(got.filter((l) => l === "compaction:reset").length, 1, got.join(", "));
			assert.ok(contiguous(got, [...BOUNDARY, "user:and check the tests", "assistant:tests checked"]), got.join(", "));
			assert.ok(!got.includes("assistant:"), `no aborted empty reply: ${got.join(", ")}`);
			assert.equal(pi.requests.length, 2);
		} finally {
			await pi.dispose();
		}
	});
}

test("seed 000 hard reserve 'if automatic resets are enabled': with Pi's automatic compaction off, a full window is not reset", async () => {
	// Departs from Pi's defaults on purpose: automatic compaction off is the
	// setting under test; the small window needs a small reserve.
	const pi = await startPi({ contextWindow: 10000, compaction: { enabled: false, reserveTokens: 8000 } });
	try {
		pi.respond(fauxAssistantMessage("read it"), fauxAssistantMessage("next answer"));
		await pi.session.prompt(PAD);
		await settle(pi);
		const got = labels(pi.persisted());
		assert.ok(!got.some((l) => l.startsWith("compaction")), `no reset: ${got.join(", ")}`);
		assert.equal(pi.requests.length, 1, "no continuation");
	} finally {
		await pi.dispose();
	}
});

test("seed 000 'UI success notices use confirmation ... and remain committed-only': the reset notice follows the confirmed boundary", async () => {
	const pi = await startPi();
	try {
		pi.respond(fauxAssistantMessage(fauxToolCall("wipe_memory", {})), fauxAssistantMessage("continuing"));
		await pi.session.prompt("fix the bug");
		await settle(pi);
		const wiped = pi.notices.filter((n) => n.text.startsWith("Context window wiped"));
		assert.equal(wiped.length, 1, JSON.stringify(pi.notices));
		assert.ok(labels(pi.persisted()).includes("compaction:reset"));
	} finally {
		await pi.dispose();
	}
	const quiet = await startPi();
	try {
		quiet.respond(fauxAssistantMessage("just an answer"));
		await quiet.session.prompt("hello");
		await settle(quiet);
		assert.ok(!quiet.notices.some((n) => n.text.startsWith("Context window wiped")), "no notice without a committed reset");
	} finally {
		await quiet.dispose();
	}
});

test("seed 000 'The text allows for either reset timing': the checkpoint warning of a manual close-out says the run stops", async () => {
	const pi = await startPi();
	try {
		pi.respond(fauxAssistantMessage("notes saved"));
		await pi.session.prompt("/wipe-memory");
		await settle(pi);
		const warning = requestTexts(pi.requests[0]!).find((t) => t.includes("Context checkpoint"));
		assert.ok(warning !== undefined);
		// Inside a manual close-out wipe_memory only acknowledges: the text
		// must not promise a turn-end reset and a continuation outright.
		assert.doesNotMatch(warning, /call `wipe_memory`: the window is reset at the\s+end of that turn/);
		assert.match(warning, /either at the end of that turn/);
		assert.match(warning, /the run stops/);
	} finally {
		await pi.dispose();
	}
});

test("seed 000 /tree: the summary suppression is the policy's before_tree decision", async () => {
	const pi = await startPi({ decisionLog: true });
	try {
		pi.respond(fauxAssistantMessage(fauxToolCall("wipe_memory", {})), fauxAssistantMessage("in the fresh window"));
		await pi.session.prompt("fix the bug");
		await settle(pi);
		const user = pi.persisted().find((e) => e.type === "message" && e.message.role === "user");
		assert.ok(user !== undefined);
		const before = pi.requests.length;
		await pi.session.navigateTree(user.id, { summarize: true });
		assert.equal(pi.requests.length, before);
		const tree = pi.decisions().filter((d) => d.event.event === "before_tree");
		assert.equal(tree.length, 1);
		assert.equal(tree[0]!.event.crosses_reset, true);
		assert.deepEqual(tree[0]!.rules, ["tree_summary_suppressed_across_reset"]);
	} finally {
		await pi.dispose();
	}
});

test("seed 000 'After a budget warning is durable, the extension does not repeat it in that window', across reopening the session file", async () => {
	const dir = mkdtempSync(join(tmpdir(), "resetpolicy-durable-"));
	try {
		// A 20000-token window is inside the warning runway from the start.
		const first = await startPi({ dir, contextWindow: 20000 });
		let file = "";
		try {
			first.respond(fauxAssistantMessage("an answer"));
			await first.session.prompt("keep going");
			await settle(first);
			file = first.sessionFile();
			assert.equal(countWarnings(first), 1);
			assert.deepEqual(durableStates(first.persisted()), [{ reminder_window: "w1", warning_window: "w1" }]);
			assert.ok(first.notices.some((n) => n.text.startsWith("Context window nearly full")));
		} finally {
			await first.dispose();
		}
		const again = await startPi({ dir, contextWindow: 20000, sessionFile: file });
		try {
			again.respond(fauxAssistantMessage("another answer"));
			await again.session.prompt("and more");
			await settle(again);
			assert.equal(countWarnings(again), 1, `no second warning in the same window: ${labels(again.persisted()).join(", ")}`);
			assert.ok(!requestTexts(again.requests[0]!).slice(-1)[0]!.includes("Context checkpoint"), "the reopened request carries no new warning");
			assert.ok(!again.notices.some((n) => n.text.startsWith("Context window nearly full")), JSON.stringify(again.notices));
		} finally {
			await again.dispose();
		}
	} finally {
		rmSync(dir, { recursive: true, force: true });
	}
});

test("durable state follows the branch: /tree back to before the warning forgets it, so that branch is warned", async () => {
	const pi = await startPi({ contextWindow: 20000 });
	try {
		pi.respond(fauxAssistantMessage("an answer"));
		await pi.session.prompt("keep going");
		await settle(pi);
		assert.equal(countWarnings(pi), 1);
		const user = pi.persisted().find((e) => e.type === "message" && e.message.role === "user");
		assert.ok(user !== undefined);
		// The user message's parent: the branch before the warning was made durable.
		await pi.session.navigateTree(user.parentId!, { summarize: false });
		pi.respond(fauxAssistantMessage("a second branch"));
		await pi.session.prompt("another way");
		await settle(pi);
		const last = requestTexts(pi.requests[pi.requests.length - 1]!);
		assert.match(last[last.length - 1]!, /Context checkpoint/, "the new branch gets its own warning");
	} finally {
		await pi.dispose();
	}
});

function countWarnings(pi: Pi): number {
	return labels(pi.persisted()).filter((l) => l === "custom_message:resetpolicy/checkpoint_warning").length;
}

test("seed 000 'automatic provider-overflow recovery remains separately bounded' / 'real queued user input is answered before stopping': a budget close-out whose request overflows with a follow-up queued is recovered once at once; the follow-up is answered in the fresh window", async () => {
	// A 20000-token window is inside the warning runway from the start: each
	// request carries the budget close-out warning (an automatic close-out).
	const pi = await startPi({ contextWindow: 20000, decisionLog: true });
	try {
		pi.respond(
			async () => {
				await pi.session.followUp("and what about the tests?");
				return fauxAssistantMessage("", { stopReason: "error", errorMessage: OVERFLOW });
			},
			fauxAssistantMessage("picked up from the notes"),
			fauxAssistantMessage("the tests pass"),
		);
		await pi.session.prompt("next step");
		await settle(pi);
		const got = labels(pi.persisted());
		const first = JSON.stringify(pi.requests[0]);
		assert.ok(pi.requests.slice(1).every((r) => JSON.stringify(r) !== first), "the overflowed request was sent again unchanged");
		const followUp = pi.requests.map(requestTexts).find((r) => r.includes("user:and what about the tests?"));
		assert.ok(followUp !== undefined, "the follow-up was never sent");
		assert.ok(!followUp.includes("user:next step"), "the follow-up went into the overflowing window");
		assert.equal(got.filter((l) => l === "compaction:reset").length, 1, `one reset: ${got.join(", ")}`);
		assert.ok(got.indexOf("user:and what about the tests?") > got.indexOf("compaction:reset"), got.join(", "));
		assert.equal(got.at(-1), "assistant:the tests pass");
		const rules = pi.decisions().flatMap((d) => d.rules);
		assert.ok(rules.includes("turn_end_overflow_with_queued_input_recovers_before_it"), rules.join(", "));
	} finally {
		await pi.dispose();
	}
});
