package nodesuite

import (
	"fmt"
	"slices"
	"testing"
)

// Every file runs in exactly one shard: a file dealt twice runs its
// checks twice in one process, a file dropped loses them.
func TestShardsCoverEveryFile(t *testing.T) {
	for _, tt := range []struct {
		files, alone, spread []string
		n, shards            int
	}{
		{files: names(22), alone: []string{"f07.test.ts"}, n: 2, shards: 3},
		{files: names(22), alone: []string{"f07.test.ts"}, spread: []string{"f03.test.ts", "f04.test.ts", "f07.test.ts"}, n: 3, shards: 4},
		{files: names(5), n: 3, shards: 3},
		{files: names(2), n: 4, shards: 2},
		{files: names(1), alone: []string{"f00.test.ts"}, n: 2, shards: 1},
		{files: names(6), alone: []string{"absent.test.ts"}, n: 1, shards: 1},
		{files: names(3), n: 0, shards: 1},
	} {
		plan := Plan(tt.files, tt.alone, tt.spread, tt.n)
		if len(plan) != tt.shards {
			t.Errorf("%d files, alone %v, n %d: %d shards, want %d: %v", len(tt.files), tt.alone, tt.n, len(plan), tt.shards, plan)
		}
		var seen []string
		for _, shard := range plan {
			if len(shard) == 0 {
				t.Errorf("an empty shard: %v", plan)
			}
			for _, f := range shard {
				if slices.Contains(tt.alone, f) && len(shard) != 1 {
					t.Errorf("%s shares its shard: %v", f, shard)
				}
			}
			seen = append(seen, shard...)
		}
		slices.Sort(seen)
		if !slices.Equal(seen, tt.files) {
			t.Errorf("the shards hold %v, want each of %v once", seen, tt.files)
		}
	}
}

// The dealt shards differ in size by at most one file, and the files to
// spread land in different shards.
func TestShardsAreEven(t *testing.T) {
	plan := Plan(names(22), []string{"f07.test.ts"}, []string{"f20.test.ts", "f21.test.ts"}, 2)
	if len(plan) != 3 || len(plan[1]) != 11 || len(plan[2]) != 10 {
		t.Fatalf("shards %v, want one of f07, then 11 and 10 files", plan)
	}
	if !slices.Contains(plan[1], "f20.test.ts") || !slices.Contains(plan[2], "f21.test.ts") {
		t.Errorf("f20 and f21 are not in different shards: %v", plan)
	}
}

func names(n int) []string {
	var s []string
	for i := range n {
		s = append(s, fmt.Sprintf("f%02d.test.ts", i))
	}
	return s
}

// A file the plan names that is not among the test files is reported.
func TestStraysAreNamed(t *testing.T) {
	got := Strays(names(3), []string{"f01.test.ts", "old.test.ts"}, []string{"f02.test.ts", "gone.test.ts"})
	if !slices.Equal(got, []string{"old.test.ts", "gone.test.ts"}) {
		t.Errorf("strays %v, want old.test.ts and gone.test.ts", got)
	}
	if got := Strays(names(3), []string{"f00.test.ts"}, nil); len(got) != 0 {
		t.Errorf("strays %v, want none", got)
	}
}

// 22.19.0 is the oldest Node the hosts' suites run on.
func TestAtLeast(t *testing.T) {
	tests := []struct {
		v    [3]int
		want bool
	}{
		{[3]int{22, 19, 0}, true},
		{[3]int{22, 23, 5}, true},
		{[3]int{23, 0, 0}, true},
		{[3]int{22, 18, 9}, false},
		{[3]int{20, 20, 2}, false},
	}
	for _, tt := range tests {
		if got := AtLeast(tt.v, [3]int{22, 19, 0}); got != tt.want {
			t.Errorf("atLeast(%v) = %v, want %v", tt.v, got, tt.want)
		}
	}
}
