// wipe_memory, the default policy, in real opencode: every check reads
// what the scripted model server received. The model's context window is
// 200000 tokens and opencode's reserve the contract's 16384, so (seed 000,
// policies/wipe_memory.hcl) the reminder is due from 159040 tokens, the
// close-out warning from 171328 and the hard reserve cuts from 183616.

import assert from "node:assert/strict";
import { before, test } from "node:test";
import { command, dump, messages, newSession, noticesMatching, project, prompt, type Server, settled, server as sharedServer } from "./harness.ts";

let server: Server;
before(async () => {
	server = await sharedServer();
});

const BOOT = "This is a fresh context window.";
const CONTINUE = "Continue the task in this fresh context window";
const REMINDER = "Context budget reminder";
const WARNING = "Context checkpoint: this context window is about to be wiped";

const count = (lines: string[], needle: string): number => lines.filter((l) => l.includes(needle)).length;

test("the wipe_memory tool ends the window: the next request holds the system prompt, the boot text and what follows (seed 000: tool request commits at turn_end)", async () => {
	const p = await project(server);
	try {
		const sid = await newSession(p);
		p.model.push({ text: "I read the task." });
		await prompt(p, sid, "first task: remember APPLE");
		p.model.push({ text: "notes saved", toolCalls: [{ name: "wipe_memory", args: {} }] }, { text: "fresh start done" });
		await prompt(p, sid, "save notes and wipe");
		p.model.push({ text: "next done" });
		await prompt(p, sid, "next task: BANANA");
		const chats = p.model.chats;
		assert.equal(chats.length, 4, "one request per step, no extra turn");
		// The step after the tool call: the system prompt and the boundary
		// (boot text and continuation), nothing of the old window.
		const fresh = chats[2]!.lines;
		assert.equal(fresh.length, 2, dump(p));
		assert.match(fresh[0]!, /^system:/);
		assert.ok(fresh[1]!.startsWith(`user: ${BOOT}`) && fresh[1]!.includes(CONTINUE), fresh[1]);
		// The next prompt: boundary, the fresh window's answer, the new prompt.
		const next = chats[3]!.lines;
		assert.ok(next[1]!.includes(BOOT));
		assert.ok(next.some((l) => l.includes("fresh start done")));
		assert.ok(next.some((l) => l.includes("BANANA")));
		for (const c of chats.slice(2)) assert.equal(count(c.lines, "APPLE"), 0, "the old window is never sent again");
		// The raw history is kept in the session.
		const all = JSON.stringify(await messages(p, sid));
		assert.ok(all.includes("APPLE") && all.includes("notes saved"));
	} finally {
		await p.close();
	}
});

test("the reminder and the warning reach the request once per window, and again in the next window (seed 000: budget staged once per window)", async () => {
	const p = await project(server);
	try {
		const sid = await newSession(p);
		p.model.push({ text: "a", usage: { prompt: 160000, completion: 10 } });
		await prompt(p, sid, "one");
		p.model.push({ text: "b", usage: { prompt: 161000, completion: 10 } });
		await prompt(p, sid, "two");
		p.model.push({ text: "c", usage: { prompt: 172000, completion: 10 } });
		await prompt(p, sid, "three");
		p.model.push({ text: "d", usage: { prompt: 173000, completion: 10 } });
		await prompt(p, sid, "four");
		p.model.push({ text: "d2", usage: { prompt: 173100, completion: 10 } });
		await prompt(p, sid, "four and a half");
		const c = p.model.chats.map((x) => x.lines);
		assert.equal(c.length, 5, dump(p));
		assert.equal(count(c[0]!, REMINDER), 0, "not due in the first request");
		// Staged in request 2, durable after its completed turn: request 3
		// holds it once, as history, and no second copy.
		assert.equal(count(c[1]!, REMINDER), 1);
		assert.ok(c[1]![c[1]!.length - 1]!.includes(REMINDER), "added at the end of the request");
		assert.equal(count(c[2]!, REMINDER), 1);
		assert.equal(count(c[2]!, WARNING), 0);
		assert.equal(count(c[3]!, WARNING), 1, "the warning once it is due");
		assert.equal(count(c[4]!, WARNING), 1, "and not again in the same window");
		assert.equal(count(c[4]!, REMINDER), 1);
		assert.ok((await noticesMatching(server, /the agent was reminded/)).length > 0, "the reminder notice");

		// The agent wipes the window; the fresh window is reminded again when due.
		p.model.push({ text: "", toolCalls: [{ name: "wipe_memory", args: {} }], usage: { prompt: 173500, completion: 10 } }, { text: "fresh", usage: { prompt: 160000, completion: 10 } });
		await prompt(p, sid, "wipe now");
		p.model.push({ text: "e", usage: { prompt: 1000, completion: 10 } });
		await prompt(p, sid, "five");
		const d = p.model.chats.map((x) => x.lines);
		const fresh = d[d.length - 1]!;
		assert.ok(fresh[1]!.includes(BOOT));
		assert.equal(count(fresh, REMINDER), 1, "the new window gets its own reminder");
		assert.equal(count(fresh, WARNING), 0);
	} finally {
		await p.close();
	}
});

test("/wipe-memory closes out: the agent is warned, and when it stops the window is wiped and the run ends (seed 000: manual close-out commits at settlement)", async () => {
	const p = await project(server);
	try {
		const sid = await newSession(p);
		p.model.push({ text: "working on CHERRY" });
		await prompt(p, sid, "task CHERRY");
		p.model.push({ text: "notes are complete" });
		await command(p, sid, "wipe-memory");
		const before = p.model.chats.length;
		const warned = p.model.chats[before - 1]!.lines;
		assert.ok(warned[warned.length - 1]!.includes(WARNING), "the manual close-out warning is the command's prompt");
		assert.equal(before, 2, "the run stops after the close-out: no continuation");
		p.model.push({ text: "hello again" });
		await prompt(p, sid, "what now?");
		const next = p.model.chats[2]!.lines;
		assert.deepEqual(
			next.map((l) => l.slice(0, 12)),
			["system: You ", `user: ${BOOT.slice(0, 6)}`, "user: what n"],
			dump(p),
		);
		assert.equal(count(next, "CHERRY"), 0);
	} finally {
		await p.close();
	}
});

test("the hard reserve cuts: a completed turn at the reserve commits a reset and continues in the fresh window (seed 000: hard reserve at turn_end)", async () => {
	const p = await project(server);
	try {
		const sid = await newSession(p);
		p.model.push({ text: "big turn on DATE", usage: { prompt: 184000, completion: 10 } }, { text: "continuing" });
		await prompt(p, sid, "task DATE");
		const chats = p.model.chats.map((x) => x.lines);
		assert.equal(chats.length, 2, dump(p));
		const cont = chats[1]!;
		assert.equal(cont.length, 3, dump(p));
		assert.ok(cont[1]!.includes(BOOT));
		assert.ok(cont[2]!.includes(CONTINUE));
		assert.equal(count(cont, "DATE"), 0);
	} finally {
		await p.close();
	}
});

test("an aborted turn never commits: the wipe it asked for does not happen and its reminder is staged again (seed 000: user abort clears everything)", async () => {
	const p = await project(server);
	try {
		const sid = await newSession(p);
		p.model.push({ text: "a", usage: { prompt: 160000, completion: 10 } });
		await prompt(p, sid, "task ELDER");
		// The reminder goes into this request; the stream hangs and the user aborts.
		p.model.push({ hang: true });
		await p.client.session.promptAsync({ path: { id: sid }, body: { parts: [{ type: "text", text: "long job" }] } });
		await p.model.waitChats(2);
		await p.client.session.abort({ path: { id: sid } });
		await settled(p, sid);
		assert.equal(count(p.model.chats[1]!.lines, REMINDER), 1);
		p.model.push({ text: "after abort" });
		await prompt(p, sid, "go on");
		const next = p.model.chats[2]!.lines;
		assert.ok(next.some((l) => l.includes("ELDER")), "no reset: the window goes on");
		assert.equal(count(next, BOOT), 0);
		assert.equal(count(next, REMINDER), 1, "the aborted request's reminder was not kept; it is staged again, once");
		// A /wipe-memory whose close-out turn is aborted wipes nothing either.
		p.model.push({ hang: true });
		void p.client.session.command({ path: { id: sid }, body: { command: "wipe-memory", arguments: "" } });
		await p.model.waitChats(4);
		await p.client.session.abort({ path: { id: sid } });
		await settled(p, sid);
		p.model.push({ text: "still here" });
		await prompt(p, sid, "still ELDER?");
		const last = p.model.chats[p.model.chats.length - 1]!.lines;
		assert.equal(count(last, BOOT), 0, dump(p));
		assert.ok(last.some((l) => l.includes("task ELDER")));
	} finally {
		await p.close();
	}
});

test("a failed turn never commits: a provider error drops the close-out and says so (seed 000: a failed turn never completes a close-out)", async () => {
	const p = await project(server);
	try {
		const sid = await newSession(p);
		p.model.push({ text: "ok FIG" });
		await prompt(p, sid, "task FIG");
		p.model.push({ error: { status: 400, message: "bad request from the scripted model" } });
		await command(p, sid, "wipe-memory");
		p.model.push({ text: "recovered" });
		await prompt(p, sid, "again");
		const last = p.model.chats[p.model.chats.length - 1]!.lines;
		assert.equal(count(last, BOOT), 0, dump(p));
		assert.ok(last.some((l) => l.includes("FIG")));
		assert.ok((await noticesMatching(server, /\/wipe-memory did not happen/)).length > 0);
	} finally {
		await p.close();
	}
});
