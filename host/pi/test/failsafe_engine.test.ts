// The engine dying or stalling in the middle of a decision, in Pi's real
// agent loop: the request in flight fails at once (a death) or after one
// decision timeout (a stall), Pi carries on with one error notice and no
// reset, and the next session start brings the engine back.

import assert from "node:assert/strict";
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { fauxAssistantMessage, fauxToolCall } from "@earendil-works/pi-ai";
import { BOUNDARY, contiguous, labels, type Pi, settle, startPi } from "./harness.ts";

const here = dirname(fileURLToPath(import.meta.url));

/** Runs fn with RESETPOLICY_BIN pointing at the stand-in engine and the given env set. */
async function withFakeEngine(mode: "kill" | "stall" | "crash", on: string, env: Record<string, string>, fn: () => Promise<void>): Promise<void> {
	const dir = mkdtempSync(join(tmpdir(), "resetpolicy-failsafe-"));
	const bin = join(dir, "resetpolicy");
	writeFileSync(bin, `#!/bin/sh\nexec '${process.execPath}' '${join(here, "failsafe-engine.ts")}' "$@"\n`);
	chmodSync(bin, 0o755);
	const vars: Record<string, string> = {
		...env,
		FAILSAFE_REAL_BIN: process.env.RESETPOLICY_BIN!,
		RESETPOLICY_BIN: bin,
		FAILSAFE_MODE: mode,
		FAILSAFE_ON: on,
		FAILSAFE_SPENT: join(dir, "spent"),
	};
	const saved = Object.fromEntries(Object.keys(vars).map((k) => [k, process.env[k]]));
	Object.assign(process.env, vars);
	try {
		await fn();
	} finally {
		for (const [k, v] of Object.entries(saved)) {
			if (v === undefined) delete process.env[k];
			else process.env[k] = v;
		}
		rmSync(dir, { recursive: true, force: true });
	}
}

function assertNoReset(pi: Pi): void {
	const got = labels(pi.persisted());
	assert.ok(!got.some((l) => l.startsWith("compaction") || l.startsWith("custom")), `history untouched: ${got.join(", ")}`);
}

function assertToolFailed(pi: Pi): void {
	const result = pi.persisted().filter((e) => e.type === "message" && e.message.role === "toolResult").pop();
	assert.ok(result !== undefined && result.type === "message" && result.message.role === "toolResult" && result.message.isError, "the tool answers with an error");
}

// Whether anything else keeps Node's event loop alive must not matter: with
// nothing, the engine's exit status may never be delivered; with something,
// it is.
for (const keepAlive of [false, true]) {
	test(`the engine killed during decide${keepAlive ? " while a timer keeps Node alive" : ""}: the request fails at once, one error notice, no reset; the next session start restarts it`, async () => {
		// A long decision timeout: a prompt answer can only come from noticing the death.
		await withFakeEngine("kill", "tool", { RESETPOLICY_TIMEOUT_MS: "60000" }, async () => {
			const pi = await startPi();
			const alive = keepAlive ? setInterval(() => {}, 1000) : undefined;
			try {
				pi.respond(fauxAssistantMessage(fauxToolCall("wipe_memory", {})), fauxAssistantMessage("carrying on without a reset"));
				const start = Date.now();
				await pi.session.prompt("wipe please");
				await settle(pi);
				// Under the 60 s decision timeout whatever the machine's load.
				assert.ok(Date.now() - start < 60000, `the run took ${Date.now() - start} ms`);
				assertNoReset(pi);
				assertToolFailed(pi);
				assert.ok(contiguous(labels(pi.persisted()), ["toolResult:wipe_memory", "assistant:carrying on without a reset"]));
				const errors = pi.notices.filter((n) => n.level === "error");
				assert.equal(errors.length, 1, `one error notice: ${JSON.stringify(pi.notices)}`);
				assert.match(errors[0]!.text, /not running .*(exited|SIGKILL)/);

				// Pi keeps working without it, with no further notice.
				pi.respond(fauxAssistantMessage("still here"));
				await pi.session.prompt("hello?");
				await settle(pi);
				assert.deepEqual(labels(pi.persisted()).slice(-2), ["user:hello?", "assistant:still here"]);
				assert.equal(pi.notices.filter((n) => n.level === "error").length, 1);

				// The next session start starts the engine again, and it decides.
				await pi.session.reload();
				pi.respond(fauxAssistantMessage(fauxToolCall("wipe_memory", {})), fauxAssistantMessage("fresh"));
				await pi.session.prompt("now wipe");
				await settle(pi);
				assert.ok(contiguous(labels(pi.persisted()), [...BOUNDARY, "assistant:fresh"]));
			} finally {
				clearInterval(alive);
				await pi.dispose();
			}
		});
	});
}

test("a stalled engine: one decision timeout, then the engine is down for the session and says so; later hooks do not wait", async () => {
	// Long enough for the stand-in and the engine to start on a busy machine.
	const timeout = 5000;
	// The stall comes at a turn's end, after which Pi runs many hooks
	// (agent_end, before_settle, settled, the next prompt's requests).
	await withFakeEngine("stall", "turn_end", { RESETPOLICY_TIMEOUT_MS: String(timeout) }, async () => {
		const pi = await startPi();
		try {
			pi.respond(fauxAssistantMessage(fauxToolCall("wipe_memory", {})), fauxAssistantMessage("after the stall"));
			const start = Date.now();
			await pi.session.prompt("wipe please");
			await settle(pi);
			pi.respond(fauxAssistantMessage("next"), fauxAssistantMessage("and next"));
			await pi.session.prompt("one");
			await settle(pi);
			await pi.session.prompt("two");
			await settle(pi);
			const took = Date.now() - start;
			assert.ok(took >= timeout, `took ${took} ms: the stall was not waited for`);
			// A later hook that asked the stalled engine would wait a timeout of
			// its own, and at least three follow (agent_end, before_settle, the
			// next prompts' requests): 3 × timeout catches that and leaves two
			// timeouts of slack for a busy machine.
			assert.ok(took < 3 * timeout, `took ${took} ms: more than one timeout was waited for`);
			assertNoReset(pi);
			assert.deepEqual(labels(pi.persisted()).slice(-4), ["user:one", "assistant:next", "user:two", "assistant:and next"]);
			const errors = pi.notices.filter((n) => n.level === "error");
			assert.equal(errors.length, 1, `one error notice: ${JSON.stringify(pi.notices)}`);
			assert.match(errors[0]!.text, new RegExp(`no answer to decide within ${timeout} ms`));
			assert.match(errors[0]!.text, /until the next session start/);

			await pi.session.reload();
			pi.respond(fauxAssistantMessage(fauxToolCall("wipe_memory", {})), fauxAssistantMessage("fresh"));
			await pi.session.prompt("now wipe");
			await settle(pi);
			assert.ok(contiguous(labels(pi.persisted()), [...BOUNDARY, "assistant:fresh"]));
		} finally {
			await pi.dispose();
		}
	});
});

test("an engine that crashes at start: one error notice naming its exit, Pi keeps working; the next session start starts it again", async () => {
	await withFakeEngine("crash", "", {}, async () => {
		const pi = await startPi();
		try {
			const errors = pi.notices.filter((n) => n.level === "error");
			assert.equal(errors.length, 1, `one error notice: ${JSON.stringify(pi.notices)}`);
			assert.match(errors[0]!.text, /exited|output closed/);
			pi.respond(fauxAssistantMessage(fauxToolCall("wipe_memory", {})), fauxAssistantMessage("carrying on without a reset"));
			await pi.session.prompt("wipe please");
			await settle(pi);
			assertNoReset(pi);
			assert.equal(pi.notices.filter((n) => n.level === "error").length, 1, "no further notice");

			await pi.session.reload();
			pi.respond(fauxAssistantMessage(fauxToolCall("wipe_memory", {})), fauxAssistantMessage("fresh"));
			await pi.session.prompt("now wipe");
			await settle(pi);
			assert.ok(contiguous(labels(pi.persisted()), [...BOUNDARY, "assistant:fresh"]));
		} finally {
			await pi.dispose();
		}
	});
});

const PAD = "lorem ipsum dolor sit amet ".repeat(340); // about 2300 tokens

test("the engine killed while Pi is compacting (session_before_compact in flight): the compaction settles, no reset, one error notice, the session stays usable", async () => {
	// A long decision timeout: a prompt answer can only come from noticing the death.
	await withFakeEngine("kill", "before_compact", { RESETPOLICY_TIMEOUT_MS: "60000" }, async () => {
		const pi = await startPi();
		try {
			// More history than Pi's default keepRecentTokens (20000), so Pi
			// finds something to summarise and its compaction hook runs.
			for (let i = 0; i < 3; i++) {
				pi.respond(fauxAssistantMessage(`noted part ${i}`));
				await pi.session.prompt(`part ${i}: ${PAD.repeat(5)}`);
				await settle(pi);
			}
			// Without the engine's answer Pi compacts as it would on its own,
			// and asks the model for the summary.
			pi.respond(fauxAssistantMessage("a summary of the old history"));
			const start = Date.now();
			const settled = await pi.session.compact().then(
				() => "compacted",
				(err: unknown) => `rejected: ${String(err)}`,
			);
			const took = Date.now() - start;
			// Under the 60 s decision timeout whatever the machine's load: the
			// answer came from noticing the death, not from waiting it out.
			assert.ok(took < 60000, `the compaction took ${took} ms (${settled})`);
			assert.equal(settled, "compacted", "Pi's own compaction ran, as without the extension");
			const got = labels(pi.persisted());
			assert.equal(got.at(-1), "compaction:summary");
			assert.ok(!got.some((l) => l === "compaction:reset" || l.startsWith("custom:")), `no reset: ${got.join(", ")}`);
			const errors = pi.notices.filter((n) => n.level === "error");
			assert.equal(errors.length, 1, `one error notice: ${JSON.stringify(pi.notices)}`);
			assert.match(errors[0]!.text, /not running .*(exited|SIGKILL)/);

			// The session goes on, with no further notice.
			pi.respond(fauxAssistantMessage("still here"));
			await pi.session.prompt("hello?");
			await settle(pi);
			assert.deepEqual(labels(pi.persisted()).slice(-2), ["user:hello?", "assistant:still here"]);
			pi.respond(fauxAssistantMessage(fauxToolCall("wipe_memory", {})), fauxAssistantMessage("without a reset"));
			await pi.session.prompt("wipe please");
			await settle(pi);
			assertToolFailed(pi);
			assert.equal(pi.notices.filter((n) => n.level === "error").length, 1, "told once");

			// The next session start brings the engine back, and it decides.
			await pi.session.reload();
			pi.respond(fauxAssistantMessage(fauxToolCall("wipe_memory", {})), fauxAssistantMessage("fresh"));
			await pi.session.prompt("now wipe");
			await settle(pi);
			assert.ok(contiguous(labels(pi.persisted()), [...BOUNDARY, "assistant:fresh"]));
		} finally {
			await pi.dispose();
		}
	});
});
