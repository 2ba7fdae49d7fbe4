package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"

	"github.com/resetpolicy/resetpolicy/host/fileio"
	"github.com/resetpolicy/resetpolicy/host/settings"
	"github.com/resetpolicy/resetpolicy/policies"
	"github.com/resetpolicy/resetpolicy/rules"
	"github.com/resetpolicy/resetpolicy/rules/lang"
	"github.com/zclconf/go-cty/cty"
	ctyjson "github.com/zclconf/go-cty/cty/json"
)

// checkPolicyArg accepts a policy file, a directory or a built-in's name.
// Anything else is a usage error, the same for every command (exit 2),
// with the closest built-in's name when the argument looks like one.
func checkPolicyArg(arg string) error {
	if _, err := os.Stat(arg); err == nil {
		return nil
	}
	if isBuiltinName(arg) {
		if _, ok := policies.Source(arg); ok {
			return nil
		}
		return usage("%q is neither a file nor a built-in policy%s (built-ins: %s)", arg, lang.Suggest(arg, policies.Names()), strings.Join(policies.Names(), ", "))
	}
	return usage("%s: no such file or directory", arg)
}

// pathError words an error about a path as every command does,
// "PATH: no such file or directory", without the system call's name.
func pathError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s: %v", pe.Path, pe.Err)
	}
	return err
}

// readFile reads a file named on the command line; a missing one is a
// usage error.
func readFile(path string) ([]byte, error) {
	b, err := fileio.ReadInput(path, rules.MaxFileBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, usage("%s: no such file", path)
	}
	if err != nil {
		return nil, failure("%v", err)
	}
	return b, nil
}

// builtinOptions let a policy file use a built-in, with a did-you-mean for
// a misspelt one.
func builtinOptions() []rules.Option {
	return []rules.Option{rules.WithBuiltins(policies.Source), rules.WithBuiltinNames(policies.Names)}
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

type paramJSON struct {
	Name        string `json:"name"`
	Type        string `json:"type"`
	Default     any    `json:"default"`
	Value       any    `json:"value"`
	Origin      string `json:"origin"`
	Description string `json:"description,omitempty"`
}

type policyJSON struct {
	Name        string      `json:"name"`
	Description string      `json:"description"`
	File        string      `json:"file,omitempty"`
	Uses        string      `json:"uses,omitempty"`
	Params      []paramJSON `json:"params"`
	Slots       []string    `json:"slots"`
	Rules       []ruleJSON  `json:"rules"`
}

type ruleJSON struct {
	Name   string `json:"name"`
	Group  string `json:"group"`
	Origin string `json:"origin,omitempty"`
}

func policiesJSON(ps []*rules.Policy) []policyJSON {
	out := []policyJSON{}
	for _, p := range ps {
		pj := policyJSON{Name: p.Name, Description: p.Description, File: p.File, Params: []paramJSON{}, Slots: []string{}, Rules: []ruleJSON{}}
		if p.Composition != nil {
			pj.Uses = p.Composition.Base
		}
		for _, x := range p.Params {
			pj.Params = append(pj.Params, paramJSON{Name: x.Name, Type: typeName(x.Type.FriendlyNameForConstraint()),
				Default: ctyJSON(x.Default), Value: ctyJSON(x.Value), Origin: x.Origin, Description: x.Description})
		}
		for _, s := range p.Slots {
			pj.Slots = append(pj.Slots, s.Name)
		}
		for _, r := range p.Rules {
			rj := ruleJSON{Name: r.Name, Group: r.Group.Name}
			if p.Composition != nil {
				rj.Origin = string(p.Composition.RuleOrigin(r))
			}
			pj.Rules = append(pj.Rules, rj)
		}
		out = append(out, pj)
	}
	return out
}

// ctyJSON is a param value as JSON.
func ctyJSON(v cty.Value) any {
	if v == cty.NilVal || v.IsNull() {
		return nil
	}
	b, err := ctyjson.Marshal(v, v.Type())
	if err != nil {
		return nil
	}
	return json.RawMessage(b)
}

// checkJSON is one policy `check --json` loaded.
type checkJSON struct {
	Target      string                 `json:"target"`
	OK          bool                   `json:"ok"`
	Policy      string                 `json:"policy,omitempty"`
	Params      int                    `json:"params"`
	Slots       int                    `json:"slots"`
	Rules       int                    `json:"rules"`
	Diagnostics []rules.DiagnosticJSON `json:"diagnostics"`
	// InForce is the resolution, when check ran the policy in force.
	InForce *settings.ResolvedJSON `json:"policy_in_force,omitempty"`
}
