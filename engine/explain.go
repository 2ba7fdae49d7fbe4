package engine

import (
	"fmt"
	"strings"

	"github.com/resetpolicy/resetpolicy/rules/lang"
)

// withValues is a false comparison with the values of its sides, as
// `remaining (18000) <= warning_at (28672)`; a constant side is shown as
// written. Anything else is its source.
func withValues(p *lang.Program, f *lang.Frame) string {
	if d := p.Named(); d != nil && d.Type == lang.Bool {
		// A false derived value: say which of its parts was false.
		return p.Source + " is false, as " + strings.TrimSuffix(strings.TrimPrefix(whenReason(d, f), "when: "), " is false")
	}
	c := p.Comparison()
	if c == nil {
		return p.Source
	}
	return side(c.Left, f) + " " + c.Op + " " + side(c.Right, f)
}

func side(p *lang.Program, f *lang.Frame) string {
	if p.Const != nil {
		return p.Source
	}
	v := p.Eval(f).Interface(p.Type)
	if s, ok := v.(string); ok {
		return fmt.Sprintf("%s (%q)", p.Source, s)
	}
	if x, ok := v.(float64); ok {
		return fmt.Sprintf("%s (%s)", p.Source, lang.FormatNum(x))
	}
	return fmt.Sprintf("%s (%v)", p.Source, v)
}
