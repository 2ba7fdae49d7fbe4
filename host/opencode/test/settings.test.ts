// The project's own settings in real opencode: a tuned policy is in force,
// and a policy that cannot run here is refused with one clear notice.

import assert from "node:assert/strict";
import { before, test } from "node:test";
import { dump, newSession, noticesMatching, project, prompt, type Server, server as sharedServer } from "./harness.ts";

let server: Server;
before(async () => {
	server = await sharedServer();
});

const REMINDER = "Context budget reminder";
const count = (lines: string[], needle: string): number => lines.filter((l) => l.includes(needle)).length;

test("a tuned project policy is in force: its reminder margin stages the reminder where the default would not", async () => {
	// Default: the reminder is due from 159040 tokens; with a margin of
	// 100000 it is due from 83616.
	// The project file every host and the CLI read, at the project's root.
	const tuned = await project(server, { files: { ".resetpolicy.hcl": 'use "wipe_memory" {\n  reminder_margin = 100000\n}\n' } });
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

test("new_context is refused on opencode at load, with its position; the built-in stays in force and says so once", async () => {
	// .pi/resetpolicy.hcl, where Pi projects keep it, is read by opencode too.
	const p = await project(server, { files: { ".pi/resetpolicy.hcl": 'use "new_context" {}\n' } });
	try {
		const sid = await newSession(p);
		p.model.push({ text: "fine" });
		await prompt(p, sid, "hello");
		const tools = (p.model.chats[0]!.body.tools ?? []).map((t) => t.function.name);
		assert.ok(!tools.includes("new_context"), tools.join(","));
		assert.ok(tools.includes("wipe_memory"), "the built-in default stays in force");
		const refused = await noticesMatching(server, /is not for opencode/);
		assert.equal(refused.length, 1, refused.join("\n"));
		assert.match(refused[0]!, /new_context\.hcl:\d+:\d+/, "the refusal names the position");
	} finally {
		await p.close();
	}
});

test("the model's context window comes from opencode's provider list: a 100000-token model is reminded at 60000 tokens", async () => {
	// remaining 100000 - 60010 = 39990 <= reserve 16384 + reminder margin
	// 24576; under the contract's default window of 200000 it would not be.
	const p = await project(server, { context: 100000 });
	try {
		const sid = await newSession(p);
		p.model.push({ text: "a", usage: { prompt: 60000, completion: 10 } });
		await prompt(p, sid, "one");
		p.model.push({ text: "b" });
		await prompt(p, sid, "two");
		assert.equal(count(p.model.chats[1]!.lines, REMINDER), 1, dump(p));
	} finally {
		await p.close();
	}
});
