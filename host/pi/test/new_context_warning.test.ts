// new_context in Pi's real loop with Pi's default settings (retries on):
// seed 001's once-per-window checkpoint warning as the model receives it.

import assert from "node:assert/strict";
import { test } from "node:test";
import { fauxAssistantMessage } from "@earendil-works/pi-ai";
import { labels, type Pi, requestTexts, settle, startPi } from "./harness.ts";

const PROJECT = { ".pi/resetpolicy.yaml": "policy: new_context\n" };

/** Per request: whether the warning was added to it (the last message; a delivered one stays in the history above). */
function warned(pi: Pi): boolean[] {
	return pi.requests.map((r) => requestTexts(r).at(-1)!.includes("Context checkpoint: this context window is nearly full"));
}

function durableWarnings(pi: Pi): number {
	return labels(pi.persisted()).filter((l) => l === "custom_message:resetpolicy/checkpoint_warning").length;
}

test("seed 001 'steered earlier from the context hook ... once per window': a request that fails with a 503 does not use the warning up; Pi's retry carries it", async () => {
	// A 20000-token window is inside the warning runway from the start.
	const pi = await startPi({ project: PROJECT, contextWindow: 20000 });
	try {
		pi.respond(
			fauxAssistantMessage("", { stopReason: "error", errorMessage: "503 Service Unavailable: overloaded" }),
			fauxAssistantMessage("an answer"),
			fauxAssistantMessage("a second answer"),
		);
		await pi.session.prompt("keep going");
		await settle(pi);
		assert.equal(pi.requests.length, 2, "Pi retried the failed request");
		assert.deepEqual(warned(pi), [true, true], "the retried request carries the warning");
		assert.equal(durableWarnings(pi), 1, labels(pi.persisted()).join(", "));

		// Delivered once: the window's next request carries none.
		await pi.session.prompt("and more");
		await settle(pi);
		assert.deepEqual(warned(pi), [true, true, false]);
	} finally {
		await pi.dispose();
	}
});

test("seed 001 'once per window': an aborted request does not use the warning up; the next prompt carries it", async () => {
	const pi = await startPi({ project: PROJECT, contextWindow: 20000 });
	try {
		pi.respond(
			(_ctx, options) =>
				new Promise((resolve) => {
					const done = () => resolve(fauxAssistantMessage("", { stopReason: "aborted" }));
					if (options?.signal?.aborted) done();
					else options?.signal?.addEventListener("abort", done);
				}),
			fauxAssistantMessage("an answer"),
			fauxAssistantMessage("a second answer"),
		);
		const first = pi.session.prompt("keep going");
		while (pi.requests.length < 1) await new Promise((r) => setTimeout(r, 10));
		await pi.session.abort();
		await first;
		await settle(pi);
		assert.equal(pi.requests.length, 1);
		await pi.session.prompt("try again");
		await settle(pi);
		assert.deepEqual(warned(pi), [true, true], "the prompt after the abort carries the warning");
		await pi.session.prompt("and more");
		await settle(pi);
		assert.deepEqual(warned(pi), [true, true, false], "and then it is used up");
		assert.equal(durableWarnings(pi), 1, labels(pi.persisted()).join(", "));
	} finally {
		await pi.dispose();
	}
});
