// The engine's JSON-RPC results this plugin reads, as `resetpolicy serve
// --stdio` writes them (host/rpc in the Go module). The Pi package's
// protocol.ts also describes Pi's session drafts, which opencode never sees.

export interface ToolParameter {
	name: string;
	type: string;
	description: string;
	required: boolean;
}

export interface Surface {
	tools: { name: string; description: string; parameters: ToolParameter[] }[];
	commands: { name: string; description: string; usage?: string }[];
	messages: Record<string, string>;
}

export interface InitializeResult {
	protocolVersion: string;
	policy: { name: string; description: string; source: string; origin: string };
	surface: Surface;
	texts: { boot: string; continuation: string };
	/** One notice for the user when something failed to load. */
	error?: string;
	fallback?: boolean;
	/** The load's problems: errors when it failed (fallback), else warnings, among them what the host cannot do. */
	diagnostics?: { severity: string; summary: string; detail?: string; file?: string; line?: number; column?: number }[];
	/** How many of the policy's rules lean on what this host cannot do (each a positioned warning in diagnostics). */
	hostGaps?: number;
}

/** One effect: {"effect": NAME, ...args}. */
export interface Effect {
	effect: string;
	[arg: string]: unknown;
}

export interface Decision {
	rules: string[];
	effects: Effect[];
	state: Record<string, unknown>;
}

/** The host name sent with initialize (the engine checks the policy against this host's capabilities). */
export const HOST = "opencode";

/** The metadata key of the parts this plugin writes into a session. */
export const META = "resetpolicy";
