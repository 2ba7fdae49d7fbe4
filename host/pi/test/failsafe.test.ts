// Failing safe: a broken project policy file, an engine that dies, an
// engine that is missing.

import assert from "node:assert/strict";
import { test } from "node:test";
import { fauxAssistantMessage, fauxToolCall } from "@earendil-works/pi-ai";
import { BOUNDARY, contiguous, enginePids, labels, settle, startPi } from "./harness.ts";

test("a broken project policy file keeps the built-in in force with one error notice; nothing is reset", async () => {
	const pi = await startPi({ project: { ".pi/resetpolicy.hcl": 'use "new_context" {\n  warning_runway = "lots"\n}\n' } });
	try {
		const errors = pi.notices.filter((n) => n.level === "error");
		assert.equal(errors.length, 1, JSON.stringify(pi.notices));
		assert.match(errors[0]!.text, /failed to load/);
		assert.match(errors[0]!.text, /resetpolicy\.hcl:2:/, "the diagnostic points at the line");
		assert.match(errors[0]!.text, /wipe_memory \(built-in\) stays in force/);
		assert.ok(!labels(pi.persisted()).some((l) => l.startsWith("compaction")));
		// The built-in's tool is the one registered, and it works.
		pi.respond(fauxAssistantMessage(fauxToolCall("wipe_memory", {})), fauxAssistantMessage("fresh"));
		await pi.session.prompt("go");
		await settle(pi);
		assert.ok(contiguous(labels(pi.persisted()), [...BOUNDARY, "assistant:fresh"]));
		assert.ok(!pi.session.getAllTools().some((t) => t.name === "new_context"));
	} finally {
		await pi.dispose();
	}
});

test("an untrusted project's policy file is not loaded", async () => {
	const pi = await startPi({ trusted: false, project: { ".pi/resetpolicy.yaml": "policy: new_context\n" } });
	try {
		const names = pi.session.getAllTools().map((t) => t.name);
		assert.ok(names.includes("wipe_memory") && !names.includes("new_context"), names.join(", "));
		assert.equal(pi.notices.filter((n) => n.level === "error").length, 0);
	} finally {
		await pi.dispose();
	}
});

test("killing the engine mid-session leaves Pi working with no reset; the next session start restarts it", async () => {
	const pi = await startPi();
	try {
		pi.respond(fauxAssistantMessage("hello"));
		await pi.session.prompt("hi");
		await settle(pi);
		const pids = enginePids();
		assert.equal(pids.length, 1, "one engine process");
		process.kill(pids[0]!, "SIGKILL");
		await new Promise((r) => setTimeout(r, 100));

		pi.respond(fauxAssistantMessage(fauxToolCall("wipe_memory", {})), fauxAssistantMessage("carrying on without a reset"));
		await pi.session.prompt("wipe please");
		await settle(pi);
		const entries = pi.persisted();
		const got = labels(entries);
		assert.ok(!got.some((l) => l.startsWith("compaction") || l.startsWith("custom")), `history untouched: ${got.join(", ")}`);
		assert.ok(contiguous(got, ["assistant:call:wipe_memory", "toolResult:wipe_memory", "assistant:carrying on without a reset"]));
		const result = entries.filter((e) => e.type === "message" && e.message.role === "toolResult").pop();
		assert.ok(result !== undefined && result.type === "message" && result.message.role === "toolResult" && result.message.isError, "the tool answers with an error");
		const errors = pi.notices.filter((n) => n.level === "error");
		assert.equal(errors.length, 1, `one visible error: ${JSON.stringify(pi.notices)}`);
		assert.match(errors[0]!.text, /not running/);

		// The next session start (here a reload) starts the engine again.
		await pi.session.reload();
		assert.equal(enginePids().length, 1, "the engine runs again");
		pi.respond(fauxAssistantMessage(fauxToolCall("wipe_memory", {})), fauxAssistantMessage("fresh"));
		await pi.session.prompt("now wipe");
		await settle(pi);
		assert.ok(contiguous(labels(pi.persisted()), [...BOUNDARY, "assistant:fresh"]));
	} finally {
		await pi.dispose();
	}
});

test("a missing engine binary: one error notice, Pi keeps working", async () => {
	const saved = process.env.RESETPOLICY_BIN;
	process.env.RESETPOLICY_BIN = "/nonexistent/resetpolicy";
	try {
		const pi = await startPi();
		try {
			pi.respond(fauxAssistantMessage("still answering"));
			await pi.session.prompt("hi");
			await settle(pi);
			const errors = pi.notices.filter((n) => n.level === "error");
			assert.equal(errors.length, 1, JSON.stringify(pi.notices));
			assert.match(errors[0]!.text, /\/nonexistent\/resetpolicy/);
			assert.deepEqual(labels(pi.persisted()).slice(-2), ["user:hi", "assistant:still answering"]);
		} finally {
			await pi.dispose();
		}
	} finally {
		process.env.RESETPOLICY_BIN = saved;
	}
});
