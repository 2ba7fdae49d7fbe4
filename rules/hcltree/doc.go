// Package hcltree owns a binary form of a native HCL file's syntax tree.
//
// A file known before the program is built (a built-in policy) is parsed
// ahead of time, and its encoded tree is embedded beside it, so that
// loading it at run time rebuilds the tree instead of scanning and parsing
// the text: HCL's parse of a 50 KB policy, two fifths of it segmenting
// every byte into graphemes for column numbers, was two thirds of a load.
//
// The tree decoded is the one hclsyntax.ParseConfig gives, field for field
// and range for range (tested with reflect.DeepEqual on every built-in), so
// diagnostics, explain and every reader of the tree see no difference. The
// encoding is tied to the bytes it was made from: it starts with their
// length and XXH64 hash, and Decode refuses other bytes. Expression kinds the
// encoding does not spell out are stored as their source range and parsed
// again from that text on decode; Encode checks that this gives each one
// back exactly, and fails on a file where it would not. Each top-level
// block is stored with its length, so that Decode can leave out the
// blocks a caller will not read (a policy loaded to decide with skips its
// property and verify blocks) without rebuilding them.
package hcltree
