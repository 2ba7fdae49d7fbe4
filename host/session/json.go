package session

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"time"
)

// object is a JSON object that keeps its members' order and their raw
// values, so an entry read from a file can be inspected without losing
// anything it carries.
type object struct {
	keys []string
	vals map[string]json.RawMessage
}

func newObject() *object { return &object{vals: map[string]json.RawMessage{}} }

// parseObject decodes a JSON object, keeping member order. A repeated key
// keeps its first position and its last value, as JSON.parse does.
func parseObject(raw []byte) (*object, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, fmt.Errorf("not a JSON object")
	}
	o := newObject()
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, ok := tok.(string)
		if !ok {
			return nil, fmt.Errorf("object key is not a string")
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		o.set(key, v)
	}
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("trailing data after JSON object")
	}
	return o, nil
}

func (o *object) get(key string) json.RawMessage { return o.vals[key] }

func (o *object) has(key string) bool { _, ok := o.vals[key]; return ok }

func (o *object) set(key string, v json.RawMessage) {
	if _, ok := o.vals[key]; !ok {
		o.keys = append(o.keys, key)
	}
	o.vals[key] = v
}

// add sets key to the JSON encoding of v.
func (o *object) add(key string, v any) *object {
	o.set(key, encode(v))
	return o
}

// addOpt sets key unless v is absent: a nil pointer, nil raw message or
// nil slice, the way JSON.stringify drops undefined members.
func (o *object) addOpt(key string, v any) *object {
	if absent(v) {
		return o
	}
	return o.add(key, v)
}

func (o *object) bytes() []byte {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range o.keys {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(encode(k))
		b.WriteByte(':')
		b.Write(o.vals[k])
	}
	b.WriteByte('}')
	return b.Bytes()
}

func (o *object) MarshalJSON() ([]byte, error) { return o.bytes(), nil }

func absent(v any) bool {
	switch x := v.(type) {
	case nil:
		return true
	case json.RawMessage:
		return x == nil
	case *Usage:
		return x == nil
	case *bool:
		return x == nil
	case *string:
		return x == nil
	case []Tool:
		return x == nil
	}
	return false
}

// encode marshals v compactly without HTML escaping, the way
// JSON.stringify writes it. Values that cannot be encoded are a
// programming error in this package.
func encode(v any) []byte {
	if r, ok := v.(json.RawMessage); ok {
		var b bytes.Buffer
		if err := json.Compact(&b, r); err != nil {
			panic(fmt.Sprintf("session: invalid raw JSON: %v", err))
		}
		return b.Bytes()
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(fmt.Sprintf("session: cannot encode %T: %v", v, err))
	}
	return bytes.TrimRight(b.Bytes(), "\n")
}

// Raw encodes v as JSON the way Pi writes it (no HTML escaping). It is
// the convenient way to build Data and Details values.
func Raw(v any) json.RawMessage { return json.RawMessage(encode(v)) }

func decodeString(raw json.RawMessage) string {
	var s string
	if raw == nil || json.Unmarshal(raw, &s) != nil {
		return ""
	}
	return s
}

func isNull(raw json.RawMessage) bool {
	return raw == nil || string(bytes.TrimSpace(raw)) == "null"
}

// isoTime formats t as JavaScript's Date.toISOString does.
func isoTime(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }

// jsMillis converts an ISO entry timestamp to the Unix milliseconds Pi
// puts on derived messages (new Date(ts).getTime()); an unparsable
// timestamp becomes JSON null, as NaN does in JSON.stringify.
func jsMillis(ts string) json.RawMessage {
	t, err := time.Parse(time.RFC3339Nano, ts)
	if err != nil {
		return json.RawMessage("null")
	}
	ms := t.UnixMilli()
	if math.Abs(float64(ms)) > 8.64e15 {
		return json.RawMessage("null")
	}
	return encode(ms)
}
