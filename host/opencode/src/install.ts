// Finding the engine binary, and building it when the package carries the
// engine's Go sources and the machine has a Go toolchain: `pi install` of
// the package is the whole installation.
//
// Where the binary comes from, first match wins:
//  1. RESETPOLICY_BIN, which must name an executable file (a path that
//     names nothing is that problem, not "not installed");
//  2. `resetpolicy` on PATH;
//  3. the package's own build, bin/resetpolicy below the package directory
//     (or below the user's cache directory when the package directory is
//     read-only), built from the engine's sources: engine-src/ in a packed
//     package (npm pack copies them in, scripts/pack-engine.mjs), or the
//     repository the package sits in (host/pi of a checkout). It is built
//     again when a source is newer than it.
// Without a binary and without Go, the notice says exactly what to run.

import { spawn } from "node:child_process";
import { accessSync, constants, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { delimiter, dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const MODULE = "github.com/resetpolicy/resetpolicy";

/** The package directory: host/pi of a checkout, or the installed package. */
export const packageDir = resolve(dirname(fileURLToPath(import.meta.url)), "..");

export type Located = { bin: string; built?: { seconds: number } } | { problem: string };

export interface Progress {
	/** A line for the user (a notice, or stderr without a UI). */
	say(text: string): void;
	/** The footer status while building; undefined clears it. */
	status(text: string | undefined): void;
}

/** Whether path is a file this process may execute. */
function executable(path: string): boolean {
	try {
		if (!statSync(path).isFile()) return false;
		accessSync(path, constants.X_OK);
		return true;
	} catch {
		return false;
	}
}

/** The first executable `name` in the PATH directories. */
export function onPath(name: string, env: NodeJS.ProcessEnv): string | undefined {
	for (const dir of (env.PATH ?? "").split(delimiter)) {
		if (dir === "") continue;
		const p = join(dir, name);
		if (executable(p)) return p;
	}
	return undefined;
}

/** The engine's Go module: engine-src/ of a packed package, else the checkout above host/pi. */
export function sourceDir(pkg: string = packageDir): string | undefined {
	for (const dir of [join(pkg, "engine-src"), resolve(pkg, "..", "..")]) {
		try {
			const mod = readFileSync(join(dir, "go.mod"), "utf8");
			if (new RegExp(`^module ${MODULE.replaceAll(".", "\\.")}\\s*$`, "m").test(mod)) return dir;
		} catch {
			// not there
		}
	}
	return undefined;
}

/** Where Go installs itself when it is not on PATH. */
export const GO_LOCATIONS = ["/usr/local/go/bin/go", join(homedir(), "go", "bin", "go"), join(homedir(), "sdk", "go", "bin", "go")];

/** A Go toolchain: `go` on PATH, $GOROOT/bin/go, or one of the usual install locations. */
export function goTool(env: NodeJS.ProcessEnv, locations: string[] = GO_LOCATIONS): string | undefined {
	const found = onPath("go", env);
	if (found !== undefined) return found;
	for (const p of [env.GOROOT !== undefined && env.GOROOT !== "" ? join(env.GOROOT, "bin", "go") : "", ...locations]) {
		if (p !== "" && executable(p)) return p;
	}
	return undefined;
}

/** Where the package's build goes: bin/ of the package when writable, else the user's cache. */
export function builtBinary(pkg: string = packageDir, env: NodeJS.ProcessEnv = process.env): string {
	const own = join(pkg, "bin");
	try {
		mkdirSync(own, { recursive: true });
		accessSync(own, constants.W_OK);
		return join(own, "resetpolicy");
	} catch {
		const cache = env.XDG_CACHE_HOME !== undefined && env.XDG_CACHE_HOME !== "" ? env.XDG_CACHE_HOME : join(homedir(), ".cache");
		return join(cache, "resetpolicy", "bin", "resetpolicy");
	}
}

/** The newest modification time of the engine's sources (Go and assembly files, embedded .hcl and .hcl.tree, go.mod, go.sum). */
export function newestSource(dir: string): number {
	let newest = 0;
	const walk = (d: string, depth: number): void => {
		if (depth > 8) return;
		for (const e of readdirSync(d, { withFileTypes: true })) {
			if (e.name.startsWith(".") || e.name === "node_modules" || e.name === "testdata" || e.name === "bin") continue;
			const p = join(d, e.name);
			if (e.isDirectory()) {
				// The extension itself is not the engine's source.
				if (p === packageDir) continue;
				walk(p, depth + 1);
			} else if ((e.name.endsWith(".go") && !e.name.endsWith("_test.go")) || e.name.endsWith(".s") || e.name.endsWith(".hcl") || e.name.endsWith(".hcl.tree") || e.name === "go.mod" || e.name === "go.sum") {
				newest = Math.max(newest, statSync(p).mtimeMs);
			}
		}
	};
	walk(dir, 0);
	return newest;
}

/** Finds the engine, building it when it must and can. */
export async function locateEngine(
	progress: Progress,
	env: NodeJS.ProcessEnv = process.env,
	pkg: string = packageDir,
	goLocations: string[] = GO_LOCATIONS,
): Promise<Located> {
	const set = env.RESETPOLICY_BIN;
	if (set !== undefined && set !== "") {
		if (!existsSync(set)) {
			return {
				problem: `RESETPOLICY_BIN is ${set}, and no file is there. Point it at a built engine, or unset it to let the extension find resetpolicy on PATH or build its own.`,
			};
		}
		if (!executable(set)) return { problem: `RESETPOLICY_BIN is ${set}, which is not an executable file (chmod +x ${set}, or point it at the engine binary).` };
		return { bin: set };
	}
	const path = onPath("resetpolicy", env);
	if (path !== undefined) return { bin: path };

	const bin = builtBinary(pkg, env);
	const src = sourceDir(pkg);
	if (src === undefined) {
		if (executable(bin)) return { bin };
		return { problem: `the engine is not installed and this package has no sources to build it from (${pkg}). Put resetpolicy on PATH or set RESETPOLICY_BIN to a built engine.` };
	}
	let stale = true;
	if (executable(bin)) {
		try {
			stale = newestSource(src) > statSync(bin).mtimeMs;
		} catch {
			stale = false;
		}
		if (!stale) return { bin };
	}
	const go = goTool(env, goLocations);
	if (go === undefined) {
		if (executable(bin)) return { bin }; // older than its sources, but it runs
		return {
			problem: `the engine is not built yet, and no Go toolchain was found to build it (go on PATH, $GOROOT/bin/go, ${goLocations.join(", ") || "no other place"}). Install Go 1.26 or later from https://go.dev/dl/ and start a new session, or build it yourself: cd ${src} && CGO_ENABLED=0 go build -o ${bin} ./cmd/resetpolicy`,
		};
	}
	return build(go, src, bin, progress, env);
}

/** Builds the engine into bin with go, showing its progress; a failure says what to run. */
function build(go: string, src: string, bin: string, progress: Progress, env: NodeJS.ProcessEnv): Promise<Located> {
	const start = Date.now();
	progress.say(`resetpolicy: building the policy engine from ${src} with ${go} (once; Go fetches the engine's modules if they are not cached)…`);
	progress.status("resetpolicy: building the engine…");
	mkdirSync(dirname(bin), { recursive: true });
	const tmp = `${bin}.${process.pid}.tmp`;
	return new Promise<Located>((done) => {
		let tail: string[] = [];
		let packages = 0;
		// The engine uses no C: built without cgo it is a static binary,
		// which Pi starts at every session without the dynamic loader and
		// libc (about 2 MB less resident, docs/performance.md).
		const child = spawn(go, ["build", "-v", "-o", tmp, "./cmd/resetpolicy"], {
			cwd: src,
			env: { ...env, CGO_ENABLED: "0" },
			stdio: ["ignore", "pipe", "pipe"],
		});
		const onData = (chunk: Buffer): void => {
			for (const line of chunk.toString().split("\n")) {
				if (line.trim() === "") continue;
				tail.push(line);
				if (tail.length > 20) tail = tail.slice(-20);
				// `go build -v` names each package as it compiles it.
				if (/^[\w.-]+(\/[\w.-]+)+$/.test(line.trim())) {
					packages++;
					progress.status(`resetpolicy: building the engine… ${packages} packages (${line.trim().split("/").slice(-1)[0]})`);
				}
			}
		};
		child.stdout.on("data", onData);
		child.stderr.on("data", onData);
		const fail = (why: string): void => {
			progress.status(undefined);
			rmSync(tmp, { force: true });
			done({ problem: `building the engine failed (${why}). Run it to see why: cd ${src} && CGO_ENABLED=0 ${go} build -o ${bin} ./cmd/resetpolicy` });
		};
		child.on("error", (err) => fail(err.message));
		child.on("close", (code, signal) => {
			if (code !== 0) {
				const last = tail.filter((l) => !/^[\w.-]+(\/[\w.-]+)+$/.test(l.trim())).slice(-5).join("\n");
				fail(`${go} build: ${signal ?? `exit status ${code}`}${last !== "" ? `:\n${last}` : ""}`);
				return;
			}
			try {
				renameSync(tmp, bin);
			} catch (err) {
				fail(err instanceof Error ? err.message : String(err));
				return;
			}
			const seconds = (Date.now() - start) / 1000;
			progress.status(undefined);
			progress.say(`resetpolicy: engine built in ${seconds.toFixed(0)} s: ${bin}`);
			done({ bin, built: { seconds } });
		});
	});
}
