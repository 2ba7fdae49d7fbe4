// Seed fidelity in Pi's real loop, with Pi's default settings: what every
// policy's host owes the user, whatever the policy — command replies in
// every mode.

import assert from "node:assert/strict";
import { test } from "node:test";
import { startPi, stderrOf } from "./harness.ts";

for (const mode of ["print", "json"] as const) {
	test(`seed 002 'Both commands work in TUI, print, JSON, and RPC modes.': /resetpolicy status, off and on answer in ${mode} mode`, async () => {
		const pi = await startPi({ mode });
		try {
			const err = await stderrOf(async () => {
				await pi.session.prompt("/resetpolicy status");
				await pi.session.prompt("/resetpolicy off");
				await pi.session.prompt("/resetpolicy on");
			});
			assert.match(err, /^policy wipe_memory \(built-in; /m);
			assert.match(err, /^engine running; window w1$/m);
			assert.match(err, /^resetpolicy: wipe_memory is off for this session\.$/m);
			assert.match(err, /^resetpolicy: wipe_memory is on for this session\.$/m);
			assert.deepEqual(pi.notices, [], `${mode} mode has no UI`);
		} finally {
			await pi.dispose();
		}
	});
}
