package rpc

import "github.com/resetpolicy/resetpolicy/engine"

// DefaultMaxSessions bounds the sessions a server keeps (Options.MaxSessions).
// A host closes its sessions with closeSession when they end; the bound is
// for the ones it never closes (a crashed host, a host that does not know
// the method). One Pi process serves one session at a time, so 1,024 is
// far more than a well-behaved host ever holds.
const DefaultMaxSessions = 1024

// sessions holds the server's sessions, most recently used first. When a
// new session would exceed the bound, the least recently used one is
// evicted; the server decides one request at a time, so every session but
// the one being decided is idle.
type sessions struct {
	max  int
	byID map[string]*sessionEntry
	// a ring through a sentinel: head.next is the most recently used,
	// head.prev the least.
	head sessionEntry
}

type sessionEntry struct {
	name       string
	s          *engine.Session
	prev, next *sessionEntry
}

func newSessions(max int) *sessions {
	t := &sessions{max: max, byID: map[string]*sessionEntry{}}
	t.head.prev, t.head.next = &t.head, &t.head
	return t
}

func (t *sessions) len() int { return len(t.byID) }

// get returns the named session and marks it used; name is looked up
// without being copied.
func (t *sessions) get(name []byte) (*engine.Session, bool) {
	e, ok := t.byID[string(name)]
	if !ok {
		return nil, false
	}
	t.unlink(e)
	t.pushFront(e)
	return e.s, true
}

// add stores a new session under name and returns the name of the session
// it evicted to stay within the bound, if any.
func (t *sessions) add(name string, s *engine.Session) (evicted string) {
	if old, ok := t.byID[name]; ok {
		t.unlink(old)
	}
	e := &sessionEntry{name: name, s: s}
	t.byID[name] = e
	t.pushFront(e)
	if len(t.byID) > t.max {
		last := t.head.prev
		t.unlink(last)
		delete(t.byID, last.name)
		return last.name
	}
	return ""
}

// remove forgets a session and reports whether it existed.
func (t *sessions) remove(name string) bool {
	e, ok := t.byID[name]
	if ok {
		t.unlink(e)
		delete(t.byID, name)
	}
	return ok
}

// clear forgets every session.
func (t *sessions) clear() {
	clear(t.byID)
	t.head.prev, t.head.next = &t.head, &t.head
}

func (t *sessions) unlink(e *sessionEntry) {
	e.prev.next, e.next.prev = e.next, e.prev
}

func (t *sessions) pushFront(e *sessionEntry) {
	e.prev, e.next = &t.head, t.head.next
	t.head.next.prev = e
	t.head.next = e
}
