//go:build amd64 && !purego

package jsonscan

import (
	"os"
	"regexp"
	"testing"
)

// TestBlocksFollowTheProcessor: the block scan is on where the processor
// has POPCNT, as Linux reports its flags, so the tests of the block scan
// do not skip on a machine that has it.
func TestBlocksFollowTheProcessor(t *testing.T) {
	info, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		t.Skip("no /proc/cpuinfo to compare with")
	}
	has := regexp.MustCompile(`(?m)^flags\s*:.*\bpopcnt\b`).Match(info)
	if blockScan() != has || haveBlocks() != has {
		t.Fatalf("blockScan is %v, haveBlocks %v; /proc/cpuinfo says POPCNT %v", blockScan(), haveBlocks(), has)
	}
}
