// Installing the package as a Pi user does: the tarball `npm pack` makes,
// installed by Pi's own package installer (`pi install`) into a fresh
// agent directory, on a PATH without resetpolicy and without
// RESETPOLICY_BIN. The extension builds its engine from the sources the
// tarball carries and the policy answers. And the notices that name why
// the engine cannot start.

import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, dirname, join } from "node:path";
import { test } from "node:test";
import { fauxAssistantMessage } from "@earendil-works/pi-ai";
import { locateEngine, onPath } from "../src/install.ts";
import { BOUNDARY, contiguous, extensionPath, labels, settle, startPi } from "./harness.ts";

const quiet = { say: () => {}, status: () => {} };

/** Runs fn with the environment changed as given (undefined deletes), restoring it after. */
async function withEnv<T>(vars: Record<string, string | undefined>, fn: () => Promise<T>): Promise<T> {
	const saved: Record<string, string | undefined> = {};
	for (const [k, v] of Object.entries(vars)) {
		saved[k] = process.env[k];
		if (v === undefined) delete process.env[k];
		else process.env[k] = v;
	}
	try {
		return await fn();
	} finally {
		for (const [k, v] of Object.entries(saved)) {
			if (v === undefined) delete process.env[k];
			else process.env[k] = v;
		}
	}
}

test("RESETPOLICY_BIN naming no file is that problem, not a missing install", async () => {
	const got = await locateEngine(quiet, { RESETPOLICY_BIN: "/nonexistent/resetpolicy", PATH: "" });
	assert.ok("problem" in got);
	assert.match(got.problem, /RESETPOLICY_BIN is \/nonexistent\/resetpolicy, and no file is there/);
	assert.doesNotMatch(got.problem, /not installed|go install/);
	const dir = mkdtempSync(join(tmpdir(), "resetpolicy-bin-"));
	try {
		const file = join(dir, "resetpolicy");
		writeFileSync(file, "");
		chmodSync(file, 0o644);
		const notExec = await locateEngine(quiet, { RESETPOLICY_BIN: file, PATH: "" });
		assert.ok("problem" in notExec && /not an executable file/.test(notExec.problem), JSON.stringify(notExec));
	} finally {
		rmSync(dir, { recursive: true, force: true });
	}
});

test("without an engine and without Go the notice says exactly what to run", async () => {
	const pkg = mkdtempSync(join(tmpdir(), "resetpolicy-pkg-"));
	try {
		mkdirSync(join(pkg, "engine-src"));
		writeFileSync(join(pkg, "engine-src", "go.mod"), "module github.com/resetpolicy/resetpolicy\n\ngo 1.26\n");
		const got = await locateEngine(quiet, { PATH: "", GOROOT: "/nonexistent", HOME: pkg }, pkg, []);
		assert.ok("problem" in got, JSON.stringify(got));
		assert.match(got.problem, /no Go toolchain was found/);
		assert.match(got.problem, /https:\/\/go\.dev\/dl\//);
		assert.ok(got.problem.includes(`cd ${join(pkg, "engine-src")} && CGO_ENABLED=0 go build -o ${join(pkg, "bin", "resetpolicy")} ./cmd/resetpolicy`), got.problem);
	} finally {
		rmSync(pkg, { recursive: true, force: true });
	}
});

test("a built engine is reused until a source is newer; a failing build says what to run", async () => {
	const pkg = mkdtempSync(join(tmpdir(), "resetpolicy-pkg-"));
	try {
		const src = join(pkg, "engine-src");
		mkdirSync(join(src, "cmd"), { recursive: true });
		writeFileSync(join(src, "go.mod"), "module github.com/resetpolicy/resetpolicy\n\ngo 1.26\n");
		writeFileSync(join(src, "cmd", "main.go"), "package main\n");
		const bin = join(pkg, "bin", "resetpolicy");
		mkdirSync(dirname(bin));
		writeFileSync(bin, "#!/bin/sh\n");
		chmodSync(bin, 0o755);
		// A fake go that fails as a broken build does, once it sees the
		// build asked for without cgo (a static engine).
		const goDir = join(pkg, "go-bin");
		mkdirSync(goDir);
		writeFileSync(
			join(goDir, "go"),
			"#!/bin/sh\n[ \"$CGO_ENABLED\" = 0 ] || { echo \"built with CGO_ENABLED=$CGO_ENABLED\" >&2; exit 2; }\necho 'cmd/main.go:1:1: expected declaration' >&2\nexit 1\n",
		);
		chmodSync(join(goDir, "go"), 0o755);
		const env = { PATH: goDir, GOROOT: "", HOME: pkg };
		const old = new Date(Date.now() - 60_000);
		utimesSync(join(src, "go.mod"), old, old);
		utimesSync(join(src, "cmd", "main.go"), old, old);
		const fresh = await locateEngine(quiet, env, pkg, []);
		assert.deepEqual(fresh, { bin }, "a binary newer than every source is used as it is");
		// A built-in's syntax tree is a source too (embedded beside the .hcl).
		const tree = join(src, "policies", "p.hcl.tree");
		mkdirSync(dirname(tree));
		writeFileSync(tree, "");
		const later = new Date(Date.now() + 60_000);
		utimesSync(tree, later, later);
		assert.ok("problem" in (await locateEngine(quiet, env, pkg, [])), "a newer .hcl.tree rebuilds the engine");
		rmSync(tree);
		// So is an assembly file (jsonscan's block scan).
		const asm = join(src, "host", "jsonscan", "blocks_amd64.s");
		mkdirSync(dirname(asm), { recursive: true });
		writeFileSync(asm, "");
		utimesSync(asm, later, later);
		assert.ok("problem" in (await locateEngine(quiet, env, pkg, [])), "a newer .s rebuilds the engine");
		rmSync(asm);
		utimesSync(bin, new Date(Date.now() - 120_000), new Date(Date.now() - 120_000));
		const said: string[] = [];
		const failed = await locateEngine({ say: (x) => said.push(x), status: () => {} }, env, pkg, []);
		assert.ok("problem" in failed, JSON.stringify(failed));
		assert.match(failed.problem, /building the engine failed \(.*go build: exit status 1:\ncmd\/main\.go:1:1: expected declaration\)/);
		assert.ok(failed.problem.endsWith(`Run it to see why: cd ${src} && CGO_ENABLED=0 ${join(goDir, "go")} build -o ${bin} ./cmd/resetpolicy`), failed.problem);
		assert.match(said[0]!, /^resetpolicy: building the policy engine from /);
		// Without Go, a stale binary still runs.
		const stale = await locateEngine(quiet, { PATH: "", GOROOT: "", HOME: pkg }, pkg, []);
		assert.deepEqual(stale, { bin });
	} finally {
		rmSync(pkg, { recursive: true, force: true });
	}
});

test("pi install of the packed package builds its engine at first start and the policy answers", { timeout: 600_000 }, async (t) => {
	const npm = onPath("npm", process.env);
	if (npm === undefined) {
		t.skip("npm is not on PATH: the package cannot be packed here");
		return;
	}
	const dir = mkdtempSync(join(tmpdir(), "resetpolicy-install-"));
	try {
		// 1. Pack it as `npm pack` does (its prepack copies the engine's sources in).
		const out = execFileSync(npm, ["pack", "--pack-destination", dir, "--silent"], { cwd: extensionPath, encoding: "utf8" });
		const tarball = join(dir, out.trim().split("\n").pop()!);
		assert.ok(existsSync(tarball), `npm pack wrote ${out}`);
		assert.ok(!existsSync(join(extensionPath, "engine-src")), "postpack removed the copied sources");

		// 2. Install it with Pi's own installer into a fresh agent directory.
		const agentDir = join(dir, "agent");
		const pi = join(extensionPath, "node_modules", "@earendil-works", "pi-coding-agent", "dist", "cli.js");
		execFileSync(process.execPath, [pi, "install", `npm:@resetpolicy/pi@file:${tarball}`], {
			env: { ...process.env, PI_CODING_AGENT_DIR: agentDir, PI_OFFLINE: "1" },
			encoding: "utf8",
			stdio: ["ignore", "pipe", "pipe"],
		});
		const installed = join(agentDir, "npm", "node_modules", "@resetpolicy", "pi");
		assert.ok(existsSync(join(installed, "engine-src", "go.mod")), "the tarball carries the engine's sources");
		assert.ok(!existsSync(join(installed, "bin", "resetpolicy")), "nothing is built yet");

		// 3. Start a session on a machine where resetpolicy is not on PATH.
		const path = (process.env.PATH ?? "")
			.split(delimiter)
			.filter((d) => d !== "" && !existsSync(join(d, "resetpolicy")))
			.join(delimiter);
		await withEnv({ RESETPOLICY_BIN: undefined, PATH: path, PI_OFFLINE: "1" }, async () => {
			assert.equal(onPath("resetpolicy", process.env), undefined);
			const session = await startPi({
				agentDir,
				project: { ".pi/resetpolicy.hcl": 'use "wipe_memory" {\n  warning_runway = 20000\n}\n' },
			});
			try {
				// The session started while the engine built; the policy
				// comes into force when it is ready.
				for (let i = 0; i < 24_000 && !session.notices.some((n) => n.text.includes("the policy is in force from now on")); i++) {
					if (session.notices.some((n) => n.level === "error")) break;
					await new Promise((r) => setTimeout(r, 25));
				}
				const texts = session.notices.map((n) => n.text);
				assert.ok(texts.some((x) => x.startsWith("resetpolicy: building the policy engine from ")), texts.join("\n"));
				assert.ok(texts.some((x) => /^resetpolicy: engine built in \d+ s: /.test(x)), texts.join("\n"));
				assert.ok(
					session.statuses.some((s) => s?.startsWith("resetpolicy: building the engine") === true),
					"progress in the footer",
				);
				assert.ok(existsSync(join(installed, "bin", "resetpolicy")));
				assert.deepEqual(
					session.notices.filter((n) => n.level === "error"),
					[],
				);

				// 4. The policy answers: status names the project's value, and
				// /wipe-memory commits a reset boundary.
				await session.session.prompt("/resetpolicy status");
				const status = session.notices[session.notices.length - 1]!.text;
				assert.match(status, /policy wipe_memory \(.*resetpolicy\.hcl; project policy\)/);
				assert.match(status, /warning_runway = 20000/);
				session.respond(fauxAssistantMessage("notes saved"));
				await session.session.prompt("/wipe-memory");
				await settle(session);
				assert.ok(contiguous(labels(session.persisted()), BOUNDARY), labels(session.persisted()).join(", "));
			} finally {
				await session.dispose();
			}
		});
	} finally {
		rmSync(dir, { recursive: true, force: true });
		rmSync(join(dirname(extensionPath), "pi", "engine-src"), { recursive: true, force: true });
	}
});
