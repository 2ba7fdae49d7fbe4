// wipe_memory and new_context through the real `pi` CLI in print (-p) and
// JSON (--mode json) mode, which exit and dispose the runtime as soon as
// the last prompt returns: what a close-out promised happens before Pi
// exits.

import assert from "node:assert/strict";
import { test } from "node:test";
import { type CliRun, records, runPi } from "./cli.ts";
import { BOUNDARY, contiguous, labels } from "./harness.ts";

const OVERFLOW = "prompt is too long: 213462 tokens > 200000 maximum";
const NEW_CONTEXT = { ".pi/resetpolicy.yaml": "policy: new_context\n" };
const PAD = "lorem ipsum dolor sit amet ".repeat(1700); // about 11500 tokens
// Three such prompts: more history than Pi's default keepRecentTokens
// (20000), so Pi finds something to compact.
const HISTORY = [0, 1, 2].map((i) => `part ${i}: ${PAD}`);

function aborted(run: CliRun): boolean {
	return run.entries.some((e) => e.type === "message" && (e.message as { stopReason?: string }).stopReason === "aborted");
}

for (const mode of ["print", "json"] as const) {
	test(`seed 000 '/wipe-memory ... when idle it starts one ordinary model turn ... commits at agent_before_settle ... stops the run': in ${mode} mode the close-out turn runs and the window is wiped before Pi exits`, async () => {
		const run = await runPi(mode, ["do some work", "/wipe-memory"], {
			responses: [{ text: "some work done" }, { text: "notes saved" }],
		});
		assert.equal(run.code, 0, run.stderr);
		const got = labels(run.entries);
		assert.equal(run.requests.length, 2, `the close-out request reached the provider: ${JSON.stringify(run.requests)}`);
		assert.match(run.requests[1]!.at(-1)!, /Context checkpoint: this context window is about to be wiped/);
		assert.ok(!aborted(run), `Pi's exit aborted the close-out: ${got.join(", ")}`);
		assert.ok(contiguous(got, BOUNDARY), `no reset boundary: ${got.join(", ")}`);
		assert.equal(got.at(-1), BOUNDARY.at(-1), "the run stopped at the boundary: no turn in the fresh window");
		assert.match(run.stderr, /Closing out: the agent is asked to save its notes/);
		if (mode === "json") assert.ok(records(run.stdout).some((r) => r.type === "compaction_end" || r.type === "entry_appended"));
	});

	test(`seed 001 'agent_settled | If idle and an explicit request is pending, create one identified attempt and request ctx.compact': in ${mode} mode a new_context call resets the window and continues before Pi exits`, async () => {
		const run = await runPi(mode, HISTORY, {
			project: NEW_CONTEXT,
			responses: [{ text: "noted 0" }, { text: "noted 1" }, { calls: [{ name: "new_context" }] }, { text: "continuing in the fresh window" }],
		});
		assert.equal(run.code, 0, run.stderr);
		const got = labels(run.entries);
		assert.ok(got.includes("compaction:reset"), `no reset: ${got.join(", ")}\n${run.stderr}`);
		assert.ok(!/compact(ion)? (failed|cancelled)|aborted/i.test(run.stderr), run.stderr);
		assert.equal(run.requests.length, 4, `${run.requests.length} requests`);
		const fresh = run.requests[3]!;
		assert.ok(
			fresh.some((t) => t.includes("fresh context window")),
			`the continuation runs in the fresh window: ${fresh.map((t) => t.slice(0, 80)).join(" | ")}`,
		);
		assert.ok(!fresh.some((t) => t.startsWith("user:part")), "the old history left the window");
		if (mode === "print") assert.equal(run.stdout.trim(), "continuing in the fresh window");
	});
}

for (const mode of ["print", "json"] as const) {
	test(`seed 000 'Manual overflow clears and stops without retry' / 'real queued user input is answered before stopping': in ${mode} mode a /wipe-memory whose turn overflows with a follow-up queued is not sent again, and the follow-up is answered in the fresh window`, async () => {
		const run = await runPi(mode, ["do some work", "/wipe-memory"], {
			responses: [
				{ text: "work done" },
				// The user queues a follow-up while the close-out request is in flight.
				{ followUp: "and what about the tests?", error: OVERFLOW },
				{ text: "picked up from the notes" },
				{ text: "the tests pass" },
			],
		});
		assert.equal(run.code, 0, run.stderr);
		const got = labels(run.entries);
		const closeOut = run.requests[1]!;
		assert.match(closeOut.at(-1)!, /Context checkpoint/);
		assert.ok(
			run.requests.slice(2).every((r) => JSON.stringify(r) !== JSON.stringify(closeOut)),
			`the overflowed request was sent again unchanged: ${run.requests.length} requests`,
		);
		const followUp = run.requests.find((r) => r.includes("user:and what about the tests?"));
		assert.ok(followUp !== undefined, "the follow-up was never sent");
		assert.ok(followUp.some((t) => t.includes("This is a fresh context window")), "the follow-up went into the overflowing window");
		assert.ok(!followUp.includes("user:do some work"), "the follow-up went into the overflowing window");
		assert.equal(run.requests.length, 4, "the run stops once the follow-up is answered");
		assert.ok(contiguous(got, BOUNDARY), got.join(", "));
		assert.ok(got.indexOf("user:and what about the tests?") > got.indexOf(BOUNDARY[0]!), `the follow-up is behind the reset: ${got.join(", ")}`);
		assert.equal(got.at(-1), "assistant:the tests pass");
		if (mode === "print") assert.equal(run.stdout.trim(), "the tests pass");
	});
}
