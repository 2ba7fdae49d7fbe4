package lang

import (
	"reflect"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/expr-lang/expr/conf"
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
	// Folded counts the bytes of strings folded to constants; give every
	// Env of one policy the same counter so the policy as a whole stays
	// under MaxFoldedBytes.
	Folded *int
	// Trees, when set, shares parsed expressions between the Envs of one
	// policy load.
	Trees *Trees

	rtype reflect.Type
	rkey  string
	cfg   *conf.Config
}

// Namespaces an expression reads by member access.
const (
	nsEvent   = "event"
	nsState   = "state"
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

// The checker's view of an environment is only types, so the types and
// checker configurations are kept for the life of the process, keyed by
// the names and types they hold: each event kind's facts, and a policy's
// slots, params and messages, are built into types once, however many
// expressions, event kinds, derived values and loads use them.
var (
	typeCache sync.Map // signature → reflect.Type
	cfgCache  sync.Map // signature → *conf.Config
)

// structOf builds (or finds) a Go struct type with expr tags so that
// expr's checker sees the names and their types; key is its signature.
func structOf(names []string, types []Type) (reflect.Type, string) {
	var b strings.Builder
	for i, n := range names {
		b.WriteString(n)
		b.WriteByte(':')
		b.WriteByte('0' + byte(types[i]))
		b.WriteByte(',')
	}
	key := b.String()
	if t, ok := typeCache.Load(key); ok {
		return t.(reflect.Type), key
	}
	fields := make([]reflect.StructField, len(names))
	for i, n := range names {
		fields[i] = reflect.StructField{
			Name: "F" + strconv.Itoa(i),
			Type: goType(types[i]),
			Tag:  reflect.StructTag(`expr:` + strconv.Quote(n)),
		}
	}
	t := reflect.StructOf(fields)
	typeCache.Store(key, t)
	return t, key
}

// checkerType is the struct the expr checker sees as the environment, and
// its signature.
func (e *Env) checkerType() (reflect.Type, string) {
	if e.rtype != nil {
		return e.rtype, e.rkey
	}
	var names []string
	var types []reflect.Type
	var key strings.Builder
	add := func(name string, fs []Field, cs []Const) {
		var n []string
		var t []Type
		for _, f := range fs {
			n, t = append(n, f.Name), append(t, f.Type)
		}
		for _, c := range cs {
			n, t = append(n, c.Name), append(t, c.Type)
		}
		st, k := structOf(n, t)
		names, types = append(names, name), append(types, st)
		key.WriteString(name + "{" + k + "}")
	}
	if !e.NoEvent {
		add(nsEvent, e.Event, nil)
	}
	if !e.NoState {
		add(nsState, e.State, nil)
	}
	add(nsParam, nil, e.Params)
	add(nsMessage, nil, e.Messages)
	for _, b := range e.Top {
		names, types = append(names, b.Name), append(types, goType(b.Prog.Type))
		key.WriteString(b.Name + ":" + string('0'+byte(b.Prog.Type)) + ",")
	}
	e.rkey = key.String()
	if t, ok := typeCache.Load(e.rkey); ok {
		e.rtype = t.(reflect.Type)
		return e.rtype, e.rkey
	}
	fields := make([]reflect.StructField, len(names))
	for i := range names {
		fields[i] = reflect.StructField{
			Name: "F" + strconv.Itoa(i),
			Type: types[i],
			Tag:  reflect.StructTag(`expr:` + strconv.Quote(names[i])),
		}
	}
	e.rtype = reflect.StructOf(fields)
	typeCache.Store(e.rkey, e.rtype)
	return e.rtype, e.rkey
}
