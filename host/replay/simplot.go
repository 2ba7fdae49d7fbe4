package replay

import (
	"github.com/resetpolicy/resetpolicy/engine"
	"github.com/resetpolicy/resetpolicy/host/sim"
	"github.com/resetpolicy/resetpolicy/rules"
)

// SimulatedSession is the plot panel of a simulation (simulate --plot):
// its requests' context, its decisions and the policy's thresholds, as a
// replay draws them. Every figure of a simulation is what its host saw.
func SimulatedSession(res *sim.Result) PlotSession {
	h := res.Scenario.Host
	s := DefaultSettings()
	if h.Reserve > 0 {
		s.Reserve = h.Reserve
	}
	s.AutoCompaction = h.AutoCompaction
	window := h.ContextWindow
	if window <= 0 {
		window = DefaultContextWindow
	}
	rep := &Report{File: res.Scenario.File, Name: res.Scenario.Title, Label: res.Policy.Name, Policy: res.Policy.Name, ContextWindow: window}
	kinds := rules.NewKindIndex(res.Policy)
	for _, l := range res.Lines {
		if l.Event == "request" {
			// The simulated host reports Pi's estimate, as Pi's does.
			rep.Points = append(rep.Points, Point{Turn: l.Turn, Tokens: l.Tokens, Kind: Estimated, Recorded: l.Tokens, RecordedKind: Estimated})
		}
		if len(l.Rules) == 0 {
			continue
		}
		d := Decision{Turn: l.Turn, Event: l.Event, Tokens: l.Tokens, Kind: Estimated, Rules: l.Rules}
		for _, k := range decisionKinds(kinds, l.Rules, l.Effects).Kinds() {
			d.Kinds = append(d.Kinds, string(k))
		}
		for _, e := range l.Effects {
			m := map[string]any{"effect": e.Name}
			for _, a := range e.Args {
				m[a.Name] = a.Value
			}
			d.Effects = append(d.Effects, m)
		}
		rep.Decisions = append(rep.Decisions, d)
	}
	cfgs := []Config{{Engine: engine.New(res.Policy), Settings: s}}
	return PlotSession{Reports: []*Report{rep}, Thresholds: ThresholdsOf(cfgs, []*Report{rep})}
}
