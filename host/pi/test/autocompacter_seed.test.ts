// autocompacter in Pi's real agent loop, with Pi's default settings (in
// particular keepRecentTokens 20000): the places where seed 002 and Pi's
// own behaviour meet — settings reloaded at /tree, Pi's "Already
// compacted", the cooldown, what a failure notice promises, a failed idle
// summary, every mode's output and the setup wizard, and a shutdown while a
// checkpoint is being written.

import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { fauxAssistantMessage, fauxToolCall } from "@earendil-works/pi-ai";
import { DEFAULT_COMPACTION_SETTINGS, type SessionEntry } from "@earendil-works/pi-coding-agent";
import { labels, type Pi, type PiOptions, settle, startPi } from "./harness.ts";

/** Pi's own compaction defaults, spelled out (keepRecentTokens 20000 decides "Nothing to compact"). */
const PI = { compaction: { ...DEFAULT_COMPACTION_SETTINGS } } satisfies PiOptions;

const SUMMARY = "## Goal\nFix the parser bug.\n\n## Next Steps\n1. Add the test.";
// More than Pi's default keepRecentTokens (20000), so Pi's compact() has
// something to summarise; far below the harness model's 1M window.
const PAD31 = "lorem ipsum dolor sit amet ".repeat(4600); // about 31000 tokens
const fail = () => fauxAssistantMessage("", { stopReason: "error", errorMessage: "invalid request: summary refused" });

function project(params = "") {
	return { ".pi/resetpolicy.yaml": `policy: autocompacter\n${params}` };
}

/** Waits for a condition the extension reaches asynchronously (a summary's callbacks). */
async function until(what: string, cond: () => boolean, ms = 5000): Promise<void> {
	const end = Date.now() + ms;
	while (!cond()) {
		if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
		await new Promise((r) => setTimeout(r, 20));
	}
}

/**
 * A context Pi's compact() has something to summarise in: its newest
 * keepRecentTokens (20000) end inside a later prompt, so an earlier one is
 * left to summarise.
 */
async function twoLongPrompts(pi: Pi): Promise<void> {
	pi.respond(fauxAssistantMessage("answer 1"), fauxAssistantMessage("answer 2"));
	await pi.session.prompt(`${PAD31} first`);
	await settle(pi);
	await pi.session.prompt(`${PAD31} second`);
	await settle(pi);
}

function compactions(pi: Pi): SessionEntry[] {
	return pi.persisted().filter((e) => e.type === "compaction");
}

function userEntry(pi: Pi, text: string): SessionEntry {
	const e = pi.persisted().find((x) => labels([x])[0] === `user:${text}`);
	assert.ok(e !== undefined, `no user message ${text}`);
	return e;
}

function toolResultTexts(pi: Pi): string[] {
	return pi
		.persisted()
		.filter((e) => e.type === "message" && (e.message as { role: string }).role === "toolResult")
		.map((e) => ((e as { message: { content: { text?: string }[] } }).message.content ?? []).map((b) => b.text ?? "").join(""));
}

/** Collects what the process writes to stderr while fn runs (print and JSON mode output). */
async function stderrOf(fn: () => Promise<void>): Promise<string> {
	const original = process.stderr.write.bind(process.stderr);
	let out = "";
	process.stderr.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
		out += typeof chunk === "string" ? chunk : Buffer.from(chunk).toString();
		return (original as (c: unknown, ...r: unknown[]) => boolean)(chunk, ...rest);
	}) as typeof process.stderr.write;
	try {
		await fn();
	} finally {
		process.stderr.write = original;
	}
	return out;
}

test("seed 002 'A session tree change reloads them.': /autocompacter set and reset come into force at the next /tree", async () => {
	// A long cooldown makes the kept policy state visible after the reload.
	const pi = await startPi({ ...PI, project: project("params:\n  cooldown_ms: 600000\n") });
	try {
		pi.respond(fauxAssistantMessage("hello"));
		await pi.session.prompt("hi");
		await settle(pi);
		for (const [name, value] of [["notice", 20000], ["warning", 25000], ["force", 30000]] as const) {
			await pi.session.prompt(`/autocompacter set ${name} ${value}`);
			assert.ok(pi.notices.some((n) => n.text === `Saved. ${name}_limit = ${value}`), JSON.stringify(pi.notices));
		}
		assert.match(readFileSync(join(pi.cwd, ".pi/resetpolicy.yaml"), "utf8"), /force_limit: 30000/);

		// The tree change drops the session's own copy of the limit; the
		// reloaded project settings hold it, so a 31000-token turn is forced.
		await pi.session.navigateTree(userEntry(pi, "hi").id, { summarize: false });
		pi.respond(fauxAssistantMessage("answer"), fauxAssistantMessage(SUMMARY));
		await pi.session.prompt(PAD31);
		await settle(pi);
		assert.equal(compactions(pi).length, 1, labels(pi.persisted()).join(", "));

		// reset removes the saved limits; after the next tree change the
		// default force limit (270000) is in force again: no checkpoint.
		await pi.session.prompt("/autocompacter reset");
		assert.doesNotMatch(readFileSync(join(pi.cwd, ".pi/resetpolicy.yaml"), "utf8"), /force_limit/);
		await pi.session.navigateTree(userEntry(pi, PAD31.length > 60 ? `${PAD31.slice(0, 60)}…` : PAD31).id, { summarize: false });
		pi.respond(fauxAssistantMessage("another answer"));
		await pi.session.prompt(`${PAD31} again`);
		await settle(pi);
		assert.equal(compactions(pi).length, 1, "the default limits apply after reset and a tree change");
		assert.equal(pi.requests.length, 4);
		// The reload keeps the session's policy state: the cooldown of the
		// checkpoint above still holds under the new settings.
		await pi.session.prompt("/autocompacter");
		assert.match(pi.notices.at(-1)?.text ?? "", /^No checkpoint: one was saved moments ago/, JSON.stringify(pi.notices.at(-1)));
	} finally {
		await pi.dispose();
	}
});

test("seed 002 'An existing compaction at the same boundary prevents a duplicate.': /autocompacter on a reopened session that ends in a checkpoint is already compact", async () => {
	const dir = mkdtempSync(join(tmpdir(), "resetpolicy-compacted-"));
	try {
		// A forced checkpoint of a completed response: the session ends in it.
		const params = "params:\n  notice_limit: 10000\n  warning_limit: 20000\n  force_limit: 30000\n";
		const first = await startPi({ ...PI, dir, project: project(params) });
		let file = "";
		try {
			first.respond(fauxAssistantMessage("read it"), fauxAssistantMessage(SUMMARY));
			await first.session.prompt(PAD31);
			await settle(first);
			assert.equal(labels(first.persisted()).at(-1), "compaction:summary");
			file = first.sessionFile();
		} finally {
			await first.dispose();
		}
		const again = await startPi({ ...PI, dir, project: project(params), sessionFile: file, decisionLog: true });
		try {
			await again.session.prompt("/autocompacter");
			await until("the checkpoint's result", () => again.notices.some((n) => n.text.startsWith("Already compact")));
			await settle(again);
			assert.deepEqual(again.notices.filter((n) => n.level !== "info"), [], "no failure notice");
			assert.equal(again.requests.length, 0, "no summary request and no continuation turn");
			assert.equal(compactions(again).length, 1);
			const done = again.decisions().filter((d) => d.event.event === "summary_done");
			assert.deepEqual(done.map((d) => d.rules), [["nothing_to_compact_is_already_compact"]]);
			assert.equal(done[0]!.event.error, "Already compacted");
		} finally {
			await again.dispose();
		}
	} finally {
		rmSync(dir, { recursive: true, force: true });
	}
});

test("seed 002 'This cooldown prevents repeated requests without new work.': self-compact inside the cooldown is answered and dropped, not fired at a later prompt", async () => {
	// A 1.5 s cooldown instead of 10 s keeps the test short; the later
	// prompt comes after it, where a stored request would fire.
	const pi = await startPi({ ...PI, project: project("params:\n  cooldown_ms: 1500\n") });
	try {
		pi.respond(
			fauxAssistantMessage(fauxToolCall("self-compact", {})),
			fauxAssistantMessage(SUMMARY),
			fauxAssistantMessage(fauxToolCall("self-compact", {})),
			fauxAssistantMessage("resumed, nothing new"),
		);
		await pi.session.prompt("fix the parser bug");
		await settle(pi);
		const results = toolResultTexts(pi);
		assert.equal(results.length, 2);
		assert.match(results[1]!, /^No checkpoint: one was saved moments ago and there is no new work to save, so this request was dropped\./);
		assert.equal(compactions(pi).length, 1);

		await new Promise((r) => setTimeout(r, 1600));
		pi.respond(fauxAssistantMessage("an unrelated answer"));
		await pi.session.prompt("an unrelated question");
		await settle(pi);
		assert.equal(compactions(pi).length, 1, "no checkpoint at the end of the unrelated prompt");
		assert.equal(pi.requests.length, 5, "and no extra model turn");
	} finally {
		await pi.dispose();
	}
});

test("seed 002 'Requested work ... can continue from the original context.': a failed request's notice says it was dropped, and it is not retried", async () => {
	const pi = await startPi({ ...PI, project: project() });
	try {
		pi.respond(fauxAssistantMessage(fauxToolCall("self-compact", {})), fail(), fauxAssistantMessage("going on from the original context"));
		await pi.session.prompt("fix the parser bug");
		await settle(pi);
		const errors = pi.notices.filter((n) => n.level === "error");
		assert.deepEqual(
			errors.map((n) => n.text),
			[
				"Checkpoint failed; the context is unchanged (a requested checkpoint is dropped, not retried). (Summarization failed: invalid request: summary refused) The run continues from the original context. The next automatic attempt waits 5 s: it runs at the first turn end after that.",
			],
		);
		assert.equal(labels(pi.persisted()).at(-1), "assistant:going on from the original context");

		pi.respond(fauxAssistantMessage("ok"));
		await new Promise((r) => setTimeout(r, 100));
		await pi.session.prompt("more");
		await settle(pi);
		assert.equal(pi.requests.length, 4, "the request is not retried at the next turn end");
		assert.equal(compactions(pi).length, 0);
	} finally {
		await pi.dispose();
	}
});

test("seed 002 'A summary error leaves the session context unchanged.': a failed idle /autocompacter summary cancels the compaction, so Pi writes no summary of its own", async () => {
	const pi = await startPi({ ...PI, project: project(), decisionLog: true });
	try {
		await twoLongPrompts(pi);
		// The second response would be Pi's own summary, were the compaction
		// not cancelled.
		pi.respond(fail(), fauxAssistantMessage("## Goal\nPi's own summary"));
		await pi.session.prompt("/autocompacter");
		await until("the failure notice", () => pi.notices.some((n) => n.level === "error"));
		await settle(pi);
		assert.equal(compactions(pi).length, 0, labels(pi.persisted()).join(", "));
		assert.equal(pi.requests.length, 3, "only the checkpoint's own summary was asked for");
		assert.deepEqual(
			pi.notices.filter((n) => n.level === "error").map((n) => n.text),
			[
				"Checkpoint failed; the context is unchanged (a requested checkpoint is dropped, not retried). (Summarization failed: invalid request: summary refused) The next automatic attempt waits 5 s: it runs at the first turn end after that.",
			],
		);
		const done = pi.decisions().filter((d) => d.event.event === "summary_done");
		assert.deepEqual(done.map((d) => d.rules), [["summary_error_schedules_retry_delay"]], "the policy records the failure");
		assert.equal(done[0]!.event.ok, false);
	} finally {
		await pi.dispose();
	}
});

test("seed 002 'Both commands work in TUI, print, JSON, and RPC modes.': in print mode replies reach stderr, and setup explains the set and reset forms", async () => {
	const pi = await startPi({ ...PI, project: project(), mode: "print" });
	try {
		const err = await stderrOf(async () => {
			await pi.session.prompt("/autocompacter set force 300000");
			await pi.session.prompt("/autocompacter setup");
		});
		assert.match(err, /^Saved\. force_limit = 300000$/m);
		assert.match(
			err,
			/^The setup wizard needs a dialog-capable UI \(Pi's terminal or RPC mode\)\. Here, use \/autocompacter set notice\|warning\|force TOKENS, \/autocompacter set NOTICE WARNING FORCE, or \/autocompacter reset \(the default limits\)\. Saved now: notice 180000, warning 220000, force 300000\.$/m,
		);
		assert.deepEqual(pi.notices, [], "print mode has no UI");
		assert.deepEqual(pi.dialogs, []);
	} finally {
		await pi.dispose();
	}
});

test("seed 002 'The extension adds a visible error message.': in JSON mode the error reaches stderr, stdout stays the event stream", async () => {
	const pi = await startPi({ ...PI, project: project(), mode: "json" });
	try {
		const err = await stderrOf(async () => {
			pi.respond(fauxAssistantMessage(fauxToolCall("self-compact", {})), fail(), fauxAssistantMessage("going on"));
			await pi.session.prompt("fix the parser bug");
			await settle(pi);
		});
		assert.match(err, /^Error: Checkpoint failed; the context is unchanged \(a requested checkpoint is dropped, not retried\)/m);
	} finally {
		await pi.dispose();
	}
});

test("seed 002 'The setup wizard needs a dialog-capable UI.': /autocompacter setup asks for the three limits and saves the answers", async () => {
	const pi = await startPi({ ...PI, project: project(), inputs: ["100000", "", "250000"] });
	try {
		await pi.session.prompt("/autocompacter setup");
		assert.equal(pi.dialogs.length, 3);
		assert.match(pi.dialogs[0]!, /^Notice limit \(tokens\).*\[180000\]$/);
		assert.match(pi.dialogs[1]!, /^Warning limit \(tokens\).*\[220000\]$/);
		assert.match(pi.dialogs[2]!, /^Force limit \(tokens\).*\[270000\]$/);
		assert.ok(
			pi.notices.some((n) => n.text === "Saved. notice_limit = 100000, warning_limit = 220000, force_limit = 250000"),
			JSON.stringify(pi.notices),
		);
		const yaml = readFileSync(join(pi.cwd, ".pi/resetpolicy.yaml"), "utf8");
		assert.match(yaml, /notice_limit: 100000/);
		assert.match(yaml, /force_limit: 250000/);
	} finally {
		await pi.dispose();
	}
});

test("seed 002 setup wizard: a cancelled question changes nothing", async () => {
	const pi = await startPi({ ...PI, project: project(), inputs: ["100000", undefined] });
	try {
		await pi.session.prompt("/autocompacter setup");
		assert.equal(pi.dialogs.length, 2);
		assert.ok(pi.notices.some((n) => n.text === "/autocompacter: cancelled; nothing was changed."), JSON.stringify(pi.notices));
		assert.doesNotMatch(readFileSync(join(pi.cwd, ".pi/resetpolicy.yaml"), "utf8"), /limit/);
	} finally {
		await pi.dispose();
	}
});

/** An idle /autocompacter whose summary waits for release(). */
async function checkpointInFlight(pi: Pi): Promise<() => void> {
	await twoLongPrompts(pi);
	let release = () => {};
	const gate = new Promise<void>((r) => {
		release = r;
	});
	pi.respond(
		async () => {
			await gate;
			return fauxAssistantMessage(SUMMARY);
		},
		fauxAssistantMessage("a continuation nobody asked for"),
	);
	await pi.session.prompt("/autocompacter");
	await until("the summary request", () => pi.requests.length === 3);
	return release;
}

test("seed 002 'Session replacement also cancels stale work.': Pi's teardown (abort, then session_shutdown) drops the checkpoint in flight without a failure, a notice or a continuation", async () => {
	const pi = await startPi({ ...PI, project: project() });
	try {
		const release = await checkpointInFlight(pi);
		const before = pi.notices.length;
		// As Pi replaces a session: abort (which waits for the compaction),
		// then session_shutdown.
		const aborting = pi.session.abort();
		release();
		await aborting;
		await pi.session.extensionRunner.emit({ type: "session_shutdown", reason: "new" });
		await new Promise((r) => setTimeout(r, 200));
		assert.deepEqual(pi.notices.slice(before), [], "nothing shown");
		assert.equal(compactions(pi).length, 0, "nothing written");
		assert.equal(pi.requests.length, 3, "nothing continued");
	} finally {
		await pi.dispose();
	}
});

test("seed 002 'Session replacement also cancels stale work.': a summary that succeeds after session_shutdown is not written", async () => {
	const pi = await startPi({ ...PI, project: project() });
	try {
		const release = await checkpointInFlight(pi);
		const before = pi.notices.length;
		await pi.session.extensionRunner.emit({ type: "session_shutdown", reason: "quit" });
		release();
		await pi.session.waitForIdle();
		await new Promise((r) => setTimeout(r, 200));
		assert.equal(compactions(pi).length, 0, labels(pi.persisted()).join(", "));
		assert.deepEqual(pi.notices.slice(before), [], "nothing shown");
		assert.equal(pi.requests.length, 3, "nothing continued");
	} finally {
		await pi.dispose();
	}
});
