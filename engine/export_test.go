package engine

// DropStateTables makes every plan of e decide group by group, each
// bucket with its own state index, as a plan too large to tabulate does.
func DropStateTables(e *Engine) {
	for k := range e.plans {
		e.plans[k].table = nil
	}
}

// StateTables counts the plans of e that have a state table, and the
// plans that have rules.
func StateTables(e *Engine) (tabled, plans int) {
	for k := range e.plans {
		if len(e.plans[k].groups) > 0 {
			plans++
			if e.plans[k].table != nil {
				tabled++
			}
		}
	}
	return tabled, plans
}
