package settings

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sync"

	"go.yaml.in/yaml/v3"
)

// paramName is what a param's name may be; compiled when a param is
// first saved, not at every start of the binary.
var paramName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z_][a-z0-9_]*$`) })

// SaveParam persists a param value in the project config file
// (.pi/resetpolicy.yaml below projectDir), creating it when needed. Other
// keys, params and comments in the file are kept. value is YAML text (a
// number, a string, a list such as [5000, 10000]).
//
// A project with no config file yet gets one where host keeps it (see
// newConfigFile); "" is the default host, Pi.
func SaveParam(projectDir, host, name, value string) (string, error) {
	return editParams(projectDir, host, name, func(params *yaml.Node) error {
		var v yaml.Node
		if err := yaml.Unmarshal([]byte(value), &v); err != nil || len(v.Content) != 1 {
			v = yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{{Kind: yaml.ScalarNode, Value: value}}}
		}
		val := v.Content[0]
		for i := 0; i+1 < len(params.Content); i += 2 {
			if params.Content[i].Value == name {
				params.Content[i+1] = val
				return nil
			}
		}
		params.Content = append(params.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: name}, val)
		return nil
	})
}

// ClearParam removes a persisted param value from the project config
// file, so the policy's value applies again. A missing file or param is
// not an error.
func ClearParam(projectDir, name string) (string, error) {
	return editParams(projectDir, "", name, func(params *yaml.Node) error {
		for i := 0; i+1 < len(params.Content); i += 2 {
			if params.Content[i].Value == name {
				params.Content = append(params.Content[:i], params.Content[i+2:]...)
				return nil
			}
		}
		return nil
	})
}

func editParams(projectDir, host, name string, edit func(params *yaml.Node) error) (string, error) {
	if projectDir == "" {
		return "", errors.New("no project directory")
	}
	if !paramName().MatchString(name) {
		return "", fmt.Errorf("%q is not a param name", name)
	}
	path, err := ProjectFile(projectDir, ProjectConfigFiles, "config")
	if err != nil {
		return filepath.Join(projectDir, ProjectConfigFile), err
	}
	if path == "" {
		path = filepath.Join(projectDir, newConfigFile(projectDir, host))
	}
	// Written only inside the project (.pi/ may be a symlink leading out),
	// and read as readConfig reads it.
	if err := insideProject(projectDir, path); err != nil {
		return path, fmt.Errorf("config %s: %w", path, err)
	}
	var b []byte
	if info, err := os.Stat(path); err == nil {
		if !info.Mode().IsRegular() {
			return path, fmt.Errorf("config %s: not a regular file", path)
		}
		if b, err = readConfigFile(path); err != nil {
			return path, fmt.Errorf("config %s: %w", path, err)
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return path, fmt.Errorf("config %s: %w", path, err)
	}
	var doc yaml.Node
	if len(bytes.TrimSpace(b)) > 0 {
		if err := yaml.Unmarshal(b, &doc); err != nil {
			return path, fmt.Errorf("config %s: %w", path, err)
		}
	}
	if doc.Kind == 0 {
		doc = yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{{Kind: yaml.MappingNode}}}
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		return path, fmt.Errorf("config %s: not a mapping of settings", path)
	}
	var params *yaml.Node
	for i := 0; i+1 < len(root.Content); i += 2 {
		if root.Content[i].Value == KeyParams {
			params = root.Content[i+1]
		}
	}
	if params == nil {
		params = &yaml.Node{Kind: yaml.MappingNode}
		root.Content = append(root.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: KeyParams}, params)
	}
	if params.Kind != yaml.MappingNode {
		if params.Tag == "!!null" {
			*params = yaml.Node{Kind: yaml.MappingNode}
		} else {
			return path, fmt.Errorf("config %s: %s is not a mapping", path, KeyParams)
		}
	}
	if err := edit(params); err != nil {
		return path, err
	}
	var out bytes.Buffer
	enc := yaml.NewEncoder(&out)
	enc.SetIndent(2)
	if err := enc.Encode(&doc); err != nil {
		return path, fmt.Errorf("config %s: %w", path, err)
	}
	if err := enc.Close(); err != nil {
		return path, err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return path, err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".resetpolicy-*.yaml")
	if err != nil {
		return path, err
	}
	if _, err := tmp.Write(out.Bytes()); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return path, err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return path, err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		os.Remove(tmp.Name())
		return path, err
	}
	return path, nil
}

// newConfigFile is where a project's first saved param goes: beside the
// project's shared policy file when it has one, so that every host reads
// it; for Pi (host "" or "pi") in .pi/, where Pi projects have always kept
// it; for any other host at the project's root, where every host reads it.
func newConfigFile(projectDir, host string) string {
	if info, err := os.Stat(filepath.Join(projectDir, SharedPolicyFile)); err == nil && !info.IsDir() {
		return SharedConfigFile
	}
	if host == "" || host == "pi" {
		return ProjectConfigFile
	}
	return SharedConfigFile
}
