//go:build !amd64 || purego

package jsonscan

// blockScan is noBlocks where there is no block scan: the scan reads
// eight bytes at a time.
func blockScan() blockLevel { return noBlocks }

// scanBlocks reads nothing: the words that follow read the string.
func scanBlocks(p *byte, n int, avx2 bool) (i int, units int64, carry uint64, flags uint64) {
	return 0, 0, 0, uint64(more)
}
