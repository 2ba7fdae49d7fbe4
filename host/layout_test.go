package host

import (
	"os"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/resetpolicy/resetpolicy/rules/contract"
)

// TestLayoutNamesEveryPackage: the table in doc.go names every folder
// below host/, each once, as serving every host or one host of the
// contract.
func TestLayoutNamesEveryPackage(t *testing.T) {
	doc, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	row := regexp.MustCompile(`(?m)^//\t(\w+)\s+(every host|\w+)\s{2,}\S`)
	listed := map[string]string{}
	for _, m := range row.FindAllStringSubmatch(string(doc), -1) {
		if m[1] == "folder" {
			continue
		}
		if _, dup := listed[m[1]]; dup {
			t.Errorf("%s is listed twice", m[1])
		}
		listed[m[1]] = m[2]
	}
	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	var folders []string
	for _, e := range entries {
		if e.IsDir() && !strings.HasPrefix(e.Name(), ".") && e.Name() != "testdata" {
			folders = append(folders, e.Name())
		}
	}
	sort.Strings(folders)
	for _, f := range folders {
		serves, ok := listed[f]
		if !ok {
			t.Errorf("host/%s is not in doc.go's table: say whether it serves every host or one", f)
			continue
		}
		if _, isHost := contract.LookupHost(serves); serves != "every host" && !isHost {
			t.Errorf("host/%s serves %q, which is neither every host nor a host of the contract", f, serves)
		}
		delete(listed, f)
	}
	for f := range listed {
		t.Errorf("doc.go lists %s, which is not a folder of host/", f)
	}
	for _, h := range contract.Hosts {
		if _, err := os.Stat(strings.TrimPrefix(h.Adapter, "host/")); err != nil {
			t.Errorf("host %s's adapter %s: %v", h.Name, h.Adapter, err)
		}
	}
}
