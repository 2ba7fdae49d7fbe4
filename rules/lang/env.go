package lang

import (
	"reflect"
	"sort"
	"strings"
	"sync"

	"github.com/expr-lang/expr/conf"
	"github.com/expr-lang/expr/types"
)

// Field is a fact or a state slot read from the frame by index.
type Field struct {
	Name  string
	Type  Type
	Enum  []string // the values an enum string may take
	Index int
}

// Const is a name whose value is known when the policy is compiled (a param
// in force, a message text).
type Const struct {
	Name  string
	Type  Type
	Value Value
}

// Binding is a top-level name bound to a compiled program: a derived value,
// or `value` inside a param validation.
type Binding struct {
	Name string
	Prog *Program
	// Memo, when above 0, is the binding's slot in Frame.Memo plus one:
	// the value is computed once per event however often it is read.
	Memo int
}

// Env is everything an expression may name. EventName appears in error
// messages ("event turn_end has no fact ...").
type Env struct {
	EventName string
	Event     []Field
	State     []Field
	Params    []Const
	Messages  []Const
	Top       []Binding
	// NoEvent and NoState forbid the namespaces (param validations see
	// only params).
	NoEvent, NoState bool
	// Scope is what a property's scope remembers of how it opened (the
	// arguments of the effect that opened it, the clock then), read as
	// scope.NAME; each field's Index is a position in the frame's State
	// after the policy's own slots. Nil: scope names nothing here, and
	// ScopeNote, when set, says why.
	Scope     []Field
	ScopeNote string
	// Folded counts the bytes of strings folded to constants; give every
	// Env of one policy the same counter so the policy as a whole stays
	// under MaxFoldedBytes.
	Folded *int
	// Trees, when set, shares parsed expressions between the Envs of one
	// policy load.
	Trees *Trees
	// CheckerEvent, when set, is what expr's checker sees of the event
	// namespace in place of Event: a superset of Event in which Event's
	// names have Event's types. Compile refuses a fact Event lacks before
	// the checker runs, so the checker's view of what an expression reads
	// is the same, and Envs of different events share a configuration.
	CheckerEvent []Field

	cfg *conf.Config
	// sig is signature(), made once; pre is the sources the checker
	// accepted in an environment of that signature when the binary was
	// built, found once (pre != nil after).
	sig string
	pre *[]string
}

// Namespaces an expression reads by member access.
const (
	nsEvent   = "event"
	nsState   = "state"
	nsScope   = "scope"
	nsParam   = "param"
	nsMessage = "message"
)

func (e *Env) field(ns, name string) (*Field, bool) {
	var list []Field
	switch ns {
	case nsEvent:
		list = e.Event
	case nsState:
		list = e.State
	case nsScope:
		list = e.Scope
	}
	for i := range list {
		if list[i].Name == name {
			return &list[i], true
		}
	}
	return nil, false
}

func (e *Env) konst(ns, name string) (*Const, bool) {
	list := e.Params
	if ns == nsMessage {
		list = e.Messages
	}
	for i := range list {
		if list[i].Name == name {
			return &list[i], true
		}
	}
	return nil, false
}

func (e *Env) top(name string) (*Binding, bool) {
	for i := range e.Top {
		if e.Top[i].Name == name {
			return &e.Top[i], true
		}
	}
	return nil, false
}

// names lists the members of a namespace, sorted, for "did you mean".
func (e *Env) names(ns string) []string {
	var out []string
	switch ns {
	case nsEvent:
		for _, f := range e.Event {
			out = append(out, f.Name)
		}
	case nsState:
		for _, f := range e.State {
			out = append(out, f.Name)
		}
	case nsScope:
		for _, f := range e.Scope {
			out = append(out, f.Name)
		}
	case nsParam:
		for _, c := range e.Params {
			out = append(out, c.Name)
		}
	case nsMessage:
		for _, c := range e.Messages {
			out = append(out, c.Name)
		}
	}
	sort.Strings(out)
	return out
}

func goType(t Type) reflect.Type {
	switch t {
	case Bool:
		return reflect.TypeOf(false)
	case Int:
		return reflect.TypeOf(0)
	case Float:
		return reflect.TypeOf(0.0)
	case String:
		return reflect.TypeOf("")
	case ListNum:
		return reflect.TypeOf([]float64(nil))
	case ListStr:
		return reflect.TypeOf([]string(nil))
	case Object:
		return reflect.TypeOf(map[string]any(nil))
	}
	return reflect.TypeOf((*any)(nil)).Elem()
}

// The checker's view of an environment is only types, so checker
// configurations are kept for the life of the process, keyed by the names
// and types they hold: each shape of environment (an event kind's facts
// with a policy's slots, params, messages and derived values) is
// configured once, however many expressions and loads use it.
var cfgCache sync.Map // signature → *conf.Config

// checkerEnv is the environment expr's checker sees: expr's map types,
// one of the namespaces and one per namespace of its names. (A Go struct
// type made with reflect.StructOf for each, as before, gave the checker the
// same view, but making 18 of them for the default was a tenth of the start
// of the process Pi spawns.)
func (e *Env) checkerEnv() types.Map {
	env := types.Map{}
	var m types.Map
	e.visible(func(ns string, n int) {
		m = make(types.Map, n)
		env[ns] = m
	}, func(ns, name string, t Type) {
		if ns == "" {
			env[name] = exprType(t)
		} else {
			m[name] = exprType(t)
		}
	})
	return env
}

// signature names checkerEnv's environment: two Envs with one signature
// give the checker the same view, so they share a configuration. It is
// made apart from the environment because most Envs of a load find theirs
// made already (94 Envs, 18 shapes, for the default), and building the
// maps only to drop them was a thirtieth of serve's start.
func (e *Env) signature() string {
	if e.sig == "" {
		e.sig = e.makeSignature()
	}
	return e.sig
}

func (e *Env) makeSignature() string {
	var key strings.Builder
	e.visible(func(ns string, _ int) {
		key.WriteString(ns)
		key.WriteByte('{')
	}, func(ns, name string, t Type) {
		if ns == "" {
			// A binding, not the last namespace's name.
			key.WriteByte('@')
		}
		key.WriteString(name)
		key.WriteByte(':')
		key.WriteByte('0' + byte(t))
		key.WriteByte(',')
	})
	return key.String()
}

// visible walks what the checker sees of e, in one order: each namespace
// allowed (ns, with how many names follow), then its names (name, t in
// ns), then the top-level bindings (name, t with ns "").
func (e *Env) visible(namespace func(ns string, n int), name func(ns, name string, t Type)) {
	add := func(ns string, fs []Field, cs []Const) {
		namespace(ns, len(fs)+len(cs))
		for _, f := range fs {
			name(ns, f.Name, f.Type)
		}
		for _, c := range cs {
			name(ns, c.Name, c.Type)
		}
	}
	if !e.NoEvent {
		if e.CheckerEvent != nil {
			add(nsEvent, e.CheckerEvent, nil)
		} else {
			add(nsEvent, e.Event, nil)
		}
	}
	if !e.NoState {
		add(nsState, e.State, nil)
	}
	if e.Scope != nil {
		add(nsScope, e.Scope, nil)
	}
	add(nsParam, nil, e.Params)
	add(nsMessage, nil, e.Messages)
	for _, b := range e.Top {
		name("", b.Name, b.Prog.Type)
	}
}

// exprType is t as expr's checker knows it: goType's type (a member of
// an object, or anything else, is any). A load asks some 800 times, so
// the answers are made once.
func exprType(t Type) types.Type {
	if ts := exprTypes(); int(t) < len(ts) {
		return ts[t]
	}
	return types.Any
}

var exprTypes = sync.OnceValue(func() *[Any + 1]types.Type {
	out := new([Any + 1]types.Type)
	for t := range out {
		switch t := Type(t); t {
		case Bool, Int, Float, String, ListNum, ListStr, Object:
			out[t] = types.TypeOf(reflect.Zero(goType(t)).Interface())
		default:
			out[t] = types.Any
		}
	}
	return out
})
