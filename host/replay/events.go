package replay

import (
	"encoding/json"
	"fmt"

	"github.com/resetpolicy/resetpolicy/engine"
	"github.com/resetpolicy/resetpolicy/rules/contract"
)

// builders holds one EventBuilder per event kind the replay sends, with
// the positions of the facts it sets, resolved once per replayer.
type builders struct {
	by [numEvents]*builder
}

// eventKind is an event the replay sends, so that an event finds its
// builder by index: a map of the names cost a hash of the name at every
// event (1.3% of BenchmarkReplayRealistic).
type eventKind uint8

const (
	evSessionStart eventKind = iota
	evSessionTree
	evModelSelect
	evRequest
	evTool
	evTurnEnd
	evAgentEnd
	evBeforeSettle
	evSettled
	evBeforeCompact
	evCompactDone
	evSummaryDone
	evAttemptComplete
	numEvents
)

// eventNames are the contract's names of the kinds.
var eventNames = [numEvents]string{
	evSessionStart:    "session_start",
	evSessionTree:     "session_tree",
	evModelSelect:     "model_select",
	evRequest:         "request",
	evTool:            "tool",
	evTurnEnd:         "turn_end",
	evAgentEnd:        "agent_end",
	evBeforeSettle:    "before_settle",
	evSettled:         "settled",
	evBeforeCompact:   "before_compact",
	evCompactDone:     "compact_done",
	evSummaryDone:     "summary_done",
	evAttemptComplete: "attempt_complete",
}

func (k eventKind) String() string { return eventNames[k] }

type builder struct {
	b *engine.EventBuilder
	// common facts
	window, now, tokens, ctxWindow, reserve, autoCompaction, autoReset, idle engine.FactIndex
	// own: the event's own facts, a handful, found by name in turn (a
	// map's hash of the name cost more than the comparisons)
	own []ownFact
}

type ownFact struct {
	name string
	i    engine.FactIndex
}

// ownIndex is the position of the event's own fact of that name, -1 for
// none.
func (b *builder) ownIndex(name string) engine.FactIndex {
	for _, f := range b.own {
		if f.name == name {
			return f.i
		}
	}
	return -1
}

func newBuilders() *builders {
	bs := &builders{}
	for k, name := range eventNames {
		ev, ok := contract.LookupEvent(name)
		if !ok {
			panic("replay: no contract event " + name)
		}
		eb, err := engine.NewEventBuilder(name)
		if err != nil {
			panic(err)
		}
		b := &builder{b: eb}
		b.window = eb.MustIndex("window_id", contract.String)
		b.now = eb.MustIndex("now_ms", contract.Int)
		b.tokens = eb.MustIndex("tokens", contract.Int)
		b.ctxWindow = eb.MustIndex("context_window", contract.Int)
		b.reserve = eb.MustIndex("reserve", contract.Int)
		b.autoCompaction = eb.MustIndex("auto_compaction", contract.Bool)
		b.autoReset = eb.MustIndex("auto_reset", contract.Bool)
		b.idle = eb.MustIndex("idle", contract.Bool)
		for _, f := range ev.Facts {
			i, _, _ := eb.Index(f.Name)
			b.own = append(b.own, ownFact{f.Name, i})
		}
		bs.by[k] = b
	}
	return bs
}

// fact is one own fact of an event.
type fact struct {
	name string
	s    string
	n    int64
	b    bool
	obj  map[string]any
	kind byte // 's', 'n', 'b', 'o'
}

func fs(name, s string) fact                { return fact{name: name, s: s, kind: 's'} }
func fn(name string, n int64) fact          { return fact{name: name, n: n, kind: 'n'} }
func fb(name string, b bool) fact           { return fact{name: name, b: b, kind: 'b'} }
func fo(name string, m map[string]any) fact { return fact{name: name, obj: m, kind: 'o'} }

// build fills the builder of an event with the host's facts and the
// event's own, and returns the event.
func (r *run) build(k eventKind, own ...fact) (engine.Event, error) {
	b := r.rp.bs.by[k]
	eb := b.b
	eb.Reset()
	_ = eb.SetString(b.window, r.window)
	eb.SetInt(b.now, r.now)
	eb.SetInt(b.tokens, r.tokens)
	eb.SetInt(b.ctxWindow, r.ctxWindow)
	eb.SetInt(b.reserve, r.rp.cfg.Settings.Reserve)
	eb.SetBool(b.autoCompaction, r.rp.cfg.Settings.AutoCompaction)
	// The extension reads "automatic resets are enabled" from Pi's
	// compaction setting (host/pi/src/facts.ts): so does the replay.
	eb.SetBool(b.autoReset, r.rp.cfg.Settings.AutoCompaction)
	eb.SetBool(b.idle, !r.inRun)
	for _, f := range own {
		i := b.ownIndex(f.name)
		if i < 0 {
			return engine.Event{}, fmt.Errorf("event %s has no fact %q", k, f.name)
		}
		switch f.kind {
		case 's':
			if err := eb.SetString(i, f.s); err != nil {
				return engine.Event{}, err
			}
		case 'n':
			eb.SetInt(i, f.n)
		case 'b':
			eb.SetBool(i, f.b)
		case 'o':
			eb.SetObject(i, f.obj)
		}
	}
	return eb.Event()
}

// toolArgs decodes kept tool arguments into the object a tool event
// carries (JSON numbers as float64, as the engine normalises them).
func toolArgs(raw []byte) map[string]any {
	if len(raw) == 0 {
		return nil
	}
	var m map[string]any
	if json.Unmarshal(raw, &m) != nil {
		return nil
	}
	return m
}
