package gfxcuda_test

import (
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/gfxcuda/gfxcuda"
)

// Go's Version, the C library's GFXCUDA_VERSION_STRING (gfxcuda_version())
// and the Python package's (python/VERSION, which the build backend in
// python/build_backend gives the wheel and the sdist, and
// python/gfxcuda/_version.py, gfxcuda.__version__) are one string.
func TestVersionAgrees(t *testing.T) {
	if _, err := os.Stat("go.mod"); err != nil {
		t.Skip("not run in the source tree (a test binary bundled by make gpu-bundle): the files to compare are not here")
	}
	if !regexp.MustCompile(`^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$`).MatchString(gfxcuda.Version) {
		t.Errorf("Version %q is not a semantic version", gfxcuda.Version)
	}
	read := func(path string) string {
		t.Helper()
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (the version must be kept there too)", err)
		}
		return string(b)
	}
	find := func(path, pattern string) string {
		t.Helper()
		m := regexp.MustCompile(pattern).FindStringSubmatch(read(path))
		if m == nil {
			t.Fatalf("%s: no version matching %s", path, pattern)
		}
		return m[1]
	}
	others := [][2]string{
		{"cmd/libgfxcuda/capi.h (GFXCUDA_VERSION_STRING)", find("cmd/libgfxcuda/capi.h", `(?m)^#define GFXCUDA_VERSION_STRING "([^"]*)"`)},
		{"python/VERSION", strings.TrimSpace(read("python/VERSION"))},
	}
	if _, err := os.Stat("python/gfxcuda/_version.py"); err == nil {
		others = append(others, [2]string{"python/gfxcuda/_version.py (__version__)",
			find("python/gfxcuda/_version.py", `(?m)^__version__\s*=\s*["']([^"']*)["']`)})
	}
	for _, o := range others {
		if o[1] != gfxcuda.Version {
			t.Errorf("%s says %q, Go's gfxcuda.Version %q: change them together", o[0], o[1], gfxcuda.Version)
		}
	}
}

// The version, as `gfxcuda version` prints it.
func ExampleVersion() {
	fmt.Println("gfxcuda", gfxcuda.Version)
}
