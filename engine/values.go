package engine

import "github.com/resetpolicy/resetpolicy/rules/lang"

// Values appends the session's slot values, in slot order, to dst. With
// SetValues it lets a caller that explores many states (the model checker)
// save and restore a session without JSON.
func (s *Session) Values(dst []lang.Value) []lang.Value { return append(dst, s.state...) }

// SetValues sets every slot from vals, as returned by Values of a session
// of the same engine. It does not validate: use Restore for outside input.
func (s *Session) SetValues(vals []lang.Value) { copy(s.state, vals); s.written++ }
