package settings

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"go.yaml.in/yaml/v3"
)

// maxYAMLNodes bounds the values a YAML config expands to, aliases
// included: a config file is at most MaxConfigBytes, so a real one has far
// fewer, and an alias bomb stops here.
const maxYAMLNodes = 1 << 20

// decodeYAML decodes a YAML config into maps, lists and scalars in time
// linear in its size. yaml's own decoder checks each mapping for
// duplicate keys by comparing every key with every later one, so a
// config of 60,000 params took seconds (quadratic); here a mapping's keys
// are checked with a set, and each scalar is decoded by yaml itself.
func decodeYAML(b []byte) (map[string]any, error) {
	m, _, err := decodeYAMLDoc(b)
	return m, err
}

// decodeYAMLDoc is decodeYAML that also gives the document's tree, for
// the places of its settings (nil for an empty file).
func decodeYAMLDoc(b []byte) (map[string]any, *yaml.Node, error) {
	dec := yaml.NewDecoder(bytes.NewReader(b))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return map[string]any{}, nil, nil // an empty file
		}
		return nil, nil, err
	}
	var next yaml.Node
	if err := dec.Decode(&next); !errors.Is(err, io.EOF) {
		return nil, nil, errors.New("a config file holds one YAML document")
	}
	c := yamlConv{}
	v, err := c.value(&doc)
	if err != nil {
		return nil, nil, err
	}
	switch m := v.(type) {
	case nil:
		return map[string]any{}, &doc, nil
	case map[string]any:
		return m, &doc, nil
	}
	return nil, nil, errors.New("a config file is a mapping of settings")
}

type yamlConv struct {
	nodes int
	depth int // mappings open; 1 in the document's own
	// open are the anchored nodes being converted: an alias to one of
	// them would make the value contain itself.
	open map[*yaml.Node]bool
}

// enter marks an aliased node as being converted, refusing one that
// already is.
func (c *yamlConv) enter(n *yaml.Node) error {
	if c.open == nil {
		c.open = map[*yaml.Node]bool{}
	}
	if c.open[n] {
		return fmt.Errorf("yaml: anchor %q value contains itself", n.Anchor)
	}
	c.open[n] = true
	return nil
}

func (c *yamlConv) value(n *yaml.Node) (any, error) {
	if c.nodes++; c.nodes > maxYAMLNodes {
		return nil, fmt.Errorf("more than %d values, aliases expanded", maxYAMLNodes)
	}
	if n.Anchor != "" {
		if err := c.enter(n); err != nil {
			return nil, err
		}
		defer delete(c.open, n)
	}
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			return nil, nil
		}
		return c.value(n.Content[0])
	case yaml.AliasNode:
		if n.Alias == nil {
			return nil, errors.New("yaml: an alias without its anchor")
		}
		return c.value(n.Alias)
	case yaml.SequenceNode:
		out := make([]any, 0, len(n.Content))
		for _, e := range n.Content {
			v, err := c.value(e)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return out, nil
	case yaml.MappingNode:
		out := make(map[string]any, len(n.Content)/2)
		line := make(map[string]int, len(n.Content)/2)
		c.depth++
		err := c.mapping(n, out, line, false, c.depth == 1 || stringMap(n))
		c.depth--
		if err != nil {
			return nil, err
		}
		return out, nil
	}
	var v any
	if err := n.Decode(&v); err != nil {
		return nil, err
	}
	return v, nil
}

// mapping adds n's pairs to out. A merge key (<<) adds the pairs of the
// mappings it names where out has none of its own, as YAML merges them.
// strKeys says how keys become strings, as yaml decides it for the mapping
// being filled (out), merged pairs included: see mapKey.
func (c *yamlConv) mapping(n *yaml.Node, out map[string]any, line map[string]int, merged, strKeys bool) error {
	if c.nodes++; c.nodes > maxYAMLNodes {
		return fmt.Errorf("more than %d values, aliases expanded", maxYAMLNodes)
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind == yaml.ScalarNode && k.Tag == "!!merge" {
			if err := c.merge(v, out, line, strKeys); err != nil {
				return err
			}
			continue
		}
		key, ok, err := c.mapKey(k, strKeys)
		if err != nil {
			return err
		}
		if !ok {
			continue // a null key: yaml leaves its entry out of a map of strings
		}
		if at, dup := line[key]; dup {
			if merged {
				continue // a key of the mapping itself wins over a merged one
			}
			if at > 0 {
				return fmt.Errorf("yaml: line %d: mapping key %q already defined at line %d", k.Line, key, at)
			}
		}
		val, err := c.value(v)
		if err != nil {
			return err
		}
		if merged {
			line[key] = 0
		} else {
			line[key] = k.Line
		}
		out[key] = val
	}
	return nil
}

// stringMap is yaml's own test (isStringMap) of whether a mapping decodes
// into a map of strings: every key of its own a string or a merge key.
func stringMap(n *yaml.Node) bool {
	for i := 0; i < len(n.Content); i += 2 {
		if t := n.Content[i].ShortTag(); t != "!!str" && t != "!!merge" {
			return false
		}
	}
	return true
}

func (c *yamlConv) merge(v *yaml.Node, out map[string]any, line map[string]int, strKeys bool) error {
	if v.Kind == yaml.AliasNode {
		v = v.Alias
	}
	if v == nil {
		return errors.New("yaml: an alias without its anchor")
	}
	if v.Anchor != "" {
		// A mapping merged into itself, directly or not.
		if err := c.enter(v); err != nil {
			return err
		}
		defer delete(c.open, v)
	}
	switch v.Kind {
	case yaml.MappingNode:
		return c.mapping(v, out, line, true, strKeys)
	case yaml.SequenceNode:
		for _, e := range v.Content {
			if err := c.merge(e, out, line, strKeys); err != nil {
				return err
			}
		}
		return nil
	}
	return errors.New("yaml: map merge requires map or sequence of maps as the value")
}

// mapKey is a key as yaml and viper give it. yaml decodes a mapping into a
// map of strings when it is the document's own (decoded into the settings'
// map) or when all of its own keys are strings or merge keys (stringMap),
// and then a key is its text, merged keys too (an int key 00 stays "00"; a
// null key's entry is left out); any other mapping becomes a map of any
// values, its keys decoded as values and made strings by viper as fmt does
// (00 is then "0").
func (c *yamlConv) mapKey(k *yaml.Node, strKeys bool) (string, bool, error) {
	if !strKeys {
		var v any
		if err := k.Decode(&v); err != nil {
			return "", false, err
		}
		return fmt.Sprint(v), true, nil
	}
	if k.Kind == yaml.AliasNode && k.Alias != nil {
		k = k.Alias
	}
	if k.Kind != yaml.ScalarNode {
		return "", false, fmt.Errorf("yaml: line %d: a mapping key must be a scalar", k.Line)
	}
	if k.ShortTag() == "!!null" {
		return "", false, nil
	}
	return k.Value, true, nil
}
