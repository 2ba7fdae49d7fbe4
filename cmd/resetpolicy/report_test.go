package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/resetpolicy/resetpolicy/host/report"
	"github.com/resetpolicy/resetpolicy/host/report/reporttest"
)

// pageData reads back the JSON document a report page embeds.
func pageData(t *testing.T, path string) (page string, doc map[string]any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	page = string(b)
	m := regexp.MustCompile(`(?s)<script type="application/json" id="report-data">(.*?)</script>`).FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("%s embeds no report data", path)
	}
	if err := json.Unmarshal([]byte(m[1]), &doc); err != nil {
		t.Fatalf("report data: %v", err)
	}
	return page, doc
}

// fixtureCorpus writes the generated sessions the report tests read.
func fixtureCorpus(t *testing.T, n int) string {
	t.Helper()
	dir := t.TempDir()
	if err := reporttest.Corpus(dir, n, 1); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestReportSections(t *testing.T) {
	sessions := fixtureCorpus(t, 9)
	out := filepath.Join(t.TempDir(), "r.html")
	stdout, stderr, code := runCLI(t, "", "report", "wipe_memory", "--sessions", sessions, "-o", out)
	if code != 0 {
		t.Fatalf("report: exit %d\n%s%s", code, stdout, stderr)
	}
	if !strings.Contains(stdout, "report written to "+out) {
		t.Errorf("stdout %q does not name the page", stdout)
	}
	page, doc := pageData(t, out)
	// XML namespaces are the only addresses a page may name: identifiers,
	// never fetched.
	bare := strings.NewReplacer("http://www.w3.org/2000/svg", "", "http://www.w3.org/1999/xlink", "").Replace(page)
	for _, bad := range []string{"http://", "https://", "<link", "<script src", "<img", "@import", "url("} {
		if strings.Contains(bare, bad) {
			t.Errorf("the page holds %q: it must load nothing", bad)
		}
	}

	header := doc["header"].(map[string]any)
	if header["version"] == "" || header["generated"] == "" || !strings.Contains(strings.Join(anyStrings(header["inputs"]), " "), sessions) {
		t.Errorf("header %v: want version, time and the session path among the inputs", header)
	}
	pol := doc["policy"].(map[string]any)
	summary := pol["summary"].(map[string]any)
	if summary["name"] != "wipe_memory" || len(summary["params"].([]any)) != 3 {
		t.Errorf("policy summary %v", summary)
	}
	if n := len(pol["tools"].([]any)); n != 1 {
		t.Errorf("tools: %d, want wipe_memory's one", n)
	}
	ds := doc["diagrams"].([]any)
	if len(ds) < 2 {
		t.Fatalf("%d diagrams, want one per enum slot", len(ds))
	}
	for _, d := range ds {
		d := d.(map[string]any)
		if !strings.HasPrefix(d["svg"].(string), "<svg") || len(d["edges"].([]any)) == 0 || strings.Contains(d["svg"].(string), `id="d0-`) {
			t.Errorf("diagram %v: want an svg element with ids of its own, and its edges", d["title"])
		}
	}
	v := doc["verify"].(map[string]any)
	if findings, _ := v["findings"].([]any); v["policy"] != "wipe_memory" || len(v["holds"].([]any)) == 0 || len(findings) != 0 {
		t.Errorf("verify section: %v", v["holds"])
	}
	tests := doc["tests"].(map[string]any)
	if tests["passed"].(float64) < 50 || tests["failed"].(float64) != 0 {
		t.Errorf("tests: %v passed, %v failed", tests["passed"], tests["failed"])
	}
	cov := tests["coverage"].([]any)[0].(map[string]any)
	if cov["fired"] != cov["rules"] {
		t.Errorf("coverage %v", cov)
	}
	rep := doc["replay"].(map[string]any)
	corpus := rep["corpus"].([]any)[0].(map[string]any)
	if corpus["sessions"].(float64) != 9 || corpus["resets"].(float64) == 0 || corpus["sessions_warned"].(float64) == 0 {
		t.Errorf("corpus %v", corpus)
	}
	if corpus["least_runway_at_warning"] == nil {
		t.Error("no runway distribution although sessions were warned")
	}
	rows := rep["sessions"].([]any)
	if len(rows) != 9 || rep["charted"].(float64) != 9 {
		t.Fatalf("%d sessions listed, %v charted: want 9 and 9", len(rows), rep["charted"])
	}
	first := rows[0].(map[string]any)
	if !strings.HasPrefix(first["chart"].(string), "<svg") || len(first["reports"].([]any)) != 1 {
		t.Errorf("first session: want a chart and its report")
	}
	if len(rep["caveats"].([]any)) == 0 {
		t.Error("warned sessions, and no word that a replay cannot show the agent obeying a warning")
	}
}

func TestReportCompare(t *testing.T) {
	sessions := fixtureCorpus(t, 3)
	out := filepath.Join(t.TempDir(), "r.html")
	if _, stderr, code := runCLI(t, "", "report", "wipe_memory", "--no-verify", "--sessions", sessions,
		"--compare", "warning_runway=8192,20000", "-o", out); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	_, doc := pageData(t, out)
	rep := doc["replay"].(map[string]any)
	if got := anyStrings(rep["settings"]); strings.Join(got, ",") != "warning_runway=8192,warning_runway=20000" {
		t.Errorf("settings %v", got)
	}
	s := rep["sessions"].([]any)[0].(map[string]any)
	if len(s["reports"].([]any)) != 2 {
		t.Errorf("a compared session carries %d reports, want 2", len(s["reports"].([]any)))
	}
	if doc["verify"] != nil || doc["verify_error"] == "" {
		t.Error("--no-verify: the proof section should say it was left out")
	}
}

func TestReportComposedPolicy(t *testing.T) {
	out := filepath.Join(t.TempDir(), "r.html")
	if _, stderr, code := runCLI(t, "", "report", "testdata/compose/resetpolicy.hcl", "--no-verify", "-o", out); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	_, doc := pageData(t, out)
	pol := doc["policy"].(map[string]any)
	if pol["uses"] != "wipe_memory" {
		t.Errorf("uses %v", pol["uses"])
	}
	origins := map[string]int{}
	for _, r := range pol["rules"].([]any) {
		origins[r.(map[string]any)["origin"].(string)]++
	}
	if origins["inherited"] == 0 || origins["added"]+origins["replaced"] == 0 {
		t.Errorf("rule origins %v: want inherited and the file's own", origins)
	}
	files := anyStrings(doc["test_files"])
	if len(files) != 1 || !strings.HasSuffix(files[0], "resetpolicy.test.hcl") {
		t.Errorf("test files %v: want the test file beside the policy", files)
	}
	if doc["replay"] != nil {
		t.Error("no --sessions, yet a replay section")
	}
}

func TestReportUsage(t *testing.T) {
	for _, args := range [][]string{
		{"report", "wipe_memory", "-o", "page.txt"},
		{"report", "a", "b"},
		{"report", "wipe_memory", "--sessions", "/nonexistent-dir", "-o", filepath.Join(t.TempDir(), "r.html")},
	} {
		if _, _, code := runCLI(t, "", args...); code != 2 {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
	}
	if _, _, code := runCLI(t, "", "report", "no_such_policy", "-o", filepath.Join(t.TempDir(), "r.html")); code == 0 {
		t.Error("an unknown policy gave a page")
	}
}

// TestReportPageBound: a corpus of 1,000 sessions, each of which resets
// (a 9,000-token window), gives a page under the README's bound: every
// session listed, at most MaxCharts charted.
func TestReportPageBound(t *testing.T) {
	if testing.Short() {
		t.Skip("writes and replays 1,000 sessions")
	}
	dir := t.TempDir()
	if err := reporttest.Small(dir, 1000, 3); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "r.html")
	if _, stderr, code := runCLI(t, "", "report", "wipe_memory", "--no-verify", "--sessions", dir, "--context-window", "9000", "--progress", "never", "-o", out); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	info, err := os.Stat(out)
	if err != nil {
		t.Fatal(err)
	}
	if info.Size() >= 10<<20 {
		t.Errorf("page of 1,000 sessions: %d bytes, over 10 MB", info.Size())
	}
	_, doc := pageData(t, out)
	rep := doc["replay"].(map[string]any)
	if n := len(rep["sessions"].([]any)); n != 1000 {
		t.Errorf("%d sessions listed, want 1000", n)
	}
	if c := rep["charted"].(float64); c < 1 || c > report.MaxCharts {
		t.Errorf("%v charted, want 1 to %d", c, report.MaxCharts)
	}
	if rep["corpus"].([]any)[0].(map[string]any)["resets"].(float64) < 1000 {
		t.Error("the corpus was meant to reset in every session")
	}
	t.Logf("1,000 sessions: page %d KB", info.Size()/1024)
}

func anyStrings(v any) []string {
	var out []string
	for _, x := range v.([]any) {
		out = append(out, x.(string))
	}
	return out
}

// With no policy named, report makes the page of the policy in force in
// the directory, as Pi runs it, and its header and params say so.
func TestReportThePolicyInForce(t *testing.T) {
	project(t)
	out := filepath.Join(t.TempDir(), "r.html")
	if _, stderr, code := runCLI(t, "", "report", "--no-verify", "-o", out); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	_, doc := pageData(t, out)
	inForce := doc["header"].(map[string]any)["in_force"].(string)
	for _, want := range []string{".pi/resetpolicy.hcl [project policy]", "warning_runway=20000 (", "shadowed: warning_runway=9000 (user config "} {
		if !strings.Contains(inForce, want) {
			t.Errorf("header's policy in force lacks %q: %s", want, inForce)
		}
	}
	for _, p := range doc["policy"].(map[string]any)["summary"].(map[string]any)["params"].([]any) {
		p := p.(map[string]any)
		if p["name"] == "warning_runway" && (p["value"].(float64) != 20000 || !strings.Contains(p["origin"].(string), "resetpolicy.hcl")) {
			t.Errorf("warning_runway in the page: %v from %v, want the project's 20000", p["value"], p["origin"])
		}
	}
}

// A broken test file beside the policy is reported as a failing file, not
// left out of the page.
func TestReportShowsABrokenTestFile(t *testing.T) {
	dir := t.TempDir()
	policy := filepath.Join(dir, "p.hcl")
	if err := os.WriteFile(policy, []byte("use \"new_context\" {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "p.test.hcl"), []byte("policy = \"p.hcl\"\nrun \"x\" {\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "r.html")
	if _, stderr, code := runCLI(t, "", "report", policy, "--no-verify", "-o", out); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	_, doc := pageData(t, out)
	tests, ok := doc["tests"].(map[string]any)
	if !ok || tests["failed"].(float64) != 1 {
		t.Errorf("tests section %v: want the broken file as one failure", doc["tests"])
	}
}

// A file that tunes a built-in with no test file of its own is not shown
// untested: the built-in's runs cover the rules it inherits unchanged, as
// test --coverage counts them.
func TestReportCountsInheritedTests(t *testing.T) {
	dir := t.TempDir()
	policy := filepath.Join(dir, "team.hcl")
	if err := os.WriteFile(policy, []byte("use \"wipe_memory\" {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "r.html")
	if _, stderr, code := runCLI(t, "", "report", policy, "--no-verify", "-o", out); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	_, doc := pageData(t, out)
	tests, ok := doc["tests"].(map[string]any)
	if !ok {
		t.Fatalf("no tests section: %v", doc["tests"])
	}
	cov := tests["coverage"].([]any)[0].(map[string]any)
	composed := cov["composed"].(map[string]any)
	if cov["fired"].(float64) < 50 || composed["inherited"] != cov["fired"] {
		t.Errorf("coverage %v: want the built-in's tested rules, all inherited", cov)
	}
}
