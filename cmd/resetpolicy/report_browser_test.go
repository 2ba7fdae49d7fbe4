package main

import (
	"bytes"
	"context"
	"fmt"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// chromium finds Debian's Chromium (.ci/run installs it). Without it the
// browser tests skip with a line saying how to run them, and fail under
// CI=true, like the Pi end-to-end tests.
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	msg := "the report's browser tests need Chromium: apt-get install chromium (as .ci/run does), then go test ./cmd/resetpolicy -run Browser"
	if os.Getenv("CI") == "true" {
		t.Fatal(msg)
	}
	fmt.Fprintln(os.Stderr, "SKIP:", msg)
	t.Skip(msg)
	return ""
}

// browser starts headless Chromium with the flags this machine's closed
// network needs and collects the page's console errors and exceptions.
func browser(t *testing.T) (context.Context, func() []string) {
	exe := chromium(t)
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(exe), chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.Flag("disable-quic", true), chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true), chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(t.TempDir()), chromedp.WindowSize(1300, 1000))
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelCtx := chromedp.NewContext(actx)
	ctx, cancelTime := context.WithTimeout(ctx, 90*time.Second)
	t.Cleanup(func() { cancelTime(); cancelCtx(); cancelAlloc() })
	var mu sync.Mutex
	var problems []string
	listen := func(ev any) {
		mu.Lock()
		defer mu.Unlock()
		switch ev := ev.(type) {
		case *runtime.EventExceptionThrown:
			d := ev.ExceptionDetails
			msg := d.Text
			if d.Exception != nil {
				msg += " " + d.Exception.Description
			}
			problems = append(problems, fmt.Sprintf("exception at %d:%d: %s", d.LineNumber+1, d.ColumnNumber+1, msg))
		case *runtime.EventConsoleAPICalled:
			if ev.Type == runtime.ConsoleAPICalledTypeError || ev.Type == runtime.ConsoleAPICalledTypeWarning {
				var args []string
				for _, a := range ev.Args {
					args = append(args, string(a.Value)+a.Description)
				}
				problems = append(problems, "console "+string(ev.Type)+": "+strings.Join(args, " "))
			}
		}
	}
	if err := chromedp.Listen(ctx, listen); err != nil {
		t.Fatalf("starting Chromium: %v", err)
	}
	return ctx, func() []string { mu.Lock(); defer mu.Unlock(); return append([]string(nil), problems...) }
}

// TestReportInBrowser opens a fixture report comparing two settings in
// headless Chromium and uses it as a reader would: every section shows the
// document's figures, the chart opened first is the session the settings
// differ most on, the session table has each setting's columns, a click
// on a session opens its chart, its marks are those of the declared
// decision kinds of both settings, a hover on a mark names its kind and
// rules, a click on a diagram's state names a rule, and no section
// screenshots blank.
func TestReportInBrowser(t *testing.T) {
	ctx, problems := browser(t)
	sessions := fixtureCorpus(t, 9)
	out := filepath.Join(t.TempDir(), "report.html")
	if _, stderr, code := runCLI(t, "", "report", "wipe_memory", "--sessions", sessions, "--compare", "warning_runway=12288,20000", "-o", out); code != 0 {
		t.Fatalf("report: exit %d: %s", code, stderr)
	}
	_, doc := pageData(t, out)
	tests := doc["tests"].(map[string]any)
	wantTests := fmt.Sprintf("%.0f/%.0f", tests["passed"], tests["passed"].(float64)+tests["failed"].(float64))
	replaySec := doc["replay"].(map[string]any)
	rows := replaySec["sessions"].([]any)
	second := rows[1].(map[string]any)
	secondName := second["file"].(string)
	firstChart := int(replaySec["first_chart"].(float64))
	// The session the settings differ most on is the one opened first.
	most := 0
	for i, r := range rows {
		if r.(map[string]any)["differ"].(float64) > rows[most].(map[string]any)["differ"].(float64) {
			most = i
		}
	}
	if firstChart != most || rows[most].(map[string]any)["differ"].(float64) == 0 {
		t.Errorf("first chart is row %d; the settings differ most on row %d", firstChart, most)
	}

	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	text := func(sel string) string {
		t.Helper()
		s, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(sel)))
		must(err)
		return s
	}
	must(chromedp.Do(ctx, chromedp.Navigate("file://"+out), chromedp.WaitVisible(chromedp.CSS("#session-table"))))
	if got := text("#title"); got != "resetpolicy report: wipe_memory" {
		t.Errorf("title %q", got)
	}
	if got := text("#nav-proof"); got != "holds" {
		t.Errorf("proof badge %q, want holds", got)
	}
	if got := text("#nav-tests"); got != wantTests {
		t.Errorf("tests badge %q, want %q", got, wantTests)
	}
	policyText := text("#policy")
	for _, want := range []string{"warning_runway", "12288", "wipe_memory", "/wipe-memory", "checkpoint_warning"} {
		if !strings.Contains(policyText, want) {
			t.Errorf("the policy section lacks %q", want)
		}
	}
	if got := text("#proof"); !strings.Contains(got, "every property holds") || !strings.Contains(got, "What was explored") {
		t.Errorf("the proof section lacks its result:\n%.300s", got)
	}
	if got := text("#proof"); !strings.Contains(got, "only (resetpolicy verify --params range explores each over the range its validation allows)") {
		t.Errorf("the proof section does not say it covers the param values in force only:\n%.600s", got)
	}
	if got := text("#sessions"); !strings.Contains(got, "sessions warned") || !strings.Contains(got, "9 with a chart") {
		t.Errorf("the sessions section lacks its figures:\n%.400s", got)
	}

	// On opening, the chart shown is the most different session's, and
	// the table has a group of columns per setting.
	if got, want := text("#session-chart h3"), rows[firstChart].(map[string]any)["file"].(string); !strings.HasSuffix(want, "/"+got) {
		t.Errorf("the chart opened first is %q, want %q", got, want)
	}
	head := text("#session-table tr:first-child")
	if !strings.Contains(head, "warning_runway=12288") || !strings.Contains(head, "warning_runway=20000") {
		t.Errorf("the session table's head %q lacks a setting", head)
	}
	cells, err := chromedp.Run(ctx, chromedp.Evaluate[[]int](`[0, 1].map((k) => document.querySelectorAll('#session-table tr.session td[data-s="' + k + '"]').length)`))
	must(err)
	if len(cells) != 2 || cells[0] == 0 || cells[0] != cells[1] {
		t.Errorf("per-setting cells %v: want as many for each setting", cells)
	}
	// Both settings' marks are on the chart, each of a declared kind.
	marks, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll('#session-chart .decision')].map((g) => g.dataset.s + " " + g.getAttribute("class"))`))
	must(err)
	seen := map[string]bool{}
	for _, m := range marks {
		seen[strings.Fields(m)[0]] = true
		if !strings.Contains(m, "decision k-") {
			t.Errorf("a mark of no kind: %q", m)
		}
	}
	if !seen["0"] || !seen["1"] {
		t.Errorf("marks %v: want both settings'", marks)
	}

	// A click on the second session opens its chart.
	must(chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`#session-table tr.session[data-i="1"]`))))
	if got := text("#session-chart h3"); !strings.HasSuffix(secondName, "/"+got) {
		t.Errorf("chart opened %q, want %q", got, secondName)
	}

	// Back to the first chart; hovering a mark names its kind and rule.
	must(chromedp.Do(ctx, chromedp.Click(chromedp.CSS(fmt.Sprintf(`#session-table tr.session[data-i="%d"]`, firstChart)))))
	sd, err := chromedp.Run(ctx, chromedp.Evaluate[[]int](`(() => { const g = document.querySelector('#session-chart .decision.k-warning'); return [Number(g.dataset.s), Number(g.dataset.d)]; })()`))
	must(err)
	marker := fmt.Sprintf(`#session-chart .decision[data-s="%d"][data-d="%d"]`, sd[0], sd[1])
	firstRep := rows[firstChart].(map[string]any)["reports"].([]any)[sd[0]].(map[string]any)
	firstDecision := firstRep["decisions"].([]any)[sd[1]].(map[string]any)
	firstRule := firstDecision["rules"].([]any)[0].(string)
	must(chromedp.Do(ctx, chromedp.ScrollIntoView(chromedp.CSS(marker))))
	xy, err := chromedp.Run(ctx, chromedp.Evaluate[[]float64](`(() => { const r = document.querySelector('`+marker+`').getBoundingClientRect(); return [r.x + r.width/2, r.y + r.height/2]; })()`))
	must(err)
	must(chromedp.Do(ctx, chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, xy[0], xy[1]), chromedp.WaitVisible(chromedp.ID("tooltip"))))
	if tip := text("#tooltip"); !strings.Contains(tip, firstRule) || !strings.Contains(tip, firstDecision["event"].(string)) || !strings.Contains(tip, "warning") {
		t.Errorf("tooltip %q does not name the decision's rule %q", tip, firstRule)
	}

	// A click on the first diagram's first state shows its rules.
	must(chromedp.Do(ctx, chromedp.ScrollIntoView(chromedp.CSS("#diagram-0 g.state")), chromedp.Click(chromedp.CSS("#diagram-0 g.state"))))
	if box := text("#rulebox-0"); !strings.Contains(box, "state ") || !strings.Contains(box, "when ") {
		t.Errorf("diagram click shows %q: want the state and a rule with its guard", box)
	}

	// No section screenshots blank.
	for _, sec := range []string{"policy", "diagram", "proof", "tests", "sessions"} {
		shot, err := chromedp.Run(ctx, chromedp.Screenshot(chromedp.ID(sec)))
		must(err)
		if ink := inkShare(t, shot); ink < 0.01 {
			t.Errorf("section %s screenshots nearly blank: %.2f%% ink", sec, 100*ink)
		}
	}
	if *update {
		_, err = chromedp.Run(ctx, chromedp.Evaluate[bool](`document.getElementById("session-chart").scrollIntoView() === undefined`))
		must(err)
		shot, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
		must(err)
		must(os.WriteFile(filepath.Join("docs", "report.png"), shot, 0o644))
	}
	if dir := os.Getenv("REPORT_SHOTS"); dir != "" {
		// For a person to look at: the chart and table as a reader sees them.
		must(chromedp.Do(ctx, chromedp.Click(chromedp.CSS(fmt.Sprintf(`#session-table tr.session[data-i="%d"]`, firstChart)))))
		shot, err := chromedp.Run(ctx, chromedp.Screenshot(chromedp.ID("session-chart")))
		must(err)
		must(os.WriteFile(filepath.Join(dir, "chart.png"), shot, 0o644))
		shot, err = chromedp.Run(ctx, chromedp.Screenshot(chromedp.ID("session-table")))
		must(err)
		must(os.WriteFile(filepath.Join(dir, "table.png"), shot, 0o644))
	}
	if p := problems(); len(p) > 0 {
		t.Errorf("the page logged problems:\n%s", strings.Join(p, "\n"))
	}
}

// inkShare is the share of a screenshot's pixels that are not near white.
func inkShare(t *testing.T, shot []byte) float64 {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(shot))
	if err != nil {
		t.Fatal(err)
	}
	b := img.Bounds()
	ink := 0
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			if r+g+bl < 3*0xe800 {
				ink++
			}
		}
	}
	return float64(ink) / float64(max(1, b.Dx()*b.Dy()))
}
