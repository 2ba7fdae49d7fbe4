package sim_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/resetpolicy/resetpolicy/host/session"
	"github.com/resetpolicy/resetpolicy/host/sim"
)

// Seed 002 (autocompacter): the checkpoint lifecycle (request, checkpoint,
// resume), automatic force, and errors (failure, retry, pause).

// checkpoints lists the summarising checkpoints on the branch.
func checkpoints(r *sim.Result) []*session.Entry {
	var out []*session.Entry
	for _, e := range r.Session.Path() {
		if e.Type() == session.TypeCompaction && session.IsSelfRetaining(e) && !session.IsTrustedCheckpoint(e) {
			out = append(out, e)
		}
	}
	return out
}

// "1. The agent calls self-compact, or the user runs /autocompacter. 2. The
// extension stores one request. A second request does not replace it. 3. Pi
// finishes the current assistant turn and its tool calls. 4. The extension
// summarizes the complete context preview. This preview includes the turn's
// tool results. 5. The extension adds a self-retaining Pi compaction entry.
// 6. A requested checkpoint starts the next model turn. The agent resumes
// from the summary."
func TestSeed002_RequestCheckpointResume(t *testing.T) {
	r := run(t, "autocompacter_request")
	if len(fired(r, "self_compact_stores_request")) != 1 || len(fired(r, "self_compact_second_request_keeps_first")) != 1 {
		t.Error("one request is stored; the second does not replace it")
	}
	cp := fired(r, "requested_checkpoint_after_turn_and_tool_calls")
	if len(cp) != 1 || cp[0].Label() != "turn_end(completed, 2 tools)" || effects(cp[0]) != `{"effect":"checkpoint","continue":true,"attempt":1}` {
		t.Fatalf("the checkpoint comes at the end of the turn and its tool calls: %v", cp)
	}
	// The checkpoint comes after the turn's tool results.
	d := describe(cp[0].Entries)
	if strings.Join(d, ",") != "toolResult(self-compact),compaction(checkpoint)" {
		t.Errorf("turn_end entries %v", d)
	}
	cps := checkpoints(r)
	if len(cps) != 2 {
		t.Fatalf("%d checkpoints, want the requested one and /autocompacter's", len(cps))
	}
	if !strings.Contains(cps[0].Summary(), "retry middleware") {
		t.Errorf("the summary covers the context: %q", cps[0].Summary())
	}
	// Resume from the summary: the next request's context is the prompt
	// head and the summary, then the new answer.
	next := r.Lines[index(r, cp[0])+2]
	if next.Event != "request" || next.Tokens > 1000 {
		t.Errorf("the next turn resumes from the summary: %s", next)
	}
	path := r.Session.Path()
	var upTo []*session.Entry
	for _, e := range path {
		upTo = append(upTo, e)
		if e.ID() == cps[0].ID() {
			break
		}
	}
	if roles := strings.Join(session.Canonical(upTo).Roles(), ","); roles != "system,compactionSummary" {
		t.Errorf("the context after the checkpoint is %s", roles)
	}
	// Inside the cooldown /autocompacter is answered and dropped; after it,
	// /autocompacter while idle checkpoints at once and resumes.
	cmds := on(r, "command")
	if len(cmds) != 2 || !cmds[0].Fired("autocompacter_inside_cooldown_dropped") || len(cmds[0].Entries) != 0 {
		t.Fatalf("/autocompacter inside the cooldown: %v", cmds)
	}
	cmd := cmds[1]
	if !cmd.Fired("autocompacter_when_idle_checkpoints_now") || len(cmd.Entries) != 1 {
		t.Errorf("/autocompacter: %s", cmd)
	}
	if next := r.Lines[index(r, cmd)+2]; next.Event != "request" {
		t.Errorf("the command's checkpoint starts the next turn: %s", next)
	}
}

// "The extension checks estimated token use at each completed turn. It
// compacts at the active force limit. A turn with tool results or pending
// messages continues after compaction. A completed response without pending
// work does not create an extra model turn." "The extension waits 10 seconds
// after a checkpoint. This cooldown prevents repeated requests without new
// work." "Notice and warning messages start a model turn. The
// extension sends each level once per cycle." "The active force limit is
// the smallest of ... 80% of the model context window."
func TestSeed002_Force(t *testing.T) {
	r := run(t, "autocompacter_force")
	first := r.Lines[0]
	derived := map[string]string{}
	for _, v := range first.Derived {
		derived[v.Name] = v.Text
	}
	if derived["active_force"] != "160000" || derived["active_warning"] != "130370" || derived["active_notice"] != "106666" {
		t.Errorf("thresholds for a 200000 window: %v", derived)
	}
	notice, warning := fired(r, "notice_once_per_cycle"), fired(r, "warning_once_per_cycle")
	if len(notice) != 1 || notice[0].Tokens < 106666 || effects(notice[0]) != `{"effect":"inject","message":"notice","deliver":"turn"}` {
		t.Errorf("one notice per cycle at the notice level: %v", notice)
	}
	if len(warning) != 1 || warning[0].Tokens < 130370 {
		t.Errorf("one warning in the first cycle (the later ones end at the force first): %v", warning)
	}
	force := fired(r, "force_checkpoint_at_active_limit")
	if len(force) != 3 {
		t.Fatalf("%d forced checkpoints, want 3", len(force))
	}
	if force[0].Tokens < 160000 || effects(force[0]) != `{"effect":"checkpoint","continue":true,"attempt":1}` {
		t.Errorf("a turn with tool results continues after the checkpoint: %s", force[0])
	}
	if next := r.Lines[index(r, force[0])+2]; next.Event != "request" {
		t.Errorf("it continues: %s", next)
	}
	// Inside the 10 s, the resumed turn's edit was new work: it ended the
	// cooldown, and the force checkpoints the context that is past the limit
	// again.
	if nw := fired(r, "turn_with_tool_results_is_new_work"); len(nw) == 0 || index(r, nw[0]) > index(r, force[1]) {
		t.Errorf("new work before the second force")
	}
	if effects(force[1]) != `{"effect":"checkpoint","continue":true,"attempt":2}` {
		t.Errorf("the force inside the 10 s after new work: %s", force[1])
	}
	if effects(force[2]) != `{"effect":"checkpoint","continue":false,"attempt":3}` || force[2].Label() != "turn_end(completed, 0 tools)" {
		t.Errorf("a completed response without pending work: no continuation: %s", force[2])
	}
	if rest := r.Lines[index(r, force[2])+1:]; rest[1].Event != "agent_end" {
		t.Errorf("no extra model turn after the last checkpoint: %s", rest[1])
	}
	if n := len(checkpoints(r)); n != 3 {
		t.Errorf("%d checkpoints", n)
	}
}

// "A summary error leaves the session context unchanged. The extension adds
// a visible error message. Requested work and turns with pending work can
// continue from the original context." "Retry delays are 5, 10, and 20
// seconds. The delay applies when a later turn reaches its boundary."
// "Three failures pause automatic attempts. /autocompacter clears the
// failure state and tries again."
func TestSeed002_FailureRetryPause(t *testing.T) {
	r := run(t, "autocompacter_failures")
	fails := on(r, "summary_done")
	if len(fails) != 4 {
		t.Fatalf("%d summaries, want 3 failures and the success", len(fails))
	}
	for k, l := range fails[:3] {
		if l.Label() != `summary_done(failed, "model overloaded")` || len(l.Entries) != 0 {
			t.Errorf("failure %d: %s", k+1, l)
		}
		if !l.Fired("failed_summary_continues_pending_work") {
			t.Errorf("failure %d: a turn with pending work continues from the original context", k+1)
		}
	}
	if !fails[2].Fired("summary_error_pauses_after_failure_limit") {
		t.Errorf("the third failure pauses: %s", fails[2])
	}
	// Each forced attempt waits the retry delay of the failures before it,
	// checked at a turn boundary: at 0 s, then 5 s, then 5+10 s.
	var tried []string
	for _, l := range fired(r, "force_checkpoint_at_active_limit") {
		tried = append(tried, fmt.Sprint(l.Now))
	}
	if strings.Join(tried, ",") != "0,5000,15000" {
		t.Fatalf("forced attempts at %v ms, want 0,5000,15000", tried)
	}
	early := on(r, "turn_end")[1]
	if early.Now != 0 || early.Fired("force_checkpoint_at_active_limit") || early.Tokens < 160000 {
		t.Errorf("the boundary before the first delay has passed must not retry: %s", early)
	}
	errs := 0
	for _, n := range r.Notices {
		if n.Level == "error" {
			errs++
		}
	}
	if errs != 3 || !strings.Contains(r.Notices[2].Text, "paused") {
		t.Errorf("a visible error each time, the last one saying paused: %v", r.Notices)
	}
	// Paused: a later boundary past every delay does not force.
	last := on(r, "turn_end")
	if l := last[len(last)-2]; l.Tokens < 160000 || len(l.Effects) != 0 {
		t.Errorf("paused: %s", l)
	}
	if n := len(checkpoints(r)); n != 1 {
		t.Errorf("%d checkpoints; failures leave the context unchanged", n)
	}
	cmd := on(r, "command")[0]
	if !cmd.Fired("autocompacter_clears_failure_state") || !cmd.Fired("autocompacter_when_idle_checkpoints_now") {
		t.Errorf("/autocompacter clears the failures and tries again: %s", cmd)
	}
	if !fails[3].Fired("checkpoint_saved_starts_new_cycle") {
		t.Errorf("the retry succeeds: %s", fails[3])
	}
}

// "The active force limit is the smallest of these values: The saved force
// limit. 270,000 tokens. 80% of the model context window. Notice and warning
// scale by the same ratio as force." "A model change resets threshold
// notices." "Nonterminal use: ... The setup wizard needs a dialog-capable
// UI. In other modes, use the set or reset command form."
func TestSeed002_SavedLimitsModelChangeAndReset(t *testing.T) {
	r := run(t, "autocompacter_settings")
	var saved []string
	for _, p := range r.Params {
		if p.Cleared {
			saved = append(saved, "clear "+p.Name)
		} else {
			saved = append(saved, fmt.Sprintf("save %s=%v", p.Name, p.Value))
		}
	}
	want := "save notice_limit=100000,save warning_limit=140000,save force_limit=150000,clear notice_limit,clear warning_limit,clear force_limit," +
		"save notice_limit=120000,save warning_limit=160000,save force_limit=200000"
	if strings.Join(saved, ",") != want {
		t.Errorf("params:\n got %v\nwant %s", saved, want)
	}
	if rej := fired(r, "set_limit_rejected"); len(rej) != 1 || len(rej[0].Effects) != 1 {
		t.Errorf("an out-of-order limit is rejected without saving: %v", rej)
	}
	derivedAt := func(l *sim.Line) map[string]string {
		m := map[string]string{}
		for _, v := range l.Derived {
			m[v.Name] = v.Text
		}
		return m
	}
	// Without dialogs, setup explains the command forms.
	if setup := on(r, "command")[0]; !setup.Fired("setup_without_dialog_explains_set_and_reset") {
		t.Errorf("setup without a dialog: %s", setup)
	}
	// The saved limits are in force from the next event on.
	if d := derivedAt(on(r, "command")[4]); d["active_force"] != "150000" || d["active_warning"] != "140000" || d["active_notice"] != "100000" {
		t.Errorf("saved limits in force: %v", d)
	}
	ms := on(r, "model_select")
	if len(ms) != 1 || !ms[0].Fired("model_change_resets_threshold_notices") {
		t.Fatalf("model change: %v", ms)
	}
	if d := derivedAt(ms[0]); d["active_force"] != "120000" || d["active_warning"] != "112000" || d["active_notice"] != "80000" {
		t.Errorf("80%% of a 150000 window, levels scaled alike: %v", d)
	}
	if n := fired(r, "notice_once_per_cycle"); len(n) != 2 || index(r, n[1]) < index(r, ms[0]) {
		t.Errorf("the notice goes out again after the model change: %v", n)
	}
}

// The user's /compact [instructions] is Pi's own compaction while
// autocompacter is on (the policy's reading of seed 002 beside Pi's
// compaction): no checkpoint answers it, and Pi writes its own summary,
// which keeps the recent part.
func TestSeed002_UserCompactIsPis(t *testing.T) {
	sc := parse(t, `
scenario "The user compacts; Pi's compaction runs" {
  policy = "autocompacter"
}

user "Implement the retry middleware." {}

assistant {
  text   = "Middleware written."
  tokens = 60000
}

compact {}
`)
	r := runScenario(t, sc, sim.Options{})
	if len(fired(r, "threshold_compaction_at_force_limit_writes_the_checkpoint")) != 0 || len(checkpoints(r)) != 0 {
		t.Fatalf("the user's /compact became a checkpoint:\n%s", timeline(r))
	}
	n := 0
	for _, e := range r.Session.Path() {
		if e.Type() == session.TypeCompaction {
			n++
		}
	}
	if n != 1 {
		t.Errorf("%d compactions; want Pi's one:\n%s", n, timeline(r))
	}
}
