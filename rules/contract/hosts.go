package contract

// Host is one agent that carries out the contract. A host reports every
// event and carries out every effect of the contract but those it names
// here with the reason it cannot: loading a policy on a host names each
// rule that leans on one of them (rules.Policy.HostGaps), so a gap is
// known at load, never a silent no-op at run time.
type Host struct {
	Name string
	// Adapter is the folder of the host's adapter in the repository.
	Adapter string
	Doc     string
	// Unreported maps an event the host never reports to why.
	Unreported map[string]string
	// Unsupported maps an effect the host cannot carry out to why.
	Unsupported map[string]string
}

// DefaultHost is the host a server serves when its client names none.
const DefaultHost = "pi"

// Hosts are the hosts that have an adapter, the default first.
var Hosts = []Host{
	{
		Name: "pi", Adapter: "host/pi",
		Doc: "the Pi coding agent 1.6 (@earendil-works/pi-coding-agent), through the extension in host/pi",
	},
	{
		Name: "opencode", Adapter: "host/opencode",
		Doc: "opencode 1.18 (opencode-ai), through the plugin in host/opencode: a reset is a durable boundary part plus a request transform that sends only what follows it; opencode's automatic compaction is switched off while the policy is on",
		Unreported: map[string]string{
			"session_tree":     "opencode has no session tree to navigate",
			"before_tree":      "opencode has no session tree to navigate",
			"before_compact":   "an opencode plugin cannot answer, replace or cancel one compaction (its automatic compaction is off while the policy is on)",
			"compact_failed":   "opencode reports no failed compaction of its own",
			"toggle":           "an opencode command always starts a model turn, so the plugin offers no on/off command",
			"attempt_complete": "the plugin starts no host compaction (the compact effect), so there is no attempt to complete",
			"attempt_error":    "the plugin starts no host compaction (the compact effect), so there is no attempt to fail",
		},
		Unsupported: map[string]string{
			"provide_reset":     "an opencode plugin cannot answer a compaction",
			"cancel_compaction": "an opencode plugin cannot cancel a compaction",
			"status":            "opencode has no footer status line for plugins",
			"repair":            "opencode's boundary is one part written at once, so there is no half-written boundary to repair",
			"suppress_summary":  "opencode has no session tree to summarise",
			"ask":               "an opencode plugin cannot open a dialog",
			"compact":           "the plugin does not start opencode's own compaction for a policy: its summary would not be the policy's boundary",
		},
	},
}

// LookupHost returns the host of that name.
func LookupHost(name string) (*Host, bool) {
	for i := range Hosts {
		if Hosts[i].Name == name {
			return &Hosts[i], true
		}
	}
	return nil, false
}

// HostNames lists the hosts, the default first.
func HostNames() []string {
	out := make([]string, len(Hosts))
	for i, h := range Hosts {
		out[i] = h.Name
	}
	return out
}

// Reports says whether the host reports the event, and why not.
func (h *Host) Reports(event string) (bool, string) {
	why, missing := h.Unreported[event]
	return !missing, why
}

// CarriesOut says whether the host carries out the effect, and why not.
func (h *Host) CarriesOut(effect string) (bool, string) {
	why, missing := h.Unsupported[effect]
	return !missing, why
}
