package settings

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, text := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// A project's policy and config at its root (.resetpolicy.hcl,
// .resetpolicy.yaml) are read by every host and the CLI, as the .pi/ files
// are; a project with both of one kind is told to keep one, never left to
// guess which is in force.
func TestSharedProjectFiles(t *testing.T) {
	for _, c := range []struct {
		name   string
		files  map[string]string
		policy string // the policy file in force, relative; "" the built-in
		param  string // warning_runway's value
		err    string
	}{
		{name: "shared", files: map[string]string{".resetpolicy.hcl": "use \"wipe_memory\" {}\n", ".resetpolicy.yaml": "params:\n  warning_runway: 9000\n"},
			policy: ".resetpolicy.hcl", param: "9000"},
		{name: "pi", files: map[string]string{".pi/resetpolicy.hcl": "use \"wipe_memory\" {}\n", ".pi/resetpolicy.yaml": "params:\n  warning_runway: 8000\n"},
			policy: ".pi/resetpolicy.hcl", param: "8000"},
		{name: "mixed", files: map[string]string{".resetpolicy.hcl": "use \"wipe_memory\" {}\n", ".pi/resetpolicy.yaml": "params:\n  warning_runway: 7000\n"},
			policy: ".resetpolicy.hcl", param: "7000"},
		{name: "two policies", files: map[string]string{".resetpolicy.hcl": "x", ".pi/resetpolicy.hcl": "y"},
			err: "project policy: both DIR/.resetpolicy.hcl and DIR/.pi/resetpolicy.hcl exist; keep one (.resetpolicy.hcl is read by every host)"},
		{name: "two configs", files: map[string]string{".resetpolicy.yaml": "", ".pi/resetpolicy.yaml": ""},
			err: "project config: both DIR/.resetpolicy.yaml and DIR/.pi/resetpolicy.yaml exist; keep one (.resetpolicy.yaml is read by every host)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			writeFiles(t, dir, c.files)
			s, err := Load(Options{ProjectDir: dir, Trusted: true, Environ: []string{}, UserConfigDir: t.TempDir()})
			if c.err != "" {
				if err == nil || strings.ReplaceAll(err.Error(), dir, "DIR") != c.err {
					t.Fatalf("err = %v, want %s", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if s.Policy.Text != filepath.Join(dir, c.policy) || s.Policy.Origin.Layer != LayerProjectPolicy {
				t.Errorf("policy = %+v, want %s", s.Policy, c.policy)
			}
			if v := s.Params["warning_runway"]; v.Text != c.param || v.Origin.Layer != LayerProject {
				t.Errorf("warning_runway = %+v, want %s", v, c.param)
			}
		})
	}
}

// A project's first saved param goes where every host that reads the
// project will find it: beside a shared policy file, in .pi/ for Pi (where
// Pi projects keep it), at the root for another host; an existing config
// file is always the one written.
func TestSaveParamGoesWhereTheHostsRead(t *testing.T) {
	for _, c := range []struct {
		name, host string
		files      map[string]string
		want       string
	}{
		{"pi, new project", "pi", nil, ".pi/resetpolicy.yaml"},
		{"default host", "", nil, ".pi/resetpolicy.yaml"},
		{"opencode, new project", "opencode", nil, ".resetpolicy.yaml"},
		{"pi beside a shared policy", "pi", map[string]string{".resetpolicy.hcl": "use \"wipe_memory\" {}\n"}, ".resetpolicy.yaml"},
		{"opencode with a Pi config", "opencode", map[string]string{".pi/resetpolicy.yaml": "policy: autocompacter\n"}, ".pi/resetpolicy.yaml"},
		{"pi with a shared config", "pi", map[string]string{".resetpolicy.yaml": "policy: autocompacter\n"}, ".resetpolicy.yaml"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			writeFiles(t, dir, c.files)
			path, err := SaveParam(dir, c.host, "force_limit", "150000")
			if err != nil {
				t.Fatal(err)
			}
			if path != filepath.Join(dir, c.want) {
				t.Errorf("saved to %s, want %s", path, c.want)
			}
			s, err := Load(Options{ProjectDir: dir, Trusted: true, Environ: []string{}, UserConfigDir: t.TempDir()})
			if err != nil {
				t.Fatal(err)
			}
			if v := s.Params["force_limit"]; v.Text != "150000" {
				t.Errorf("the saved value is not read back: %+v", v)
			}
		})
	}
}
