// resetpolicy for opencode: the context-window lifecycle decided by an HCL
// policy.
//
// The plugin starts the engine (`resetpolicy serve --stdio`; the binary
// from RESETPOLICY_BIN, else `resetpolicy` on PATH, else the one it builds
// from the engine's sources with the machine's Go: install.ts, shared with
// the Pi package), registers the tools and commands the policy declares,
// maps opencode's hooks and events to host contract events and carries out
// the effects the engine decides (host.ts). If the engine is missing or
// dies, it fails safe: one error notice, no reset, opencode keeps working.

import { type Hooks, type Plugin, tool } from "@opencode-ai/plugin";
import type { Event } from "@opencode-ai/sdk";
import { errorText } from "./engine.ts";
import { OpencodeHost, type Site } from "./host.ts";
import type { ToolParameter } from "./protocol.ts";
import type { WithParts } from "./window.ts";

export const ResetPolicy: Plugin = async ({ client, directory }) => {
	const h = new OpencodeHost(client, directory);
	await h.start();
	return hooks(h);
};

function hooks(h: OpencodeHost): Hooks {
	const surface = h.off === undefined ? h.init?.surface : undefined;
	const tools: NonNullable<Hooks["tool"]> = {};
	for (const t of surface?.tools ?? []) {
		tools[t.name] = tool({
			description: t.description,
			args: Object.fromEntries(t.parameters.map((p) => [p.name, schema(p)])),
			async execute(args, ctx) {
				if (!h.active) return `resetpolicy is not running (${h.off ?? "not started"}); nothing was reset.`;
				const s = h.session(ctx.sessionID);
				const at: Site = { site: "tool" };
				await h.serial(s, async () => {
					const d = await h.decide(s, "tool", { name: t.name, args });
					await h.apply(s, d.effects, at);
				});
				return at.reply ?? "Done.";
			},
		});
	}
	const commands = new Set((surface?.commands ?? []).map((c) => c.name));
	return {
		tool: tools,
		async dispose() {
			await h.shutdown();
			h.engine?.close();
		},
		async config(input) {
			// opencode's config schema has compaction; the SDK's Config type does not say so.
			const cfg = input as typeof input & { compaction?: { auto?: boolean; reserved?: number } };
			h.autoCompaction = cfg.compaction?.auto ?? true;
			const reserved = cfg.compaction?.reserved;
			if (typeof reserved === "number" && reserved > 0) h.reserve = reserved;
			if (surface === undefined) return;
			// The policy owns compaction: opencode's own automatic
			// compaction would summarise the window behind its back.
			cfg.compaction = { ...cfg.compaction, auto: false };
			cfg.command ??= {};
			for (const c of surface.commands) {
				cfg.command[c.name] = { template: `/${c.name} $ARGUMENTS`, description: c.description };
			}
		},
		async "command.execute.before"(input, output) {
			if (!commands.has(input.command)) return;
			// opencode sends a command's parts to the model whatever a plugin
			// does: they become the injected text, or say what happened.
			let text: string;
			if (!h.active) {
				h.say(`resetpolicy: the policy engine is not running (${h.off ?? "not started"}); /${input.command} did nothing.`, "error");
				text = `The user ran /${input.command}, which did nothing: the policy engine is not running.`;
			} else {
				const s = h.session(input.sessionID);
				const at: Site = { site: "command" };
				await h.serial(s, async () => {
					const d = await h.decide(s, "command", { name: input.command, args: input.arguments });
					await h.apply(s, d.effects, at);
				});
				if (at.reply !== undefined && at.reply !== "") h.say(`resetpolicy: ${at.reply}`, "info");
				text = at.commandText ?? `The user ran /${input.command}. ${at.reply ?? ""}`.trim();
			}
			output.parts.length = 0;
			output.parts.push({
				// opencode gives a part without an id its own.
				id: "",
				sessionID: input.sessionID,
				messageID: "",
				type: "text",
				text,
				synthetic: true,
			});
		},
		async "experimental.chat.messages.transform"(_input, output) {
			const msgs = output.messages as WithParts[];
			const out = await h.onRequest(msgs);
			if (out !== undefined && out !== msgs) output.messages.splice(0, output.messages.length, ...(out as typeof output.messages));
		},
		async event({ event }) {
			try {
				await onEvent(h, event);
			} catch (err) {
				h.say(`resetpolicy: ${errorText(err)}`, "error");
			}
		},
	};
}

async function onEvent(h: OpencodeHost, e: Event): Promise<void> {
	switch (e.type) {
		case "session.created": {
			if (e.properties.info.parentID !== undefined) {
				h.children.add(e.properties.info.id);
				return;
			}
			const s = h.session(e.properties.info.id);
			await h.serial(s, () => h.ensureStarted(s, "new"));
			return;
		}
		case "message.part.updated": {
			const p = e.properties.part;
			if (h.children.has(p.sessionID)) return;
			if (p.type === "tool" && (p.state.status === "completed" || p.state.status === "error")) {
				const s = h.session(p.sessionID);
				const seen = s.tools.get(p.messageID) ?? 0;
				s.tools.set(p.messageID, seen + 1);
			}
			return;
		}
		case "message.updated": {
			const info = e.properties.info;
			if (info.role !== "assistant" || (info.time.completed === undefined && info.error === undefined) || h.children.has(info.sessionID)) return;
			const s = h.session(info.sessionID);
			await h.serial(s, () => h.turnEnd(s, info, 0));
			return;
		}
		case "session.status": {
			if (h.children.has(e.properties.sessionID)) return;
			const s = h.session(e.properties.sessionID);
			const busy = e.properties.status.type !== "idle";
			const was = s.busy;
			s.busy = busy;
			if (was && !busy) await h.serial(s, () => h.settle(s));
			return;
		}
		case "session.compacted": {
			if (h.children.has(e.properties.sessionID)) return;
			const s = h.session(e.properties.sessionID);
			await h.serial(s, () => h.compacted(s));
			return;
		}
		default:
	}
}

function schema(p: ToolParameter) {
	const z = tool.schema;
	let t = p.type === "number" || p.type === "integer" ? z.number() : p.type === "boolean" ? z.boolean() : z.string();
	t = t.describe(p.description);
	return p.required ? t : t.optional();
}
