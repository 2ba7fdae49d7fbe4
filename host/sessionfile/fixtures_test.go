package sessionfile_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the derived session fixtures")

// dir is the repository's recorded sessions.
var dir = filepath.Join("..", "..", "testdata", "sessions")

// recorded is the session recorded from Pi's real loop with the faux
// provider (host/pi/test/record-session.ts).
const recorded = "pi-faux-read.jsonl"

// The derived fixtures are conversions of the recorded session, made by
// this test (go test ./host/sessionfile -update rewrites them) and
// committed, so that a change of the conversion shows in review.
var fixtures = map[string]func(t *testing.T, lines []map[string]any) [][]byte{
	// Version 2 as Pi's migrateV2ToV3 describes it: a custom-role message
	// was "hookMessage". The recording has none, so one is added after
	// the first prompt, as an extension of that time wrote it.
	"pi-faux-read.v2.jsonl": func(t *testing.T, lines []map[string]any) [][]byte {
		lines[0]["version"] = 2
		var out [][]byte
		for i, l := range lines {
			out = append(out, enc(t, l))
			if i > 0 && role(l) == "user" && i < 6 {
				out = append(out, enc(t, map[string]any{
					"type": "message", "id": "hook0001", "parentId": l["id"], "timestamp": l["timestamp"],
					"message": map[string]any{"role": "hookMessage", "customType": "notes-hint", "content": "Read the notes.", "display": false, "timestamp": 0},
				}))
			}
		}
		// The entry after the hook message now hangs below it.
		fixParents(t, out)
		return out
	},
	// Version 1 as Pi's migrateV1ToV2 describes it: no id or parentId,
	// and a compaction names its first kept entry by index (the header
	// at index 0).
	"pi-faux-read.v1.jsonl": func(t *testing.T, lines []map[string]any) [][]byte {
		delete(lines[0], "version")
		index := map[string]int{}
		for i, l := range lines[1:] {
			index[l["id"].(string)] = i + 1
		}
		var out [][]byte
		for _, l := range lines {
			if l["type"] == "compaction" {
				l["firstKeptEntryIndex"] = index[l["firstKeptEntryId"].(string)]
				delete(l, "firstKeptEntryId")
			}
			delete(l, "id")
			delete(l, "parentId")
			if l["type"] == "session" {
				l["id"] = "v1-session"
			}
			out = append(out, enc(t, l))
		}
		return out
	},
	// A branched session: after the whole recording, the user went back
	// to the first answer with /tree, Pi summarised the branch left, and
	// the session continued there; that branch is the active one.
	"branched.jsonl": func(t *testing.T, lines []map[string]any) [][]byte {
		var out [][]byte
		firstAnswer, last := "", lines[len(lines)-1]
		for _, l := range lines {
			out = append(out, enc(t, l))
			if firstAnswer == "" && role(l) == "assistant" {
				firstAnswer = l["id"].(string)
			}
		}
		ts := last["timestamp"]
		out = append(out,
			enc(t, map[string]any{"type": "branch_summary", "id": "b0000001", "parentId": firstAnswer, "timestamp": ts, "fromId": last["id"], "summary": "Read every note six times."}),
			enc(t, map[string]any{"type": "message", "id": "b0000002", "parentId": "b0000001", "timestamp": ts,
				"message": map[string]any{"role": "user", "content": "Now just summarise note 1.", "timestamp": 0}}),
			enc(t, map[string]any{"type": "message", "id": "b0000003", "parentId": "b0000002", "timestamp": ts,
				"message": map[string]any{"role": "assistant", "content": []any{map[string]any{"type": "text", "text": "Note 1 is about a fox."}},
					"api": "faux", "provider": "faux", "model": "faux-1", "stopReason": "stop", "timestamp": 0,
					"usage": map[string]any{"input": 0, "output": 8, "cacheRead": 2300, "cacheWrite": 40, "totalTokens": 2348}}}),
		)
		return out
	},
	// Real files are messy: two objects on one line, a line cut short by
	// a crash, entries of a tool built on Pi's format (OpenClaw), and an
	// error turn with zero usage.
	"messy.jsonl.reset.2026-11-30T21-00-00-000Z": func(t *testing.T, lines []map[string]any) [][]byte {
		var out [][]byte
		for i, l := range lines[:20] {
			b := enc(t, l)
			switch {
			case i == 4:
				// joined with the next line below
				out = append(out, b)
				continue
			case i == 5:
				out[len(out)-1] = append(out[len(out)-1], b...)
				continue
			case i == 8:
				out = append(out, []byte(`{"type":"message","id":"cut`))
			case i == 10:
				out = append(out, enc(t, map[string]any{"type": "openclaw.checkpoint", "id": "oc000001", "parentId": l["parentId"], "timestamp": l["timestamp"], "note": "extra"}))
				l["parentId"] = "oc000001"
				b = enc(t, l)
			}
			out = append(out, b)
		}
		prev := lines[19]
		out = append(out, enc(t, map[string]any{"type": "message", "id": "err00001", "parentId": prev["id"], "timestamp": prev["timestamp"],
			"message": map[string]any{"role": "assistant", "content": []any{}, "api": "faux", "provider": "faux", "model": "faux-1",
				"stopReason": "error", "errorMessage": "prompt is too long: 70000 tokens > 64000 maximum", "timestamp": 0,
				"usage": map[string]any{"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 0}}}))
		return out
	},
}

func role(l map[string]any) string {
	m, _ := l["message"].(map[string]any)
	r, _ := m["role"].(string)
	return r
}

func enc(t *testing.T, v any) []byte {
	var b bytes.Buffer
	e := json.NewEncoder(&b)
	e.SetEscapeHTML(false)
	if err := e.Encode(v); err != nil {
		t.Fatal(err)
	}
	return bytes.TrimRight(b.Bytes(), "\n")
}

// fixParents re-links the entry after each inserted hook message.
func fixParents(t *testing.T, out [][]byte) {
	for i := 1; i+1 < len(out); i++ {
		if !bytes.Contains(out[i], []byte(`"hookMessage"`)) {
			continue
		}
		var next map[string]any
		if err := json.Unmarshal(out[i+1], &next); err != nil {
			t.Fatal(err)
		}
		next["parentId"] = "hook0001"
		out[i+1] = enc(t, next)
	}
}

func readRecorded(t *testing.T) []map[string]any {
	b, err := os.ReadFile(filepath.Join(dir, recorded))
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var m map[string]any
		d := json.NewDecoder(strings.NewReader(line))
		d.UseNumber()
		if err := d.Decode(&m); err != nil {
			t.Fatal(err)
		}
		out = append(out, m)
	}
	return out
}

func TestFixturesAreConversionsOfTheRecording(t *testing.T) {
	for name, conv := range fixtures {
		lines := conv(t, readRecorded(t))
		got := append(bytes.Join(lines, []byte("\n")), '\n')
		path := filepath.Join(dir, name)
		if *update {
			if err := os.WriteFile(path, got, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (go test ./host/sessionfile -update writes it)", err)
		}
		if !bytes.Equal(want, got) {
			t.Errorf("%s is not the conversion of %s (go test ./host/sessionfile -update rewrites it)", name, recorded)
		}
	}
	_ = fmt.Sprint
}
