package sessionfile

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/resetpolicy/resetpolicy/host/fileio"
	"github.com/resetpolicy/resetpolicy/host/session"
	"github.com/valyala/fastjson"
)

// Default bounds of one file (see the package documentation).
const (
	DefaultMaxLine    = 8 << 20
	DefaultMaxEntries = 2_000_000
	DefaultMaxFile    = 1 << 30
)

// Options bound and shape a read. The zero value uses the defaults.
type Options struct {
	MaxLine    int   // bytes per line
	MaxEntries int   // entries per file
	MaxFile    int64 // bytes per file
	// KeepArgs names the tools whose call arguments are kept (a replay
	// keeps those of the tools its policy declares).
	KeepArgs map[string]bool
}

func (o *Options) norm() {
	if o.MaxLine <= 0 {
		o.MaxLine = DefaultMaxLine
	}
	if o.MaxEntries <= 0 {
		o.MaxEntries = DefaultMaxEntries
	}
	if o.MaxFile <= 0 {
		o.MaxFile = DefaultMaxFile
	}
}

// Problem is a line the reader could not take, with why.
type Problem struct {
	Line int
	Msg  string
}

func (p Problem) String() string { return "line " + strconv.Itoa(p.Line) + ": " + p.Msg }

// File is a session file as Pi would load it, migrated to version 3.
type File struct {
	Name string // the path or name it was read as
	// Version is the header's version as written (1 when absent).
	Version       int
	SessionID     string
	CWD           string
	ParentSession string
	// Entries are in file order, header excluded, ids assigned for
	// version 1.
	Entries []Entry
	// Skipped counts entries of types Pi does not write, by type.
	Skipped map[string]int
	// Problems are lines not taken, in file order.
	Problems []Problem
	// Joined counts lines that held more than one JSON object.
	Joined int
	// Lines is the number of lines read.
	Lines int
	// Truncated is set when a bound stopped the read early.
	Truncated bool

	byID map[string]int
}

// Reader reads session files, reusing its buffers and JSON parser from
// one file to the next. It is not safe for concurrent use; give each
// goroutine its own.
type Reader struct {
	opts Options
	dec  decodeState
	p    fastjson.Parser
	sc   fastjson.Scanner
	buf  []byte
	br   *bufio.Reader
	// entries and byID are reused from file to file, so that reading a
	// corpus allocates for the largest session, not for every one.
	entries []Entry
	byID    map[string]int
}

// next extends the entries by one, reusing the memory (and the tool call
// slice) of an entry of an earlier file.
func (f *File) next() *Entry {
	if len(f.Entries) < cap(f.Entries) {
		f.Entries = f.Entries[:len(f.Entries)+1]
	} else {
		f.Entries = append(f.Entries, Entry{})
	}
	return &f.Entries[len(f.Entries)-1]
}

// NewReader returns a reader with the given options.
func NewReader(opts Options) *Reader {
	opts.norm()
	rd := &Reader{opts: opts, br: bufio.NewReaderSize(nil, 256<<10)}
	rd.dec.Options = &rd.opts
	return rd
}

// ReadFile reads one session file.
func (rd *Reader) ReadFile(path string) (*File, error) {
	// A regular file or standard input: a FIFO or a device is refused.
	// Read cuts the file at MaxFile itself and reports the rest as not
	// read, so the open passes one byte more; an endless pipe ends there.
	f, err := fileio.OpenInput(path, math.MaxInt64-1)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return rd.Read(f, path)
}

// ErrNotSession is returned for a file whose first entry is not a session
// header with an id: Pi does not load such a file as a session.
var ErrNotSession = errors.New("not a Pi session: the first entry is not a session header with an id")

// Read reads a session from r. An I/O error or a file that is not a
// session is an error; everything else (bad lines, unknown entries,
// bounds reached) is reported in the File.
//
// The File's entries reuse the memory of the previous Read of the same
// Reader: a File is valid until the Reader reads the next one.
func (rd *Reader) Read(r io.Reader, name string) (*File, error) {
	rd.br.Reset(io.LimitReader(r, rd.opts.MaxFile+1))
	return rd.read(name)
}

func (rd *Reader) read(name string) (*File, error) {
	file := &File{Name: name, Version: 1, Entries: rd.entries[:0], byID: rd.byID}
	defer func() { rd.entries, rd.byID = file.Entries[:0], file.byID }()
	var total int64
	headerSeen := false
	// Pi's migration resolves firstKeptEntryIndex against the parsed
	// entries of the file, the header at index 0; kept per entry here.
	var keptIndex map[int]int64
	for {
		line, tooLong, err := rd.readLine()
		if len(line) == 0 && tooLong == 0 && err == io.EOF {
			break
		}
		file.Lines++
		total += int64(len(line) + tooLong + 1)
		if total > rd.opts.MaxFile {
			file.Problems = append(file.Problems, Problem{file.Lines, fmt.Sprintf("the file is over %d bytes; the rest is not read", rd.opts.MaxFile)})
			file.Truncated = true
			break
		}
		if tooLong > 0 {
			file.Problems = append(file.Problems, Problem{file.Lines, fmt.Sprintf("line of %d bytes is over the %d-byte bound; skipped", len(line)+tooLong, rd.opts.MaxLine)})
		} else if t := bytes.TrimSpace(line); len(t) > 0 {
			n, first := 0, len(file.Entries)
			rd.sc.InitBytes(t)
			for rd.sc.Next() {
				n++
				v := rd.sc.Value()
				if v.Type() != fastjson.TypeObject {
					file.Problems = append(file.Problems, Problem{file.Lines, "not a JSON object"})
					continue
				}
				if !headerSeen {
					if string(v.GetStringBytes("type")) != session.TypeSession || v.Get("id") == nil || v.Get("id").Type() != fastjson.TypeString {
						return nil, fmt.Errorf("%s: %w", name, ErrNotSession)
					}
					headerSeen = true
					if ver := v.GetInt("version"); ver > 0 {
						file.Version = ver
					}
					file.SessionID = str(v, "id")
					file.CWD = str(v, "cwd")
					file.ParentSession = str(v, "parentSession")
					continue
				}
				if string(v.GetStringBytes("type")) == session.TypeSession {
					// Pi keeps a second header in its entry list; it is
					// not part of the tree.
					file.Problems = append(file.Problems, Problem{file.Lines, "a second session header; ignored"})
					continue
				}
				if len(file.Entries) >= rd.opts.MaxEntries {
					file.Problems = append(file.Problems, Problem{file.Lines, fmt.Sprintf("more than %d entries; the rest is not read", rd.opts.MaxEntries)})
					file.Truncated = true
					return rd.finish(file, keptIndex)
				}
				e := file.next()
				*e = Entry{Line: file.Lines, ToolCalls: e.ToolCalls[:0]}
				e.decode(v, &rd.dec)
				e.Bytes = len(t)
				if !Known(e.Type) {
					if file.Skipped == nil {
						file.Skipped = map[string]int{}
					}
					file.Skipped[e.Type]++
				}
				if file.Version < 2 && e.Type == session.TypeCompaction {
					if k := v.Get("firstKeptEntryIndex"); k != nil && k.Type() == fastjson.TypeNumber {
						if keptIndex == nil {
							keptIndex = map[int]int64{}
						}
						keptIndex[len(file.Entries)-1] = k.GetInt64()
					}
				}
			}
			if err := rd.sc.Error(); err != nil {
				file.Problems = append(file.Problems, Problem{file.Lines, "not JSON: " + err.Error()})
			}
			if n > 1 {
				file.Joined++
				// The token estimate of a joined line's entries: an even
				// split of its bytes is enough.
				for i := first; i < len(file.Entries); i++ {
					file.Entries[i].Bytes = len(t) / n
				}
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
	}
	if !headerSeen {
		return nil, fmt.Errorf("%s: %w", name, ErrNotSession)
	}
	return rd.finish(file, keptIndex)
}

// readLine returns the next line without its newline. A line over the
// bound is consumed and only its length reported (tooLong > 0).
func (rd *Reader) readLine() (line []byte, tooLong int, err error) {
	rd.buf = rd.buf[:0]
	// Most lines fit the reader's buffer: hand them out in place, with no
	// copy (valid until the next read).
	chunk, err := rd.br.ReadSlice('\n')
	if err != bufio.ErrBufferFull && len(chunk) <= rd.opts.MaxLine+1 {
		if n := len(chunk); n > 0 && chunk[n-1] == '\n' {
			chunk = chunk[:n-1]
		}
		return chunk, 0, err
	}
	for first := true; ; first = false {
		if !first {
			chunk, err = rd.br.ReadSlice('\n')
		}
		over := len(rd.buf)+len(chunk) > rd.opts.MaxLine+1
		if over || tooLong > 0 {
			tooLong += len(chunk)
		} else {
			rd.buf = append(rd.buf, chunk...)
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if tooLong > 0 {
			tooLong += len(rd.buf)
			rd.buf = rd.buf[:0]
		}
		if n := len(rd.buf); n > 0 && rd.buf[n-1] == '\n' {
			rd.buf = rd.buf[:n-1]
		}
		return rd.buf, tooLong, err
	}
}

// finish applies Pi's migrations and indexes the ids.
func (rd *Reader) finish(f *File, keptIndex map[int]int64) (*File, error) {
	if f.Version < 2 {
		// migrateV1ToV2: ids in file order, each entry the child of the
		// one before. Ids here are "v1-<n>" rather than random: stable
		// across reads, and no 8-hex id of a later entry can collide.
		prev := ""
		for i := range f.Entries {
			e := &f.Entries[i]
			e.ID = "v1-" + strconv.Itoa(i+1)
			e.ParentID = prev
			prev = e.ID
		}
		for i, k := range keptIndex {
			// entries[k] counts the header as index 0.
			if k >= 1 && k <= int64(len(f.Entries)) {
				f.Entries[i].FirstKeptEntryID = f.Entries[k-1].ID
			}
		}
	}
	if f.byID == nil {
		f.byID = make(map[string]int, len(f.Entries))
	}
	clear(f.byID)
	for i, e := range f.Entries {
		f.byID[e.ID] = i
	}
	return f, nil
}

// ReadFile reads one session file with default options.
func ReadFile(path string) (*File, error) { return NewReader(Options{}).ReadFile(path) }
