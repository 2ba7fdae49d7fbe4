package rpc

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/big"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/ext/typeexpr"
	"github.com/resetpolicy/resetpolicy/engine"
	"github.com/resetpolicy/resetpolicy/host/settings"
	"github.com/resetpolicy/resetpolicy/policies"
	"github.com/resetpolicy/resetpolicy/rules"
	"github.com/resetpolicy/resetpolicy/rules/contract"
	"github.com/zclconf/go-cty/cty"
)

// loaded is a policy in force.
type loaded struct {
	pol  *rules.Policy
	eng  *engine.Engine
	set  *settings.Settings // nil for the plain built-in fallback
	fp   string             // fingerprint (see fingerprint); "" until asked
	desc PolicyInfo
}

// PolicyInfo names the policy in force.
type PolicyInfo struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	// Source is "builtin" or the policy file's path.
	Source string `json:"source"`
	// Origin is where the policy setting came from.
	Origin string `json:"origin"`
}

// BoundaryTexts are the texts of a reset boundary's two messages.
type BoundaryTexts struct {
	Boot         string `json:"boot"`
	Continuation string `json:"continuation"`
}

// Surface is what the host registers and shows.
type Surface struct {
	Tools    []Tool            `json:"tools"`
	Commands []Command         `json:"commands"`
	Messages map[string]string `json:"messages"`
	Params   []Param           `json:"params"`
	// Durable maps each durable slot to its initial value: the host
	// persists these slots in the session branch and restores them at
	// session_start and session_tree (the initial value when the branch
	// holds none).
	Durable map[string]any `json:"durable"`
}

// Tool is a tool the host registers for the model.
type Tool struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  []ToolParameter `json:"parameters"`
}

// ToolParameter is one parameter of a tool (a JSON Schema type name).
type ToolParameter struct {
	Name        string `json:"name"`
	Type        string `json:"type"`
	Description string `json:"description"`
	Required    bool   `json:"required"`
}

// Command is a slash command the host registers.
type Command struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	Usage       string `json:"usage,omitempty"`
}

// Param is a param in force: its value, its default and where the value
// came from.
type Param struct {
	Name        string `json:"name"`
	Type        string `json:"type"`
	Value       any    `json:"value"`
	Default     any    `json:"default"`
	Origin      string `json:"origin"`
	Description string `json:"description"`
	// Shadowed are settings for this param that do not apply because a
	// higher source sets it: a user config value under the project's
	// policy file.
	Shadowed []settings.ShadowedValue `json:"shadowed,omitempty"`
}

// Diagnostic is one load problem.
type Diagnostic = rules.DiagnosticJSON

func newLoaded(p *rules.Policy, set *settings.Settings) *loaded {
	l := &loaded{pol: p, eng: engine.New(p), set: set}
	l.desc = PolicyInfo{Name: p.Name, Description: p.Description, Source: "builtin", Origin: "default"}
	if set != nil {
		if !settings.IsBuiltinName(set.Policy.Text) {
			l.desc.Source = set.Policy.Text
		}
		l.desc.Origin = set.Policy.Origin.String()
	}
	return l
}

// fingerprint says whether two loads are of the same policy text and
// params. It is made when first asked, which is only when a policy
// replaces one that has sessions: hashing the sources and marshalling the
// params was 6% of the instructions of serve's start (callgrind).
func (l *loaded) fingerprint() string {
	if l.fp != "" {
		return l.fp
	}
	p := l.pol
	h := sha256.New()
	names := make([]string, 0, len(p.Sources))
	for n := range p.Sources {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(h, "%s\x00%d\x00", n, len(p.Sources[n]))
		h.Write(p.Sources[n])
	}
	for _, prm := range p.Params {
		v, _ := json.Marshal(ctyToJSON(prm.Value))
		fmt.Fprintf(h, "%s=%s\x00", prm.Name, v)
	}
	l.fp = hex.EncodeToString(h.Sum(nil))
	return l.fp
}

// builtinDefault is the policy in force when nothing loads.
func builtinDefault() (*loaded, error) {
	p, diags := policies.Load(settings.DefaultPolicy, nil, servedLoad...)
	if diags.HasErrors() {
		return nil, fmt.Errorf("built-in %s: %s", settings.DefaultPolicy, diags.Error())
	}
	return newLoaded(p, nil), nil
}

// servedLoad is how serve loads a policy: to decide with, without its
// properties, and, for a built-in at its defaults, with each event's rules
// compiled when the event first comes (rules.CompileOnUse).
var servedLoad = []rules.Option{rules.WithoutProperties(), rules.CompileOnUse()}

// ensure loads the default settings' policy when nothing was loaded yet.
func (s *Server) ensure() *Error {
	if s.cur != nil {
		return nil
	}
	res := s.load("", false)
	if s.cur == nil {
		return errorf(CodeFailed, "no policy could be loaded: %s", res.Error)
	}
	return nil
}

// InitializeResult is initialize's result.
type InitializeResult struct {
	ProtocolVersion string     `json:"protocolVersion"`
	ContractVersion string     `json:"contractVersion"`
	Policy          PolicyInfo `json:"policy"`
	Surface         Surface    `json:"surface"`
	// Texts are the boundary's boot and continuation texts: the policy's
	// messages of those names, or the defaults.
	Texts    BoundaryTexts    `json:"texts"`
	Settings []settings.Entry `json:"settings"`
	// SettingsMore counts the settings left out of Settings: the reply
	// lists at most MaxSettingsShown params, however many a config holds.
	SettingsMore int    `json:"settingsMore,omitempty"`
	DecisionLog  string `json:"decisionLog,omitempty"`
	// Fallback is set when the configured policy failed to load and the
	// last good policy or the built-in default stays in force.
	Fallback bool `json:"fallback,omitempty"`
	// Error is one notice for the user when something failed to load.
	Error       string       `json:"error,omitempty"`
	Diagnostics []Diagnostic `json:"diagnostics,omitempty"`
	// SessionsReset is set when the policy changed and the sessions of
	// the previous one were dropped.
	SessionsReset bool `json:"sessionsReset,omitempty"`
	// Host is the host the policy was checked for, and HostGaps how many
	// of its rules lean on what that host cannot do (each is a warning in
	// Diagnostics, at the rule).
	Host     string `json:"host,omitempty"`
	HostGaps int    `json:"hostGaps,omitempty"`
}

// hostOrDefault is the host the client named, or Pi.
func (s *Server) hostOrDefault() *contract.Host {
	if s.host != nil {
		return s.host
	}
	h, _ := contract.LookupHost(contract.DefaultHost)
	return h
}

func (s *Server) hostName() string { return s.hostOrDefault().Name }

// load resolves the settings for a project and loads their policy. On
// failure the policy in force stays (or the built-in default comes in)
// and the result says why.
func (s *Server) load(projectDir string, trusted bool) InitializeResult {
	res := InitializeResult{ProtocolVersion: ProtocolVersion, ContractVersion: contract.Version}
	s.projectDir, s.trusted = projectDir, trusted
	fail := func(what string, diags []Diagnostic) {
		res.Fallback = true
		res.Diagnostics = diags
		if s.cur == nil {
			l, err := builtinDefault()
			if err != nil {
				res.Error = what + "\n" + err.Error()
				return
			}
			s.cur = l
		}
		keep := s.cur.desc.Name
		if s.cur.desc.Source == "builtin" {
			keep += " (built-in)"
		}
		sep := "; "
		if strings.Contains(what, "\n") {
			// what ends in a quoted line and its caret: the outcome is a
			// line of its own, not glued to the caret.
			sep = "\n"
		}
		res.Error = fmt.Sprintf("resetpolicy: %s%s%s stays in force, nothing was reset.", what, sep, keep)
		s.logf("%s", res.Error)
	}

	set, err := s.opts.Settings(projectDir, trusted)
	if err != nil {
		fail(fmt.Sprintf("settings failed to load: %v", err), []Diagnostic{{Severity: "error", Summary: "Settings failed to load", Detail: err.Error()}})
	} else {
		res.Settings, res.SettingsMore = shownSettings(set.Entries())
		p, diags := set.LoadPolicy(servedLoad...)
		if diags.HasErrors() {
			// The notice quotes at most a few lines of the file: it may
			// not be a policy at all.
			text := strings.TrimRight(rules.FormatDiagnosticsN(diags.Sources, diags.Diagnostics, noticeDiagnostics), "\n")
			fail(fmt.Sprintf("policy %s failed to load:\n%s", set.Policy.Text, text), toDiagnostics(diags.Diagnostics))
		} else if gaps := p.HostGaps(s.hostOrDefault()); gaps.HasErrors() {
			text := strings.TrimRight(rules.FormatDiagnosticsN(diags.Sources, gaps, noticeDiagnostics), "\n")
			fail(fmt.Sprintf("policy %s is not for %s:\n%s", set.Policy.Text, s.hostName(), text), toDiagnostics(gaps))
		} else {
			// What the host cannot do of the policy is named at load, each
			// rule at its position, never found out as a no-op later.
			res.Diagnostics = toDiagnostics(append(diags.Diagnostics, gaps...))
			res.Host = s.hostName()
			res.HostGaps = len(gaps)
			l := newLoaded(p, set)
			if s.cur != nil && s.sessions.len() > 0 && s.cur.fingerprint() != l.fingerprint() {
				s.sessions.clear()
				res.SessionsReset = true
			}
			s.cur = l
		}
		if err := s.openLog(set.DecisionLog.Text); err != nil {
			s.logf("decision log: %v", err)
			res.Diagnostics = append(res.Diagnostics, Diagnostic{Severity: "warning", Summary: "Decision log unavailable", Detail: err.Error()})
			if res.Error == "" {
				res.Error = "resetpolicy: decision log unavailable: " + err.Error()
			}
		}
	}
	if s.cur != nil {
		res.Policy = s.cur.desc
		res.Surface = surface(s.cur.pol)
		if s.cur.set != nil {
			addShadows(res.Surface.Params, &settings.Resolved{Settings: s.cur.set, Policy: s.cur.pol})
		}
		res.Texts = BoundaryTexts{Boot: s.message("boot", DefaultBootText), Continuation: s.message("continuation", DefaultContinuationText)}
	}
	if s.dlog != nil {
		res.DecisionLog = s.dlog.path
	}
	return res
}

// MaxSettingsShown is how many param settings initialize lists (the
// policy and the decision log always come first): as many as the
// diagnostics the CLI prints, rules.MaxDiagnosticsShown. A config of
// 60,000 params otherwise made a 6 MB reply.
const MaxSettingsShown = rules.MaxDiagnosticsShown

// shownSettings cuts entries to the policy, the decision log and
// MaxSettingsShown params, and counts the rest.
func shownSettings(entries []settings.Entry) ([]settings.Entry, int) {
	const fixed = 2 // policy, decision_log: see settings.Entries
	if len(entries) <= fixed+MaxSettingsShown {
		return entries, 0
	}
	return entries[:fixed+MaxSettingsShown], len(entries) - fixed - MaxSettingsShown
}

// noticeDiagnostics is how many diagnostics, each with one quoted line, a
// load failure's notice shows.
const noticeDiagnostics = 3

func toDiagnostics(ds hcl.Diagnostics) []Diagnostic {
	var out []Diagnostic
	rest := 0
	if len(ds) > rules.MaxDiagnosticsShown {
		rest = len(ds) - rules.MaxDiagnosticsShown
		ds = ds[:rules.MaxDiagnosticsShown]
	}
	out = rules.DiagnosticsJSON(ds)
	if rest > 0 {
		out = append(out, Diagnostic{Severity: "error", Summary: fmt.Sprintf("and %d more", rest)})
	}
	return out
}

func surface(p *rules.Policy) Surface {
	sf := Surface{Tools: []Tool{}, Commands: []Command{}, Messages: map[string]string{}, Params: []Param{}}
	for _, t := range p.Tools {
		tt := Tool{Name: t.Name, Description: strings.TrimRight(t.Description, "\n"), Parameters: []ToolParameter{}}
		for _, prm := range t.Parameters {
			tt.Parameters = append(tt.Parameters, ToolParameter{Name: prm.Name, Type: prm.Type, Description: prm.Description, Required: prm.Required})
		}
		sf.Tools = append(sf.Tools, tt)
	}
	for _, c := range p.Commands {
		sf.Commands = append(sf.Commands, Command{Name: c.Name, Description: strings.TrimRight(c.Description, "\n"), Usage: c.Usage})
	}
	for _, m := range p.Messages {
		sf.Messages[m.Name] = strings.TrimRight(m.Text, "\n")
	}
	sf.Params = ParamsInForce(p)
	sf.Durable = map[string]any{}
	for _, sl := range p.Slots {
		if sl.Durable {
			sf.Durable[sl.Name] = sl.Initial.Interface(sl.Type)
		}
	}
	return sf
}

// ParamsInForce lists a policy's params with their values, defaults and
// origins.
func ParamsInForce(p *rules.Policy) []Param {
	out := []Param{}
	for _, prm := range p.Params {
		typ := "unknown"
		if prm.Type != cty.NilType {
			typ = typeexpr.TypeString(prm.Type)
		}
		out = append(out, Param{
			Name: prm.Name, Type: typ, Value: ctyToJSON(prm.Value), Default: ctyToJSON(prm.Default),
			Origin: prm.Origin, Description: prm.Description,
		})
	}
	return out
}

// addShadows marks the params whose settings another source overrides.
func addShadows(params []Param, r *settings.Resolved) {
	for i, ps := range r.Params() {
		if i < len(params) && params[i].Name == ps.Name {
			params[i].Shadowed = ps.Shadowed
		}
	}
}

// ctyToJSON turns a param value into a JSON value.
func ctyToJSON(v cty.Value) any {
	if v == cty.NilVal || v.IsNull() || !v.IsKnown() {
		return nil
	}
	t := v.Type()
	switch {
	case t == cty.String:
		return v.AsString()
	case t == cty.Bool:
		return v.True()
	case t == cty.Number:
		bf := v.AsBigFloat()
		if bf.IsInt() {
			if i, acc := bf.Int64(); acc == big.Exact {
				return i
			}
		}
		f, _ := bf.Float64()
		return f
	case t.IsListType() || t.IsTupleType() || t.IsSetType():
		out := []any{}
		for it := v.ElementIterator(); it.Next(); {
			_, e := it.Element()
			out = append(out, ctyToJSON(e))
		}
		return out
	case t.IsMapType() || t.IsObjectType():
		out := map[string]any{}
		for it := v.ElementIterator(); it.Next(); {
			k, e := it.Element()
			out[k.AsString()] = ctyToJSON(e)
		}
		return out
	}
	return nil
}

// message returns a policy message's text, or def when the policy has
// none of that name.
func (s *Server) message(name, def string) string {
	if s.cur != nil {
		if m, ok := s.cur.pol.Message(name); ok {
			return strings.TrimRight(m.Text, "\n")
		}
	}
	return def
}
