package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

type evalLine struct {
	Event   string           `json:"event"`
	Rules   []string         `json:"rules"`
	Effects []map[string]any `json:"effects"`
	State   map[string]any   `json:"state"`
	Explain []map[string]any `json:"explain"`
}

func parseLines(t *testing.T, out string) []evalLine {
	t.Helper()
	var lines []evalLine
	for _, l := range strings.Split(strings.TrimRight(out, "\n"), "\n") {
		if l == "" {
			continue
		}
		var raw map[string]json.RawMessage
		if err := json.Unmarshal([]byte(l), &raw); err != nil {
			t.Fatalf("output line is not JSON: %v\n%s", err, l)
		}
		for _, k := range []string{"event", "rules", "effects", "state"} {
			if _, ok := raw[k]; !ok {
				t.Fatalf("output line lacks %q: %s", k, l)
			}
		}
		if string(raw["rules"]) == "null" || string(raw["effects"]) == "null" {
			t.Fatalf("rules and effects are lists, never null: %s", l)
		}
		var e evalLine
		if err := json.Unmarshal([]byte(l), &e); err != nil {
			t.Fatal(err)
		}
		lines = append(lines, e)
	}
	return lines
}

// TestEvalRecordedStreams pins the eval contract on recorded streams:
// testdata/eval/NAME.jsonl through `eval --policy NAME` gives exactly
// NAME.out.jsonl.
func TestEvalRecordedStreams(t *testing.T) {
	files, _ := filepath.Glob("testdata/eval/*.jsonl")
	n := 0
	for _, f := range files {
		if strings.HasSuffix(f, ".out.jsonl") {
			continue
		}
		n++
		name := strings.TrimSuffix(filepath.Base(f), ".jsonl")
		t.Run(name, func(t *testing.T) {
			in, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			stdout, stderr, code := runCLI(t, string(in), "eval", "--policy", name)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			events := 0
			for _, l := range strings.Split(string(in), "\n") {
				if strings.TrimSpace(l) != "" {
					events++
				}
			}
			if got := len(parseLines(t, stdout)); got != events {
				t.Errorf("%d output lines for %d events", got, events)
			}
			golden(t, strings.TrimSuffix(f, ".jsonl")+".out.jsonl", stdout)
		})
	}
	if n == 0 {
		t.Fatal("no recorded streams in testdata/eval")
	}
}

func findEffect(l evalLine, name string) map[string]any {
	for _, e := range l.Effects {
		if e["effect"] == name {
			return e
		}
	}
	return nil
}

// TestEvalWipeMemoryStories drives the three stories of seed 000's
// "Lifecycle at a glance" through the eval contract.
func TestEvalWipeMemoryStories(t *testing.T) {
	t.Run("wipe_memory tool: 'At turn_end, after the complete tool batch … append the reset boundary and ask Pi to continue'", func(t *testing.T) {
		out, stderr, code := runCLI(t, `{"event":"tool","name":"wipe_memory"}
{"event":"turn_end","outcome":"completed","tool_results":1}
`, "eval", "--policy", "wipe_memory")
		if code != 0 {
			t.Fatal(stderr)
		}
		l := parseLines(t, out)
		if findEffect(l[0], "reply") == nil || l[0].State["request"] != "tool-requested" {
			t.Errorf("tool call: %+v", l[0])
		}
		c := findEffect(l[1], "commit_reset")
		if c == nil || c["continue"] != true {
			t.Errorf("turn_end: want commit_reset with continue=true, got %v", l[1].Effects)
		}
		if l[1].State["request"] != "none" {
			t.Errorf("after the commit the request is cleared, got %v", l[1].State)
		}
	})
	t.Run("/wipe-memory: 'A successful normal stop commits at agent_before_settle … the committed reset stops the run'", func(t *testing.T) {
		out, stderr, code := runCLI(t, `{"event":"command","name":"wipe-memory","idle":true}
{"event":"turn_end","outcome":"completed"}
{"event":"before_settle","outcome":"completed"}
`, "eval", "--policy", "wipe_memory")
		if code != 0 {
			t.Fatal(stderr)
		}
		l := parseLines(t, out)
		if inj := findEffect(l[0], "inject"); inj == nil || inj["deliver"] != "turn" {
			t.Errorf("idle /wipe-memory starts one model turn with the warning: %v", l[0].Effects)
		}
		if findEffect(l[1], "commit_reset") != nil {
			t.Errorf("a manual close-out does not commit at turn_end: %v", l[1].Effects)
		}
		c := findEffect(l[2], "commit_reset")
		if c == nil || c["continue"] != false || c["stop"] != true {
			t.Errorf("before_settle: want commit_reset continue=false stop=true, got %v", l[2].Effects)
		}
	})
	t.Run("abort: 'turn_end first clears everything on abort'", func(t *testing.T) {
		out, stderr, code := runCLI(t, `{"event":"tool","name":"wipe_memory"}
{"event":"turn_end","outcome":"aborted"}
{"event":"before_settle","outcome":"aborted"}
`, "eval", "--policy", "wipe_memory")
		if code != 0 {
			t.Fatal(stderr)
		}
		l := parseLines(t, out)
		for _, x := range l[1:] {
			if findEffect(x, "commit_reset") != nil {
				t.Errorf("an abort never commits: %v", x.Effects)
			}
		}
		if l[1].State["request"] != "none" || l[1].State["overflow"] != "idle" {
			t.Errorf("abort clears the request and the overflow chain: %v", l[1].State)
		}
	})
}

func TestEvalMalformedLineStops(t *testing.T) {
	cases := []struct{ line, want string }{
		{`{"event":"turn_end",`, "stdin:2: not a JSON object"},
		{`{"event":"turn_ended"}`, `stdin:2: unknown event "turn_ended"`},
		{`{"event":"turn_end","tokenz":5}`, `stdin:2: event turn_end has no fact "tokenz"`},
		{`{"event":"turn_end","tokens":"many"}`, `stdin:2: event turn_end: fact "tokens" must be an int, not "many"`},
		{`{"event":"turn_end","tokens":1.5}`, `stdin:2: event turn_end: fact "tokens" must be an int`},
		{`{"event":"turn_end","outcome":"done"}`, `stdin:2: event turn_end: fact "outcome" is one of completed, error, aborted, not "done"`},
		{`{"tokens":5}`, `stdin:2: missing "event"`},
	}
	for _, tc := range cases {
		in := `{"event":"tool","name":"wipe_memory"}` + "\n" + tc.line + "\n" + `{"event":"turn_end"}` + "\n"
		stdout, stderr, code := runCLI(t, in, "eval")
		if code != 1 {
			t.Errorf("%s: exit %d, want 1", tc.line, code)
		}
		if !strings.Contains(stderr, tc.want) {
			t.Errorf("%s: stderr %q, want %q", tc.line, stderr, tc.want)
		}
		if got := len(parseLines(t, stdout)); got != 1 {
			t.Errorf("%s: %d lines decided, want only the one before the bad line", tc.line, got)
		}
	}
}

func TestEvalStateSnapshotAndExplain(t *testing.T) {
	dir := t.TempDir()
	out, _, code := runCLI(t, `{"event":"tool","name":"wipe_memory"}`+"\n", "eval")
	if code != 0 {
		t.Fatal(out)
	}
	snap := filepath.Join(dir, "snap.json")
	os.WriteFile(snap, []byte(out), 0o644)
	out, stderr, code := runCLI(t, `{"event":"turn_end"}`+"\n", "eval", "--state", snap, "--explain")
	if code != 0 {
		t.Fatal(stderr)
	}
	l := parseLines(t, out)[0]
	if findEffect(l, "commit_reset") == nil {
		t.Errorf("starting from the snapshot, turn_end commits the tool request: %v", l.Effects)
	}
	if len(l.Explain) == 0 {
		t.Fatal("--explain adds explain")
	}
	var reasons []string
	for _, c := range l.Explain {
		if c["fired"] == false {
			reasons = append(reasons, c["reason"].(string))
		}
	}
	if !slices.ContainsFunc(reasons, func(r string) bool { return strings.HasPrefix(r, "when: ") }) ||
		!slices.ContainsFunc(reasons, func(r string) bool { return strings.HasPrefix(r, "from: ") }) {
		t.Errorf("explain names the false guard part or the state mismatch: %v", reasons)
	}
	os.WriteFile(snap, []byte(`{"request":"bogus"}`), 0o644)
	if _, stderr, code := runCLI(t, "", "eval", "--state", snap); code != 1 || !strings.Contains(stderr, `"bogus" is not a value of slot "request"`) {
		t.Errorf("bad snapshot: exit %d %q", code, stderr)
	}
}

func TestEvalSetOverride(t *testing.T) {
	ev := `{"event":"request","tokens":175000,"context_window":200000,"reserve":16384}` + "\n"
	out, _, _ := runCLI(t, ev, "eval")
	def := parseLines(t, out)[0]
	out, stderr, code := runCLI(t, ev, "eval", "--set", "warning_runway=1000")
	if code != 0 {
		t.Fatal(stderr)
	}
	tuned := parseLines(t, out)[0]
	if findEffect(def, "inject")["message"] != "checkpoint_warning" || findEffect(tuned, "inject")["message"] == "checkpoint_warning" {
		t.Errorf("with 25000 tokens left, the default runway 12288 and a runway of 1000 must differ: the warning with the default only: %v vs %v", def.Effects, tuned.Effects)
	}
}
