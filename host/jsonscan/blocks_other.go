//go:build !amd64 || purego

package jsonscan

// blockScan is false where there is no block scan: the scan reads eight
// bytes at a time.
func blockScan() bool { return false }

// scanBlocks reads nothing: the words that follow read the string.
func scanBlocks(p *byte, n int) (i int, units int64, carry uint64, flags uint64) {
	return 0, 0, 0, uint64(more)
}
