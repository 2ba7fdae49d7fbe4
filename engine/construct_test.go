package engine_test

import (
	"bytes"
	"encoding/json"
	"math/rand"
	"reflect"
	"testing"

	"github.com/resetpolicy/resetpolicy/engine"
)

// TestEveryConstructorDecidesAlike: an event made by ParseEvent (the
// decoder), by NewEvent (a map) or by an EventBuilder decides the same
// rules, effects and state over a long generated stream: each carries its
// facts packed for the guards, and none may pack them differently.
func TestEveryConstructorDecidesAlike(t *testing.T) {
	e := wipeMemory(t)
	parsed, mapped, built := e.NewSession(), e.NewSession(), e.NewSession()
	for _, line := range randomStream(rand.New(rand.NewSource(11)), 3000) {
		a, err := engine.ParseEvent([]byte(line))
		if err != nil {
			t.Fatal(err)
		}
		dec := json.NewDecoder(bytes.NewReader([]byte(line)))
		dec.UseNumber()
		var m map[string]any
		if err := dec.Decode(&m); err != nil {
			t.Fatal(err)
		}
		b, err := engine.NewEvent(m)
		if err != nil {
			t.Fatal(err)
		}
		c := viaBuilder(t, m)
		var got [3]string
		for i, p := range []struct {
			s  *engine.Session
			ev engine.Event
		}{{parsed, a}, {mapped, b}, {built, c}} {
			d, err := p.s.Decide(p.ev)
			if err != nil {
				t.Fatal(err)
			}
			got[i] = string(d.AppendJSON(nil, p.s))
		}
		if got[0] != got[1] || got[0] != got[2] {
			t.Fatalf("%s:\nParseEvent %s\nNewEvent   %s\nbuilder    %s", line, got[0], got[1], got[2])
		}
	}
}

// viaBuilder builds the event of m with an EventBuilder.
func viaBuilder(t *testing.T, m map[string]any) engine.Event {
	t.Helper()
	b, err := engine.NewEventBuilder(m["event"].(string))
	if err != nil {
		t.Fatal(err)
	}
	for name, v := range m {
		if name == "event" {
			continue
		}
		i, _, err := b.Index(name)
		if err != nil {
			t.Fatal(err)
		}
		switch x := v.(type) {
		case bool:
			b.SetBool(i, x)
		case json.Number:
			n, _ := x.Int64()
			b.SetInt(i, n)
		case string:
			if err := b.SetString(i, x); err != nil {
				t.Fatal(err)
			}
		default:
			t.Fatalf("fact %s: %s", name, reflect.TypeOf(v))
		}
	}
	ev, err := b.Event()
	if err != nil {
		t.Fatal(err)
	}
	return ev
}
