package session

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func contextJSONL(c Context) []byte {
	var b bytes.Buffer
	for _, m := range c {
		b.Write(newObject().add("entryId", m.EntryID).set2("message", m.Message).bytes())
		b.WriteByte('\n')
	}
	return b.Bytes()
}

func entryIDs(c Context) []string {
	out := make([]string, len(c))
	for i, m := range c {
		out[i] = m.EntryID
	}
	return out
}

// Pi's canonical projection (session-format.md, "Context Building"): the
// latest compaction first (system checkpoint, then summary), then the
// non-system entries from firstKeptEntryId, then everything after it;
// custom entries produce nothing, custom_message entries produce custom
// messages, context edits apply.
func TestCanonical_PiContextBuilding(t *testing.T) {
	tests := []struct {
		name  string
		build func(f *fixture)
		roles []string
		ids   []string
	}{
		{"no compaction", func(f *fixture) {
			f.s.AppendCustom("state", nil)
			f.s.AppendCustomMessage("note", Text("n"), true, nil)
		}, []string{"system", "user", "assistant", "toolResult", "assistant", "custom"},
			[]string{"00000001", "00000002", "00000003", "00000004", "00000005", "00000007"}},
		{"generic compaction keeps from firstKeptEntryId, minus system messages", func(f *fixture) {
			f.generic("sum", "00000001")
			f.user("after")
		}, []string{"system", "compactionSummary", "user", "assistant", "toolResult", "assistant", "user"},
			[]string{"00000006", "00000006", "00000002", "00000003", "00000004", "00000005", "00000007"}},
		{"self-retaining compaction keeps nothing before it", func(f *fixture) {
			f.retainNone()
			f.user("after")
		}, []string{"system", "compactionSummary", "user"}, []string{"00000006", "00000006", "00000007"}},
		{"only the leading compaction contributes", func(f *fixture) {
			f.generic("first", "00000003")
			f.generic("second", "00000002")
		}, []string{"system", "compactionSummary", "user", "assistant", "toolResult", "assistant"},
			[]string{"00000007", "00000007", "00000002", "00000003", "00000004", "00000005"}},
		{"context edits: latest wins, null omits", func(f *fixture) {
			if _, err := f.s.AppendContextEdit("00000005", nil); err != nil {
				f.t.Fatal(err)
			}
			if _, err := f.s.AppendContextEdit("00000002", ptr(Text("first edit"))); err != nil {
				f.t.Fatal(err)
			}
			if _, err := f.s.AppendContextEdit("00000002", ptr(Text("second edit"))); err != nil {
				f.t.Fatal(err)
			}
		}, []string{"system", "user", "assistant", "toolResult"}, []string{"00000001", "00000002", "00000003", "00000004"}},
		{"empty branch summary adds nothing", func(f *fixture) {
			if _, err := f.s.BranchWithSummary("00000002", "", nil, nil); err != nil {
				f.t.Fatal(err)
			}
			f.user("on the new branch")
		}, []string{"system", "user", "user"}, []string{"00000001", "00000002", "00000007"}},
		{"non-empty branch summary", func(f *fixture) {
			if _, err := f.s.BranchWithSummary("00000002", "left work", nil, nil); err != nil {
				f.t.Fatal(err)
			}
		}, []string{"system", "user", "branchSummary"}, []string{"00000001", "00000002", "00000006"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			f.system()
			f.user("task")
			f.toolTurn("c1")
			f.assistant("done", 900)
			tt.build(f)
			c := Canonical(f.s.Path())
			if got := c.Roles(); !reflect.DeepEqual(got, tt.roles) {
				t.Errorf("roles %v, want %v", got, tt.roles)
			}
			if got := entryIDs(c); !reflect.DeepEqual(got, tt.ids) {
				t.Errorf("entries %v, want %v", got, tt.ids)
			}
			if tt.name == "context edits: latest wins, null omits" {
				if !strings.Contains(string(c[1].Message), `"content":"second edit"`) {
					t.Errorf("edited user message: %s", c[1].Message)
				}
			}
		})
	}
}

// Seed 000, "Projection, repair, and history": "For a verified native
// checkpoint, Pi's canonical projection is used directly; for a legacy
// marker-only reset, the compatibility projection slices at the matching
// boot. The projection preserves system/tool state and later prompt
// patches. If the boot is absent, the runtime aborts safely instead of
// sending raw history."
func TestProject_RetainNoneLegacySliceAndAbort(t *testing.T) {
	preReset := []string{"00000002", "00000003", "00000004", "00000005"} // task, tool turn, done
	tests := []struct {
		name    string
		build   func(f *fixture)
		mode    Mode
		window  string
		roles   []string
		clamped bool
		reason  string
		golden  string
	}{
		{"no reset: canonical", func(f *fixture) {}, ModeCanonical, "",
			[]string{"system", "user", "assistant", "toolResult", "assistant"}, false, "", ""},
		{"checkpoint-backed: empty summary wrapper and system/tool state, no earlier conversation", func(f *fixture) {
			f.reset("w2")
			f.user("after reset")
		}, ModeCheckpoint, "w2", []string{"system", "compactionSummary", "custom", "custom", "user"}, false, "", "projection_checkpoint.jsonl"},
		{"legacy marker-only: sliced at the matching boot, prompt state and later patches kept", func(f *fixture) {
			f.s.AppendCustom(LegacyMarkerType, windowData("w2"))
			f.s.AppendCustomMessage(LegacyBootType, Text("boot"), false, windowData("w2"))
			f.s.AppendCustomMessage(LegacyContinuationType, Text("go"), false, nil)
			f.msg(SystemMessage{Sections: map[string]*string{"skills": ptr("<skills/>")}, Timestamp: t0.UnixMilli()})
			f.user("after reset")
		}, ModeLegacy, "w2", []string{"system", "custom", "custom", "system", "user"}, false, "", "projection_legacy.jsonl"},
		{"legacy after a generic compaction: still sliced at the boot", func(f *fixture) {
			f.generic("pre-reset summary", "00000003")
			f.marker("w2")
			f.boot("w2")
			f.cont("w2")
		}, ModeLegacy, "w2", []string{"system", "custom", "custom"}, false, "", ""},
		{"boot absent: abort, never raw history", func(f *fixture) { f.retainNone(); f.marker("w2") }, ModeAbort, "w2",
			[]string{"system"}, false, "absent", ""},
		{"boot absent in a legacy tail: abort", func(f *fixture) { f.marker("w2"); f.cont("w2") }, ModeAbort, "w2",
			[]string{"system"}, false, "absent", ""},
		{"boot of another window does not count", func(f *fixture) { f.marker("w2"); f.boot("w1") }, ModeAbort, "w2",
			[]string{"system"}, false, "absent", ""},
		{"legacy boot summarised away by a later compaction: abort", func(f *fixture) {
			f.marker("w2")
			f.boot("w2")
			f.cont("w2")
			f.user("more")
			f.generic("summary that includes pre-reset work", "0000000a")
		}, ModeAbort, "w2", []string{"system"}, false, "not in the projected context", ""},
		{"successive resets: the latest window", func(f *fixture) {
			f.reset("w2")
			f.user("second window work")
			f.reset("w3")
		}, ModeCheckpoint, "w3", []string{"system", "compactionSummary", "custom", "custom"}, false, "", ""},
		{"a later compaction cannot bring pre-reset entries back", func(f *fixture) {
			f.reset("w2")
			f.user("x")
			f.generic("bad", "00000002")
		}, ModeCheckpoint, "w2", []string{"system", "compactionSummary", "custom", "custom", "user"}, true, "", ""},
		{"a later compaction-time reset governs", func(f *fixture) {
			f.reset("w2")
			f.user("x")
			r, _ := CompactionTimeReset("w3", 10)
			r.Apply(f.s)
		}, ModeCanonical, "w3", []string{"system", "compactionSummary"}, false, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			f.system()
			f.user("task")
			f.toolTurn("c1")
			f.assistant("done", 900)
			tt.build(f)
			raw := f.s.Path()
			p := Project(raw)
			if p.Mode != tt.mode || p.WindowID != tt.window {
				t.Fatalf("mode %v window %q (%s), want %v %q", p.Mode, p.WindowID, p.Reason, tt.mode, tt.window)
			}
			if got := p.Context.Roles(); !reflect.DeepEqual(got, tt.roles) {
				t.Errorf("roles %v, want %v", got, tt.roles)
			}
			if p.Clamped != tt.clamped {
				t.Errorf("clamped = %v", p.Clamped)
			}
			if !strings.Contains(p.Reason, tt.reason) {
				t.Errorf("reason %q does not mention %q", p.Reason, tt.reason)
			}
			if p.Mode == ModeAbort && (len(p.Context) != 1 || p.Context[0].Role() != "system" || p.Context[0].EntryID != "") {
				t.Errorf("an abort is not system-only: %v", p.Context.Roles())
			}
			if p.Mode != ModeCanonical {
				for _, id := range entryIDs(p.Context) {
					for _, pre := range preReset {
						if id == pre {
							t.Errorf("pre-reset entry %s reached the provider", id)
						}
					}
				}
			}
			// "The raw session branch is preserved for history."
			if got := ids(raw[:5]); !reflect.DeepEqual(got, append([]string{"00000001"}, preReset...)) {
				t.Errorf("raw branch starts %v", got)
			}
			if p.Mode == ModeCheckpoint || p.Mode == ModeLegacy {
				head := p.Context[0]
				if head.Role() != "system" || !strings.Contains(string(head.Message), `"name":"read"`) {
					t.Errorf("system/tool state lost: %s", head.Message)
				}
			}
			if p.Mode == ModeCheckpoint && !p.Clamped {
				if !strings.Contains(string(p.Context[1].Message), `"summary":""`) {
					t.Errorf("the empty summary wrapper is missing: %s", p.Context[1].Message)
				}
				if p.Boot == nil || p.Context[2].EntryID != p.Boot.ID() {
					t.Errorf("the boot does not follow the wrapper")
				}
			}
			if tt.golden != "" {
				golden(t, tt.golden, contextJSONL(p.Context))
			}
		})
	}
}

func TestProjectWindow_AbortsForUnknownOrReplacedWindow(t *testing.T) {
	f := newFixture(t)
	f.system()
	f.user("task")
	f.reset("w2")
	f.user("x")
	f.reset("w3")
	p := f.s.Path()
	if got := ProjectWindow(p, "w3"); got.Mode != ModeCheckpoint {
		t.Errorf("current window: %v %s", got.Mode, got.Reason)
	}
	for _, w := range []string{"w2", "w9"} {
		if got := ProjectWindow(p, w); got.Mode != ModeAbort || !reflect.DeepEqual(got.Context.Roles(), []string{"system"}) {
			t.Errorf("window %s: %v with %v", w, got.Mode, got.Context.Roles())
		}
	}
}

// pi-ai getCurrentSystemMessage: later content is appended, sections are
// patched by name (null removes), tools are removed then added by name.
func TestCurrentSystemMessage_ReplaysPromptAndTools(t *testing.T) {
	msgs := []json.RawMessage{
		json.RawMessage(`{"role":"system","content":"Base.","sections":{"a":"A","b":"B"},"toolsAdded":[{"name":"read","description":"r","parameters":{}},{"name":"write","description":"w","parameters":{}}],"timestamp":5}`),
		json.RawMessage(`{"role":"user","content":"hi","timestamp":6}`),
		json.RawMessage(`{"role":"system","content":[{"type":"text","text":"More."}],"sections":{"a":null,"c":"C"},"toolsRemoved":[{"name":"read"}],"toolsAdded":[{"name":"bash","description":"b","parameters":{}}],"timestamp":7}`),
		json.RawMessage(`{"role":"system","content":"","sections":{"b":"B2"},"timestamp":8}`),
	}
	got, ok := CurrentSystemMessage(msgs)
	want := `{"role":"system","content":"Base.\n\nMore.","sections":{"b":"B2","c":"C"},"toolsAdded":[{"name":"write","description":"w","parameters":{}},{"name":"bash","description":"b","parameters":{}}],"timestamp":5}`
	if !ok || string(got) != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	if _, ok := CurrentSystemMessage(msgs[1:2]); ok {
		t.Error("a transcript without system messages produced one")
	}
}

// Seed 000, validation: "real SessionManager file reopen after two
// retain-none checkpoints", with "raw-history preservation, canonical
// projection, empty-summary retention, system/tool state".
func TestReopen_AfterTwoRetainNoneCheckpoints(t *testing.T) {
	f := newFixture(t)
	f.system()
	f.user("task")
	f.toolTurn("c1")
	f.reset("w2")
	f.user("window two")
	f.assistant("ok", 200)
	f.reset("w3")
	f.user("window three")
	want := Project(f.s.Path())

	path := filepath.Join(t.TempDir(), "s.jsonl")
	if err := f.s.WriteFile(path); err != nil {
		t.Fatal(err)
	}
	s, err := ReadFile(path, testOptions())
	if err != nil {
		t.Fatal(err)
	}
	got := Project(s.Path())
	if got.Mode != ModeCheckpoint || got.WindowID != "w3" || !bytes.Equal(contextJSONL(got.Context), contextJSONL(want.Context)) {
		t.Fatalf("reopened projection %v %s:\n%s", got.Mode, got.WindowID, contextJSONL(got.Context))
	}
	if !Committed(s.Path(), "w2") || !Committed(s.Path(), "w3") {
		t.Error("a reopened session lost a committed boundary")
	}
	if n := len(s.Path()); n != len(f.s.Path()) || n != 15 {
		t.Errorf("raw branch has %d entries after reopening", n)
	}
	var kinds []string
	for _, e := range s.Path() {
		switch {
		case IsTrustedCheckpoint(e):
			kinds = append(kinds, "checkpoint")
		case IsMarker(e):
			kinds = append(kinds, "marker")
		case IsBoot(e):
			kinds = append(kinds, "boot")
		case IsContinuation(e):
			kinds = append(kinds, "continuation")
		}
	}
	order := []string{"checkpoint", "marker", "boot", "continuation"}
	if !reflect.DeepEqual(kinds, append(append([]string{}, order...), order...)) {
		t.Errorf("boundary artifacts in order %v", kinds)
	}
	golden(t, "two_resets.jsonl", f.jsonl())
}
