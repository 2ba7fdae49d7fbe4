package rpc

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/resetpolicy/resetpolicy/engine"
	"github.com/resetpolicy/resetpolicy/host/settings"
	"github.com/resetpolicy/resetpolicy/rules/contract"
	"github.com/valyala/fastjson"
)

func init() {
	methods["initialize"] = (*Server).initialize
	methods["snapshot"] = (*Server).snapshot
	methods["restore"] = (*Server).restore
	methods["closeSession"] = (*Server).closeSession
	methods["saveParam"] = (*Server).saveParam
	methods["clearParam"] = (*Server).clearParam
}

func (s *Server) initialize(params json.RawMessage) (json.RawMessage, *Error) {
	var p struct {
		ProjectDir string `json:"projectDir"`
		Trusted    bool   `json:"trusted"`
		// Host names the client ("pi", "opencode"); "" is Pi.
		Host string `json:"host"`
	}
	if err := decodeParams(params, &p); err != nil {
		return nil, err
	}
	if p.Host == "" {
		p.Host = contract.DefaultHost
	}
	h, ok := contract.LookupHost(p.Host)
	if !ok {
		return nil, errorf(CodeInvalidParams, "params: host %q is not a host; the hosts are %s", p.Host, strings.Join(contract.HostNames(), ", "))
	}
	s.host = h
	res := s.load(p.ProjectDir, p.Trusted)
	if s.cur == nil {
		return nil, errorf(CodeFailed, "%s", res.Error)
	}
	b, err := res.appendJSON(make([]byte, 0, 8192))
	if err != nil {
		return nil, errorf(CodeInternalError, "encode result: %v", err)
	}
	return b, nil
}

// session returns the named session, creating it on first use (decide,
// restore).
func (s *Server) session(name []byte) (*sessionEntry, *Error) {
	if err := checkSessionName(name); err != nil {
		return nil, err
	}
	if err := s.ensure(); err != nil {
		return nil, err
	}
	if e, ok := s.sessions.get(name); ok {
		return e, nil
	}
	e, gone := s.sessions.add(string(name), s.cur.eng.NewSession(), s.evicted[:0])
	s.logEvicted(gone)
	return e, nil
}

// resized measures a session again after its state changed, evicting
// others past the size bound.
func (s *Server) resized(e *sessionEntry) {
	s.logEvicted(s.sessions.resize(e, s.evicted[:0]))
}

func (s *Server) logEvicted(gone []string) {
	for _, name := range gone {
		s.logf("session %q evicted: more than %d sessions or %d bytes of them open (the least recently used goes)", name, s.opts.MaxSessions, s.opts.MaxSessionBytes)
	}
	s.evicted = gone[:0]
}

func checkSessionName(name []byte) *Error {
	if len(name) == 0 {
		return errorf(CodeInvalidParams, "params: session must be a non-empty string")
	}
	if len(name) > MaxSessionName {
		return errorf(CodeInvalidParams, "params: session name is %d bytes long; at most %d", len(name), MaxSessionName)
	}
	return nil
}

// existing returns the named session, which must exist (snapshot): asking
// for a session nobody decided in is a host's mistake, not a new session.
func (s *Server) existing(name string) (*engine.Session, *Error) {
	if err := checkSessionName([]byte(name)); err != nil {
		return nil, err
	}
	e, ok := s.sessions.get([]byte(name))
	if !ok {
		return nil, errorf(CodeInvalidParams, "unknown session %q: sessions start with decide or restore, and end with closeSession or eviction", name)
	}
	return e.s, nil
}

// decide reads its params straight from the parsed request: the event's
// facts go from the JSON tree into the engine's slots without a map.
func (s *Server) decide(params *fastjson.Value) (json.RawMessage, *Error) {
	if params == nil || params.Type() != fastjson.TypeObject {
		return nil, errorf(CodeInvalidParams, "params must be an object")
	}
	po, _ := params.Object()
	var session []byte
	var event *fastjson.Value
	explain := false
	var rerr *Error
	po.Visit(func(k []byte, v *fastjson.Value) {
		if rerr != nil {
			return
		}
		switch string(k) {
		case "session":
			if v.Type() != fastjson.TypeString {
				rerr = errorf(CodeInvalidParams, "params: session must be a string")
				return
			}
			session = v.GetStringBytes()
		case "event":
			event = v
		case "explain":
			switch v.Type() {
			case fastjson.TypeTrue:
				explain = true
			case fastjson.TypeFalse:
				explain = false
			default:
				rerr = errorf(CodeInvalidParams, "params: explain must be a bool")
			}
		default:
			rerr = errorf(CodeInvalidParams, "params: unknown field %q", k)
		}
	})
	if rerr != nil {
		return nil, rerr
	}
	if event == nil || event.Type() != fastjson.TypeObject {
		return nil, errorf(CodeInvalidParams, "params: event must be an object")
	}
	se, rerr := s.session(session)
	if rerr != nil {
		return nil, rerr
	}
	ss := se.s
	e, err := s.dec.DecodeValue(event)
	if err != nil {
		return nil, errorf(CodeInvalidParams, "event: %v", err)
	}
	var d *engine.Decision
	if explain {
		d, err = ss.DecideExplain(e)
	} else {
		d, err = ss.Decide(e)
	}
	if err != nil {
		return nil, errorf(CodeDecisionFailed, "decide %s: %v", e.Name(), err)
	}
	s.resized(se)
	b := append(s.out[:0], '{')
	b = d.AppendJSON(b, ss)
	b = append(b, '}')
	s.out = b
	if s.dlog != nil {
		s.params = event.MarshalTo(s.params[:0])
		if err := s.dlog.write(s.opts.Now(), string(session), s.cur.desc.Name, s.params, d.Rules, d.Effects, ss); err != nil {
			s.logf("decision log %s: %v", s.dlog.path, err)
		}
	}
	return b, nil
}

func (s *Server) snapshot(params json.RawMessage) (json.RawMessage, *Error) {
	var p struct {
		Session string `json:"session"`
	}
	if err := decodeParams(params, &p); err != nil {
		return nil, err
	}
	ss, rerr := s.existing(p.Session)
	if rerr != nil {
		return nil, rerr
	}
	b := append([]byte(`{"state":`), ss.AppendStateJSON(nil)...)
	return append(b, '}'), nil
}

// restore sets a session's state from a snapshot, creating the session if
// need be. A partial snapshot is accepted: the slots it leaves out take
// their initial values, and the result names them in "reset", so a host
// restoring an older policy's snapshot sees what it lost.
func (s *Server) restore(params json.RawMessage) (json.RawMessage, *Error) {
	var p struct {
		Session string          `json:"session"`
		State   json.RawMessage `json:"state"`
	}
	if err := decodeParams(params, &p); err != nil {
		return nil, err
	}
	st := bytes.TrimSpace(p.State)
	if len(st) == 0 || st[0] != '{' {
		return nil, errorf(CodeInvalidParams, "params: state must be an object of slots")
	}
	if err := checkSessionName([]byte(p.Session)); err != nil {
		return nil, err
	}
	// A restore that fails must not leave a new session behind.
	_, existed := s.sessions.get([]byte(p.Session))
	se, rerr := s.session([]byte(p.Session))
	if rerr != nil {
		return nil, rerr
	}
	ss := se.s
	reset, err := ss.RestoreReport(st)
	if err != nil {
		if !existed {
			s.sessions.remove(p.Session)
		}
		return nil, errorf(CodeInvalidParams, "state: %v", err)
	}
	s.resized(se)
	b := append([]byte(`{"state":`), ss.AppendStateJSON(nil)...)
	b = append(b, `,"reset":`...)
	b = engine.AppendStringsJSON(b, reset)
	return append(b, '}'), nil
}

// closeSession forgets a session. The host calls it when a session ends
// (Pi's session_shutdown, after deciding that event and carrying out its
// effects); the event itself does not close the session, so its effects
// can still be carried out and the state snapshotted.
func (s *Server) closeSession(params json.RawMessage) (json.RawMessage, *Error) {
	var p struct {
		Session string `json:"session"`
	}
	if err := decodeParams(params, &p); err != nil {
		return nil, err
	}
	return marshal(map[string]bool{"closed": s.sessions.remove(p.Session)})
}

// saveParam and clearParam carry out the save_param and clear_param
// effects: they persist into the trusted project's config file.
func (s *Server) saveParam(params json.RawMessage) (json.RawMessage, *Error) {
	var p struct {
		Name  string          `json:"name"`
		Value json.RawMessage `json:"value"`
	}
	if err := decodeParams(params, &p); err != nil {
		return nil, err
	}
	v := bytes.TrimSpace(p.Value)
	if len(v) == 0 {
		return nil, errorf(CodeInvalidParams, "params: value is required")
	}
	text := string(v)
	var str string
	if v[0] == '"' && json.Unmarshal(v, &str) == nil {
		text = strconv.Quote(str)
	}
	if rerr := s.projectWritable(); rerr != nil {
		return nil, rerr
	}
	path, err := settings.SaveParam(s.projectDir, s.hostName(), p.Name, text)
	if err != nil {
		return nil, errorf(CodeFailed, "save param %s: %v", p.Name, err)
	}
	return marshal(map[string]string{"file": path})
}

func (s *Server) clearParam(params json.RawMessage) (json.RawMessage, *Error) {
	var p struct {
		Name string `json:"name"`
	}
	if err := decodeParams(params, &p); err != nil {
		return nil, err
	}
	if rerr := s.projectWritable(); rerr != nil {
		return nil, rerr
	}
	path, err := settings.ClearParam(s.projectDir, p.Name)
	if err != nil {
		return nil, errorf(CodeFailed, "clear param %s: %v", p.Name, err)
	}
	return marshal(map[string]string{"file": path})
}

func (s *Server) projectWritable() *Error {
	if s.projectDir == "" {
		return errorf(CodeFailed, "no project directory: initialize with projectDir first")
	}
	if !s.trusted {
		return errorf(CodeFailed, "the project is not trusted; its settings are not written")
	}
	return nil
}
