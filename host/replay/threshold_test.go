package replay_test

import (
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/resetpolicy/resetpolicy/engine"
	"github.com/resetpolicy/resetpolicy/host/replay"
	"github.com/resetpolicy/resetpolicy/host/report/reporttest"
	"github.com/resetpolicy/resetpolicy/rules"
)

// checkpointOnce summarises the window once, early, and leaves Pi's own
// compactions alone: the replay leaves the record and Pi's threshold
// compaction then acts on the projected window.
const checkpointOnce = `
policy "checkpoint_once" {}
slot "done" {
  type = bool
}
group "g" {
  rule "checkpoint_early" {
    kind = checkpoint
    on   = "request"
    when = "!state.done && event.tokens > 5000"
    set  = { done = "true" }
    effect "checkpoint" {
      continue = false
    }
  }
}
`

// After Pi's threshold compaction of a projected window, the window holds
// the kept recent tokens plus the boot text (system prompt, tools, first
// prompt), as after every compaction: with nothing kept, the next request
// is the boot text plus that turn's growth, never the growth alone.
func TestThresholdCompactionKeepsTheBootText(t *testing.T) {
	f := filepath.Join(t.TempDir(), "s.jsonl")
	if err := reporttest.Session(f, rand.New(rand.NewPCG(9, 9)), 120, 300); err != nil {
		t.Fatal(err)
	}
	p, diags := rules.Load(rules.Source{Name: "checkpoint_once.hcl", Bytes: []byte(checkpointOnce)})
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	s := replay.DefaultSettings()
	s.ContextWindow, s.Reserve, s.KeepRecent = 20000, 4000, 0
	r := replayFile(t, replay.Config{Engine: engine.New(p), Settings: s, Points: true}, f, "")
	if r.ProjectedCompactions == 0 || r.DivergedAt == 0 {
		t.Fatalf("%d projected compactions, diverged at %d: the session tests nothing", r.ProjectedCompactions, r.DivergedAt)
	}
	boot := r.Points[0].Measured
	if boot < 1000 {
		t.Fatalf("boot text of %d tokens", boot)
	}
	drops := 0
	for i := 1; i < len(r.Points); i++ {
		prev, cur := r.Points[i-1], r.Points[i]
		if !cur.Projected() || cur.Tokens >= prev.Tokens || cur.Turn <= r.DivergedAt+1 {
			continue
		}
		drops++
		if cur.Tokens < boot {
			t.Errorf("turn %d: %d tokens after Pi's compaction, less than the %d-token boot text", cur.Turn, cur.Tokens, boot)
		}
	}
	if drops == 0 {
		t.Error("no projected compaction shows in the series")
	}
}
