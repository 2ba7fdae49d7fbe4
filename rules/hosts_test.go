package rules_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"

	"github.com/resetpolicy/resetpolicy/policies"
	"github.com/resetpolicy/resetpolicy/rules"
	"github.com/resetpolicy/resetpolicy/rules/contract"
)

const hostsPolicy = `
policy "hosts" {
  hosts = %s
}
slot "phase" {
  values = ["idle", "busy"]
}
group "g" {
  rule "on_tree" {
    on = ["session_tree", "request"]
    effect "status" {
      text = "'x'"
    }
  }
  rule "only_compact" {
    on = "before_compact"
    effect "cancel_compaction" {}
  }
  rule "fine" {
    on = "turn_end"
    effect "continue" {}
  }
}
`

func host(t *testing.T, name string) *contract.Host {
	t.Helper()
	h, ok := contract.LookupHost(name)
	if !ok {
		t.Fatalf("no host %q", name)
	}
	return h
}

func loadHosts(t *testing.T, hosts string) (*rules.Policy, hcl.Diagnostics) {
	t.Helper()
	src := strings.Replace(hostsPolicy, "%s", hosts, 1)
	if hosts == "" {
		src = strings.Replace(src, "  hosts = \n", "", 1)
	}
	p, diags := rules.Load(rules.Source{Name: "hosts.hcl", Bytes: []byte(src)})
	return p, diags.Diagnostics
}

func at(d *hcl.Diagnostic) string {
	return fmt.Sprintf("%s:%d:%d", d.Subject.Filename, d.Subject.Start.Line, d.Subject.Start.Column)
}

// Every rule that leans on what a host lacks is named at its position: an
// event the host never reports where the rule waits for it, an effect it
// cannot carry out where the rule emits it, and no effect warning for a
// rule that can never fire there anyway.
func TestHostGapsNameEachRuleAtItsPosition(t *testing.T) {
	p, diags := loadHosts(t, "")
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	if gaps := p.HostGaps(host(t, "pi")); len(gaps) != 0 {
		t.Errorf("pi lacks nothing, got %v", gaps)
	}
	gaps := p.HostGaps(host(t, "opencode"))
	var got []string
	for _, d := range gaps {
		if d.Severity != hcl.DiagWarning {
			t.Errorf("a gap is a warning, got %v", d)
		}
		got = append(got, at(d)+" "+d.Summary+": "+d.Detail)
	}
	want := []string{
		`hosts.hcl:9:11 Rule never fires on opencode: rule "on_tree" waits for "session_tree", which opencode never reports: opencode has no session tree to navigate`,
		`hosts.hcl:10:12 Effect not carried out on opencode: rule "on_tree" emits "status", which opencode cannot carry out: opencode has no footer status line for plugins`,
		`hosts.hcl:15:10 Rule never fires on opencode: rule "only_compact" waits for "before_compact", which opencode never reports: an opencode plugin cannot answer, replace or cancel one compaction (its automatic compaction is off while the policy is on)`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("gaps:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// A policy's hosts are the only hosts it loads on: elsewhere one error at
// the attribute, and no rule-by-rule warnings beside it.
func TestPolicyHostsRefuseOtherHosts(t *testing.T) {
	p, diags := loadHosts(t, `["pi"]`)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	gaps := p.HostGaps(host(t, "opencode"))
	if len(gaps) != 1 || !gaps.HasErrors() || at(gaps[0]) != "hosts.hcl:3:11" ||
		gaps[0].Detail != `policy "hosts" runs on pi only (its hosts); it is not loaded on opencode` {
		t.Fatalf("got %v", gaps)
	}
	if gaps := p.HostGaps(host(t, "pi")); len(gaps) != 0 {
		t.Errorf("on its own host: %v", gaps)
	}
	p, diags = loadHosts(t, `["pi", "opencode"]`)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	if gaps := p.HostGaps(host(t, "opencode")); gaps.HasErrors() || len(gaps) != 3 {
		t.Errorf("listed host: %v", gaps)
	}
}

func TestPolicyHostsAreChecked(t *testing.T) {
	for _, c := range []struct{ hosts, want string }{
		{`["opnecode"]`, `hosts.hcl:3:12: "opnecode" is not a host; did you mean "opencode"?`},
		{`["claude"]`, `hosts.hcl:3:12: "claude" is not a host; the hosts are pi, opencode`},
		{`["pi", "pi"]`, `hosts.hcl:3:18: "pi" is listed twice`},
		{`[]`, `hosts.hcl:3:11: hosts lists the hosts the policy runs on; leave it out to run on every host`},
		{`"pi ${x}"`, `hosts.hcl:3:11:`},
	} {
		_, diags := loadHosts(t, c.hosts)
		if !diags.HasErrors() {
			t.Errorf("hosts = %s: loaded", c.hosts)
			continue
		}
		got := at(diags[0]) + ": " + diags[0].Detail
		if !strings.HasPrefix(got, c.want) {
			t.Errorf("hosts = %s:\n got %s\nwant %s", c.hosts, got, c.want)
		}
	}
}

// new_context resets inside the host's compaction, which opencode plugins
// cannot answer: it says so at load there. The other built-ins load on
// every host, each gap named.
func TestBuiltinsOnEveryHost(t *testing.T) {
	for _, name := range policies.Names() {
		p, diags := policies.Load(name, nil)
		if diags.HasErrors() {
			t.Fatal(diags.Error())
		}
		for _, h := range contract.Hosts {
			gaps := p.HostGaps(&h)
			refused := name == "new_context" && h.Name == "opencode"
			if gaps.HasErrors() != refused {
				t.Errorf("%s on %s: refused %v, want %v: %v", name, h.Name, gaps.HasErrors(), refused, gaps)
			}
		}
	}
}

// A host's gaps name events and effects of the contract, each with why.
func TestHostGapsAreContractNames(t *testing.T) {
	if contract.Hosts[0].Name != contract.DefaultHost {
		t.Errorf("the default host comes first")
	}
	for _, h := range contract.Hosts {
		for ev, why := range h.Unreported {
			if _, ok := contract.LookupEvent(ev); !ok || why == "" {
				t.Errorf("%s: unreported %q is not an event of the contract, or has no reason", h.Name, ev)
			}
		}
		for ef, why := range h.Unsupported {
			if _, ok := contract.LookupEffect(ef); !ok || why == "" {
				t.Errorf("%s: unsupported %q is not an effect of the contract, or has no reason", h.Name, ef)
			}
		}
	}
}
