// The CLI harness itself (cli.ts): the real `pi` in print, JSON and RPC
// mode answers from the scripted faux provider, with resetpolicy loaded.

import assert from "node:assert/strict";
import { test } from "node:test";
import { records, runPi, startRpc } from "./cli.ts";

test("cli harness: pi -p prints the scripted answer, and the request and session are read back", async () => {
	const run = await runPi("print", ["hello there"], { responses: [{ text: "scripted answer" }] });
	assert.equal(run.code, 0, run.stderr);
	assert.equal(run.stdout.trim(), "scripted answer");
	assert.equal(run.requests.length, 1);
	assert.equal(run.requests[0]!.at(-1), "user:hello there");
	const roles = run.entries.filter((e) => e.type === "message").map((e) => (e as { message: { role: string } }).message.role);
	assert.deepEqual(
		roles.filter((r) => r !== "system"),
		["user", "assistant"],
	);
});

test("cli harness: pi --mode json writes the run's events, and resetpolicy answers in it", async () => {
	const run = await runPi("json", ["/resetpolicy status", "hi"], { responses: [{ text: "json answer" }] });
	assert.equal(run.code, 0, run.stderr);
	const recs = records(run.stdout);
	assert.ok(recs.some((r) => r.type === "agent_settled"), recs.map((r) => r.type).join(", "));
	assert.ok(JSON.stringify(recs.filter((r) => r.type === "message_end")).includes("json answer"));
	assert.match(run.stderr, /^policy wipe_memory \(built-in; /m, "the extension was loaded");
});

test("cli harness: pi --mode rpc is driven by commands on stdin, and the extension's notices arrive as UI requests", async () => {
	const pi = await startRpc({ responses: [{ text: "rpc answer" }] });
	const settled = pi.next((r) => r.type === "agent_settled");
	const res = await pi.send({ type: "prompt", message: "hi" });
	assert.equal(res.success, true, JSON.stringify(res));
	await settled;
	const status = await pi.send({ type: "prompt", message: "/resetpolicy status" });
	assert.equal(status.success, true);
	const run = await pi.close();
	assert.equal(run.code, 0, run.stderr);
	assert.ok(pi.notices().some((n) => n.text.startsWith("policy wipe_memory")), JSON.stringify(pi.notices()));
	assert.equal(run.requests.length, 1);
	assert.ok(JSON.stringify(run.entries).includes("rpc answer"));
});
