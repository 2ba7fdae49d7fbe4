package lsp

import (
	"fmt"
	"os"
	"strings"
	"sync"

	"github.com/hashicorp/hcl/v2"
	protocol "github.com/tliron/glsp/protocol_3_16"

	"github.com/resetpolicy/resetpolicy/engine/testrun"
	"github.com/resetpolicy/resetpolicy/host/fileio"
	"github.com/resetpolicy/resetpolicy/host/scenario"
	"github.com/resetpolicy/resetpolicy/policies"
	"github.com/resetpolicy/resetpolicy/rules"
	"github.com/resetpolicy/resetpolicy/rules/testfile"
)

// problems are what `resetpolicy check` (a policy), `resetpolicy test`
// (a test file, before it runs) or `resetpolicy simulate` (a scenario)
// reports for a document's text, with the same positions and messages.
// openText gives the text of another open document (a test file's policy
// that is being edited), or nil. It reads no state of the server, so it
// runs outside the server's lock. b bounds a test file's work and stops
// the check when it goes stale (nil: no stop, the default bounds).
func problems(k kind, name string, src []byte, dropped bool, openText func(path string) []byte, b *budget) hcl.Diagnostics {
	if b == nil {
		b = &budget{}
	}
	var diags hcl.Diagnostics
	switch {
	case dropped:
		diags = hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "File too large",
			Detail:  fmt.Sprintf("the document grew past %d bytes and is no longer analysed; close and reopen it", maxDocBytes),
			Subject: &hcl.Range{Filename: name, Start: hcl.InitialPos, End: hcl.InitialPos}}}
	case k == policyKind:
		p, ds := serialLoad(func() (*rules.Policy, rules.Diagnostics) {
			return rules.Load(rules.Source{Name: name, Bytes: src}, builtinOptions()...)
		})
		diags = ds.Diagnostics
		if p != nil && !diags.HasErrors() {
			diags = append(diags, rules.DeadParts(p)...)
			diags = append(diags, rules.UndeclaredKinds(p)...)
		}
	case k == testKind:
		diags = testProblems(src, name, openText, b)
	case k == scenarioKind:
		_, diags = scenario.Parse(src, name)
	}
	return diags
}

// testProblems are a test file's own problems; per set of param
// overrides its runs use, what loading its policy with them reports (an
// unknown param or a value of the wrong type points into the test file, a
// policy that does not load is one problem at the policy attribute); and,
// when all of that is clean, the runs that fail, each failed expectation
// at its place, as `resetpolicy test` reports them. Its work is bounded by
// b: the runs past the bound are not run, and one warning says so.
func testProblems(src []byte, name string, openText func(string) []byte, b *budget) hcl.Diagnostics {
	f, diags := testfile.Parse(src, name)
	if diags.HasErrors() || f.Policy == "" {
		return diags
	}
	// Each set of overrides is loaded once, for the checks below and the
	// runs (the runner asks again with the same values).
	type loaded struct {
		p  *rules.Policy
		ds rules.Diagnostics
	}
	cache := map[string]loaded{}
	load := func(_ *testfile.File, ov []rules.Override) (*rules.Policy, rules.Diagnostics) {
		var key strings.Builder
		for _, o := range ov {
			fmt.Fprintf(&key, "%s=%q;", o.Name, o.Raw)
		}
		if l, ok := cache[key.String()]; ok {
			return l.p, l.ds
		}
		p, ds := loadTestPolicy(f, ov, openText)
		cache[key.String()] = loaded{p, ds}
		return p, ds
	}
	runs := f.Runs
	if len(runs) == 0 {
		runs = []*testfile.Run{{}}
	}
	// The sets of overrides loaded, by the test file's key: a run whose
	// set is not among them (the budget ran out) is not run.
	seen := map[string]bool{}
	for _, run := range runs {
		key := f.OverridesKey(run)
		if seen[key] {
			continue
		}
		if b.isStale() || !b.takeLoad(policySize(f, openText)) {
			break
		}
		seen[key] = true
		_, ds := load(f, f.Overrides(run))
		for _, x := range ds.Diagnostics {
			if x.Subject != nil && x.Subject.Filename == name {
				diags = append(diags, x)
				continue
			}
			if x.Severity != hcl.DiagError {
				continue
			}
			where := ""
			if x.Subject != nil {
				where = fmt.Sprintf("%s:%d:%d: ", x.Subject.Filename, x.Subject.Start.Line, x.Subject.Start.Column)
			}
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Policy does not load",
				Detail:  fmt.Sprintf("policy %q: %s%s: %s", f.Policy, where, x.Summary, x.Detail),
				Subject: f.PolicyRange.Ptr()})
			break
		}
		if len(diags) > rules.MaxDiagnosticsShown {
			return diags
		}
	}
	if diags.HasErrors() || b.isStale() {
		return diags
	}
	runner := testrun.New(load)
	var skipped []*testfile.Run
	for _, run := range f.Runs {
		if b.isStale() {
			return diags
		}
		if !seen[f.OverridesKey(run)] || !b.takeEvents(len(run.Events)) {
			skipped = append(skipped, run)
			continue
		}
		one := *f
		one.Runs = []*testfile.Run{run}
		runner.RunFile(&one)
	}
	for _, r := range runner.Report().Results {
		for _, fl := range r.Failures {
			rng := fl.Pos
			if rng == nil || rng.Filename != name {
				rng = r.Pos
			}
			detail := fmt.Sprintf("run %q, %s", r.Run, fl.Summary())
			if fl.Want != "" || fl.Got != "" {
				detail += fmt.Sprintf(": want %s, got %s", fl.Want, fl.Got)
			}
			if fl.Text != "" {
				detail += "\n" + fl.Text
			}
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Run fails", Detail: detail, Subject: rng})
		}
	}
	if len(skipped) > 0 {
		diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagWarning, Summary: "Runs not checked",
			Detail: fmt.Sprintf("%d of %d runs are not run as you type: a check loads at most %d bytes of policy text (each load counting at least %d) and runs at most %d events; `resetpolicy test` runs them all",
				len(skipped), len(f.Runs), MaxCheckLoadBytes, minLoadCost, MaxCheckEvents),
			Subject: skipped[0].NameRange.Ptr()})
	}
	return diags
}

// policySize is what loading a test file's policy costs, in bytes of its
// text: the open document's, the file's on disk or the built-in's.
func policySize(f *testfile.File, openText func(string) []byte) int {
	if path := f.PolicyFile(); path != "" {
		if b := openText(path); b != nil {
			return len(b)
		}
		if st, err := os.Stat(path); err == nil && st.Mode().IsRegular() {
			return int(min(st.Size(), rules.MaxFileBytes))
		}
		return 0
	}
	if src, ok := policies.Source(f.Policy); ok {
		return len(src.Bytes)
	}
	return 0
}

// loadTestPolicy loads the policy a test file names, as resetpolicy test
// does: a policy file relative to it (the open document's text when it is
// open) or a built-in, with the overrides of a run.
func loadTestPolicy(f *testfile.File, ov []rules.Override, openText func(string) []byte) (*rules.Policy, rules.Diagnostics) {
	if path := f.PolicyFile(); path != "" {
		opts := append(builtinOptions(), rules.WithOverrides(ov...))
		if b := openText(path); b != nil {
			return serialLoad(func() (*rules.Policy, rules.Diagnostics) {
				return rules.Load(rules.Source{Name: path, Bytes: b}, opts...)
			})
		}
		if ds, missing := fileio.MissingPolicyFile(f, path); missing {
			return nil, ds
		}
		return serialLoad(func() (*rules.Policy, rules.Diagnostics) { return rules.LoadFile(path, opts...) })
	}
	return loadBuiltinWith(f.Policy, ov)
}

// loadMu makes the server's policy loads one at a time: two loads at
// once race in the expression checker's configuration that rules/lang
// shares between compiles of one signature (go test -race shows it, and
// a race on a map there is a fatal error, not a panic a recover catches).
// A check and a request that loads a built-in take turns.
var loadMu sync.Mutex

func serialLoad(f func() (*rules.Policy, rules.Diagnostics)) (*rules.Policy, rules.Diagnostics) {
	loadMu.Lock()
	defer loadMu.Unlock()
	return f()
}

// builtinRuns caches the built-ins loaded with a test file's param values,
// by name and values, across checks: a built-in never changes, and its
// own test file sets dozens of different values, each a whole load. Only
// a load without diagnostics is kept (a diagnostic points into the test
// file, which changes), and at most maxBuiltinRuns entries.
var (
	builtinRunsMu sync.Mutex
	builtinRuns   map[string]*rules.Policy // made on first use
)

var maxBuiltinRuns = 256 // a variable for its test

func loadBuiltinWith(name string, ov []rules.Override) (*rules.Policy, rules.Diagnostics) {
	var key strings.Builder
	key.WriteString(name)
	for _, o := range ov {
		fmt.Fprintf(&key, "\x00%s=%q", o.Name, o.Raw)
	}
	builtinRunsMu.Lock()
	p, ok := builtinRuns[key.String()]
	builtinRunsMu.Unlock()
	if ok {
		return p, rules.Diagnostics{}
	}
	p, ds := serialLoad(func() (*rules.Policy, rules.Diagnostics) { return policies.Load(name, nil, rules.WithOverrides(ov...)) })
	if p != nil && len(ds.Diagnostics) == 0 {
		builtinRunsMu.Lock()
		if builtinRuns == nil || len(builtinRuns) >= maxBuiltinRuns {
			builtinRuns = map[string]*rules.Policy{}
		}
		builtinRuns[key.String()] = p
		builtinRunsMu.Unlock()
	}
	return p, ds
}

// lspDiagnostics converts problems for publishing: at most
// rules.MaxDiagnosticsShown, like check prints, the rest counted in a last
// one. A problem in another file (a built-in a composed policy takes) is
// shown at anchor, with the place it is about as related information.
func (s *Server) lspDiagnostics(d *document, diags hcl.Diagnostics) []protocol.Diagnostic {
	out := []protocol.Diagnostic{}
	t := d.text
	if t == nil {
		t = newText(nil)
	}
	// The use label, read only when a problem lies outside the document:
	// the outline costs a parse.
	var anchorRange *protocol.Range
	anchor := func() protocol.Range {
		if anchorRange == nil {
			anchorRange = &protocol.Range{}
			if syn := d.syntax(); syn.outline != nil && syn.outline.Composition != nil {
				*anchorRange = t.rng(syn.outline.Composition.UseRange)
			}
		}
		return *anchorRange
	}
	src := "resetpolicy"
	for i, x := range diags {
		if i == rules.MaxDiagnosticsShown {
			sev := protocol.DiagnosticSeverityInformation
			out = append(out, protocol.Diagnostic{Range: out[len(out)-1].Range, Severity: &sev, Source: &src,
				Message: fmt.Sprintf("and %d more", len(diags)-i)})
			break
		}
		sev := protocol.DiagnosticSeverityError
		if x.Severity == hcl.DiagWarning {
			sev = protocol.DiagnosticSeverityWarning
		}
		msg := x.Summary
		if x.Detail != "" {
			msg += "\n" + x.Detail
		}
		pd := protocol.Diagnostic{Severity: &sev, Source: &src, Message: msg}
		switch {
		case x.Subject == nil:
			pd.Range = anchor()
		case x.Subject.Filename == d.name:
			pd.Range = t.rng(*x.Subject)
		default:
			pd.Range = anchor()
			pd.Message = fmt.Sprintf("%s:%d:%d: %s", x.Subject.Filename, x.Subject.Start.Line, x.Subject.Start.Column, msg)
			if loc, ok := s.location(d, *x.Subject, false); ok {
				pd.RelatedInformation = []protocol.DiagnosticRelatedInformation{{Location: loc, Message: x.Summary}}
			}
		}
		out = append(out, pd)
	}
	return out
}

// location turns a range in any file a document's analysis names — the
// document itself, a built-in's source, a file on disk — into an LSP
// location. A built-in's source is written for it only with write (a
// definition asks for it; publishing diagnostics never writes, and points
// into a built-in only once its file is there).
func (s *Server) location(d *document, r hcl.Range, write bool) (protocol.Location, bool) {
	if r.Filename == d.name {
		return protocol.Location{URI: d.uri, Range: d.text.rng(r)}, true
	}
	if name, ok := builtinName(r.Filename); ok {
		uri, src, err := s.builtinFile(name, write)
		if err != nil {
			return protocol.Location{}, false
		}
		return protocol.Location{URI: uri, Range: newText(src).rng(r)}, true
	}
	if o := s.docByName(r.Filename); o != nil && o.text != nil {
		return protocol.Location{URI: o.uri, Range: o.text.rng(r)}, true
	}
	// A file on disk is read as check reads it: a regular file within
	// rules.MaxFileBytes (a FIFO there must not hold the server's lock).
	b, ds := rules.ReadHCLFile(r.Filename, "file")
	if ds.HasErrors() {
		return protocol.Location{}, false
	}
	return protocol.Location{URI: fileURI(r.Filename), Range: newText(b).rng(r)}, true
}

// builtinName is the built-in a source name stands for ("policies/NAME.hcl",
// the name policies.Source gives it).
func builtinName(filename string) (string, bool) {
	name, ok := strings.CutPrefix(filename, "policies/")
	if !ok {
		return "", false
	}
	name, ok = strings.CutSuffix(name, ".hcl")
	if !ok {
		return "", false
	}
	_, found := policies.Source(name)
	return name, found
}
