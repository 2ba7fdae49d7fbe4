package lsp

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// TestNeovimClient runs the server under Neovim's own LSP client, when
// nvim is installed (apt-get install neovim; Debian's is 0.7.2): a real
// client's framing, capabilities and position handling against the
// server's, and the init.lua snippet docs/lsp.md gives, as it is written
// there.
func TestNeovimClient(t *testing.T) {
	nvim, err := exec.LookPath("nvim")
	if err != nil {
		t.Skip("nvim is not installed")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "resetpolicy")
	gobin := filepath.Join(runtime.GOROOT(), "bin", "go")
	if out, err := exec.Command(gobin, "build", "-o", bin, "../../cmd/resetpolicy").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	_, text := readFixture(t, "policy.hcl")
	policy := filepath.Join(dir, "p.hcl")
	broken := strings.Replace(text, `when = "event.tokens > 0"`, `when = "event.tokenz > 0"`, 1)
	if err := os.WriteFile(policy, []byte(broken), 0o644); err != nil {
		t.Fatal(err)
	}
	before := broken[:strings.Index(broken, "event.tokenz")+len("event.")] // the fact
	at := fmt.Sprintf("%d:%d", strings.Count(before, "\n")+1, len(before)-strings.LastIndexByte(before, '\n'))
	t.Run("docs snippet", func(t *testing.T) { nvimSnippet(t, nvim, dir, policy, at) })
	script, _ := filepath.Abs("testdata/nvim/client.lua")
	out := filepath.Join(dir, "out.txt")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, nvim, "--headless", "-n", "-u", "NONE", "-c", "luafile "+script, policy)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "RESETPOLICY_BIN="+bin, "OUT="+out, "XDG_CACHE_HOME="+dir, "XDG_STATE_HOME="+dir, "XDG_DATA_HOME="+dir)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("nvim: %v\n%s", err, b)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatalf("no output from the client script: %v", err)
	}
	got := string(b)
	for _, want := range []string{
		"diagnostic " + at + ` Invalid expression | event request has no fact "tokenz"; did you mean "tokens"?`,
		"completion after event. in turn_end rule: auto_compaction,auto_reset,context_window,enabled,error,idle,now_ms,outcome,queued,reserve,synthetic_abort,tokens,tool_results,window_id\n",
		"hover param.budget: **param budget** — number",
		fmt.Sprintf("definition state.note: p.hcl:%d", strings.Count(broken[:strings.Index(broken, `slot "note"`)], "\n")+1),
		"formatting edits: 1",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in\n%s", want, got)
		}
	}
}

// nvimSnippet runs Neovim with docs/lsp.md's snippet as its init.lua and
// resetpolicy on PATH, on a policy with one problem at `at`.
func nvimSnippet(t *testing.T, nvim, dir, policy, at string) {
	doc, err := os.ReadFile("../../docs/lsp.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(doc), "**Neovim**")
	if ok {
		_, rest, ok = strings.Cut(rest, "```lua\n")
	}
	snippet, _, found := strings.Cut(rest, "```")
	if !ok || !found {
		t.Fatal("no lua block after **Neovim** in docs/lsp.md")
	}
	init := filepath.Join(dir, "init.lua")
	if err := os.WriteFile(init, []byte(snippet), 0o644); err != nil {
		t.Fatal(err)
	}
	script, _ := filepath.Abs("testdata/nvim/snippet.lua")
	out := filepath.Join(dir, "snippet.txt")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, nvim, "--headless", "-n", "-u", init, "-c", "luafile "+script, policy)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "PATH="+dir+string(os.PathListSeparator)+os.Getenv("PATH"), "OUT="+out,
		"XDG_CACHE_HOME="+dir, "XDG_STATE_HOME="+dir, "XDG_DATA_HOME="+dir, "XDG_CONFIG_HOME="+dir)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("nvim: %v\n%s", err, b)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatalf("no output from the snippet's check: %v", err)
	}
	for _, want := range []string{"filetype hcl\n", "diagnostic " + at + ` Invalid expression | event request has no fact "tokenz"`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("missing %q in\n%s", want, b)
		}
	}
}
