package rules

import (
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/hashicorp/hcl/v2"
	"github.com/resetpolicy/resetpolicy/rules/hclfmt"
)

// paramRef finds the params a condition reads; compiled when a validation
// first fails, not at every start of the binary.
var paramRef = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\bparam\.([A-Za-z_][A-Za-z0-9_]*)`) })

// conflict blames a failed validation of a param left at its default on
// the overrides of the params its condition reads: the user changed those,
// not the built-in's default, whose line they may not even have. nil when
// no param the condition reads was overridden.
func (p *Policy) conflict(x *Param, v *Validation) *hcl.Diagnostic {
	var changed []*Param
	for _, m := range paramRef().FindAllStringSubmatch(v.Condition, -1) {
		other, ok := p.Param(m[1])
		if ok && other != x && other.Origin != "default" && !containsParam(changed, other) {
			changed = append(changed, other)
		}
	}
	if len(changed) == 0 {
		return nil
	}
	var names []string
	for _, o := range changed {
		names = append(names, fmt.Sprintf("%s = %s (%s)", o.Name, valueText(o), o.Origin))
	}
	d := &hcl.Diagnostic{
		Severity: hcl.DiagError,
		Summary:  "Conflicting param values",
		Detail: fmt.Sprintf("%s conflicts with param %q, left at its default %s: %s\nSet %s too, to a value that fits.",
			strings.Join(names, ", "), x.Name, valueText(x), v.ErrorMessage, x.Name),
		Subject: changed[0].overrideRange,
	}
	return d
}

func containsParam(ps []*Param, p *Param) bool {
	for _, x := range ps {
		if x == p {
			return true
		}
	}
	return false
}

func valueText(p *Param) string {
	return hclfmt.Value(p.Value)
}
