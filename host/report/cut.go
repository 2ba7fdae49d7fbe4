package report

import (
	"maps"
	"strconv"
	"unicode/utf8"

	"github.com/resetpolicy/resetpolicy/host/replay"
)

// MaxSessionString bounds every string the page shows of one session (its
// file, name, id, leaf, model, notes, problems, rejected events, effect
// texts, a failed file's reason): a session file's strings are whatever
// its writer put there, and one name of 6 MB took the page past
// MaxPageBytes, so no page was written for the whole corpus.
const MaxSessionString = 512

// cut is s within MaxSessionString bytes, cut at a character and marked
// with how long it was.
func cut(s string) string {
	if len(s) <= MaxSessionString {
		return s
	}
	mark := "… (" + strconv.Itoa(len(s)) + " bytes)"
	n := MaxSessionString - len(mark)
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + mark
}

func cutAll(ss []string) []string {
	if ss == nil {
		return nil
	}
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = cut(s)
	}
	return out
}

// pageReport is r as the page shows it: a copy whose strings are cut.
func pageReport(r *replay.Report) *replay.Report {
	c := *r
	c.Session, c.File, c.Name, c.Leaf = cut(r.Session), cut(r.File), cut(r.Name), cut(r.Leaf)
	c.Label, c.Policy, c.Model, c.WindowFrom = cut(r.Label), cut(r.Policy), cut(r.Model), cut(r.WindowFrom)
	c.Notes, c.Errors = cutAll(r.Notes), cutAll(r.Errors)
	if r.Skipped != nil {
		c.Skipped = make(map[string]int, len(r.Skipped))
		for k, n := range r.Skipped {
			c.Skipped[cut(k)] += n
		}
	}
	if r.Rejected != nil {
		c.Rejected = make([]replay.Rejected, len(r.Rejected))
		for i, x := range r.Rejected {
			c.Rejected[i] = replay.Rejected{Turn: x.Turn, Event: cut(x.Event), Error: cut(x.Error)}
		}
	}
	if r.Decisions != nil {
		c.Decisions = make([]replay.Decision, len(r.Decisions))
		for i, d := range r.Decisions {
			d.Event, d.Rules = cut(d.Event), cutAll(d.Rules)
			if d.Effects != nil {
				effs := make([]map[string]any, len(d.Effects))
				for j, ef := range d.Effects {
					effs[j] = cutValues(ef)
				}
				d.Effects = effs
			}
			c.Decisions[i] = d
		}
	}
	return &c
}

// cutValues is an effect with its string arguments cut.
func cutValues(m map[string]any) map[string]any {
	long := false
	for _, v := range m {
		if s, ok := v.(string); ok && len(s) > MaxSessionString {
			long = true
		}
	}
	if !long {
		return m
	}
	out := maps.Clone(m)
	for k, v := range out {
		if s, ok := v.(string); ok {
			out[k] = cut(s)
		}
	}
	return out
}
