// wipe_memory in Pi's real loop with Pi's default settings (automatic
// compaction on, reserve 16384, retries on): seed 000's notices and budget
// as the user and the model see them.

import assert from "node:assert/strict";
import { test } from "node:test";
import { fauxAssistantMessage } from "@earendil-works/pi-ai";
import type { ExtensionContext } from "@earendil-works/pi-coding-agent";
import { holdForExit } from "../src/state.ts";
import { labels, requestTexts, settle, startPi, stderrOf } from "./harness.ts";

const TRANSIENT = "503 Service Unavailable: overloaded";
const PAD = "lorem ipsum dolor sit amet ".repeat(340); // about 2300 tokens

test("seed 000 'An ordinary close-out error is dropped without reset.': a /wipe-memory whose turn hits a 503 is dropped, and the user is told once how to ask again", async () => {
	const pi = await startPi({ decisionLog: true });
	try {
		pi.respond(
			fauxAssistantMessage("", { stopReason: "error", errorMessage: TRANSIENT }),
			fauxAssistantMessage("notes saved"),
		);
		await pi.session.prompt("/wipe-memory");
		await settle(pi);
		assert.equal(pi.requests.length, 2, "Pi retried the close-out turn");
		const got = labels(pi.persisted());
		assert.ok(!got.some((l) => l.startsWith("compaction")), `the seed's rule: no reset: ${got.join(", ")}`);
		const dropped = pi.notices.filter((n) => n.text.includes("/wipe-memory") && n.text.includes("nothing was wiped"));
		assert.equal(dropped.length, 1, JSON.stringify(pi.notices));
		assert.equal(dropped[0]!.level, "warning");
		assert.match(dropped[0]!.text, /Run \/wipe-memory again/);
		const rules = pi.decisions().flatMap((d) => d.rules);
		assert.ok(rules.includes("turn_end_failure_drops_manual_close_out_and_says_so"), rules.join(", "));
	} finally {
		await pi.dispose();
	}
});

for (const [kind, window, notice, entry] of [
	// A 20000-token window is inside the warning runway from the start.
	["close-out warning", 20000, "Context window nearly full", "custom_message:resetpolicy/checkpoint_warning"],
	// 40000 - 16384 - 24576 < 0 remaining tokens before the reminder: due at once, the warning not.
	["reminder", 40000, "Context budget is getting low", "custom_message:resetpolicy/budget_reminder"],
] as const) {
	test(`seed 000 'UI reminder notices are emitted only after the matching hidden entry is durable': the ${kind} notice is shown once its entry is in the session`, async () => {
		const pi = await startPi({ contextWindow: window });
		try {
			pi.respond(fauxAssistantMessage("an answer"));
			await pi.session.prompt("keep going");
			await settle(pi);
			assert.ok(labels(pi.persisted()).includes(entry), labels(pi.persisted()).join(", "));
			const i = pi.notices.findIndex((n) => n.text.startsWith(notice));
			assert.ok(i >= 0, JSON.stringify(pi.notices));
			assert.ok(pi.noticeBranches[i]!.includes(entry), `shown before its entry was durable: ${pi.noticeBranches[i]!.join(", ")}`);
			assert.equal(pi.notices.filter((n) => n.text.startsWith(notice)).length, 1);
		} finally {
			await pi.dispose();
		}
	});
}

test("seed 000 'so failed requests do not report an uncommitted warning': a failed request's warning shows no notice", async () => {
	// Retries off: the request must fail for good, which Pi's retry would
	// otherwise turn into a completed one.
	const pi = await startPi({ contextWindow: 20000 });
	try {
		pi.session.settingsManager.setRetryEnabled(false);
		pi.respond(fauxAssistantMessage("", { stopReason: "error", errorMessage: TRANSIENT }));
		await pi.session.prompt("keep going");
		await settle(pi);
		assert.ok(!pi.notices.some((n) => n.text.startsWith("Context window nearly full")), JSON.stringify(pi.notices));
	} finally {
		await pi.dispose();
	}
});

test("seed 000 'Usage estimation uses the same checkpoint-aware projection decision.': the first request of a fresh window is measured, not reported as 0, and a large one gets the close-out warning", async () => {
	// A 60000-token window: the warning is due at 31328 tokens (60000 -
	// 16384 - 12288), the hard reserve and Pi's own threshold at 43616.
	const pi = await startPi({ contextWindow: 60000, decisionLog: true });
	try {
		pi.respond(fauxAssistantMessage("notes saved"));
		await pi.session.prompt("/wipe-memory");
		await settle(pi);
		assert.ok(labels(pi.persisted()).includes("compaction:reset"));
		assert.equal(pi.session.getContextUsage()?.tokens, null, "Pi does not know the fresh window's size until the model answers");

		pi.respond(fauxAssistantMessage("read it all"));
		await pi.session.prompt(`read this: ${PAD.repeat(15)}`);
		await settle(pi);
		const request = pi.decisions().filter((d) => d.event.event === "request").at(-1)!;
		assert.ok(Number(request.event.tokens) > 31328, `the fresh window's first request measured ${request.event.tokens} tokens`);
		assert.deepEqual(request.rules, ["budget_warning_staged_once_per_window", "budget_warning_arms_automatic_close_out"]);
		assert.match(requestTexts(pi.requests.at(-1)!).at(-1)!, /^user:Context checkpoint: this context window is about to be wiped/);
	} finally {
		await pi.dispose();
	}
});

test("seed 000 'An ordinary close-out error is dropped without reset.': in print mode the dropped /wipe-memory is said before the command returns, which is before Pi exits", async () => {
	const pi = await startPi({ mode: "print" });
	try {
		pi.respond(fauxAssistantMessage("", { stopReason: "error", errorMessage: TRANSIENT }), fauxAssistantMessage("notes saved"));
		const err = await stderrOf(() => pi.session.prompt("/wipe-memory"));
		assert.match(err, /^Warning: \/wipe-memory did not happen: .*Run \/wipe-memory again/m);
		assert.equal(pi.requests.length, 2, "the close-out turn (and Pi's retry) ran before the command returned");
	} finally {
		await pi.dispose();
	}
});

test("holdForExit: without a UI, work that never finishes is waited for only up to the bound, and the user is told", async () => {
	const saved = process.env.RESETPOLICY_EXIT_WAIT_MS;
	process.env.RESETPOLICY_EXIT_WAIT_MS = "20";
	try {
		const noUI = { hasUI: false } as unknown as ExtensionContext;
		const err = await stderrOf(() => holdForExit(noUI, "/wipe-memory", () => new Promise<void>(() => {})));
		assert.match(err, /^Warning: resetpolicy: \/wipe-memory did not finish within 0 s; Pi exits without waiting for it/m);
		const done = await stderrOf(() => holdForExit(noUI, "/wipe-memory", async () => {}));
		assert.equal(done, "", "finished work says nothing");
		let waited = false;
		await holdForExit({ hasUI: true } as unknown as ExtensionContext, "x", async () => {
			waited = true;
		});
		assert.equal(waited, false, "with a UI Pi stays: nothing is waited for");
	} finally {
		if (saved === undefined) delete process.env.RESETPOLICY_EXIT_WAIT_MS;
		else process.env.RESETPOLICY_EXIT_WAIT_MS = saved;
	}
});
