package verify

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/expr-lang/expr/ast"
	"github.com/resetpolicy/resetpolicy/rules"
	"github.com/resetpolicy/resetpolicy/rules/lang"
)

// The window and the tokens in it, which a budget policy reads only as
// what remains of the window.
const (
	factContextWindow = "context_window"
	factTokens        = "tokens"
)

// remainingOnly reports whether every expression of the policy reads the
// context window and the tokens only as event.context_window -
// event.tokens, the remaining budget. Such a policy decides alike in
// every window at the same remaining budget, so the windows a verify
// block declares are explored through the largest of them: its remaining
// budgets take every value a smaller window's do (a threshold's each side
// included), and more. A policy that reads either fact otherwise (a rule
// for small windows, a share of the window) has every declared window
// explored as it is.
func remainingOnly(srcs []string) bool {
	pair := func(n ast.Node) bool {
		b, ok := n.(*ast.BinaryNode)
		if !ok || b.Operator != "-" {
			return false
		}
		l, lok := eventFact(b.Left)
		r, rok := eventFact(b.Right)
		return lok && rok && l == factContextWindow && r == factTokens
	}
	reads := false
	for _, src := range srcs {
		node, err := parse(src)
		if err != nil {
			return false
		}
		facts, pairs := 0, 0
		ast.Walk(&node, visitor(func(n ast.Node) {
			if f, ok := eventFact(n); ok && (f == factContextWindow || f == factTokens) {
				facts++
			}
			if pair(n) {
				pairs++
			}
		}))
		if facts != 2*pairs {
			return false
		}
		reads = reads || pairs > 0
	}
	return reads
}

// policySources are the sources of every expression verify evaluates:
// rules, derived values, property conditions, scope markers, invariants.
func policySources(p *rules.Policy) []string {
	var out []string
	for _, plan := range p.Plans {
		for _, pg := range plan.Groups {
			for _, cr := range pg.Rules {
				out = append(out, ruleSources(cr)...)
			}
		}
	}
	for _, d := range p.Derived {
		if d.Prog != nil {
			out = append(out, d.Prog.Source)
		}
	}
	for _, pr := range p.Properties {
		if pr.Always != nil {
			out = append(out, pr.Always.Source)
		}
		for _, conds := range []map[string]*lang.Program{pr.When, pr.CycleEndsWhen, pr.InputWhen} {
			for _, w := range conds {
				out = append(out, w.Source)
			}
		}
		for _, mk := range pr.ScopeMarkers() {
			if mk.When != nil {
				out = append(out, mk.When.Source)
			}
		}
	}
	return out
}

// windowsByRemaining narrows the declared context windows of a policy
// that reads them only as the remaining budget to the largest, and says
// so in how the fact was sampled; ok is false when it does not apply.
func windowsByRemaining(p *rules.Policy) (largest float64, how string, ok bool) {
	v := p.Verify
	if v == nil || len(v.Domains[factContextWindow]) < 2 || len(v.Domains[factTokens]) > 0 {
		return 0, "", false
	}
	var ws []float64
	for _, x := range v.Domains[factContextWindow] {
		f, isNum := toFloat(x)
		if !isNum {
			return 0, "", false
		}
		ws = append(ws, f)
	}
	if !remainingOnly(policySources(p)) {
		return 0, "", false
	}
	largest = slices.Max(ws)
	var names []string
	for _, w := range ws {
		names = append(names, strconv.FormatFloat(w, 'f', -1, 64))
	}
	how = fmt.Sprintf("%s (%s); every expression reads it only as context_window - tokens, so each window is explored through the remaining budgets of the largest, which include every smaller window's", declared, strings.Join(names, ", "))
	return largest, how, true
}
