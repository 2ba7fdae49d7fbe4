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

const WORDS = "lorem ipsum dolor sit amet "; // 27 characters, Pi and the faux provider count 4 per token

/** A prompt of about n tokens. */
function prompt(n: number, tag: string): string {
	return `${tag}: ${WORDS.repeat(Math.round((n * 4) / WORDS.length))}`;
}

test("seed 002 'It compacts at the active force limit.': in a 64k window, where Pi's own compaction (window - 16384) comes before 80%, the seed's self-retaining checkpoint runs, not Pi's summary", async () => {
	const pi = await startPi({ project: PROJECT, contextWindow: 65536, decisionLog: true });
	try {
		pi.respond(
			fauxAssistantMessage("answer 1"),
			fauxAssistantMessage("answer 2"),
			fauxAssistantMessage(SUMMARY),
			fauxAssistantMessage("an answer nobody asked for"),
		);
		await pi.session.prompt(prompt(25000, "first"));
		await settle(pi);
		// About 50500 tokens: above Pi's 49152, under 80% of the window (52428).
		await pi.session.prompt(prompt(25200, "second"));
		await settle(pi);
		const cps = compactions(pi);
		assert.equal(cps.length, 1, labels(pi.persisted()).join(", "));
		const cp = cps[0] as SessionEntry & { firstKeptEntryId: string; summary: string };
		assert.equal(cp.firstKeptEntryId, cp.id, "self-retaining: the seed's checkpoint, not Pi's summary that keeps recent turns");
		assert.equal(cp.summary, SUMMARY);
		const rules = pi.decisions().flatMap((d) => d.rules);
		assert.ok(rules.includes("force_checkpoint_at_active_limit"), rules.join(", "));
		assert.equal(pi.requests.length, 3, "two answers and the checkpoint's summary; no continuation of a completed response");
		assert.ok(
			pi.statuses.includes("autocompacter: checkpoint at 49152 tokens, the host compaction threshold (window 65536 - reserve 16384), which is under 52428 (80% of the window)"),
			JSON.stringify(pi.statuses),
		);
	} finally {
		await pi.dispose();
	}
});

test("seed 002 'adds a self-retaining Pi compaction entry': Pi's threshold compaction while the force waits in the cooldown writes the seed's checkpoint, not Pi's summary", async () => {
	const pi = await startPi({ project: PROJECT, contextWindow: 65536, decisionLog: true });
	try {
		pi.respond(
			fauxAssistantMessage(fauxToolCall("self-compact", {})),
			fauxAssistantMessage(SUMMARY),
			fauxAssistantMessage("resumed"),
			fauxAssistantMessage("read it"),
			fauxAssistantMessage(SUMMARY),
		);
		await pi.session.prompt("fix the parser bug");
		await settle(pi);
		assert.equal(compactions(pi).length, 1);
		// Inside the 10 s cooldown the force does not run; Pi's threshold does.
		await pi.session.prompt(prompt(50500, "the log"));
		await settle(pi);
		const cps = compactions(pi) as (SessionEntry & { firstKeptEntryId: string; summary: string })[];
		assert.equal(cps.length, 2, labels(pi.persisted()).join(", "));
		assert.equal(cps[1]!.firstKeptEntryId, cps[1]!.id, "self-retaining");
		assert.equal(cps[1]!.summary, SUMMARY);
		const rules = pi.decisions().flatMap((d) => d.rules);
		assert.ok(rules.includes("host_compaction_writes_the_checkpoint"), rules.join(", "));
	} finally {
		await pi.dispose();
	}
});

for (const mode of ["print", "json"] as const) {
	test(`seed 002 'Both commands work in TUI, print, JSON, and RPC modes.': in ${mode} mode /autocompacter has written its checkpoint when Pi's prompt returns, before Pi exits`, async () => {
		const pi = await startPi({ project: PROJECT, mode });
		try {
			pi.respond(fauxAssistantMessage("answer 1"), fauxAssistantMessage("answer 2"));
			await pi.session.prompt(prompt(31000, "first"));
			await settle(pi);
			await pi.session.prompt(prompt(31000, "second"));
			await settle(pi);
			pi.respond(fauxAssistantMessage(SUMMARY), fauxAssistantMessage("resumed from the checkpoint"));
			await pi.session.prompt("/autocompacter");
			// What Pi's print mode does next is dispose the runtime: nothing
			// may still be in flight.
			const cps = compactions(pi) as (SessionEntry & { firstKeptEntryId: string })[];
			assert.equal(cps.length, 1, labels(pi.persisted()).join(", "));
			assert.equal(cps[0]!.firstKeptEntryId, cps[0]!.id);
			assert.equal(labels(pi.persisted()).at(-1), "assistant:resumed from the checkpoint", "the requested checkpoint's next turn ran too");
		} finally {
			await pi.dispose();
		}
	});
}

/** Waits for a condition the extension reaches asynchronously (a summary's callbacks). */
async function until(what: string, cond: () => boolean, ms = 5000): Promise<void> {
	const end = Date.now() + ms;
	while (!cond()) {
		if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
		await new Promise((r) => setTimeout(r, 20));
	}
}

for (const [kind, setup] of [
	["a small context (within Pi's keepRecentTokens)", async (pi: Pi) => {
		pi.respond(fauxAssistantMessage("hello"));
		await pi.session.prompt("hi");
		await settle(pi);
	}],
	["a context that is one long turn", async (pi: Pi) => {
		pi.respond(fauxAssistantMessage("read it all"));
		await pi.session.prompt(prompt(31000, "one long prompt"));
		await settle(pi);
	}],
] as const) {
	test(`seed 002 'the user runs /autocompacter ... The extension adds a self-retaining Pi compaction entry.': an idle /autocompacter on ${kind}, where Pi's compact() finds nothing to cut, still checkpoints`, async () => {
		const pi = await startPi({ project: PROJECT, decisionLog: true });
		try {
			await setup(pi);
			pi.respond(fauxAssistantMessage("where the work stands: parser next"), fauxAssistantMessage(SUMMARY), fauxAssistantMessage("resumed from the checkpoint"));
			await pi.session.prompt("/autocompacter");
			await until("the checkpoint", () => compactions(pi).length === 1 && labels(pi.persisted()).at(-1) === "assistant:resumed from the checkpoint");
			await settle(pi);
			const cp = compactions(pi)[0] as SessionEntry & { firstKeptEntryId: string; summary: string };
			assert.equal(cp.firstKeptEntryId, cp.id, "self-retaining");
			assert.equal(cp.summary, SUMMARY);
			assert.ok(!pi.notices.some((n) => n.text.startsWith("Already compact")), JSON.stringify(pi.notices));
			assert.ok(pi.notices.some((n) => n.text.startsWith("Pi's own compaction found nothing it could cut")), JSON.stringify(pi.notices));
			assert.deepEqual(pi.notices.filter((n) => n.level !== "info"), []);
			assert.equal(pi.requests.length, 4, "the one short turn, its checkpoint's summary, the resumed turn");
		} finally {
			await pi.dispose();
		}
	});
}
