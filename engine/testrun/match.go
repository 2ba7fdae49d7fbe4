package testrun

import (
	"fmt"
	"regexp"
	"strings"
)

// RunPattern is a -run pattern read as `go test` reads one: split at each
// slash outside brackets and parentheses into one unanchored regular
// expression per level, FILE then RUN; an empty part matches anything
// (`-run /overflow` selects every run whose name contains "overflow").
// One difference: a pattern with no slash selects a run when it matches
// either the file's name or the run's, because a run's name is what a
// reader remembers (`-run 'starting state'`), and so it always has.
type RunPattern struct {
	levels []*regexp.Regexp
}

// ParseRun compiles a -run pattern.
func ParseRun(expr string) (*RunPattern, error) {
	var p RunPattern
	for _, part := range splitRegexp(expr) {
		if part == "" {
			p.levels = append(p.levels, nil)
			continue
		}
		re, err := regexp.Compile(part)
		if err != nil {
			return nil, fmt.Errorf("%q: %v", part, err)
		}
		p.levels = append(p.levels, re)
	}
	return &p, nil
}

// Match reports whether the run named run of the test file file (its
// base name) is selected. Parts past the run's level select nothing more.
func (p *RunPattern) Match(file, run string) bool {
	if len(p.levels) == 1 {
		re := p.levels[0]
		return re == nil || re.MatchString(file) || re.MatchString(run)
	}
	names := []string{file, run}
	for i, re := range p.levels {
		if i >= len(names) {
			return false
		}
		if re != nil && !re.MatchString(names[i]) {
			return false
		}
	}
	return true
}

// FilterRuns runs only the runs p selects.
func FilterRuns(p *RunPattern) Option {
	return func(r *Runner) { r.pattern = p }
}

// splitRegexp splits at the slashes outside [...] and (...), as the
// testing package does.
func splitRegexp(s string) []string {
	var (
		out     []string
		cs, cp  int
		start   int
		escaped bool
	)
	for i := 0; i < len(s); i++ {
		switch {
		case escaped:
			escaped = false
		case s[i] == '\\':
			escaped = true
		case s[i] == '[':
			cs++
		case s[i] == ']':
			if cs > 0 {
				cs--
			}
		case s[i] == '(' && cs == 0:
			cp++
		case s[i] == ')' && cs == 0:
			if cp > 0 {
				cp--
			}
		case s[i] == '/' && cs == 0 && cp == 0:
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, strings.Clone(s[start:]))
}
