package rules

import (
	"encoding/json"

	"github.com/hashicorp/hcl/v2"
)

// The nesting check walks a file's bytes once, knowing just enough of HCL's
// lexical structure (strings, templates, heredocs, comments) to count what
// makes HCL's recursive-descent parsers recurse: open brackets, braces and
// parentheses, string templates and their ${…} and %{…} sequences, if/for
// template directives, runs of unary ! and -, and chains of conditionals
// (?), splats ([*], .*) and binary operators (+ - * / % == != < > <= >= &&
// ||), which nest until their expression ends: HCL's parser reads a chain
// of operators in a loop, but the tree it builds leans left, and every walk
// of it (evaluation, variables, formatting) recurses once per operator.
// Text inside strings and comments does not count, so a stray bracket in a
// message neither trips the bound nor hides real nesting; nor do the dashes
// of identifiers (a-b is one name in HCL) and the signs of exponents.

type nestFrame struct {
	kind  byte   // '(' '[' '{' bracket; '$' interpolation or directive; '"' quoted; 'h' heredoc; 't' bare template
	chain int    // conditionals and splats open at this level
	term  string // a heredoc's closing marker
}

type nestScanner struct {
	src        []byte
	i          int
	line, col  int
	stack      []nestFrame
	top        int // conditionals and splats outside any frame
	chains     int // sum of every chain count, top included
	directives int // open %{if} and %{for}
	run        int // the current run of unary operators
	base       int // nesting outside src (a JSON string's depth in its file)
	bad        hcl.Pos
}

func (s *nestScanner) pos() hcl.Pos { return hcl.Pos{Line: s.line, Column: s.col, Byte: s.i} }

func (s *nestScanner) over() bool {
	if s.base+len(s.stack)+s.directives+s.run+s.chains > MaxNesting {
		s.bad = s.pos()
		return true
	}
	return false
}

func (s *nestScanner) advance(n int) {
	for ; n > 0 && s.i < len(s.src); n-- {
		if s.src[s.i] == '\n' {
			s.line, s.col = s.line+1, 1
		} else if s.src[s.i]&0xC0 != 0x80 {
			s.col++
		}
		s.i++
	}
}

func (s *nestScanner) push(f nestFrame) bool {
	s.stack = append(s.stack, f)
	return !s.over()
}

func (s *nestScanner) pop() {
	f := s.stack[len(s.stack)-1]
	s.chains -= f.chain
	s.stack = s.stack[:len(s.stack)-1]
}

// chain opens a conditional or splat level in the frame at depth d (-1:
// outside every frame).
func (s *nestScanner) chain(d int) bool {
	if d < 0 {
		s.top++
	} else {
		s.stack[d].chain++
	}
	s.chains++
	return !s.over()
}

// endChain closes the conditionals and splats of the innermost level: its
// expression has ended.
func (s *nestScanner) endChain() {
	if len(s.stack) == 0 {
		s.chains -= s.top
		s.top = 0
		return
	}
	f := &s.stack[len(s.stack)-1]
	s.chains -= f.chain
	f.chain = 0
}

func (s *nestScanner) mode() byte {
	if len(s.stack) == 0 {
		return 'e'
	}
	switch k := s.stack[len(s.stack)-1].kind; k {
	case '"', 'h', 't':
		return k
	}
	return 'e'
}

func closes(c, kind byte) bool {
	switch c {
	case ')':
		return kind == '('
	case ']':
		return kind == '['
	}
	return kind == '{' || kind == '$'
}

func (s *nestScanner) peek(k int) byte {
	if s.i+k < len(s.src) {
		return s.src[s.i+k]
	}
	return 0
}

// scan walks the bytes; false means the bound was passed at s.bad.
func (s *nestScanner) scan() bool {
	prev := byte(0) // the previous significant byte in expression mode
	for s.i < len(s.src) {
		switch s.mode() {
		case 'e':
			c := s.src[s.i]
			switch c {
			case ' ', '\t', '\r':
				s.advance(1)
				continue
			case '\n':
				// A line ends an expression only where newlines separate
				// items: outside every frame and in a block or object.
				if len(s.stack) == 0 || s.stack[len(s.stack)-1].kind == '{' {
					s.endChain()
				}
				s.advance(1)
				continue
			case ',':
				s.run = 0
				s.endChain()
			case '#':
				s.skipLine()
				continue
			case '/':
				if s.peek(1) == '/' {
					s.skipLine()
					continue
				}
				if s.peek(1) == '*' {
					s.skipBlockComment()
					continue
				}
				if !s.binary(c) {
					return false
				}
				prev = '+'
				continue
			case '"':
				s.run = 0
				if !s.push(nestFrame{kind: '"'}) {
					return false
				}
			case '<':
				if s.peek(1) == '<' && s.heredoc() {
					s.run = 0
					if s.over() {
						return false
					}
					prev = c
					continue
				}
				if !s.binary(c) {
					return false
				}
				prev = '+'
				continue
			case '(', '[', '{':
				s.run = 0
				if !s.push(nestFrame{kind: c}) {
					return false
				}
			case ')', ']', '}':
				// Only the matching closer closes a level: a stray one
				// must not make real nesting look shallower.
				s.run = 0
				if n := len(s.stack); n > 0 && closes(c, s.stack[n-1].kind) {
					s.pop()
				}
			case '!', '-':
				if c == '!' && s.peek(1) == '=' || c == '-' && operand(prev) {
					// != and a binary minus: one more operator in the chain.
					if !s.binary(c) {
						return false
					}
					prev = '+'
					continue
				}
				s.run++
				if s.over() {
					return false
				}
			case '+', '%', '&', '|', '=', '>':
				if c == '=' && s.peek(1) != '=' || c == '>' && prev == '=' || (c == '&' || c == '|') && s.peek(1) != c {
					// An assignment, a for expression's =>, a stray & or
					// |: no operator.
					s.run = 0
					break
				}
				if !s.binary(c) {
					return false
				}
				prev = '+'
				continue
			case '?':
				s.run = 0
				if !s.chain(len(s.stack) - 1) {
					return false
				}
			case '*':
				s.run = 0
				d := len(s.stack) - 1
				if prev == '[' {
					d--
				}
				if prev == '[' || prev == '.' {
					if !s.chain(d) {
						return false
					}
				} else if !s.binary(c) {
					return false
				} else {
					prev = '+'
					continue
				}
			default:
				s.run = 0
				if n := s.word(); n > 0 {
					// An identifier or a number is one token: the dash
					// in "a-b" or the sign in "1e-5" is no operator.
					s.advance(n)
					prev = 'a'
					continue
				}
			}
			prev = c
			s.advance(1)
		default:
			n := len(s.stack)
			if !s.template() {
				return false
			}
			prev = 0
			if len(s.stack) < n {
				prev = '"' // a string or heredoc ended: an operand
			}
		}
	}
	return true
}

// binary counts a binary operator at the current byte (two bytes for &&,
// ||, ==, !=, <=, >=) and steps over it. HCL parses a chain of operators
// of one precedence into a left-leaning tree, and evaluating, walking or
// formatting that tree recurses once per operator: 1+1+…+1 with 600,000
// terms overflows the goroutine stack. So every binary operator counts as
// a level of the expression it is in, like a conditional, until the
// expression ends.
func (s *nestScanner) binary(c byte) bool {
	s.run = 0
	n := 1
	if next := s.peek(1); (c == '&' || c == '|') && next == c || (c == '!' || c == '=' || c == '<' || c == '>') && next == '=' {
		n = 2
	}
	s.advance(n)
	return s.chain(len(s.stack) - 1)
}

// operand says whether a byte ends an operand, so that a following '-' is
// binary.
func operand(prev byte) bool {
	switch prev {
	case 'a', '"', ')', ']', '}':
		return true
	}
	return false
}

// word measures the identifier or number at the current byte: HCL's
// identifiers hold dashes and its numbers exponents with signs.
func (s *nestScanner) word() int {
	c := s.src[s.i]
	j := s.i
	switch {
	case c >= '0' && c <= '9':
		for j < len(s.src) {
			d := s.src[j]
			switch {
			case d >= '0' && d <= '9', d == '.' && j+1 < len(s.src) && s.src[j+1] >= '0' && s.src[j+1] <= '9':
				j++
			case (d == 'e' || d == 'E') && j+1 < len(s.src):
				j++
				if s.src[j] == '+' || s.src[j] == '-' {
					j++
				}
			default:
				return j - s.i
			}
		}
	case isHCLIdentByte(c, true):
		for j < len(s.src) && isHCLIdentByte(s.src[j], false) {
			j++
		}
	}
	return j - s.i
}

// template walks template text up to its end or the next ${ or %{.
func (s *nestScanner) template() bool {
	f := &s.stack[len(s.stack)-1]
	atLineStart := s.i == 0 || s.src[s.i-1] == '\n'
	for s.i < len(s.src) {
		c := s.src[s.i]
		if f.kind == 'h' && atLineStart && s.heredocEnd(f.term) {
			s.pop()
			return true
		}
		atLineStart = c == '\n'
		switch {
		case f.kind == '"' && c == '\\':
			s.advance(2)
			continue
		case f.kind == '"' && (c == '"' || c == '\n'):
			// HCL ends a quoted string at a newline too (as an error);
			// ending it here at the latest can only count more.
			s.advance(1)
			s.pop()
			return true
		case (c == '$' || c == '%') && s.peek(1) == c && s.peek(2) == '{':
			s.advance(3) // $${ and %%{ are literal
			continue
		case (c == '$' || c == '%') && s.peek(1) == '{':
			s.advance(2)
			if c == '%' {
				s.directive()
			}
			// Each interpolation or directive is one more part of the
			// template, counted until the template ends: evaluating a part
			// costs little but not nothing (a number made text through
			// big.Float, some 20 µs), and 300,000 of them took seconds and
			// hundreds of MB.
			f.chain++
			s.chains++
			return s.push(nestFrame{kind: '$'})
		}
		s.advance(1)
	}
	return true
}

// directive counts %{if} and %{for} open until %{endif} and %{endfor}.
func (s *nestScanner) directive() {
	j := s.i
	for j < len(s.src) && (s.src[j] == ' ' || s.src[j] == '\t' || s.src[j] == '~') {
		j++
	}
	k := j
	for k < len(s.src) && (s.src[k] >= 'a' && s.src[k] <= 'z') {
		k++
	}
	switch string(s.src[j:k]) {
	case "if", "for":
		s.directives++
	case "endif", "endfor":
		if s.directives > 0 {
			s.directives--
		}
	}
}

// heredoc starts a heredoc at "<<" or "<<-" followed by a marker and a
// newline; anything else is not one.
func (s *nestScanner) heredoc() bool {
	j := s.i + 2
	if j < len(s.src) && s.src[j] == '-' {
		j++
	}
	k := j
	for k < len(s.src) && isHCLIdentByte(s.src[k], k == j) {
		k++
	}
	if k == j {
		return false
	}
	term := string(s.src[j:k])
	if k < len(s.src) && s.src[k] == '\r' {
		k++
	}
	if k >= len(s.src) || s.src[k] != '\n' {
		return false
	}
	s.advance(k + 1 - s.i)
	s.stack = append(s.stack, nestFrame{kind: 'h', term: term})
	return true
}

func (s *nestScanner) heredocEnd(term string) bool {
	j := s.i
	for j < len(s.src) && (s.src[j] == ' ' || s.src[j] == '\t') {
		j++
	}
	if len(s.src)-j < len(term) || string(s.src[j:j+len(term)]) != term {
		return false
	}
	k := j + len(term)
	if k < len(s.src) && s.src[k] == '\r' {
		k++
	}
	if k < len(s.src) && s.src[k] != '\n' {
		return false
	}
	s.advance(k - s.i)
	return true
}

func isHCLIdentByte(c byte, first bool) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80 || !first && (c == '-' || c >= '0' && c <= '9')
}

func (s *nestScanner) skipLine() {
	for s.i < len(s.src) && s.src[s.i] != '\n' {
		s.advance(1)
	}
}

func (s *nestScanner) skipBlockComment() {
	s.advance(2)
	for s.i < len(s.src) && !(s.src[s.i] == '*' && s.peek(1) == '/') {
		s.advance(1)
	}
	s.advance(2)
}

func checkNativeNesting(src []byte) (hcl.Pos, bool) {
	s := nestScanner{src: src, line: 1, col: 1}
	if !s.scan() {
		return s.bad, false
	}
	return hcl.Pos{}, true
}

// checkJSONNesting counts JSON's own arrays and objects and, since HCL
// reads JSON strings as templates, the nesting inside every string on top
// of the string's own depth.
func checkJSONNesting(src []byte) (hcl.Pos, bool) {
	var open []byte // the open arrays and objects; only a matching closer closes one
	line, col := 1, 1
	for i := 0; i < len(src); i++ {
		c := src[i]
		switch c {
		case '\n':
			line, col = line+1, 1
			continue
		case '[', '{':
			open = append(open, c)
			if len(open) > MaxNesting {
				return hcl.Pos{Line: line, Column: col, Byte: i}, false
			}
		case ']', '}':
			if n := len(open); n > 0 && (c == ']') == (open[n-1] == '[') {
				open = open[:n-1]
			}
		case '"':
			start := hcl.Pos{Line: line, Column: col, Byte: i}
			j := i + 1
			for j < len(src) && src[j] != '"' {
				if src[j] == '\\' {
					j++
				}
				j++
			}
			if j >= len(src) {
				return hcl.Pos{}, true // unterminated: the parser reports it
			}
			var text string
			if json.Unmarshal(src[i:j+1], &text) == nil {
				s := nestScanner{src: []byte(text), line: 1, col: 1, base: len(open), stack: []nestFrame{{kind: 't'}}}
				s.base-- // the bare template frame is not a level of its own
				if !s.scan() {
					return start, false
				}
			}
			col += j - i
			i = j
		}
		col++
	}
	return hcl.Pos{}, true
}
