// The engine's first-start build in Pi's real loop: the session starts
// while `go build` runs, the policy comes into force when the engine is
// ready (one notice), a build that never ends is stopped at its time
// bound and on Pi's exit, a build with nowhere to write ends in one
// notice saying what to do, and only absolute PATH entries are searched
// for the engine and for go.
//
// Each test loads a copy of the package (its entry, src/ and package.json) whose
// engine-src/ is a stub module, with a stand-in `go` written by the test.

import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { test } from "node:test";
import { fauxAssistantMessage } from "@earendil-works/pi-ai";
import { BUILD_TIMEOUT_MS, goTool, onPath } from "../src/install.ts";
import { extensionPath, type Pi, startPi } from "./harness.ts";

const realBin = process.env.RESETPOLICY_BIN!;

/** A copy of the package with a stub engine module, and a directory for a stand-in go. */
function stubPackage(): { root: string; pkg: string; goDir: string } {
	const root = mkdtempSync(join(tmpdir(), "resetpolicy-build-"));
	const pkg = join(root, "pkg");
	mkdirSync(pkg);
	cpSync(join(extensionPath, "src"), join(pkg, "src"), { recursive: true });
	cpSync(join(extensionPath, "resetpolicy"), join(pkg, "resetpolicy"), { recursive: true });
	cpSync(join(extensionPath, "package.json"), join(pkg, "package.json"));
	symlinkSync(join(extensionPath, "node_modules"), join(pkg, "node_modules"));
	mkdirSync(join(pkg, "engine-src", "cmd", "resetpolicy"), { recursive: true });
	writeFileSync(join(pkg, "engine-src", "go.mod"), "module github.com/resetpolicy/resetpolicy\n\ngo 1.26\n");
	writeFileSync(join(pkg, "engine-src", "cmd", "resetpolicy", "main.go"), "package main\n\nfunc main() {}\n");
	const goDir = join(root, "go-bin");
	mkdirSync(goDir);
	return { root, pkg, goDir };
}

function script(path: string, body: string): void {
	writeFileSync(path, `#!/bin/sh\n${body}\n`);
	chmodSync(path, 0o755);
}

/** PATH without any resetpolicy or go, plus the given directories first. */
function cleanPath(...first: string[]): string {
	const rest = (process.env.PATH ?? "")
		.split(delimiter)
		.filter((d) => d !== "" && !existsSync(join(d, "resetpolicy")) && !existsSync(join(d, "go")));
	return [...first, ...rest].join(delimiter);
}

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

/** Waits, a bounded number of times, for cond. */
async function until(what: string, cond: () => boolean): Promise<void> {
	for (let i = 0; i < 1200; i++) {
		if (cond()) return;
		await new Promise((r) => setTimeout(r, 25));
	}
	assert.fail(`never happened: ${what}`);
}

/** Whether a process runs (a zombie does not). */
function running(pid: number): boolean {
	try {
		return !/^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, "utf8"));
	} catch {
		return false;
	}
}

const errors = (pi: Pi): string[] => pi.notices.filter((n) => n.level === "error").map((n) => n.text);

test("the session starts while the engine builds, and the policy comes into force when it is ready", async () => {
	const { root, pkg, goDir } = stubPackage();
	const release = join(root, "release");
	const started = join(root, "started");
	// The stand-in go "builds" an engine that runs the real one, once the
	// test lets it finish.
	script(
		join(goDir, "go"),
		`out=""; while [ $# -gt 0 ]; do [ "$1" = -o ] && out="$2"; shift; done
touch ${started}
while [ ! -e ${release} ]; do sleep 0.05; done
printf '#!/bin/sh\\nexec ${realBin} "$@"\\n' > "$out"; chmod +x "$out"`,
	);
	try {
		await withEnv({ RESETPOLICY_BIN: undefined, PATH: cleanPath(goDir), XDG_CACHE_HOME: join(root, "cache") }, async () => {
			const pi = await startPi({ extensionPath: pkg });
			try {
				await until("the build runs", () => existsSync(started));
				assert.ok(!existsSync(join(pkg, "bin", "resetpolicy")), "and has not finished when the session has started");
				assert.ok(pi.notices.some((n) => n.text.startsWith("resetpolicy: building the policy engine from ")));
				// The session is usable meanwhile, without a policy.
				pi.respond(fauxAssistantMessage("hello"));
				await pi.session.prompt("hi");
				assert.deepEqual(errors(pi), []);
				writeFileSync(release, "");
				await until("the policy in force", () => pi.notices.some((n) => n.text.includes("the policy is in force from now on")));
				const told = pi.notices.filter((n) => n.text.includes("engine built in"));
				assert.equal(told.length, 1, "the user is told once");
				assert.match(told[0]!.text, /^resetpolicy: engine built in \d+ s: .*bin\/resetpolicy; the policy is in force from now on\.$/);
				await pi.session.prompt("/resetpolicy status");
				assert.match(pi.notices[pi.notices.length - 1]!.text, /policy wipe_memory/);
				assert.equal(pi.statuses.filter((s) => s?.startsWith("resetpolicy: building") === true).length > 0, true);
				assert.equal(pi.statuses[pi.statuses.length - 1] === undefined || !pi.statuses[pi.statuses.length - 1]!.startsWith("resetpolicy: building"), true, "the footer is cleared");
				assert.deepEqual(errors(pi), []);
			} finally {
				await pi.dispose();
			}
		});
	} finally {
		rmSync(root, { recursive: true, force: true });
	}
});

test("a build that never ends is stopped at its bound: one notice, the footer cleared, the process gone", async () => {
	assert.equal(BUILD_TIMEOUT_MS, 10 * 60 * 1000, "docs/limits.md gives the bound as 10 minutes");
	const { root, pkg, goDir } = stubPackage();
	const pidFile = join(root, "go.pid");
	script(join(goDir, "go"), `echo $$ > ${pidFile}\nexec sleep 1000`);
	try {
		await withEnv(
			{ RESETPOLICY_BIN: undefined, PATH: cleanPath(goDir), XDG_CACHE_HOME: join(root, "cache"), RESETPOLICY_BUILD_TIMEOUT_MS: "1500" },
			async () => {
				const pi = await startPi({ extensionPath: pkg });
				try {
					await until("go started", () => existsSync(pidFile) && readFileSync(pidFile, "utf8").trim() !== "");
					const pid = Number(readFileSync(pidFile, "utf8"));
					assert.ok(running(pid), "the build is still running after the session started");
					assert.deepEqual(errors(pi), []);
					await until("the notice", () => errors(pi).length > 0);
					assert.equal(errors(pi).length, 1);
					assert.match(errors(pi)[0]!, /did not finish within 2 s and was stopped/);
					assert.match(errors(pi)[0]!, /RESETPOLICY_BUILD_TIMEOUT_MS/);
					assert.equal(pi.statuses[pi.statuses.length - 1], undefined, "the footer is cleared");
					await until("go killed", () => !running(pid));
				} finally {
					await pi.dispose();
				}
			},
		);
	} finally {
		rmSync(root, { recursive: true, force: true });
	}
});

test("Pi's exit stops a build still running", async () => {
	const { root, pkg, goDir } = stubPackage();
	const pidFile = join(root, "go.pid");
	script(join(goDir, "go"), `echo $$ > ${pidFile}\nexec sleep 1000`);
	// A Node process that starts the build as the extension does and exits
	// once go runs.
	const child = join(root, "child.ts");
	writeFileSync(
		child,
		`import { existsSync, readFileSync } from "node:fs";
import { findEngine } from ${JSON.stringify(join(pkg, "src", "install.ts"))};
const found = findEngine({ say: () => {}, status: () => {} });
if (!("pending" in found)) { console.error(JSON.stringify(found)); process.exit(3); }
const wait = () => existsSync(${JSON.stringify(pidFile)}) && readFileSync(${JSON.stringify(pidFile)}, "utf8").trim() !== "" ? process.exit(0) : setTimeout(wait, 20);
wait();
`,
	);
	try {
		const env: NodeJS.ProcessEnv = { ...process.env, PATH: cleanPath(goDir), XDG_CACHE_HOME: join(root, "cache") };
		delete env.RESETPOLICY_BIN;
		const code = await new Promise<number | null>((done) => {
			const p = spawn(process.execPath, [child], { env, stdio: ["ignore", "inherit", "inherit"] });
			p.on("close", done);
		});
		assert.equal(code, 0);
		const pid = Number(readFileSync(pidFile, "utf8"));
		await until("go killed with Pi's exit", () => !running(pid));
	} finally {
		rmSync(root, { recursive: true, force: true });
	}
});

test("a build with nowhere to write ends in one notice saying what to do", async () => {
	const { root, pkg, goDir } = stubPackage();
	const ran = join(root, "go-ran");
	script(join(goDir, "go"), `touch ${ran}; exit 1`);
	// Neither the package's bin/ nor the user's cache can be made (a file
	// stands where each directory would go; permissions would not stop
	// root).
	writeFileSync(join(pkg, "bin"), "");
	writeFileSync(join(root, "cache"), "");
	try {
		await withEnv({ RESETPOLICY_BIN: undefined, PATH: cleanPath(goDir), XDG_CACHE_HOME: join(root, "cache", "sub"), HOME: join(root, "cache") }, async () => {
			const pi = await startPi({ extensionPath: pkg });
			try {
				await until("the notice", () => errors(pi).length > 0);
				await new Promise((r) => setTimeout(r, 100));
				assert.equal(errors(pi).length, 1, errors(pi).join("\n"));
				assert.match(errors(pi)[0]!, /no writable place for it/);
				assert.match(errors(pi)[0]!, /RESETPOLICY_BIN=~\/bin\/resetpolicy/);
				assert.ok(!existsSync(ran), "go is not started for a build with nowhere to go");
				assert.ok(!pi.statuses.some((s) => s?.startsWith("resetpolicy: building") === true), "the footer never says building");
			} finally {
				await pi.dispose();
			}
		});
	} finally {
		rmSync(root, { recursive: true, force: true });
	}
});

test("a project's relative PATH entry supplies neither the engine nor go", async () => {
	const { root, pkg } = stubPackage();
	const project = join(root, "project");
	const dotBin = join(project, "node_modules", ".bin");
	mkdirSync(dotBin, { recursive: true });
	const ran = join(root, "project-binary-ran");
	script(join(dotBin, "resetpolicy"), `touch ${ran}; exec ${realBin} "$@"`);
	script(join(dotBin, "go"), `touch ${ran}; exit 1`);
	// Without sources to build from, the engine must come from PATH.
	rmSync(join(pkg, "engine-src"), { recursive: true });
	const cwd = process.cwd();
	process.chdir(project);
	try {
		await withEnv(
			{ RESETPOLICY_BIN: undefined, PATH: ["node_modules/.bin", cleanPath()].join(delimiter), GOROOT: "go", XDG_CACHE_HOME: join(root, "cache") },
			async () => {
				assert.equal(onPath("resetpolicy", process.env), undefined);
				assert.equal(goTool(process.env, []), undefined, "go from a relative PATH entry or GOROOT");
				const pi = await startPi({ extensionPath: pkg });
				try {
					await until("the notice", () => errors(pi).length > 0);
					assert.equal(errors(pi).length, 1);
					assert.match(errors(pi)[0]!, /the engine is not installed/);
					assert.ok(!existsSync(ran), "the project's own resetpolicy or go ran");
				} finally {
					await pi.dispose();
				}
			},
		);
	} finally {
		process.chdir(cwd);
		rmSync(root, { recursive: true, force: true });
	}
});
