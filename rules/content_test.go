package rules

import (
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"

	"github.com/resetpolicy/resetpolicy/rules/hcltree"
)

// schemas are every schema the loader decodes a body with.
var schemas = map[string]*hcl.BodySchema{
	"use": useSchema, "disable": disableSchema, "derived": derivedSchema,
	"param": paramSchema, "validation": validationSchema, "policy file": policySchema,
	"policy": policyBlockSchema, "property": propertySchema, "verify": verifySchema,
	"group": groupSchema, "rule": ruleSchema, "slot": slotSchema, "message": messageSchema,
	"tool": toolSchema, "tool param": toolParamSchema, "command": commandSchema,
}

// TestContentIsHCLs checks bodyContent and bodyAttributes against HCL's
// Content and JustAttributes, value and diagnostics, on every body of every
// HCL file of the module (parsed, and for the built-ins also rebuilt from
// their trees) with every schema the loader uses, and on bodies that each
// break one of the conditions under which bodyContent makes the answer
// itself.
func TestContentIsHCLs(t *testing.T) {
	var bodies []*hclsyntax.Body
	var fast int
	collect := func(f *hcl.File) {
		var walk func(b *hclsyntax.Body)
		walk = func(b *hclsyntax.Body) {
			bodies = append(bodies, b)
			for _, bl := range b.Blocks {
				walk(bl.Body)
			}
		}
		walk(f.Body.(*hclsyntax.Body))
	}
	parse := func(name string, src []byte) *hcl.File {
		f, diags := hclsyntax.ParseConfig(src, name, hcl.InitialPos)
		if diags.HasErrors() {
			t.Fatalf("%s: %s", name, diags)
		}
		return f
	}
	root := ".."
	files := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".node" || d.Name() == "node_modules" || d.Name() == ".git") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".hcl") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if f, diags := hclsyntax.ParseConfig(src, path, hcl.InitialPos); !diags.HasErrors() {
			collect(f)
			files++
		}
		if tree, err := os.ReadFile(path + ".tree"); err == nil {
			f, err := hcltree.Decode(tree, src, path)
			if err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			collect(f)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 20 {
		t.Fatalf("found %d HCL files: the walk missed the module's files", files)
	}
	// Each case breaks one condition of the fast path, or meets all.
	cases := map[string]string{
		"extra argument":        "rule \"r\" {\n  on = \"request\"\n  colour = 1\n}\n",
		"missing required":      "message \"m\" {\n}\n",
		"required present":      "message \"m\" {\n  text = \"hi\"\n}\n",
		"too many labels":       "group \"g\" {\n  rule \"r\" \"x\" {\n    on = \"request\"\n  }\n}\n",
		"too few labels":        "group \"g\" {\n  rule {\n    on = \"request\"\n  }\n}\n",
		"unknown block":         "group \"g\" {\n  regla \"r\" {\n  }\n}\n",
		"block named as an arg": "rule \"r\" {\n  on = \"request\"\n  when {\n  }\n}\n",
		"arg named as a block":  "group \"g\" {\n  rule = 1\n}\n",
		"empty":                 "",
		"only blocks":           "group \"g\" {\n  rule \"a\" {\n    on = \"request\"\n  }\n  rule \"b\" {\n    on = \"tool\"\n  }\n}\n",
		"effect with arguments": "rule \"r\" {\n  on = \"request\"\n  effect \"remind\" {\n    message = \"m\"\n    delay = 2\n  }\n}\n",
		"effect with a block":   "rule \"r\" {\n  on = \"request\"\n  effect \"remind\" {\n    inner {\n    }\n  }\n}\n",
		"attributes and blocks": "policy \"p\" {\n  description = \"d\"\n}\nparam \"x\" {\n  type = number\n  default = 1\n}\n",
		"duplicate block types": "slot \"a\" {\n  type = \"string\"\n}\nslot \"b\" {\n  type = \"string\"\n}\n",
	}
	for name, src := range cases {
		collect(parse(name+".hcl", []byte(src)))
	}
	for _, b := range bodies {
		fast += compareContent(t, b)
	}
	// Most of the comparisons go to HCL (a schema that does not fit); the
	// ones that matter are those bodyContent answers itself.
	if fast < 1000 {
		t.Fatalf("bodyContent answered %d of the comparisons itself: too few to test it", fast)
	}
}

// compareContent requires bodyContent and bodyAttributes to give what
// HCL's Content and JustAttributes give for b, with every schema the
// loader uses; it returns how many of those answers bodyContent made
// itself.
func compareContent(t testing.TB, b *hclsyntax.Body) (fast int) {
	t.Helper()
	for name, s := range schemas {
		want, wd := b.Content(s)
		got, gd := bodyContent(b, s)
		if !reflect.DeepEqual(got, want) || !reflect.DeepEqual(sortDiags(gd), sortDiags(wd)) {
			t.Fatalf("%s, schema %s: bodyContent gives\n%#v %v\nHCL gives\n%#v %v", b.SrcRange, name, got, gd, want, wd)
		}
		if fits(b, s) {
			fast++
		}
	}
	want, wd := b.JustAttributes()
	got, gd := bodyAttributes(b)
	if !reflect.DeepEqual(got, want) || !reflect.DeepEqual(sortDiags(gd), sortDiags(wd)) {
		t.Fatalf("%s: bodyAttributes gives\n%#v %v\nHCL gives\n%#v %v", b.SrcRange, got, gd, want, wd)
	}
	return fast
}

// FuzzContentIsHCLs: on any file that parses, every body gets from
// bodyContent and bodyAttributes what HCL's own methods give.
func FuzzContentIsHCLs(f *testing.F) {
	for _, name := range []string{"../policies/wipe_memory.hcl", "../policies/new_context.hcl", "../host/lsp/testdata/composed.hcl"} {
		src, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(src))
	}
	f.Add("group \"g\" {\n  rule \"r\" {\n    on = \"request\"\n  }\n}\n")
	f.Fuzz(func(t *testing.T, src string) {
		if len(src) > MaxFileBytes {
			return
		}
		file, diags := hclsyntax.ParseConfig([]byte(src), "fuzz.hcl", hcl.InitialPos)
		if diags.HasErrors() {
			return
		}
		var walk func(b *hclsyntax.Body, depth int)
		walk = func(b *hclsyntax.Body, depth int) {
			compareContent(t, b)
			if depth < MaxNesting {
				for _, bl := range b.Blocks {
					walk(bl.Body, depth+1)
				}
			}
		}
		walk(file.Body.(*hclsyntax.Body), 0)
	})
}

// sortDiags orders diagnostics by place and text: HCL reports the
// arguments of a body in its map's order, which changes from call to call.
func sortDiags(d hcl.Diagnostics) hcl.Diagnostics {
	out := append(hcl.Diagnostics(nil), d...)
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Subject != nil && b.Subject != nil && a.Subject.Start.Byte != b.Subject.Start.Byte {
			return a.Subject.Start.Byte < b.Subject.Start.Byte
		}
		return a.Summary+a.Detail < b.Summary+b.Detail
	})
	return out
}

// TestContentFallsBackOnMistakes pins each condition of the fast path: a
// body that breaks one gets HCL's diagnostic.
func TestContentFallsBackOnMistakes(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		schema    *hcl.BodySchema
		summary   string
	}{
		{"extra argument", "on = \"request\"\ncolour = 1\n", ruleSchema, "Unsupported argument"},
		{"missing required", "", messageSchema, "Missing required argument"},
		{"too many labels", "rule \"r\" \"x\" {\n}\n", groupSchema, "Extraneous label for rule"},
		{"too few labels", "rule {\n}\n", groupSchema, "Missing name for rule"},
		{"unknown block", "regla \"r\" {\n}\n", groupSchema, "Unsupported block type"},
	} {
		f, diags := hclsyntax.ParseConfig([]byte(tc.src), "x.hcl", hcl.InitialPos)
		if diags.HasErrors() {
			t.Fatal(diags)
		}
		_, d := bodyContent(f.Body, tc.schema)
		if len(d) != 1 || d[0].Summary != tc.summary {
			t.Errorf("%s: got %v, want one %q", tc.name, d, tc.summary)
		}
	}
	f, _ := hclsyntax.ParseConfig([]byte("inner {\n}\n"), "x.hcl", hcl.InitialPos)
	if _, d := bodyAttributes(f.Body); len(d) != 1 || d[0].Summary != `Unexpected "inner" block` {
		t.Errorf("a block among attributes: got %v", d)
	}
}

// TestContentAllocatesLess pins why bodyContent exists: on a rule's body,
// far fewer allocations than HCL's Content.
func TestContentAllocatesLess(t *testing.T) {
	f, diags := hclsyntax.ParseConfig([]byte("on = \"request\"\nwhen = \"event.tokens > 1\"\nto = { phase = \"idle\" }\neffect \"remind\" {\n  message = \"m\"\n}\neffect \"warn\" {\n  message = \"w\"\n}\n"), "x.hcl", hcl.InitialPos)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	ours := testing.AllocsPerRun(100, func() { bodyContent(f.Body, ruleSchema) })
	hcls := testing.AllocsPerRun(100, func() { f.Body.Content(ruleSchema) })
	if ours > hcls/2 {
		t.Errorf("bodyContent makes %v allocations, HCL's Content %v: want at most half", ours, hcls)
	}
}

// TestParseForDecidingOmitsProperties: a built-in loaded to decide with
// (WithoutProperties) is rebuilt from its tree without its property and
// verify blocks; loaded whole, it has them. Load and a file that uses a
// built-in both read the built-in through options.parse.
func TestParseForDecidingOmitsProperties(t *testing.T) {
	src, err := os.ReadFile("../policies/wipe_memory.hcl")
	if err != nil {
		t.Fatal(err)
	}
	tree, err := os.ReadFile("../policies/wipe_memory.hcl.tree")
	if err != nil {
		t.Fatal(err)
	}
	s := Source{Name: "policies/wipe_memory.hcl", Bytes: src, Tree: tree}
	count := func(noProperties bool) (props, all int) {
		f, _, diags := options{noProperties: noProperties}.parse(s, false)
		if diags.HasErrors() {
			t.Fatal(diags)
		}
		for _, b := range f.Body.(*hclsyntax.Body).Blocks {
			all++
			if b.Type == "property" || b.Type == "verify" {
				props++
			}
		}
		return props, all
	}
	wholeProps, whole := count(false)
	props, all := count(true)
	if wholeProps == 0 || props != 0 || all != whole-wholeProps {
		t.Fatalf("loaded whole: %d blocks, %d of them property or verify; to decide with: %d, %d of them", whole, wholeProps, all, props)
	}
}
