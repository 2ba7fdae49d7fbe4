package replay_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/resetpolicy/resetpolicy/engine"
	"github.com/resetpolicy/resetpolicy/host/replay"
	"github.com/resetpolicy/resetpolicy/host/report/reporttest"
	"github.com/resetpolicy/resetpolicy/policies"
	"github.com/resetpolicy/resetpolicy/rules"
)

// renamed is a built-in's source with every rule and every message the
// policy sends renamed (the host's own boot, continuation and reset
// notice keep theirs): what a team's copy in its own words looks like.
func renamed(t *testing.T, name string) []byte {
	t.Helper()
	src, ok := policies.Source(name)
	if !ok {
		t.Fatalf("no built-in %s", name)
	}
	text := string(src.Bytes)
	n := 0
	text = regexp.MustCompile(`(rule|override|disable) "([A-Za-z0-9_]+)"`).ReplaceAllStringFunc(text, func(m string) string {
		n++
		return strings.SplitN(m, " ", 2)[0] + fmt.Sprintf(` "regel_%d"`, n)
	})
	p, diags := policies.Load(name, nil)
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	for i, m := range p.Messages {
		switch m.Name {
		case "boot", "continuation", "reset_notice":
			continue
		}
		to := fmt.Sprintf("nachricht_%d", i)
		q := regexp.QuoteMeta(m.Name)
		text = regexp.MustCompile(`message "`+q+`" \{`).ReplaceAllString(text, `message "`+to+`" {`)
		text = regexp.MustCompile(`message(\s*)=(\s*)"`+q+`"`).ReplaceAllString(text, `message${1}=${2}"`+to+`"`)
		text = regexp.MustCompile(`message\.`+q+`\b`).ReplaceAllString(text, "message."+to)
	}
	text = strings.Replace(text, `policy "`+name+`"`, `policy "team_copy"`, 1)
	return []byte(text)
}

// figures are what a report counts and marks, without the names of the
// rules and messages behind them.
func figures(t *testing.T, r *replay.Report) string {
	t.Helper()
	type dec struct {
		Turn   int
		Tokens int64
		Kinds  []string
	}
	var decs []dec
	for _, d := range r.Decisions {
		decs = append(decs, dec{d.Turn, d.Tokens, d.Kinds})
	}
	b, err := json.Marshal(struct {
		Reminder, Warning, HardReserve                *replay.Mark
		Warnings                                      []replay.Mark
		Resets, Checkpoints, Compactions, Turns, Peak any
		Decisions                                     []dec
	}{r.FirstReminder, r.FirstWarning, r.FirstHardReserve, r.Warnings, r.Resets, r.Checkpoints, r.Compactions, r.Turns, r.PeakTokens, decs})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// A team's copy of a built-in with every rule and message renamed gives
// the figures the built-in gives: replay reads what a decision means from
// the policy's declarations, not from its names.
func TestRenamedCopyGivesTheSameFigures(t *testing.T) {
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(3, 5))
	var files []string
	for i, growth := range []int{900, 2600} {
		f := filepath.Join(dir, fmt.Sprintf("s%d.jsonl", i))
		if err := reporttest.Session(f, rng, 120, growth); err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	for _, name := range policies.Names() {
		t.Run(name, func(t *testing.T) {
			orig := config(t, name, nil, 0)
			p, diags := rules.Load(rules.Source{Name: "team_copy.hcl", Bytes: renamed(t, name)})
			if diags.HasErrors() {
				t.Fatal(diags.Error())
			}
			copyCfg := replay.Config{Label: "copy", Engine: engine.New(p), Settings: orig.Settings}
			seen := map[string]bool{}
			for _, f := range files {
				a, b := replayFile(t, orig, f, ""), replayFile(t, copyCfg, f, "")
				if fa, fb := figures(t, a), figures(t, b); fa != fb {
					t.Errorf("%s: the renamed copy's figures differ\nbuilt-in %s\ncopy     %s", filepath.Base(f), fa, fb)
				}
				if len(b.Notes) != len(a.Notes) {
					t.Errorf("%s: notes %q, the built-in's %q", filepath.Base(f), b.Notes, a.Notes)
				}
				for _, d := range b.Decisions {
					for _, k := range d.Kinds {
						seen[k] = true
					}
				}
			}
			// The comparison is of something: the sessions make every
			// built-in warn and cut its window.
			if !seen["warning"] || !(seen["reset"] || seen["checkpoint"] || seen["hard_reserve"]) {
				t.Errorf("the copy's decisions mark only %v: the sessions test too little", seen)
			}
		})
	}
}

// A status rule that fires at session start is routine, though
// autocompacter's names the force limit: only a declared hard_reserve is
// a hard reserve.
func TestRoutineRulesAreNotMarked(t *testing.T) {
	r := replayFile(t, config(t, "autocompacter", nil, 0), "pi-faux-read.jsonl", "")
	if r.FirstHardReserve != nil {
		t.Errorf("first hard reserve at %+v in a session that never nears the force limit", r.FirstHardReserve)
	}
	fired := false
	for _, d := range r.Decisions {
		for _, rule := range d.Rules {
			if strings.HasPrefix(rule, "status_says_") {
				fired = true
				if len(d.Kinds) > 0 {
					t.Errorf("the status rule's decision has kinds %v", d.Kinds)
				}
			}
		}
	}
	if !fired {
		t.Error("the status rule never fired: the test tests nothing")
	}
}

// A policy that injects and resets but declares no kind gets a note on
// every report, never silently empty figures.
func TestUndeclaredKindsAreNoted(t *testing.T) {
	src, _ := policies.Source("wipe_memory")
	bare := regexp.MustCompile(`(?m)^\s*kind = \w+\n`).ReplaceAll(src.Bytes, nil)
	p, diags := rules.Load(rules.Source{Name: "bare.hcl", Bytes: bare})
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	if p.DeclaresKinds() {
		t.Fatal("the stripped copy still declares kinds")
	}
	s := replay.DefaultSettings()
	s.ContextWindow = 64000
	r := replayFile(t, replay.Config{Engine: engine.New(p), Settings: s}, "pi-faux-read.jsonl", "")
	noted := false
	for _, n := range r.Notes {
		noted = noted || strings.Contains(n, "declares no decision kind")
	}
	if !noted || !r.KindsUndeclared || r.FirstWarning != nil {
		t.Errorf("notes %q, first warning %+v: want the note and no warning", r.Notes, r.FirstWarning)
	}
	if d := replayFile(t, config(t, "wipe_memory", nil, 64000), "pi-faux-read.jsonl", ""); d.FirstWarning == nil || strings.Contains(strings.Join(d.Notes, "|"), "declares no decision kind") {
		t.Errorf("the built-in itself: warning %+v, notes %q", d.FirstWarning, d.Notes)
	}
}
