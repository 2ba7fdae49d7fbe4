package testfile

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/file"
	"github.com/expr-lang/expr/vm"
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
)

// Assert is one `assert {}` block: an expr condition over the run's
// decisions and final state.
type Assert struct {
	Condition    string
	ErrorMessage string

	program *vm.Program

	ConditionRange hcl.Range
	DeclRange      hcl.Range
}

// AssertEnv is the environment of an assert condition.
//
//   - decisions: one map per event, in order, each
//     {event: string, rules: [string], effects: [{effect: string, …args}],
//     error: string, state: {slot: value}} (state after the event);
//   - last: the last decision ({} when the run has no events);
//   - state: the final state, slot -> value;
//   - derived: the policy's derived values on the last event in the final
//     state, name -> value (as the guards of a next identical event would
//     see them; {} when the run has no events);
//   - param: the params in force, name -> value.
//
// Lists are []any and objects map[string]any, so `last.rules == []` holds
// when no rule fired.
func AssertEnv(decisions []any, state map[string]any) map[string]any {
	return AssertEnvWith(decisions, state, nil, nil)
}

// AssertEnvWith is AssertEnv with the derived values and params.
func AssertEnvWith(decisions []any, state, derived, params map[string]any) map[string]any {
	if derived == nil {
		derived = map[string]any{}
	}
	if params == nil {
		params = map[string]any{}
	}
	last := map[string]any{}
	if n := len(decisions); n > 0 {
		if m, ok := decisions[n-1].(map[string]any); ok {
			last = m
		}
	}
	if decisions == nil {
		decisions = []any{}
	}
	if state == nil {
		state = map[string]any{}
	}
	return map[string]any{"decisions": decisions, "last": last, "state": state, "derived": derived, "param": params}
}

// Eval runs the condition against env (see AssertEnv). An error is a
// runtime error of the expression; the condition then does not hold.
func (a *Assert) Eval(env map[string]any) (bool, error) {
	if a.program == nil {
		return false, errors.New("the condition was not compiled")
	}
	out, err := expr.Run(a.program, env)
	if err != nil {
		return false, err
	}
	b, ok := out.(bool)
	if !ok {
		return false, fmt.Errorf("the condition gave %T, not bool", out)
	}
	return b, nil
}

var assertSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "condition", Required: true},
		{Name: "error_message"},
	},
}

func decodeAssertBlock(src []byte, b *hcl.Block) (*Assert, hcl.Diagnostics) {
	a := &Assert{DeclRange: b.DefRange}
	content, diags := b.Body.Content(assertSchema)
	if attr, ok := content.Attributes["error_message"]; ok {
		s, d := stringAttr(attr)
		diags = append(diags, d...)
		a.ErrorMessage = s
	}
	attr, ok := content.Attributes["condition"]
	if !ok {
		return nil, diags
	}
	a.ConditionRange = attr.Expr.Range()
	cond, d := stringAttr(attr)
	diags = append(diags, d...)
	if d.HasErrors() {
		return nil, diags
	}
	a.Condition = cond
	if strings.TrimSpace(cond) == "" {
		return nil, append(diags, errorAt(attr.Expr.Range(), "Empty condition",
			"An assert condition is an expr expression over decisions, last, state, derived and param."))
	}
	program, err := expr.Compile(cond, expr.Env(AssertEnv(nil, nil)), expr.AsBool())
	if err != nil {
		return nil, append(diags, exprDiagnostic(src, attr.Expr, err))
	}
	a.program = program
	return a, diags
}

// exprDiagnostic turns an expr compile error into a diagnostic whose subject
// is the offending column inside the HCL string.
func exprDiagnostic(src []byte, hexpr hcl.Expression, err error) *hcl.Diagnostic {
	msg := err.Error()
	subject := hexpr.Range()
	var fe *file.Error
	if errors.As(err, &fe) {
		msg = fe.Message
		if pos, ok := stringPos(src, hexpr, fe.Line, fe.Column); ok {
			end := pos
			end.Column++
			end.Byte++
			subject = hcl.Range{Filename: subject.Filename, Start: pos, End: end}
		}
	}
	return &hcl.Diagnostic{
		Severity: hcl.DiagError,
		Summary:  "Invalid assert condition",
		Detail:   msg + ".",
		Subject:  &subject,
		Context:  hexpr.Range().Ptr(),
	}
}

// stringPos maps a position inside the value of a literal HCL string (line
// from 1, column in runes from 0, as expr reports them) to its position in
// the file src. It handles quoted strings with escapes, and heredocs,
// indented or not.
func stringPos(src []byte, hexpr hcl.Expression, line, col int) (hcl.Pos, bool) {
	tmpl, ok := hexpr.(*hclsyntax.TemplateExpr)
	if !ok || len(tmpl.Parts) != 1 || line < 1 || col < 0 {
		return hcl.Pos{}, false
	}
	lit, ok := tmpl.Parts[0].(*hclsyntax.LiteralValueExpr)
	if !ok {
		return hcl.Pos{}, false
	}
	rng := lit.SrcRange
	if rng.Start.Byte < 0 || rng.End.Byte > len(src) || rng.Start.Byte > rng.End.Byte ||
		tmpl.SrcRange.Start.Byte < 0 || tmpl.SrcRange.Start.Byte > len(src) {
		return hcl.Pos{}, false
	}
	value := lit.Val
	if value.IsNull() || !value.Type().Equals(cty.String) {
		return hcl.Pos{}, false
	}
	lines := strings.Split(value.AsString(), "\n")
	if line > len(lines) {
		return hcl.Pos{}, false
	}
	if !bytes.HasPrefix(src[tmpl.SrcRange.Start.Byte:], []byte("<<")) {
		// A quoted string is one source line, whatever \n escapes it has.
		offset := col
		for _, l := range lines[:line-1] {
			offset += utf8.RuneCountInString(l) + 1
		}
		return quotedPos(src[rng.Start.Byte:rng.End.Byte], rng.Start, offset), true
	}
	// A heredoc: value line N is source line Start.Line+N-1, and the value
	// line is a suffix of the source line (an indented heredoc drops the
	// leading indentation).
	srcLine := rng.Start.Line + line - 1
	start, end, ok := lineBounds(src, srcLine)
	if !ok {
		return hcl.Pos{}, false
	}
	raw := string(src[start:end])
	skip := utf8.RuneCountInString(raw) - utf8.RuneCountInString(lines[line-1])
	if skip < 0 {
		skip = 0
	}
	runes := skip + col
	return hcl.Pos{Line: srcLine, Column: runes + 1, Byte: start + byteOffset(raw, runes)}, true
}

// quotedPos walks the raw text of a quoted string from start until col
// runes of its value have passed, decoding escapes on the way.
func quotedPos(raw []byte, start hcl.Pos, col int) hcl.Pos {
	i, runes := 0, 0
	for decoded := 0; decoded < col && i < len(raw); decoded++ {
		n := 1
		switch {
		case raw[i] == '\\' && i+1 < len(raw):
			switch raw[i+1] {
			case 'u':
				n = 6
			case 'U':
				n = 10
			default:
				n = 2
			}
		case (raw[i] == '$' || raw[i] == '%') && i+2 < len(raw) && raw[i+1] == raw[i] && raw[i+2] == '{':
			n = 2 // "$${" is "${" in the value
		default:
			_, n = utf8.DecodeRune(raw[i:])
			runes++
			i += n
			continue
		}
		if i+n > len(raw) {
			n = len(raw) - i
		}
		runes += n
		i += n
	}
	return hcl.Pos{Line: start.Line, Column: start.Column + runes, Byte: start.Byte + i}
}

// lineBounds returns the byte range of source line n (from 1), without its
// newline.
func lineBounds(src []byte, n int) (int, int, bool) {
	start := 0
	for line := 1; line < n; line++ {
		i := bytes.IndexByte(src[start:], '\n')
		if i < 0 {
			return 0, 0, false
		}
		start += i + 1
	}
	end := bytes.IndexByte(src[start:], '\n')
	if end < 0 {
		end = len(src)
	} else {
		end += start
	}
	if end > start && src[end-1] == '\r' {
		end--
	}
	return start, end, true
}

func byteOffset(s string, runes int) int {
	for i := range s {
		if runes == 0 {
			return i
		}
		runes--
	}
	return len(s)
}
