// Finding the engine binary, and building it when the package carries the
// engine's Go sources and the machine has a Go toolchain: `pi install` of
// the package is the whole installation.
//
// Where the binary comes from, first match wins:
//  1. RESETPOLICY_BIN, which must name an executable file (a path that
//     names nothing is that problem, not "not installed");
//  2. `resetpolicy` on PATH, absolute entries only: a relative entry
//     (`node_modules/.bin`) names a directory of whatever project Pi runs
//     in, trusted or not, so it is skipped, as for go;
//  3. the package's own build, bin/resetpolicy below the package directory
//     (or below the user's cache directory when the package directory is
//     read-only), built from the engine's sources: engine-src/ in a packed
//     package (npm pack copies them in, scripts/pack-engine.mjs), or the
//     repository the package sits in (host/pi of a checkout). It is built
//     again when a source is newer than it.
// Without a binary and without Go, the notice says exactly what to run.
//
// The build is bounded in time (RESETPOLICY_BUILD_TIMEOUT_MS, 10 minutes
// by default) and killed, with every process it started, when it runs
// past that or when Pi exits; every way it can fail (go missing or
// killed, no writable place for the binary, a failing compile) ends in a
// problem that says what to do, and the footer is cleared.

import { spawn } from "node:child_process";
import { accessSync, constants, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { delimiter, dirname, isAbsolute, join, resolve } from "node:path";
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

/**
 * The first executable `name` in the PATH directories that are absolute:
 * an empty or relative entry would resolve against the directory Pi runs
 * in, a project that may supply its own `resetpolicy` or `go`.
 */
export function onPath(name: string, env: NodeJS.ProcessEnv): string | undefined {
	for (const dir of (env.PATH ?? "").split(delimiter)) {
		if (!isAbsolute(dir)) continue;
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
	for (const p of [env.GOROOT !== undefined && isAbsolute(env.GOROOT) ? join(env.GOROOT, "bin", "go") : "", ...locations]) {
		if (p !== "" && isAbsolute(p) && executable(p)) return p;
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
		const cache = env.XDG_CACHE_HOME !== undefined && isAbsolute(env.XDG_CACHE_HOME) ? env.XDG_CACHE_HOME : join(homedir(), ".cache");
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

/** A build under way: what it will find, once done. */
export type Pending = { pending: Promise<Located> };

/** Finds the engine, building it when it must and can, and waits for the build. */
export async function locateEngine(
	progress: Progress,
	env: NodeJS.ProcessEnv = process.env,
	pkg: string = packageDir,
	goLocations: string[] = GO_LOCATIONS,
): Promise<Located> {
	const found = findEngine(progress, env, pkg, goLocations);
	if (!("pending" in found)) return found;
	// The build does not keep Node running (Pi's exit stops it); a caller
	// that waits for it does.
	const keep = setInterval(() => {}, 1 << 30);
	try {
		return await found.pending;
	} finally {
		clearInterval(keep);
	}
}

/**
 * Finds the engine at once, or starts its build and returns it pending:
 * the caller need not wait for a build (Pi's session start does not).
 * Anything thrown on the way is a problem, never an exception.
 */
export function findEngine(
	progress: Progress,
	env: NodeJS.ProcessEnv = process.env,
	pkg: string = packageDir,
	goLocations: string[] = GO_LOCATIONS,
): Located | Pending {
	try {
		return findEngineOrThrow(progress, env, pkg, goLocations);
	} catch (err) {
		progress.status(undefined);
		return { problem: `looking for the engine failed: ${err instanceof Error ? err.message : String(err)}. Set RESETPOLICY_BIN to a built engine (cd ${sourceDir(pkg) ?? pkg} && CGO_ENABLED=0 go build -o ~/bin/resetpolicy ./cmd/resetpolicy).` };
	}
}

/** Builds under way, by the binary they write: a second session start waits for the first's. */
const building = new Map<string, Promise<Located>>();

function findEngineOrThrow(progress: Progress, env: NodeJS.ProcessEnv, pkg: string, goLocations: string[]): Located | Pending {
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
	let pending = building.get(bin);
	if (pending === undefined) {
		pending = build(go, src, bin, progress, env).finally(() => building.delete(bin));
		building.set(bin, pending);
	}
	return { pending };
}

/** How long a build may run (RESETPOLICY_BUILD_TIMEOUT_MS overrides it). */
export const BUILD_TIMEOUT_MS = 10 * 60 * 1000;

function buildTimeout(env: NodeJS.ProcessEnv): number {
	const ms = Number(env.RESETPOLICY_BUILD_TIMEOUT_MS);
	return Number.isFinite(ms) && ms > 0 ? ms : BUILD_TIMEOUT_MS;
}

/**
 * Builds the engine into bin with go, showing its progress; every failure
 * is a problem that says what to run, and clears the footer.
 */
function build(go: string, src: string, bin: string, progress: Progress, env: NodeJS.ProcessEnv): Promise<Located> {
	const start = Date.now();
	const yourself = `cd ${src} && CGO_ENABLED=0 ${go} build -o ${bin} ./cmd/resetpolicy`;
	try {
		mkdirSync(dirname(bin), { recursive: true });
	} catch (err) {
		return Promise.resolve({
			problem: `the engine cannot be built: there is no writable place for it (${errorMessage(err)}). Build it where you can write and point RESETPOLICY_BIN at it: cd ${src} && CGO_ENABLED=0 ${go} build -o ~/bin/resetpolicy ./cmd/resetpolicy, then RESETPOLICY_BIN=~/bin/resetpolicy`,
		});
	}
	progress.say(`resetpolicy: building the policy engine from ${src} with ${go} (once; Go fetches the engine's modules if they are not cached)…`);
	progress.status("resetpolicy: building the engine…");
	const tmp = `${bin}.${process.pid}.tmp`;
	const limit = buildTimeout(env);
	return new Promise<Located>((done) => {
		let tail: string[] = [];
		let packages = 0;
		let settled = false;
		let timedOut = false;
		// The engine uses no C: built without cgo it is a static binary,
		// which Pi starts at every session without the dynamic loader and
		// libc (about 2 MB less resident, docs/performance.md). The build
		// is a process group of its own, so that stopping it stops the
		// compilers and downloads it started too.
		let child: ReturnType<typeof spawn>;
		try {
			child = spawn(go, ["build", "-v", "-o", tmp, "./cmd/resetpolicy"], {
				cwd: src,
				env: { ...env, CGO_ENABLED: "0" },
				stdio: ["ignore", "pipe", "pipe"],
				detached: true,
			});
		} catch (err) {
			progress.status(undefined);
			done({ problem: `building the engine failed (${errorMessage(err)}). Run it to see why: ${yourself}` });
			return;
		}
		const kill = (): void => {
			try {
				if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
			} catch {
				// already gone
			}
		};
		// Pi's exit ends the build: it is not waited for, and not left behind.
		process.once("exit", kill);
		child.unref();
		const timer = setTimeout(() => {
			timedOut = true;
			kill();
		}, limit);
		timer.unref();
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
		child.stdout?.on("data", onData);
		child.stderr?.on("data", onData);
		// The pipes do not keep Pi running either.
		(child.stdout as unknown as { unref?: () => void } | null)?.unref?.();
		(child.stderr as unknown as { unref?: () => void } | null)?.unref?.();
		const finish = (): boolean => {
			if (settled) return false;
			settled = true;
			clearTimeout(timer);
			process.removeListener("exit", kill);
			return true;
		};
		const fail = (why: string): void => {
			if (!finish()) return;
			progress.status(undefined);
			try {
				rmSync(tmp, { force: true });
			} catch {
				// nothing to remove
			}
			done({ problem: `building the engine failed (${why}). Run it to see why: ${yourself}` });
		};
		child.on("error", (err) => fail(err.message));
		child.on("close", (code, signal) => {
			if (timedOut) {
				fail(`${go} build did not finish within ${Math.round(limit / 1000)} s and was stopped; a module proxy that does not answer, or a go that never exits, does this. Set RESETPOLICY_BUILD_TIMEOUT_MS to allow longer`);
				return;
			}
			if (code !== 0) {
				const last = tail.filter((l) => !/^[\w.-]+(\/[\w.-]+)+$/.test(l.trim())).slice(-5).join("\n");
				fail(`${go} build: ${signal ?? `exit status ${code}`}${last !== "" ? `:\n${last}` : ""}`);
				return;
			}
			try {
				renameSync(tmp, bin);
			} catch (err) {
				fail(errorMessage(err));
				return;
			}
			if (!finish()) return;
			const seconds = (Date.now() - start) / 1000;
			progress.status(undefined);
			done({ bin, built: { seconds } });
		});
	});
}

function errorMessage(err: unknown): string {
	return err instanceof Error ? err.message : String(err);
}
