package rpc

import (
	"encoding/json"
	"maps"
	"math"
	"slices"
	"strconv"

	"github.com/resetpolicy/resetpolicy/engine"
	"github.com/resetpolicy/resetpolicy/host/settings"
)

// The initialize result is written by hand, byte for byte as
// encoding/json writes it (TestInitializeJSONIsEncodingJSONs): json builds
// an encoder for each type by reflection the first time it meets it, and
// for this tree of types that was 37% of the instructions `serve` spent
// from exec to its first answer (callgrind), paid at every session start.

// appendJSON appends r's JSON.
func (r *InitializeResult) appendJSON(b []byte) ([]byte, error) {
	var err error
	b = append(b, `{"protocolVersion":`...)
	b = engine.AppendJSONString(b, r.ProtocolVersion)
	b = append(b, `,"contractVersion":`...)
	b = engine.AppendJSONString(b, r.ContractVersion)
	b = append(b, `,"policy":{"name":`...)
	b = engine.AppendJSONString(b, r.Policy.Name)
	b = append(b, `,"description":`...)
	b = engine.AppendJSONString(b, r.Policy.Description)
	b = append(b, `,"source":`...)
	b = engine.AppendJSONString(b, r.Policy.Source)
	b = append(b, `,"origin":`...)
	b = engine.AppendJSONString(b, r.Policy.Origin)
	b = append(b, `},"surface":`...)
	if b, err = r.Surface.appendJSON(b); err != nil {
		return nil, err
	}
	b = append(b, `,"texts":{"boot":`...)
	b = engine.AppendJSONString(b, r.Texts.Boot)
	b = append(b, `,"continuation":`...)
	b = engine.AppendJSONString(b, r.Texts.Continuation)
	b = append(b, `},"settings":`...)
	b = appendList(b, r.Settings, func(b []byte, e settings.Entry) []byte {
		b = append(b, `{"key":`...)
		b = engine.AppendJSONString(b, e.Key)
		b = append(b, `,"value":`...)
		b = engine.AppendJSONString(b, e.Value)
		b = append(b, `,"origin":`...)
		b = engine.AppendJSONString(b, e.Origin)
		return append(b, '}')
	})
	if r.SettingsMore != 0 {
		b = append(b, `,"settingsMore":`...)
		b = strconv.AppendInt(b, int64(r.SettingsMore), 10)
	}
	if r.DecisionLog != "" {
		b = append(b, `,"decisionLog":`...)
		b = engine.AppendJSONString(b, r.DecisionLog)
	}
	if r.Fallback {
		b = append(b, `,"fallback":true`...)
	}
	if r.Error != "" {
		b = append(b, `,"error":`...)
		b = engine.AppendJSONString(b, r.Error)
	}
	if len(r.Diagnostics) > 0 {
		b = append(b, `,"diagnostics":`...)
		b = appendList(b, r.Diagnostics, func(b []byte, d Diagnostic) []byte {
			b = append(b, `{"severity":`...)
			b = engine.AppendJSONString(b, d.Severity)
			b = append(b, `,"summary":`...)
			b = engine.AppendJSONString(b, d.Summary)
			if d.Detail != "" {
				b = append(b, `,"detail":`...)
				b = engine.AppendJSONString(b, d.Detail)
			}
			if d.File != "" {
				b = append(b, `,"file":`...)
				b = engine.AppendJSONString(b, d.File)
			}
			if d.Line != 0 {
				b = append(b, `,"line":`...)
				b = strconv.AppendInt(b, int64(d.Line), 10)
			}
			if d.Column != 0 {
				b = append(b, `,"column":`...)
				b = strconv.AppendInt(b, int64(d.Column), 10)
			}
			return append(b, '}')
		})
	}
	if r.SessionsReset {
		b = append(b, `,"sessionsReset":true`...)
	}
	if r.Host != "" {
		b = append(b, `,"host":`...)
		b = engine.AppendJSONString(b, r.Host)
	}
	if r.HostGaps != 0 {
		b = append(b, `,"hostGaps":`...)
		b = strconv.AppendInt(b, int64(r.HostGaps), 10)
	}
	return append(b, '}'), nil
}

func (sf *Surface) appendJSON(b []byte) ([]byte, error) {
	b = append(b, `{"tools":`...)
	b = appendList(b, sf.Tools, func(b []byte, t Tool) []byte {
		b = append(b, `{"name":`...)
		b = engine.AppendJSONString(b, t.Name)
		b = append(b, `,"description":`...)
		b = engine.AppendJSONString(b, t.Description)
		b = append(b, `,"parameters":`...)
		b = appendList(b, t.Parameters, func(b []byte, p ToolParameter) []byte {
			b = append(b, `{"name":`...)
			b = engine.AppendJSONString(b, p.Name)
			b = append(b, `,"type":`...)
			b = engine.AppendJSONString(b, p.Type)
			b = append(b, `,"description":`...)
			b = engine.AppendJSONString(b, p.Description)
			b = append(b, `,"required":`...)
			b = strconv.AppendBool(b, p.Required)
			return append(b, '}')
		})
		return append(b, '}')
	})
	b = append(b, `,"commands":`...)
	b = appendList(b, sf.Commands, func(b []byte, c Command) []byte {
		b = append(b, `{"name":`...)
		b = engine.AppendJSONString(b, c.Name)
		b = append(b, `,"description":`...)
		b = engine.AppendJSONString(b, c.Description)
		if c.Usage != "" {
			b = append(b, `,"usage":`...)
			b = engine.AppendJSONString(b, c.Usage)
		}
		return append(b, '}')
	})
	b = append(b, `,"messages":`...)
	if sf.Messages == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '{')
		for i, k := range slices.Sorted(maps.Keys(sf.Messages)) {
			if i > 0 {
				b = append(b, ',')
			}
			b = engine.AppendJSONString(b, k)
			b = append(b, ':')
			b = engine.AppendJSONString(b, sf.Messages[k])
		}
		b = append(b, '}')
	}
	b = append(b, `,"params":`...)
	var err error
	b = appendList(b, sf.Params, func(b []byte, p Param) []byte {
		b = append(b, `{"name":`...)
		b = engine.AppendJSONString(b, p.Name)
		b = append(b, `,"type":`...)
		b = engine.AppendJSONString(b, p.Type)
		b = append(b, `,"value":`...)
		b = appendAny(b, p.Value, &err)
		b = append(b, `,"default":`...)
		b = appendAny(b, p.Default, &err)
		b = append(b, `,"origin":`...)
		b = engine.AppendJSONString(b, p.Origin)
		b = append(b, `,"description":`...)
		b = engine.AppendJSONString(b, p.Description)
		if len(p.Shadowed) > 0 {
			b = append(b, `,"shadowed":`...)
			b = appendList(b, p.Shadowed, func(b []byte, v settings.ShadowedValue) []byte {
				b = append(b, `{"value":`...)
				b = engine.AppendJSONString(b, v.Value)
				b = append(b, `,"origin":`...)
				b = engine.AppendJSONString(b, v.Origin)
				return append(b, '}')
			})
		}
		return append(b, '}')
	})
	b = append(b, `,"durable":`...)
	b = appendAny(b, sf.Durable, &err)
	if err != nil {
		return nil, err
	}
	return append(b, '}'), nil
}

// appendList writes a slice as json does: null when nil.
func appendList[T any](b []byte, xs []T, each func([]byte, T) []byte) []byte {
	if xs == nil {
		return append(b, "null"...)
	}
	return engine.AppendJSONArray(b, xs, each)
}

// appendAny writes the values a param or a slot holds (ctyToJSON's and
// the engine's kinds) as json does; any other kind goes through
// encoding/json itself. The first error is kept in *err.
func appendAny(b []byte, v any, err *error) []byte {
	switch v := v.(type) {
	case nil:
		return append(b, "null"...)
	case string:
		return engine.AppendJSONString(b, v)
	case bool:
		return strconv.AppendBool(b, v)
	case int:
		return strconv.AppendInt(b, int64(v), 10)
	case int64:
		return strconv.AppendInt(b, v, 10)
	case float64:
		if math.IsNaN(v) || math.IsInf(v, 0) {
			if *err == nil {
				*err = &json.UnsupportedValueError{Str: strconv.FormatFloat(v, 'g', -1, 64)}
			}
			return append(b, "null"...)
		}
		return appendJSONFloat(b, v)
	case []any:
		return appendList(b, v, func(b []byte, x any) []byte { return appendAny(b, x, err) })
	case map[string]any:
		if v == nil {
			return append(b, "null"...)
		}
		b = append(b, '{')
		for i, k := range slices.Sorted(maps.Keys(v)) {
			if i > 0 {
				b = append(b, ',')
			}
			b = engine.AppendJSONString(b, k)
			b = append(b, ':')
			b = appendAny(b, v[k], err)
		}
		return append(b, '}')
	}
	out, e := json.Marshal(v)
	if e != nil {
		if *err == nil {
			*err = e
		}
		return append(b, "null"...)
	}
	return append(b, out...)
}

// appendJSONFloat formats a finite float64 as encoding/json does: the
// shortest form, in exponent form below 1e-6 or from 1e21, with a
// one-digit exponent written without its leading zero.
func appendJSONFloat(b []byte, f float64) []byte {
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		// clean up e-09 to e-9
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}
