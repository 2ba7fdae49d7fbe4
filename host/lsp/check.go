package lsp

import (
	"runtime/debug"
	"sync/atomic"
	"time"

	protocol "github.com/tliron/glsp/protocol_3_16"
)

// Checks run on their own goroutines, never on the one that reads the
// client's messages: a handler of didOpen, didChange or didSave only puts
// the document in the queue, so completion and hover are answered while a
// large file is checked. At most maxCheckers documents are checked at
// once, each by one check at a time, and a newer version of a document
// marks its running check stale: the check stops at its next step (a
// policy load or a test run) and publishes nothing, so edits never pile
// up checks.

// maxCheckers is how many documents are checked at once: one, because a
// second check would take the core that answers requests, and its policy
// loads would wait for the first check's anyway (loadMu).
const maxCheckers = 1

// checkRun is one check in progress.
type checkRun struct {
	stale atomic.Bool // a newer version, a close or shutdown came
}

// schedule queues a document's check after delay (at once when it is not
// positive), replacing a pending one: while the author types, only the
// last change is checked. A change marks the running check of the
// document stale; a save does not (its text is the same). Not under s.mu.
func (s *Server) schedule(uri string, delay time.Duration, changed bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if t, ok := s.timers[uri]; ok {
		t.Stop()
		delete(s.timers, uri)
	}
	if run := s.checking[uri]; run != nil && changed {
		run.stale.Store(true)
	}
	if delay > 0 {
		s.timers[uri] = time.AfterFunc(delay, func() {
			s.mu.Lock()
			defer s.mu.Unlock()
			s.enqueue(uri)
		})
		return
	}
	s.enqueue(uri)
}

// enqueue adds a document to the check queue once and starts a checker
// if fewer than maxCheckers run. Under s.mu.
func (s *Server) enqueue(uri string) {
	if s.shut || s.queued[uri] {
		return
	}
	if _, ok := s.docs[uri]; !ok {
		return
	}
	s.queued[uri] = true
	s.queue = append(s.queue, uri)
	if s.checkers < maxCheckers {
		s.checkers++
		go s.checker()
	}
}

// next takes the first queued document that no check is running on, or
// returns "" when there is none. Under s.mu. It costs O(maxCheckers): at
// most that many queued documents are being checked, and the queue is
// consumed from its head.
func (s *Server) next() string {
	for i := s.head; i < len(s.queue); i++ {
		uri := s.queue[i]
		if s.checking[uri] != nil {
			continue
		}
		s.queue[i], s.queue[s.head] = s.queue[s.head], s.queue[i]
		s.queue[s.head] = ""
		s.head++
		if s.head > len(s.queue)/2 {
			s.queue = append(s.queue[:0:0], s.queue[s.head:]...)
			s.head = 0
		}
		delete(s.queued, uri)
		return uri
	}
	return ""
}

// checker checks queued documents until none is left to take.
func (s *Server) checker() {
	for {
		s.mu.Lock()
		uri := s.next()
		if uri == "" {
			s.checkers--
			s.mu.Unlock()
			return
		}
		s.mu.Unlock()
		s.check(uri)
	}
}

// check computes a document's problems outside the lock and publishes
// them unless the document changed meanwhile (the newer version publishes
// its own).
func (s *Server) check(uri string) {
	s.mu.Lock()
	d, ok := s.docs[uri]
	if !ok || s.shut {
		s.mu.Unlock()
		return
	}
	run := &checkRun{}
	s.checking[uri] = run
	gen, k, name, src, dropped, version := d.gen, d.kind, d.name, d.src(), d.dropped, d.version
	hook := s.checkHook
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.checking, uri)
		s.mu.Unlock()
		if r := recover(); r != nil {
			s.logf("panic while checking %s: %v\n%s", uri, r, debug.Stack())
		}
	}()
	// Another open document is looked up by name when the check needs it
	// (a test file's policy): nothing is copied per open document.
	openText := func(path string) []byte {
		s.mu.Lock()
		defer s.mu.Unlock()
		if o := s.byName[path]; o != nil && o != d && !o.dropped {
			return o.src()
		}
		return nil
	}
	b := &budget{stale: run.stale.Load}
	if hook != nil {
		b.hook = func() { hook(uri, version) }
	}
	diags := problems(k, name, src, dropped, openText, b)
	s.mu.Lock()
	defer s.mu.Unlock()
	if run.stale.Load() || s.docs[uri] != d || d.gen != gen || s.shut {
		return
	}
	published := protocol.UInteger(d.version)
	s.notify(protocol.ServerTextDocumentPublishDiagnostics, protocol.PublishDiagnosticsParams{URI: uri, Version: &published, Diagnostics: s.lspDiagnostics(d, diags)})
}

// stopChecks stops pending and running checks (shutdown, the end of the
// connection). Under s.mu.
func (s *Server) stopChecks() {
	for uri, t := range s.timers {
		t.Stop()
		delete(s.timers, uri)
	}
	for _, run := range s.checking {
		run.stale.Store(true)
	}
	s.queue, s.head = nil, 0
	clear(s.queued)
}
