package engine_test

import (
	"fmt"
	"math/rand"
	"os"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/resetpolicy/resetpolicy/engine"
	"github.com/resetpolicy/resetpolicy/policies"
	"github.com/resetpolicy/resetpolicy/rules"
	"github.com/resetpolicy/resetpolicy/rules/hcltree"
)

// decideLoad is how serve loads a policy.
var decideLoad = []rules.Option{rules.WithoutProperties(), rules.CompileOnUse()}

// decideAll runs a stream through a new session, recording every
// decision (explained every seventh event) and the state after it.
func decideAll(t *testing.T, e *engine.Engine, stream []engine.Event) []string {
	t.Helper()
	s := e.NewSession()
	var out []string
	for i, ev := range stream {
		decide := s.Decide
		if i%7 == 0 {
			decide = s.DecideExplain
		}
		d, err := decide(ev)
		if err != nil {
			out = append(out, "error: "+err.Error())
			continue
		}
		out = append(out, fmt.Sprintf("%+v %s", *d.Clone(), s.Snapshot()))
	}
	return out
}

// An engine over a policy loaded CompileOnUse, which builds each plan on
// its event's first decision, decides as one built whole: every decision,
// explanation and state along the fixed stream and a drawn one.
func TestPlansBuiltOnUseDecideAlike(t *testing.T) {
	var stream []engine.Event
	for _, s := range benchStream {
		stream = append(stream, event(t, s))
	}
	for _, s := range randomStream(rand.New(rand.NewSource(7)), 3000) {
		stream = append(stream, event(t, s))
	}
	for _, name := range policies.Names() {
		full, diags := policies.Load(name, nil, rules.WithoutProperties())
		if diags.HasErrors() {
			t.Fatal(diags.Error())
		}
		later, diags := policies.Load(name, nil, decideLoad...)
		if diags.HasErrors() || !later.CompilesOnUse() {
			t.Fatalf("%s: %v %s", name, later.CompilesOnUse(), diags.Error())
		}
		want := decideAll(t, engine.New(full), stream)
		got := decideAll(t, engine.New(later), stream)
		fired := 0
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("%s: event %d decided\n%s\nwant\n%s", name, i, got[i], want[i])
			}
			if strings.HasPrefix(want[i], "error") {
				t.Fatalf("%s: event %d: %s", name, i, want[i])
			}
			if !strings.Contains(want[i], "Rules:[]") {
				fired++
			}
		}
		if fired == 0 {
			t.Fatalf("%s: no rule fired along the stream", name)
		}
	}
}

// Sessions deciding at once on one engine build each plan once, and
// decide as sessions one after another do.
func TestPlansBuiltOnUseConcurrently(t *testing.T) {
	var stream []engine.Event
	for _, s := range randomStream(rand.New(rand.NewSource(3)), 500) {
		stream = append(stream, event(t, s))
	}
	full, _ := policies.Load("wipe_memory", nil, rules.WithoutProperties())
	want := decideAll(t, engine.New(full), stream)
	later, _ := policies.Load("wipe_memory", nil, decideLoad...)
	e := engine.New(later)
	got := make([][]string, 6)
	var wg sync.WaitGroup
	for g := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got[g] = decideAll(t, e, stream)
		}()
	}
	wg.Wait()
	for g := range got {
		if !reflect.DeepEqual(got[g], want) {
			t.Fatalf("session %d decided otherwise", g)
		}
	}
}

// A policy with a rule that does not compile on turn_end
// (testdata/compile_on_use/broken.hcl), given a tree as a built-in is and
// loaded CompileOnUse, loads; a decision on turn_end is then an error that
// names the mistake, which leaves the state as it was, and request decides
// as ever.
func TestPlanThatFailsOnUseIsAnError(t *testing.T) {
	b, err := os.ReadFile("../testdata/compile_on_use/broken.hcl")
	if err != nil {
		t.Fatal(err)
	}
	tree, err := hcltree.EncodeSource(b, "broken.hcl")
	if err != nil {
		t.Fatal(err)
	}
	p, diags := rules.Load(rules.Source{Name: "broken.hcl", Bytes: b, Tree: tree}, decideLoad...)
	if diags.HasErrors() || !p.CompilesOnUse() {
		t.Fatalf("load: %v %s", p != nil && p.CompilesOnUse(), diags.Error())
	}
	s := engine.New(p).NewSession()
	if _, err := s.Decide(event(t, `{"event":"request","tokens":5}`)); err != nil {
		t.Fatal(err)
	}
	before := string(s.Snapshot())
	for _, decide := range []func(engine.Event) (*engine.Decision, error){s.Decide, s.DecideExplain, s.Decide} {
		d, err := decide(event(t, `{"event":"turn_end","tokens":5}`))
		if err == nil || d != nil || !strings.Contains(err.Error(), "turn_end") || !strings.Contains(err.Error(), "broken.hcl:18") {
			t.Fatalf("turn_end: %v, %v", d, err)
		}
	}
	if after := string(s.Snapshot()); after != before || !strings.Contains(after, "armed") {
		t.Fatalf("state %s, want %s", after, before)
	}
	if _, err := s.Decide(event(t, `{"event":"request","tokens":5}`)); err != nil {
		t.Fatal(err)
	}
}
