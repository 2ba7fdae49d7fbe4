package fileio

import (
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"
)

// Stdin is the path that names standard input.
const Stdin = "-"

// NotRegularError refuses a path that is not a regular file.
type NotRegularError struct {
	Path string
	Kind string // "a FIFO", "a device", "a socket", "a directory", …
}

func (e *NotRegularError) Error() string {
	return fmt.Sprintf("%s is %s, not a regular file", e.Path, e.Kind)
}

// TooLargeError is returned once an input has more than Limit bytes.
type TooLargeError struct {
	Path  string
	Limit int64
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("%s has more than %d bytes, the limit", e.Path, e.Limit)
}

// Kind names the type of a file for a message.
func Kind(m os.FileMode) string {
	switch {
	case m.IsRegular():
		return "a regular file"
	case m.IsDir():
		return "a directory"
	case m&os.ModeNamedPipe != 0:
		return "a FIFO"
	case m&os.ModeDevice != 0, m&os.ModeCharDevice != 0:
		return "a device"
	case m&os.ModeSocket != 0:
		return "a socket"
	case m&os.ModeSymlink != 0:
		return "a symbolic link"
	}
	return m.Type().String()
}

// Input is an open input, read within its limit.
type Input struct {
	f     *os.File
	path  string
	limit int64
	left  int64 // bytes that may still be read, one past the limit
	stdin bool
}

// OpenInput opens path for reading at most limit bytes: a regular file
// larger than limit is refused at once, and reading past limit bytes is a
// *TooLargeError. Standard input ("-", or a path naming it, such as
// /dev/stdin or /dev/fd/0) is used as it is, whatever it is; anything else
// must be a regular file (*NotRegularError). A caller whose reader cuts
// the input itself passes math.MaxInt64-1.
func OpenInput(path string, limit int64) (*Input, error) {
	if isStdin(path) {
		return &Input{f: os.Stdin, path: path, limit: limit, left: limit + 1, stdin: true}, nil
	}
	// Refuse what stat already shows to be no regular file without opening
	// it: opening a device can have effects of its own.
	if st, err := os.Stat(path); err == nil && !st.Mode().IsRegular() {
		return nil, &NotRegularError{Path: path, Kind: Kind(st.Mode())}
	}
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	// The path may have changed since the stat: fstat is what counts.
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, &NotRegularError{Path: path, Kind: Kind(st.Mode())}
	}
	if st.Size() > limit {
		f.Close()
		return nil, &TooLargeError{Path: path, Limit: limit}
	}
	return &Input{f: f, path: path, limit: limit, left: limit + 1}, nil
}

// isStdin says whether path names this process's standard input.
func isStdin(path string) bool {
	if path == Stdin {
		return true
	}
	st, err := os.Stat(path)
	if err != nil || st.Mode().IsRegular() {
		// A regular file is read as a file, even when it is standard
		// input too: nothing about it can block.
		return false
	}
	in, err := os.Stdin.Stat()
	return err == nil && os.SameFile(st, in)
}

// Read reads from the input; once more than the limit has been read it
// returns a *TooLargeError.
func (in *Input) Read(p []byte) (int, error) {
	if in.left <= 0 {
		return 0, &TooLargeError{Path: in.path, Limit: in.limit}
	}
	if int64(len(p)) > in.left {
		p = p[:in.left]
	}
	n, err := in.f.Read(p)
	in.left -= int64(n)
	if in.left <= 0 {
		return n - 1, &TooLargeError{Path: in.path, Limit: in.limit}
	}
	return n, err
}

// Name is the path the input was opened by.
func (in *Input) Name() string { return in.path }

// Close closes the file; standard input stays open.
func (in *Input) Close() error {
	if in.stdin {
		return nil
	}
	return in.f.Close()
}

// ReadInput reads all of path within limit bytes (see OpenInput).
func ReadInput(path string, limit int64) ([]byte, error) {
	in, err := OpenInput(path, limit)
	if err != nil {
		return nil, err
	}
	defer in.Close()
	return io.ReadAll(in)
}

// CreateOutput creates path for writing, or truncates it, with perm for a
// new file. An existing path must be a regular file: a FIFO, a device or a
// directory is refused before it is opened, and checked again with fstat
// after the non-blocking open. The file is truncated only once it is known
// to be regular.
func CreateOutput(path string, perm os.FileMode) (*os.File, error) {
	if st, err := os.Stat(path); err == nil && !st.Mode().IsRegular() {
		return nil, &NotRegularError{Path: path, Kind: Kind(st.Mode())}
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|syscall.O_NONBLOCK, perm)
	if err != nil {
		if errors.Is(err, syscall.ENXIO) {
			// A FIFO that appeared since the stat, without a reader.
			return nil, &NotRegularError{Path: path, Kind: "a FIFO"}
		}
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, &NotRegularError{Path: path, Kind: Kind(st.Mode())}
	}
	if err := f.Truncate(0); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// WriteOutput writes data to path (see CreateOutput).
func WriteOutput(path string, data []byte, perm os.FileMode) error {
	f, err := CreateOutput(path, perm)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
