package session

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/resetpolicy/resetpolicy/host/fileio"
	"io"
	"time"
)

// Options configure a Session. Every source of variation (clock, ids,
// token estimate) is injectable so that tests and simulations are
// deterministic.
type Options struct {
	// ID is the session id written in the header of a new session; empty
	// means a fresh version 7 UUID.
	ID string
	// CWD is the header's working directory.
	CWD string
	// ParentSession is the header's parentSession (empty: absent).
	ParentSession string
	// Now is the clock for entry timestamps; nil means time.Now.
	Now func() time.Time
	// NewID proposes entry ids; nil means RandomID.
	NewID IDFunc
	// FallbackID proposes ids after 100 collisions; nil means RandomUUID.
	FallbackID IDFunc
	// TokensBefore gives the tokensBefore of a compaction appended from a
	// draft (Pi estimates the projected context); nil means 0.
	TokensBefore func(path []*Entry) int64
}

// Session is a Pi session: a header and entries that form a tree through
// id and parentId, with a current leaf. Appending follows Pi's
// SessionManager: the new entry's parent is the leaf and it becomes the
// leaf.
type Session struct {
	opts    Options
	header  *Entry
	entries []*Entry
	byID    map[string]*Entry
	leaf    string
}

// New starts an empty session with a version 3 header.
func New(opts Options) *Session {
	s := &Session{opts: opts, byID: map[string]*Entry{}}
	now := s.now()
	id := opts.ID
	if id == "" {
		id = NewSessionID(now)
	}
	o := newObject().add("type", TypeSession).add("version", CurrentVersion).
		add("id", id).add("timestamp", isoTime(now)).add("cwd", opts.CWD)
	if opts.ParentSession != "" {
		o.add("parentSession", opts.ParentSession)
	}
	s.header = newEntry(o)
	return s
}

func (s *Session) now() time.Time {
	if s.opts.Now != nil {
		return s.opts.Now()
	}
	return time.Now()
}

// Read reads a session in Pi's JSONL format. Blank lines are skipped;
// a line that is not a JSON object is an error naming the line. Version
// 2 and 3 files are read as they are; a version 1 file (no ids) is
// rejected. The leaf is the last entry in the file, as Pi sets it.
func Read(r io.Reader, opts Options) (*Session, error) {
	s := &Session{opts: opts, byID: map[string]*Entry{}}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 1<<30)
	n := 0
	for sc.Scan() {
		n++
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		e, err := ParseEntry(line)
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", n, err)
		}
		if e.Type() == TypeSession {
			if s.header != nil {
				return nil, fmt.Errorf("line %d: second session header", n)
			}
			if len(s.entries) > 0 {
				return nil, fmt.Errorf("line %d: session header after entries", n)
			}
			s.header = e
			if v := (Header{e}).Version(); v < 2 {
				return nil, fmt.Errorf("line %d: session version %d has no entry ids; open it once in Pi to migrate it", n, v)
			}
			continue
		}
		if s.header == nil {
			return nil, fmt.Errorf("line %d: entry before the session header", n)
		}
		if e.ID() == "" {
			return nil, fmt.Errorf("line %d: %s entry has no id", n, e.Type())
		}
		s.entries = append(s.entries, e)
		s.byID[e.ID()] = e
		s.leaf = e.ID()
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if s.header == nil {
		return nil, errors.New("no session header")
	}
	return s, nil
}

// maxSessionFile bounds a session file read by ReadFile, as replay's
// reader bounds one (1 GiB).
const maxSessionFile = 1 << 30

// ReadFile reads a session file: a regular file or standard input, within
// maxSessionFile.
func ReadFile(path string, opts Options) (*Session, error) {
	f, err := fileio.OpenInput(path, maxSessionFile)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	s, err := Read(f, opts)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return s, nil
}

// WriteTo writes the header and every entry, one JSON object per line.
func (s *Session) WriteTo(w io.Writer) (int64, error) {
	var b bytes.Buffer
	b.Write(s.header.raw)
	b.WriteByte('\n')
	for _, e := range s.entries {
		b.Write(e.raw)
		b.WriteByte('\n')
	}
	return b.WriteTo(w)
}

// WriteFile writes the session to a file.
func (s *Session) WriteFile(path string) error {
	var b bytes.Buffer
	if _, err := s.WriteTo(&b); err != nil {
		return err
	}
	return fileio.WriteOutput(path, b.Bytes(), 0o644)
}

// Header returns the header line.
func (s *Session) Header() Header { return Header{s.header} }

// Entries returns every entry in file order (all branches).
func (s *Session) Entries() []*Entry { return append([]*Entry(nil), s.entries...) }

// Entry returns the entry with that id, or nil.
func (s *Session) Entry(id string) *Entry { return s.byID[id] }

// Leaf returns the current leaf id ("" before the first entry or after
// ResetLeaf).
func (s *Session) Leaf() string { return s.leaf }

// Path returns the active branch, root first and the leaf last (Pi's
// getBranch).
func (s *Session) Path() []*Entry { return s.PathTo(s.leaf) }

// PathTo returns the branch ending at id, root first. A missing parent
// ends the walk, as in Pi.
func (s *Session) PathTo(id string) []*Entry {
	var rev []*Entry
	seen := map[string]bool{}
	for cur := s.byID[id]; cur != nil && !seen[cur.ID()]; {
		seen[cur.ID()] = true
		rev = append(rev, cur)
		p := cur.ParentID()
		if p == "" {
			break
		}
		cur = s.byID[p]
	}
	out := make([]*Entry, len(rev))
	for i, e := range rev {
		out[len(rev)-1-i] = e
	}
	return out
}

// Branch moves the leaf to an existing entry; the next append becomes
// its child.
func (s *Session) Branch(id string) error {
	if s.byID[id] == nil {
		return fmt.Errorf("entry %s not found", id)
	}
	s.leaf = id
	return nil
}

// ResetLeaf makes the next append a new root.
func (s *Session) ResetLeaf() { s.leaf = "" }

// base starts an entry object with Pi's leading members.
func (s *Session) base(typ string) (*object, string) {
	id := s.newID()
	o := newObject().add("type", typ).add("id", id)
	s.addParent(o)
	o.add("timestamp", isoTime(s.now()))
	return o, id
}

func (s *Session) addParent(o *object) {
	if s.leaf == "" {
		o.set("parentId", json.RawMessage("null"))
	} else {
		o.add("parentId", s.leaf)
	}
}

func (s *Session) push(o *object) *Entry {
	e := newEntry(o)
	s.entries = append(s.entries, e)
	s.byID[e.ID()] = e
	s.leaf = e.ID()
	return e
}

// AppendMessage appends a message entry.
func (s *Session) AppendMessage(m Message) (*Entry, error) {
	raw, err := messageJSON(m)
	if err != nil {
		return nil, err
	}
	o, _ := s.base(TypeMessage)
	o.set("message", raw)
	return s.push(o), nil
}

// AppendCustom appends a custom entry (extension state; not in context).
// data may be nil (absent).
func (s *Session) AppendCustom(customType string, data json.RawMessage) *Entry {
	id := s.newID()
	o := newObject().add("type", TypeCustom).add("customType", customType).addOpt("data", data).add("id", id)
	s.addParent(o)
	o.add("timestamp", isoTime(s.now()))
	return s.push(o)
}

// AppendCustomMessage appends a custom_message entry (an extension
// message that is part of the context; display false hides it).
func (s *Session) AppendCustomMessage(customType string, content Content, display bool, details json.RawMessage) *Entry {
	id := s.newID()
	o := newObject().add("type", TypeCustomMessage).add("customType", customType).
		add("content", content).add("display", display).addOpt("details", details).add("id", id)
	s.addParent(o)
	o.add("timestamp", isoTime(s.now()))
	return s.push(o)
}

// Compaction is what AppendCompaction writes.
type Compaction struct {
	Summary string
	// FirstKeptEntryID is where the kept range starts; empty makes the
	// compaction self-retaining: its own id, so no earlier entry is kept.
	FirstKeptEntryID string
	TokensBefore     int64
	Details          json.RawMessage
	Usage            *Usage
	// FromHook is written when set (Pi writes false for its own
	// summaries and true for extension-provided ones).
	FromHook *bool
}

// AppendCompaction appends a compaction entry as Pi's appendCompaction
// does, including the systemMessage checkpoint: the prompt and tool state
// replayed from the current projection.
func (s *Session) AppendCompaction(c Compaction) *Entry {
	sys, hasSys := CurrentSystemMessage(Canonical(s.Path()).Messages())
	o, id := s.base(TypeCompaction)
	kept := c.FirstKeptEntryID
	if kept == "" {
		kept = id
	}
	o.add("summary", c.Summary).add("firstKeptEntryId", kept).add("tokensBefore", c.TokensBefore).
		addOpt("details", c.Details).addOpt("usage", c.Usage).addOpt("fromHook", c.FromHook)
	if hasSys {
		so, err := parseObject(sys)
		if err == nil {
			so.set("timestamp", jsMillis(decodeString(o.get("timestamp"))))
			o.set("systemMessage", so.bytes())
		}
	}
	return s.push(o)
}

// AppendContextEdit appends a context_edit: replacement nil omits the
// target from the context, otherwise its content is replaced. The checks
// are Pi's: the target must be on the active branch and be a user,
// assistant, tool-result or custom message.
func (s *Session) AppendContextEdit(targetID string, replacement *Content) (*Entry, error) {
	t := s.byID[targetID]
	if t == nil {
		return nil, fmt.Errorf("entry %s not found", targetID)
	}
	onBranch := false
	for _, e := range s.Path() {
		if e.ID() == targetID {
			onBranch = true
			break
		}
	}
	if !onBranch {
		return nil, fmt.Errorf("entry %s is not on the active branch", targetID)
	}
	role := "custom"
	switch {
	case t.Type() == TypeCustomMessage:
	case t.Type() == TypeMessage && (t.Role() == "user" || t.Role() == "assistant" || t.Role() == "toolResult"):
		role = t.Role()
	default:
		return nil, fmt.Errorf("entry %s does not contribute editable model content", targetID)
	}
	o, _ := s.base(TypeContextEdit)
	o.add("targetId", targetID)
	if replacement == nil {
		o.set("replacement", json.RawMessage("null"))
	} else {
		c := *replacement
		if (role == "assistant" || role == "toolResult") && c.Blocks == nil {
			c = BlocksOf(TextBlock(c.Text))
		}
		o.set("replacement", newObject().add("content", c).bytes())
	}
	return s.push(o), nil
}

// AppendModelChange records a model switch.
func (s *Session) AppendModelChange(provider, modelID string) *Entry {
	o, _ := s.base(TypeModelChange)
	o.add("provider", provider).add("modelId", modelID)
	return s.push(o)
}

// AppendThinkingLevelChange records a thinking level change.
func (s *Session) AppendThinkingLevelChange(level string) *Entry {
	o, _ := s.base(TypeThinkingLevelChange)
	o.add("thinkingLevel", level)
	return s.push(o)
}

// AppendLabel labels an entry (an empty label clears it).
func (s *Session) AppendLabel(targetID, label string) (*Entry, error) {
	if s.byID[targetID] == nil {
		return nil, fmt.Errorf("entry %s not found", targetID)
	}
	o, _ := s.base(TypeLabel)
	o.add("targetId", targetID)
	if label != "" {
		o.add("label", label)
	}
	return s.push(o), nil
}

// BranchWithSummary moves the leaf to fromID ("" for a new root) and
// appends a branch_summary whose fromId is the previous leaf ("root" when
// there was none), as Pi's branchWithSummary does.
func (s *Session) BranchWithSummary(fromID, summary string, details json.RawMessage, fromHook *bool) (*Entry, error) {
	if fromID != "" && s.byID[fromID] == nil {
		return nil, fmt.Errorf("entry %s not found", fromID)
	}
	prev := s.leaf
	if prev == "" {
		prev = "root"
	}
	s.leaf = fromID
	o, _ := s.base(TypeBranchSummary)
	o.add("fromId", prev).add("summary", summary).addOpt("details", details).addOpt("fromHook", fromHook)
	return s.push(o), nil
}

// AppendDrafts appends boundary drafts in order, as Pi does with the
// entries a turn_end or agent_before_settle handler returns: custom and
// custom_message drafts as they are, context edits checked, compactions
// with fromHook true and tokensBefore from Options.TokensBefore.
func (s *Session) AppendDrafts(drafts []Draft) ([]*Entry, error) {
	for i, d := range drafts {
		if err := d.Validate(); err != nil {
			return nil, fmt.Errorf("draft %d: %w", i, err)
		}
	}
	var out []*Entry
	for _, d := range drafts {
		var e *Entry
		switch d.Type {
		case TypeCustom:
			e = s.AppendCustom(d.CustomType, d.Data)
		case TypeCustomMessage:
			e = s.AppendCustomMessage(d.CustomType, d.Content, d.Display, d.Details)
		case TypeContextEdit:
			var err error
			if e, err = s.AppendContextEdit(d.TargetID, d.Replacement); err != nil {
				return out, err
			}
		case TypeCompaction:
			var tokens int64
			if s.opts.TokensBefore != nil {
				tokens = s.opts.TokensBefore(s.Path())
			}
			yes := true
			e = s.AppendCompaction(Compaction{Summary: d.Summary, FirstKeptEntryID: d.FirstKeptEntryID,
				TokensBefore: tokens, Details: d.Details, Usage: d.Usage, FromHook: &yes})
		}
		out = append(out, e)
	}
	return out, nil
}
