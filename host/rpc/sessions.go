package rpc

import "github.com/resetpolicy/resetpolicy/engine"

// DefaultMaxSessions bounds the sessions a server keeps (Options.MaxSessions).
// A host closes its sessions with closeSession when they end; the bound is
// for the ones it never closes (a crashed host, a host that does not know
// the method). One Pi process serves one session at a time, so 1,024 is
// far more than a well-behaved host ever holds.
const DefaultMaxSessions = 1024

// MaxSessionName bounds a session's name, in bytes: Pi names a session by
// its id, a UUID of 36. A longer name is refused with a JSON-RPC error
// (1,024 sessions of 500 KB names held 546 MB).
const MaxSessionName = 256

// DefaultMaxSessionBytes bounds the sessions' total size
// (Options.MaxSessionBytes): names and states as engine.Session.Bytes
// estimates them. Past it the least recently used sessions are evicted
// as past the count. A state of the built-ins is a few hundred bytes, so
// the count is the bound that holds unless states carry long strings.
const DefaultMaxSessionBytes = 64 << 20

// sessions holds the server's sessions, most recently used first. When a
// new session would exceed the bound, the least recently used one is
// evicted; the server decides one request at a time, so every session but
// the one being decided is idle.
type sessions struct {
	max      int
	maxBytes int
	bytes    int // the sum of every entry's size
	byID     map[string]*sessionEntry
	// a ring through a sentinel: head.next is the most recently used,
	// head.prev the least.
	head sessionEntry
}

type sessionEntry struct {
	name       string
	s          *engine.Session
	size       int // the name and the state, when last measured
	prev, next *sessionEntry
}

func newSessions(max, maxBytes int) *sessions {
	t := &sessions{max: max, maxBytes: maxBytes, byID: map[string]*sessionEntry{}}
	t.head.prev, t.head.next = &t.head, &t.head
	return t
}

func (t *sessions) len() int { return len(t.byID) }

// get returns the named session and marks it used; name is looked up
// without being copied.
func (t *sessions) get(name []byte) (*sessionEntry, bool) {
	e, ok := t.byID[string(name)]
	if !ok {
		return nil, false
	}
	t.unlink(e)
	t.pushFront(e)
	return e, true
}

// add stores a new session under name and returns the names of the
// sessions it evicted to stay within the bounds.
func (t *sessions) add(name string, s *engine.Session, evicted []string) (*sessionEntry, []string) {
	if old, ok := t.byID[name]; ok {
		t.drop(old)
	}
	e := &sessionEntry{name: name, s: s}
	t.byID[name] = e
	t.pushFront(e)
	return e, t.resize(e, evicted)
}

// resize measures e again after its state changed and evicts the least
// recently used other sessions while the count or the total size is past
// its bound. e itself stays: it is the one being used.
func (t *sessions) resize(e *sessionEntry, evicted []string) []string {
	size := len(e.name) + e.s.Bytes()
	t.bytes += size - e.size
	e.size = size
	for len(t.byID) > t.max || t.bytes > t.maxBytes && len(t.byID) > 1 {
		last := t.head.prev
		if last == e {
			last = e.prev
		}
		if last == &t.head {
			break
		}
		t.drop(last)
		evicted = append(evicted, last.name)
	}
	return evicted
}

func (t *sessions) drop(e *sessionEntry) {
	t.unlink(e)
	delete(t.byID, e.name)
	t.bytes -= e.size
}

// remove forgets a session and reports whether it existed.
func (t *sessions) remove(name string) bool {
	e, ok := t.byID[name]
	if ok {
		t.drop(e)
	}
	return ok
}

// clear forgets every session.
func (t *sessions) clear() {
	clear(t.byID)
	t.bytes = 0
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
