package rules

import (
	"strings"
	"testing"

	"github.com/resetpolicy/resetpolicy/rules/contract"
)

// TestCheckerFactsAreASuperset: what the checker sees of each event holds
// every fact of every event, and each of the event's own facts with the
// event's own type (a command's args is a string, a tool's an object).
func TestCheckerFactsAreASuperset(t *testing.T) {
	names := map[string]bool{}
	for i := range contract.Events {
		for _, f := range FactFields(&contract.Events[i]) {
			names[f.Name] = true
		}
	}
	for i := range contract.Events {
		ev := &contract.Events[i]
		seen := map[string]bool{}
		for _, f := range checkerFacts()[i] {
			if seen[f.Name] {
				t.Errorf("%s: %s seen twice", ev.Name, f.Name)
			}
			seen[f.Name] = true
		}
		if len(seen) != len(names) {
			t.Errorf("%s: the checker sees %d facts of the contract's %d", ev.Name, len(seen), len(names))
		}
		for _, own := range FactFields(ev) {
			for _, f := range checkerFacts()[i] {
				if f.Name == own.Name && f.Type != own.Type {
					t.Errorf("%s: the checker sees %s as %s, the event has it as %s", ev.Name, f.Name, f.Type, own.Type)
				}
			}
		}
	}
}

// TestFactsOfOtherEventsAreRefused: an expression on one event that reads
// a fact only another event has is refused with the policy's message,
// though the checker's view of the event holds that fact.
func TestFactsOfOtherEventsAreRefused(t *testing.T) {
	src := []byte(`
policy "p" {}
group "g" {
  rule "r" {
    on   = "turn_end"
    when = "event.name == 'x'"
  }
}
`)
	_, diags := Load(Source{Name: "p.hcl", Bytes: src})
	if !diags.HasErrors() || !strings.Contains(diags.Error(), `event turn_end has no fact "name"`) {
		t.Fatalf("want the unknown fact refused, got: %v", diags.Error())
	}
}
