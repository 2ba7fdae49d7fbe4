package session

import (
	"encoding/json"
	"fmt"
)

// Message is an AgentMessage that can be stored in a "message" entry
// (Pi docs, message-types.md). The concrete types below write their
// members in the order Pi's own objects have them; RawMessage stores any
// other message as given.
type Message interface {
	// MessageRole is the message's "role" member.
	MessageRole() string
}

// Content is a user or custom message's content: a plain string or a list
// of text and image blocks.
type Content struct {
	Text   string
	Blocks []Block // non-nil: the content is a block list
}

// Text returns string content.
func Text(s string) Content { return Content{Text: s} }

// BlocksOf returns block-list content.
func BlocksOf(blocks ...Block) Content {
	if blocks == nil {
		blocks = []Block{}
	}
	return Content{Blocks: blocks}
}

func (c Content) MarshalJSON() ([]byte, error) {
	if c.Blocks != nil {
		return encode(c.Blocks), nil
	}
	return encode(c.Text), nil
}

func (c *Content) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] == '"' {
		*c = Content{}
		return json.Unmarshal(b, &c.Text)
	}
	var blocks []Block
	if err := json.Unmarshal(b, &blocks); err != nil {
		return err
	}
	if blocks == nil {
		blocks = []Block{}
	}
	*c = Content{Blocks: blocks}
	return nil
}

// String returns the text of the content: the string itself, or its text
// blocks joined by newlines (Pi's contentText).
func (c Content) String() string {
	if c.Blocks == nil {
		return c.Text
	}
	s := ""
	n := 0
	for _, b := range c.Blocks {
		if b.Type != "text" {
			continue
		}
		if n > 0 {
			s += "\n"
		}
		s += b.Text
		n++
	}
	return s
}

// Block is one content block: text, thinking, toolCall or image.
type Block struct {
	Type              string          `json:"type"`
	Text              string          `json:"text,omitempty"`
	TextSignature     string          `json:"textSignature,omitempty"`
	Thinking          string          `json:"thinking,omitempty"`
	ThinkingSignature string          `json:"thinkingSignature,omitempty"`
	Redacted          bool            `json:"redacted,omitempty"`
	ID                string          `json:"id,omitempty"`
	Name              string          `json:"name,omitempty"`
	Arguments         json.RawMessage `json:"arguments,omitempty"`
	Data              string          `json:"data,omitempty"`
	MimeType          string          `json:"mimeType,omitempty"`
}

// TextBlock returns a text block.
func TextBlock(text string) Block { return Block{Type: "text", Text: text} }

// ToolCallBlock returns a tool call block; args is the JSON object of
// arguments (nil means {}).
func ToolCallBlock(id, name string, args json.RawMessage) Block {
	if args == nil {
		args = json.RawMessage("{}")
	}
	return Block{Type: "toolCall", ID: id, Name: name, Arguments: args}
}

// MarshalJSON writes the members Pi writes for the block's type.
func (b Block) MarshalJSON() ([]byte, error) {
	o := newObject().add("type", b.Type)
	switch b.Type {
	case "text":
		o.add("text", b.Text)
		if b.TextSignature != "" {
			o.add("textSignature", b.TextSignature)
		}
	case "thinking":
		o.add("thinking", b.Thinking)
		if b.ThinkingSignature != "" {
			o.add("thinkingSignature", b.ThinkingSignature)
		}
		if b.Redacted {
			o.add("redacted", true)
		}
	case "toolCall":
		args := b.Arguments
		if args == nil {
			args = json.RawMessage("{}")
		}
		o.add("id", b.ID).add("name", b.Name).add("arguments", args)
	case "image":
		o.add("data", b.Data).add("mimeType", b.MimeType)
	default:
		return nil, fmt.Errorf("session: unknown block type %q", b.Type)
	}
	return o.bytes(), nil
}

// Cost is the money side of a Usage.
type Cost struct {
	Input      float64 `json:"input"`
	Output     float64 `json:"output"`
	CacheRead  float64 `json:"cacheRead"`
	CacheWrite float64 `json:"cacheWrite"`
	Total      float64 `json:"total"`
}

// Usage is Pi's token usage record; every assistant message has one.
type Usage struct {
	Input        int64 `json:"input"`
	Output       int64 `json:"output"`
	CacheRead    int64 `json:"cacheRead"`
	CacheWrite   int64 `json:"cacheWrite"`
	CacheWrite1h int64 `json:"cacheWrite1h,omitempty"`
	Reasoning    int64 `json:"reasoning,omitempty"`
	TotalTokens  int64 `json:"totalTokens"`
	Cost         Cost  `json:"cost"`
}

// ContextTokens is Pi's calculateContextTokens: totalTokens when set,
// otherwise the sum of the components.
func (u Usage) ContextTokens() int64 {
	if u.TotalTokens != 0 {
		return u.TotalTokens
	}
	return u.Input + u.Output + u.CacheRead + u.CacheWrite
}

// Tool is a tool declaration carried by a system message.
type Tool struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
}

// SystemMessage declares or patches the prompt and the tool loadout.
type SystemMessage struct {
	Content Content `json:"content"`
	// Sections patches named prompt sections; a nil value removes one.
	Sections     map[string]*string `json:"sections,omitempty"`
	ToolsAdded   []Tool             `json:"toolsAdded,omitempty"`
	ToolsRemoved []ToolRef          `json:"toolsRemoved,omitempty"`
	Timestamp    int64              `json:"timestamp"`
}

// ToolRef names a removed tool.
type ToolRef struct {
	Name string `json:"name"`
}

// UserMessage is a prompt.
type UserMessage struct {
	Content   Content `json:"content"`
	Timestamp int64   `json:"timestamp"`
}

// AssistantMessage is a model response.
type AssistantMessage struct {
	Content       []Block `json:"content"`
	API           string  `json:"api"`
	Provider      string  `json:"provider"`
	Model         string  `json:"model"`
	ThinkingLevel string  `json:"thinkingLevel,omitempty"`
	Usage         Usage   `json:"usage"`
	// StopReason is one of stop, length, toolUse, error, aborted, deferred.
	StopReason   string `json:"stopReason"`
	ErrorMessage string `json:"errorMessage,omitempty"`
	Timestamp    int64  `json:"timestamp"`
}

// ToolCalls returns the response's tool call blocks.
func (m AssistantMessage) ToolCalls() []Block {
	var out []Block
	for _, b := range m.Content {
		if b.Type == "toolCall" {
			out = append(out, b)
		}
	}
	return out
}

// ToolResultMessage is the result of one tool call.
type ToolResultMessage struct {
	ToolCallID string          `json:"toolCallId"`
	ToolName   string          `json:"toolName"`
	Content    []Block         `json:"content"`
	Details    json.RawMessage `json:"details,omitempty"`
	Usage      *Usage          `json:"usage,omitempty"`
	IsError    bool            `json:"isError"`
	Timestamp  int64           `json:"timestamp"`
}

// CustomMessage is an extension message stored inside a "message" entry.
// Pi 1.6 itself persists extension messages as custom_message entries;
// this form appears in sessions migrated from version 2 (role
// "hookMessage" renamed "custom").
type CustomMessage struct {
	CustomType string          `json:"customType"`
	Content    Content         `json:"content"`
	Display    bool            `json:"display"`
	Details    json.RawMessage `json:"details,omitempty"`
	Timestamp  int64           `json:"timestamp"`
}

// RawMessage is any message given as JSON; it must have a string role.
type RawMessage json.RawMessage

func (SystemMessage) MessageRole() string     { return "system" }
func (UserMessage) MessageRole() string       { return "user" }
func (AssistantMessage) MessageRole() string  { return "assistant" }
func (ToolResultMessage) MessageRole() string { return "toolResult" }
func (CustomMessage) MessageRole() string     { return "custom" }

// MessageRole returns the role member, or "" when there is none.
func (r RawMessage) MessageRole() string {
	o, err := parseObject(r)
	if err != nil {
		return ""
	}
	return decodeString(o.get("role"))
}

// messageJSON encodes a message with "role" as its first member.
func messageJSON(m Message) (json.RawMessage, error) {
	if r, ok := m.(RawMessage); ok {
		o, err := parseObject(r)
		if err != nil {
			return nil, fmt.Errorf("session: raw message: %w", err)
		}
		if decodeString(o.get("role")) == "" {
			return nil, fmt.Errorf("session: raw message has no role")
		}
		return encode(json.RawMessage(r)), nil
	}
	body, err := parseObject(encode(m))
	if err != nil {
		return nil, err
	}
	o := newObject().add("role", m.MessageRole())
	for _, k := range body.keys {
		o.set(k, body.get(k))
	}
	return o.bytes(), nil
}

// DecodeAssistant decodes an assistant message.
func DecodeAssistant(raw json.RawMessage) (AssistantMessage, error) {
	var m AssistantMessage
	err := json.Unmarshal(raw, &m)
	return m, err
}
