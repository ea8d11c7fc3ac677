package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// `make demo` on a fresh machine is never silent while bin/gfxcuda builds
// (2-3 minutes): it says what it builds and how long it takes first, and
// the build runs under bin/testprogress, which prints a line whenever it
// has been quiet for 20 s (internal/testprogress tests that); testprogress
// itself is built first, saying so. Checked on make's dry run (-n) of the
// repository's Makefile.
func TestMakeBuildSaysWhatItDoes(t *testing.T) {
	root := filepath.Join("..", "..", "..")
	if _, err := os.Stat(filepath.Join(root, "Makefile")); err != nil {
		t.Skip("no Makefile here (a test binary bundled by make gpu-bundle)")
	}
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("no make here")
	}
	// -W: as if testprogress's source had changed, so that its build
	// shows too.
	cmd := exec.Command("make", "-n", "-W", "internal/testprogress/main.go", "demo", "GO=go")
	cmd.Dir = root
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("make -n demo: %v\n%s", err, out)
	}
	lines := strings.Split(string(out), "\n")
	find := func(what string, ok func(string) bool) int {
		t.Helper()
		for i, l := range lines {
			if ok(l) {
				return i
			}
		}
		t.Fatalf("make -n demo: no %s:\n%s", what, out)
		return -1
	}
	build := find("build of bin/gfxcuda", func(l string) bool { return strings.Contains(l, "go build -o bin/gfxcuda ") })
	if !strings.HasPrefix(lines[build], "bin/testprogress -- ") {
		t.Errorf("make demo builds bin/gfxcuda without bin/testprogress's heartbeat: %q", lines[build])
	}
	said := find("line saying bin/gfxcuda is built", func(l string) bool {
		return strings.HasPrefix(l, "echo ") && strings.Contains(l, "building bin/gfxcuda") && strings.Contains(l, "minutes")
	})
	tpBuild := find("build of bin/testprogress", func(l string) bool { return strings.Contains(l, "go build -o bin/testprogress ") })
	tpSaid := find("line saying bin/testprogress is built", func(l string) bool {
		return strings.HasPrefix(l, "echo ") && strings.Contains(l, "building bin/testprogress")
	})
	demo := find("demo run", func(l string) bool { return strings.HasPrefix(l, "bin/gfxcuda demo") })
	if !(tpSaid < tpBuild && tpBuild < said && said < build && build < demo) {
		t.Errorf("make demo's order: testprogress said %d, built %d; gfxcuda said %d, built %d; demo %d:\n%s", tpSaid, tpBuild, said, build, demo, out)
	}
}
