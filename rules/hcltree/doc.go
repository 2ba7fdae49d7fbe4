// Package hcltree owns a binary form of a native HCL file's syntax tree.
//
// A file known when the program is built (a built-in policy) is parsed
// then, and its tree is embedded beside it, so that loading it at run time
// rebuilds the tree from the encoded form instead of scanning and parsing
// the text: HCL's parse of a 50 KB policy, most of it segmenting every
// byte into graphemes for column numbers, is two thirds of a load.
//
// The tree decoded is the one hclsyntax.ParseConfig gives, field for field
// and range for range (tested with reflect.DeepEqual on every built-in), so
// diagnostics, explain and every reader of the tree see no difference. The
// encoding is tied to the bytes it was made from: it starts with their
// length and CRC-64, and Decode refuses other bytes. Expression kinds the
// encoding does not spell out are stored as their source range and parsed
// again from the text on decode, so any file can be encoded.
package hcltree
