// new_context when Pi finds nothing to compact: a history since the last
// reset that one message fills beyond the model's window.

import assert from "node:assert/strict";
import { test } from "node:test";
import { fauxAssistantMessage } from "@earendil-works/pi-ai";
import { labels, settle, startPi } from "./harness.ts";

const PROJECT = { ".pi/resetpolicy.yaml": "policy: new_context\n" };
const OVERFLOW = "prompt is too long: 60412 tokens > 40000 maximum";
const BIG = "lorem ipsum dolor sit amet ".repeat(8900); // about 60000 tokens

test("seed 001 'an uncompactable session produces a warning and waits for a new prompt': after a switch from a 200000-token model to a 40000-token one, a history of one 60000-token message overflows every prompt, Pi finds nothing to compact, and the user is warned once per prompt", async () => {
	const pi = await startPi({ project: PROJECT, contextWindow: 200000, moreModels: [{ id: "faux-small", contextWindow: 40000 }] });
	try {
		pi.respond(fauxAssistantMessage("read it"));
		await pi.session.prompt(`read this: ${BIG}`);
		await settle(pi);
		await pi.session.setModel(pi.faux.getModel("faux-small")!);
		pi.respond(fauxAssistantMessage("", { stopReason: "error", errorMessage: OVERFLOW }));
		await pi.session.prompt("next step");
		await settle(pi);
		assert.equal(pi.requests.length, 2, "nothing is sent again");
		const warned = () => pi.notices.filter((n) => n.level === "warning" && n.text.includes("nothing to compact"));
		assert.equal(warned().length, 1, JSON.stringify(pi.notices));
		assert.ok(!labels(pi.persisted()).some((l) => l.startsWith("compaction")), "nothing was reset");

		// It waits for a new prompt, which overflows and is warned about again.
		pi.respond(fauxAssistantMessage("", { stopReason: "error", errorMessage: OVERFLOW }));
		await pi.session.prompt("and now?");
		await settle(pi);
		assert.equal(pi.requests.length, 3);
		assert.equal(warned().length, 2, JSON.stringify(pi.notices));
	} finally {
		await pi.dispose();
	}
});
