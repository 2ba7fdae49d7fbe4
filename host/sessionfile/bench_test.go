package sessionfile_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/resetpolicy/resetpolicy/host/sessionfile"
)

// The reader against the same reading done with encoding/json into a
// struct of the members a replay needs: the reason the reader has a JSON
// reader of its own, host/jsonscan (docs/dependencies.md).
//
//	go test ./host/sessionfile -run XXX -bench 'Read(Scan|Stdlib)' -benchtime 2s -count 5

func recordedBytes(b *testing.B) []byte {
	src, err := os.ReadFile(filepath.Join(dir, recorded))
	if err != nil {
		b.Fatal(err)
	}
	return src
}

func BenchmarkReadScan(b *testing.B) {
	src := recordedBytes(b)
	rd := sessionfile.NewReader(sessionfile.Options{})
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := rd.Read(bytes.NewReader(src), "x"); err != nil {
			b.Fatal(err)
		}
	}
}

type stdEntry struct {
	Type      string `json:"type"`
	ID        string `json:"id"`
	ParentID  string `json:"parentId"`
	Timestamp string `json:"timestamp"`
	Message   *struct {
		Role         string `json:"role"`
		Provider     string `json:"provider"`
		Model        string `json:"model"`
		StopReason   string `json:"stopReason"`
		ErrorMessage string `json:"errorMessage"`
		ToolName     string `json:"toolName"`
		IsError      bool   `json:"isError"`
		Usage        *struct {
			Input, Output, CacheRead, CacheWrite, TotalTokens int64
		} `json:"usage"`
		Content json.RawMessage `json:"content"`
	} `json:"message"`
	FirstKeptEntryID string `json:"firstKeptEntryId"`
	TokensBefore     int64  `json:"tokensBefore"`
	CustomType       string `json:"customType"`
}

func BenchmarkReadStdlib(b *testing.B) {
	src := recordedBytes(b)
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		var out []stdEntry
		for _, line := range bytes.Split(src, []byte("\n")) {
			if len(line) == 0 {
				continue
			}
			var e stdEntry
			if err := json.Unmarshal(line, &e); err != nil {
				b.Fatal(err)
			}
			if e.Message != nil && e.Message.Role == "assistant" {
				var blocks []struct{ Type, ID, Name string }
				_ = json.Unmarshal(e.Message.Content, &blocks)
			}
			out = append(out, e)
		}
		_ = out
	}
}
