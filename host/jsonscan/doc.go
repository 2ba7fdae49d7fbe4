// Package jsonscan reads the JSON of a session file's line into a flat
// table of values, in one pass, and measures every string as it goes: the
// JavaScript length (UTF-16 units) of the text the string decodes to,
// which is what Pi's token estimate counts.
//
// # What it owns
//
//   - The parse, strict: a Doc with Strict set reads as JavaScript's
//     JSON.parse reads (RFC 8259 exactly; of a key an object writes twice,
//     the last value at the place of the first, Dup naming it), which is
//     how Pi reads a session file's lines. FuzzStrictAgreesWithEncodingJSON
//     holds it to encoding/json on what is JSON and on the values. UTF-8 is
//     the caller's to check, as encoding/json leaves it.
//   - The parse, lenient: a Doc reads the JSON values of one text in turn
//     (Next), or exactly one (Parse). It accepts what github.com/valyala/fastjson,
//     the tokenizer the rest of the project uses, accepts, and fails where
//     it fails, with its error messages, the text they quote cut to 32
//     bytes (as far as FuzzAgreesWithFastjson and TestAgreesOnMutatedLines
//     explore, which compare the two value by value): strings are
//     not checked for control characters or unknown escapes, numbers are
//     taken as fastjson scans them, nesting is bounded at MaxDepth.
//   - The values: a Value is a place in its Doc's table, read by key, by
//     member and by element; strings decode as fastjson decodes them
//     (Str), and a Value writes itself back as compact JSON (AppendJSON).
//   - The length of a string literal's body (EscapedLen), which the parse
//     computes for every string while it looks for the string's end,
//     escapes included: 64 bytes at a time on amd64 when the processor
//     has POPCNT, with AVX2 where it has that too and with SSE2 otherwise
//     (blocks_amd64.s, asked once, at the first text of 64 bytes or more,
//     not at start-up; the build tag purego leaves it out), eight bytes at
//     a time otherwise and for the last bytes of a text.
//     TestBlocksAgreeWithWords holds each reading the processor has to the
//     eight-byte one.
//
// Why it exists: most of a session file's bytes are the text of tool
// results, read only to be measured. fastjson finds where each string ends
// and the estimate then read it again to measure it; a Doc does both in
// the same pass, and keeps its table in one reused slice instead of a tree
// of values.
//
// # What it must not do
//
// It keeps no state between texts but its buffers, copies no text (a Doc
// reads the caller's bytes in place: they must not change while its values
// are read), and never panics on any input; its cost is linear in the text
// (a \u escape reads its string twice, a lookup by key walks its object's
// members), and its memory is at most 28 bytes of table for every two
// bytes of text (a value takes at least one byte and its comma another)
// and the decoded text of the strings read. A text over MaxText (2 GiB) is
// refused, not read.
package jsonscan
