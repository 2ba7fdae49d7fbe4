// The host's own /resetpolicy command: every reply reaches print mode (pi
// -p), where ctx.ui shows nothing; status says why the engine is not
// running; the policy's file is named once; and Pi lists the extension by
// its name, not by the folder its code is in.

import assert from "node:assert/strict";
import { test } from "node:test";
import { InteractiveMode } from "@earendil-works/pi-coding-agent";
import { startPi } from "./harness.ts";

/** Collects what the process writes to stderr while fn runs (print and JSON mode output). */
async function stderrOf(fn: () => Promise<void>): Promise<string> {
	const original = process.stderr.write.bind(process.stderr);
	let out = "";
	process.stderr.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
		out += typeof chunk === "string" ? chunk : Buffer.from(chunk).toString();
		return (original as (c: unknown, ...r: unknown[]) => boolean)(chunk, ...rest);
	}) as typeof process.stderr.write;
	try {
		await fn();
	} finally {
		process.stderr.write = original;
	}
	return out;
}

test("in print mode /resetpolicy bogus and /resetpolicy help print their replies", async () => {
	const pi = await startPi({ mode: "print" });
	try {
		const bogus = await stderrOf(() => pi.session.prompt("/resetpolicy bogus"));
		assert.match(bogus, /^Warning: resetpolicy: unknown subcommand "bogus"; use \/resetpolicy status, \/resetpolicy on, \/resetpolicy off or \/resetpolicy help\.$/m);
		const help = await stderrOf(() => pi.session.prompt("/resetpolicy help"));
		assert.match(help, /^\/resetpolicy status {2}the policy in force/m);
		assert.match(help, /^\/resetpolicy off {5}switch it off for this session/m);
		assert.deepEqual(pi.notices, [], "print mode has no UI");
	} finally {
		await pi.dispose();
	}
});

test("with RESETPOLICY_BIN naming no file, print mode says why at start and status says why the engine is not running", async () => {
	const saved = process.env.RESETPOLICY_BIN;
	process.env.RESETPOLICY_BIN = "/nope/resetpolicy";
	try {
		let status = "";
		const start = await stderrOf(async () => {
			const pi = await startPi({ mode: "print" });
			try {
				status = await stderrOf(() => pi.session.prompt("/resetpolicy status"));
			} finally {
				await pi.dispose();
			}
		});
		assert.match(start, /^Error: resetpolicy: the policy engine cannot start: RESETPOLICY_BIN is \/nope\/resetpolicy, and no file is there/m);
		assert.match(status, /^engine not running \(it cannot start: RESETPOLICY_BIN is \/nope\/resetpolicy, and no file is there/m);
		assert.doesNotMatch(status, /not started/);
	} finally {
		process.env.RESETPOLICY_BIN = saved;
	}
});

test("status names a project's policy file once", async () => {
	const pi = await startPi({ project: { ".pi/resetpolicy.hcl": 'use "wipe_memory" {}\n' } });
	try {
		await pi.session.prompt("/resetpolicy status");
		const line = pi.notices.at(-1)!.text.split("\n").find((l) => l.startsWith("policy "))!;
		assert.match(line, /^policy wipe_memory \(.*\.pi\/resetpolicy\.hcl; project policy\)$/);
	} finally {
		await pi.dispose();
	}
});

test("Pi's extension list names the package's extension resetpolicy, not src", async () => {
	const pi = await startPi();
	try {
		const exts = pi.session.resourceLoader.getExtensions().extensions;
		// Pi's own labelling of the list (InteractiveMode builds the list it shows).
		const mode = Object.create(InteractiveMode.prototype) as { getCompactExtensionLabels(e: unknown[]): string[] };
		const labels = mode.getCompactExtensionLabels(exts);
		assert.ok(labels.includes("resetpolicy"), JSON.stringify(labels));
		assert.ok(!labels.includes("src"), JSON.stringify(labels));
	} finally {
		await pi.dispose();
	}
});
