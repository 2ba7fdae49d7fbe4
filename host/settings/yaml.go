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
	dec := yaml.NewDecoder(bytes.NewReader(b))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return map[string]any{}, nil // an empty file
		}
		return nil, err
	}
	var next yaml.Node
	if err := dec.Decode(&next); !errors.Is(err, io.EOF) {
		return nil, errors.New("a config file holds one YAML document")
	}
	c := yamlConv{}
	v, err := c.value(&doc)
	if err != nil {
		return nil, err
	}
	switch m := v.(type) {
	case nil:
		return map[string]any{}, nil
	case map[string]any:
		return m, nil
	}
	return nil, errors.New("a config file is a mapping of settings")
}

type yamlConv struct{ nodes int }

func (c *yamlConv) value(n *yaml.Node) (any, error) {
	if c.nodes++; c.nodes > maxYAMLNodes {
		return nil, fmt.Errorf("more than %d values, aliases expanded", maxYAMLNodes)
	}
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			return nil, nil
		}
		return c.value(n.Content[0])
	case yaml.AliasNode:
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
		if err := c.mapping(n, out, line, false); err != nil {
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
func (c *yamlConv) mapping(n *yaml.Node, out map[string]any, line map[string]int, merged bool) error {
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind == yaml.ScalarNode && k.Tag == "!!merge" {
			if err := c.merge(v, out, line); err != nil {
				return err
			}
			continue
		}
		kv, err := c.value(k)
		if err != nil {
			return err
		}
		key := fmt.Sprint(kv)
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

func (c *yamlConv) merge(v *yaml.Node, out map[string]any, line map[string]int) error {
	if v.Kind == yaml.AliasNode {
		v = v.Alias
	}
	switch v.Kind {
	case yaml.MappingNode:
		return c.mapping(v, out, line, true)
	case yaml.SequenceNode:
		for _, e := range v.Content {
			if err := c.merge(e, out, line); err != nil {
				return err
			}
		}
		return nil
	}
	return errors.New("yaml: map merge requires map or sequence of maps as the value")
}
