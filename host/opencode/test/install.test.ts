// Installing the plugin as an opencode user does: the tarball `npm pack`
// makes, installed with `opencode plugin` (opencode's own installer, which
// puts the package in its cache and names it in the project's
// .opencode/opencode.json), on a PATH without resetpolicy
// and without RESETPOLICY_BIN. The plugin builds its engine once from the
// sources the tarball carries, says so in opencode's log, and the policy is
// in force: the wipe_memory reminder reaches the model server.

import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { test } from "node:test";
import { goTool, onPath } from "../src/install.ts";
import { dump, env, newSession, noticesMatching, opencodeBin, pkg, preparePackages, project, prompt, startServer } from "./harness.ts";

const REMINDER = "Context budget reminder";

/** PATH without any directory that holds a resetpolicy binary. */
function pathWithoutEngine(): string {
	return (process.env.PATH ?? "")
		.split(delimiter)
		.filter((d) => d !== "" && onPath("resetpolicy", { PATH: d }) === undefined)
		.join(delimiter);
}

test("the packed plugin, installed with `opencode plugin`, builds its engine once and the policy is in force", { timeout: 480_000 }, async (t) => {
	const npm = onPath("npm", process.env);
	const go = goTool(process.env);
	if (npm === undefined || go === undefined) {
		const why = `${npm === undefined ? "npm" : "go"} is not on PATH: the package cannot be packed and built here`;
		if (process.env.CI === "true") assert.fail(why);
		t.skip(why);
		return;
	}
	const dir = mkdtempSync(join(tmpdir(), "rp-oc-install-"));
	try {
		// 1. Pack it as `npm pack` does (its prepack copies the engine's sources in).
		const out = execFileSync(npm, ["pack", "--pack-destination", dir, "--silent"], { cwd: pkg, encoding: "utf8" });
		const tarball = join(dir, out.trim().split("\n").pop()!);
		assert.ok(existsSync(tarball), `npm pack wrote ${out}`);
		assert.ok(!existsSync(join(pkg, "engine-src")), "postpack removed the copied sources");

		// 2. opencode installs it into its own package cache; the Go and npm
		// caches of this machine are shared so that neither the build nor the
		// install downloads what is already here.
		const goEnv = execFileSync(go, ["env", "GOCACHE", "GOMODCACHE"], { encoding: "utf8" }).trim().split("\n");
		const npmCache = execFileSync(npm, ["config", "get", "cache"], { encoding: "utf8" }).trim();
		const extra = {
			PATH: pathWithoutEngine(),
			RESETPOLICY_BIN: "",
			GOCACHE: goEnv[0]!,
			GOMODCACHE: goEnv[1]!,
			...(process.env.GOPROXY !== undefined ? { GOPROXY: process.env.GOPROXY } : {}),
			...(process.env.GOFLAGS !== undefined ? { GOFLAGS: process.env.GOFLAGS } : {}),
			npm_config_cache: npmCache,
			npm_config_prefer_offline: "true",
		};
		const server = await startServer(extra);
		try {
			const spec = `@resetpolicy/opencode@file:${tarball}`;
			const p = await project(server, { plugin: null });
			try {
				// The project's .opencode holds the packages opencode installs
				// into every configuration directory (as in a project opencode
				// has opened before; a fresh one costs an install of them at
				// the first instance, about 8 s of CPU): what is installed
				// below is the plugin alone.
				preparePackages(join(p.dir, ".opencode"));
				// What a user runs in the project: opencode's own plugin
				// installer, which names the plugin in .opencode/opencode.json.
				execFileSync(opencodeBin, ["plugin", spec], { cwd: p.dir, env: env(server.home, extra), stdio: ["ignore", "pipe", "pipe"] });
				assert.deepEqual(JSON.parse(readFileSync(join(p.dir, ".opencode", "opencode.json"), "utf8")).plugin, [spec]);
				const sid = await newSession(p);
				// 170000 of 200000 tokens: past the reminder's threshold (159040).
				p.model.push({ text: "a", usage: { prompt: 170000, completion: 10 } });
				await prompt(p, sid, "one");
				p.model.push({ text: "b" });
				await prompt(p, sid, "two");
				const tools = (p.model.chats[0]!.body.tools ?? []).map((x) => x.function.name);
				assert.ok(tools.includes("wipe_memory"), `the policy's tool reaches the model: ${tools.join(",")}`);
				assert.equal(p.model.chats[1]!.lines.filter((l) => l.includes(REMINDER)).length, 1, dump(p));
			} finally {
				await p.close();
			}

			const building = await noticesMatching(server, /building the policy engine from/);
			assert.equal(building.length, 1, building.join("\n"));
			const src = /from (\S+\/node_modules\/@resetpolicy\/opencode\/engine-src) with/.exec(building[0]!);
			assert.ok(src !== null, `the engine is built from the installed package's engine-src: ${building[0]}`);
			const installed = src[1]!.slice(0, -"/engine-src".length);
			assert.ok(installed.startsWith(server.home), `opencode installed the package into its own cache: ${installed}`);
			assert.equal(JSON.parse(readFileSync(join(installed, "package.json"), "utf8")).name, "@resetpolicy/opencode");
			assert.ok(existsSync(join(installed, "bin", "resetpolicy")), "the engine is built inside the installed package");
			assert.ok(!existsSync(join(installed, "node_modules", "opencode-linux-x64")) && !existsSync(join(installed, "..", "..", "opencode-linux-x64")), "installing the plugin does not install a second opencode");
			assert.equal((await noticesMatching(server, /engine built in \d+ s/)).length, 1);
			// opencode has no status line: the build's progress is in its log.
			assert.ok((await noticesMatching(server, /resetpolicy: building the engine…/)).length >= 1, "the build's progress reaches opencode's log");

			// 3. Another project names the same package in its opencode.json:
			// the installed package is reused and its engine found, not rebuilt.
			const again = await project(server, { plugin: spec });
			try {
				const sid = await newSession(again);
				again.model.push({ text: "c" });
				await prompt(again, sid, "three");
				const tools = (again.model.chats[0]!.body.tools ?? []).map((x) => x.function.name);
				assert.ok(tools.includes("wipe_memory"), tools.join(","));
			} finally {
				await again.close();
			}
			assert.equal((await noticesMatching(server, /building the policy engine from/)).length, 1, "the engine is built once");
		} finally {
			await server.close();
		}
	} finally {
		rmSync(dir, { recursive: true, force: true });
	}
});
