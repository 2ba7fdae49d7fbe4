// autocompacter beside Pi's own compaction, in Pi's real loop with Pi's
// default settings (automatic compaction on, reserve 16384,
// keepRecentTokens 20000, retries on): the force limit against Pi's
// threshold, overflow recovery and /compact, the retry delay and pause at
// Pi's threshold, the cooldown's new work, the summary's whole tool
// results, a failed request after a final answer, the idle command and the
// nonterminal modes, as the user sees them.

import assert from "node:assert/strict";
import { join } from "node:path";
import { test } from "node:test";
import { fauxAssistantMessage, fauxToolCall, type TranscriptContext } from "@earendil-works/pi-ai";
import { type SessionEntry } from "@earendil-works/pi-coding-agent";
import { extensionPath, labels, type Pi, requestTexts, settle, startPi } from "./harness.ts";

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

/** A failed summary, as a provider refuses it. */
const fail = () => fauxAssistantMessage("", { stopReason: "error", errorMessage: "invalid request: summary refused" });

/** The text of a provider request, all messages. */
function requestChars(ctx: TranscriptContext): number {
	return requestTexts(ctx).join("").length;
}

/**
 * A model with a window: a request larger than it is refused the way
 * Anthropic refuses one ("prompt is too long"), else `answer` answers.
 */
function windowed(windowTokens: number, answer: string) {
	return (ctx: TranscriptContext) =>
		requestChars(ctx) / 4 > windowTokens
			? fauxAssistantMessage("", { stopReason: "error", errorMessage: `prompt is too long: ${Math.round(requestChars(ctx) / 4)} tokens > ${windowTokens} maximum` })
			: fauxAssistantMessage(answer);
}

function selfRetaining(e: SessionEntry): boolean {
	return (e as SessionEntry & { firstKeptEntryId: string }).firstKeptEntryId === e.id;
}

test("seed 002 'The active force limit is the smallest of these values': in a 64k window the checkpoint comes at 80% (51200), Pi's threshold below it (64000 - 16384) is cancelled, and the status line says 51200", async () => {
	const pi = await startPi({ project: PROJECT, contextWindow: 64000, decisionLog: true });
	try {
		pi.respond(fauxAssistantMessage("answer 1"), fauxAssistantMessage("answer 2"), fauxAssistantMessage("noted the warning"));
		await pi.session.prompt(prompt(25000, "first"));
		await settle(pi);
		// About 49900 tokens: above Pi's 47616, under the seed's 51200.
		await pi.session.prompt(prompt(24800, "second"));
		await settle(pi);
		assert.equal(compactions(pi).length, 0, labels(pi.persisted()).join(", "));
		const rules = pi.decisions().flatMap((d) => d.rules);
		assert.ok(rules.includes("threshold_compaction_below_force_limit_cancelled"), rules.join(", "));
		assert.ok(!rules.includes("force_checkpoint_at_active_limit"), rules.join(", "));
		assert.equal(pi.statuses.filter((s) => s !== undefined).at(-1), "autocompacter: checkpoint at 51200 tokens");
		pi.respond(fauxAssistantMessage("answer 3"), fauxAssistantMessage(SUMMARY));
		await pi.session.prompt(prompt(1500, "third"));
		await settle(pi);
		const cps = compactions(pi);
		assert.equal(cps.length, 1, labels(pi.persisted()).join(", "));
		assert.ok(selfRetaining(cps[0]!), "the seed's checkpoint, not Pi's summary");
	} finally {
		await pi.dispose();
	}
});

test("seed 002 'The active force limit is the smallest of these values': the status line follows /autocompacter set force at once", async () => {
	const pi = await startPi({ project: PROJECT, contextWindow: 64000 });
	try {
		assert.equal(pi.statuses.filter((s) => s !== undefined).at(-1), "autocompacter: checkpoint at 51200 tokens");
		await pi.session.prompt("/autocompacter set 10000 20000 30000");
		assert.equal(pi.statuses.filter((s) => s !== undefined).at(-1), "autocompacter: checkpoint at 30000 tokens");
	} finally {
		await pi.dispose();
	}
});

test("seed 002 'Three failures pause automatic attempts.' / 'The delay applies when a later turn reaches its boundary.': in a 64k window with a failing summariser, Pi's threshold compaction before the retry time is Pi's own, said once; no burst of checkpoint attempts", async () => {
	const pi = await startPi({ project: PROJECT, contextWindow: 64000, decisionLog: true });
	try {
		pi.respond(fauxAssistantMessage("answer 1"), fauxAssistantMessage("answer 2"), fail(), ...Array.from({ length: 9 }, fail));
		await pi.session.prompt(prompt(25000, "first"));
		await settle(pi);
		await pi.session.prompt(prompt(27000, "second"));
		await settle(pi);
		const errors = pi.notices.filter((n) => n.level === "error");
		assert.equal(errors.length, 1, JSON.stringify(pi.notices));
		assert.ok(
			pi.notices.some((n) => n.text.startsWith("Pi's own compaction runs here") && n.text.includes("retry delay")),
			JSON.stringify(pi.notices),
		);
		const checkpoints = pi.decisions().flatMap((d) => d.effects).filter((e) => e.effect === "checkpoint");
		assert.equal(checkpoints.length, 1, "one automatic attempt: the force at the turn end");
	} finally {
		await pi.dispose();
	}
});

test("seed 002 'A summary error leaves the session context unchanged.': an overflowing prompt recovers through Pi's own compaction while autocompacter is on (a whole-context summary would overflow too)", async () => {
	const pi = await startPi({ project: PROJECT, contextWindow: 200000, decisionLog: true });
	try {
		pi.respond(windowed(200000, "answer 1"));
		await pi.session.prompt(prompt(100000, "first"));
		await settle(pi);
		// The answer (refused: 210k), Pi's summary of the older part and of the
		// split turn's prefix, the retried answer.
		pi.respond(windowed(200000, "answer 2"), windowed(200000, SUMMARY), windowed(200000, SUMMARY), windowed(200000, "answer 2 after recovery"));
		await pi.session.prompt(prompt(110000, "second"));
		await settle(pi);
		assert.equal(labels(pi.persisted()).at(-1), "assistant:answer 2 after recovery", labels(pi.persisted()).join(", "));
		const cps = compactions(pi);
		assert.equal(cps.length, 1);
		assert.ok(!selfRetaining(cps[0]!), "Pi's overflow recovery keeps the recent part");
		const rules = pi.decisions().flatMap((d) => d.rules);
		assert.ok(!rules.some((r) => r.includes("writes_the_checkpoint")), rules.join(", "));
	} finally {
		await pi.dispose();
	}
});

test("seed 002 'the user runs /autocompacter' is the seed's checkpoint; Pi's /compact [instructions] stays Pi's: the instructions reach the summariser and Pi keeps its recent turns", async () => {
	const pi = await startPi({ project: PROJECT });
	try {
		pi.respond(fauxAssistantMessage("answer 1"), fauxAssistantMessage("answer 2"));
		await pi.session.prompt(prompt(31000, "first"));
		await settle(pi);
		await pi.session.prompt(prompt(31000, "second"));
		await settle(pi);
		pi.respond(fauxAssistantMessage(SUMMARY));
		await pi.session.compact("focus on the parser");
		const cps = compactions(pi);
		assert.equal(cps.length, 1);
		assert.ok(!selfRetaining(cps[0]!), "Pi's own compaction");
		assert.ok(requestTexts(pi.requests.at(-1)!).join("").includes("focus on the parser"), "the instructions reach the summariser");
	} finally {
		await pi.dispose();
	}
});

test("seed 002 'This cooldown prevents repeated requests without new work.': the reply to a dropped self-compact is no new work, so the agent's immediate retry is dropped too", async () => {
	const pi = await startPi({ project: PROJECT });
	try {
		pi.respond(
			fauxAssistantMessage(fauxToolCall("self-compact", {})),
			fauxAssistantMessage(SUMMARY),
			fauxAssistantMessage(fauxToolCall("self-compact", {})),
			fauxAssistantMessage(fauxToolCall("self-compact", {})),
			fauxAssistantMessage(SUMMARY),
			fauxAssistantMessage("done"),
		);
		await pi.session.prompt("fix the parser bug");
		await settle(pi);
		assert.equal(compactions(pi).length, 1, labels(pi.persisted()).join(", "));
		const results = toolResultTexts(pi);
		assert.match(results.at(-1)!, /^No checkpoint: one was saved moments ago/);
	} finally {
		await pi.dispose();
	}
});

test("seed 002 'The extension summarizes the complete context preview. This preview includes the turn's tool results.': the summariser reads a 48,000-character tool result whole", async () => {
	const pi = await startPi({ project: PROJECT, extensions: [READ_TOOL] });
	try {
		pi.respond(
			fauxAssistantMessage(fauxToolCall("read", { path: "src/parser.go" })),
			fauxAssistantMessage(fauxToolCall("self-compact", {})),
			fauxAssistantMessage(SUMMARY),
			fauxAssistantMessage("resumed"),
		);
		await pi.session.prompt("fix the parser bug");
		await settle(pi);
		assert.equal(compactions(pi).length, 1, labels(pi.persisted()).join(", "));
		const summaryRequest = requestTexts(pi.requests[2]!).join("");
		assert.ok(summaryRequest.includes("the last line: parser.go:412 returns nil"), "the end of the tool result reaches the summariser");
	} finally {
		await pi.dispose();
	}
});

test("seed 002 'Requested work and turns with pending work can continue from the original context.': a failed /autocompacter after a final answer says the request was dropped and continues nothing", async () => {
	const pi = await startPi({ project: PROJECT });
	try {
		pi.respond(
			() => {
				void pi.session.prompt("/autocompacter");
				return fauxAssistantMessage("the final answer");
			},
			fail(),
		);
		await pi.session.prompt("what is in the parser?");
		await settle(pi);
		const errors = pi.notices.filter((n) => n.level === "error");
		assert.equal(errors.length, 1, JSON.stringify(pi.notices));
		assert.ok(!errors[0]!.text.includes("continues"), errors[0]!.text);
		assert.equal(pi.requests.length, 2, "the answer and the failed summary; no continuation");
		assert.match(errors[0]!.text, /^Checkpoint failed; the context is unchanged \(a requested checkpoint is dropped, not retried\)/);
		assert.equal(labels(pi.persisted()).at(-1), "assistant:the final answer");
	} finally {
		await pi.dispose();
	}
});

test("seed 002 'An aborted or failed turn cancels a queued tool request.': the turn a /autocompacter sent during a run waits for fails; the request is dropped with a notice and does not fire at the next, unrelated prompt", async () => {
	const pi = await startPi({ project: PROJECT });
	try {
		pi.respond(() => {
			void pi.session.prompt("/autocompacter");
			return fauxAssistantMessage("", { stopReason: "error", errorMessage: "invalid request: the model refused" });
		});
		await pi.session.prompt("hi");
		await settle(pi);
		assert.ok(pi.notices.some((n) => n.text.startsWith("Checkpoint request dropped")), JSON.stringify(pi.notices));
		pi.respond(fauxAssistantMessage("the parser is in src/parser.go"), fauxAssistantMessage(SUMMARY), fauxAssistantMessage("a continuation nobody asked for"));
		await pi.session.prompt("where is the parser?");
		await settle(pi);
		assert.equal(compactions(pi).length, 0, labels(pi.persisted()).join(", "));
		assert.equal(pi.requests.length, 2, "the failed turn, the answer; no summary, no continuation");
		assert.equal(labels(pi.persisted()).at(-1), "assistant:the parser is in src/parser.go");
	} finally {
		await pi.dispose();
	}
});

test("seed 002 'This cooldown prevents repeated requests without new work.': an idle /autocompacter inside the 10 s after a checkpoint, with a question and its answer since, is taken", async () => {
	const pi = await startPi({ project: PROJECT });
	try {
		pi.respond(fauxAssistantMessage(fauxToolCall("self-compact", {})), fauxAssistantMessage(SUMMARY), fauxAssistantMessage("resumed"));
		await pi.session.prompt("fix the parser bug");
		await settle(pi);
		assert.equal(compactions(pi).length, 1);
		pi.respond(fauxAssistantMessage("answer 2"));
		await pi.session.prompt("and the lexer?");
		await settle(pi);
		pi.respond(fauxAssistantMessage(SUMMARY), fauxAssistantMessage("resumed again"));
		await pi.session.prompt("/autocompacter");
		await until("the second checkpoint", () => compactions(pi).length === 2 && labels(pi.persisted()).at(-1) === "assistant:resumed again");
		await settle(pi);
		assert.equal(pi.requests.length, 6, "3 for the first checkpoint, the answer, the summary, the resumed turn");
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
	test(`seed 002 'The extension summarizes the complete context preview ... A requested checkpoint starts the next model turn.': an idle /autocompacter on ${kind}, where Pi's compact() finds nothing to cut, summarises the context at once; the next model turn starts from the checkpoint`, async () => {
		const pi = await startPi({ project: PROJECT, decisionLog: true });
		try {
			await setup(pi);
			const before = labels(pi.persisted());
			const asked = pi.requests.length;
			const context = pi.session.getContextUsage()?.tokens ?? 0;
			pi.respond(fauxAssistantMessage(SUMMARY), fauxAssistantMessage("resumed from the checkpoint"));
			await pi.session.prompt("/autocompacter");
			await until("the checkpoint", () => compactions(pi).length === 1 && labels(pi.persisted()).at(-1) === "assistant:resumed from the checkpoint");
			await settle(pi);
			const cp = compactions(pi)[0] as SessionEntry & { firstKeptEntryId: string; summary: string };
			assert.equal(cp.firstKeptEntryId, cp.id, "self-retaining");
			assert.equal(cp.summary, SUMMARY);
			const counted = (cp as { tokensBefore: number }).tokensBefore;
			assert.ok(Math.abs(counted - context) < 1000, `tokensBefore ${counted} counts the context (${context}), not the padding`);
			// No model turn before the checkpoint: no reply, no tool, only
			// hidden entries between the context and the compaction.
			const between = labels(pi.persisted()).slice(before.length, labels(pi.persisted()).indexOf(labels([cp])[0]!));
			assert.deepEqual(between.filter((l) => !l.startsWith("custom")), [], between.join(", "));
			const sent = pi.requests.slice(asked);
			assert.equal(sent.length, 2, "the checkpoint's summary and the next model turn, nothing before them");
			assert.match(requestTexts(sent[0]!).join("\n"), /<conversation>/, "the first request is the summary");
			assert.doesNotMatch(requestTexts(sent[0]!).join("\n"), /padding/i, "the summary reads the context, not the padding");
			assert.ok(requestTexts(sent[1]!).every((t) => t.length < 10_000), "the next turn starts from the checkpoint alone");
			assert.ok(!pi.notices.some((n) => n.text.startsWith("Already compact") || n.text.startsWith("Pi's own compaction found nothing")), JSON.stringify(pi.notices));
			assert.deepEqual(pi.notices.filter((n) => n.level !== "info"), []);
		} finally {
			await pi.dispose();
		}
	});
}

test("seed 002 'A summary error leaves the session context unchanged.': a failed summary of an idle /autocompacter where Pi's compact() finds nothing to cut writes nothing to the session", async () => {
	const pi = await startPi({ project: PROJECT });
	try {
		pi.respond(fauxAssistantMessage("hello"));
		await pi.session.prompt("hi");
		await settle(pi);
		const before = labels(pi.persisted());
		pi.respond(fail());
		await pi.session.prompt("/autocompacter");
		await until("the failure notice", () => pi.notices.some((n) => n.level === "error"));
		await settle(pi);
		assert.deepEqual(labels(pi.persisted()), before, "no padding, no compaction");
		assert.equal(pi.requests.length, 2, "hello and the failed summary; no model turn");
		pi.respond(fauxAssistantMessage("the parser is in src/parser.go"));
		await pi.session.prompt("where is the parser?");
		await settle(pi);
		assert.ok(requestTexts(pi.requests[2]!).every((t) => t.length < 10_000), "the next request carries no padding");
	} finally {
		await pi.dispose();
	}
});

test("seed 002 'A requested checkpoint starts the next model turn.': past the padding's bound (keepRecentTokens over 250,000) an idle /autocompacter Pi finds nothing to cut in is taken after one short model turn, and says so", async () => {
	// keepRecentTokens 300000 departs from Pi's default: the padding it
	// would need is past the extension's 1 MB bound.
	const pi = await startPi({ project: PROJECT, compaction: { keepRecentTokens: 300_000 } });
	try {
		pi.respond(fauxAssistantMessage("hello"));
		await pi.session.prompt("hi");
		await settle(pi);
		pi.respond(fauxAssistantMessage("where the work stands: parser next"), fauxAssistantMessage(SUMMARY), fauxAssistantMessage("resumed from the checkpoint"));
		await pi.session.prompt("/autocompacter");
		await until("the checkpoint", () => compactions(pi).length === 1 && labels(pi.persisted()).at(-1) === "assistant:resumed from the checkpoint");
		await settle(pi);
		assert.ok(pi.notices.some((n) => n.text.startsWith("Pi's own compaction found nothing it could cut")), JSON.stringify(pi.notices));
		assert.ok(!labels(pi.persisted()).some((l) => l.includes("checkpoint-padding")), labels(pi.persisted()).join(", "));
		assert.equal(pi.requests.length, 4, "hello, the short turn, the summary, the resumed turn");
	} finally {
		await pi.dispose();
	}
});
