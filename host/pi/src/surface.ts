// The policy's surface in Pi: the tools and commands the policy declares
// (registered once per name, each reporting a tool or command event), the
// dialog a command's ask effects open, and the host's own /resetpolicy
// command (status, on, off).

import type { ExtensionCommandContext, ExtensionContext } from "@earendil-works/pi-coding-agent";
import { type TSchema, Type } from "typebox";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { errorText } from "./engine.ts";
import type { InitializeResult, PolicyTool } from "./protocol.ts";
import { apply, simple } from "./effects.ts";
import { confirmWindow, decide } from "./facts.ts";
import { guard, holdForExit, type HostState, Outcome, say } from "./state.ts";

const HOST_COMMAND_HELP = [
	"/resetpolicy status  the policy in force, where it comes from, its params, and the engine",
	"/resetpolicy on      switch the policy on for this session",
	"/resetpolicy off     switch it off for this session (no warnings, no resets)",
].join("\n");

/** Why the engine is not running, as far as the host knows. */
function downReason(h: HostState): string {
	return h.engine?.reason ?? h.downReason ?? "not started";
}

export async function onHostCommand(h: HostState, args: string, ctx: ExtensionCommandContext): Promise<void> {
	h.lastCtx = ctx;
	if (args === "on" || args === "off") {
		if (!h.live) {
			say(ctx, `resetpolicy: the policy engine is not running (${downReason(h)}).`, "error");
			return;
		}
		h.enabled = args === "on";
		h.generation++;
		await guard(h, ctx, () => simple(h, ctx, "toggle", { on: h.enabled }));
		say(ctx, `resetpolicy: ${h.init?.policy.name ?? "the policy"} is ${args} for this session.`, "info");
		return;
	}
	// Every reply goes through say, which reaches print and JSON mode too.
	if (args === "help") {
		say(ctx, HOST_COMMAND_HELP, "info");
		return;
	}
	if (args !== "" && args !== "status") {
		say(ctx, `resetpolicy: unknown subcommand "${args}"; use /resetpolicy status, /resetpolicy on, /resetpolicy off or /resetpolicy help.`, "warning");
		return;
	}
	const lines: string[] = [];
	if (h.init !== undefined) {
		const p = h.init.policy;
		if (h.init.fallback === true) {
			// The configured policy did not load: say so before naming the one in force.
			const first = (h.init.error ?? "").split("\n").slice(0, 2).join(" ").replace(/^resetpolicy: /, "");
			lines.push(`the configured policy failed to load: ${first}`);
			lines.push(`in force instead: ${p.name} (${p.source === "builtin" ? "built-in" : p.source}); fix the file and start a new session (or /tree) to load it`);
		}
		// A project's policy file is both the source and the origin's file: name it once.
		const source = p.source === "builtin" ? "built-in" : p.source;
		const origin = p.origin.endsWith(` ${p.source}`) ? p.origin.slice(0, -(p.source.length + 1)) : p.origin;
		lines.push(`policy ${p.name} (${source}; ${origin})${h.enabled ? "" : " — off"}`);
		for (const prm of h.init.surface.params) {
			lines.push(`  ${prm.name} = ${JSON.stringify(prm.value)}  (${prm.origin})`);
			for (const sh of prm.shadowed ?? []) lines.push(`    shadows ${prm.name} = ${sh.value} from ${sh.origin}`);
		}
		if (h.init.decisionLog !== undefined) lines.push(`decision log ${h.init.decisionLog}`);
	}
	lines.push(h.live ? `engine running; window ${h.windowId}` : `engine not running (${downReason(h)})`);
	if (!ctx.isProjectTrusted() && existsSync(join(ctx.cwd, ".pi", "resetpolicy.hcl"))) {
		lines.push(
			".pi/resetpolicy.hcl exists but was ignored: this project is not trusted. Trust it with /trust (or start pi with --approve), then start a new session.",
		);
	}
	// The reply path every command uses (say): a notice with a UI, stderr
	// in print and JSON mode, where ctx.ui.notify shows nothing.
	say(ctx, lines.join("\n"), "info");
}

export function registerSurface(h: HostState, init: InitializeResult): void {
	for (const tool of init.surface.tools) {
		if (h.registeredTools.has(tool.name)) continue;
		h.registeredTools.add(tool.name);
		registerPolicyTool(h, tool);
	}
	for (const cmd of init.surface.commands) {
		if (h.registeredCommands.has(cmd.name) || cmd.name === "resetpolicy") continue;
		h.registeredCommands.add(cmd.name);
		h.pi.registerCommand(cmd.name, {
			description: cmd.description,
			handler: (args, ctx) => onPolicyCommand(h, cmd.name, args, ctx),
		});
	}
}

function registerPolicyTool(h: HostState, tool: PolicyTool): void {
	const props: Record<string, TSchema> = {};
	for (const p of tool.parameters) {
		const opts = { description: p.description };
		let s: TSchema;
		switch (p.type) {
			case "number":
				s = Type.Number(opts);
				break;
			case "integer":
				s = Type.Integer(opts);
				break;
			case "boolean":
				s = Type.Boolean(opts);
				break;
			default:
				s = Type.String(opts);
		}
		props[p.name] = p.required ? s : Type.Optional(s);
	}
	h.pi.registerTool({
		name: tool.name,
		label: tool.name,
		description: tool.description,
		parameters: Type.Object(props),
		execute: async (_id, params, _signal, _onUpdate, ctx) => {
			h.lastCtx = ctx;
			if (!h.live) {
				return errorResult(`resetpolicy: the policy engine is not running (${downReason(h)}); nothing was done.`);
			}
			try {
				await confirmWindow(h, ctx);
				const d = await decide(h, ctx, "tool", { name: tool.name, args: params });
				const out = new Outcome("tool");
				await apply(h, d.effects, out, ctx);
				return {
					content: [{ type: "text" as const, text: out.reply?.text ?? "Done." }],
					details: { rules: d.rules },
					...(out.reply?.terminate === true ? { terminate: true } : {}),
				};
			} catch (err) {
				return errorResult(`resetpolicy: ${errorText(err)}; nothing was done.`);
			}
		},
	});
}

async function onPolicyCommand(h: HostState, name: string, args: string, ctx: ExtensionCommandContext): Promise<void> {
	h.lastCtx = ctx;
	if (!h.live) {
		say(ctx, `resetpolicy: the policy engine is not running (${downReason(h)}); /${name} did nothing.`, "error");
		return;
	}
	await guard(h, ctx, async () => {
		await confirmWindow(h, ctx);
		const d = await decide(h, ctx, "command", { name, args: args.trim(), dialog: hasDialogs(ctx) });
		const out = new Outcome("command");
		const before = h.hostCheckpoint;
		await apply(h, d.effects, out, ctx);
		if (out.asks.length > 0) await dialog(h, name, out.asks, ctx);
		await finishBeforeExit(h, name, before, ctx);
		return undefined;
	});
}

/**
 * Seed 002: "Both commands work in TUI, print, JSON, and RPC modes." Print
 * and JSON mode (no UI) exit once the command returns, and Pi's exit
 * disposes the runtime, which would abort a checkpoint the command started
 * and drop it silently. There the command returns only when the checkpoint
 * it started is written or has failed (its result said), and the turn it
 * starts has run (holdForExit); the terminal and RPC modes stay and answer
 * at once.
 */
async function finishBeforeExit(h: HostState, name: string, before: HostState["hostCheckpoint"], ctx: ExtensionCommandContext): Promise<void> {
	if (hasDialogs(ctx)) return;
	const hc = h.hostCheckpoint;
	// Seed 000: "/wipe-memory ... when idle it starts one ordinary model
	// turn ... commits at agent_before_settle ... stops the run". The turn
	// a command started (Pi does not await it) runs to its settlement too.
	await holdForExit(ctx, `/${name}`, async () => {
		if (hc !== undefined && hc !== before) await hc.done;
		await ctx.waitForIdle();
	});
}

/**
 * The ask effects of one command decision: the questions in Pi's dialog
 * UI, then the same command once more with the answers after each
 * group's command arguments (an empty answer takes the offered value).
 * A cancelled question runs nothing.
 */
async function dialog(h: HostState, name: string, asks: Outcome["asks"], ctx: ExtensionCommandContext): Promise<void> {
	if (!hasDialogs(ctx)) {
		say(ctx, `resetpolicy: /${name} asks questions, and this mode of Pi has no dialogs; nothing was changed.`, "warning");
		return;
	}
	const runs: { command: string; answers: string[] }[] = [];
	for (const q of asks) {
		const answer = await ctx.ui.input(q.value === "" ? q.title : `${q.title} [${q.value}]`, q.value);
		if (answer === undefined) {
			say(ctx, `/${name}: cancelled; nothing was changed.`, "info");
			return;
		}
		const last = runs[runs.length - 1];
		const a = answer.trim() === "" ? q.value : answer.trim();
		if (last !== undefined && last.command === q.command) last.answers.push(a);
		else runs.push({ command: q.command, answers: [a] });
	}
	for (const r of runs) {
		const d = await decide(h, ctx, "command", { name, args: [r.command, ...r.answers].join(" ").trim(), dialog: true });
		await apply(h, d.effects, new Outcome("command"), ctx);
	}
}

/** Pi's terminal and RPC modes answer input dialogs; print and JSON mode have no UI. */
function hasDialogs(ctx: ExtensionContext): boolean {
	try {
		return ctx.hasUI;
	} catch {
		return false;
	}
}

function errorResult(text: string) {
	return { content: [{ type: "text" as const, text }], details: undefined, isError: true };
}
