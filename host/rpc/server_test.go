package rpc

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/resetpolicy/resetpolicy/host/settings"
)

// newTestServer returns a server whose settings come from env alone (no
// user config), over the given environment.
func newTestServer(t testing.TB, env ...string) *Server {
	t.Helper()
	userDir := t.TempDir()
	return New(Options{
		Settings: func(dir string, trusted bool) (*settings.Settings, error) {
			return settings.Load(settings.Options{ProjectDir: dir, Trusted: trusted, Environ: env, UserConfigDir: userDir})
		},
		Now: func() time.Time { return time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC) },
	})
}

type response struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  json.RawMessage `json:"result"`
	Error   *Error          `json:"error"`
}

func call(t *testing.T, s *Server, method string, params any) response {
	t.Helper()
	p, err := json.Marshal(params)
	if err != nil {
		t.Fatal(err)
	}
	line := fmt.Sprintf(`{"jsonrpc":"2.0","id":7,"method":%q,"params":%s}`, method, p)
	var r response
	out := s.Handle([]byte(line))
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatalf("%s: response %q: %v", method, out, err)
	}
	if string(r.ID) != "7" || r.JSONRPC != "2.0" {
		t.Fatalf("%s: bad envelope %s", method, out)
	}
	return r
}

func ok(t *testing.T, r response, v any) {
	t.Helper()
	if r.Error != nil {
		t.Fatalf("error %d: %s", r.Error.Code, r.Error.Message)
	}
	if v != nil {
		if err := json.Unmarshal(r.Result, v); err != nil {
			t.Fatalf("result %s: %v", r.Result, err)
		}
	}
}

// TestProtocolErrorsKeepServing feeds bad lines between good ones through
// Serve: every bad line gets its JSON-RPC error, the server keeps
// serving, and EOF ends it cleanly.
func TestProtocolErrorsKeepServing(t *testing.T) {
	good := `{"jsonrpc":"2.0","id":%d,"method":"decide","params":{"session":"s","event":{"event":"request"}}}`
	tests := []struct {
		name string
		line string
		code int  // 0: a result
		none bool // no response at all
		id   string
	}{
		{name: "malformed JSON", line: `{"jsonrpc":"2.0",`, code: CodeParseError, id: "null"},
		{name: "not JSON at all", line: `hello`, code: CodeParseError, id: "null"},
		{name: "unknown method", line: `{"jsonrpc":"2.0","id":"a","method":"nope"}`, code: CodeMethodNotFound, id: `"a"`},
		{name: "bad params: not an object", line: `{"jsonrpc":"2.0","id":2,"method":"decide","params":[1]}`, code: CodeInvalidParams, id: "2"},
		{name: "bad params: unknown member", line: `{"jsonrpc":"2.0","id":3,"method":"decide","params":{"sesion":"s","event":{"event":"request"}}}`, code: CodeInvalidParams, id: "3"},
		{name: "bad params: no session", line: `{"jsonrpc":"2.0","id":4,"method":"decide","params":{"event":{"event":"request"}}}`, code: CodeInvalidParams, id: "4"},
		{name: "bad params: unknown event", line: `{"jsonrpc":"2.0","id":5,"method":"decide","params":{"session":"s","event":{"event":"nope"}}}`, code: CodeInvalidParams, id: "5"},
		{name: "bad params: fact of the wrong type", line: `{"jsonrpc":"2.0","id":6,"method":"decide","params":{"session":"s","event":{"event":"turn_end","tokens":"many"}}}`, code: CodeInvalidParams, id: "6"},
		{name: "bad params: entry without type", line: `{"jsonrpc":"2.0","id":7,"method":"committed","params":{"entries":[{"id":"x"}],"windowId":"w"}}`, code: CodeInvalidParams, id: "7"},
		{name: "not a request object", line: `42`, code: CodeInvalidRequest, id: "null"},
		{name: "wrong jsonrpc version", line: `{"jsonrpc":"1.0","id":8,"method":"decide"}`, code: CodeInvalidRequest, id: "8"},
		{name: "method not a string", line: `{"jsonrpc":"2.0","id":9,"method":5}`, code: CodeInvalidRequest, id: "9"},
		{name: "id of a bad type", line: `{"jsonrpc":"2.0","id":{"a":1},"method":"decide"}`, code: CodeInvalidRequest, id: "null"},
		{name: "params a string", line: `{"jsonrpc":"2.0","id":10,"method":"decide","params":"x"}`, code: CodeInvalidRequest, id: "10"},
		{name: "empty batch", line: `[]`, code: CodeInvalidRequest, id: "null"},
		{name: "line over the limit", line: `{"jsonrpc":"2.0","id":11,"method":"decide","params":{"session":"` + strings.Repeat("x", 2048) + `"}}`, code: CodeInvalidRequest, id: "null"},
		{name: "notification gets no response", line: `{"jsonrpc":"2.0","method":"decide","params":{"session":"s","event":{"event":"request"}}}`, none: true},
		{name: "blank line is skipped", line: `   `, none: true},
	}
	var in bytes.Buffer
	for i, tt := range tests {
		fmt.Fprintln(&in, tt.line)
		fmt.Fprintf(&in, good+"\n", 1000+i)
	}
	s := newTestServer(t)
	s.opts.MaxLine = 1024
	var out bytes.Buffer
	if err := s.Serve(&in, &out); err != nil {
		t.Fatalf("Serve: %v", err)
	}
	sc := bufio.NewScanner(&out)
	next := func() response {
		t.Helper()
		if !sc.Scan() {
			t.Fatal("missing response")
		}
		var r response
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("response %q: %v", sc.Text(), err)
		}
		return r
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if !tt.none {
				r := next()
				if r.Error == nil || r.Error.Code != tt.code {
					t.Errorf("got %+v, want error %d", r, tt.code)
				}
				if string(r.ID) != tt.id {
					t.Errorf("id = %s, want %s", r.ID, tt.id)
				}
				if r.Error != nil && r.Error.Message == "" {
					t.Error("error without a message")
				}
			}
			r := next()
			if r.Error != nil || string(r.ID) != fmt.Sprint(1000+i) {
				t.Errorf("the server stopped serving after %q: %+v", tt.name, r)
			}
		})
	}
	if sc.Scan() {
		t.Errorf("unexpected extra output %q", sc.Text())
	}
}

func TestLastLineWithoutNewlineAndCRLF(t *testing.T) {
	s := newTestServer(t)
	in := "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"closeSession\",\"params\":{\"session\":\"a\"}}\r\n" +
		`{"jsonrpc":"2.0","id":2,"method":"closeSession","params":{"session":"a"}}`
	var out bytes.Buffer
	if err := s.Serve(strings.NewReader(in), &out); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(out.String(), "\"result\""); n != 2 {
		t.Fatalf("want 2 results, got:\n%s", out.String())
	}
}

func TestBatch(t *testing.T) {
	s := newTestServer(t)
	out := s.Handle([]byte(`[{"jsonrpc":"2.0","id":1,"method":"closeSession","params":{"session":"a"}},{"jsonrpc":"2.0","method":"closeSession","params":{"session":"a"}},{"jsonrpc":"2.0","id":2,"method":"nope"},3]`))
	var rs []response
	if err := json.Unmarshal(out, &rs); err != nil {
		t.Fatalf("%s: %v", out, err)
	}
	if len(rs) != 3 || rs[0].Error != nil || rs[1].Error.Code != CodeMethodNotFound || rs[2].Error.Code != CodeInvalidRequest {
		t.Fatalf("batch responses: %s", out)
	}
	if out := s.Handle([]byte(`[{"jsonrpc":"2.0","method":"closeSession","params":{"session":"a"}}]`)); len(out) != 0 {
		t.Errorf("a batch of notifications answered %s", out)
	}
}

// Seed 000, row `wipe_memory` tool: "Mark the current window
// tool-requested. At turn_end ... append the reset boundary and ask Pi to
// continue" — over the protocol, per session.
func TestDecideSessionsAreSeparate(t *testing.T) {
	s := newTestServer(t)
	var d struct {
		Rules   []string         `json:"rules"`
		Effects []map[string]any `json:"effects"`
		State   map[string]any   `json:"state"`
	}
	ok(t, call(t, s, "decide", map[string]any{"session": "a", "event": map[string]any{"event": "tool", "name": "wipe_memory"}}), &d)
	if d.State["request"] != "tool-requested" {
		t.Fatalf("state after tool: %v", d.State)
	}
	ok(t, call(t, s, "decide", map[string]any{"session": "b", "event": map[string]any{"event": "turn_end"}}), &d)
	if len(d.Effects) != 0 {
		t.Fatalf("session b has no request, yet: %v", d.Effects)
	}
	ok(t, call(t, s, "decide", map[string]any{"session": "a", "event": map[string]any{"event": "turn_end"}}), &d)
	if len(d.Effects) != 1 || d.Effects[0]["effect"] != "commit_reset" || d.Effects[0]["continue"] != true {
		t.Fatalf("session a turn_end effects: %v", d.Effects)
	}
	if len(d.Rules) != 1 || d.Rules[0] != "turn_end_commits_tool_request" {
		t.Errorf("rules: %v", d.Rules)
	}
}

func TestDecideExplain(t *testing.T) {
	s := newTestServer(t)
	var d struct {
		Explain []map[string]any `json:"explain"`
	}
	ok(t, call(t, s, "decide", map[string]any{"session": "a", "explain": true, "event": map[string]any{"event": "turn_end"}}), &d)
	if len(d.Explain) == 0 {
		t.Fatal("no explanation")
	}
}

func TestSnapshotRestore(t *testing.T) {
	s := newTestServer(t)
	ok(t, call(t, s, "decide", map[string]any{"session": "a", "event": map[string]any{"event": "tool", "name": "wipe_memory", "window_id": "w9"}}), nil)
	var snap struct {
		State map[string]any `json:"state"`
	}
	ok(t, call(t, s, "snapshot", map[string]any{"session": "a"}), &snap)
	if snap.State["request_window"] != "w9" {
		t.Fatalf("snapshot: %v", snap.State)
	}
	ok(t, call(t, s, "restore", map[string]any{"session": "b", "state": snap.State}), nil)
	var d struct {
		Effects []map[string]any `json:"effects"`
	}
	ok(t, call(t, s, "decide", map[string]any{"session": "b", "event": map[string]any{"event": "turn_end", "window_id": "w9"}}), &d)
	if len(d.Effects) != 1 || d.Effects[0]["effect"] != "commit_reset" {
		t.Fatalf("restored session did not carry the request: %v", d.Effects)
	}
	r := call(t, s, "restore", map[string]any{"session": "b", "state": map[string]any{"request": "bogus"}})
	if r.Error == nil || r.Error.Code != CodeInvalidParams {
		t.Fatalf("bad state accepted: %+v", r)
	}
	ok(t, call(t, s, "snapshot", map[string]any{"session": "b"}), &snap)
	if snap.State["request"] != "none" {
		t.Errorf("a rejected restore changed the state: %v", snap.State)
	}
}

// writeProject makes a project directory with the given policy file.
func writeProject(t *testing.T, hcl string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, ".pi"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, settings.ProjectPolicyFile), []byte(hcl), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestInitialize(t *testing.T) {
	good := "use \"wipe_memory\" {\n  warning_runway = 8192\n}\n"
	broken := "use \"wipe_memory\" {\n  warning_runway = \"lots\"\n}\n"
	other := "use \"new_context\" {}\n"
	// A wrong property is check's and verify's to report: serve decides
	// with the file (rules.WithoutProperties).
	badProperty := good + "property \"p\" {\n  never = \"comit_reset\"\n}\n"
	tests := []struct {
		name     string
		steps    []string // project policy texts, initialized in order ("" = untrusted)
		trusted  bool
		policy   string
		fallback bool
		runway   any
	}{
		{name: "built-in default", steps: []string{"-"}, policy: "wipe_memory", runway: float64(12288)},
		{name: "trusted project file", steps: []string{good}, trusted: true, policy: "wipe_memory", runway: float64(8192)},
		{name: "untrusted project file is ignored", steps: []string{good}, trusted: false, policy: "wipe_memory", runway: float64(12288)},
		{name: "broken file keeps the built-in", steps: []string{broken}, trusted: true, policy: "wipe_memory", fallback: true, runway: float64(12288)},
		{name: "broken file keeps the last good policy", steps: []string{good, broken}, trusted: true, policy: "wipe_memory", fallback: true, runway: float64(8192)},
		{name: "policy switch", steps: []string{good, other}, trusted: true, policy: "new_context"},
		{name: "a wrong property does not keep the file out", steps: []string{badProperty}, trusted: true, policy: "wipe_memory", runway: float64(8192)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newTestServer(t)
			var res InitializeResult
			for _, step := range tt.steps {
				dir := ""
				if step != "-" {
					dir = writeProject(t, step)
				}
				ok(t, call(t, s, "initialize", map[string]any{"projectDir": dir, "trusted": tt.trusted}), &res)
			}
			if res.ProtocolVersion != ProtocolVersion {
				t.Errorf("protocolVersion = %q", res.ProtocolVersion)
			}
			if res.Policy.Name != tt.policy {
				t.Errorf("policy = %q, want %q", res.Policy.Name, tt.policy)
			}
			if res.Fallback != tt.fallback {
				t.Errorf("fallback = %v, want %v", res.Fallback, tt.fallback)
			}
			if tt.fallback {
				if !strings.Contains(res.Error, "failed to load") || !strings.Contains(res.Error, "resetpolicy.hcl:2:") || len(res.Diagnostics) == 0 {
					t.Errorf("error notice = %q, diagnostics %v", res.Error, res.Diagnostics)
				}
				if !strings.Contains(res.Error, "nothing was reset") {
					t.Errorf("notice does not say nothing was reset: %q", res.Error)
				}
			} else if res.Error != "" {
				t.Errorf("unexpected error %q", res.Error)
			}
			if tt.runway != nil {
				found := false
				for _, p := range res.Surface.Params {
					if p.Name == "warning_runway" {
						found = true
						if p.Value != tt.runway {
							t.Errorf("warning_runway = %v, want %v (origin %s)", p.Value, tt.runway, p.Origin)
						}
					}
				}
				if !found {
					t.Error("warning_runway not in the surface")
				}
			}
			if len(res.Surface.Tools) == 0 || res.Surface.Messages == nil {
				t.Errorf("empty surface: %+v", res.Surface)
			}
		})
	}
}

func TestInitializeSurfaceOfWipeMemory(t *testing.T) {
	s := newTestServer(t)
	var res InitializeResult
	ok(t, call(t, s, "initialize", map[string]any{"projectDir": "", "trusted": false}), &res)
	if len(res.Surface.Tools) != 1 || res.Surface.Tools[0].Name != "wipe_memory" {
		t.Errorf("tools: %+v", res.Surface.Tools)
	}
	if len(res.Surface.Commands) != 1 || res.Surface.Commands[0].Name != "wipe-memory" {
		t.Errorf("commands: %+v", res.Surface.Commands)
	}
	for _, m := range []string{"boot", "continuation", "checkpoint_warning"} {
		if res.Surface.Messages[m] == "" {
			t.Errorf("message %s missing", m)
		}
	}
	for _, p := range res.Surface.Params {
		if p.Origin != "default" || p.Description == "" {
			t.Errorf("param %+v", p)
		}
	}
	if len(res.Settings) == 0 || res.Settings[0].Key != "policy" || res.Settings[0].Origin != "default" {
		t.Errorf("settings: %+v", res.Settings)
	}
}

func TestPolicyChangeResetsSessions(t *testing.T) {
	s := newTestServer(t)
	ok(t, call(t, s, "decide", map[string]any{"session": "a", "event": map[string]any{"event": "tool", "name": "wipe_memory"}}), nil)
	var res InitializeResult
	ok(t, call(t, s, "initialize", map[string]any{"projectDir": writeProject(t, "use \"new_context\" {}\n"), "trusted": true}), &res)
	if !res.SessionsReset {
		t.Error("sessionsReset not reported")
	}
	if r := call(t, s, "snapshot", map[string]any{"session": "a"}); r.Error == nil {
		t.Error("session a outlived the policy change")
	}
	ok(t, call(t, s, "decide", map[string]any{"session": "a", "event": map[string]any{"event": "request"}}), nil)
	var snap struct {
		State map[string]any `json:"state"`
	}
	ok(t, call(t, s, "snapshot", map[string]any{"session": "a"}), &snap)
	if _, ok := snap.State["attempt"]; !ok {
		t.Errorf("session a is not a new_context session: %v", snap.State)
	}
}

// Initializing again with the same policy and params keeps the sessions;
// a param changed is another policy.
func TestSamePolicyKeepsSessions(t *testing.T) {
	s := newTestServer(t)
	dir := writeProject(t, "use \"new_context\" {}\n")
	var res InitializeResult
	ok(t, call(t, s, "initialize", map[string]any{"projectDir": dir, "trusted": true}), &res)
	ok(t, call(t, s, "decide", map[string]any{"session": "a", "event": map[string]any{"event": "request"}}), nil)
	res = InitializeResult{}
	ok(t, call(t, s, "initialize", map[string]any{"projectDir": dir, "trusted": true}), &res)
	if res.SessionsReset {
		t.Error("the same policy again reset the sessions")
	}
	if r := call(t, s, "snapshot", map[string]any{"session": "a"}); r.Error != nil {
		t.Errorf("session a did not outlive initializing the same policy again: %v", r.Error)
	}
	other := writeProject(t, "use \"new_context\" {\n  warning_runway = 12345\n}\n")
	res = InitializeResult{}
	ok(t, call(t, s, "initialize", map[string]any{"projectDir": other, "trusted": true}), &res)
	if !res.SessionsReset {
		t.Error("a param changed did not reset the sessions")
	}
}

func TestDecisionLog(t *testing.T) {
	log := filepath.Join(t.TempDir(), "sub", "decisions.jsonl")
	s := newTestServer(t, "RESETPOLICY_DECISION_LOG="+log)
	defer s.Close()
	var res InitializeResult
	ok(t, call(t, s, "initialize", map[string]any{"projectDir": "", "trusted": false}), &res)
	if res.DecisionLog != log {
		t.Fatalf("decisionLog = %q", res.DecisionLog)
	}
	ok(t, call(t, s, "decide", map[string]any{"session": "a", "event": map[string]any{"event": "tool", "name": "wipe_memory"}}), nil)
	// Flushed: the line is in the file before the server is closed.
	b, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(b), "\n"); n != 1 {
		t.Fatalf("after one decide the log holds %d lines before the server is closed, want 1:\n%s", n, b)
	}
	ok(t, call(t, s, "decide", map[string]any{"session": "a", "event": map[string]any{"event": "turn_end"}}), nil)
	b, _ = os.ReadFile(log)
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) != 2 {
		t.Fatalf("want 2 lines, got:\n%s", b)
	}
	var rec struct {
		Time    string           `json:"time"`
		Session string           `json:"session"`
		Policy  string           `json:"policy"`
		Event   map[string]any   `json:"event"`
		Rules   []string         `json:"rules"`
		Effects []map[string]any `json:"effects"`
	}
	if err := json.Unmarshal([]byte(lines[1]), &rec); err != nil {
		t.Fatalf("%s: %v", lines[1], err)
	}
	if rec.Time != "2025-01-02T03:04:05Z" || rec.Session != "a" || rec.Policy != "wipe_memory" ||
		rec.Event["event"] != "turn_end" || len(rec.Rules) != 1 || rec.Effects[0]["effect"] != "commit_reset" {
		t.Errorf("record: %+v", rec)
	}
	// A second server appends rather than truncates.
	s2 := newTestServer(t, "RESETPOLICY_DECISION_LOG="+log)
	ok(t, call(t, s2, "decide", map[string]any{"session": "z", "event": map[string]any{"event": "request"}}), nil)
	s2.Close()
	b, _ = os.ReadFile(log)
	if n := strings.Count(string(b), "\n"); n != 3 {
		t.Errorf("want 3 lines after a second server, got %d", n)
	}
}

func TestDecisionFailedLeavesState(t *testing.T) {
	// A policy whose expression fails at run time: index out of range.
	hcl := `policy "p" {}
param "xs" {
  type    = list(number)
  default = [1]
}
slot "n" {
  type    = int
  initial = 0
}
group "g" {
  rule "r" {
    on  = "turn_end"
    set = { n = "int(param.xs[event.tool_results])" }
  }
}
`
	dir := writeProject(t, hcl)
	s := newTestServer(t)
	ok(t, call(t, s, "initialize", map[string]any{"projectDir": dir, "trusted": true}), nil)
	r := call(t, s, "decide", map[string]any{"session": "a", "event": map[string]any{"event": "turn_end", "tool_results": 5}})
	if r.Error == nil || r.Error.Code != CodeDecisionFailed {
		t.Fatalf("want decision failure, got %+v", r)
	}
	var snap struct {
		State map[string]any `json:"state"`
	}
	ok(t, call(t, s, "snapshot", map[string]any{"session": "a"}), &snap)
	if snap.State["n"] != float64(0) {
		t.Errorf("state changed: %v", snap.State)
	}
}

func TestSaveParamNeedsTrustedProject(t *testing.T) {
	s := newTestServer(t)
	r := call(t, s, "saveParam", map[string]any{"name": "warning_runway", "value": 100})
	if r.Error == nil || r.Error.Code != CodeFailed {
		t.Fatalf("save without a project: %+v", r)
	}
	dir := t.TempDir()
	ok(t, call(t, s, "initialize", map[string]any{"projectDir": dir, "trusted": false}), nil)
	if r := call(t, s, "saveParam", map[string]any{"name": "warning_runway", "value": 100}); r.Error == nil {
		t.Fatal("saved into an untrusted project")
	}
	ok(t, call(t, s, "initialize", map[string]any{"projectDir": dir, "trusted": true}), nil)
	ok(t, call(t, s, "saveParam", map[string]any{"name": "warning_runway", "value": 100}), nil)
	var res InitializeResult
	ok(t, call(t, s, "initialize", map[string]any{"projectDir": dir, "trusted": true}), &res)
	for _, p := range res.Surface.Params {
		if p.Name == "warning_runway" && (p.Value != float64(100) || !strings.Contains(p.Origin, "project config")) {
			t.Errorf("after saveParam: %+v", p)
		}
	}
	ok(t, call(t, s, "clearParam", map[string]any{"name": "warning_runway"}), nil)
	ok(t, call(t, s, "initialize", map[string]any{"projectDir": dir, "trusted": true}), &res)
	for _, p := range res.Surface.Params {
		if p.Name == "warning_runway" && p.Origin != "default" {
			t.Errorf("after clearParam: %+v", p)
		}
	}
}

func TestServeReadError(t *testing.T) {
	s := newTestServer(t)
	err := s.Serve(io.MultiReader(strings.NewReader("{}\n"), errReader{}), io.Discard)
	if err == nil || !strings.Contains(err.Error(), "read") {
		t.Fatalf("err = %v", err)
	}
}

type errReader struct{}

func (errReader) Read([]byte) (int, error) { return 0, fmt.Errorf("boom") }

// TestServeDecidesWithoutProperties: every policy the server loads — the
// built-in default and a project's file — is loaded to decide with, not to
// verify (rules.WithoutProperties): its properties are no part of the start.
func TestServeDecidesWithoutProperties(t *testing.T) {
	good := "use \"wipe_memory\" {\n  warning_runway = 8192\n}\n"
	for _, dir := range []string{"", writeProject(t, good)} {
		userDir := t.TempDir()
		s := New(Options{
			Settings: func(dir string, trusted bool) (*settings.Settings, error) {
				return settings.Load(settings.Options{ProjectDir: dir, Trusted: trusted, UserConfigDir: userDir})
			},
		})
		var res InitializeResult
		ok(t, call(t, s, "initialize", map[string]any{"projectDir": dir, "trusted": true}), &res)
		if s.cur == nil || !s.cur.pol.PropertiesOmitted {
			t.Errorf("project %q: the policy in force was loaded with its properties", dir)
		}
		s.Close()
	}
}
