// Package fileio opens the files the command line names, for reading and
// for writing, so that no path can make the tool wait or read without end.
//
// Every open is non-blocking (O_NONBLOCK): opening a FIFO never waits for
// the other end. The open file is then checked with fstat and anything but
// a regular file — a FIFO, a device, a socket, a directory — is refused
// with an error naming what it is. Reads are bounded: past its limit an
// input is an error, not an endless read. Standard input ("-", or a path
// such as /dev/stdin that names it) is read within the same limit.
//
// It owns no policy about which limit fits which file: callers pass theirs.
package fileio
