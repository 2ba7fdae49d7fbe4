//go:build amd64 && !purego

package jsonscan

import (
	"os"
	"regexp"
	"testing"
)

// TestBlocksFollowTheProcessor: the block scan is SSE2's where the
// processor has POPCNT and AVX2's where it has AVX2 too, as Linux reports
// its flags (Linux drops avx2 from them where the system does not save
// the YMM registers), so the tests of the block scans do not skip on a
// machine that has them.
func TestBlocksFollowTheProcessor(t *testing.T) {
	info, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		t.Skip("no /proc/cpuinfo to compare with")
	}
	has := func(flag string) bool { return regexp.MustCompile(`(?m)^flags\s*:.*\b` + flag + `\b`).Match(info) }
	want := noBlocks
	if has("popcnt") {
		want = sse2Blocks
		if has("avx2") {
			want = avx2Blocks
		}
	}
	if blockScan() != want || blocksHere() != want {
		t.Fatalf("blockScan is %v, blocksHere %v; /proc/cpuinfo says %v", blockScan(), blocksHere(), want)
	}
}
