package testrun

import (
	"bufio"
	"fmt"
	"io"
	"path"
	"path/filepath"
	"strings"

	"github.com/hashicorp/hcl/v2"

	"github.com/resetpolicy/resetpolicy/rules"
)

// Result is the outcome of one run, or of a test file that could not be
// decoded.
type Result struct {
	// File is the test file's name as it was given to the runner.
	File string
	// Run is the run's name; "" for an invalid test file.
	Run string
	// Policy is the coverage key of the run's policy: a built-in name or a
	// policy file's path.
	Policy string
	// Pos is the run's name in the test file.
	Pos *hcl.Range
	// Failures is empty when the run passed.
	Failures []*Failure

	invalid bool
}

// Name is `FILE/RUN` with FILE the test file's base name, as -run matches
// it; just FILE for an invalid test file.
func (r *Result) Name() string {
	base := path.Base(filepath.ToSlash(r.File))
	if r.invalid {
		return base
	}
	return base + "/" + r.Run
}

// Passed reports whether the run met every expectation.
func (r *Result) Passed() bool { return len(r.Failures) == 0 }

func (r *Result) fail(f *Failure) { r.Failures = append(r.Failures, f) }

// Failure is one expectation that did not hold.
type Failure struct {
	// Where locates it in the run: "event 2 turn_end", "final state",
	// "assert 1", "start state", "policy" or "invalid test file".
	Where string
	// What was checked within an event: "rules", "effects",
	// "effects_contain", "error" or "state"; "" elsewhere.
	What string
	// Pos is the expectation in the test file, when there is one.
	Pos *hcl.Range
	// Want and Got, when set, are the expected and the actual value.
	Want, Got string
	// Text is any further explanation, possibly several lines.
	Text string
}

// Summary is the failure on one line, for JUnit's message attribute.
func (f *Failure) Summary() string {
	s := f.Where
	if f.What != "" {
		s += ": " + f.What
	}
	return s
}

// Report holds the results of every run and the rules each policy fired.
type Report struct {
	Results  []*Result
	policies []*policyRules
}

type policyRules struct {
	key   string
	name  string
	rules []string
	fired map[string]bool
	// For a policy that uses a built-in: where each rule comes from, the
	// built-in's test file and the inherited rules its runs fired.
	origin    map[string]rules.Origin
	baseTests string
	inherited map[string]bool
	// retuned are the inherited rules the built-in's runs fired but that
	// read params this policy changes, with those params.
	retuned map[string][]string
}

// addPolicy registers a policy for coverage; it reports whether the
// policy is new.
func (rep *Report) addPolicy(key string, p *rules.Policy) (*policyRules, bool) {
	for _, pr := range rep.policies {
		if pr.key == key {
			return pr, false
		}
	}
	pr := &policyRules{key: key, name: p.Name, fired: map[string]bool{}}
	for _, r := range p.Rules {
		pr.rules = append(pr.rules, r.Name)
	}
	if c := p.Composition; c != nil {
		pr.origin = map[string]rules.Origin{}
		for _, r := range p.Rules {
			pr.origin[r.Name] = c.RuleOrigin(r)
		}
	}
	rep.policies = append(rep.policies, pr)
	return pr, true
}

func (rep *Report) fired(key, rule string) {
	for _, pr := range rep.policies {
		if pr.key == key {
			pr.fired[rule] = true
			return
		}
	}
}

// Passed is the number of runs that passed.
func (rep *Report) Passed() int {
	n := 0
	for _, r := range rep.Results {
		if r.Passed() {
			n++
		}
	}
	return n
}

// Failed is the number of runs that failed, each invalid test file
// counting as one.
func (rep *Report) Failed() int { return len(rep.Results) - rep.Passed() }

// Coverage is the share of a policy's rules that some run fired.
type Coverage struct {
	// Policy is the built-in name, or the policy file's path.
	Policy string `json:"policy"`
	// Name is the name the policy declares.
	Name string `json:"name"`
	// Rules is the number of rules the policy has.
	Rules int `json:"rules"`
	// Fired is the number of them some run fired.
	Fired int `json:"fired"`
	// Unfired lists the rules no run fired, in file order.
	Unfired []string `json:"unfired"`
	// Composed is set for a policy that uses a built-in.
	Composed *ComposedCoverage `json:"composed,omitempty"`
}

// ComposedCoverage is what a policy that uses a built-in owes to the
// built-in's own test file.
type ComposedCoverage struct {
	// Base is the built-in; BaseTests its test file when its runs count
	// toward this coverage ("" with inherit_tests = false).
	Base      string `json:"base"`
	BaseTests string `json:"base_tests,omitempty"`
	// Inherited is the number of rules fired by the built-in's runs only.
	Inherited int `json:"inherited"`
	// Origins gives, per rule, "inherited", "replaced" or "added".
	Origins map[string]rules.Origin `json:"origins"`
	// Retuned lists, per inherited rule the built-in's runs fired without
	// it counting here, the params it reads that this policy changes.
	Retuned map[string][]string `json:"retuned,omitempty"`
}

// Share is Fired/Rules, 1 for a policy without rules.
func (c Coverage) Share() float64 {
	if c.Rules == 0 {
		return 1
	}
	return float64(c.Fired) / float64(c.Rules)
}

// Coverage returns the rule coverage of every policy a run loaded, in the
// order the policies were first loaded.
func (rep *Report) Coverage() []Coverage {
	var out []Coverage
	for _, pr := range rep.policies {
		c := Coverage{Policy: pr.key, Name: pr.name, Rules: len(pr.rules)}
		if pr.origin != nil {
			c.Composed = &ComposedCoverage{Base: pr.name, BaseTests: pr.baseTests, Origins: pr.origin, Retuned: pr.retuned}
		}
		for _, r := range pr.rules {
			switch {
			case pr.fired[r]:
				c.Fired++
			case pr.inherited[r]:
				c.Fired++
				c.Composed.Inherited++
			default:
				c.Unfired = append(c.Unfired, r)
			}
		}
		out = append(out, c)
	}
	return out
}

// TextOptions chooses what WriteText prints.
type TextOptions struct {
	// Verbose prints a `--- PASS:` line for every passing run too.
	Verbose bool
	// Coverage prints the rule coverage of every policy before the totals.
	Coverage bool
}

// WriteText prints the report like `go test`: a `--- FAIL:` block per
// failing run with each failed expectation, expected versus actual; with
// Verbose a `--- PASS:` line per passing run; with Coverage the coverage
// per policy; and last the line `N passed, N failed`.
func (rep *Report) WriteText(w io.Writer, opt TextOptions) error {
	bw := bufio.NewWriter(w)
	for _, r := range rep.Results {
		if r.Passed() {
			if opt.Verbose {
				fmt.Fprintf(bw, "--- PASS: %s\n", r.Name())
			}
			continue
		}
		writeFailure(bw, r)
	}
	if opt.Coverage {
		for _, c := range rep.Coverage() {
			label := c.Policy
			if label != c.Name {
				label = fmt.Sprintf("%s (%s)", c.Name, c.Policy)
			}
			fmt.Fprintf(bw, "coverage: %s: %d of %d rules fired (%.1f%%)\n", label, c.Fired, c.Rules, 100*c.Share())
			if cc := c.Composed; cc != nil && cc.BaseTests != "" {
				fmt.Fprintf(bw, "    %d inherited rules fired by %s\n", cc.Inherited, cc.BaseTests)
			}
			for _, u := range c.Unfired {
				if c.Composed != nil {
					if ps := c.Composed.Retuned[u]; len(ps) > 0 {
						fmt.Fprintf(bw, "    not fired: %s (%s; the built-in's runs fired it with other values of %s)\n", u, c.Composed.Origins[u], strings.Join(ps, ", "))
						continue
					}
					fmt.Fprintf(bw, "    not fired: %s (%s)\n", u, c.Composed.Origins[u])
					continue
				}
				fmt.Fprintf(bw, "    not fired: %s\n", u)
			}
		}
	}
	fmt.Fprintf(bw, "%d passed, %d failed\n", rep.Passed(), rep.Failed())
	return bw.Flush()
}

func writeFailure(w io.Writer, r *Result) {
	first := r.Failures[0]
	fmt.Fprintf(w, "--- FAIL: %s (%s)\n", r.Name(), first.Where)
	for _, f := range r.Failures {
		var label []string
		if f.Pos != nil {
			label = append(label, fmt.Sprintf("%s:%d:%d", f.Pos.Filename, f.Pos.Start.Line, f.Pos.Start.Column))
		}
		if f.Where != first.Where || f.What == "" {
			label = append(label, f.Where)
		}
		if f.What != "" {
			label = append(label, f.What)
		}
		indent := "      "
		if len(label) > 0 {
			fmt.Fprintf(w, "    %s:\n", strings.Join(label, ": "))
		} else {
			indent = "    "
		}
		if f.Want != "" || f.Got != "" {
			fmt.Fprintf(w, "%swant: %s\n", indent, f.Want)
			fmt.Fprintf(w, "%sgot:  %s\n", indent, f.Got)
		}
		if f.Text != "" {
			for _, line := range strings.Split(f.Text, "\n") {
				fmt.Fprintf(w, "%s%s\n", indent, line)
			}
		}
	}
}

// Text is the failure as WriteText prints it, without the header.
func (r *Result) Text() string {
	if r.Passed() {
		return ""
	}
	var b strings.Builder
	writeFailure(&b, r)
	s := b.String()
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	return s
}
