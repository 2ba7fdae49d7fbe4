package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/resetpolicy/resetpolicy/engine"
)

// BenchmarkEval1M is eval's whole stream path — read a line, decode the
// event, decide, write the decision line — over a file of 1,000,000
// events, generated here (not committed) by repeating a recorded stream.
// One op is the whole file; events/s is the figure to read. Run it on one
// core, beside the map-based decoding it replaced:
//
//	go test -run '^$' -bench Eval1M -benchtime 1x -count 5 -cpu 1 ./cmd/resetpolicy
func BenchmarkEval1M(b *testing.B) {
	const events = 1_000_000
	for _, c := range []struct{ name, stream string }{
		// The recorded wipe_memory stream (a few facts per line).
		{"recorded", "testdata/eval/wipe_memory.jsonl"},
		// Every common fact on every line, as the Pi extension sends.
		{"all-facts", ""},
	} {
		path := genEvents(b, c.stream, events)
		p, diags := loadPolicy("wipe_memory", nil)
		if diags.HasErrors() {
			b.Fatal(diags.Error())
		}
		e := engine.New(p)
		run := func(b *testing.B, eval func(io.Reader, io.Writer, *engine.Session) error) {
			cpu0 := cpuTime()
			for i := 0; i < b.N; i++ {
				f, err := os.Open(path)
				if err != nil {
					b.Fatal(err)
				}
				if err := eval(f, io.Discard, e.NewSession()); err != nil {
					b.Fatal(err)
				}
				f.Close()
			}
			b.ReportMetric(float64(events)*float64(b.N)/b.Elapsed().Seconds(), "events/s")
			// On a shared machine the wall clock counts other processes'
			// turns too; the process's own CPU time does not.
			b.ReportMetric(float64(events)*float64(b.N)/(cpuTime()-cpu0).Seconds(), "events/cpu-s")
		}
		b.Run(c.name+"/decoder", func(b *testing.B) {
			run(b, func(r io.Reader, w io.Writer, s *engine.Session) error { return evalStream(r, w, s, false) })
		})
		b.Run(c.name+"/map", func(b *testing.B) { run(b, evalStreamMap) })
	}
}

// evalStreamMap is evalStream with the event read as the engine read it
// before its Decoder: encoding/json into a map, then NewEvent.
func evalStreamMap(in io.Reader, out io.Writer, s *engine.Session) error {
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 64*1024), maxLine)
	w := bufio.NewWriterSize(out, 64*1024)
	defer w.Flush()
	var buf []byte
	for sc.Scan() {
		dec := json.NewDecoder(bytes.NewReader(sc.Bytes()))
		dec.UseNumber()
		var m map[string]any
		if err := dec.Decode(&m); err != nil {
			return err
		}
		ev, err := engine.NewEvent(m)
		if err != nil {
			return err
		}
		d, err := s.Decide(ev)
		if err != nil {
			return err
		}
		buf = appendDecision(buf[:0], d, s, nil)
		w.Write(buf)
	}
	return sc.Err()
}

// genEvents writes n event lines to a temporary file: the stream's lines
// over and over, or, for "", request/turn_end/tool lines carrying every
// common fact.
func genEvents(b *testing.B, stream string, n int) string {
	b.Helper()
	var lines []string
	if stream != "" {
		src, err := os.ReadFile(stream)
		if err != nil {
			b.Fatal(err)
		}
		for _, l := range strings.Split(string(src), "\n") {
			if strings.TrimSpace(l) != "" {
				lines = append(lines, l)
			}
		}
	} else {
		facts := `"window_id":"w-3f2a9c1d","now_ms":1767312000000,"enabled":true,"auto_reset":true,"auto_compaction":true,"tokens":152340,"context_window":200000,"reserve":16384,"idle":false,"queued":false`
		lines = []string{
			`{"event":"request",` + facts + `}`,
			`{"event":"turn_end",` + facts + `,"outcome":"completed","error":"","synthetic_abort":false,"tool_results":2}`,
			`{"event":"tool",` + facts + `,"name":"wipe_memory","args":{}}`,
			`{"event":"turn_end",` + facts + `,"outcome":"completed","error":"","synthetic_abort":false,"tool_results":1}`,
		}
	}
	path := filepath.Join(b.TempDir(), "events.jsonl")
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriter(f)
	for i := 0; i < n; i++ {
		w.WriteString(lines[i%len(lines)])
		w.WriteByte('\n')
	}
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	f.Close()
	return path
}
