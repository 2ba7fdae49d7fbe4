// new_context switched off while an explicit attempt's reset is being
// built: the boundary asked for before the switch is not written.

import assert from "node:assert/strict";
import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { fauxAssistantMessage, fauxToolCall } from "@earendil-works/pi-ai";
import { labels, settle, startPi } from "./harness.ts";

const here = dirname(fileURLToPath(import.meta.url));
const PROJECT = { ".pi/resetpolicy.yaml": "policy: new_context\n" };
const PAD = "lorem ipsum dolor sit amet ".repeat(1700); // about 11500 tokens

test("seed 000 'rechecks generation, session, window, enabled state, and abort status before returning drafts' (seed 001 'Shutdown / start / tree / toggle off | Invalidate outstanding attempt'): /resetpolicy off while an explicit new_context attempt builds its reset writes no boundary", async () => {
	const dir = mkdtempSync(join(tmpdir(), "resetpolicy-hold-"));
	const bin = join(dir, "resetpolicy");
	writeFileSync(bin, `#!/bin/sh\nexec '${process.execPath}' '${join(here, "failsafe-engine.ts")}' "$@"\n`);
	chmodSync(bin, 0o755);
	const held = join(dir, "held");
	const vars: Record<string, string> = {
		FAILSAFE_REAL_BIN: process.env.RESETPOLICY_BIN!,
		RESETPOLICY_BIN: bin,
		FAILSAFE_MODE: "hold",
		FAILSAFE_METHOD: "compactionReset",
		FAILSAFE_SPENT: join(dir, "spent"),
		FAILSAFE_HELD: held,
		FAILSAFE_RELEASE: join(dir, "release"),
	};
	const saved = Object.fromEntries(Object.keys(vars).map((k) => [k, process.env[k]]));
	Object.assign(process.env, vars);
	const pi = await startPi({ project: PROJECT });
	try {
		// More history than Pi's default keepRecentTokens, so Pi has something to compact.
		for (let i = 0; i < 2; i++) {
			pi.respond(fauxAssistantMessage(`noted part ${i}`));
			await pi.session.prompt(`part ${i}: ${PAD}`);
			await settle(pi);
		}
		pi.respond(fauxAssistantMessage(fauxToolCall("new_context", {})), fauxAssistantMessage("continued"));
		const run = pi.session.prompt(`part 2: ${PAD}`);
		// The attempt's reset is being built (the engine's answer is held).
		for (let i = 0; i < 2000 && !existsSync(held); i++) await new Promise((r) => setTimeout(r, 5));
		assert.ok(existsSync(held), "the explicit attempt asked for its reset");
		await pi.session.prompt("/resetpolicy off");
		writeFileSync(vars.FAILSAFE_RELEASE!, "");
		await run;
		await settle(pi);
		const got = labels(pi.persisted());
		assert.ok(!got.some((l) => l.startsWith("compaction")), `a boundary asked for before the switch was written: ${got.join(", ")}`);
		assert.ok(!got.some((l) => l === "custom:resetpolicy/reset-marker"), got.join(", "));
		assert.ok(!pi.requests.some((r) => JSON.stringify(r).includes("fresh context window")), "no continuation in a fresh window");
	} finally {
		await pi.dispose();
		for (const [k, v] of Object.entries(saved)) {
			if (v === undefined) delete process.env[k];
			else process.env[k] = v;
		}
		rmSync(dir, { recursive: true, force: true });
	}
});
