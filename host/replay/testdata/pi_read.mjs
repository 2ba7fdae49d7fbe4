// What Pi 1.6 reads of a session file, as the replay must: the entries of
// loadEntriesFromFile, the reader Pi opens a session with (the file
// decoded as Node decodes UTF-8, JSON.parse per line, a line it throws on
// dropped, no session unless the first entry is a header), and the count
// parseSessionEntries reads; then on the active branch, Pi's own estimate
// before every answer (as pi_estimate.mjs) and the compactions.
//
//   node pi_read.mjs PI_PACKAGE_DIR SESSION.jsonl
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { join } from "node:path";

const [pkg, file] = process.argv.slice(2);
const core = (p) => pathToFileURL(join(pkg, "dist", "core", p)).href;
const sm = await import(core("session-manager.js"));
const comp = await import(core("compaction/compaction.js"));

// parseSessionEntries trims the whole text first, and so reads a header
// after a byte order mark, which loadEntriesFromFile, the reader a
// session is opened with, drops; the rest they read alike. The replay
// reads as the session is opened.
const parsed = sm.parseSessionEntries(readFileSync(file, "utf8")).length;
const entries = sm.loadEntriesFromFile(file);
const session = entries.length > 0;
sm.migrateSessionEntries(entries);
const body = entries.filter((e) => e.type !== "session");
const byId = new Map(body.map((e) => [e.id, e]));
const leaf = body.length > 0 ? body[body.length - 1] : undefined;
const branch = [];
for (let e = leaf; e; e = e.parentId ? byId.get(e.parentId) : undefined) branch.push(e);
branch.reverse();

const answers = [];
for (let i = 0; i < branch.length; i++) {
	const e = branch[i];
	if (e.type !== "message" || e.message.role !== "assistant") continue;
	const prev = branch[i - 1];
	if (prev === undefined) {
		// The branch starts at an answer (its parent's line was dropped):
		// nothing before it.
		answers.push({ id: e.id, tokens: 0 });
		continue;
	}
	const projection = sm.buildSessionProjection(body, prev.id, byId);
	answers.push({ id: e.id, tokens: comp.estimateProjectedContextTokens(projection, branch.slice(0, i)).tokens });
}
const compactions = branch.filter((e) => e.type === "compaction").length;
process.stdout.write(JSON.stringify({ session, entries: entries.length, parsed, answers, compactions }) + "\n");
