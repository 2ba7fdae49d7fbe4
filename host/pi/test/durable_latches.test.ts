// The once-per-window latches (durable slots) follow the hidden entry they
// latch on the session branch: a /tree onto that entry, which puts the leaf
// on its parent, leaves a branch with neither, and the model gets the
// entry there.

import assert from "node:assert/strict";
import { test } from "node:test";
import { fauxAssistantMessage } from "@earendil-works/pi-ai";
import { durableStates, requestTexts, settle, startPi } from "./harness.ts";

const NEW_CONTEXT = { ".pi/resetpolicy.yaml": "policy: new_context\n" };

for (const c of [
	{
		seed: "seed 000 'After a budget warning is durable, the extension does not repeat it in that window.'",
		policy: "wipe_memory",
		// A 20000-token window is inside the warning runway from the start.
		window: 20000,
		entry: "resetpolicy/checkpoint_warning",
		text: /^user:Context checkpoint: this context window is about to be wiped/,
	},
	{
		seed: "seed 000 'The early reminder is staged once per window'",
		policy: "wipe_memory",
		// 40000 - 16384 - 24576 < 0: the reminder is due at once, the warning not.
		window: 40000,
		entry: "resetpolicy/budget_reminder",
		text: /^user:Context budget reminder/,
	},
	{
		seed: "seed 001 'The final checkpoint warning is steered earlier from the context hook (`warning.ts`) once per window'",
		policy: "new_context",
		window: 20000,
		entry: "resetpolicy/checkpoint_warning",
		text: /^user:Context checkpoint: this context window is nearly full/,
	},
]) {
	test(`${c.seed}: a /tree onto the ${c.entry.slice(12)} entry (${c.policy}) leaves no latch on the branch, and the next request carries the entry again`, async () => {
		const pi = await startPi({ contextWindow: c.window, ...(c.policy === "new_context" ? { project: NEW_CONTEXT } : {}) });
		try {
			pi.respond(fauxAssistantMessage("an answer"), fauxAssistantMessage("another answer"));
			await pi.session.prompt("keep going");
			await settle(pi);
			assert.match(requestTexts(pi.requests[0]!).at(-1)!, c.text);
			const branch = pi.session.sessionManager.getBranch();
			const hidden = branch.find((e) => e.type === "custom_message" && e.customType === c.entry);
			assert.ok(hidden !== undefined, "the entry is durable");
			const latchedAt = branch.findIndex((e) => e.type === "custom" && e.customType === "resetpolicy/state" && Object.values((e as { data: { slots: Record<string, unknown> } }).data.slots).includes("w1"));
			assert.ok(latchedAt > branch.indexOf(hidden), "the latch is on the branch after the entry it latches");

			// The user looks elsewhere in /tree first (Pi does nothing for a
			// selection of the leaf itself), then selects the hidden entry.
			const answer = branch.find((e) => e.type === "message" && e.message.role === "assistant");
			await pi.session.navigateTree(answer!.id, { summarize: false });
			await pi.session.navigateTree(hidden.id, { summarize: false });
			const onto = pi.session.sessionManager.getBranch();
			assert.ok(!onto.some((e) => e.id === hidden.id), "the leaf is on the entry's parent");
			assert.ok(
				!durableStates(onto).some((s) => Object.values(s).includes("w1")),
				`a latch is on a branch without its entry: ${JSON.stringify(durableStates(onto))}`,
			);
			await pi.session.prompt("and more");
			await settle(pi);
			assert.match(requestTexts(pi.requests[1]!).at(-1)!, c.text, "the branch without the entry gets it");
		} finally {
			await pi.dispose();
		}
	});
}
