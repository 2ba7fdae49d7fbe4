package scenario

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"math/big"
	"sort"
	"strings"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
	ctyjson "github.com/zclconf/go-cty/cty/json"

	"github.com/resetpolicy/resetpolicy/rules"
	"github.com/resetpolicy/resetpolicy/rules/lang"
)

// DefaultName is the file name of the built-in scenario.
const DefaultName = "default.scenario.hcl"

//go:embed default.scenario.hcl
var defaultSource []byte

// DefaultSource returns the built-in scenario's bytes: the session that
// `resetpolicy simulate` runs with no arguments.
func DefaultSource() []byte { return append([]byte(nil), defaultSource...) }

// Default decodes the built-in scenario.
func Default() (*Scenario, hcl.Diagnostics) { return Parse(defaultSource, DefaultName) }

// ParseFile reads and decodes a scenario file.
func ParseFile(path string) (*Scenario, hcl.Diagnostics) {
	b, diags := rules.ReadHCLFile(path, "scenario file")
	if diags.HasErrors() {
		return nil, diags
	}
	return Parse(b, path)
}

// Parse decodes a scenario in HCL's native syntax. Every problem is a
// diagnostic with the file, line and column it is about; nothing here
// panics on user input.
func Parse(src []byte, filename string) (*Scenario, hcl.Diagnostics) {
	if diags := rules.CheckHCL(src, filename); diags.HasErrors() {
		return nil, diags
	}
	f, diags := hclsyntax.ParseConfig(src, filename, hcl.InitialPos)
	if diags.HasErrors() {
		return nil, diags
	}
	body := f.Body.(*hclsyntax.Body)
	sc := &Scenario{File: filename, Source: src, Host: DefaultHost(), DeclRange: body.SrcRange}
	for _, a := range sortedAttrs(body.Attributes) {
		diags = append(diags, errAt(a.SrcRange, "Unexpected attribute",
			"a scenario is made of blocks: a `scenario` header and steps such as user, assistant and command; %q belongs inside the scenario header", a.Name))
	}
	for i, b := range body.Blocks {
		if b.Type == "scenario" {
			if i > 0 {
				diags = append(diags, errAt(b.TypeRange, "Misplaced scenario header", "the scenario block must be the first block of the file, and there is only one"))
				continue
			}
			diags = append(diags, decodeHeader(sc, b)...)
			continue
		}
		dec, ok := stepDecoders[b.Type]
		if !ok {
			diags = append(diags, errAt(b.TypeRange, "Unknown step",
				"%q is not a step; steps are %s%s", b.Type, strings.Join(stepKinds(), ", "), suggest(b.Type, stepKinds())))
			continue
		}
		st, ds := dec(b)
		diags = append(diags, ds...)
		if st != nil && !ds.HasErrors() {
			sc.Steps = append(sc.Steps, st)
		}
	}
	if diags.HasErrors() {
		return nil, diags
	}
	return sc, diags
}

func stepKinds() []string {
	out := make([]string, 0, len(stepDecoders))
	for k := range stepDecoders {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

var stepDecoders map[string]func(*hclsyntax.Block) (Step, hcl.Diagnostics)

func init() {
	stepDecoders = map[string]func(*hclsyntax.Block) (Step, hcl.Diagnostics){
		"user":       decodeUser,
		"assistant":  decodeAssistant,
		"steer":      decodeSteer,
		"follow_up":  decodeFollowUp,
		"command":    decodeCommand,
		"compact":    decodeCompact,
		"toggle":     decodeToggle,
		"settings":   decodeSettings,
		"model":      decodeModel,
		"wait":       decodeWait,
		"summary":    decodeSummary,
		"compaction": decodeCompaction,
		"reopen":     decodeReopen,
		"mark":       decodeMark,
		"tree":       decodeTree,
	}
}

// ---------------------------------------------------------------- header

func decodeHeader(sc *Scenario, b *hclsyntax.Block) hcl.Diagnostics {
	diags := labels(b, 0, 1, "a title")
	if len(b.Labels) == 1 {
		sc.Title = b.Labels[0]
	}
	sc.DeclRange = b.DefRange()
	content, ds := b.Body.Content(&hcl.BodySchema{Attributes: attrs(
		"description", "policy", "set", "context_window", "reserve", "auto_compaction", "auto_reset", "enabled", "model")})
	diags = append(diags, ds...)
	if ds.HasErrors() {
		return diags
	}
	a := content.Attributes
	diags = append(diags, optString(a["description"], &sc.Description)...)
	diags = append(diags, optString(a["policy"], &sc.Policy)...)
	if a["policy"] != nil {
		sc.PolicyRange = a["policy"].Expr.Range()
	}
	diags = append(diags, optString(a["model"], &sc.Host.Model)...)
	diags = append(diags, optCount(a["context_window"], &sc.Host.ContextWindow, 1)...)
	diags = append(diags, optCount(a["reserve"], &sc.Host.Reserve, 0)...)
	diags = append(diags, optBool(a["auto_compaction"], &sc.Host.AutoCompaction)...)
	diags = append(diags, optBool(a["auto_reset"], &sc.Host.AutoReset)...)
	diags = append(diags, optBool(a["enabled"], &sc.Host.Enabled)...)
	if set := a["set"]; set != nil {
		pairs, ds := hcl.ExprMap(set.Expr)
		if ds.HasErrors() {
			return append(diags, errAt(set.Expr.Range(), "Invalid set", "set is an object of param overrides, as set = { warning_runway = 8192 }"))
		}
		for _, kv := range pairs {
			name := hcl.ExprAsKeyword(kv.Key)
			if name == "" {
				k, ds := kv.Key.Value(nil)
				if ds.HasErrors() || k.Type() != cty.String || k.IsNull() {
					diags = append(diags, errAt(kv.Key.Range(), "Invalid param name", "a param name is a bare name or a string"))
					continue
				}
				name = k.AsString()
			}
			v, ds := kv.Value.Value(nil)
			if ds.HasErrors() {
				diags = append(diags, ds...)
				continue
			}
			sc.Set = append(sc.Set, Param{Name: name, Value: v, Range: kv.Value.Range(), NameRange: kv.Key.Range()})
		}
		sort.SliceStable(sc.Set, func(i, j int) bool { return sc.Set[i].Name < sc.Set[j].Name })
	}
	return diags
}

// ---------------------------------------------------------------- steps

// textStep reads `KIND "TEXT" {}` or `KIND { text = "…" }`.
func textStep(b *hclsyntax.Block, what string) (string, hcl.Diagnostics) {
	diags := labels(b, 0, 1, what)
	content, ds := b.Body.Content(&hcl.BodySchema{Attributes: attrs("text")})
	diags = append(diags, ds...)
	if diags.HasErrors() {
		return "", diags
	}
	var text string
	if a := content.Attributes["text"]; a != nil {
		if len(b.Labels) == 1 {
			return "", append(diags, errAt(a.NameRange, "Text given twice", "give the text as the block's label or as `text`, not both"))
		}
		diags = append(diags, optString(a, &text)...)
	} else if len(b.Labels) == 1 {
		text = b.Labels[0]
	} else {
		return "", append(diags, errAt(b.DefRange(), "Missing text", "a %s step needs %s: %s \"…\" {} or %s { text = \"…\" }", b.Type, what, b.Type, b.Type))
	}
	if strings.TrimSpace(text) == "" && !diags.HasErrors() {
		diags = append(diags, errAt(b.DefRange(), "Empty text", "a %s step needs %s", b.Type, what))
	}
	return text, diags
}

func decodeUser(b *hclsyntax.Block) (Step, hcl.Diagnostics) {
	text, diags := textStep(b, "the prompt")
	return &User{At: at(b), Text: text}, diags
}

func decodeSteer(b *hclsyntax.Block) (Step, hcl.Diagnostics) {
	text, diags := textStep(b, "the message")
	return &Steer{At: at(b), Text: text}, diags
}

func decodeFollowUp(b *hclsyntax.Block) (Step, hcl.Diagnostics) {
	text, diags := textStep(b, "the message")
	return &FollowUp{At: at(b), Text: text}, diags
}

func decodeAssistant(b *hclsyntax.Block) (Step, hcl.Diagnostics) {
	diags := labels(b, 0, 0, "")
	content, ds := b.Body.Content(&hcl.BodySchema{
		Attributes: attrs("text", "tokens", "error", "abort"),
		Blocks:     []hcl.BlockHeaderSchema{{Type: "call", LabelNames: []string{"tool"}}},
	})
	diags = append(diags, ds...)
	if ds.HasErrors() {
		return nil, diags
	}
	st := &Assistant{At: at(b)}
	a := content.Attributes
	diags = append(diags, optString(a["text"], &st.Text)...)
	diags = append(diags, optCount(a["tokens"], &st.Tokens, 1)...)
	diags = append(diags, optString(a["error"], &st.Error)...)
	diags = append(diags, optString(a["abort"], &st.Abort)...)
	if st.Abort != "" && st.Abort != "user" && st.Abort != "synthetic" {
		diags = append(diags, errAt(a["abort"].Expr.Range(), "Invalid abort",
			"abort is \"user\" (the user aborts while the answer streams) or \"synthetic\" (the answer stops as aborted though nothing was cancelled), not %q", st.Abort))
	}
	if st.Abort != "" && st.Error != "" {
		diags = append(diags, errAt(a["abort"].NameRange, "Abort and error", "an answer is either aborted or an error, not both"))
	}
	if a["error"] != nil && st.Error == "" {
		diags = append(diags, errAt(a["error"].Expr.Range(), "Empty error", "error is \"overflow\" or the provider's error message"))
	}
	for _, cb := range content.Blocks {
		c, ds := decodeCall(cb)
		diags = append(diags, ds...)
		if c != nil {
			st.Calls = append(st.Calls, *c)
		}
	}
	if len(st.Calls) > 0 && (st.Abort != "" || st.Error != "") {
		diags = append(diags, errAt(b.DefRange(), "Calls in a failed answer", "an aborted or failed answer runs no tool calls; remove the call blocks or the abort/error"))
	}
	return st, diags
}

func decodeCall(b *hcl.Block) (*Call, hcl.Diagnostics) {
	content, diags := b.Body.Content(&hcl.BodySchema{Attributes: attrs("args", "result", "is_error")})
	if diags.HasErrors() {
		return nil, diags
	}
	c := &Call{At: At{DeclRange: b.DefRange}, Name: b.Labels[0], Args: json.RawMessage("{}"), ArgsMap: map[string]any{}}
	if strings.TrimSpace(c.Name) == "" {
		diags = append(diags, errAt(b.LabelRanges[0], "Empty tool name", "call \"NAME\" names the tool"))
	}
	a := content.Attributes
	if args := a["args"]; args != nil {
		v, ds := args.Expr.Value(nil)
		diags = append(diags, ds...)
		if !ds.HasErrors() {
			if v.IsNull() || !(v.Type().IsObjectType() || v.Type().IsMapType()) {
				diags = append(diags, errAt(args.Expr.Range(), "Invalid args", "args is an object, as args = { path = \"NOTES.md\" }"))
			} else if !v.IsWhollyKnown() {
				diags = append(diags, errAt(args.Expr.Range(), "Invalid args", "args must be literal values"))
			} else {
				raw, err := ctyjson.Marshal(v, v.Type())
				if err != nil {
					diags = append(diags, errAt(args.Expr.Range(), "Invalid args", "%v", err))
				} else {
					c.Args = raw
					_ = json.Unmarshal(raw, &c.ArgsMap)
				}
			}
		}
	}
	diags = append(diags, optString(a["result"], &c.Result)...)
	diags = append(diags, optBool(a["is_error"], &c.IsError)...)
	return c, diags
}

func decodeCommand(b *hclsyntax.Block) (Step, hcl.Diagnostics) {
	diags := labels(b, 1, 1, "the command, as \"/NAME ARGS\"")
	content, ds := b.Body.Content(&hcl.BodySchema{Attributes: attrs("args")})
	diags = append(diags, ds...)
	if diags.HasErrors() {
		return nil, diags
	}
	line := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(b.Labels[0]), "/"))
	name, args, _ := strings.Cut(line, " ")
	st := &Command{At: at(b), Name: name, Args: strings.TrimSpace(args)}
	if name == "" {
		return nil, append(diags, errAt(b.LabelRanges[0], "Empty command", "command \"/NAME ARGS\" names the command"))
	}
	if a := content.Attributes["args"]; a != nil {
		if st.Args != "" {
			return nil, append(diags, errAt(a.NameRange, "Arguments given twice", "give the arguments in the label or as `args`, not both"))
		}
		diags = append(diags, optString(a, &st.Args)...)
	}
	return st, diags
}

func decodeCompact(b *hclsyntax.Block) (Step, hcl.Diagnostics) {
	diags := labels(b, 0, 0, "")
	content, ds := b.Body.Content(&hcl.BodySchema{Attributes: attrs("instructions")})
	diags = append(diags, ds...)
	if diags.HasErrors() {
		return nil, diags
	}
	st := &Compact{At: at(b)}
	diags = append(diags, optString(content.Attributes["instructions"], &st.Instructions)...)
	return st, diags
}

func decodeToggle(b *hclsyntax.Block) (Step, hcl.Diagnostics) {
	diags := labels(b, 1, 1, "\"on\" or \"off\"")
	_, ds := b.Body.Content(&hcl.BodySchema{})
	diags = append(diags, ds...)
	if diags.HasErrors() {
		return nil, diags
	}
	switch b.Labels[0] {
	case "on":
		return &Toggle{At: at(b), On: true}, diags
	case "off":
		return &Toggle{At: at(b), On: false}, diags
	}
	return nil, append(diags, errAt(b.LabelRanges[0], "Invalid toggle", "toggle \"on\" {} or toggle \"off\" {}, not %q", b.Labels[0]))
}

func decodeSettings(b *hclsyntax.Block) (Step, hcl.Diagnostics) {
	diags := labels(b, 0, 0, "")
	content, ds := b.Body.Content(&hcl.BodySchema{Attributes: attrs("auto_compaction", "auto_reset", "reserve")})
	diags = append(diags, ds...)
	if diags.HasErrors() {
		return nil, diags
	}
	st := &Settings{At: at(b)}
	a := content.Attributes
	if x := a["auto_compaction"]; x != nil {
		var v bool
		diags = append(diags, optBool(x, &v)...)
		st.AutoCompaction = &v
	}
	if x := a["auto_reset"]; x != nil {
		var v bool
		diags = append(diags, optBool(x, &v)...)
		st.AutoReset = &v
	}
	if x := a["reserve"]; x != nil {
		var v int64
		diags = append(diags, optCount(x, &v, 0)...)
		st.Reserve = &v
	}
	if len(a) == 0 {
		diags = append(diags, errAt(b.DefRange(), "Empty settings", "settings changes auto_compaction, auto_reset or reserve"))
	}
	return st, diags
}

func decodeModel(b *hclsyntax.Block) (Step, hcl.Diagnostics) {
	diags := labels(b, 1, 1, "the model's id")
	content, ds := b.Body.Content(&hcl.BodySchema{Attributes: attrs("context_window")})
	diags = append(diags, ds...)
	if diags.HasErrors() {
		return nil, diags
	}
	st := &Model{At: at(b), Name: b.Labels[0]}
	diags = append(diags, optCount(content.Attributes["context_window"], &st.ContextWindow, 1)...)
	return st, diags
}

func decodeWait(b *hclsyntax.Block) (Step, hcl.Diagnostics) {
	diags := labels(b, 1, 1, "a duration such as \"10s\"")
	_, ds := b.Body.Content(&hcl.BodySchema{})
	diags = append(diags, ds...)
	if diags.HasErrors() {
		return nil, diags
	}
	d, err := time.ParseDuration(b.Labels[0])
	if err != nil || d <= 0 || d%time.Millisecond != 0 {
		return nil, append(diags, errAt(b.LabelRanges[0], "Invalid duration", "wait takes a positive duration in whole milliseconds, such as \"10s\" or \"1m30s\", not %q", b.Labels[0]))
	}
	return &Wait{At: at(b), Millis: d.Milliseconds()}, diags
}

func decodeSummary(b *hclsyntax.Block) (Step, hcl.Diagnostics) {
	diags := labels(b, 0, 0, "")
	content, ds := b.Body.Content(&hcl.BodySchema{Attributes: attrs("ok", "text", "error")})
	diags = append(diags, ds...)
	if diags.HasErrors() {
		return nil, diags
	}
	st := &Summary{At: at(b), OK: true}
	a := content.Attributes
	diags = append(diags, optBool(a["ok"], &st.OK)...)
	diags = append(diags, optString(a["text"], &st.Text)...)
	diags = append(diags, optString(a["error"], &st.Error)...)
	if st.OK && st.Error != "" {
		diags = append(diags, errAt(a["error"].NameRange, "Error on a good summary", "an error belongs to a failed summary: add ok = false"))
	}
	if !st.OK && st.Text != "" {
		diags = append(diags, errAt(a["text"].NameRange, "Text of a failed summary", "a failed summary has no text"))
	}
	return st, diags
}

func decodeCompaction(b *hclsyntax.Block) (Step, hcl.Diagnostics) {
	diags := labels(b, 0, 0, "")
	content, ds := b.Body.Content(&hcl.BodySchema{Attributes: attrs("reject", "error", "signal_aborted")})
	diags = append(diags, ds...)
	if diags.HasErrors() {
		return nil, diags
	}
	st := &Compaction{At: at(b)}
	a := content.Attributes
	diags = append(diags, optString(a["reject"], &st.Reject)...)
	diags = append(diags, optString(a["error"], &st.Error)...)
	diags = append(diags, optBool(a["signal_aborted"], &st.SignalAborted)...)
	n := 0
	for _, set := range []bool{st.Reject != "", st.Error != "", st.SignalAborted} {
		if set {
			n++
		}
	}
	if n != 1 && !diags.HasErrors() {
		diags = append(diags, errAt(b.DefRange(), "One outcome", "a compaction step scripts one outcome of the next host compaction: reject = \"…\", error = \"…\" or signal_aborted = true"))
	}
	return st, diags
}

func decodeReopen(b *hclsyntax.Block) (Step, hcl.Diagnostics) {
	diags := labels(b, 0, 0, "")
	_, ds := b.Body.Content(&hcl.BodySchema{})
	return &Reopen{At: at(b)}, append(diags, ds...)
}

func decodeMark(b *hclsyntax.Block) (Step, hcl.Diagnostics) {
	diags := labels(b, 1, 1, "a name")
	_, ds := b.Body.Content(&hcl.BodySchema{})
	diags = append(diags, ds...)
	if diags.HasErrors() {
		return nil, diags
	}
	return &Mark{At: at(b), Name: b.Labels[0]}, diags
}

func decodeTree(b *hclsyntax.Block) (Step, hcl.Diagnostics) {
	diags := labels(b, 1, 1, "the name of a mark")
	content, ds := b.Body.Content(&hcl.BodySchema{Attributes: attrs("summarize")})
	diags = append(diags, ds...)
	if diags.HasErrors() {
		return nil, diags
	}
	st := &Tree{At: at(b), Target: b.Labels[0]}
	diags = append(diags, optBool(content.Attributes["summarize"], &st.Summarize)...)
	return st, diags
}

// ---------------------------------------------------------------- helpers

func at(b *hclsyntax.Block) At { return At{DeclRange: b.DefRange()} }

func attrs(names ...string) []hcl.AttributeSchema {
	out := make([]hcl.AttributeSchema, len(names))
	for i, n := range names {
		out[i] = hcl.AttributeSchema{Name: n}
	}
	return out
}

func sortedAttrs(m hclsyntax.Attributes) []*hclsyntax.Attribute {
	out := make([]*hclsyntax.Attribute, 0, len(m))
	for _, a := range m {
		out = append(out, a)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].SrcRange.Start.Byte < out[j].SrcRange.Start.Byte })
	return out
}

// labels checks a block's label count.
func labels(b *hclsyntax.Block, min, max int, what string) hcl.Diagnostics {
	n := len(b.Labels)
	switch {
	case n > max && max == 0:
		return hcl.Diagnostics{errAt(b.LabelRanges[0], "Unexpected label", "a %s step takes no label: %s {}", b.Type, b.Type)}
	case n > max:
		return hcl.Diagnostics{errAt(b.LabelRanges[max], "Extraneous label", "a %s step takes one label, %s", b.Type, what)}
	case n < min:
		return hcl.Diagnostics{errAt(b.TypeRange, "Missing label", "a %s step needs a label: %s", b.Type, what)}
	}
	return nil
}

func errAt(r hcl.Range, summary, format string, args ...any) *hcl.Diagnostic {
	rr := r
	return &hcl.Diagnostic{Severity: hcl.DiagError, Summary: summary, Detail: fmt.Sprintf(format, args...), Subject: &rr}
}

func value(a *hcl.Attribute, want cty.Type, what string) (cty.Value, hcl.Diagnostics) {
	v, diags := a.Expr.Value(nil)
	if diags.HasErrors() {
		return cty.NilVal, diags
	}
	cv, err := convert.Convert(v, want)
	if err != nil || cv.IsNull() || !cv.IsKnown() {
		return cty.NilVal, hcl.Diagnostics{errAt(a.Expr.Range(), "Wrong type", "%s is %s", a.Name, what)}
	}
	return cv, nil
}

func optString(a *hcl.Attribute, dst *string) hcl.Diagnostics {
	if a == nil {
		return nil
	}
	v, diags := value(a, cty.String, "a string")
	if diags.HasErrors() {
		return diags
	}
	*dst = v.AsString()
	return nil
}

func optBool(a *hcl.Attribute, dst *bool) hcl.Diagnostics {
	if a == nil {
		return nil
	}
	v, diags := value(a, cty.Bool, "true or false")
	if diags.HasErrors() {
		return diags
	}
	*dst = v.True()
	return nil
}

// optCount reads a whole number of at least min (tokens, sizes).
func optCount(a *hcl.Attribute, dst *int64, min int64) hcl.Diagnostics {
	if a == nil {
		return nil
	}
	v, diags := value(a, cty.Number, "a whole number")
	if diags.HasErrors() {
		return diags
	}
	bf := v.AsBigFloat()
	n, acc := bf.Int64()
	if acc != big.Exact || !bf.IsInt() || n < min || n > 1<<53 {
		return hcl.Diagnostics{errAt(a.Expr.Range(), "Invalid number", "%s is a whole number of at least %d", a.Name, min)}
	}
	*dst = n
	return nil
}

// suggest proposes the closest name, as the policy language does.
func suggest(name string, names []string) string { return lang.Suggest(name, names) }
