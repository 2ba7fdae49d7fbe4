// autocompacter in Pi's real loop with Pi's default settings (automatic
// compaction on, reserve 16384, keepRecentTokens 20000, retries on): seed
// 002's cooldown, idle command, force limit and nonterminal modes as the
// user sees them.

import assert from "node:assert/strict";
import { join } from "node:path";
import { test } from "node:test";
import { fauxAssistantMessage, fauxToolCall } from "@earendil-works/pi-ai";
import { type SessionEntry } from "@earendil-works/pi-coding-agent";
import { extensionPath, labels, type Pi, settle, startPi } from "./harness.ts";

const SUMMARY = "## Goal\nFix the parser bug.\n\n## Next Steps\n1. Add the test.";
const PROJECT = { ".pi/resetpolicy.yaml": "policy: autocompacter\n" };
const READ_TOOL = join(extensionPath, "test", "fixtures", "read-tool.ts");

function compactions(pi: Pi): SessionEntry[] {
	return pi.persisted().filter((e) => e.type === "compaction");
}

function toolResultTexts(pi: Pi): string[] {
	return pi
		.persisted()
		.filter((e) => e.type === "message" && (e.message as { role: string }).role === "toolResult")
		.map((e) => ((e as { message: { content: { text?: string }[] } }).message.content ?? []).map((b) => b.text ?? "").join(""));
}

test("seed 002 'This cooldown prevents repeated requests without new work.': a self-compact right after a checkpoint whose resumed turn read a 12k-token file is taken", async () => {
	const pi = await startPi({ project: PROJECT, extensions: [READ_TOOL] });
	try {
		pi.respond(
			fauxAssistantMessage(fauxToolCall("self-compact", {})),
			fauxAssistantMessage(SUMMARY),
			fauxAssistantMessage(fauxToolCall("read", { path: "src/parser.go" })),
			fauxAssistantMessage(fauxToolCall("self-compact", {})),
			fauxAssistantMessage(SUMMARY),
			fauxAssistantMessage("resumed from the second checkpoint"),
		);
		await pi.session.prompt("fix the parser bug");
		await settle(pi);
		const results = toolResultTexts(pi).filter((t) => !t.startsWith("lorem"));
		assert.equal(results.length, 2, JSON.stringify(results));
		assert.match(results[1]!, /^Checkpoint requested/, "new work lifts the cooldown");
		assert.equal(compactions(pi).length, 2, labels(pi.persisted()).join(", "));
	} finally {
		await pi.dispose();
	}
});

test("seed 002 'This cooldown prevents repeated requests without new work.': a self-compact right after a checkpoint and a new user prompt is taken", async () => {
	const pi = await startPi({ project: PROJECT });
	try {
		pi.respond(
			fauxAssistantMessage(fauxToolCall("self-compact", {})),
			fauxAssistantMessage(SUMMARY),
			fauxAssistantMessage("resumed"),
			fauxAssistantMessage(fauxToolCall("self-compact", {})),
			fauxAssistantMessage(SUMMARY),
			fauxAssistantMessage("resumed again"),
		);
		await pi.session.prompt("fix the parser bug");
		await settle(pi);
		assert.equal(compactions(pi).length, 1);
		await pi.session.prompt(`here is the log: ${"lorem ipsum dolor sit amet ".repeat(1780)}`);
		await settle(pi);
		const results = toolResultTexts(pi);
		assert.match(results.at(-1)!, /^Checkpoint requested/, "the user's new prompt lifts the cooldown");
		assert.equal(compactions(pi).length, 2, labels(pi.persisted()).join(", "));
	} finally {
		await pi.dispose();
	}
});
