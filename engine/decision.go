package engine

// Decision is what one event decided.
type Decision struct {
	Event   string
	Rules   []string // the rules that fired, in order
	Effects []Effect // the effects, in order
	// Explain is filled by DecideExplain: every rule considered for the
	// event and why it did or did not fire.
	Explain []Consideration
}

// Effect is one thing the host must do.
type Effect struct {
	Name string
	Args []Arg
}

// Arg is one effect argument; Value is a bool, a float64 or a string.
type Arg struct {
	Name  string
	Value any
}

// Arg returns the value of the named argument.
func (e Effect) Arg(name string) (any, bool) {
	for _, a := range e.Args {
		if a.Name == name {
			return a.Value, true
		}
	}
	return nil, false
}

// Consideration explains one rule for one event.
type Consideration struct {
	Group  string `json:"group"`
	Rule   string `json:"rule"`
	Fired  bool   `json:"fired"`
	Reason string `json:"reason,omitempty"`
}

// Clone copies a decision so it outlives the next Decide.
func (d *Decision) Clone() *Decision {
	out := &Decision{Event: d.Event}
	out.Rules = append([]string{}, d.Rules...)
	out.Effects = make([]Effect, len(d.Effects))
	for i, e := range d.Effects {
		out.Effects[i] = Effect{Name: e.Name, Args: append([]Arg(nil), e.Args...)}
	}
	out.Explain = append([]Consideration(nil), d.Explain...)
	return out
}
