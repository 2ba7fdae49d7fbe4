package main

import (
	"bytes"
	"io"
	"os"
	"regexp"
	"sync"

	"github.com/fatih/color"
	"github.com/mattn/go-isatty"
)

// colorFor reports whether output to w gets colour: only a terminal, never
// a pipe or a file, and never under NO_COLOR (https://no-color.org) or
// TERM=dumb.
func colorFor(w io.Writer, getenv func(string) string) bool {
	if _, off := os.LookupEnv("NO_COLOR"); off || getenv("TERM") == "dumb" {
		return false
	}
	return isTerminal(w)
}

// isTerminal tells a terminal from a pipe or a file: colour and the
// progress bar show only on a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	return isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd())
}

var (
	red    = color.New(color.FgRed, color.Bold)
	yellow = color.New(color.FgYellow, color.Bold)
	green  = color.New(color.FgGreen)
)

func init() {
	// The decision to colour is colorFor's, per stream; the library only
	// spells the escape sequences.
	for _, c := range []*color.Color{red, yellow, green} {
		c.EnableColor()
	}
}

// lineColors paint the words a reader looks for first: the severity of a
// diagnostic, FAIL and PASS, ok, a failed total. They are compiled when a
// line is first coloured, not at every start of the binary (serve never
// colours).
var lineColors = sync.OnceValue(func() []lineColor {
	return []lineColor{
		{regexp.MustCompile(`: (error): `), red},
		{regexp.MustCompile(`^(error): `), red},
		{regexp.MustCompile(`: (warning): `), yellow},
		{regexp.MustCompile(`^(warning): `), yellow},
		{regexp.MustCompile(`^--- (FAIL):`), red},
		{regexp.MustCompile(`^--- (PASS):`), green},
		{regexp.MustCompile(`: (ok) \(policy `), green},
		{regexp.MustCompile(`^\d+ passed, ([1-9]\d* failed)$`), red},
		{regexp.MustCompile(`^(resetpolicy): `), red},
	}
})

type lineColor struct {
	re *regexp.Regexp
	c  *color.Color
}

// colorWriter colours whole lines as they complete; Flush writes a last
// line without a newline.
type colorWriter struct {
	w    io.Writer
	tail []byte
}

func (c *colorWriter) Write(p []byte) (int, error) {
	c.tail = append(c.tail, p...)
	i := bytes.LastIndexByte(c.tail, '\n')
	if i < 0 {
		return len(p), nil
	}
	var out bytes.Buffer
	for _, line := range bytes.SplitAfter(c.tail[:i+1], []byte("\n")) {
		if len(line) > 0 {
			out.Write(paint(line))
		}
	}
	c.tail = append(c.tail[:0], c.tail[i+1:]...)
	if _, err := c.w.Write(out.Bytes()); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Flush writes what is left.
func (c *colorWriter) Flush() {
	if len(c.tail) > 0 {
		c.w.Write(paint(c.tail))
		c.tail = nil
	}
}

func paint(line []byte) []byte {
	body := bytes.TrimRight(line, "\n")
	for _, lc := range lineColors() {
		m := lc.re.FindSubmatchIndex(body)
		if m == nil {
			continue
		}
		var out []byte
		out = append(out, body[:m[2]]...)
		out = append(out, lc.c.Sprint(string(body[m[2]:m[3]]))...)
		out = append(out, body[m[3]:]...)
		return append(out, line[len(body):]...)
	}
	return line
}
