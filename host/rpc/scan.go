package rpc

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"unicode/utf8"

	"github.com/resetpolicy/resetpolicy/engine"
	"github.com/resetpolicy/resetpolicy/rules/contract"
)

// The decide path is the hot one: a host sends one request per lifecycle
// event. Instead of decoding the request three times with reflection
// (envelope, params, event), the line is validated once with json.Valid
// and then split into members by the small scanner below, which may assume
// valid JSON.

var errNotObject = errors.New("not a JSON object")

// interned holds the strings every request repeats (member names, event
// and fact names, enum values), so decoding them allocates nothing.
var interned = map[string]string{}

func init() {
	add := func(ss ...string) {
		for _, s := range ss {
			interned[s] = s
		}
	}
	add("jsonrpc", "2.0", "id", "method", "params", "session", "event", "explain", "decide")
	for _, e := range contract.Events {
		add(e.Name)
		for _, f := range e.AllFacts() {
			add(f.Name)
			add(f.Enum...)
		}
	}
}

// members calls fn with each member of the JSON object b in order: the
// decoded key and the raw value. b must be valid JSON.
func members(b []byte, fn func(key string, val []byte) error) error {
	i := skipWS(b, 0)
	if i >= len(b) || b[i] != '{' {
		return errNotObject
	}
	i++
	for {
		i = skipWS(b, i)
		if i >= len(b) {
			return errNotObject
		}
		switch b[i] {
		case '}':
			return nil
		case ',':
			i = skipWS(b, i+1)
		}
		end := stringEnd(b, i)
		key, err := unquote(b[i:end])
		if err != nil {
			return err
		}
		i = skipWS(b, end)
		i = skipWS(b, i+1) // ':'
		vend := valueEnd(b, i)
		if err := fn(key, b[i:vend]); err != nil {
			return err
		}
		i = vend
	}
}

func skipWS(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// stringEnd returns the index just after the string starting at b[i].
func stringEnd(b []byte, i int) int {
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return len(b)
}

// valueEnd returns the index just after the value starting at b[i].
func valueEnd(b []byte, i int) int {
	if i >= len(b) {
		return i
	}
	switch b[i] {
	case '"':
		return stringEnd(b, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				j = stringEnd(b, j) - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1
				}
			}
		}
		return len(b)
	}
	j := i
	for j < len(b) && b[j] != ',' && b[j] != '}' && b[j] != ']' && b[j] != ' ' && b[j] != '\t' && b[j] != '\n' && b[j] != '\r' {
		j++
	}
	return j
}

// unquote decodes a raw JSON string.
func unquote(raw []byte) (string, error) {
	if len(raw) < 2 || raw[0] != '"' {
		return "", errors.New("not a string")
	}
	inner := raw[1 : len(raw)-1]
	if s, ok := interned[string(inner)]; ok {
		return s, nil
	}
	if bytes.IndexByte(inner, '\\') < 0 && utf8.Valid(inner) {
		return string(inner), nil
	}
	var s string
	err := json.Unmarshal(raw, &s)
	return s, err
}

// rawValue turns a raw JSON value into what engine.NewEvent takes: a
// string, a json.Number, a bool, nil, or a decoded object or array.
func rawValue(raw []byte) (any, error) {
	switch raw[0] {
	case '"':
		return unquote(raw)
	case 't':
		return true, nil
	case 'f':
		return false, nil
	case 'n':
		return nil, nil
	case '{', '[':
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber()
		var v any
		err := dec.Decode(&v)
		return v, err
	}
	return json.Number(raw), nil
}

// parseEvent reads a host event from a raw JSON object (valid JSON).
func parseEvent(raw []byte) (engine.Event, error) {
	m := make(map[string]any, 16)
	err := members(raw, func(key string, val []byte) error {
		v, err := rawValue(val)
		if err != nil {
			return fmt.Errorf("fact %q: %v", key, err)
		}
		m[key] = v
		return nil
	})
	if err != nil {
		return engine.Event{}, err
	}
	return engine.NewEvent(m)
}
