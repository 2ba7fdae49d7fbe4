package session

import (
	"encoding/json"
	"fmt"
)

// Draft is an entry a boundary handler proposes (Pi's
// SessionBoundaryDraft, extensions/types.d.ts): a custom, custom_message,
// context_edit or compaction entry without id, parent or timestamp, which
// Pi assigns when it appends the proposal in list order.
type Draft struct {
	Type string
	// custom and custom_message
	CustomType string
	// custom
	Data json.RawMessage
	// custom_message
	Content Content
	Display bool
	// custom_message and compaction
	Details json.RawMessage
	// context_edit; a nil Replacement omits the target
	TargetID    string
	Replacement *Content
	// compaction
	Summary string
	// FirstKeptEntryID empty is written as null: "Null creates a
	// self-retaining compaction that keeps no preceding entries."
	FirstKeptEntryID string
	Usage            *Usage
}

// Validate checks the members the draft's type needs.
func (d Draft) Validate() error {
	switch d.Type {
	case TypeCustom, TypeCustomMessage:
		if d.CustomType == "" {
			return fmt.Errorf("%s draft has no customType", d.Type)
		}
	case TypeContextEdit:
		if d.TargetID == "" {
			return fmt.Errorf("context_edit draft has no targetId")
		}
	case TypeCompaction:
	default:
		return fmt.Errorf("draft type %q is not one Pi accepts (custom, custom_message, context_edit, compaction)", d.Type)
	}
	return nil
}

// MarshalJSON writes the draft as a Pi handler returns it.
func (d Draft) MarshalJSON() ([]byte, error) {
	if err := d.Validate(); err != nil {
		return nil, err
	}
	o := newObject().add("type", d.Type)
	switch d.Type {
	case TypeCustom:
		o.add("customType", d.CustomType).addOpt("data", d.Data)
	case TypeCustomMessage:
		o.add("customType", d.CustomType).add("content", d.Content).add("display", d.Display).addOpt("details", d.Details)
	case TypeContextEdit:
		o.add("targetId", d.TargetID)
		if d.Replacement == nil {
			o.set("replacement", json.RawMessage("null"))
		} else {
			o.set("replacement", newObject().add("content", *d.Replacement).bytes())
		}
	case TypeCompaction:
		o.add("summary", d.Summary)
		if d.FirstKeptEntryID == "" {
			o.set("firstKeptEntryId", json.RawMessage("null"))
		} else {
			o.add("firstKeptEntryId", d.FirstKeptEntryID)
		}
		o.addOpt("details", d.Details).addOpt("usage", d.Usage)
	}
	return o.bytes(), nil
}

// UnmarshalJSON reads a draft in the form MarshalJSON writes.
func (d *Draft) UnmarshalJSON(b []byte) error {
	var w struct {
		Type             string          `json:"type"`
		CustomType       string          `json:"customType"`
		Data             json.RawMessage `json:"data"`
		Content          *Content        `json:"content"`
		Display          bool            `json:"display"`
		Details          json.RawMessage `json:"details"`
		TargetID         string          `json:"targetId"`
		Replacement      json.RawMessage `json:"replacement"`
		Summary          string          `json:"summary"`
		FirstKeptEntryID *string         `json:"firstKeptEntryId"`
		Usage            *Usage          `json:"usage"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	nd := Draft{Type: w.Type, CustomType: w.CustomType, Data: w.Data, Display: w.Display,
		Details: w.Details, TargetID: w.TargetID, Summary: w.Summary, Usage: w.Usage}
	if w.Content != nil {
		nd.Content = *w.Content
	}
	if w.FirstKeptEntryID != nil {
		nd.FirstKeptEntryID = *w.FirstKeptEntryID
	}
	if !isNull(w.Replacement) {
		var r struct {
			Content Content `json:"content"`
		}
		if err := json.Unmarshal(w.Replacement, &r); err != nil {
			return fmt.Errorf("context_edit replacement: %w", err)
		}
		nd.Replacement = &r.Content
	}
	*d = nd
	return d.Validate()
}
