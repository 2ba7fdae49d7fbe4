package replay_test

import (
	"bytes"
	"fmt"
	"runtime"
	"testing"

	"github.com/resetpolicy/resetpolicy/host/replay"
	"github.com/resetpolicy/resetpolicy/host/sessionfile"
)

// tinySession is a session of n tiny entries, each with its id, parent
// and time: prompts and answers of a few bytes, tool calls and results,
// extensions' custom entries.
func tinySession(n int) []byte {
	var b bytes.Buffer
	b.WriteString(`{"type":"session","version":3,"id":"tiny","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/p"}` + "\n")
	prev := "null"
	for i := 1; i <= n; i++ {
		id := fmt.Sprintf("%08x", i)
		switch {
		case i%10 == 3:
			// Extensions' state entries, of two types.
			fmt.Fprintf(&b, `{"type":"custom","id":"%s","parentId":%s,"timestamp":"2026-01-01T00:00:01.000Z","customType":"ext-%d/state","data":{"n":%d}}`+"\n", id, prev, i%20/10, i)
		case i%10 == 5:
			fmt.Fprintf(&b, `{"type":"message","id":"%s","parentId":%s,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"toolResult","toolName":"read","content":[{"type":"text","text":"x"}],"timestamp":0}}`+"\n", id, prev)
		case i%2 == 1:
			fmt.Fprintf(&b, `{"type":"message","id":"%s","parentId":%s,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"go","timestamp":0}}`+"\n", id, prev)
		case i%10 == 4:
			fmt.Fprintf(&b, `{"type":"message","id":"%s","parentId":%s,"timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"assistant","content":[{"type":"toolCall","id":"c%d","name":"read","arguments":{"path":"f"}}],"model":"m","stopReason":"toolUse","usage":{"input":%d,"output":1,"cacheRead":0,"cacheWrite":0,"totalTokens":0},"timestamp":0}}`+"\n", id, prev, i, 100+i%1000)
		default:
			fmt.Fprintf(&b, `{"type":"message","id":"%s","parentId":%s,"timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"assistant","content":[{"type":"text","text":"ok"}],"model":"m","stopReason":"stop","usage":{"input":%d,"output":1,"cacheRead":0,"cacheWrite":0,"totalTokens":0},"timestamp":0}}`+"\n", id, prev, 100+i%1000)
		}
		prev = `"` + id + `"`
	}
	return b.Bytes()
}

func liveHeap() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// MaxBytesPerEntry is the memory a replay holds per entry of the session
// it replays (its entries, id index and branch), beyond the text it
// keeps: the README's 2,000,000-entry bound is then at most 512 MB of a
// worker's memory with the heap's growth.
const maxBytesPerEntry = 200

// A session of 200,000 tiny entries, read and replayed, holds at most
// maxBytesPerEntry bytes of live heap per entry.
func TestMemoryPerEntry(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a 200,000-entry session")
	}
	const n = 200_000
	src := tinySession(n)
	rd := sessionfile.NewReader(sessionfile.Options{KeepArgs: map[string]bool{}})
	cfg := config(t, "wipe_memory", nil, 1<<40)
	cfg.Points = false
	rp := replay.New(cfg)
	before := liveHeap()
	f, err := rd.Read(bytes.NewReader(src), "tiny")
	if err != nil {
		t.Fatal(err)
	}
	rep, err := rp.Replay(f, "")
	if err != nil {
		t.Fatal(err)
	}
	after := liveHeap()
	runtime.KeepAlive(src)
	per := float64(after-before) / n
	t.Logf("%d entries: %.0f bytes of live heap per entry (%d turns)", f.Len(), per, rep.Turns)
	if f.Len() != n || rep.Turns < n/3 {
		t.Fatalf("%d entries, %d turns", f.Len(), rep.Turns)
	}
	if per > maxBytesPerEntry {
		t.Errorf("%.0f bytes per entry, over the %d-byte bound", per, maxBytesPerEntry)
	}
	runtime.KeepAlive(f)
	runtime.KeepAlive(rep)
}
