package rules

import (
	"fmt"
	"io"
	"os"
	"strings"
	"syscall"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	hcljson "github.com/hashicorp/hcl/v2/json"
)

// Bounds on every HCL file the tool reads (policies, test files,
// scenarios). HCL's parsers recurse once per nesting level and hold every
// token of a file in memory, so a file's cost is bounded before either sees
// it: by its size and by how deeply its brackets, templates and operator
// chains nest.
const (
	// MaxFileBytes is the largest HCL file read: 4 MiB, some hundred
	// times the largest built-in policy.
	MaxFileBytes = 4 << 20
	// MaxNesting is how deeply brackets, braces, parentheses, string
	// templates, template directives and chains of unary operators,
	// conditionals, splats or binary operators may nest. Real files stay
	// below 20.
	MaxNesting = 256
)

// ReadHCLFile reads an HCL file within MaxFileBytes. Only a regular file is
// read: a FIFO or a device would block or never end. what names the kind
// of file in the diagnostic ("policy file", "test file", …).
func ReadHCLFile(path, what string) ([]byte, hcl.Diagnostics) {
	fail := func(format string, args ...any) ([]byte, hcl.Diagnostics) {
		return nil, hcl.Diagnostics{{
			Severity: hcl.DiagError,
			Summary:  "Cannot read " + what,
			Detail:   fmt.Sprintf(format, args...),
			Subject:  &hcl.Range{Filename: path, Start: hcl.InitialPos, End: hcl.InitialPos},
		}}
	}
	// O_NONBLOCK: opening a FIFO must not wait for a writer; the mode
	// check below then refuses it.
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return fail("%v", err)
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return fail("%v", err)
	}
	if !info.Mode().IsRegular() {
		return fail("%s is not a regular file (%s)", path, fileKind(info.Mode()))
	}
	if info.Size() > MaxFileBytes {
		return nil, tooLarge(path, info.Size())
	}
	// The size may change between Stat and reading: read one byte past the
	// bound to know.
	b, err := io.ReadAll(io.LimitReader(f, MaxFileBytes+1))
	if err != nil {
		return fail("%v", err)
	}
	if len(b) > MaxFileBytes {
		return nil, tooLarge(path, int64(len(b)))
	}
	return b, nil
}

func fileKind(m os.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&os.ModeNamedPipe != 0:
		return "a FIFO"
	case m&os.ModeDevice != 0, m&os.ModeCharDevice != 0:
		return "a device"
	case m&os.ModeSocket != 0:
		return "a socket"
	}
	return m.Type().String()
}

func tooLarge(name string, size int64) hcl.Diagnostics {
	return hcl.Diagnostics{{
		Severity: hcl.DiagError,
		Summary:  "File too large",
		Detail:   fmt.Sprintf("%s has %d bytes; an HCL file may have at most %d (4 MiB)", name, size, MaxFileBytes),
		Subject:  &hcl.Range{Filename: name, Start: hcl.InitialPos, End: hcl.InitialPos},
	}}
}

// CheckHCL checks src against MaxFileBytes and MaxNesting, in HCL's JSON
// form when filename ends in ".json" and in native syntax otherwise. It
// runs in time linear in the size of src and uses constant memory beyond
// a stack bounded by MaxNesting.
func CheckHCL(src []byte, filename string) hcl.Diagnostics {
	if len(src) > MaxFileBytes {
		return tooLarge(filename, int64(len(src)))
	}
	var pos hcl.Pos
	var ok bool
	if strings.HasSuffix(filename, ".json") {
		pos, ok = checkJSONNesting(src)
	} else {
		pos, ok = checkNativeNesting(src)
	}
	if ok {
		return nil
	}
	return hcl.Diagnostics{{
		Severity: hcl.DiagError,
		Summary:  "Nesting too deep",
		Detail:   fmt.Sprintf("brackets, templates or operator chains nest more than %d levels deep here (each operator of an expression and each interpolation of a template counts as a level)", MaxNesting),
		Subject:  &hcl.Range{Filename: filename, Start: pos, End: hcl.Pos{Line: pos.Line, Column: pos.Column + 1, Byte: pos.Byte + 1}},
	}}
}

// ParseHCL parses an HCL file, native or JSON by its name, once CheckHCL
// has passed it.
func ParseHCL(src []byte, filename string) (*hcl.File, hcl.Diagnostics) {
	if diags := CheckHCL(src, filename); diags.HasErrors() {
		return nil, diags
	}
	if strings.HasSuffix(filename, ".json") {
		return hcljson.Parse(src, filename)
	}
	return hclsyntax.ParseConfig(src, filename, hcl.InitialPos)
}
