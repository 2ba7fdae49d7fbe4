package policies

import (
	"fmt"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/resetpolicy/resetpolicy/rules"
	"github.com/resetpolicy/resetpolicy/rules/lang"
)

func unknown(name string) rules.Diagnostics {
	return rules.Diagnostics{Diagnostics: hcl.Diagnostics{{
		Severity: hcl.DiagError,
		Summary:  "Unknown built-in policy",
		Detail:   fmt.Sprintf("there is no built-in policy %q%s (built-ins: %s)", name, lang.Suggest(name, Names()), strings.Join(Names(), ", ")),
	}}}
}
