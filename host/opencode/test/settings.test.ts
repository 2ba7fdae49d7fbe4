// The project's own settings in real opencode: a tuned policy is in force,
// and a policy that cannot run here is refused with one clear notice.

import assert from "node:assert/strict";
import { before, test } from "node:test";
import { dump, newSession, notices, project, prompt, type Server, server as sharedServer } from "./harness.ts";

let server: Server;
before(async () => {
	server = await sharedServer();
});

const REMINDER = "Context budget reminder";
const count = (lines: string[], needle: string): number => lines.filter((l) => l.includes(needle)).length;

test("a tuned project policy is in force: its reminder margin stages the reminder where the default would not", async () => {
	// Default: the reminder is due from 159040 tokens; with a margin of
	// 100000 it is due from 83616.
	const tuned = await project(server, { files: { ".pi/resetpolicy.hcl": 'use "wipe_memory" {\n  reminder_margin = 100000\n}\n' } });
	const plain = await project(server);
	try {
		for (const p of [tuned, plain]) {
			const sid = await newSession(p);
			p.model.push({ text: "a", usage: { prompt: 90000, completion: 10 } });
			await prompt(p, sid, "one");
			p.model.push({ text: "b" });
			await prompt(p, sid, "two");
		}
		assert.equal(count(tuned.model.chats[1]!.lines, REMINDER), 1, dump(tuned));
		assert.equal(count(plain.model.chats[1]!.lines, REMINDER), 0, dump(plain));
	} finally {
		await tuned.close();
		await plain.close();
	}
});

test("new_context is refused on opencode: one notice says why, and the plugin registers nothing", async () => {
	const p = await project(server, { files: { ".pi/resetpolicy.hcl": 'use "new_context" {}\n' } });
	try {
		const sid = await newSession(p);
		p.model.push({ text: "fine" });
		await prompt(p, sid, "hello");
		const tools = (p.model.chats[0]!.body.tools ?? []).map((t) => t.function.name);
		assert.ok(!tools.includes("new_context") && !tools.includes("wipe_memory"), tools.join(","));
		assert.equal(notices(server).filter((l) => l.includes("new_context is not available on opencode")).length, 1);
		assert.equal(p.model.chats[0]!.lines.length, 2, "opencode works as without the plugin");
	} finally {
		await p.close();
	}
});
