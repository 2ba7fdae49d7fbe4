package lsp

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	protocol "github.com/tliron/glsp/protocol_3_16"
)

// manyRuns is a test file of wipe_memory with n runs of one event each.
func manyRuns(n int) string {
	var b strings.Builder
	b.WriteString("policy = \"wipe_memory\"\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "run \"r%d\" {\n  event \"turn_end\" {}\n}\n", i)
	}
	return b.String()
}

// TestCheckOffTheReadLoop: while a test file's check is held at its first
// step, hover and completion on it are answered; eleven newer versions
// sent meanwhile stop that check at its next step, and only the last
// version is checked and published — no check per version piles up; a
// document opened meanwhile waits for the one checker.
func TestCheckOffTheReadLoop(t *testing.T) {
	s := New(Options{Debounce: -1, CacheDir: t.TempDir()})
	uri := fileURI(filepath.Join(t.TempDir(), "a.test.hcl"))
	entered, release := make(chan struct{}), make(chan struct{})
	var mu sync.Mutex
	steps := map[int32]int{} // hook calls per version
	released := false
	afterRelease := 0 // the first version's steps once released
	s.checkHook = func(u string, version int32) {
		if u != uri {
			return
		}
		mu.Lock()
		steps[version]++
		first := version == 1 && steps[version] == 1
		if version == 1 && released {
			afterRelease++
		}
		mu.Unlock()
		if first {
			close(entered)
			<-release
		}
	}
	c := connect(t, s)
	text := manyRuns(40)
	c.notif("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": uri, "languageId": "hcl", "version": 1, "text": text}})
	select {
	case <-entered:
	case <-time.After(hangWait):
		t.Fatal("the check did not start")
	}
	// The check is held: requests are answered all the same.
	var hover *protocol.Hover
	c.call("textDocument/hover", docPos(uri, 2, 10), &hover)
	if hover == nil {
		t.Error("no hover on the event while the check runs")
	}
	var comp protocol.CompletionList
	c.call("textDocument/completion", docPos(uri, 2, 9), &comp)
	if len(comp.Items) == 0 {
		t.Error("no completion while the check runs")
	}
	for v := 2; v <= 12; v++ {
		change(c, uri, v, map[string]any{"text": text})
	}
	other := fileURI(filepath.Join(t.TempDir(), "b.test.hcl"))
	c.notif("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": other, "languageId": "hcl", "version": 1, "text": manyRuns(1)}})
	// Messages are handled in order: once this is answered, every change
	// above has been.
	c.call("textDocument/hover", docPos(uri, 2, 10), &hover)
	s.mu.Lock()
	if s.checkers != 1 {
		t.Errorf("%d checkers run: one document is checked at a time", s.checkers)
	}
	s.mu.Unlock()
	mu.Lock()
	released = true
	mu.Unlock()
	close(release)
	if d := c.diagnostics(uri, 12); len(d) != 0 {
		t.Errorf("version 12: %v", d)
	}
	if d := c.diagnostics(other, 1); len(d) != 0 {
		t.Errorf("the other document: %v", d)
	}
	mu.Lock()
	defer mu.Unlock()
	// Stopped at the next step: the stale check asks once whether it is
	// stale, and once more before running anything.
	if afterRelease > 2 {
		t.Errorf("the first version's check went on for %d steps after newer versions came", afterRelease)
	}
	for v := int32(2); v <= 11; v++ {
		if steps[v] > 0 {
			t.Errorf("version %d was checked (%d steps): only the newest waiting version is", v, steps[v])
		}
	}
	if steps[12] < 40 {
		t.Errorf("version 12 took %d steps, want its 40 runs and a load", steps[12])
	}
	c.mu.Lock()
	for _, p := range c.diags[uri] {
		if *p.Version != 12 {
			t.Errorf("version %d published", *p.Version)
		}
	}
	c.mu.Unlock()
}

// TestCheckBudget: a test file's check runs at most MaxCheckEvents events
// and loads its policy for at most MaxCheckLoadBytes of text; the runs
// past either bound are not run, and one warning at the first of them
// says so.
func TestCheckBudget(t *testing.T) {
	fail := "  event \"turn_end\" {\n    expect {\n      rules = [\"no_such_rule\"]\n    }\n  }\n"
	var events strings.Builder
	events.WriteString("policy = \"wipe_memory\"\nrun \"first\" {\n" + fail + "}\nrun \"big\" {\n")
	for i := 0; i < MaxCheckEvents-1; i++ {
		events.WriteString("  event \"turn_end\" {}\n")
	}
	events.WriteString("}\nrun \"over\" {\n" + fail + "}\n")

	var loads strings.Builder
	loads.WriteString("policy = \"wipe_memory\"\n")
	n := MaxCheckLoadBytes / minLoadCost // wipe_memory is smaller than minLoadCost
	for i := 0; i <= n; i++ {
		fmt.Fprintf(&loads, "run \"r%d\" {\n  params = { warning_runway = %d }\n%s}\n", i, 1000+i, fail)
	}
	for _, tc := range []struct {
		name, text string
		failing    int
		warnAt     string
	}{
		{"events", events.String(), 1, "\"over\""},
		{"loads", loads.String(), n, fmt.Sprintf("\"r%d\"", n)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			diags := problems(testKind, "/x/a.test.hcl", []byte(tc.text), false, func(string) []byte { return nil }, nil)
			failing, warned := 0, 0
			lines := strings.Split(tc.text, "\n")
			for _, d := range diags {
				switch d.Summary {
				case "Run fails":
					failing++
				case "Runs not checked":
					warned++
					if line := lines[d.Subject.Start.Line-1]; !strings.Contains(line, tc.warnAt) {
						t.Errorf("the warning is at %q, want the run %s", line, tc.warnAt)
					}
				default:
					t.Errorf("unexpected %s: %s", d.Summary, d.Detail)
				}
			}
			if failing != tc.failing || warned != 1 {
				t.Errorf("%d failing runs and %d warnings, want %d and 1", failing, warned, tc.failing)
			}
		})
	}
}

// TestOpenDocumentsLinear: a check does not cost more as more documents
// are open (each once copied every other open document: 20,000 documents
// took 62 s to open). Measured in bytes allocated per document opened,
// at 200 and at 4,000 open documents, which does not depend on the
// machine's load.
func TestOpenDocumentsLinear(t *testing.T) {
	c := newClient(t, Options{})
	dir := t.TempDir()
	opened := 0
	open := func(n int) uint64 {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		// In steps of 200: the test client queues at most 1,000
		// notifications before it is read.
		for left := n; left > 0; left -= 200 {
			uris := make([]string, min(left, 200))
			for i := range uris {
				uris[i] = fileURI(filepath.Join(dir, fmt.Sprintf("p%d.hcl", opened)))
				opened++
				c.open(uris[i], "policy \"p\" {}\n")
			}
			for _, u := range uris {
				c.diagnostics(u, 1)
			}
		}
		runtime.ReadMemStats(&after)
		return (after.TotalAlloc - before.TotalAlloc) / uint64(n)
	}
	open(200)
	few := open(200)
	open(3600)
	many := open(200)
	t.Logf("bytes allocated per document opened: %d with 200 open, %d with 4,000", few, many)
	if many > 2*few {
		t.Errorf("opening a document allocates %d bytes with 4,000 open, %d with 200: a check costs more per open document", many, few)
	}
}

// TestSaveChecksAgain: a save checks the document again, for what it
// reads from disk: here a test file's policy, which is not open.
func TestSaveChecksAgain(t *testing.T) {
	c := newClient(t, Options{})
	dir := t.TempDir()
	policy := filepath.Join(dir, "p.hcl")
	write := func(text string) {
		if err := os.WriteFile(policy, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("policy \"p\" {}\nparam \"n\" {\n  type = number\n  default = 1\n}\n")
	uri := fileURI(filepath.Join(dir, "p.test.hcl"))
	c.open(uri, "policy = \"p.hcl\"\nparams = { n = 2 }\nrun \"r\" {\n  event \"turn_end\" {}\n}\n")
	if d := c.diagnostics(uri, 1); len(d) != 0 {
		t.Fatalf("diagnostics %v: the policy declares n", d)
	}
	write("policy \"p\" {}\n")
	c.notif("textDocument/didSave", map[string]any{"textDocument": map[string]any{"uri": uri}})
	deadline := time.After(hangWait)
	for {
		c.mu.Lock()
		got := c.diags[uri]
		c.mu.Unlock()
		if len(got) > 1 {
			if d := got[len(got)-1].Diagnostics; len(d) == 0 || !strings.Contains(d[0].Message, `no param "n"`) {
				t.Errorf("after the save: %v", d)
			}
			return
		}
		select {
		case <-c.notify:
		case <-deadline:
			t.Fatal("the save was not checked")
		}
	}
}

// TestLoadsOneAtATime: checks and requests on other goroutines load
// policies at once; under go test -race this fails when two loads run
// together (the expression checker's shared configuration races).
func TestLoadsOneAtATime(t *testing.T) {
	_, text := readFixture(t, "composed.hcl")
	var wg sync.WaitGroup
	for i := 0; i < 4; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			problems(policyKind, fmt.Sprintf("/x/c%d.hcl", i), []byte(text), false, func(string) []byte { return nil }, nil)
		}()
	}
	wg.Wait()
}
