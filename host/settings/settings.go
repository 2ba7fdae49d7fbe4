package settings

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/hashicorp/hcl/v2"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"

	"github.com/resetpolicy/resetpolicy/policies"
	"github.com/resetpolicy/resetpolicy/rules"
	"github.com/spf13/pflag"
	"github.com/spf13/viper"
)

// Setting keys, as written in config files.
const (
	KeyPolicy      = "policy"
	KeyParams      = "params"
	KeyDecisionLog = "decision_log"
)

// Names of files and variables.
const (
	EnvPrefix = "RESETPOLICY_"
	// EnvConfig names a user config file to read instead of the default.
	EnvConfig = EnvPrefix + "CONFIG"
	// EnvParamPrefix starts a param override: RESETPOLICY_PARAM_WARNING_RUNWAY.
	EnvParamPrefix = EnvPrefix + "PARAM_"
	// UserConfigFile is the user config, below os.UserConfigDir.
	UserConfigFile = "resetpolicy/config.yaml"
	// ProjectConfigFile is the project config, below the project directory,
	// where Pi projects have always kept it.
	ProjectConfigFile = ".pi/resetpolicy.yaml"
	// ProjectPolicyFile is the project policy, below the project directory,
	// where Pi projects have always kept it.
	ProjectPolicyFile = ".pi/resetpolicy.hcl"
	// SharedConfigFile and SharedPolicyFile are the same files at the
	// project's root, read by every host and the CLI: a team that runs
	// both Pi and opencode writes its policy once, there.
	SharedConfigFile = ".resetpolicy.yaml"
	SharedPolicyFile = ".resetpolicy.hcl"
)

// ProjectPolicyFiles and ProjectConfigFiles are where a project's policy
// and config may live, below the project directory. At most one of each
// may exist: two would leave a reader guessing which is in force.
var (
	ProjectPolicyFiles = []string{SharedPolicyFile, ProjectPolicyFile}
	ProjectConfigFiles = []string{SharedConfigFile, ProjectConfigFile}
)

// DefaultPolicy is the policy in force when nothing else is configured.
const DefaultPolicy = policies.Default

// Layer is where a setting came from, in precedence order.
type Layer int

const (
	LayerDefault Layer = iota
	LayerUser
	LayerProjectPolicy
	LayerProject
	LayerEnv
	LayerFlag
)

// Origin says where a value came from: the layer and the file, variable or
// flag that gave it.
type Origin struct {
	Layer Layer
	Where string
}

// String names the layer: "user config", "project policy", "env".
func (l Layer) String() string {
	return strings.TrimSpace(Origin{Layer: l}.String())
}

func (o Origin) String() string {
	switch o.Layer {
	case LayerUser:
		return "user config " + o.Where
	case LayerProjectPolicy:
		return "project policy " + o.Where
	case LayerProject:
		return "project config " + o.Where
	case LayerEnv:
		return "env " + o.Where
	case LayerFlag:
		if !strings.HasPrefix(o.Where, "-") {
			return o.Where // "scenario FILE", "argument"
		}
		return "flag " + o.Where
	}
	return "default"
}

// Value is one setting's text and where it came from.
type Value struct {
	Text   string
	Origin Origin
	// Range and NameRange, for a value a config file gives, are where
	// the file gives it and its name: a param's mistake is reported there.
	Range, NameRange *hcl.Range `json:"-"`
}

// Settings are the effective settings.
type Settings struct {
	// Policy is a built-in name or a policy file path.
	Policy Value
	// Params are param overrides as text, by param name.
	Params map[string]Value
	// Shadowed are the param values a higher layer replaced, by param
	// name, lowest first: a user config value the project config or the
	// environment overrides.
	Shadowed map[string][]Value
	// DecisionLog is the decision log path; empty when there is none.
	DecisionLog Value
	// Files lists the config and policy files that were read, in order.
	Files []string
	// configs are the YAML config files' bytes, by path, for the snippet
	// of a mistake reported in one.
	configs map[string][]byte
	// ProjectDir and Trusted are what the settings were loaded for.
	ProjectDir string
	Trusted    bool
}

// Options say what to load.
type Options struct {
	// ProjectDir is the project directory; empty means no project.
	ProjectDir string
	// Trusted allows the project's files to be read.
	Trusted bool
	// UserConfig is a user config file that must exist; empty means
	// RESETPOLICY_CONFIG or, when that is unset, the default file if it
	// exists.
	UserConfig string
	// Environ is the environment as KEY=VALUE; nil means os.Environ().
	Environ []string
	// Flags are the command's flags (see AddFlags); nil means none.
	Flags *pflag.FlagSet
	// UserConfigDir replaces os.UserConfigDir; Home replaces
	// os.UserHomeDir for "~/" in paths.
	UserConfigDir string
	Home          string
	// Set are param values above every other source, with SetOrigin as
	// their origin: replay's --compare values.
	Set       map[string]string
	SetOrigin string
}

// Flag names AddFlags defines.
const (
	FlagConfig      = "config"
	FlagPolicy      = "policy"
	FlagSet         = "set"
	FlagDecisionLog = "decision-log"
)

// AddFlags defines the settings flags on fs.
func AddFlags(fs *pflag.FlagSet) {
	fs.String(FlagConfig, "", "user config file (default $XDG_CONFIG_HOME/"+UserConfigFile+")")
	fs.String(FlagPolicy, "", "built-in policy name or policy file (default "+DefaultPolicy+")")
	fs.StringArray(FlagSet, nil, "override a param, as PARAM=VALUE (repeatable)")
	fs.String(FlagDecisionLog, "", "append one JSON line per decision to this file")
}

// IsBuiltinName reports whether a policy setting names a built-in rather
// than a file.
func IsBuiltinName(s string) bool { return s != "" && !strings.ContainsAny(s, `/\.`) }

// Load resolves the effective settings. A config file that cannot be read
// or holds an unknown key or a value of the wrong kind is an error naming
// the file; nothing is half-applied.
func Load(o Options) (*Settings, error) {
	env := o.Environ
	if env == nil {
		env = os.Environ()
	}
	getenv := func(k string) (string, bool) {
		for i := len(env) - 1; i >= 0; i-- {
			if name, val, ok := strings.Cut(env[i], "="); ok && name == k {
				return val, true
			}
		}
		return "", false
	}
	home := o.Home
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	s := &Settings{
		Policy:     Value{Text: DefaultPolicy},
		Params:     map[string]Value{},
		Shadowed:   map[string][]Value{},
		ProjectDir: o.ProjectDir,
		Trusted:    o.Trusted,
	}

	// 2. The user config file.
	userFile, required := o.UserConfig, o.UserConfig != ""
	if o.Flags != nil {
		if f := o.Flags.Lookup(FlagConfig); f != nil && f.Changed {
			userFile, required = f.Value.String(), true
		}
	}
	if userFile == "" {
		if p, ok := getenv(EnvConfig); ok && p != "" {
			userFile, required = p, true
		}
	}
	if userFile == "" {
		dir := o.UserConfigDir
		if dir == "" {
			dir, _ = os.UserConfigDir()
		}
		if dir != "" {
			userFile = filepath.Join(dir, UserConfigFile)
		}
	}
	if userFile != "" {
		userFile = expandHome(userFile, home)
		if err := s.readConfig(userFile, LayerUser, required, home); err != nil {
			return nil, err
		}
	}

	// 3. The project, when trusted.
	if o.ProjectDir != "" && o.Trusted {
		pol, err := ProjectFile(o.ProjectDir, ProjectPolicyFiles, "policy")
		if err != nil {
			return nil, err
		}
		if pol != "" {
			if err := insideProject(o.ProjectDir, pol); err != nil {
				return nil, fmt.Errorf("project policy %s: %w", pol, err)
			}
			s.Policy = Value{Text: pol, Origin: Origin{LayerProjectPolicy, pol}}
			s.Files = append(s.Files, pol)
		}
		cfg, err := ProjectFile(o.ProjectDir, ProjectConfigFiles, "config")
		if err != nil {
			return nil, err
		}
		if cfg != "" {
			if err := s.readConfig(cfg, LayerProject, false, home); err != nil {
				return nil, err
			}
		}
	}

	// 4. The environment.
	if p, ok := getenv(EnvPrefix + "POLICY"); ok && p != "" {
		s.Policy = Value{Text: resolvePolicy(p, "", home), Origin: Origin{LayerEnv, EnvPrefix + "POLICY"}}
	}
	if p, ok := getenv(EnvPrefix + "DECISION_LOG"); ok {
		s.DecisionLog = Value{Text: expandHome(p, home), Origin: Origin{LayerEnv, EnvPrefix + "DECISION_LOG"}}
	}
	for _, kv := range env {
		name, val, ok := strings.Cut(kv, "=")
		if ok && strings.HasPrefix(name, EnvParamPrefix) && len(name) > len(EnvParamPrefix) {
			s.setParam(strings.ToLower(name[len(EnvParamPrefix):]), Value{Text: val, Origin: Origin{LayerEnv, name}})
		}
	}

	// 5. Flags.
	if fl := o.Flags; fl != nil {
		if f := fl.Lookup(FlagPolicy); f != nil && f.Changed {
			s.Policy = Value{Text: resolvePolicy(f.Value.String(), "", home), Origin: Origin{LayerFlag, "--" + FlagPolicy}}
		}
		if f := fl.Lookup(FlagDecisionLog); f != nil && f.Changed {
			s.DecisionLog = Value{Text: expandHome(f.Value.String(), home), Origin: Origin{LayerFlag, "--" + FlagDecisionLog}}
		}
		if f := fl.Lookup(FlagSet); f != nil && f.Changed {
			pairs, err := fl.GetStringArray(FlagSet)
			if err != nil {
				return nil, err
			}
			for _, p := range pairs {
				name, val, ok := strings.Cut(p, "=")
				name = strings.TrimSpace(name)
				if !ok || name == "" {
					return nil, fmt.Errorf("--set %q: want PARAM=VALUE", p)
				}
				s.setParam(name, Value{Text: val, Origin: Origin{LayerFlag, "--set"}})
			}
		}
	}
	names := make([]string, 0, len(o.Set))
	for n := range o.Set {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		s.setParam(n, Value{Text: o.Set[n], Origin: Origin{LayerFlag, o.SetOrigin}})
	}
	if s.Policy.Text == "" {
		return nil, errors.New("policy: empty setting")
	}
	return s, nil
}

// setParam sets a param override, keeping a replaced value of a lower
// layer as shadowed.
func (s *Settings) setParam(name string, v Value) {
	if old, ok := s.Params[name]; ok && old.Origin.Layer < v.Origin.Layer {
		s.Shadowed[name] = append(s.Shadowed[name], old)
	}
	s.Params[name] = v
}

// ProjectPolicy reports whether the policy in force is the project's own
// file: .pi/resetpolicy.hcl, or a file the project config names.
func (s *Settings) ProjectPolicy() bool {
	l := s.Policy.Origin.Layer
	return (l == LayerProjectPolicy || l == LayerProject) && !IsBuiltinName(s.Policy.Text)
}

// readConfig merges one config file into s. A missing optional file is
// skipped.
func (s *Settings) readConfig(path string, layer Layer, required bool, home string) error {
	info, err := os.Stat(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) && !required {
			return nil
		}
		return fmt.Errorf("config %s: %w", path, err)
	}
	// A FIFO would hang the read and a device (/dev/zero) never end it.
	if !info.Mode().IsRegular() {
		return fmt.Errorf("config %s: not a regular file", path)
	}
	if layer == LayerProject {
		if err := insideProject(s.ProjectDir, path); err != nil {
			return fmt.Errorf("config %s: %w", path, err)
		}
	}
	b, err := readConfigFile(path)
	if err != nil {
		return fmt.Errorf("config %s: %w", path, err)
	}
	v := viper.New()
	typ := strings.TrimPrefix(strings.ToLower(filepath.Ext(path)), ".")
	switch typ {
	case "yaml", "yml", "json", "toml":
	default:
		typ = "yaml"
	}
	v.SetConfigType(typ)
	pl := places{file: path}
	if typ == "yaml" || typ == "yml" {
		// Decoded here, in linear time: see decodeYAML.
		m, doc, err := decodeYAMLDoc(b)
		if err != nil {
			return yamlError(path, err)
		}
		if err := v.MergeConfigMap(m); err != nil {
			return fmt.Errorf("config %s: %w", path, err)
		}
		pl = newPlaces(path, doc)
		if s.configs == nil {
			s.configs = map[string][]byte{}
		}
		s.configs[path] = b
	} else if err := v.ReadConfig(bytes.NewReader(b)); err != nil {
		return fmt.Errorf("config %s: %w", path, err)
	}
	all := v.AllSettings()
	origin := Origin{layer, path}
	keys := make([]string, 0, len(all))
	for k := range all {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		val := all[k]
		switch k {
		case KeyPolicy:
			t, ok := val.(string)
			if !ok || strings.TrimSpace(t) == "" {
				return fmt.Errorf("%s: %s must be a policy name or file", pl.at(k), KeyPolicy)
			}
			pol := resolvePolicy(t, filepath.Dir(path), home)
			if !IsBuiltinName(pol) {
				// Checked and opened as the same, lexically clean, path.
				pol = filepath.Clean(pol)
			}
			if layer == LayerProject && !IsBuiltinName(pol) {
				if err := insideProject(s.ProjectDir, pol); err != nil {
					return fmt.Errorf("%s: %s: %w", pl.at(k), KeyPolicy, err)
				}
			}
			s.Policy = Value{Text: pol, Origin: origin, Range: pl.value(k)}
		case KeyDecisionLog:
			t, ok := val.(string)
			if !ok {
				return fmt.Errorf("%s: %s must be a file path", pl.at(k), KeyDecisionLog)
			}
			if t != "" {
				t = expandHome(t, home)
				if !filepath.IsAbs(t) {
					t = filepath.Join(filepath.Dir(path), t)
				}
				t = filepath.Clean(t)
				if layer == LayerProject {
					if err := insideProject(s.ProjectDir, t); err != nil {
						return fmt.Errorf("%s: %s: %w", pl.at(k), KeyDecisionLog, err)
					}
				}
			}
			s.DecisionLog = Value{Text: t, Origin: origin}
		case KeyParams:
			m, ok := val.(map[string]any)
			if !ok {
				return fmt.Errorf("%s: %s must map param names to values", pl.at(k), KeyParams)
			}
			names := make([]string, 0, len(m))
			for n := range m {
				names = append(names, n)
			}
			sort.Strings(names)
			for _, n := range names {
				t, err := valueText(m[n])
				if err != nil {
					return fmt.Errorf("%s: params.%s: %w", pl.paramAt(n), n, err)
				}
				val, name := pl.param(n)
				s.setParam(n, Value{Text: t, Origin: origin, Range: val, NameRange: name})
			}
		default:
			return fmt.Errorf("%s: unknown key %q (known: %s, %s, %s)", pl.at(k), k, KeyPolicy, KeyParams, KeyDecisionLog)
		}
	}
	s.Files = append(s.Files, path)
	return nil
}

// MaxConfigBytes bounds a config file: 1 MiB, far beyond any real one.
const MaxConfigBytes = 1 << 20

// readConfigFile reads a regular file within MaxConfigBytes; O_NONBLOCK
// keeps a FIFO swapped in after the caller's check from hanging the open.
func readConfigFile(path string) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if info, err := f.Stat(); err != nil || !info.Mode().IsRegular() {
		return nil, errors.New("not a regular file")
	}
	b, err := io.ReadAll(io.LimitReader(f, MaxConfigBytes+1))
	if err != nil {
		return nil, err
	}
	if len(b) > MaxConfigBytes {
		return nil, fmt.Errorf("larger than %d bytes", MaxConfigBytes)
	}
	return b, nil
}

// valueText turns a config value into the text a param override takes.
func valueText(v any) (string, error) {
	switch x := v.(type) {
	case string:
		return x, nil
	case bool:
		return strconv.FormatBool(x), nil
	case int:
		return strconv.Itoa(x), nil
	case int64:
		return strconv.FormatInt(x, 10), nil
	case uint64:
		return strconv.FormatUint(x, 10), nil
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return "", fmt.Errorf("%v is not a finite number", x)
		}
		return strconv.FormatFloat(x, 'g', -1, 64), nil
	case []any:
		for _, e := range x {
			if f, ok := e.(float64); ok && (math.IsNaN(f) || math.IsInf(f, 0)) {
				return "", fmt.Errorf("%v is not a finite number", f)
			}
		}
		b, err := json.Marshal(x)
		if err != nil {
			return "", err
		}
		return string(b), nil
	case nil:
		return "", errors.New("no value")
	}
	return "", fmt.Errorf("a %T cannot be a param value", v)
}

// resolvePolicy makes a policy file path absolute against dir (the config
// file's directory), leaving built-in names alone.
func resolvePolicy(p, dir, home string) string {
	p = strings.TrimSpace(p)
	if IsBuiltinName(p) {
		return p
	}
	p = expandHome(p, home)
	if !filepath.IsAbs(p) && dir != "" {
		p = filepath.Join(dir, p)
	}
	return p
}

// insideProject checks that path, with every symlink in it resolved, is
// inside the project directory (resolved too): a project's settings name
// files in the project and nowhere else. A path that does not exist yet (a
// decision log) is resolved as far as it exists.
func insideProject(projectDir, path string) error {
	root, err := filepath.EvalSymlinks(projectDir)
	if err != nil {
		return fmt.Errorf("project directory: %w", err)
	}
	if root, err = filepath.Abs(root); err != nil {
		return err
	}
	target, err := resolveExisting(path)
	if err != nil {
		return err
	}
	rel, err := filepath.Rel(root, target)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return fmt.Errorf("%s is outside the project directory %s (symlinks resolved: %s); a project's settings may only name files inside it", path, projectDir, target)
	}
	return nil
}

// resolveExisting resolves the symlinks of the longest existing prefix of
// path and appends the rest.
func resolveExisting(path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	rest := ""
	for dir := abs; ; {
		if r, err := filepath.EvalSymlinks(dir); err == nil {
			return filepath.Join(r, rest), nil
		} else if !errors.Is(err, fs.ErrNotExist) {
			return "", err
		}
		if info, err := os.Lstat(dir); err == nil && info.Mode()&fs.ModeSymlink != 0 {
			// A dangling symlink leads wherever it will point later.
			return "", fmt.Errorf("%s leads through the dangling symlink %s", path, dir)
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return abs, nil
		}
		rest = filepath.Join(filepath.Base(dir), rest)
		dir = parent
	}
}

func expandHome(p, home string) string {
	if home != "" && (p == "~" || strings.HasPrefix(p, "~/")) {
		return filepath.Join(home, p[1:])
	}
	return p
}

// Overrides returns the param overrides in name order, each with its
// origin, for rules.WithOverrides.
func (s *Settings) Overrides() []rules.Override {
	names := make([]string, 0, len(s.Params))
	for n := range s.Params {
		names = append(names, n)
	}
	sort.Strings(names)
	out := make([]rules.Override, 0, len(names))
	for _, n := range names {
		v := s.Params[n]
		// A user-level param applies to the policies that declare it, and
		// gives way to a value the project's policy file sets.
		user := v.Origin.Layer == LayerUser
		out = append(out, rules.Override{Name: n, Raw: v.Text, Origin: v.Origin.String(), Scoped: user, Yield: user && s.ProjectPolicy(), Range: v.Range, NameRange: v.NameRange})
	}
	return out
}

// LoadPolicy loads the policy the settings name, with their overrides
// (then opts).
func (s *Settings) LoadPolicy(opts ...rules.Option) (*rules.Policy, rules.Diagnostics) {
	opts = append([]rules.Option{rules.WithOverrides(s.Overrides()...)}, opts...)
	var p *rules.Policy
	var ds rules.Diagnostics
	if IsBuiltinName(s.Policy.Text) {
		p, ds = policies.Load(s.Policy.Text, nil, opts...)
	} else {
		p, ds = rules.LoadFile(s.Policy.Text, append([]rules.Option{rules.WithBuiltins(policies.Source), rules.WithBuiltinNames(policies.Names)}, opts...)...)
	}
	return p, s.placed(ds)
}

// placed puts the diagnostics about a config file's values where the file
// gives them: the config's bytes join the sources, for the snippet, and a
// problem with the policy's name, which has no place of its own, is shown
// at the name.
func (s *Settings) placed(ds rules.Diagnostics) rules.Diagnostics {
	for _, d := range ds.Diagnostics {
		if d.Subject == nil && d.Summary == "Unknown built-in policy" && s.Policy.Range != nil {
			d.Subject = s.Policy.Range
		}
		if d.Subject == nil {
			continue
		}
		if b, ok := s.configs[d.Subject.Filename]; ok {
			if ds.Sources == nil {
				ds.Sources = map[string][]byte{}
			}
			ds.Sources[d.Subject.Filename] = b
		}
	}
	return ds
}

// Entry is one effective setting for display.
type Entry struct {
	Key    string `json:"key"`
	Value  string `json:"value"`
	Origin string `json:"origin"`
}

// Entries lists the effective settings: policy, decision_log, then each
// param override as params.NAME.
func (s *Settings) Entries() []Entry {
	out := []Entry{
		{KeyPolicy, s.Policy.Text, s.Policy.Origin.String()},
		{KeyDecisionLog, s.DecisionLog.Text, s.DecisionLog.Origin.String()},
	}
	for _, ov := range s.Overrides() {
		out = append(out, Entry{KeyParams + "." + ov.Name, ov.Raw, ov.Origin})
	}
	return out
}

// ProjectFile finds the one of names (below dir) that exists, or "" when
// none does. Two that exist are an error naming both: which one is in
// force would otherwise depend on an order the user cannot see.
func ProjectFile(dir string, names []string, what string) (string, error) {
	found := ""
	for _, n := range names {
		path := filepath.Join(dir, n)
		info, err := os.Stat(path)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			return "", fmt.Errorf("project %s: %w", what, err)
		}
		if info.IsDir() {
			continue
		}
		if found != "" {
			return "", fmt.Errorf("project %s: both %s and %s exist; keep one (%s is read by every host)", what, found, path, names[0])
		}
		found = path
	}
	return found, nil
}
