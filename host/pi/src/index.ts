// resetpolicy for Pi: the context-window lifecycle decided by an HCL policy.
//
// The extension starts the engine (`resetpolicy serve --stdio`; the binary
// from RESETPOLICY_BIN, else `resetpolicy` on PATH, else the one it builds
// from the engine's sources with the machine's Go: install.ts) at session start,
// registers the tools and commands the policy declares, forwards Pi's hooks
// as host contract events and carries out the effects the engine decides.
// If the engine is missing or dies, it fails safe: one error notice, no
// reset, Pi keeps working, and the engine is started again at the next
// session start.

import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";
import { ResetPolicyHost } from "./host.ts";

export default function resetpolicy(pi: ExtensionAPI): void {
	new ResetPolicyHost(pi).register();
}
