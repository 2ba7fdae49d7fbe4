package sessionfile_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/resetpolicy/resetpolicy/host/estimate"
	"github.com/resetpolicy/resetpolicy/host/jsonscan"
	"github.com/resetpolicy/resetpolicy/host/session"
	"github.com/resetpolicy/resetpolicy/host/sessionfile"
)

func read(t *testing.T, name string) *sessionfile.File {
	t.Helper()
	f, err := sessionfile.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// shape is what must survive every format version: the branch's entry
// types, roles, usage and stop reasons, and where the compaction's kept
// range starts (as an index on the branch).
func shape(t *testing.T, f *sessionfile.File) []string {
	t.Helper()
	path, err := f.Branch("")
	if err != nil {
		t.Fatal(err)
	}
	pos := map[string]int{}
	for i, e := range path {
		pos[e.ID] = i
	}
	var out []string
	for i, e := range path {
		s := fmt.Sprintf("%s/%s/%d/%s/%d", e.Type, e.Role, e.ContextTokens(), e.StopReason(), int(e.Calls))
		if e.Type == session.TypeCompaction {
			kept, ok := pos[e.Extra().FirstKeptEntryID]
			if !ok {
				t.Fatalf("%s: the compaction's first kept entry %q is not on the branch", f.Name, e.Extra().FirstKeptEntryID)
			}
			s += fmt.Sprintf(" keeps %d back, before=%d", i-kept, e.Extra().TokensBefore)
		}
		out = append(out, s)
	}
	return out
}

// The recorded session reads as Pi wrote it: every line an entry, one
// branch from the last entry to the root, the compaction keeping a range
// that starts on the branch.
func TestReadRecorded(t *testing.T) {
	f := read(t, recorded)
	if f.Version != 3 || f.SessionID == "" || len(f.Problems) != 0 || f.Joined != 0 || len(f.Skipped) != 0 {
		t.Fatalf("version %d id %q problems %v joined %d skipped %v", f.Version, f.SessionID, f.Problems, f.Joined, f.Skipped)
	}
	if f.Len() != f.Lines-1 {
		t.Fatalf("%d entries from %d lines", f.Len(), f.Lines)
	}
	path, _ := f.Branch("")
	if len(path) != f.Len() || f.Branches() != 1 {
		t.Fatalf("a linear session: branch of %d entries of %d, %d leaves", len(path), f.Len(), f.Branches())
	}
	sh := shape(t, f)
	var compactions, calls, answers int
	for _, s := range sh {
		if strings.HasPrefix(s, "compaction") {
			compactions++
			if !strings.Contains(s, "keeps ") || strings.Contains(s, "keeps 0 back") {
				t.Errorf("compaction %s keeps nothing before itself", s)
			}
		}
		if strings.HasPrefix(s, "message/assistant/") {
			answers++
			if strings.Contains(s, "/0/") {
				t.Errorf("assistant without usage: %s", s)
			}
		}
	}
	for k := 0; k < f.Len(); k++ {
		e := f.At(k)
		calls += int(e.Calls)
	}
	if compactions != 1 || answers < 40 || calls < 30 {
		t.Fatalf("compactions %d, answers %d, tool calls %d", compactions, answers, calls)
	}
}

// Version 1 and 2 files read, after Pi's migrations, as the same session
// as version 3.
func TestReadMigratesOlderVersions(t *testing.T) {
	want := shape(t, read(t, recorded))
	for _, tc := range []struct {
		name    string
		version int
	}{{"pi-faux-read.v1.jsonl", 1}, {"pi-faux-read.v2.jsonl", 2}} {
		f := read(t, tc.name)
		if f.Version != tc.version || len(f.Problems) != 0 {
			t.Fatalf("%s: version %d problems %v", tc.name, f.Version, f.Problems)
		}
		got := shape(t, f)
		if tc.version == 2 {
			// The added hook message reads as a custom message.
			i := slices.Index(got, "message/custom/0//0")
			if i < 0 {
				t.Fatalf("v2: hookMessage did not read as custom: %v", got[:8])
			}
			got = slices.Delete(got, i, i+1)
			var hook *sessionfile.Entry
			for k := 0; k < f.Len(); k++ {
				if f.At(k).ID == "hook0001" {
					hook = f.At(k)
				}
			}
			if hook == nil || hook.Role != "custom" || hook.CustomType() != "notes-hint" {
				t.Fatalf("v2 hook message: %+v", hook)
			}
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s reads differently from the version 3 file:\n got %v\nwant %v", tc.name, got, want)
		}
	}
}

// A branched session replays its active branch (the last entry's), and
// any other branch by its leaf.
func TestBranch(t *testing.T) {
	f := read(t, "branched.jsonl")
	if f.Branches() != 2 {
		t.Fatalf("%d leaves, want 2", f.Branches())
	}
	active, err := f.Branch("")
	if err != nil {
		t.Fatal(err)
	}
	types := []string{}
	for _, e := range active {
		types = append(types, e.Type+"/"+e.Role)
	}
	// header-less root: model_change, thinking, system, user, assistant, then the branch.
	if n := len(active); n != 8 || active[n-1].ID != "b0000003" || active[n-3].Type != session.TypeBranchSummary {
		t.Fatalf("active branch: %v", types)
	}
	old, err := f.Branch(read(t, recorded).Leaf())
	if err != nil {
		t.Fatal(err)
	}
	if len(old) != f.Len()-3 {
		t.Fatalf("the branch left has %d entries, want %d", len(old), f.Len()-3)
	}
	if _, err := f.Branch("nope"); err == nil {
		t.Fatal("an unknown leaf is an error")
	}
}

// Messy files, read as Pi reads them: a line of two objects is dropped
// (JSON.parse throws on it) and so is a cut line, each a problem with its
// line number; extra entry types are kept in the tree and counted, and an
// error turn with zero usage is read as it is.
func TestReadMessy(t *testing.T) {
	name := "messy.jsonl.reset.2026-11-30T21-00-00-000Z"
	if !sessionfile.IsSessionName(name) {
		t.Fatal("an archived reset file is a session file")
	}
	f := read(t, name)
	if f.Joined != 1 {
		t.Errorf("joined lines %d, want 1", f.Joined)
	}
	if len(f.Problems) != 2 || !strings.Contains(f.Problems[0].String(), "line 5: two JSON values on one line: Pi drops the line") ||
		!strings.Contains(f.Problems[1].String(), "line 8: not JSON") {
		t.Errorf("problems %v, want the joined line 5 and the cut line 8", f.Problems)
	}
	if f.Skipped["openclaw.checkpoint"] != 1 || len(f.Skipped) != 1 {
		t.Errorf("skipped %v", f.Skipped)
	}
	// The dropped line held the parent of the entry after it, so the
	// branch starts there, as Pi's does.
	path, _ := f.Branch("")
	if path[0].Type != session.TypeMessage {
		t.Errorf("the branch starts at %s", path[0].Type)
	}
	last := path[len(path)-1]
	if last.StopReason() != "error" || !last.HasUsage() || last.ContextTokens() != 0 || !strings.Contains(last.Extra().ErrorMessage, "too long") {
		t.Errorf("error turn: %+v", last)
	}
	// 19 recorded entries less the two of the joined line, the extra one
	// and the error turn.
	if f.Len() != 19 {
		t.Errorf("%d entries, want 19", f.Len())
	}
}

func TestReadBounds(t *testing.T) {
	src, err := os.ReadFile(filepath.Join(dir, recorded))
	if err != nil {
		t.Fatal(err)
	}
	f, err := sessionfile.NewReader(sessionfile.Options{MaxLine: 2000}).Read(strings.NewReader(string(src)), "x")
	if err != nil {
		t.Fatal(err)
	}
	long := 0
	for _, p := range f.Problems {
		if strings.Contains(p.Msg, "over the 2000-byte bound") {
			long++
		}
	}
	if long == 0 || f.Len()+long != f.Lines-1 {
		t.Errorf("long lines %d, entries %d, lines %d", long, f.Len(), f.Lines)
	}
	f, err = sessionfile.NewReader(sessionfile.Options{MaxEntries: 5}).Read(strings.NewReader(string(src)), "x")
	if err != nil || f.Len() != 5 || !f.Truncated {
		t.Errorf("entry bound: %v %d %v", err, f.Len(), f.Truncated)
	}
	f, err = sessionfile.NewReader(sessionfile.Options{MaxFile: 5000}).Read(strings.NewReader(string(src)), "x")
	if err != nil || !f.Truncated || f.Lines > 10 {
		t.Errorf("file bound: %v truncated %v after %d lines", err, f.Truncated, f.Lines)
	}
	_, err = sessionfile.NewReader(sessionfile.Options{}).Read(strings.NewReader(`{"type":"message","id":"a"}`+"\n"), "x")
	if !errors.Is(err, sessionfile.ErrNotSession) {
		t.Errorf("a file without a header: %v", err)
	}
}

func TestWalk(t *testing.T) {
	files, err := sessionfile.Walk([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range files {
		names = append(names, filepath.Base(f))
	}
	for _, want := range []string{recorded, "branched.jsonl", "messy.jsonl.reset.2026-11-30T21-00-00-000Z"} {
		if !slices.Contains(names, want) {
			t.Errorf("Walk misses %s: %v", want, names)
		}
	}
	for _, n := range []string{"a.jsonl.reset.", "notes.txt", "a.json"} {
		if sessionfile.IsSessionName(n) {
			t.Errorf("%s taken for a session file", n)
		}
	}
}

// A writer that died mid-line leaves a cut object, and Pi's next entry
// goes on the same line: JSON.parse throws on the line and Pi drops it,
// the entries after the cut with it, and so does the reader, reporting
// the line.
func TestReadCutObjectDropsItsLine(t *testing.T) {
	src := `{"type":"session","version":3,"id":"s"}
{"type":"message","id":"a","message":{"role":"user","content":[{"type":"text","text":"one"}]}}
{"type":"message","id":"cut","parentId":"a","message":{"role":"user","content":[{"type":"text","text":"hi"}],"tim{"type":"compaction","id":"c","parentId":"a","summary":"s","firstKeptEntryId":"a","tokensBefore":5}{"type":"message","id":"b","parentId":"c","message":{"role":"user","content":"two"}}
{"type":"message","id":"x","parentId":"b","message":{"role":"user","content":[{"type":"text","text":"cut for good`
	f, err := sessionfile.NewReader(sessionfile.Options{}).Read(strings.NewReader(src), "cut")
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for k := 0; k < f.Len(); k++ {
		ids = append(ids, f.At(k).ID)
	}
	if strings.Join(ids, ",") != "a" {
		t.Errorf("entries %v, want a", ids)
	}
	if len(f.Problems) != 2 || f.Problems[0].Line != 3 || !strings.Contains(f.Problems[0].Msg, "not JSON as Pi reads it") ||
		f.Problems[1].Line != 4 || !strings.Contains(f.Problems[1].Msg, "not JSON") {
		t.Errorf("problems %v", f.Problems)
	}
	path, _ := f.Branch("")
	if len(path) != 1 {
		t.Errorf("branch %d entries", len(path))
	}
}

// Problems are bounded per file: MaxProblems kept, the rest counted.
func TestMaxProblems(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"type":"session","id":"s"}` + "\n")
	for i := 0; i < sessionfile.MaxProblems+5; i++ {
		b.WriteString("not json\n")
	}
	f, err := sessionfile.NewReader(sessionfile.Options{}).Read(strings.NewReader(b.String()), "p")
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Problems) != sessionfile.MaxProblems || f.MoreProblems != 5 {
		t.Fatalf("%d problems kept, %d more", len(f.Problems), f.MoreProblems)
	}
}

// A token count is a whole number from 0 to MaxTokenCount; anything else
// is a problem of its line and the usage is not taken.
func TestTokenCounts(t *testing.T) {
	for _, tc := range []struct {
		input string
		ok    bool
	}{
		{"0", true}, {"2147483647", true}, {"2147483648", false}, {"-1", false}, {"1.5", false},
		{"1e308", false}, {"1e999", false}, {`"12"`, false}, {"1e3", true}, {"null", true}, {`{ "n" : 1 }`, false},
	} {
		src := `{"type":"session","id":"s"}` + "\n" +
			`{"type":"message","id":"a","message":{"role":"assistant","content":[],"stopReason":"stop","usage":{"input":` + tc.input + `,"output":1}}}`
		f, err := sessionfile.NewReader(sessionfile.Options{}).Read(strings.NewReader(src), "u")
		if err != nil {
			t.Fatal(err)
		}
		e := f.At(0)
		if e.HasUsage() != tc.ok || (len(f.Problems) == 0) != tc.ok {
			t.Errorf("input %s: usage taken %v, problems %v", tc.input, e.HasUsage(), f.Problems)
		}
		// The problem quotes the value as the file has it.
		if !tc.ok && (f.Problems[0].Line != 2 || !strings.Contains(f.Problems[0].Msg, "usage.input") || !strings.Contains(f.Problems[0].Msg, tc.input)) {
			t.Errorf("input %s: problem %v", tc.input, f.Problems[0])
		}
	}
}

// A file of junk lines is refused once MaxLinesBeforeHeader lines hold no
// header, not read to its end; a few junk lines before the header are
// still only problems.
func TestNoHeaderIsRefusedEarly(t *testing.T) {
	var b strings.Builder
	for i := 0; i < 10*sessionfile.MaxLinesBeforeHeader; i++ {
		b.WriteString("y\n")
	}
	_, err := sessionfile.NewReader(sessionfile.Options{}).Read(strings.NewReader(b.String()), "junk.jsonl")
	if !errors.Is(err, sessionfile.ErrNotSession) || !strings.Contains(err.Error(), "first 1000 lines") {
		t.Fatalf("junk: %v, want ErrNotSession after the first 1000 lines", err)
	}
	few := strings.Repeat("y\n", sessionfile.MaxLinesBeforeHeader-2) + `{"type":"session","version":3,"id":"s1"}` + "\n"
	f, err := sessionfile.NewReader(sessionfile.Options{}).Read(strings.NewReader(few), "few.jsonl")
	if err != nil || f.SessionID != "s1" {
		t.Fatalf("a header after %d junk lines: %v", sessionfile.MaxLinesBeforeHeader-2, err)
	}
}

// A kept tool call's arguments are compact JSON of what the file holds:
// spacing dropped, strings and keys decoded and written again as JSON,
// numbers as written; calls of tools not asked for are counted, not kept.
func TestToolCallArguments(t *testing.T) {
	src := `{"type":"session","id":"s"}` + "\n" +
		`{"type":"message","id":"a","message":{"role":"assistant","stopReason":"toolUse","content":[` +
		`{"type":"toolCall","id":"t1","name":"read","arguments":{ "path" : "a\u00e9\/b", "n": 1.50, "l" : [ true, null ], "c": "x\u0007\"y" }},` +
		`{"type":"toolCall","id":"t2","name":"bash","arguments":{"command":"ls"}}]}}`
	f, err := sessionfile.NewReader(sessionfile.Options{KeepArgs: map[string]bool{"read": true}}).Read(strings.NewReader(src), "a")
	if err != nil {
		t.Fatal(err)
	}
	e := f.At(0)
	calls := e.Extra().ToolCalls
	if e.Calls != 2 || len(calls) != 1 || calls[0].ID != "t1" || calls[0].Name != "read" {
		t.Fatalf("calls %d, kept %+v", e.Calls, calls)
	}
	// A control character is written as JSON writes it, so the arguments
	// stay JSON a replay can read (Go's quoting would write \a).
	if got, want := string(calls[0].Args), `{"path":"aé/b","n":1.50,"l":[true,null],"c":"x\u0007\"y"}`; got != want {
		t.Errorf("arguments %s, want %s", got, want)
	}
	if !json.Valid(calls[0].Args) {
		t.Errorf("arguments %s are not JSON", calls[0].Args)
	}
}

// An entry's estimate is estimate.Message of its message, every role and
// block kind: the reader counts an assistant's blocks in the pass that
// keeps its tool calls, and that pass must count what Message counts,
// kept calls or not.
func TestEntryEstimateIsMessage(t *testing.T) {
	msgs := []string{
		`{"role":"user","content":"abcdefgh"}`,
		`{"role":"user","content":[{"type":"text","text":"abcde"},{"type":"image","data":"...."}]}`,
		`{"role":"toolResult","toolName":"read","content":[{"type":"text","text":"abcd"}]}`,
		`{"role":"assistant","stopReason":"toolUse","content":[{"type":"toolCall","id":"t2","name":"bash","arguments":{"command":"ls -l"}},` +
			`{"type":"thinking","thinking":"abcd"},{"type":"toolCall","id":"t1","name":"read","arguments":{"path":"a"}},{"type":"text","text":"ab"}]}`,
		`{"role":"assistant","content":"not blocks"}`,
		`{"role":"bashExecution","command":"ls","output":"a b"}`,
		`{"role":"custom","customType":"x","content":"abcd"}`,
		`{"role":"system","content":"ab","sections":{"x":"cd"}}`,
	}
	src := `{"type":"session","id":"s"}` + "\n"
	for i, m := range msgs {
		src += fmt.Sprintf(`{"type":"message","id":"e%d","message":%s}`+"\n", i, m)
	}
	for _, keep := range []map[string]bool{nil, {"read": true}} {
		f, err := sessionfile.NewReader(sessionfile.Options{KeepArgs: keep}).Read(strings.NewReader(src), "a")
		if err != nil {
			t.Fatal(err)
		}
		for i, m := range msgs {
			var d jsonscan.Doc
			v, err := d.Parse([]byte(m))
			if err != nil {
				t.Fatal(err)
			}
			if got, want := int64(f.At(i).Est), estimate.Message(v); got != want || want == 0 && i != 4 {
				t.Errorf("keep %v, %s: Est %d, want %d", keep, m, got, want)
			}
		}
	}
}
