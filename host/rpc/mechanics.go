package rpc

import (
	"encoding/json"

	"github.com/resetpolicy/resetpolicy/host/session"
)

// Default texts of the boundary's messages, used when the policy declares
// no message named "boot" or "continuation".
const (
	DefaultBootText         = "This is a fresh context window. The previous window was reset on purpose; its conversation is no longer in your context, though the session history keeps it."
	DefaultContinuationText = "Continue the task in this fresh context window."
)

func init() {
	methods["boundary"] = (*Server).boundary
	methods["checkpoint"] = (*Server).checkpoint
	methods["compactionReset"] = (*Server).compactionReset
	methods["committed"] = (*Server).committed
	methods["inspectTail"] = (*Server).inspectTail
	methods["repair"] = (*Server).repair
	methods["project"] = (*Server).project
	methods["activeWindow"] = (*Server).activeWindow
	methods["findCompactionReset"] = (*Server).findCompactionReset
	methods["compactedAtLeaf"] = (*Server).compactedAtLeaf
	methods["suppressTreeSummary"] = (*Server).suppressTreeSummary
}

// parseEntries reads Pi entries given as JSON objects.
func parseEntries(field string, raws []json.RawMessage) ([]*session.Entry, *Error) {
	out := make([]*session.Entry, 0, len(raws))
	for i, r := range raws {
		e, err := session.ParseEntry(r)
		if err != nil {
			return nil, errorf(CodeInvalidParams, "%s[%d]: %v", field, i, err)
		}
		out = append(out, e)
	}
	return out, nil
}

// boundaryMessages are the policy's boot and continuation texts.
func (s *Server) boundaryMessages() session.BoundaryMessages {
	_ = s.ensure()
	return session.BoundaryMessages{
		Boot:         session.Text(s.message("boot", DefaultBootText)),
		Continuation: session.Text(s.message("continuation", DefaultContinuationText)),
	}
}

func newWindowID(given string) string {
	if given != "" {
		return given
	}
	return "w-" + session.RandomID()
}

type draftsResult struct {
	WindowID string          `json:"windowId,omitempty"`
	Entries  []session.Draft `json:"entries"`
}

// boundary {windowId?} -> {windowId, entries}: the ordered retain-none
// reset boundary for a new window (a fresh id when none is given), as Pi
// boundary drafts for a turn_end or agent_before_settle result.
func (s *Server) boundary(params json.RawMessage) (json.RawMessage, *Error) {
	var p struct {
		WindowID string `json:"windowId"`
	}
	if err := decodeParams(params, &p); err != nil {
		return nil, err
	}
	w := newWindowID(p.WindowID)
	drafts, err := session.Boundary(w, s.boundaryMessages())
	if err != nil {
		return nil, errorf(CodeInvalidParams, "boundary: %v", err)
	}
	return marshal(draftsResult{WindowID: w, Entries: drafts})
}

// checkpoint {summary, details?, usage?} -> {entry}: seed 002's
// self-retaining summarising compaction draft.
func (s *Server) checkpoint(params json.RawMessage) (json.RawMessage, *Error) {
	var p struct {
		Summary string          `json:"summary"`
		Details json.RawMessage `json:"details"`
		Usage   *session.Usage  `json:"usage"`
	}
	if err := decodeParams(params, &p); err != nil {
		return nil, err
	}
	d, err := session.Checkpoint(p.Summary, p.Details, p.Usage)
	if err != nil {
		return nil, errorf(CodeInvalidParams, "checkpoint: %v", err)
	}
	return marshal(map[string]session.Draft{"entry": d})
}

// compactionReset {windowId?, tokensBefore} -> {windowId, result}: seed
// 001's session_before_compact result.
func (s *Server) compactionReset(params json.RawMessage) (json.RawMessage, *Error) {
	var p struct {
		WindowID     string `json:"windowId"`
		TokensBefore int64  `json:"tokensBefore"`
	}
	if err := decodeParams(params, &p); err != nil {
		return nil, err
	}
	w := newWindowID(p.WindowID)
	r, err := session.CompactionTimeReset(w, p.TokensBefore)
	if err != nil {
		return nil, errorf(CodeInvalidParams, "compactionReset: %v", err)
	}
	return marshal(struct {
		WindowID string                      `json:"windowId"`
		Result   session.BeforeCompactResult `json:"result"`
	}{w, r})
}

type entriesParams struct {
	Entries  []json.RawMessage `json:"entries"`
	WindowID string            `json:"windowId"`
}

func (s *Server) entriesParams(params json.RawMessage) ([]*session.Entry, string, *Error) {
	var p entriesParams
	if err := decodeParams(params, &p); err != nil {
		return nil, "", err
	}
	path, rerr := parseEntries("entries", p.Entries)
	return path, p.WindowID, rerr
}

// committed {entries, windowId} -> {committed, reason}.
func (s *Server) committed(params json.RawMessage) (json.RawMessage, *Error) {
	path, w, rerr := s.entriesParams(params)
	if rerr != nil {
		return nil, rerr
	}
	res := struct {
		Committed bool   `json:"committed"`
		Reason    string `json:"reason,omitempty"`
	}{Committed: true}
	if err := session.CheckCommitted(path, w); err != nil {
		res.Committed, res.Reason = false, err.Error()
	}
	return marshal(res)
}

type tailResult struct {
	Status     string             `json:"status"`
	WindowID   string             `json:"windowId,omitempty"`
	Checkpoint bool               `json:"checkpoint"`
	Missing    []session.Artifact `json:"missing"`
	Reason     string             `json:"reason,omitempty"`
}

func tailOf(r session.TailReport) tailResult {
	m := r.Missing
	if m == nil {
		m = []session.Artifact{}
	}
	return tailResult{Status: r.Status.String(), WindowID: r.WindowID, Checkpoint: r.Checkpoint, Missing: m, Reason: r.Reason}
}

// inspectTail {entries, windowId?} -> {status, windowId, checkpoint,
// missing, reason}.
func (s *Server) inspectTail(params json.RawMessage) (json.RawMessage, *Error) {
	path, w, rerr := s.entriesParams(params)
	if rerr != nil {
		return nil, rerr
	}
	return marshal(tailOf(session.InspectTail(path, w)))
}

// repair {entries, windowId?} -> the tail report with the drafts that
// complete a repairable tail ("entries", empty otherwise).
func (s *Server) repair(params json.RawMessage) (json.RawMessage, *Error) {
	path, w, rerr := s.entriesParams(params)
	if rerr != nil {
		return nil, rerr
	}
	r := session.InspectTail(path, w)
	res := struct {
		tailResult
		Entries []session.Draft `json:"entries"`
	}{tailOf(r), []session.Draft{}}
	if r.Status == session.TailRepairable {
		drafts, err := session.Repair(r, s.boundaryMessages())
		if err != nil {
			return nil, errorf(CodeFailed, "repair: %v", err)
		}
		res.Entries = drafts
	}
	return marshal(res)
}

// project {entries, windowId?} -> {mode, windowId, messages, clamped,
// reason}.
func (s *Server) project(params json.RawMessage) (json.RawMessage, *Error) {
	path, w, rerr := s.entriesParams(params)
	if rerr != nil {
		return nil, rerr
	}
	var pr session.Projection
	if w != "" {
		pr = session.ProjectWindow(path, w)
	} else {
		pr = session.Project(path)
	}
	msgs := pr.Context.Messages()
	if msgs == nil {
		msgs = []json.RawMessage{}
	}
	return marshal(struct {
		Mode     string            `json:"mode"`
		WindowID string            `json:"windowId,omitempty"`
		Messages []json.RawMessage `json:"messages"`
		Clamped  bool              `json:"clamped"`
		Reason   string            `json:"reason,omitempty"`
	}{pr.Mode.String(), pr.WindowID, msgs, pr.Clamped, pr.Reason})
}

// activeWindow {entries} -> {windowId}: the window of the latest reset on
// the branch, "" when there is none.
func (s *Server) activeWindow(params json.RawMessage) (json.RawMessage, *Error) {
	path, _, rerr := s.entriesParams(params)
	if rerr != nil {
		return nil, rerr
	}
	return marshal(map[string]string{"windowId": session.ActiveWindow(path)})
}

// findCompactionReset {entries, windowId} -> {found, entryId}: matches a
// session_compact to the compaction-time reset it wrote.
func (s *Server) findCompactionReset(params json.RawMessage) (json.RawMessage, *Error) {
	path, w, rerr := s.entriesParams(params)
	if rerr != nil {
		return nil, rerr
	}
	res := struct {
		Found   bool   `json:"found"`
		EntryID string `json:"entryId,omitempty"`
	}{}
	if e, ok := session.FindCompactionTimeReset(path, w); ok {
		res.Found, res.EntryID = true, e.ID()
	}
	return marshal(res)
}

// compactedAtLeaf {entries} -> {compacted}.
func (s *Server) compactedAtLeaf(params json.RawMessage) (json.RawMessage, *Error) {
	path, _, rerr := s.entriesParams(params)
	if rerr != nil {
		return nil, rerr
	}
	return marshal(map[string]bool{"compacted": session.CompactedAtLeaf(path)})
}

// suppressTreeSummary {oldPath, newPath} -> {suppress, result}: result is
// the session_before_tree result to return when suppress is set.
func (s *Server) suppressTreeSummary(params json.RawMessage) (json.RawMessage, *Error) {
	var p struct {
		OldPath []json.RawMessage `json:"oldPath"`
		NewPath []json.RawMessage `json:"newPath"`
	}
	if err := decodeParams(params, &p); err != nil {
		return nil, err
	}
	oldPath, rerr := parseEntries("oldPath", p.OldPath)
	if rerr != nil {
		return nil, rerr
	}
	newPath, rerr := parseEntries("newPath", p.NewPath)
	if rerr != nil {
		return nil, rerr
	}
	res := struct {
		Suppress bool            `json:"suppress"`
		Result   json.RawMessage `json:"result,omitempty"`
	}{}
	if session.SuppressTreeSummary(oldPath, newPath) {
		res.Suppress, res.Result = true, session.SuppressedTreeResult
	}
	return marshal(res)
}
