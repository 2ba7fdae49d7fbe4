package settings

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A trusted project's settings name a policy file and a decision log only
// inside the project directory, symlinks resolved; the user's own config
// may point anywhere.
func TestProjectPathsStayInTheProject(t *testing.T) {
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "p.hcl"), []byte("use \"wipe_memory\" {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := func(projectDir, name, target string) {
		t.Helper()
		if err := os.Symlink(target, filepath.Join(projectDir, name)); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		name, yaml, key string
		prep            func(projectDir string)
	}{
		{"absolute policy", "policy: " + filepath.Join(outside, "p.hcl") + "\n", "policy", nil},
		{"relative policy", "policy: ../../" + filepath.Base(outside) + "/p.hcl\n", "policy", nil},
		{"home policy", "policy: ~/p.hcl\n", "policy", nil},
		{"policy through a symlinked dir", "policy: ../escape/p.hcl\n", "policy", func(d string) { link(d, "escape", outside) }},
		{"policy symlink", "policy: ../p.hcl\n", "policy", func(d string) { link(d, "p.hcl", filepath.Join(outside, "p.hcl")) }},
		{"absolute log", "decision_log: " + filepath.Join(outside, "d.jsonl") + "\n", "decision_log", nil},
		{"dotdot log", "decision_log: ../../d.jsonl\n", "decision_log", nil},
		{"log in a symlinked dir", "decision_log: ../escape/new/d.jsonl\n", "decision_log", func(d string) { link(d, "escape", outside) }},
		{"log symlink", "decision_log: ../d.jsonl\n", "decision_log", func(d string) { link(d, "d.jsonl", filepath.Join(outside, "d.jsonl")) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			userDir, projectDir := setup(t, fixture{projectYAML: c.yaml})
			if c.prep != nil {
				c.prep(projectDir)
			}
			_, err := Load(Options{ProjectDir: projectDir, Trusted: true, Environ: []string{}, UserConfigDir: userDir, Home: outside})
			if err == nil || !strings.Contains(err.Error(), c.key+":") || !strings.Contains(err.Error(), "outside the project directory") && !strings.Contains(err.Error(), "dangling symlink") {
				t.Fatalf("want the %s setting refused, got %v", c.key, err)
			}
		})
	}

	// Inside is fine, through symlinks inside too.
	userDir, projectDir := setup(t, fixture{projectYAML: "policy: mine.hcl\ndecision_log: ../logs/d.jsonl\n"})
	if err := os.MkdirAll(filepath.Join(projectDir, "real"), 0o755); err != nil {
		t.Fatal(err)
	}
	link(projectDir, "logs", filepath.Join(projectDir, "real"))
	s, err := Load(Options{ProjectDir: projectDir, Trusted: true, Environ: []string{}, UserConfigDir: userDir})
	if err != nil {
		t.Fatal(err)
	}
	if s.DecisionLog.Text != filepath.Join(projectDir, "logs", "d.jsonl") || s.Policy.Text != filepath.Join(projectDir, ".pi", "mine.hcl") {
		t.Fatalf("got policy %q, log %q", s.Policy.Text, s.DecisionLog.Text)
	}

	// The project policy file itself must not lead out.
	userDir, projectDir = setup(t, fixture{})
	if err := os.MkdirAll(filepath.Join(projectDir, ".pi"), 0o755); err != nil {
		t.Fatal(err)
	}
	link(projectDir, ProjectPolicyFile, filepath.Join(outside, "p.hcl"))
	if _, err := Load(Options{ProjectDir: projectDir, Trusted: true, Environ: []string{}, UserConfigDir: userDir}); err == nil || !strings.Contains(err.Error(), "outside the project directory") {
		t.Fatalf("project policy symlink: %v", err)
	}

	// The user's config is theirs: it may point anywhere.
	userDir, projectDir = setup(t, fixture{user: "policy: " + filepath.Join(outside, "p.hcl") + "\ndecision_log: " + filepath.Join(outside, "d.jsonl") + "\n"})
	s, err = Load(Options{ProjectDir: projectDir, Trusted: true, Environ: []string{}, UserConfigDir: userDir})
	if err != nil || s.Policy.Text != filepath.Join(outside, "p.hcl") {
		t.Fatalf("user config: %v %+v", err, s)
	}
}

// Config files are read like every other file: a regular file within a
// bound, never a FIFO (which would hang) or a device (which never ends);
// a project's own config file may not lead out of the project either.
func TestConfigFilesAreRegularAndBounded(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "config.yaml")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(dir, "big.yaml")
	if err := os.WriteFile(big, []byte("# "+strings.Repeat("x", MaxConfigBytes)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	outside := filepath.Join(dir, "outside.yaml")
	if err := os.WriteFile(outside, []byte("policy: new_context\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ user, project, want string }{
		{user: fifo, want: "not a regular file"},
		{user: big, want: "larger than"},
		{project: "/dev/zero", want: "not a regular file"},
		{project: outside, want: "outside the project directory"},
	} {
		userDir, projectDir := setup(t, fixture{})
		if c.project != "" {
			if err := os.MkdirAll(filepath.Join(projectDir, ".pi"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(c.project, filepath.Join(projectDir, ProjectConfigFile)); err != nil {
				t.Fatal(err)
			}
		}
		done := make(chan error, 1)
		go func() {
			_, err := Load(Options{ProjectDir: projectDir, Trusted: true, Environ: []string{}, UserConfigDir: userDir, UserConfig: c.user})
			done <- err
		}()
		select {
		case err := <-done:
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%s%s: %v, want %q", c.user, c.project, err, c.want)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("%s%s: reading the config blocked", c.user, c.project)
		}
	}
}

// Saving a param writes only inside the project, even when .pi/ is a
// symlink leading out of it.
func TestSaveParamStaysInTheProject(t *testing.T) {
	outside, projectDir := t.TempDir(), t.TempDir()
	if err := os.Symlink(outside, filepath.Join(projectDir, ".pi")); err != nil {
		t.Fatal(err)
	}
	if _, err := SaveParam(projectDir, "", "force_limit", "150000"); err == nil || !strings.Contains(err.Error(), "outside the project directory") {
		t.Fatalf("SaveParam: %v", err)
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 0 {
		t.Fatalf("written outside the project: %v", entries)
	}
}
