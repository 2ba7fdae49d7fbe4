package sessionfile

import (
	"bytes"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/resetpolicy/resetpolicy/host/jsonscan"
)

// Reading a line as Pi 1.6 reads it. Pi decodes the file as Node decodes
// UTF-8 (each maximal invalid sequence one U+FFFD), splits it at "\n",
// skips a line that JavaScript's trim() leaves empty, and takes what
// JSON.parse makes of every other line, dropping a line it throws on.
// The reader takes exactly that, and reports each line where the bytes
// seem to say something else: a line Pi drops (not JSON, two values, a
// byte order mark), a key written twice (the last value counts), invalid
// UTF-8 (read as U+FFFD).

// parseLine reads one line (without its "\n") as JSON.parse would, and
// reports false for a line Pi skips or drops.
func (rd *Reader) parseLine(file *File, line []byte) (jsonscan.Value, bool) {
	if len(line) == 0 || line[0] != '{' && jsBlank(line) {
		return jsonscan.Value{}, false
	}
	if !utf8.Valid(line) {
		var bad int
		rd.fixed, bad = appendNodeUTF8(rd.fixed[:0], line)
		file.problem(file.Lines, fmt.Sprintf("%s of invalid UTF-8, read as U+FFFD as Pi reads them", plural(bad, "byte sequence")))
		line = rd.fixed
		if jsBlank(line) {
			return jsonscan.Value{}, false
		}
	}
	if bytes.HasPrefix(line, bom) {
		file.problem(file.Lines, "a byte order mark before the JSON: Pi cannot parse the line and drops it; so does the replay")
		return jsonscan.Value{}, false
	}
	v, err := rd.doc.Parse(line)
	if err != nil {
		if strings.HasPrefix(err.Error(), "unexpected tail") {
			var tail jsonscan.Doc
			tail.Init(line)
			if tail.Next() && tail.Next() {
				file.Joined++
				file.problem(file.Lines, "two JSON values on one line: Pi drops the line; so does the replay")
				return jsonscan.Value{}, false
			}
		}
		file.problem(file.Lines, "not JSON as Pi reads it ("+err.Error()+"): Pi drops the line; so does the replay")
		return jsonscan.Value{}, false
	}
	if k, dup := rd.doc.Dup(); dup {
		file.problem(file.Lines, fmt.Sprintf("the key %s is written twice in an object: Pi takes the last value; so does the replay", quoteKey(k)))
	}
	return v, true
}

var bom = []byte("\uFEFF")

// jsBlank reports a line that JavaScript's trim() leaves empty: white
// space and line terminators as ECMAScript names them, the byte order
// mark among them.
func jsBlank(b []byte) bool {
	for _, r := range string(b) {
		switch {
		case r == '\t' || r == '\n' || r == '\v' || r == '\f' || r == '\r' || r == '\uFEFF' || r == '\u2028' || r == '\u2029':
		case unicode.Is(unicode.Zs, r):
		default:
			return false
		}
	}
	return true
}

// appendNodeUTF8 appends src to dst decoded and encoded again as Node's
// UTF-8 decoder does: each maximal subpart of an ill-formed sequence
// (the WHATWG Encoding Standard's rule: a lead byte and the continuation
// bytes that could still complete it) becomes one U+FFFD, and the byte
// that broke it is read again. It returns how many it replaced.
func appendNodeUTF8(dst, src []byte) ([]byte, int) {
	bad := 0
	for i := 0; i < len(src); {
		c := src[i]
		if c < 0x80 {
			dst = append(dst, c)
			i++
			continue
		}
		need, lo, hi := 0, byte(0x80), byte(0xBF)
		switch {
		case 0xC2 <= c && c <= 0xDF:
			need = 1
		case 0xE0 <= c && c <= 0xEF:
			need = 2
			if c == 0xE0 {
				lo = 0xA0
			} else if c == 0xED {
				hi = 0x9F
			}
		case 0xF0 <= c && c <= 0xF4:
			need = 3
			if c == 0xF0 {
				lo = 0x90
			} else if c == 0xF4 {
				hi = 0x8F
			}
		default:
			dst = utf8.AppendRune(dst, utf8.RuneError)
			bad++
			i++
			continue
		}
		j, ok := i+1, true
		for k := 0; k < need; k++ {
			if j >= len(src) || src[j] < lo || src[j] > hi {
				ok = false
				break
			}
			lo, hi = 0x80, 0xBF
			j++
		}
		if ok {
			dst = append(dst, src[i:j]...)
		} else {
			dst = utf8.AppendRune(dst, utf8.RuneError)
			bad++
		}
		i = j
	}
	return dst, bad
}

func quoteKey(k []byte) string {
	if len(k) > 32 {
		return fmt.Sprintf("%q…", k[:32])
	}
	return fmt.Sprintf("%q", k)
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}
