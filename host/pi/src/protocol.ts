// The engine's JSON-RPC results, as `resetpolicy serve --stdio` writes them
// (host/rpc in the Go module).

export interface ToolParameter {
	name: string;
	type: string;
	description: string;
	required: boolean;
}

export interface PolicyTool {
	name: string;
	description: string;
	parameters: ToolParameter[];
}

export interface PolicyCommand {
	name: string;
	description: string;
	usage?: string;
}

export interface ParamInForce {
	name: string;
	type: string;
	value: unknown;
	default: unknown;
	origin: string;
	description: string;
	/** Settings for this param that a higher source overrides (a user config value under the project's file). */
	shadowed?: { value: string; origin: string }[];
}

export interface Surface {
	tools: PolicyTool[];
	commands: PolicyCommand[];
	messages: Record<string, string>;
	params: ParamInForce[];
	/** Durable slots and their initial values (rules/README.md, "Durable state"). */
	durable?: Record<string, unknown>;
}

export interface InitializeResult {
	protocolVersion: string;
	contractVersion: string;
	policy: { name: string; description: string; source: string; origin: string };
	surface: Surface;
	texts: { boot: string; continuation: string };
	settings?: { key: string; value: string; origin: string }[];
	/** Settings left out of `settings` (it lists at most 20 params). */
	settingsMore?: number;
	decisionLog?: string;
	fallback?: boolean;
	/** One notice for the user when something failed to load. */
	error?: string;
	/** The load's problems: errors when it failed (fallback), else warnings. */
	diagnostics?: { severity: string; summary: string; detail: string }[];
	sessionsReset?: boolean;
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

/** A Pi boundary draft as the engine builds it. */
export type Draft =
	| { type: "custom"; customType: string; data?: unknown }
	| { type: "custom_message"; customType: string; content: string; display: boolean; details?: unknown }
	| { type: "compaction"; summary: string; firstKeptEntryId: string | null; details?: unknown }
	| { type: "context_edit"; targetId: string; replacement: unknown };

export interface DraftsResult {
	windowId: string;
	entries: Draft[];
}

export interface RepairResult {
	status: "no-marker" | "complete" | "repairable" | "refused";
	windowId?: string;
	missing: string[];
	reason?: string;
	entries: Draft[];
}

export interface ProjectResult {
	mode: "canonical" | "checkpoint" | "legacy" | "abort";
	windowId?: string;
	messages: unknown[];
	clamped: boolean;
	reason?: string;
}

/** Custom types of the reset artifacts (host/session). */
export const MARKER_TYPES = ["resetpolicy/reset-marker", "pi-context/reset-marker"];
export const CONTINUATION_TYPE = "resetpolicy/continuation";
/** Hidden messages the policy injects are written as resetpolicy/<message name>. */
export const MESSAGE_TYPE_PREFIX = "resetpolicy/";
/** The custom entry that holds the policy's durable slots on the branch. */
export const STATE_TYPE = "resetpolicy/state";
