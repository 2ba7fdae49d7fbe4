// Records a synthetic Pi 1.6 session for `resetpolicy replay` tests: Pi's
// real agent loop (createAgentSession, SessionManager, the built-in read
// tool) answered by pi-ai's faux provider, whose usage is Pi's own
// four-characters-a-token estimate of each request. Default settings
// (automatic compaction on, reserve 16384, default keepRecentTokens);
// the faux model's window is 64000 so that the context reaches the
// reserve, and Pi compacts, in a few dozen turns.
//
//   node host/pi/test/record-session.ts OUT.jsonl
//
// Run once; the output is committed under testdata/sessions/.

import { copyFileSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fauxAssistantMessage, fauxProvider, fauxToolCall, type TranscriptContext } from "@earendil-works/pi-ai";
import {
	createAgentSession,
	DefaultResourceLoader,
	ModelRuntime,
	SessionManager,
	SettingsManager,
} from "@earendil-works/pi-coding-agent";

const out = process.argv[2];
if (out === undefined) throw new Error("usage: record-session.ts OUT.jsonl");

const dir = mkdtempSync(join(tmpdir(), "resetpolicy-record-"));
const cwd = join(dir, "project");
const agentDir = join(dir, "agent");
const sessionDir = join(dir, "sessions");
for (const d of [cwd, agentDir, sessionDir]) mkdirSync(d, { recursive: true });
// Files the model reads: about 1500 tokens each.
for (let i = 1; i <= 6; i++) {
	writeFileSync(join(cwd, `notes${i}.txt`), `notes ${i}: ` + "the quick brown fox jumps over the lazy dog. ".repeat(135));
}

const faux = fauxProvider({ models: [{ id: "faux-1", contextWindow: 64000, maxTokens: 4096 }] });
const modelRuntime = await ModelRuntime.create({ authPath: join(agentDir, "auth.json"), modelsPath: null, refreshOnCreate: false });
modelRuntime.registerNativeProvider(faux.provider);
const settingsManager = SettingsManager.inMemory({}, { projectTrusted: true });
const resourceLoader = new DefaultResourceLoader({
	cwd,
	agentDir,
	settingsManager,
	noSkills: true,
	noPromptTemplates: true,
	noThemes: true,
	noContextFiles: true,
	systemPrompt: "You are a synthetic test agent.",
});
await resourceLoader.reload();
const sessionManager = SessionManager.create(cwd, sessionDir);
const { session } = await createAgentSession({
	cwd,
	agentDir,
	model: faux.getModel(),
	thinkingLevel: "off",
	modelRuntime,
	resourceLoader,
	sessionManager,
	settingsManager,
});

// Every request gets the next scripted answer, except Pi's compaction
// summaries, which get a summary.
const script: ReturnType<typeof fauxAssistantMessage>[] = [];
const isSummary = (c: TranscriptContext) => !JSON.stringify(c.messages.slice(0, 1)).includes("synthetic test agent");
const step = (c: TranscriptContext) => {
	if (isSummary(c)) return fauxAssistantMessage("## Goal\nRead the notes.\n## Progress\nNotes 1-6 read.");
	const next = script.shift();
	if (next === undefined) throw new Error("the script ran out of answers");
	return next;
};
faux.appendResponses(Array.from({ length: 200 }, () => step));

let n = 0;
for (let round = 0; round < 6; round++) {
	for (let i = 1; i <= 6; i++) {
		n++;
		script.push(fauxAssistantMessage([fauxToolCall("read", { path: `notes${i}.txt` }, { id: `call_${n}` })], { stopReason: "toolUse" }));
	}
	script.push(fauxAssistantMessage(`Round ${round + 1} done: every note read again.`));
	await session.prompt(`Round ${round + 1}: read notes 1 to 6, one at a time, and say when done.`);
	await session.waitForIdle();
}
await session.waitForIdle();
const file = session.sessionFile;
if (file === undefined) throw new Error("no session file");
copyFileSync(file, out);
session.dispose();
console.log(`recorded ${out}`);
