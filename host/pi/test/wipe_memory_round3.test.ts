// wipe_memory in Pi's real loop with Pi's default settings (automatic
// compaction on, reserve 16384, retries on): seed 000's notices and budget
// as the user and the model see them.

import assert from "node:assert/strict";
import { test } from "node:test";
import { fauxAssistantMessage, fauxToolCall } from "@earendil-works/pi-ai";
import { labels, requestTexts, settle, startPi } from "./harness.ts";

const TRANSIENT = "503 Service Unavailable: overloaded";

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
