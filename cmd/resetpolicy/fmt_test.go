package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestFmtCheckAndRewrite(t *testing.T) {
	dir := t.TempDir()
	messy := filepath.Join(dir, "messy.hcl")
	tidy := "policy \"p\" {\n  description = \"x\"\n}\n"
	os.WriteFile(messy, []byte("policy \"p\" {\n description=\"x\"\n}\n"), 0o640)
	os.WriteFile(filepath.Join(dir, "tidy.hcl"), []byte(tidy), 0o644)

	stdout, _, code := runCLI(t, "", "fmt", "-check", dir)
	if code != 1 || strings.TrimSpace(stdout) != messy {
		t.Fatalf("fmt -check: exit %d, stdout %q; want 1 and only the messy file", code, stdout)
	}
	if b, _ := os.ReadFile(messy); string(b) == tidy {
		t.Fatal("fmt -check must not write")
	}
	if _, stderr, code := runCLI(t, "", "fmt", dir); code != 0 {
		t.Fatalf("fmt: exit %d: %s", code, stderr)
	}
	if b, _ := os.ReadFile(messy); string(b) != tidy {
		t.Errorf("fmt wrote %q, want %q", b, tidy)
	}
	if info, _ := os.Stat(messy); info.Mode().Perm() != 0o640 {
		t.Errorf("fmt changed the file mode to %v", info.Mode().Perm())
	}
	if _, _, code := runCLI(t, "", "fmt", "-check", dir); code != 0 {
		t.Errorf("after fmt, fmt -check exits %d", code)
	}

	broken := filepath.Join(dir, "broken.hcl")
	os.WriteFile(broken, []byte("policy \"p\" {\n"), 0o644)
	_, stderr, code := runCLI(t, "", "fmt", broken)
	if code != 1 || !strings.Contains(stderr, "broken.hcl:") {
		t.Errorf("a file that does not parse: exit %d, stderr %q", code, stderr)
	}
	if b, _ := os.ReadFile(broken); string(b) != "policy \"p\" {\n" {
		t.Error("a file that does not parse must be left unchanged")
	}
}

// hclwrite walks an operator chain recursively too: fmt gets the loader's
// bound before formatting.
func TestFmtRefusesOperatorChains(t *testing.T) {
	f := filepath.Join(t.TempDir(), "chain.hcl")
	os.WriteFile(f, []byte("a = "+strings.Repeat("1+", 500_000)+"1\n"), 0o644)
	_, stderr, code := runCLI(t, "", "fmt", "-check", f)
	if code != 1 || !strings.Contains(stderr, "chain.hcl:1:") || !strings.Contains(stderr, "Nesting too deep") {
		t.Fatalf("exit %d, stderr %.300s", code, stderr)
	}
}
