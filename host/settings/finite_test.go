package settings

import (
	"strings"
	"testing"
)

// YAML's .nan and .inf are refused when the config file is read, naming the
// file and the param.
func TestConfigParamsAreFinite(t *testing.T) {
	for _, v := range []string{".nan", ".inf", "-.inf", "[1, .nan]"} {
		userDir, projectDir := setup(t, fixture{user: "params:\n  warning_runway: " + v + "\n"})
		_, err := Load(Options{ProjectDir: projectDir, Environ: []string{}, UserConfigDir: userDir})
		if err == nil || !strings.Contains(err.Error(), "params.warning_runway") || !strings.Contains(err.Error(), "not a finite number") {
			t.Errorf("%s: %v", v, err)
		}
	}
}
