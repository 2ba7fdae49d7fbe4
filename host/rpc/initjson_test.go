package rpc

import (
	"encoding/json"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/resetpolicy/resetpolicy/host/settings"
)

// The hand-written initialize JSON is encoding/json's, byte for byte: on
// the results of real loads (each built-in, a project policy, a failed
// load with diagnostics, many settings) and on one result with every field
// set, every kind of value and every character json escapes.
func TestInitializeJSONIsEncodingJSONs(t *testing.T) {
	var results []InitializeResult
	for _, project := range []string{
		"",
		"use \"new_context\" {}\n",
		"use \"autocompacter\" {}\n",
		"policy \"broken\" {\n  nonsense = \n}\n",
	} {
		s := newTestServer(t, "RESETPOLICY_PARAMS_RESERVE=1")
		dir := ""
		if project != "" {
			dir = writeProject(t, project)
		}
		results = append(results, s.load(dir, true))
	}
	full := everyField()
	results = append(results, full, InitializeResult{})
	for i, r := range results {
		want, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		got, err := r.appendJSON(nil)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(want) {
			t.Errorf("result %d:\n got %s\nwant %s", i, got, want)
		}
	}
	if unset := zeroFields(reflect.ValueOf(full), "InitializeResult"); len(unset) > 0 {
		t.Errorf("everyField leaves fields unset, so the comparison does not cover them: %s", strings.Join(unset, ", "))
	}
}

// A value json cannot write fails as json fails, not with bad JSON.
func TestInitializeJSONRefusesWhatJSONRefuses(t *testing.T) {
	r := everyField()
	r.Surface.Params[0].Value = math.Inf(1)
	if _, err := json.Marshal(r); err == nil {
		t.Fatal("json.Marshal took +Inf")
	}
	if b, err := r.appendJSON(nil); err == nil {
		t.Fatalf("appendJSON took +Inf: %s", b)
	}
}

const awkward = "quote\" back\\ nl\n tab\t ctl\x01 <html> & \u2028\u2029 ünï 🙂 bad\xff"

func everyField() InitializeResult {
	return InitializeResult{
		ProtocolVersion: "1" + awkward,
		ContractVersion: "2" + awkward,
		Policy:          PolicyInfo{Name: "n" + awkward, Description: "d", Source: "s", Origin: "o"},
		Surface: Surface{
			Tools:    []Tool{{Name: "t", Description: awkward, Parameters: []ToolParameter{{Name: "p", Type: "string", Description: "d", Required: true}}}, {Name: "u", Parameters: nil}},
			Commands: []Command{{Name: "c", Description: "d", Usage: "u"}, {Name: "c2"}},
			Messages: map[string]string{"b": awkward, "a": "x", "<": ">"},
			Params: []Param{
				{Name: "a", Type: "number", Value: 1.5e-7, Default: 1e21, Origin: "o", Description: "d", Shadowed: []settings.ShadowedValue{{Value: "v", Origin: "o"}}},
				{Name: "b", Type: "number", Value: int64(-42), Default: 123456789.125, Shadowed: []settings.ShadowedValue{}},
				{Name: "c", Type: "list", Value: []any{"x", true, nil, 2.0, []any{}, map[string]any{"k": "v"}}, Default: []any{}},
				{Name: "d", Type: "bool", Value: false, Default: 0.0},
				{Name: "e", Type: "other", Value: []string{"json", "itself"}, Default: map[string]int{"z": 1}},
				{Name: "f", Type: "number", Value: 3, Default: -0.0000001},
			},
			Durable: map[string]any{"z": "last", "a": 1.0, "m": map[string]any{"y": nil, "x": []any{1e-9}}},
		},
		Texts:        BoundaryTexts{Boot: "boot" + awkward, Continuation: "cont"},
		Settings:     []settings.Entry{{Key: "k", Value: awkward, Origin: "o"}},
		SettingsMore: 7,
		DecisionLog:  "/tmp/log" + awkward,
		Fallback:     true,
		Error:        "e" + awkward,
		Diagnostics: []Diagnostic{
			{Severity: "error", Summary: "s", Detail: "d" + awkward, File: "f", Line: 3, Column: 9},
			{Severity: "warning", Summary: "only a summary"},
		},
		SessionsReset: true,
		Host:          "opencode \"x\"",
		HostGaps:      3,
	}
}

// zeroFields names the struct fields left at their zero value in v,
// looking into structs and the first element of slices.
func zeroFields(v reflect.Value, path string) []string {
	var out []string
	switch v.Kind() {
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			f := v.Field(i)
			name := path + "." + v.Type().Field(i).Name
			if f.IsZero() {
				out = append(out, name)
				continue
			}
			out = append(out, zeroFields(f, name)...)
		}
	case reflect.Slice:
		if v.Len() > 0 {
			out = append(out, zeroFields(v.Index(0), path+"[0]")...)
		}
	}
	return out
}
