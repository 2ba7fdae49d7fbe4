// Pi 1.6's own estimate of a recorded session, request by request: for
// every assistant message on the active branch, the context Pi would
// report just before it (getContextUsage: estimateProjectedContextTokens,
// which is estimateContextTokens unless a compaction makes the latest
// usage stale) from the branch up to the entry before it.
//
//   node pi_estimate.mjs PI_PACKAGE_DIR SESSION.jsonl
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { join } from "node:path";

const [pkg, file] = process.argv.slice(2);
const core = (p) => pathToFileURL(join(pkg, "dist", "core", p)).href;
const sm = await import(core("session-manager.js"));
const comp = await import(core("compaction/compaction.js"));

const entries = sm.parseSessionEntries(readFileSync(file, "utf8"));
sm.migrateSessionEntries(entries);
const body = entries.filter((e) => e.type !== "session");
const byId = new Map(body.map((e) => [e.id, e]));
const leaf = body.length > 0 ? body[body.length - 1] : undefined;
const branch = [];
for (let e = leaf; e; e = e.parentId ? byId.get(e.parentId) : undefined) branch.push(e);
branch.reverse();

const out = [];
for (let i = 0; i < branch.length; i++) {
	const e = branch[i];
	if (e.type !== "message" || e.message.role !== "assistant") continue;
	const prev = branch[i - 1];
	const projection = sm.buildSessionProjection(body, prev.id, byId);
	const est = comp.estimateProjectedContextTokens(projection, branch.slice(0, i));
	const plain = comp.estimateContextTokens(projection.messages);
	out.push({ id: e.id, tokens: est.tokens, plain: plain.tokens, usage: est.usageTokens });
}
process.stdout.write(JSON.stringify(out) + "\n");
