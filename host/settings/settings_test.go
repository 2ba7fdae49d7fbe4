package settings

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

type fixture struct {
	user, projectYAML, projectHCL string
	// teamHCL is a policy file beside the project config, .pi/team.hcl,
	// for a project config that names it.
	teamHCL string
}

// setup writes the fixture's files and returns the user config dir and
// the project dir.
func setup(t *testing.T, f fixture) (userDir, projectDir string) {
	t.Helper()
	userDir, projectDir = t.TempDir(), t.TempDir()
	write := func(path, text string) {
		if text == "" {
			return
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(userDir, UserConfigFile), f.user)
	write(filepath.Join(projectDir, ProjectConfigFile), f.projectYAML)
	write(filepath.Join(projectDir, ProjectPolicyFile), f.projectHCL)
	write(filepath.Join(projectDir, filepath.Dir(ProjectConfigFile), "team.hcl"), f.teamHCL)
	return userDir, projectDir
}

func flags(t *testing.T, args ...string) *pflag.FlagSet {
	t.Helper()
	fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
	AddFlags(fs)
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	return fs
}

func TestPrecedence(t *testing.T) {
	const userYAML = "policy: new_context\nparams:\n  warning_runway: 1000\n  reserve_margin: 1\ndecision_log: user.jsonl\n"
	const projYAML = "params:\n  warning_runway: 2000\n  reminder_margin: 3000\n"
	const projHCL = "use \"wipe_memory\" {\n  warning_runway = 4096\n}\n"
	tests := []struct {
		name    string
		fix     fixture
		trusted bool
		env     []string
		args    []string
		// want: key -> value and the start of its origin
		want map[string][2]string
	}{
		{
			name: "nothing set: built-in wipe_memory",
			want: map[string][2]string{"policy": {"wipe_memory", "default"}, "decision_log": {"", "default"}},
		},
		{
			name: "user config over defaults",
			fix:  fixture{user: userYAML},
			want: map[string][2]string{
				"policy":                {"new_context", "user config"},
				"params.warning_runway": {"1000", "user config"},
				"params.reserve_margin": {"1", "user config"},
			},
		},
		{
			name:    "trusted project config over user config, param by param",
			fix:     fixture{user: userYAML, projectYAML: projYAML},
			trusted: true,
			want: map[string][2]string{
				"policy":                 {"new_context", "user config"},
				"params.warning_runway":  {"2000", "project config"},
				"params.reserve_margin":  {"1", "user config"},
				"params.reminder_margin": {"3000", "project config"},
			},
		},
		{
			name:    "untrusted project is not read",
			fix:     fixture{user: userYAML, projectYAML: projYAML, projectHCL: projHCL},
			trusted: false,
			want: map[string][2]string{
				"policy":                {"new_context", "user config"},
				"params.warning_runway": {"1000", "user config"},
			},
		},
		{
			name:    "trusted project policy file becomes the policy",
			fix:     fixture{user: userYAML, projectHCL: projHCL},
			trusted: true,
			want:    map[string][2]string{"policy": {ProjectPolicyFile, "project policy"}},
		},
		{
			name:    "env over project config",
			fix:     fixture{user: userYAML, projectYAML: projYAML},
			trusted: true,
			env:     []string{"RESETPOLICY_POLICY=autocompacter", "RESETPOLICY_PARAM_WARNING_RUNWAY=5000", "RESETPOLICY_DECISION_LOG=/tmp/d.jsonl"},
			want: map[string][2]string{
				"policy":                {"autocompacter", "env RESETPOLICY_POLICY"},
				"params.warning_runway": {"5000", "env RESETPOLICY_PARAM_WARNING_RUNWAY"},
				"decision_log":          {"/tmp/d.jsonl", "env RESETPOLICY_DECISION_LOG"},
			},
		},
		{
			name:    "flags over env",
			fix:     fixture{user: userYAML},
			trusted: true,
			env:     []string{"RESETPOLICY_POLICY=autocompacter", "RESETPOLICY_PARAM_WARNING_RUNWAY=5000"},
			args:    []string{"--policy", "wipe_memory", "--set", "warning_runway=6000", "--decision-log", "/tmp/f.jsonl"},
			want: map[string][2]string{
				"policy":                {"wipe_memory", "flag --policy"},
				"params.warning_runway": {"6000", "flag --set"},
				"decision_log":          {"/tmp/f.jsonl", "flag --decision-log"},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			userDir, projectDir := setup(t, tt.fix)
			var fs *pflag.FlagSet
			if tt.args != nil {
				fs = flags(t, tt.args...)
			}
			env := append([]string{"HOME=/nowhere"}, tt.env...)
			s, err := Load(Options{ProjectDir: projectDir, Trusted: tt.trusted, Environ: env, Flags: fs, UserConfigDir: userDir})
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]Entry{}
			for _, e := range s.Entries() {
				got[e.Key] = e
			}
			for key, want := range tt.want {
				e, ok := got[key]
				if !ok {
					t.Errorf("%s: missing; have %v", key, s.Entries())
					continue
				}
				if !strings.HasSuffix(e.Value, want[0]) || (want[0] == "" && e.Value != "") {
					t.Errorf("%s = %q, want %q", key, e.Value, want[0])
				}
				if !strings.HasPrefix(e.Origin, want[1]) {
					t.Errorf("%s origin = %q, want %q…", key, e.Origin, want[1])
				}
			}
			if !tt.trusted {
				for _, f := range s.Files {
					if strings.HasPrefix(f, projectDir) {
						t.Errorf("untrusted project file read: %s", f)
					}
				}
			}
		})
	}
}

func TestConfigErrors(t *testing.T) {
	tests := []struct {
		name, yaml, want string
	}{
		{"unknown key", "policy: x\npolcy: x\n", `resetpolicy.yaml:2:1: unknown key "polcy"`},
		{"params not a map", "params: 3\n", "resetpolicy.yaml:1:1: params must map"},
		{"policy not a string", "policy: [a]\n", "resetpolicy.yaml:1:1: policy must be"},
		{"malformed yaml", "policy: x\npolicy: [\n", "resetpolicy.yaml:2: did not find expected node content"},
		{"duplicate key", "params:\n  x: 1\n  x: 2\n", `resetpolicy.yaml:3: mapping key "x" already defined at line 2`},
		{"param value is a map", "params:\n  z: 1\n  a:\n    b: 1\n", "resetpolicy.yaml:4:5: params.a"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			userDir, projectDir := setup(t, fixture{projectYAML: tt.yaml})
			_, err := Load(Options{ProjectDir: projectDir, Trusted: true, Environ: []string{}, UserConfigDir: userDir})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want it to mention %q", err, tt.want)
			}
			if !strings.Contains(err.Error(), ProjectConfigFile) {
				t.Errorf("error does not name the file: %v", err)
			}
		})
	}
}

func TestExplicitUserConfigMustExist(t *testing.T) {
	_, err := Load(Options{Environ: []string{"RESETPOLICY_CONFIG=/does/not/exist.yaml"}})
	if err == nil || !strings.Contains(err.Error(), "/does/not/exist.yaml") {
		t.Fatalf("err = %v", err)
	}
}

func TestPolicyFileRelativeToConfig(t *testing.T) {
	userDir, projectDir := setup(t, fixture{projectYAML: "policy: team.hcl\n"})
	s, err := Load(Options{ProjectDir: projectDir, Trusted: true, Environ: []string{}, UserConfigDir: userDir})
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(projectDir, ".pi", "team.hcl"); s.Policy.Text != want {
		t.Errorf("policy = %q, want %q", s.Policy.Text, want)
	}
}

func TestLoadPolicyAppliesOverridesWithOrigins(t *testing.T) {
	userDir, projectDir := setup(t, fixture{
		projectHCL:  "use \"wipe_memory\" {\n  warning_runway = 4096\n}\n",
		projectYAML: "params:\n  reserve_margin: 512\n",
	})
	s, err := Load(Options{ProjectDir: projectDir, Trusted: true, Environ: []string{}, UserConfigDir: userDir})
	if err != nil {
		t.Fatal(err)
	}
	p, diags := s.LoadPolicy()
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	for name, want := range map[string]string{"warning_runway": "resetpolicy.hcl", "reserve_margin": "project config"} {
		prm, ok := p.Param(name)
		if !ok {
			t.Fatalf("no param %s", name)
		}
		if !strings.Contains(prm.Origin, want) {
			t.Errorf("%s origin = %q, want it to mention %q", name, prm.Origin, want)
		}
	}
}

func TestLoadPolicyUnknownParamIsADiagnostic(t *testing.T) {
	s, err := Load(Options{Environ: []string{"RESETPOLICY_PARAM_NO_SUCH=1"}, UserConfigDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if _, diags := s.LoadPolicy(); !diags.HasErrors() || !strings.Contains(diags.Error(), "no_such") {
		t.Fatalf("diags = %v", diags.Error())
	}
}

func TestSaveAndClearParam(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, ProjectConfigFile)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	orig := "# team settings\npolicy: autocompacter # the checkpointing one\nparams:\n  notice_limit: 100000\n"
	if err := os.WriteFile(path, []byte(orig), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := SaveParam(dir, "", "force_limit", "200000"); err != nil {
		t.Fatal(err)
	}
	if _, err := SaveParam(dir, "", "notice_limit", "120000"); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	text := string(b)
	for _, want := range []string{"# team settings", "# the checkpointing one", "force_limit: 200000", "notice_limit: 120000"} {
		if !strings.Contains(text, want) {
			t.Errorf("saved file lacks %q:\n%s", want, text)
		}
	}
	s, err := Load(Options{ProjectDir: dir, Trusted: true, Environ: []string{}, UserConfigDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if v := s.Params["force_limit"]; v.Text != "200000" || v.Origin.Layer != LayerProject {
		t.Errorf("force_limit = %+v", v)
	}
	if _, err := ClearParam(dir, "force_limit"); err != nil {
		t.Fatal(err)
	}
	b, _ = os.ReadFile(path)
	if strings.Contains(string(b), "force_limit") {
		t.Errorf("force_limit still saved:\n%s", b)
	}
	if _, err := SaveParam(dir, "", "../evil", "1"); err == nil {
		t.Error("a bad param name was accepted")
	}
	if _, err := SaveParam(t.TempDir(), "", "force_limit", "1"); err != nil {
		t.Errorf("saving into a project without a config: %v", err)
	}
}

// The project's policy file wins over the user config param by param
// (issue: a personal warning_runway overrode the team's); a param the
// project file leaves alone takes the user's value, and the user's lost
// value is reported as shadowed. A policy the user config itself names
// takes the user's values.
const fullPolicy = `policy "team" {
  description = "x"
}

param "warning_runway" {
  type        = number
  default     = 5000
  description = "x"
}

group "g" {
  rule "r" {
    on   = "request"
    when = "event.tokens > param.warning_runway"
    effect "notify" {
      level = "info"
      text  = "\"x\""
    }
  }
}
`

func TestProjectPolicyWinsOverUserParams(t *testing.T) {
	tests := []struct {
		name       string
		fix        fixture
		runway     string // want: value and origin start
		origin     string
		shadowed   int
		reminder   string
		reminderOr string
	}{
		{"use block over user", fixture{
			user:       "params:\n  warning_runway: 9000\n  reminder_margin: 30000\n",
			projectHCL: "use \"wipe_memory\" {\n  warning_runway = 20000\n}\n",
		}, "20000", "/", 1, "30000", "user config"},
		// A policy file the project config names is the project's policy
		// as .pi/resetpolicy.hcl is: the values it sets beat the user's.
		{"policy file named by the project config over user", fixture{
			user:        "params:\n  warning_runway: 9000\n  reminder_margin: 30000\n",
			projectYAML: "policy: team.hcl\n",
			teamHCL:     "use \"wipe_memory\" {\n  warning_runway = 20000\n}\n",
		}, "20000", "/", 1, "30000", "user config"},
		{"project config over user", fixture{
			user:        "params:\n  warning_runway: 9000\n",
			projectYAML: "params:\n  warning_runway: 7000\n",
		}, "7000", "project config", 1, "24576", "default"},
		{"user alone", fixture{user: "params:\n  warning_runway: 9000\n"}, "9000", "user config", 0, "24576", "default"},
		// A project's own full policy declares its values: the user's yield.
		{"full project policy over user", fixture{
			user:       "params:\n  warning_runway: 9000\n",
			projectHCL: fullPolicy,
		}, "5000", "default", 1, "", ""},
		// A policy the user config names takes the user's values.
		{"user's own policy", fixture{user: "policy: wipe_memory\nparams:\n  warning_runway: 9000\n"}, "9000", "user config", 0, "24576", "default"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			userDir, proj := setup(t, tt.fix)
			r, err := Resolve(Options{ProjectDir: proj, Trusted: true, UserConfigDir: userDir, Environ: []string{}})
			if err != nil {
				t.Fatal(err)
			}
			if r.Policy == nil {
				t.Fatal(r.Diagnostics.Error())
			}
			for _, ps := range r.Params() {
				switch ps.Name {
				case "warning_runway":
					if string(ps.Value) != tt.runway || !strings.HasPrefix(ps.Origin, tt.origin) || len(ps.Shadowed) != tt.shadowed {
						t.Errorf("warning_runway = %s (%s), shadowed %v", ps.Value, ps.Origin, ps.Shadowed)
					}
				case "reminder_margin":
					if string(ps.Value) != tt.reminder || !strings.HasPrefix(ps.Origin, tt.reminderOr) {
						t.Errorf("reminder_margin = %s (%s)", ps.Value, ps.Origin)
					}
				}
			}
			if h := r.Header(); tt.shadowed > 0 && !strings.Contains(h, "shadowed: warning_runway=9000 (user config ") {
				t.Errorf("header %q", h)
			}
		})
	}
}

// A param a config file sets is reported where the file sets it, with the
// line shown, as a policy file's mistakes are; so is a misspelt policy.
func TestConfigParamMistakesHaveTheirPlace(t *testing.T) {
	userDir, projectDir := setup(t, fixture{projectYAML: "policy: wipe_memory\nparams:\n  warning_runway: lots\n  bogus: 3\n"})
	s, err := Load(Options{ProjectDir: projectDir, Trusted: true, Environ: []string{}, UserConfigDir: userDir})
	if err != nil {
		t.Fatal(err)
	}
	_, ds := s.LoadPolicy()
	file := filepath.Join(projectDir, ProjectConfigFile)
	got := ds.Error()
	for _, want := range []string{
		file + ":4:3: error: Unknown param", "  4 |   bogus: 3",
		file + ":3:19: error: Wrong param type", "  3 |   warning_runway: lots",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("diagnostics lack %q:\n%s", want, got)
		}
	}
	userDir, projectDir = setup(t, fixture{projectYAML: "# team\npolicy: wipe_memry\n"})
	if s, err = Load(Options{ProjectDir: projectDir, Trusted: true, Environ: []string{}, UserConfigDir: userDir}); err != nil {
		t.Fatal(err)
	}
	_, ds = s.LoadPolicy()
	if want := filepath.Join(projectDir, ProjectConfigFile) + ":2:9: error: Unknown built-in policy"; !strings.Contains(ds.Error(), want) {
		t.Errorf("diagnostics lack %q:\n%s", want, ds.Error())
	}
}
