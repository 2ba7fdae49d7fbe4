package lsp

import (
	"net/url"
	"path/filepath"
	"runtime"
	"strings"
	"sync"

	"github.com/hashicorp/hcl/v2/hclsyntax"

	"github.com/resetpolicy/resetpolicy/policies"
	"github.com/resetpolicy/resetpolicy/rules"
	"github.com/resetpolicy/resetpolicy/rules/testfile"
)

// kind is what a document is, by its name, as the command line decides.
type kind int

const (
	policyKind kind = iota
	testKind
	scenarioKind
)

func kindOf(name string) kind {
	base := filepath.Base(name)
	switch {
	case strings.HasSuffix(base, ".test.hcl") || strings.HasSuffix(base, ".test.hcl.json"):
		return testKind
	case strings.HasSuffix(base, ".scenario.hcl"):
		return scenarioKind
	}
	return policyKind
}

// maxDocBytes bounds what the server keeps of one document. Past
// rules.MaxFileBytes a document is only reported too large; past this,
// its text is dropped until the client sends it whole again.
const maxDocBytes = 2 * rules.MaxFileBytes

// document is one open document. Its analyses are computed on demand
// and kept until the next change (gen counts changes).
type document struct {
	uri     string
	name    string // the file path: the name diagnostics are about
	kind    kind
	version int32
	text    *text
	dropped bool // the text grew past maxDocBytes and was dropped
	gen     int
	syn     *syntax
	synGen  int
	// openText gives another open document's text by file path (nil when
	// it is not open); called under the server's lock.
	openText func(path string) []byte
}

// nameOf is the file path of a file URI, or the URI itself.
func nameOf(uri string) string {
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "file" {
		return uri
	}
	p := u.Path
	// file:///C:/x is C:\x on Windows.
	if runtime.GOOS == "windows" && len(p) > 2 && p[0] == '/' && p[2] == ':' {
		p = p[1:]
	}
	return filepath.FromSlash(p)
}

func fileURI(path string) string {
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	p := filepath.ToSlash(path)
	if !strings.HasPrefix(p, "/") {
		p = "/" + p // C:/x
	}
	return (&url.URL{Scheme: "file", Path: p}).String()
}

// syntax is the cheap analysis: HCL's syntax tree (native syntax only)
// and, for a policy, its outline.
type syntax struct {
	body    *hclsyntax.Body // nil for JSON or a file over the bounds
	broken  bool            // the parse reported errors
	outline *rules.Policy   // a policy's declarations, even when it does not load
	// base is the built-in a policy file takes with `use`, loaded whole
	// (built-ins always load), for its parts' docs and values.
	base *rules.Policy
	ix   *index
}

// builtinCache holds the built-ins loaded whole, once per process: they
// are embedded, so they never change, and a composed policy being edited
// would otherwise compile its built-in at every keystroke.
var builtinCache sync.Map // name -> *rules.Policy

func loadBuiltin(name string) *rules.Policy {
	if p, ok := builtinCache.Load(name); ok {
		return p.(*rules.Policy)
	}
	p, diags := serialLoad(func() (*rules.Policy, rules.Diagnostics) { return policies.Load(name, nil) })
	if p == nil || diags.HasErrors() {
		return nil
	}
	builtinCache.Store(name, p)
	return p
}

func builtinOptions() []rules.Option {
	return []rules.Option{rules.WithBuiltins(policies.Source), rules.WithBuiltinNames(policies.Names)}
}

func (d *document) src() []byte {
	if d.text == nil {
		return nil
	}
	return d.text.src
}

// syntax parses the document once per change.
func (d *document) syntax() *syntax {
	if d.syn != nil && d.synGen == d.gen {
		return d.syn
	}
	s := &syntax{}
	src := d.src()
	f, diags := rules.ParseHCL(src, d.name)
	s.broken = diags.HasErrors() || d.dropped
	if f != nil {
		if b, ok := f.Body.(*hclsyntax.Body); ok {
			s.body = b
		}
	}
	if d.kind == testKind && s.body != nil {
		s.outline = d.testPolicy(s.body)
	}
	if d.kind == policyKind && !d.dropped && f != nil {
		s.outline = rules.OutlineParsed(rules.Source{Name: d.name, Bytes: src}, f, builtinOptions()...)
		if c := s.outline.Composition; c != nil {
			s.base = loadBuiltin(c.Base)
		}
	}
	d.syn, d.synGen = s, d.gen
	return s
}

// testPolicy is the outline of the policy a test file names, for its
// names: the policy file (as the editor holds it when it is open) or the
// built-in.
func (d *document) testPolicy(body *hclsyntax.Body) *rules.Policy {
	a, ok := body.Attributes["policy"]
	if !ok {
		return nil
	}
	lits := literalStrings(a.Expr)
	if len(lits) != 1 || lits[0].value == "" {
		return nil
	}
	ref := lits[0].value
	if !testfile.IsPolicyFile(ref) {
		return loadBuiltin(ref)
	}
	f := &testfile.File{Filename: d.name, Policy: ref}
	path := f.PolicyFile()
	var src []byte
	if d.openText != nil {
		src = d.openText(path)
	}
	if src == nil {
		b, diags := rules.ReadHCLFile(path, "policy file")
		if diags.HasErrors() {
			return nil
		}
		src = b
	}
	return rules.Outline(rules.Source{Name: path, Bytes: src}, builtinOptions()...)
}
