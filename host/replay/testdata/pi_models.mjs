// pi-ai's model registry, the source Pi itself takes context windows
// from: {"version": V, "models": [[provider, id, contextWindow], ...]}.
//
//   node pi_models.mjs PI_AI_PACKAGE_DIR
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { join } from "node:path";

const [pkg] = process.argv.slice(2);
const version = JSON.parse(readFileSync(join(pkg, "package.json"), "utf8")).version;
const { MODELS } = await import(pathToFileURL(join(pkg, "dist", "models.generated.js")).href);
const models = [];
for (const [provider, byId] of Object.entries(MODELS)) {
	for (const [id, m] of Object.entries(byId)) {
		if (typeof m.contextWindow === "number" && m.contextWindow > 0) models.push([provider, m.id ?? id, m.contextWindow]);
	}
}
models.sort((a, b) => (a[0] + "\0" + a[1] < b[0] + "\0" + b[1] ? -1 : 1));
process.stdout.write(JSON.stringify({ version, models }) + "\n");
