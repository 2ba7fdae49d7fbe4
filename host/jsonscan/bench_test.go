package jsonscan

import (
	"encoding/json"
	"sort"
	"strings"
	"testing"
	"time"

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
// written; and one Doc pass. The two alternate in blocks of 50 lines,
// and the benchmark reports the median ratio of their times and each
// one's speed.
//
//	go test ./host/jsonscan -run '^$' -bench ToolResult -benchtime 200x -count 5
func BenchmarkToolResult(b *testing.B) {
	line := toolResultLine()
	var sc fastjson.Scanner
	var buf []byte
	viaFastjson := func() {
		sc.InitBytes(line)
		sc.Next()
		v := sc.Value().Get("message", "content").GetArray()[0].Get("text")
		buf = v.MarshalTo(buf[:0])
		if EscapedLen(buf[1:len(buf)-1]) == 0 {
			b.Fatal("no text")
		}
	}
	var d Doc
	viaDoc := func() {
		d.Init(line)
		d.Next()
		for c := range d.Value().Get("message", "content").Elems() {
			if c.Get("text").JSLen() == 0 {
				b.Fatal("no text")
			}
		}
	}
	const block = 50
	timed := func(f func()) time.Duration {
		t := time.Now()
		for range block {
			f()
		}
		return time.Since(t)
	}
	var ratios []float64
	var tf, td time.Duration
	for b.Loop() {
		f, g := timed(viaFastjson), timed(viaDoc)
		tf, td = tf+f, td+g
		ratios = append(ratios, float64(g)/float64(f))
	}
	sort.Float64s(ratios)
	mb := func(t time.Duration) float64 {
		return float64(len(line)) * block * float64(len(ratios)) / t.Seconds() / 1e6
	}
	b.ReportMetric(ratios[len(ratios)/2], "doc/fastjson")
	b.ReportMetric(mb(tf), "MB/s-fastjson")
	b.ReportMetric(mb(td), "MB/s-doc")
}
