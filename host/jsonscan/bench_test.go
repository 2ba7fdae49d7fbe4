package jsonscan

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/valyala/fastjson"
)

// toolResultLine is a tool result as Pi writes one: code, with the
// escapes and the few wide characters code has, 4 KB of it.
func toolResultLine() []byte {
	line := "\tif err := load(\"config.yaml\"); err != nil { return fmt.Errorf(\"loader: %w\", err) } // déjà vu\n"
	body, _ := json.Marshal(strings.Repeat(line, 4096/len(line)))
	return []byte(`{"type":"message","id":"0000a1b2","parentId":"0000a1b1","timestamp":"2026-01-01T00:01:02.000Z","message":{"role":"toolResult","toolCallId":"toolu_1","toolName":"read","content":[{"type":"text","text":` + string(body) + `}],"isError":false,"timestamp":0}}`)
}

// BenchmarkToolResult compares the two ways to the length of a tool
// result's text: fastjson's scan, then EscapedLen of the text as
// written; and one Doc pass.
//
//	go test ./host/jsonscan -run '^$' -bench ToolResult -count 5
func BenchmarkToolResult(b *testing.B) {
	line := toolResultLine()
	b.Run("fastjson+EscapedLen", func(b *testing.B) {
		var sc fastjson.Scanner
		var buf []byte
		b.SetBytes(int64(len(line)))
		for b.Loop() {
			sc.InitBytes(line)
			sc.Next()
			v := sc.Value().Get("message", "content").GetArray()[0].Get("text")
			buf = v.MarshalTo(buf[:0])
			if EscapedLen(buf[1:len(buf)-1]) == 0 {
				b.Fatal("no text")
			}
		}
	})
	b.Run("doc", func(b *testing.B) {
		var d Doc
		b.SetBytes(int64(len(line)))
		for b.Loop() {
			d.Init(line)
			d.Next()
			for c := range d.Value().Get("message", "content").Elems() {
				if c.Get("text").JSLen() == 0 {
					b.Fatal("no text")
				}
			}
		}
	})
}
