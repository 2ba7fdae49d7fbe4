// Copyright IBM Corp. 2014, 2025
// SPDX-License-Identifier: MPL-2.0
// From hclwrite/public.go (hcl v2.25.0): only Format, with WriteTo unexported; Value is this package's, not upstream's.

package hclfmt

import (
	"bytes"
	"strings"

	"github.com/zclconf/go-cty/cty"
)

// Format takes source code and performs simple whitespace changes to transform
// it to a canonical layout style.
//
// Format skips constructing an AST and works directly with tokens, so it
// is less expensive than formatting via the AST for situations where no other
// changes will be made. It also ignores syntax errors and can thus be applied
// to partial source code, although the result in that case may not be
// desirable.
func Format(src []byte) []byte {
	tokens := lexConfig(src)
	format(tokens)
	buf := &bytes.Buffer{}
	//nolint:errcheck // FIXME: Propogate errors upward.
	tokens.writeTo(buf)
	return buf.Bytes()
}

// Value is v written as HCL, without surrounding space: what
// strings.TrimSpace(string(hclwrite.TokensForValue(v).Bytes())) gives.
// Like TokensForValue it panics on a value that is not wholly known or
// that holds a capsule type.
func Value(v cty.Value) string {
	return strings.TrimSpace(string(tokensForValue(v).bytes()))
}
