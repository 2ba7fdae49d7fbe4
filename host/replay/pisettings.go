package replay

import (
	"encoding/json"
	"fmt"
)

// MaxPiSettings bounds a Pi settings file.
const MaxPiSettings = 1 << 20

// ApplyPiSettings applies the compaction block of a Pi settings.json
// (compaction.enabled, reserveTokens, keepRecentTokens) over s; settings
// it does not name keep their value. Pi layers the agent directory's
// settings under the project's: apply them in that order.
func ApplyPiSettings(s Settings, data []byte) (Settings, error) {
	if len(data) > MaxPiSettings {
		return s, fmt.Errorf("over %d bytes", MaxPiSettings)
	}
	var f struct {
		Compaction *struct {
			Enabled          *bool  `json:"enabled"`
			ReserveTokens    *int64 `json:"reserveTokens"`
			KeepRecentTokens *int64 `json:"keepRecentTokens"`
		} `json:"compaction"`
	}
	if err := json.Unmarshal(data, &f); err != nil {
		return s, err
	}
	c := f.Compaction
	if c == nil {
		return s, nil
	}
	if c.Enabled != nil {
		s.AutoCompaction = *c.Enabled
	}
	if c.ReserveTokens != nil {
		if *c.ReserveTokens < 0 {
			return s, fmt.Errorf("compaction.reserveTokens is %d, not a count of tokens", *c.ReserveTokens)
		}
		s.Reserve = *c.ReserveTokens
	}
	if c.KeepRecentTokens != nil {
		if *c.KeepRecentTokens < 0 {
			return s, fmt.Errorf("compaction.keepRecentTokens is %d, not a count of tokens", *c.KeepRecentTokens)
		}
		s.KeepRecent = *c.KeepRecentTokens
	}
	return s, nil
}
