// wipe_memory, the default policy, in real opencode: checked by reading
// what the scripted model server received.

import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { messages, newSession, notices, project, prompt, type Server, startServer } from "./harness.ts";

let server: Server;
before(async () => {
	server = await startServer();
});
after(async () => {
	await server?.close();
});

const BOOT = "This is a fresh context window.";

test("the wipe_memory tool ends the window: the next request holds the system prompt, the boot text and what follows", async () => {
	const p = await project(server);
	try {
		const sid = await newSession(p);
		p.model.push({ text: "I read the task." });
		await prompt(p, sid, "first task: remember APPLE");
		p.model.push({ text: "notes saved", toolCalls: [{ name: "wipe_memory", args: {} }] }, { text: "fresh start done" });
		await prompt(p, sid, "save notes and wipe");
		const chats = p.model.chats;
		for (const c of chats) console.log(JSON.stringify(c.lines.map((l) => l.slice(0, 80))));
		console.log(server.logs.filter(l => /message=loop|prompt|resetpolicy|exiting/.test(l)).map(l=>l.slice(0,250)).join("\n"));
		console.log(JSON.stringify((await messages(p, sid)).map((m) => [m.info.id, m.info.role, m.parts.map((x) => x.type === "text" ? x.text.slice(0, 40) : x.type)])));
		assert.equal(chats.length, 3);
		const last = chats[2]!.lines;
		assert.match(last[0]!, /^system:/);
		assert.ok(last.some((l) => l.includes(BOOT)), "the boot text is sent");
		assert.ok(!last.some((l) => l.includes("APPLE")), "the old window is not sent");
	} finally {
		await p.close();
	}
});
