// autocompacter through the real `pi` CLI, as users run it: print and JSON
// mode (`pi -p`, `pi --mode json`) and an RPC client (`pi --mode rpc`),
// with Pi's default settings and the model scripted by the faux provider.
// Few and small: each case is one child process.

import assert from "node:assert/strict";
import { test } from "node:test";
import type { SessionEntry } from "@earendil-works/pi-coding-agent";
import { records, runPi, startRpc } from "./cli.ts";

const PROJECT = { ".pi/resetpolicy.yaml": "policy: autocompacter\n" };
const SUMMARY = "## Goal\nFix the parser bug.\n\n## Next Steps\n1. Add the test.";
const WORDS = "lorem ipsum dolor sit amet "; // 27 characters, 4 per token

/** A prompt of about n tokens. */
function prompt(n: number, tag: string): string {
	return `${tag}: ${WORDS.repeat(Math.round((n * 4) / WORDS.length))}`;
}

function compactions(entries: SessionEntry[]): (SessionEntry & { firstKeptEntryId: string; summary: string })[] {
	return entries.filter((e) => e.type === "compaction") as (SessionEntry & { firstKeptEntryId: string; summary: string })[];
}

for (const mode of ["print", "json"] as const) {
	test(`seed 002 'Requested work and turns with pending work can continue from the original context.': in ${mode} mode a failed /autocompacter after a final answer says so and asks Pi for no continuation`, async () => {
		const run = await runPi(mode, ["hi", "/autocompacter"], {
			project: PROJECT,
			responses: [{ text: "hello" }, { error: "invalid request: summary refused" }],
		});
		assert.equal(run.code, 0, run.stderr);
		assert.ok(!run.stderr.includes("requested continuation without runnable model context"), run.stderr);
		assert.ok(!run.stderr.includes("The run continues"), run.stderr);
		assert.equal(run.requests.length, 2, "the answer and the failed summary; no model turn before it, no continuation");
		assert.match(run.stderr, /^Error: Checkpoint failed; the context is unchanged \(a requested checkpoint is dropped, not retried\)/m);
		assert.equal(compactions(run.entries).length, 0);
		if (mode === "json") assert.ok(records(run.stdout).some((r) => r.type === "agent_settled"));
	});

	test(`seed 002 'A requested checkpoint starts the next model turn.': in ${mode} mode an idle /autocompacter on a small context summarises it, writes the checkpoint and runs the next turn, with no model turn before the summary`, async () => {
		const run = await runPi(mode, ["hi", "/autocompacter"], {
			project: PROJECT,
			responses: [{ text: "hello" }, { text: SUMMARY }, { text: "resumed from the checkpoint" }],
		});
		assert.equal(run.code, 0, run.stderr);
		assert.equal(run.requests.length, 3, "the answer, the summary, the next turn");
		const cps = compactions(run.entries);
		assert.equal(cps.length, 1, run.stderr);
		assert.equal(cps[0]!.firstKeptEntryId, cps[0]!.id);
		assert.ok(run.requests[2]!.join("").length < 10_000, "the next turn starts from the checkpoint alone");
		// The padding that lets Pi's compact() cut a small context is a
		// hidden message: JSON mode streams it as one, never as a reply.
		if (mode === "json") {
			const ends = records(run.stdout).filter((r) => r.type === "message_end").map((r) => r.message as { role: string; customType?: string; display?: boolean; content: { text?: string }[] });
			const replies = ends.filter((m) => m.role === "assistant").map((m) => m.content.map((b) => b.text ?? "").join(""));
			assert.deepEqual(replies, ["hello", "resumed from the checkpoint"], "no reply before the checkpoint");
			for (const m of ends.filter((m) => m.customType === "resetpolicy/checkpoint-padding")) assert.equal(m.display, false);
		} else assert.equal(run.stdout.trim(), "resumed from the checkpoint");
	});
}

test("seed 002 'A summary error leaves the session context unchanged.': over RPC, a prompt that overflows a 200k window recovers through Pi's own compaction while autocompacter is on", async () => {
	const pi = await startRpc({
		project: PROJECT,
		models: [{ id: "faux-1", contextWindow: 200000 }],
		responses: [
			{ text: "answer 1" },
			{ error: "prompt is too long: 210012 tokens > 200000 maximum" },
			{ text: SUMMARY },
			{ text: SUMMARY },
			{ text: "answer 2 after recovery" },
		],
	});
	let settled = pi.next((r) => r.type === "agent_settled");
	assert.equal((await pi.send({ type: "prompt", message: prompt(100000, "first") })).success, true);
	await settled;
	settled = pi.next((r) => r.type === "agent_settled", pi.records.length);
	assert.equal((await pi.send({ type: "prompt", message: prompt(110000, "second") })).success, true);
	await settled;
	const run = await pi.close();
	assert.equal(run.code, 0, run.stderr);
	const last = run.entries.filter((e) => e.type === "message").at(-1) as SessionEntry & { message: { content: { text?: string }[] } };
	assert.equal(last.message.content.map((b) => b.text ?? "").join(""), "answer 2 after recovery", run.stderr);
	const cps = compactions(run.entries);
	assert.equal(cps.length, 1);
	assert.notEqual(cps[0]!.firstKeptEntryId, cps[0]!.id, "Pi's recovery keeps the recent part; not a whole-context checkpoint");
	assert.equal(run.requests.filter((r) => r.join("").length / 4 > 200000).length, 1, "only the refused request was larger than the window");
});

test("seed 002 'the user runs /autocompacter' is the seed's checkpoint; over RPC, Pi's /compact with instructions stays Pi's and the instructions reach the summariser", async () => {
	const pi = await startRpc({
		project: PROJECT,
		responses: [{ text: "answer 1" }, { text: "answer 2" }, { text: SUMMARY }],
	});
	for (const tag of ["first", "second"]) {
		const settled = pi.next((r) => r.type === "agent_settled", pi.records.length);
		assert.equal((await pi.send({ type: "prompt", message: prompt(31000, tag) })).success, true);
		await settled;
	}
	const res = await pi.send({ type: "compact", customInstructions: "focus on the parser" });
	assert.equal(res.success, true, JSON.stringify(res));
	const run = await pi.close();
	const cps = compactions(run.entries);
	assert.equal(cps.length, 1, run.stderr);
	assert.notEqual(cps[0]!.firstKeptEntryId, cps[0]!.id, "Pi's own compaction keeps its recent turns");
	assert.ok(run.requests.at(-1)!.join("").includes("focus on the parser"), "the instructions reach the summariser");
});
