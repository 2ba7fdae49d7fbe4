package rules

import (
	"math"
	"os"
	"reflect"
	"strings"
	"testing"
)

// aheadMistakes has groups with mistakes of every kind decodeBlocks
// sees: a duplicate group, a rule declared twice across groups, a rule
// with a bad attribute, a group without its label.
const aheadMistakes = `
policy "p" {
  description = "groups with mistakes"
}
slot "phase" {
  values = ["idle", "armed"]
}
group "a" {
  rule "one" {
    on   = "request"
    when = "event.tokens > 0"
    to   = { phase = "armed" }
  }
}
group "b" {
  rule "two" {
    on = 7
  }
  rule "one" {
    on = "request"
  }
}
group "a" {
  rule "three" {
    on = "request"
  }
}
group {
  rule "four" {
    on = "request"
  }
}
group "c" {
  rule "five" {
    on      = "turn_end"
    bogus   = 1
  }
  rule "six" {
    on = "turn_end"
    to = { phase = "idle" }
  }
}
`

// Group blocks decoded ahead on a second goroutine make the policy, and
// the diagnostics, that decoding them in turn makes.
func TestGroupsDecodedAheadAreDecodedInTurn(t *testing.T) {
	defer func(was int) { groupsAheadMin = was }(groupsAheadMin)
	sources := []Source{{Name: "mistakes.hcl", Bytes: []byte(aheadMistakes)}}
	for _, name := range []string{"wipe_memory", "new_context", "autocompacter"} {
		b, err := os.ReadFile("../policies/" + name + ".hcl")
		if err != nil {
			t.Fatal(err)
		}
		sources = append(sources, Source{Name: name + ".hcl", Bytes: b})
	}
	for _, src := range sources {
		file, diags := ParseHCL(src.Bytes, src.Name)
		if diags.HasErrors() {
			t.Fatal(diags.Error())
		}
		content, _ := bodyContent(file.Body, policySchema)
		groupsAheadMin = 2
		if a := decodeGroupsAhead(content.Blocks); a == nil || len(a.blocks) == 0 {
			t.Errorf("%s: no group is decoded ahead", src.Name)
		} else {
			<-a.done
		}
		groupsAheadMin = 2
		ahead, aheadDiags := Load(src, WithoutProperties())
		groupsAheadMin = math.MaxInt
		inTurn, inTurnDiags := Load(src, WithoutProperties())
		if a, b := aheadDiags.Error(), inTurnDiags.Error(); a != b {
			t.Fatalf("%s: decoded ahead:\n%s\nin turn:\n%s", src.Name, a, b)
		}
		if src.Name == "mistakes.hcl" {
			for _, want := range []string{"Duplicate rule", "Duplicate group", "Missing name for group", "Unsupported argument", "Expected a string"} {
				if !strings.Contains(aheadDiags.Error(), want) {
					t.Errorf("mistakes.hcl: no %q among\n%s", want, aheadDiags.Error())
				}
			}
		}
		if (ahead == nil) != (inTurn == nil) {
			t.Fatalf("%s: loaded %v ahead, %v in turn", src.Name, ahead != nil, inTurn != nil)
		}
		if ahead != nil && (!reflect.DeepEqual(ahead.Groups, inTurn.Groups) || !reflect.DeepEqual(ahead.Rules, inTurn.Rules)) {
			t.Fatalf("%s: the groups decoded ahead differ", src.Name)
		}
	}
}
