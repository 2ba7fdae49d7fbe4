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

/**
 * Built-in policies that cannot run faithfully here: new_context resets
 * inside the host's compaction (Pi's session_before_compact returns the
 * boundary), and opencode lets no plugin replace one compaction.
 */
export const REFUSED: Record<string, string> = {
	new_context:
		"new_context is not available on opencode: it resets inside the host's compaction (Pi's session_before_compact hook answers with the boundary), and opencode lets no plugin replace a compaction. Use wipe_memory (the default) or autocompacter.",
};
