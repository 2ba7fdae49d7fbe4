// Package hclfmt is HCL's formatter and value writer without the rest of
// hclwrite: Format is hclwrite.Format, and Value is what
// hclwrite.TokensForValue writes for a value, trimmed.
//
// It is a copy of hclwrite's token formatter and value writer from
// github.com/hashicorp/hcl/v2 v2.25.0 (format.go, and the parts of
// tokens.go, parser.go, generate.go and public.go they need, with hcl's
// internal grapheme counter), under HCL's licence, MPL-2.0, kept as close
// to the original as it allows so that it can be compared with it: each
// file names the upstream one it comes from and what was changed, which is
// little beyond unexporting. It exists because hclwrite imports
// github.com/google/go-cmp/cmp, for one method nothing calls, and go-cmp's
// package init compiles two Unicode regular expressions in every process
// that links it: 2.9 M of the 16.8 M instructions resetpolicy serve ran
// before its first answer. With this package the binary links neither.
//
// The output is hclwrite's byte for byte, which the tests check against
// hclwrite itself (imported by the tests only): Format on every .hcl file
// of the repository, on hand-written and malformed inputs and under a fuzz
// target, Value on values of every kind HCL writes.
package hclfmt
