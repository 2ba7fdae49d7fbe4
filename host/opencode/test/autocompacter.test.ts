// autocompacter in real opencode: its checkpoint is a summary boundary
// (the whole window summarised by the session's model, the agent resumes
// from the summary). With a 200000-token window and the contract's 16384
// reserve, seed 002's force limit is min(270000, 270000, 80% of 200000) =
// 160000, the warning 220000 x 160000/270000 = 130370 and the notice
// 180000 x 160000/270000 = 106666. The cooldown and the retry delays are
// tuned so that no verdict depends on the clock.

import assert from "node:assert/strict";
import { before, test } from "node:test";
import { command, dump, newSession, noticesMatching, project, prompt, type Server, server as sharedServer } from "./harness.ts";

let server: Server;
before(async () => {
	server = await sharedServer();
});

const policy = (params: string): Record<string, string> => ({ ".resetpolicy.hcl": `use "autocompacter" {\n${params}}\n` });
const SUMMARY_HEAD = "Checkpoint summary:";
const SUMMARY_PROMPT = "Summarise the conversation below";
const count = (lines: string[], needle: string): number => lines.filter((l) => l.includes(needle)).length;

test("the force limit checkpoints: the whole window is summarised and the agent resumes from the summary; a new prompt is new work, which the cooldown does not hold back (seed 002: force checkpoint; \"This cooldown prevents repeated requests without new work\")", async () => {
	const p = await project(server, { files: policy("  cooldown_ms = 600000\n") });
	try {
		const sid = await newSession(p);
		p.model.push({ text: "worked on KIWI", usage: { prompt: 165000, completion: 10 } }, { text: "SUMMARY: the task is KIWI, next step X" });
		await prompt(p, sid, "task KIWI");
		const chats = p.model.chats.map((c) => c.lines);
		assert.equal(chats.length, 2, dump(p));
		const gaps = await noticesMatching(server, /autocompacter's rules lean on what opencode cannot do/);
		assert.ok(gaps.length >= 1 && /autocompacter\.hcl:\d+:\d+: .*status/.test(gaps[0]!), "the rules opencode cannot carry out are named at load");
		const sum = chats[1]!;
		assert.ok(sum.some((l) => l.includes(SUMMARY_PROMPT) && l.includes("task KIWI") && l.includes("worked on KIWI")), "the summary request holds the whole window");
		p.model.push({ text: "resumed" });
		await prompt(p, sid, "go on");
		const next = p.model.chats[2]!.lines;
		assert.equal(next.length, 3, dump(p));
		assert.ok(next[1]!.includes(SUMMARY_HEAD) && next[1]!.includes("SUMMARY: the task is KIWI"), "the request starts from the summary");
		assert.equal(count(next, "task KIWI"), 0, "the summarised window is not sent again");
		// Over the force limit again, inside the ten-minute cooldown but
		// after a new prompt: that is new work, so the checkpoint comes
		// again (the cooldown holds back only requests without new work).
		p.model.push({ text: "more", usage: { prompt: 170000, completion: 10 } }, { text: "SUMMARY: KIWI, then more" });
		await prompt(p, sid, "and more");
		const after = p.model.chats.slice(3).map((x) => x.lines);
		assert.equal(after.length, 2, dump(p));
		assert.equal(count(after[0]!, SUMMARY_PROMPT), 0, dump(p));
		assert.ok(after[1]!.some((l) => l.includes(SUMMARY_PROMPT) && l.includes("and more")), dump(p));
	} finally {
		await p.close();
	}
});

test("the notice and the warning start a turn once per cycle (seed 002: notice and warning levels)", async () => {
	const p = await project(server, { files: policy("") });
	try {
		const sid = await newSession(p);
		p.model.push({ text: "a", usage: { prompt: 110000, completion: 10 } }, { text: "noted" });
		await prompt(p, sid, "one");
		p.model.push({ text: "b", usage: { prompt: 112000, completion: 10 } });
		await prompt(p, sid, "two");
		p.model.push({ text: "c", usage: { prompt: 131000, completion: 10 } }, { text: "warned" });
		await prompt(p, sid, "three");
		const c = p.model.chats.map((x) => x.lines);
		assert.equal(c.length, 5, dump(p));
		assert.ok(c[1]![c[1]!.length - 1]!.includes("Context notice"), dump(p));
		assert.equal(count(c[3]!, "Context notice"), 1, "not sent again");
		assert.ok(c[4]![c[4]!.length - 1]!.includes("Context warning"), dump(p));
	} finally {
		await p.close();
	}
});

test("a failed summary leaves the context unchanged, is retried at a later turn end, and three failures pause (seed 002: retries, pause)", async () => {
	const p = await project(server, { files: policy("  retry_delays_ms = [0]\n") });
	try {
		const sid = await newSession(p);
		const fail = { error: { status: 400, message: "summary refused by the scripted model" } };
		for (let i = 0; i < 3; i++) {
			p.model.push({ text: `turn ${i} on LIME`, usage: { prompt: 165000, completion: 10 } }, fail);
			await prompt(p, sid, `step ${i}`);
		}
		const c = p.model.chats.map((x) => x.lines);
		assert.equal(c.length, 6, dump(p));
		for (const i of [1, 3, 5]) assert.ok(c[i]!.some((l) => l.includes(SUMMARY_PROMPT)), `summary attempt at #${i}\n${dump(p)}`);
		assert.ok(c[2]!.some((l) => l.includes("step 0")), "the context is unchanged after a failure");
		assert.ok((await noticesMatching(server, /paused/i)).length > 0, "the pause is told");
		// Paused: over the force limit again, no attempt (the warning turn only).
		p.model.push({ text: "paused turn", usage: { prompt: 165000, completion: 10 } }, { text: "warned" });
		await prompt(p, sid, "step 3");
		assert.equal(p.model.chats.length, 8, dump(p));
		for (const x of p.model.chats.slice(6)) assert.equal(count(x.lines, SUMMARY_PROMPT), 0, dump(p));
		// /autocompacter clears the failures and checkpoints now.
		p.model.push({ text: "SUMMARY after pause" }, { text: "resumed after pause" });
		await command(p, sid, "autocompacter");
		const last = p.model.chats[p.model.chats.length - 1]!.lines;
		assert.ok(last[1]!.includes("SUMMARY after pause"), dump(p));
		assert.equal(count(last, "LIME"), 0);
	} finally {
		await p.close();
	}
});
