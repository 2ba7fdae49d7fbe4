package replay_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/resetpolicy/resetpolicy/host/replay"
	"github.com/resetpolicy/resetpolicy/host/sessionfile"
)

// piRead is what Pi reads of a session file (testdata/pi_read.mjs).
type piRead struct {
	Session     bool      `json:"session"`
	Entries     int       `json:"entries"`
	Parsed      int       `json:"parsed"`
	Answers     []piPoint `json:"answers"`
	Compactions int       `json:"compactions"`
}

// edgeCase changes one line of a session file the way a hostile or
// broken writer might; line is the line (1-based) it changes, whose
// number the replay must report (0: it reports none, the bytes saying
// what Pi reads).
type edgeCase struct {
	name string
	edit func(lines [][]byte) (line int)
}

// lineWith is the index of the first (or last) line holding s.
func lineWith(lines [][]byte, s string, last bool) int {
	at := -1
	for i, l := range lines {
		if bytes.Contains(l, []byte(s)) {
			at = i
			if !last {
				break
			}
		}
	}
	return at
}

// replaceIn replaces the first old of the line holding key (the first
// or the last such line) and returns its 1-based number.
func replaceIn(lines [][]byte, key string, last bool, old, new string) int {
	i := lineWith(lines, key, last)
	if i < 0 || !bytes.Contains(lines[i], []byte(old)) {
		panic(fmt.Sprintf("no %q in a line with %q", old, key))
	}
	lines[i] = bytes.Replace(lines[i], []byte(old), []byte(new), 1)
	return i + 1
}

// totalOf is the totalTokens the line holding key writes.
func totalOf(lines [][]byte, key string, last bool) string {
	l := lines[lineWith(lines, key, last)]
	i := bytes.Index(l, []byte(`"totalTokens":`)) + len(`"totalTokens":`)
	j := i
	for j < len(l) && l[j] >= '0' && l[j] <= '9' {
		j++
	}
	return string(l[i:j])
}

// The lines where JSON.parse, and so Pi, reads something other than the
// bytes seem to say, or other than a lenient reader would.
func edgeCases() []edgeCase {
	usage := `"totalTokens":`
	dupTotal := func(last bool, first bool) func([][]byte) int {
		return func(lines [][]byte) int {
			n := totalOf(lines, usage, last)
			if first {
				// The first written is not the one Pi reads.
				return replaceIn(lines, usage, last, `"totalTokens":`+n, `"totalTokens":190000,"totalTokens":`+n)
			}
			// An escaped spelling of the key, written last, is the one.
			return replaceIn(lines, usage, last, `"totalTokens":`+n, `"totalTokens":`+n+`,"t\u006ftalTokens":190000`)
		}
	}
	text := func(old, new string) func([][]byte) int {
		return func(lines [][]byte) int { return replaceIn(lines, `"Round 2: read`, false, old, new) }
	}
	cases := []edgeCase{
		{"duplicate totalTokens, the first larger", dupTotal(true, true)},
		{"duplicate totalTokens, the escaped one last", dupTotal(true, false)},
		{"duplicate totalTokens mid-session", dupTotal(false, true)},
		{"duplicate role", func(l [][]byte) int {
			return replaceIn(l, usage, true, `"role":"assistant"`, `"role":"user","role":"assistant"`)
		}},
		{"a second usage object", func(l [][]byte) int {
			return replaceIn(l, usage, true, `"usage":{`, `"usage":{"totalTokens":190000},"usage":{`)
		}},
		{"duplicate type of an entry", func(l [][]byte) int {
			return replaceIn(l, `"Round 2: read`, false, `"type":"message"`, `"type":"compaction","type":"message"`)
		}},
		{"a leading zero", func(l [][]byte) int { return replaceIn(l, usage, true, `"cacheRead":0`, `"cacheRead":00`) }},
		{"a number ending in a point", func(l [][]byte) int { return replaceIn(l, usage, true, `"cacheRead":0`, `"cacheRead":1000.`) }},
		{"NaN", func(l [][]byte) int { return replaceIn(l, usage, true, `"cacheRead":0`, `"cacheRead":NaN`) }},
		{"a raw U+0001 in a prompt", text("Round 2", "Round\x012")},
		{"a raw tab in a prompt", text("Round 2", "Round\t2")},
		{"a raw NUL in a prompt", text("Round 2", "Round\x002")},
		{"an unknown escape", text("Round 2", `Round\q2`)},
		{"a short \\u escape", text("Round 2", `Round\u12`)},
		{"a raw control character past a block", text("one at a time", strings.Repeat("x", 100)+"\x1f")},
		{"lone continuation bytes", text("Round 2", "Round "+strings.Repeat("\x80", 40000))},
		{"an overlong NUL", text("Round 2", "Round \xc0\x80")},
		{"a cut three-byte character", text("Round 2", "Round \xe2\x82 2")},
		{"an encoded surrogate", text("Round 2", "Round \xed\xa0\x80")},
		{"a character past U+10FFFF", text("Round 2", "Round \xf4\x90\x80\x80")},
		{"bytes that start nothing", text("Round 2", "Round \xff\xfe\xf8")},
		{"a cut four-byte character at the end of a string", text(`done."`, "done.\xf0\x9f\x98\"")},
		{"two entries on one line", func(lines [][]byte) int {
			i := lineWith(lines, usage, true)
			lines[i-1] = append(append([]byte{}, lines[i-1]...), lines[i]...)
			return i
		}},
		{"a cut object, then the next entry", func(lines [][]byte) int {
			i := lineWith(lines, usage, true)
			cut := lines[i-1][:len(lines[i-1])/2]
			lines[i-1] = append(append([]byte{}, cut...), lines[i]...)
			lines[i] = []byte{}
			return i
		}},
		{"a byte order mark before an entry", func(lines [][]byte) int {
			i := lineWith(lines, usage, true)
			lines[i] = append([]byte("\ufeff"), lines[i]...)
			return i + 1
		}},
		{"a line of a byte order mark alone", func(lines [][]byte) int {
			i := lineWith(lines, usage, true)
			lines[i] = append(append([]byte{}, lines[i]...), "\n\ufeff"...)
			return 0
		}},
		{"a byte order mark before the header", func(lines [][]byte) int {
			lines[0] = append([]byte("\ufeff"), lines[0]...)
			return 1
		}},
		{"a JSON value that is no object before the header", func(lines [][]byte) int {
			lines[0] = append([]byte("5\n"), lines[0]...)
			return 1
		}},
		{"white space around an entry", func(lines [][]byte) int {
			i := lineWith(lines, usage, true)
			lines[i] = append(append([]byte(" \t"), lines[i]...), " \r"...)
			return 0
		}},
	}
	return cases
}

// TestReadsAsPiReads runs Pi's own readers (loadEntriesFromFile, which
// opens a session, and parseSessionEntries, which must agree with it but
// on a byte order mark before the header) and estimate on a recorded session with each edge
// case, and requires of the replay Pi's answers on the active branch,
// Pi's estimate before each, the peak and the compactions, and a problem
// reported with the number of every line changed.
func TestReadsAsPiReads(t *testing.T) {
	node, pkg := piPackages(t)
	src, err := os.ReadFile(filepath.Join(dir, "pi-faux-read.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	for i, c := range edgeCases() {
		t.Run(c.name, func(t *testing.T) {
			lines := bytes.Split(bytes.TrimSuffix(src, []byte("\n")), []byte("\n"))
			line := c.edit(lines)
			file := filepath.Join(tmp, fmt.Sprintf("case%02d.jsonl", i))
			if err := os.WriteFile(file, append(bytes.Join(lines, []byte("\n")), '\n'), 0o644); err != nil {
				t.Fatal(err)
			}
			comparePi(t, node, pkg, file, line)
		})
	}
}

func comparePi(t *testing.T, node, pkg, file string, line int) {
	t.Helper()
	out, err := exec.Command(node, filepath.Join("testdata", "pi_read.mjs"), pkg, file).Output()
	if err != nil {
		t.Fatalf("pi_read.mjs: %v", err)
	}
	var pi piRead
	if err := json.Unmarshal(out, &pi); err != nil {
		t.Fatal(err)
	}
	if pi.Session && pi.Entries != pi.Parsed {
		t.Fatalf("Pi's two readers differ: %d entries and %d", pi.Entries, pi.Parsed)
	}
	f, err := sessionfile.ReadFile(file)
	if !pi.Session {
		if err == nil {
			t.Fatalf("Pi reads no session; the replay reads %d entries", f.Len())
		}
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	cfg := config(t, "autocompacter", nil, 1<<40)
	cfg.Points = true
	rep, err := replay.New(cfg).Replay(f, "")
	if err != nil {
		t.Fatal(err)
	}
	var peak, piPeak int64
	for _, p := range rep.Points {
		peak = max(peak, p.Recorded)
	}
	for _, a := range pi.Answers {
		piPeak = max(piPeak, a.Tokens)
	}
	if len(rep.Points) != len(pi.Answers) || peak != piPeak || rep.RecordedCompactions != pi.Compactions {
		t.Fatalf("replay: %d turns, peak %d, %d compactions; Pi: %d, %d, %d (problems %v)",
			len(rep.Points), peak, rep.RecordedCompactions, len(pi.Answers), piPeak, pi.Compactions, f.Problems)
	}
	for i, p := range rep.Points {
		if p.Recorded != pi.Answers[i].Tokens {
			t.Errorf("turn %d (before %s): replay %d, Pi %d", p.Turn, pi.Answers[i].ID, p.Recorded, pi.Answers[i].Tokens)
		}
	}
	reported := false
	for _, p := range f.Problems {
		reported = reported || p.Line == line
	}
	if line > 0 && !reported {
		t.Errorf("line %d is not reported: %v", line, f.Problems)
	}
	if line == 0 && len(f.Problems) > 0 {
		t.Errorf("problems where the bytes say what Pi reads: %v", f.Problems)
	}
}
