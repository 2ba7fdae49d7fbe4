package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/spf13/cobra"
	"github.com/spf13/viper"

	"github.com/resetpolicy/resetpolicy/engine/graph"
	"github.com/resetpolicy/resetpolicy/engine/testrun"
	"github.com/resetpolicy/resetpolicy/engine/verify"
	"github.com/resetpolicy/resetpolicy/host/fileio"
	"github.com/resetpolicy/resetpolicy/host/render"
	"github.com/resetpolicy/resetpolicy/host/replay"
	"github.com/resetpolicy/resetpolicy/host/report"
	"github.com/resetpolicy/resetpolicy/host/sessionfile"
	"github.com/resetpolicy/resetpolicy/policies"
	"github.com/resetpolicy/resetpolicy/rules"
	"github.com/resetpolicy/resetpolicy/rules/testfile"
)

func init() { extraCommands = append(extraCommands, newReportCmd) }

// reportDecisions bounds the decisions a report keeps per session and
// setting (the rest are counted as dropped, as replay does), so that a
// charted session's data stays small.
const reportDecisions = 300

// maxProductNodes is the largest product diagram the report draws; a
// larger one is left to `graph --slot …`.
const maxProductNodes = 40

func newReportCmd(v *viper.Viper) *cobra.Command {
	var f replayFlags
	var sessions []string
	var outFile string
	var noVerify bool
	cmd := &cobra.Command{
		Use:   "report [POLICY|FILE] [--sessions DIR|FILE...] [--compare P=V1,V2] [--set PARAM=VALUE...] [-o FILE.html]",
		Short: "Write one HTML page: the policy, its diagram, its proof, its tests and its replay",
		Long: `report writes one self-contained HTML page (no network; it opens from disk)
that answers what a policy does, whether it is proven, whether it is tested,
and what it would have done on recorded sessions:

  the policy      its files, params with values and origins, what a composed
                  policy inherits, replaces, adds and disables; the tools,
                  commands and messages the model and the user see
  the diagram     one state diagram per enum slot (and their product when it
                  is small); a click on a state or an edge shows its rules
  the proof       resetpolicy verify's result: every property, what was
                  explored, each counterexample as a timeline with its eval
                  lines and run block
  the tests       the policy's test files run, with rule coverage
  the sessions    with --sessions: resetpolicy replay over the files, corpus
                  figures, and per session a chart of context over turns with
                  the thresholds and the decisions (hover a marker)

Every figure comes from the same code as policies --json, verify --json,
test --json and replay --json. The page holds every session in its list but
charts only the 24 most telling (those that reset, then those that came
closest to the window), within a byte budget.

With no POLICY it reports the policy in force in this directory, as Pi runs
it (the project's .pi/ files, the user config, RESETPOLICY_*, --set; see
'resetpolicy config'), and the header says which file and values it used.
Test files: a built-in's own; for a file, the *.test.hcl files beside it
that name it.`,
		Example: `  resetpolicy report wipe_memory --sessions ~/.pi/agent/sessions -o report.html
  resetpolicy report .pi/resetpolicy.hcl --sessions sessions/ --compare warning_runway=8192,20000`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 1 {
				return usage("report takes at most one policy, got %d", len(args))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			policy := ""
			if len(args) == 1 {
				policy = args[0]
			}
			if !strings.HasSuffix(outFile, ".html") && !strings.HasSuffix(outFile, ".htm") {
				return usage("-o %q: the file name must end in .html", outFile)
			}
			return runReport(cmd, policy, sessions, outFile, !noVerify, f)
		},
	}
	cmd.Flags().StringArrayVar(&sessions, "sessions", nil, "Pi session files or directories to replay (repeatable)")
	cmd.Flags().StringVarP(&outFile, "output", "o", "resetpolicy-report.html", "the page to write")
	cmd.Flags().BoolVar(&noVerify, "no-verify", false, "leave the proof section out (verify can take seconds on a large policy)")
	addReplayFlags(cmd, &f)
	return cmd
}

func runReport(cmd *cobra.Command, policy string, sessions []string, outFile string, withVerify bool, f replayFlags) error {
	set, err := parseSet(f.sets)
	if err != nil {
		return err
	}
	r, err := policyInForce(cmd, policy, "argument", set)
	if err != nil {
		return err
	}
	if err := loadFailed(cmd.ErrOrStderr(), r); err != nil {
		return err
	}
	p := r.Policy
	// source names the policy as verify and the test finder take it: the
	// file, or the built-in's name.
	source := r.Source()
	if source == "builtin" {
		source = p.Name
	}
	doc := &report.Doc{Header: report.Header{
		Generated: time.Now().UTC().Format(time.RFC3339),
		Version:   buildVersion().String(),
		Command:   append([]string{"resetpolicy"}, os.Args[1:]...),
	}}
	doc.Policy = policySection(p)
	if b, err := json.Marshal(r.JSON()); err == nil {
		doc.Policy.InForce = b
	}
	doc.Header.InForce = r.Header()
	doc.Header.Inputs = append(doc.Header.Inputs, doc.Policy.Sources...)
	// One exploration gives the diagrams and the verify result.
	start := time.Now()
	drawing, drawErr := draws(p)
	doc.Diagrams = diagrams(p, drawing, drawErr)
	if withVerify && drawing != nil && drawing.Result != nil {
		w := verifyJSON(drawing.Result, source, 0)
		w.Seconds = time.Since(start).Seconds()
		if b, err := json.Marshal(w); err == nil {
			doc.Verify = b
		}
	} else if withVerify {
		doc.VerifyError = fmt.Sprintf("verify did not run: %v", drawErr)
	} else {
		doc.VerifyError = "verify was left out (--no-verify)."
	}
	inputs, err := reportTests(source, p)
	if err != nil {
		return err
	}
	var rep *testrun.Report
	switch {
	case len(inputs) > 0:
		rep = runTests(inputs, nil, io.Discard)
	case p.Composition != nil:
		// No test file of its own: what it inherits is still tested, and
		// counted as test --coverage counts it.
		runner := testrun.New(loadTestPolicy, testrun.BaseTests(policies.TestSource))
		runner.Cover(source, p)
		rep = runner.Report()
	}
	if rep != nil {
		var b bytes.Buffer
		if err := rep.WriteJSON(&b, true); err != nil {
			return failure("%v", err)
		}
		doc.Tests = json.RawMessage(bytes.TrimSpace(b.Bytes()))
		for _, in := range inputs {
			doc.TestFiles = append(doc.TestFiles, in.name)
		}
		doc.Header.Inputs = append(doc.Header.Inputs, doc.TestFiles...)
	}
	if len(sessions) > 0 {
		if doc.Replay, err = reportReplay(cmd, policy, sessions, f); err != nil {
			return err
		}
		doc.Header.Inputs = append(doc.Header.Inputs, sessions...)
	}
	var page bytes.Buffer
	if err := report.Write(&page, doc); err != nil {
		return failure("%v", err)
	}
	if err := fileio.WriteOutput(outFile, page.Bytes(), 0o644); err != nil {
		return failure("%v", err)
	}
	fmt.Fprintf(cmd.OutOrStdout(), "report written to %s (%d KB)\n", outFile, (page.Len()+1023)/1024)
	// As replay does: a session file that could not be read is an error
	// of the run, though the page, which lists it, is written.
	if doc.Replay != nil && len(doc.Replay.Failed) > 0 {
		for _, f := range doc.Replay.Failed {
			fmt.Fprintln(cmd.ErrOrStderr(), f)
		}
		return failure("%s not replayed", plural(len(doc.Replay.Failed), "session file"))
	}
	return nil
}

// policySection describes the policy as `policies --json` does, with its
// surface and the rules behind the diagram.
func policySection(p *rules.Policy) *report.PolicySection {
	s := &report.PolicySection{Messages: []report.Named{}, Tools: []report.Named{}, Commands: []report.Named{}, Rules: []report.Rule{}}
	if b, err := json.Marshal(policiesJSON([]*rules.Policy{p})[0]); err == nil {
		s.Summary = b
	}
	for name := range p.Sources {
		s.Sources = append(s.Sources, name)
	}
	sort.Strings(s.Sources)
	if c := p.Composition; c != nil {
		s.Uses = c.Base
		for _, d := range c.Disabled {
			s.Disabled = append(s.Disabled, d.Rule.Name)
		}
	}
	for _, m := range p.Messages {
		s.Messages = append(s.Messages, report.Named{Name: m.Name, Description: m.Description, Text: m.Text})
	}
	for _, t := range p.Tools {
		s.Tools = append(s.Tools, report.Named{Name: t.Name, Description: t.Description})
	}
	for _, c := range p.Commands {
		s.Commands = append(s.Commands, report.Named{Name: "/" + c.Name, Description: c.Description})
	}
	for _, r := range p.Rules {
		rr := report.Rule{Name: r.Name, Group: r.Group.Name, On: r.On, From: entriesText(r.From), To: entriesText(r.To),
			File: r.DeclRange.Filename, Line: r.DeclRange.Start.Line}
		if r.When != nil {
			rr.When = sourceText(p, r.When.Range())
		}
		for _, e := range r.Effects {
			rr.Effects = append(rr.Effects, e.Name)
		}
		if p.Composition != nil {
			rr.Origin = string(p.Composition.RuleOrigin(r))
		}
		s.Rules = append(s.Rules, rr)
	}
	return s
}

func entriesText(es []rules.Entry) string {
	var parts []string
	for _, e := range es {
		parts = append(parts, e.Key+"="+strings.Join(e.Values(), "|"))
	}
	return strings.Join(parts, ", ")
}

// sourceText is the text of a range in the policy's sources, unquoted
// when it is one string.
func sourceText(p *rules.Policy, rng hcl.Range) string {
	src := p.Sources[rng.Filename]
	if rng.Start.Byte < 0 || rng.End.Byte > len(src) || rng.Start.Byte >= rng.End.Byte {
		return ""
	}
	text := strings.TrimSpace(string(src[rng.Start.Byte:rng.End.Byte]))
	if len(text) >= 2 && text[0] == '"' && text[len(text)-1] == '"' {
		var s string
		if json.Unmarshal([]byte(text), &s) == nil {
			return s
		}
	}
	return text
}

// draws explores p once, with verify's default bounds, for the diagrams
// and the verify result: one diagram per enum slot and, when even every
// combination of values would stay readable (a check that costs nothing,
// where an exploration does), the product of every enum slot.
func draws(p *rules.Policy) (*graph.Drawing, error) {
	var enums []string
	combos := 1
	for _, s := range p.Slots {
		if s.IsEnum() {
			enums = append(enums, s.Name)
			combos *= len(s.Enum)
		}
	}
	var product []string
	if len(enums) >= 2 && combos <= maxProductNodes {
		product = enums
	}
	opts := verifyLimits{}.options()
	opts.MaxStates = verify.DefaultMaxStates
	return graph.Draw(p, product, graph.Limits{MaxNodes: max(graph.DefaultMaxNodes, maxProductNodes)}, opts)
}

// diagrams lays out the drawing's diagrams for the page, with graph's
// default bounds. The ids of each drawing are prefixed with its index,
// since the page inlines them all.
func diagrams(p *rules.Policy, dr *graph.Drawing, err error) []report.Diagram {
	var out []report.Diagram
	if err == nil && dr.PerSlotErr != nil {
		err = dr.PerSlotErr
	}
	if err != nil {
		return []report.Diagram{{Title: p.Name, Error: err.Error()}}
	}
	ds := dr.PerSlot
	if dr.Product != nil && dr.ProductErr == nil {
		ds = append(slices.Clone(ds), dr.Product)
	}
	for i, d := range ds {
		rd := report.Diagram{Title: d.Title, Nodes: []report.DiagramNode{}, Edges: []report.DiagramEdge{}}
		svg, err := render.SVG([]*graph.Diagram{d})
		if err != nil {
			rd.Error = "not drawn: " + err.Error()
		} else {
			rd.SVG = strings.ReplaceAll(svgElement(svg), `id="d0-`, fmt.Sprintf(`id="g%d-`, i))
		}
		for _, n := range d.Nodes {
			rd.Nodes = append(rd.Nodes, report.DiagramNode{ID: n.ID, Label: n.Label})
		}
		for _, e := range d.Edges {
			re := report.DiagramEdge{From: e.From, To: e.To}
			for _, m := range e.Moves {
				re.Moves = append(re.Moves, report.DiagramMove{Event: m.Event, Rules: m.Rules})
			}
			rd.Edges = append(rd.Edges, re)
		}
		out = append(out, rd)
	}
	return out
}

// svgElement drops what precedes the <svg> element (the XML declaration
// and doctype), which has no place inside an HTML page.
func svgElement(svg []byte) string {
	s := string(svg)
	if i := strings.Index(s, "<svg"); i > 0 {
		s = s[i:]
	}
	return s
}

// reportTests finds the policy's test files: a built-in's own, or the
// test files beside a policy file that name it (and any there that do not
// parse, which the runner reports as invalid).
func reportTests(policy string, p *rules.Policy) ([]testInput, error) {
	if isBuiltinName(policy) {
		if src, ok := policies.TestSource(policy); ok {
			return []testInput{{name: src.Name, src: src.Bytes}}, nil
		}
		return nil, nil
	}
	abs, err := filepath.Abs(policy)
	if err != nil {
		return nil, failure("%v", err)
	}
	matches, err := filepath.Glob(filepath.Join(filepath.Dir(policy), "*"+testfile.Suffix))
	if err != nil {
		return nil, failure("%v", err)
	}
	var out []testInput
	for _, m := range matches {
		// A test file beside the policy that cannot be read or parsed is
		// shown as the failure it is, not left out: it may be this
		// policy's.
		src, diags := rules.ReadHCLFile(m, "test file")
		if diags.HasErrors() {
			out = append(out, testInput{name: m, err: errors.New(diags[0].Detail)})
			continue
		}
		tf, diags := testfile.Parse(src, m)
		if diags.HasErrors() {
			out = append(out, testInput{name: m, src: src})
			continue
		}
		if tf.PolicyFile() == "" {
			continue
		}
		if named, err := filepath.Abs(tf.PolicyFile()); err == nil && named == abs {
			out = append(out, testInput{name: m, src: src})
		}
	}
	return out, nil
}

// reportReplay replays the sessions under every compared setting, as
// `replay` does, and gathers the section as the sessions come.
func reportReplay(cmd *cobra.Command, policy string, paths []string, f replayFlags) (*report.ReplaySection, error) {
	f.points, f.maxDecisions = true, reportDecisions
	configs, labels, _, err := replayConfigs(cmd, f, policy, false)
	if err != nil {
		return nil, err
	}
	files, err := sessionfile.Walk(paths)
	if err != nil {
		return nil, usage("--sessions: %v", pathError(err))
	}
	if len(files) == 0 {
		return nil, usage("--sessions: no session files in %s", strings.Join(paths, ", "))
	}
	b := report.NewReplayBuilder(labels)
	bar := progress(cmd.ErrOrStderr(), f.progress, len(files))
	c := replay.Corpus{
		Configs: configs, Leaf: f.branch, Workers: f.jobs,
		Done: bar.tick,
		Emit: func(res replay.Result) {
			if res.Err != nil {
				b.Fail(res.Err.Error())
				return
			}
			b.Add(res.Reports, replay.ThresholdsOf(configs, res.Reports))
		},
	}
	c.Run(files)
	bar.finish()
	return b.Section(), nil
}
