package cli

import (
	"encoding/json"
	"runtime"
	"strings"
	"testing"

	"github.com/gfxcuda/gfxcuda"
)

// `gfxcuda version` and `gfxcuda --version` print the version Go, C and
// Python share (gfxcuda.Version; TestVersionAgrees in the root package
// keeps them equal), and --json prints it for scripts.
func TestVersion(t *testing.T) {
	want := "gfxcuda " + gfxcuda.Version + " (" + runtime.Version() + " " + runtime.GOOS + "/" + runtime.GOARCH + ")\n"
	for _, args := range [][]string{{"version"}, {"--version"}, {"-version"}} {
		rc, stdout, stderr := gfx(args...)
		if rc != 0 || stdout != want || stderr != "" {
			t.Errorf("gfxcuda %s: exit %d, stdout %q (want %q), stderr %q", strings.Join(args, " "), rc, stdout, want, stderr)
		}
	}
	rc, stdout, stderr := gfx("version", "--json")
	var v map[string]string
	if err := json.Unmarshal([]byte(stdout), &v); rc != 0 || err != nil || v["version"] != gfxcuda.Version || v["go"] != runtime.Version() ||
		v["os"] != runtime.GOOS || v["arch"] != runtime.GOARCH {
		t.Errorf("gfxcuda version --json: exit %d, %v\n%s%s", rc, err, stdout, stderr)
	}
	var anyV any
	_ = json.Unmarshal([]byte(stdout), &anyV)
	checkJSONStyle(t, "version --json", "", anyV)
	// Mistakes are refused as every command refuses them.
	checkUsageError(t, "version", []string{"version", "extra"}, `unexpected argument "extra": gfxcuda version takes no arguments`)
	if rc, _, stderr := gfx("--version", "extra"); rc != 2 || !strings.Contains(stderr, `unexpected argument "extra" after --version`) {
		t.Errorf("gfxcuda --version extra: exit %d\n%s", rc, stderr)
	}
	// gfxcuda --help lists the command.
	if _, stdout, _ := gfx("--help"); !strings.Contains(stdout, "\n  version   ") {
		t.Errorf("gfxcuda --help does not list version:\n%s", stdout)
	}
}
