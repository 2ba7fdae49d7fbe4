// Package hclfmt is HCL's formatter and value writer without the rest of
// hclwrite: Format is hclwrite.Format, and Value is what
// hclwrite.TokensForValue writes for a value, trimmed.
//
// It is a copy of hclwrite's token formatter and value writer from
// github.com/hashicorp/hcl/v2 v2.25.0: format.go, and the parts of
// tokens.go, parser.go, generate.go and public.go they need, with the
// grapheme counter of hcl's internal/unicodeutil, which hclwrite aligns
// columns with and no other module can import (it segments with
// go-textseg, as hcl does). The licence is HCL's, MPL-2.0. Each file names
// the upstream file it comes from and what was changed, which is little
// beyond unexporting, so that it can be compared with the original line
// for line.
//
// It exists because hclwrite imports github.com/google/go-cmp/cmp, for one
// method nothing calls, and go-cmp's package init compiles two Unicode
// regular expressions in every process that links it: 2.9 M of the 16.8 M
// instructions resetpolicy serve ran before its first answer. With this
// package the binary links neither.
//
// The output is hclwrite's byte for byte, which the tests check against
// hclwrite itself (imported by the tests only): Format on every .hcl file
// of the repository, on hand-written and malformed inputs, on tokens past
// the grapheme scanner's buffer sizes and under a fuzz target, Value on
// values of every kind HCL writes.
package hclfmt
