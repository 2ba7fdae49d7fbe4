// The engine killed mid-session: opencode keeps working with one clear
// notice, no reset happens, and a reset made before still holds (its
// boundary is in the session; cutting at it needs no engine). The
// harness starts every engine through a script that records its process
// id, so the test kills exactly the engine its project started.

import assert from "node:assert/strict";
import { before, test } from "node:test";
import { dump, lastEnginePid, newSession, noticesMatching, project, prompt, type Server, server as sharedServer } from "./harness.ts";

let server: Server;
before(async () => {
	server = await sharedServer();
});

const BOOT = "This is a fresh context window.";
const count = (lines: string[], needle: string): number => lines.filter((l) => l.includes(needle)).length;

test("the engine killed mid-session leaves opencode usable with one clear notice", async () => {
	const p = await project(server);
	try {
		const sid = await newSession(p);
		p.model.push({ text: "old", toolCalls: [{ name: "wipe_memory", args: {} }] }, { text: "fresh window" });
		await prompt(p, sid, "task GRAPE");
		p.model.push({ text: "ok" });
		await prompt(p, sid, "more");
		process.kill(lastEnginePid(), "SIGKILL");
		// Usage past the hard reserve: with the engine alive this would cut.
		p.model.push({ text: "still here", usage: { prompt: 190000, completion: 10 } });
		await prompt(p, sid, "after the crash");
		p.model.push({ text: "and again", toolCalls: [{ name: "wipe_memory", args: {} }] }, { text: "same window" });
		await prompt(p, sid, "once more");
		const chats = p.model.chats.map((c) => c.lines);
		assert.equal(chats.length, 6, dump(p));
		const last = chats[5]!;
		assert.equal(count(last, BOOT), 1, "the reset made before still holds");
		assert.equal(count(last, "GRAPE"), 0);
		assert.ok(last.some((l) => l.includes("after the crash")) && last.some((l) => l.includes("still here")), "no reset after the crash");
		const down = await noticesMatching(server, /the policy engine stopped/);
		assert.equal(down.length, 1, down.join("\n"));
		assert.match(down[0]!, /opencode keeps working/);
	} finally {
		await p.close();
	}
});
