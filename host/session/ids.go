package session

import (
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"sync"
	"time"
)

// IDFunc proposes a new entry id. The session checks it against the ids
// already used and asks again on a collision, as Pi's generateId does.
type IDFunc func() string

// RandomID is Pi's entry id: the first 8 hex characters of a random UUID.
func RandomID() string {
	var b [4]byte
	mustRand(b[:])
	return hex.EncodeToString(b[:])
}

// RandomUUID returns a random (version 4) UUID, Pi's fallback id after
// 100 colliding short ids.
func RandomUUID() string {
	var b [16]byte
	mustRand(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return formatUUID(b)
}

// NewSessionID returns a version 7 UUID, the session id Pi 1.6 creates.
func NewSessionID(now time.Time) string {
	var b [16]byte
	mustRand(b[6:])
	ms := uint64(now.UnixMilli())
	var t [8]byte
	binary.BigEndian.PutUint64(t[:], ms)
	copy(b[0:6], t[2:8])
	b[6] = b[6]&0x0f | 0x70
	b[8] = b[8]&0x3f | 0x80
	return formatUUID(b)
}

func formatUUID(b [16]byte) string {
	h := hex.EncodeToString(b[:])
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32]
}

func mustRand(b []byte) {
	if _, err := rand.Read(b); err != nil {
		panic(fmt.Sprintf("session: crypto/rand: %v", err))
	}
}

// SeqIDs returns a deterministic id source for tests and simulations:
// 8-hex-digit ids counting up from start ("00000001", "00000002", …).
func SeqIDs(start uint32) IDFunc {
	var mu sync.Mutex
	n := start
	return func() string {
		mu.Lock()
		defer mu.Unlock()
		id := fmt.Sprintf("%08x", n)
		n++
		return id
	}
}

// maxIDTries is how many proposals Pi tries before it falls back to a
// full UUID.
const maxIDTries = 100

func (s *Session) newID() string {
	gen := s.opts.NewID
	if gen == nil {
		gen = RandomID
	}
	for i := 0; i < maxIDTries; i++ {
		id := gen()
		if _, used := s.byID[id]; !used && id != "" {
			return id
		}
	}
	fallback := s.opts.FallbackID
	if fallback == nil {
		fallback = RandomUUID
	}
	for i := 0; i < maxIDTries; i++ {
		id := fallback()
		if _, used := s.byID[id]; !used && id != "" {
			return id
		}
	}
	panic("session: the id sources keep proposing used ids")
}
