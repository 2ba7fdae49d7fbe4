package rules

import (
	"fmt"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/resetpolicy/resetpolicy/rules/contract"
)

// decodeHosts reads the policy block's hosts = ["pi", …]: the hosts the
// policy runs on faithfully. A policy that leans on one host's mechanics
// (new_context on Pi's compaction hooks) says so here, and loading it on
// another host is then an error rather than a policy half running.
func (p *Policy) decodeHosts(a *hcl.Attribute) hcl.Diagnostics {
	names, ranges, diags := stringOrList(a.Expr, "a host name")
	if diags.HasErrors() {
		return diags
	}
	known := contract.HostNames()
	for i, n := range names {
		if _, ok := contract.LookupHost(n); !ok {
			detail := fmt.Sprintf("%q is not a host; the hosts are %s", n, strings.Join(known, ", "))
			if s := suggestName(n, known); s != "" {
				detail = fmt.Sprintf("%q is not a host%s", n, s)
			}
			diags = append(diags, errorAt(ptr(ranges[i]), "Unknown host", "%s", detail))
			continue
		}
		if slices.Contains(p.Hosts, n) {
			diags = append(diags, errorAt(ptr(ranges[i]), "Duplicate host", "%q is listed twice", n))
			continue
		}
		p.Hosts = append(p.Hosts, n)
	}
	if len(names) == 0 {
		diags = append(diags, errorAt(ptr(a.Expr.Range()), "No hosts", "hosts lists the hosts the policy runs on; leave it out to run on every host"))
	}
	p.HostsRange = a.Expr.Range()
	return diags
}

// HostGaps says what of the policy the host cannot do. A policy whose
// hosts leave this host out gets one error. Otherwise every rule that
// waits for an event the host never reports, or emits an effect the host
// cannot carry out, gets a warning at its position: the rule is known at
// load never to fire there, or to fire without that effect.
func (p *Policy) HostGaps(h *contract.Host) hcl.Diagnostics {
	if len(p.Hosts) > 0 && !slices.Contains(p.Hosts, h.Name) {
		return hcl.Diagnostics{errorAt(ptr(p.HostsRange), "Policy not for this host",
			"policy %q runs on %s only (its hosts); it is not loaded on %s", p.Name, strings.Join(p.Hosts, ", "), h.Name)}
	}
	var diags hcl.Diagnostics
	for _, r := range p.Rules {
		fires := false
		for i, ev := range r.On {
			ok, why := h.Reports(ev)
			if ok {
				fires = true
				continue
			}
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagWarning, Summary: "Rule never fires on " + h.Name, Subject: ptr(r.OnRanges[i]),
				Detail: fmt.Sprintf("rule %q waits for %q, which %s never reports: %s", r.Name, ev, h.Name, why)})
		}
		if !fires {
			continue
		}
		for _, e := range r.Effects {
			if ok, why := h.CarriesOut(e.Name); !ok {
				diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagWarning, Summary: "Effect not carried out on " + h.Name, Subject: ptr(e.NameRange),
					Detail: fmt.Sprintf("rule %q emits %q, which %s cannot carry out: %s", r.Name, e.Name, h.Name, why)})
			}
		}
	}
	return diags
}
