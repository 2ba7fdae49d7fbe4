// What a new user meets first: a model without a context window, a project
// policy Pi does not trust yet, an engine that is not installed.

import assert from "node:assert/strict";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { test } from "node:test";
import { fauxAssistantMessage } from "@earendil-works/pi-ai";
import { settle, startPi } from "./harness.ts";

test("a model that reports no context window gets the contract's default, with one warning", async () => {
	const pi = await startPi({ contextWindow: 0, decisionLog: true });
	try {
		pi.respond(fauxAssistantMessage("one"), fauxAssistantMessage("two"));
		await pi.session.prompt("first");
		await settle(pi);
		await pi.session.prompt("second");
		await settle(pi);
		const decided = pi.decisions();
		assert.ok(decided.length > 4, `decisions: ${decided.length}`);
		for (const d of decided) assert.equal(d.event.context_window, 200000, `${d.event.event}: context_window ${d.event.context_window}`);
		const warnings = pi.notices.filter((n) => /reports no context window/.test(n.text));
		assert.equal(warnings.length, 1, JSON.stringify(pi.notices));
		assert.equal(warnings[0]!.level, "warning");
		assert.match(warnings[0]!.text, /assuming 200000 tokens/);
		// An empty window would have warned the model at once; the default does not.
		assert.ok(!pi.notices.some((n) => /nearly full/.test(n.text)), JSON.stringify(pi.notices));
		assert.ok(!decided.some((d) => d.effects.some((e) => e.effect === "inject")), "nothing injected");
	} finally {
		await pi.dispose();
	}
});

test("/resetpolicy status in an untrusted project says the project file was ignored and how to trust it", async () => {
	const pi = await startPi({ trusted: false, project: { ".pi/resetpolicy.hcl": 'use "new_context" {}\n' } });
	try {
		await pi.session.prompt("/resetpolicy status");
		const status = pi.notices.at(-1)!;
		assert.match(status.text, /policy wipe_memory/);
		assert.match(status.text, /\.pi\/resetpolicy\.hcl exists but was ignored: this project is not trusted/);
		assert.match(status.text, /\/trust/);
	} finally {
		await pi.dispose();
	}
	// A trusted project's status says nothing of the kind.
	const trusted = await startPi({ project: { ".pi/resetpolicy.hcl": 'use "new_context" {}\n' } });
	try {
		await trusted.session.prompt("/resetpolicy status");
		assert.match(trusted.notices.at(-1)!.text, /policy new_context/);
		assert.doesNotMatch(trusted.notices.at(-1)!.text, /ignored/);
	} finally {
		await trusted.dispose();
	}
});

test("RESETPOLICY_BIN naming no file says so, not that the engine is not installed", async () => {
	const saved = process.env.RESETPOLICY_BIN;
	process.env.RESETPOLICY_BIN = "/nonexistent/resetpolicy";
	try {
		const pi = await startPi();
		try {
			const errors = pi.notices.filter((n) => n.level === "error");
			assert.equal(errors.length, 1, JSON.stringify(pi.notices));
			assert.match(errors[0]!.text, /RESETPOLICY_BIN is \/nonexistent\/resetpolicy, and no file is there/);
			assert.match(errors[0]!.text, /unset it to let the extension find resetpolicy on PATH or build its own/);
			// No module proxy serves the module: the notice must not send the user there.
			assert.doesNotMatch(errors[0]!.text, /go install|@latest/);
		} finally {
			await pi.dispose();
		}
	} finally {
		process.env.RESETPOLICY_BIN = saved;
	}
});

test("/resetpolicy with an unknown subcommand says so and lists the ones there are", async () => {
	const pi = await startPi();
	try {
		await pi.session.prompt("/resetpolicy bogus");
		const n = pi.notices.at(-1)!;
		assert.equal(n.level, "warning");
		assert.match(n.text, /unknown subcommand "bogus"; use \/resetpolicy status, \/resetpolicy on, \/resetpolicy off or \/resetpolicy help/);
	} finally {
		await pi.dispose();
	}
});

test("/resetpolicy status after a broken project file says it failed and the built-in is in force", async () => {
	const pi = await startPi({ project: { ".pi/resetpolicy.hcl": 'use "wipe_memroy" {}\n' } });
	try {
		await pi.session.prompt("/resetpolicy status");
		const status = pi.notices.at(-1)!.text;
		assert.match(status, /the configured policy failed to load: policy .*resetpolicy\.hcl failed to load/);
		assert.match(status, /in force instead: wipe_memory \(built-in\)/);
	} finally {
		await pi.dispose();
	}
});

test("a user config value the project's file overrides: status says which wins, and a user param the policy lacks warns once", async () => {
	const cfg = join(process.env.XDG_CONFIG_HOME!, "resetpolicy", "config.yaml");
	mkdirSync(dirname(cfg), { recursive: true });
	writeFileSync(cfg, "params:\n  warning_runway: 9000\n  force_limit: 150000\n");
	try {
		const pi = await startPi({ project: { ".pi/resetpolicy.hcl": 'use "wipe_memory" {\n  warning_runway = 20000\n}\n' } });
		try {
			await pi.session.prompt("/resetpolicy status");
			const status = pi.notices.at(-1)!.text;
			assert.match(status, /warning_runway = 20000 {2}\(.*resetpolicy\.hcl\)/);
			assert.match(status, /shadows warning_runway = 9000 from user config /);
			await pi.session.reload();
			await pi.session.prompt("/resetpolicy status");
			const warnings = pi.notices.filter((n) => /force_limit/.test(n.text));
			assert.equal(warnings.length, 1, JSON.stringify(pi.notices, null, 1));
			assert.equal(warnings[0]!.level, "warning");
			assert.match(warnings[0]!.text, /Param not in this policy: user config .* sets param "force_limit", which policy "wipe_memory" does not declare/);
		} finally {
			await pi.dispose();
		}
	} finally {
		rmSync(cfg, { force: true });
	}
});
