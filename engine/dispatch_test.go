package engine_test

import (
	"fmt"
	"math/rand"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/resetpolicy/resetpolicy/engine"
)

// toolPolicy has n rules on distinct tool names, each guarded by
// `event.name == 'toolI' && …`, plus a rule for any tool, in one group.
func toolPolicy(n int) string {
	var b strings.Builder
	b.WriteString("policy \"tools\" {}\nslot \"phase\" {\n  values = [\"idle\", \"busy\"]\n}\nslot \"last\" {\n  type = string\n}\ngroup \"tools\" {\n")
	for i := 0; i < n; i++ {
		guard := fmt.Sprintf("event.name == 'tool%d'", i)
		if i%3 == 1 {
			guard += " && event.enabled"
		}
		if i%3 == 2 {
			guard += " && event.enabled && state.last != event.window_id"
		}
		fmt.Fprintf(&b, "  rule \"t%d\" {\n    on = \"tool\"\n    from = { phase = %q }\n    when = %q\n    to = { phase = %q }\n    set = { last = \"event.window_id\" }\n  }\n",
			i, []string{"idle", "busy"}[i%2], guard, []string{"busy", "idle"}[i%2])
	}
	b.WriteString("  rule \"any\" {\n    on = \"tool\"\n    when = \"event.idle\"\n    set = { last = \"'any'\" }\n  }\n}\n")
	return b.String()
}

func toolEvent(r *rand.Rand, n int) string {
	return fmt.Sprintf(`{"event":"tool","name":"tool%d","enabled":%v,"idle":%v,"window_id":"w%d"}`,
		r.Intn(n+5), r.Intn(4) > 0, r.Intn(2) == 0, r.Intn(3))
}

// TestDispatchDecidesAsAScanWould compares the indexed path (Decide) with
// the explained one, which tests every rule in file order, on a policy
// whose rules dispatch on a tool name and on wipe_memory; the indexed
// path both through the plans' state tables and without them, group by
// group, as a policy too large to tabulate decides.
func TestDispatchDecidesAsAScanWould(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	cases := map[string][]string{}
	for _, n := range []int{5, 50} {
		var stream []string
		for i := 0; i < 3000; i++ {
			stream = append(stream, toolEvent(r, n))
		}
		cases[toolPolicy(n)] = stream
	}
	src, _ := wipeMemorySource()
	cases[src] = randomStream(r, 5000)
	// Every rule starts with the same conjunct, which can fail: it is
	// tested once per group, with the same results and errors.
	var shared []string
	for i := 0; i < 2000; i++ {
		shared = append(shared, fmt.Sprintf(`{"event":"request","window_id":%q,"enabled":%v,"idle":%v}`,
			[]string{"1", "0", "2", "x"}[r.Intn(4)], r.Intn(2) == 0, r.Intn(2) == 0))
	}
	cases[sharedFirstConjunct] = shared
	// The shared conjunct of a bucket, which can fail, is tested only when
	// some rule of the bucket is a candidate in the state: in "busy" t1's
	// are and t2's are not, and in "done" no rule of the group is.
	var tools []string
	for i := 0; i < 3000; i++ {
		tools = append(tools, fmt.Sprintf(`{"event":"tool","name":"t%d","window_id":%q,"enabled":%v,"idle":%v}`,
			r.Intn(2)+1, []string{"1", "2", "2", "2", "0", "x"}[r.Intn(6)], r.Intn(4) > 0, r.Intn(4) > 0))
	}
	cases[noCandidateInState] = tools
	cases[twoLiteralFacts] = twoLiteralStream(r, 3000)
	for src, stream := range cases {
		e := load(t, src)
		if tabled, plans := engine.StateTables(e); tabled != plans {
			t.Fatalf("%d plans of %d have a state table", tabled, plans)
		}
		groups := load(t, src)
		engine.DropStateTables(groups)
		a, b, c := e.NewSession(), e.NewSession(), groups.NewSession()
		fired := 0
		for i, line := range stream {
			ev := event(t, line)
			dc, errC := c.Decide(ev)
			var rules []string
			var effects string
			if errC == nil {
				rules, effects = slices.Clone(dc.Rules), fmt.Sprint(dc.Effects)
			}
			da, errA := a.Decide(ev)
			if fmt.Sprint(errA) != fmt.Sprint(errC) || !reflect.DeepEqual(a.State(), c.State()) ||
				(errA == nil && (!reflect.DeepEqual(da.Rules, rules) || fmt.Sprint(da.Effects) != effects)) {
				t.Fatalf("event %d %s:\nstate table %v %v\ngroups %v %v %v", i, line, da, errA, rules, effects, errC)
			}
			db, errB := b.DecideExplain(ev)
			if errA != nil || errB != nil {
				// The same rule fails with the same error; the states stay alike.
				if fmt.Sprint(errA) != fmt.Sprint(errB) || !reflect.DeepEqual(a.State(), b.State()) {
					t.Fatalf("event %d %s:\nindexed %v\nscanned %v", i, line, errA, errB)
				}
				continue
			}
			if !reflect.DeepEqual(da.Rules, db.Rules) ||
				fmt.Sprint(da.Effects) != fmt.Sprint(db.Effects) || !reflect.DeepEqual(a.State(), b.State()) {
				t.Fatalf("event %d %s:\nindexed %v %v %v\nscanned %v %v %v", i, line, da.Rules, da.Effects, a.State(), db.Rules, db.Effects, b.State())
			}
			fired += len(da.Rules)
		}
		if fired < len(stream)/4 {
			t.Errorf("only %d rules fired over %d events: the comparison proves little", fired, len(stream))
		}
	}
}

// twoLiteralFacts is a group whose rules start their guards with literal
// tests on two different facts: the group dispatches on the name (three
// rules test it), and the rules that test the window first must keep that
// test and be candidates in every bucket. Dropping the fact check when
// bucketing fires window_w9 for {"name":"t1","window_id":"w1"}.
const twoLiteralFacts = `
policy "two_literals" {}
group "g" {
  rule "window_w9" {
    on   = "tool"
    when = "event.window_id == 'w9'"
  }
  rule "tool_t1" {
    on   = "tool"
    when = "event.name == 't1' && event.enabled"
  }
  rule "window_w8" {
    on   = "tool"
    when = "event.window_id == 'w8' && event.idle"
  }
  rule "tool_t2" {
    on   = "tool"
    when = "event.name == 't2'"
  }
  rule "tool_t1_idle" {
    on   = "tool"
    when = "event.name == 't1' && event.idle"
  }
}
`

func twoLiteralStream(r *rand.Rand, n int) []string {
	var out []string
	for i := 0; i < n; i++ {
		out = append(out, fmt.Sprintf(`{"event":"tool","name":%q,"window_id":%q,"enabled":%v,"idle":%v}`,
			[]string{"t1", "t2", "t3", "w9"}[r.Intn(4)], []string{"w1", "w8", "w9", "t1"}[r.Intn(4)], r.Intn(2) == 0, r.Intn(2) == 0))
	}
	return out
}

const sharedFirstConjunct = `
policy "shared" {}
slot "phase" {
  values = ["idle", "busy"]
}
group "g" {
  rule "a" {
    on   = "request"
    from = { phase = "idle" }
    when = "int(event.window_id) > 0 && event.enabled"
    to   = { phase = "busy" }
  }
  rule "b" {
    on   = "request"
    from = { phase = "busy" }
    when = "int(event.window_id) > 0 && event.idle"
    to   = { phase = "idle" }
  }
  rule "c" {
    on   = "request"
    when = "int(event.window_id) > 0"
  }
}
`

const noCandidateInState = `
policy "no_candidate" {}
slot "phase" {
  values = ["idle", "busy", "done"]
}
group "g" {
  rule "a1" {
    on   = "tool"
    from = { phase = "idle" }
    when = "event.name == 't1' && int(event.window_id) > 0 && event.enabled"
    to   = { phase = "busy" }
  }
  rule "b1" {
    on   = "tool"
    from = { phase = "busy" }
    when = "event.name == 't1' && int(event.window_id) > 0 && event.idle"
    to   = { phase = "done" }
  }
  rule "a2" {
    on   = "tool"
    from = { phase = "idle" }
    when = "event.name == 't2' && int(event.window_id) > 1 && event.enabled"
    to   = { phase = "busy" }
  }
  rule "c2" {
    on   = "tool"
    from = { phase = "idle" }
    when = "event.name == 't2' && int(event.window_id) > 1 && event.idle"
    to   = { phase = "done" }
  }
}
group "reset" {
  rule "r" {
    on   = "tool"
    from = { phase = "done" }
    when = "event.idle && event.enabled"
    to   = { phase = "idle" }
  }
}
`

func benchTools(b *testing.B, n int) {
	s := load(b, toolPolicy(n)).NewSession()
	r := rand.New(rand.NewSource(4))
	events := make([]string, 1024)
	for i := range events {
		events[i] = toolEvent(r, n)
	}
	parsed := make([]engineEvent, len(events))
	for i, line := range events {
		parsed[i] = event(b, line)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := s.Decide(parsed[i%len(parsed)]); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDispatch50Tools and BenchmarkDispatch5000Tools decide a tool
// event under policies with 50 and 5,000 rules on distinct tool names
// (target: 5,000 within 2x of 50).
func BenchmarkDispatch50Tools(b *testing.B)   { benchTools(b, 50) }
func BenchmarkDispatch5000Tools(b *testing.B) { benchTools(b, 5000) }

// BenchmarkDispatchRatio alternates blocks of the two, reporting each
// thread CPU time per event and the ratio 5,000 / 50 in one run.
func BenchmarkDispatchRatio(b *testing.B) {
	type side struct {
		s      *engineSession
		events []engineEvent
		took   time.Duration
	}
	mk := func(n int) *side {
		r := rand.New(rand.NewSource(4))
		sd := &side{s: load(b, toolPolicy(n)).NewSession()}
		for i := 0; i < 1024; i++ {
			sd.events = append(sd.events, event(b, toolEvent(r, n)))
		}
		return sd
	}
	small, large := mk(50), mk(5000)
	const block = 1024
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, sd := range []*side{small, large} {
			t0 := threadCPU()
			for _, ev := range sd.events {
				if _, err := sd.s.Decide(ev); err != nil {
					b.Fatal(err)
				}
			}
			sd.took += threadCPU() - t0
		}
	}
	n := float64(b.N) * block
	b.ReportMetric(float64(small.took.Nanoseconds())/n, "50-ns/event")
	b.ReportMetric(float64(large.took.Nanoseconds())/n, "5000-ns/event")
	b.ReportMetric(float64(large.took)/float64(small.took), "ratio")
}
