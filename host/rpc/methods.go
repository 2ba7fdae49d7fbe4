package rpc

import (
	"bytes"
	"encoding/json"
	"strconv"

	"github.com/resetpolicy/resetpolicy/engine"
	"github.com/resetpolicy/resetpolicy/host/settings"
)

func init() {
	methods["initialize"] = (*Server).initialize
	methods["decide"] = (*Server).decide
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
	}
	if err := decodeParams(params, &p); err != nil {
		return nil, err
	}
	res := s.load(p.ProjectDir, p.Trusted)
	if s.cur == nil {
		return nil, errorf(CodeFailed, "%s", res.Error)
	}
	return marshal(res)
}

// session returns the named session, creating it on first use.
func (s *Server) session(name string) (*engine.Session, *Error) {
	if name == "" {
		return nil, errorf(CodeInvalidParams, "params: session must be a non-empty string")
	}
	if err := s.ensure(); err != nil {
		return nil, err
	}
	ss, ok := s.sessions[name]
	if !ok {
		ss = s.cur.eng.NewSession()
		s.sessions[name] = ss
	}
	return ss, nil
}

type decideParams struct {
	Session string          `json:"session"`
	Event   json.RawMessage `json:"event"`
	Explain bool            `json:"explain"`
}

// decodeDecideParams reads decide's params (valid JSON, from the request
// line) without reflection.
func decodeDecideParams(raw json.RawMessage) (decideParams, *Error) {
	var p decideParams
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '{' {
		return p, errorf(CodeInvalidParams, "params must be an object")
	}
	var rerr *Error
	err := members(raw, func(k string, v []byte) error {
		switch k {
		case "session":
			s, err := unquote(v)
			if err != nil {
				rerr = errorf(CodeInvalidParams, "params: session must be a string")
				return err
			}
			p.Session = s
		case "event":
			p.Event = v
		case "explain":
			if v[0] != 't' && v[0] != 'f' {
				rerr = errorf(CodeInvalidParams, "params: explain must be a bool")
				return errNotObject
			}
			p.Explain = v[0] == 't'
		default:
			rerr = errorf(CodeInvalidParams, "params: unknown field %q", k)
			return errNotObject
		}
		return nil
	})
	if rerr != nil {
		return p, rerr
	}
	if err != nil {
		return p, errorf(CodeInvalidParams, "params: %v", err)
	}
	return p, nil
}

func (s *Server) decide(params json.RawMessage) (json.RawMessage, *Error) {
	p, rerr := decodeDecideParams(params)
	if rerr != nil {
		return nil, rerr
	}
	ev := bytes.TrimSpace(p.Event)
	if len(ev) == 0 || ev[0] != '{' {
		return nil, errorf(CodeInvalidParams, "params: event must be an object")
	}
	ss, rerr := s.session(p.Session)
	if rerr != nil {
		return nil, rerr
	}
	e, err := parseEvent(ev)
	if err != nil {
		return nil, errorf(CodeInvalidParams, "event: %v", err)
	}
	var d engine.Decision
	if p.Explain {
		d, err = ss.DecideExplain(e)
	} else {
		d, err = ss.Decide(e)
	}
	if err != nil {
		return nil, errorf(CodeDecisionFailed, "decide %s: %v", e.Name(), err)
	}
	b := append(s.out[:0], '{')
	b = d.AppendJSON(b, ss)
	b = append(b, '}')
	s.out = b
	if s.dlog != nil {
		if err := s.dlog.write(s.opts.Now(), p.Session, s.cur.desc.Name, ev, d.Rules, d.Effects, ss); err != nil {
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
	ss, rerr := s.session(p.Session)
	if rerr != nil {
		return nil, rerr
	}
	b := append([]byte(`{"state":`), ss.AppendStateJSON(nil)...)
	return append(b, '}'), nil
}

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
	ss, rerr := s.session(p.Session)
	if rerr != nil {
		return nil, rerr
	}
	if err := ss.Restore(st); err != nil {
		return nil, errorf(CodeInvalidParams, "state: %v", err)
	}
	b := append([]byte(`{"state":`), ss.AppendStateJSON(nil)...)
	return append(b, '}'), nil
}

func (s *Server) closeSession(params json.RawMessage) (json.RawMessage, *Error) {
	var p struct {
		Session string `json:"session"`
	}
	if err := decodeParams(params, &p); err != nil {
		return nil, err
	}
	_, existed := s.sessions[p.Session]
	delete(s.sessions, p.Session)
	return marshal(map[string]bool{"closed": existed})
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
	path, err := settings.SaveParam(s.projectDir, p.Name, text)
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
