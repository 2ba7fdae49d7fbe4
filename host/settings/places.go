package settings

import (
	"fmt"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"go.yaml.in/yaml/v3"
)

// places are where a YAML config file gives its settings, so that a
// mistake in one is reported at its line and column, as a policy file's
// are. Names are lower-cased, as viper gives them; each maps to its key's
// node and its value's.
type places struct {
	file   string
	keys   map[string][2]*yaml.Node // top-level settings
	params map[string][2]*yaml.Node // the params mapping's own entries
}

func newPlaces(file string, doc *yaml.Node) places {
	p := places{file: file, keys: map[string][2]*yaml.Node{}, params: map[string][2]*yaml.Node{}}
	top := doc
	if top != nil && top.Kind == yaml.DocumentNode && len(top.Content) > 0 {
		top = top.Content[0]
	}
	if top == nil || top.Kind != yaml.MappingNode {
		return p
	}
	for i := 0; i+1 < len(top.Content); i += 2 {
		k, v := top.Content[i], top.Content[i+1]
		name := strings.ToLower(k.Value)
		p.keys[name] = [2]*yaml.Node{k, v}
		if name != KeyParams || v.Kind != yaml.MappingNode {
			continue
		}
		for j := 0; j+1 < len(v.Content); j += 2 {
			p.params[strings.ToLower(v.Content[j].Value)] = [2]*yaml.Node{v.Content[j], v.Content[j+1]}
		}
	}
	return p
}

// at is FILE:LINE:COL of a top-level key, or of the file's start.
func (p places) at(key string) string { return p.pos(p.keys[key][0]) }

// paramAt is FILE:LINE:COL of a param's value, or of the params key.
func (p places) paramAt(name string) string {
	if kv, ok := p.params[name]; ok {
		return p.pos(kv[1])
	}
	return p.at(KeyParams)
}

func (p places) pos(n *yaml.Node) string {
	if n == nil {
		return p.file + ":1:1"
	}
	return fmt.Sprintf("%s:%d:%d", p.file, n.Line, n.Column)
}

// value is the range of a top-level setting's value, or nil.
func (p places) value(key string) *hcl.Range {
	if kv, ok := p.keys[key]; ok {
		return p.rng(kv[1])
	}
	return nil
}

// param is the range of a param's value and of its name, or nils when the
// file does not give the param itself (a merged mapping).
func (p places) param(name string) (value, key *hcl.Range) {
	kv, ok := p.params[name]
	if !ok {
		return nil, nil
	}
	return p.rng(kv[1]), p.rng(kv[0])
}

// rng is a node's range; a plain one-line scalar's ends after its text,
// any other ends where it starts.
func (p places) rng(n *yaml.Node) *hcl.Range {
	start := hcl.Pos{Line: n.Line, Column: n.Column}
	end := start
	if n.Kind == yaml.ScalarNode && n.Style == 0 && !strings.Contains(n.Value, "\n") {
		end.Column += len([]rune(n.Value))
	}
	return &hcl.Range{Filename: p.file, Start: start, End: end}
}

// yamlError words a YAML error as FILE:LINE: message; yaml (and
// decodeYAML) start an error about a line with "yaml: line N: ".
func yamlError(file string, err error) error {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	if rest, ok := strings.CutPrefix(msg, "line "); ok {
		if n, text, ok := strings.Cut(rest, ": "); ok && n != "" && strings.Trim(n, "0123456789") == "" {
			return fmt.Errorf("%s:%s: %s", file, n, text)
		}
	}
	return fmt.Errorf("%s: %s", file, msg)
}
