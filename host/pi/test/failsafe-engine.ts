// A stand-in engine for the fail-safe tests, so that no test hook lives in
// the extension or the engine. It runs the real engine (FAILSAFE_REAL_BIN)
// and passes every line through, until a `decide` of the event FAILSAFE_ON
// arrives. Then, once (FAILSAFE_SPENT names a file that marks the trigger
// as spent, so a restarted engine behaves), it either dies by SIGKILL with
// the request unanswered, as an OOM kill would (FAILSAFE_MODE=kill), or
// stops answering while it stays alive (FAILSAFE_MODE=stall). With
// FAILSAFE_MODE=crash it dies at start instead, once, before it reads a
// request, as a binary that crashes on start-up would. With
// FAILSAFE_MODE=hold it holds, once, the first request of the method
// FAILSAFE_METHOD (passing every other line on), writes the file
// FAILSAFE_HELD, and sends the request on once the file FAILSAFE_RELEASE
// exists: a test then acts while the extension awaits that answer.

import { spawn } from "node:child_process";
import { existsSync, watch, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { createInterface } from "node:readline";

const spent = process.env.FAILSAFE_SPENT ?? "";
if (process.env.FAILSAFE_MODE === "crash" && spent !== "" && !existsSync(spent)) {
	writeFileSync(spent, "");
	process.stderr.write("panic: the stand-in engine crashes at start\n");
	process.exit(2);
}

const real = spawn(process.env.FAILSAFE_REAL_BIN ?? "resetpolicy", process.argv.slice(2), {
	stdio: ["pipe", "inherit", "inherit"],
});
real.on("exit", (code) => process.exit(code ?? 1));

let stalled = false;
const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
lines.on("line", (line) => {
	if (stalled) return;
	let msg: { method?: string; params?: { event?: { event?: string } } } = {};
	try {
		msg = JSON.parse(line) as typeof msg;
	} catch {
		// passed on as it is
	}
	if (process.env.FAILSAFE_MODE === "hold" && msg.method === process.env.FAILSAFE_METHOD && spent !== "" && !existsSync(spent)) {
		writeFileSync(spent, "");
		const release = process.env.FAILSAFE_RELEASE ?? "";
		const watcher = watch(dirname(release), () => {
			if (!existsSync(release)) return;
			watcher.close();
			real.stdin.write(`${line}\n`);
		});
		writeFileSync(process.env.FAILSAFE_HELD ?? "", "");
		return;
	}
	if (msg.method === "decide" && msg.params?.event?.event === process.env.FAILSAFE_ON && spent !== "" && !existsSync(spent)) {
		writeFileSync(spent, "");
		if (process.env.FAILSAFE_MODE === "kill") {
			real.kill("SIGKILL");
			process.kill(process.pid, "SIGKILL");
		}
		stalled = true;
		return;
	}
	real.stdin.write(`${line}\n`);
});
lines.on("close", () => real.stdin.end());
