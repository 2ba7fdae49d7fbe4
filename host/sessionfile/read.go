package sessionfile

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/resetpolicy/resetpolicy/host/fileio"
	"github.com/resetpolicy/resetpolicy/host/jsonscan"
	"github.com/resetpolicy/resetpolicy/host/session"
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
	// KeepArgs names the tools whose calls (with their arguments) are
	// kept; nil keeps every call. A replay keeps those of the tools its
	// policy declares: the rest are only counted, which keeps a session
	// of many tool calls small.
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

// MaxProblems bounds the problems kept of one file.
const MaxProblems = 1000

func (f *File) problem(line int, msg string) {
	if len(f.Problems) >= MaxProblems {
		f.MoreProblems++
		return
	}
	f.Problems = append(f.Problems, Problem{line, msg})
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
	// The entries, in file order, header excluded, ids assigned for
	// version 1: Len and At. They are held in fixed chunks, so that a
	// growing session never copies (nor, for a moment, doubles) them.
	chunks [][]Entry
	n      int
	// Skipped counts entries of types Pi does not write, by type.
	Skipped map[string]int
	// Problems are lines not taken and values not taken (absurd token
	// counts), in file order; at most MaxProblems, the rest counted in
	// MoreProblems.
	Problems     []Problem
	MoreProblems int
	// Joined counts lines that held more than one JSON value, which Pi's
	// JSON.parse, and so the reader, drops.
	Joined int
	// Lines is the number of lines read.
	Lines int
	// Truncated is set when a bound stopped the read early.
	Truncated bool

	// byID is the entry indices sorted by id, for the lookups a branch
	// walk makes when a parent is not the entry before (4 bytes an
	// entry, where a map costs ten times that).
	byID []int32
}

// Reader reads session files, reusing its buffers and JSON parser from
// one file to the next. It is not safe for concurrent use; give each
// goroutine its own.
type Reader struct {
	opts Options
	dec  decodeState
	doc  jsonscan.Doc
	buf  []byte
	// fixed holds a line of invalid UTF-8 as Node decodes it.
	fixed []byte
	br    *bufio.Reader
	// entries and byID are reused from file to file, so that reading a
	// corpus allocates for the largest session, not for every one.
	chunks [][]Entry
	byID   []int32
}

// chunkSize is the entries of one chunk.
const chunkSize = 4096

// Len is the number of entries.
func (f *File) Len() int { return f.n }

// At returns entry i (0 ≤ i < Len).
func (f *File) At(i int) *Entry { return &f.chunks[i/chunkSize][i%chunkSize] }

// next extends the entries by one, reusing the chunks of an earlier file.
func (f *File) next() *Entry {
	c := f.n / chunkSize
	if c == len(f.chunks) {
		f.chunks = append(f.chunks, make([]Entry, chunkSize))
	}
	f.n++
	return &f.chunks[c][(f.n-1)%chunkSize]
}

// NewReader returns a reader with the given options.
func NewReader(opts Options) *Reader {
	opts.norm()
	rd := &Reader{opts: opts, br: bufio.NewReaderSize(nil, 256<<10)}
	rd.doc.Strict = true
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
	file := &File{Name: name, Version: 1, chunks: rd.chunks, byID: rd.byID[:0]}
	defer func() { rd.chunks, rd.byID = file.chunks, file.byID[:0] }()
	rd.dec.file, rd.dec.lastID = file, ""
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
			file.problem(file.Lines, fmt.Sprintf("the file is over %d bytes; the rest is not read", rd.opts.MaxFile))
			file.Truncated = true
			break
		}
		if tooLong > 0 {
			file.problem(file.Lines, fmt.Sprintf("line of %d bytes is over the %d-byte bound; skipped", len(line)+tooLong, rd.opts.MaxLine))
		} else if v, ok := rd.parseLine(file, line); ok {
			if v.Kind() != jsonscan.Object && !headerSeen {
				// Pi's first entry, whatever JSON it is, must be the header.
				return nil, fmt.Errorf("%s: %w", name, ErrNotSession)
			} else if v.Kind() != jsonscan.Object {
				file.problem(file.Lines, "not a JSON object")
			} else if !headerSeen {
				if string(v.Get("type").Str()) != session.TypeSession || v.Get("id").Kind() != jsonscan.String {
					return nil, fmt.Errorf("%s: %w", name, ErrNotSession)
				}
				headerSeen = true
				if ver := v.Get("version").Int(); ver > 0 {
					file.Version = ver
				}
				file.SessionID = str(v, "id")
				file.CWD = str(v, "cwd")
				file.ParentSession = str(v, "parentSession")
			} else if string(v.At(keyType).Str()) == session.TypeSession {
				// Pi keeps a second header in its entry list; it is
				// not part of the tree.
				file.problem(file.Lines, "a second session header; ignored")
			} else if file.n >= rd.opts.MaxEntries {
				file.problem(file.Lines, fmt.Sprintf("more than %d entries; the rest is not read", rd.opts.MaxEntries))
				file.Truncated = true
				return rd.finish(file, keptIndex)
			} else {
				e := file.next()
				*e = Entry{Line: int32(file.Lines)}
				rd.dec.line = file.Lines
				e.decode(v, &rd.dec)
				if !Known(e.Type) {
					if file.Skipped == nil {
						file.Skipped = map[string]int{}
					}
					file.Skipped[e.Type]++
				}
				if file.Version < 2 && e.Type == session.TypeCompaction {
					if k := v.Get("firstKeptEntryIndex"); k.Kind() == jsonscan.Number {
						if keptIndex == nil {
							keptIndex = map[int]int64{}
						}
						keptIndex[file.n-1] = int64(k.Int())
					}
				}
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		// Pi writes the header first: a file whose first lines hold none
		// is not a session, and reading it to its end would only cost.
		if !headerSeen && file.Lines >= MaxLinesBeforeHeader {
			return nil, fmt.Errorf("%s: %w (none in its first %d lines)", name, ErrNotSession, MaxLinesBeforeHeader)
		}
	}
	if !headerSeen {
		return nil, fmt.Errorf("%s: %w", name, ErrNotSession)
	}
	return rd.finish(file, keptIndex)
}

// MaxLinesBeforeHeader bounds the lines read while looking for the session
// header (lines that are not JSON objects may precede it, as in a file a
// crashed writer left).
const MaxLinesBeforeHeader = 1000

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
		for i := 0; i < f.n; i++ {
			e := f.At(i)
			e.ID = "v1-" + strconv.Itoa(i+1)
			e.ParentID = prev
			prev = e.ID
		}
		for i, k := range keptIndex {
			// entries[k] counts the header as index 0.
			if k >= 1 && k <= int64(f.n) {
				f.At(i).x().FirstKeptEntryID = f.At(int(k - 1)).ID
			}
		}
	}
	f.byID = f.byID[:0]
	for i := 0; i < f.n; i++ {
		f.byID = append(f.byID, int32(i))
	}
	// Stable: of entries sharing an id, the last in the file is found,
	// as Pi's index (a Map filled in file order) finds it.
	slices.SortStableFunc(f.byID, func(a, b int32) int { return strings.Compare(f.At(int(a)).ID, f.At(int(b)).ID) })
	for k := 0; k+1 < len(f.byID); k++ {
		if f.At(int(f.byID[k])).ID == f.At(int(f.byID[k+1])).ID {
			f.At(int(f.byID[k])).flags |= flagShadowed
		}
	}
	return f, nil
}

// index returns the index of the last entry with this id.
func (f *File) index(id string) (int, bool) {
	ix := f.byID
	// The first position whose id is greater than id, less one.
	i, _ := slices.BinarySearchFunc(ix, id, func(k int32, id string) int {
		if f.At(int(k)).ID <= id {
			return -1
		}
		return 1
	})
	if i == 0 || f.At(int(ix[i-1])).ID != id {
		return 0, false
	}
	return int(ix[i-1]), true
}

// ReadFile reads one session file with default options.
func ReadFile(path string) (*File, error) { return NewReader(Options{}).ReadFile(path) }
