package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

const (
	headerPath = "../../libgfxcuda/gfxcuda.h"
	libDir     = "../../libgfxcuda"
	pythonPath = "../../../python/gfxcuda/_abi.py"
)

// needSources skips a test that checks the tree's files against each
// other when the binary runs without the tree (make gpu-bundle carries test
// binaries to the GPU machine without sources); in a checkout (make test,
// CI) the files are there and the checks run.
func needSources(t *testing.T) {
	t.Helper()
	if _, err := os.Stat(libDir); os.IsNotExist(err) {
		t.Skipf("%s is not here (a test binary carried without its source tree): make test runs this check", libDir)
	}
}

// TestGeneratedFileIsCurrent regenerates _abi.py in memory and compares it
// with the committed one.
func TestGeneratedFileIsCurrent(t *testing.T) {
	needSources(t)
	src, err := os.ReadFile(headerPath)
	if err != nil {
		t.Fatal(err)
	}
	want, err := generate(string(src))
	if err != nil {
		t.Fatalf("gfxcuda.h: %v", err)
	}
	got, err := os.ReadFile(pythonPath)
	if err != nil {
		t.Fatalf("%v: run go generate ./cmd/libgfxcuda", err)
	}
	if !bytes.Equal(got, want) {
		gl, wl := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
		line := 0
		for line < len(gl) && line < len(wl) && gl[line] == wl[line] {
			line++
		}
		t.Fatalf("python/gfxcuda/_abi.py is not what gfxcuda.h generates (first difference at line %d): run go generate ./cmd/libgfxcuda", line+1)
	}
}

// TestHeaderMatchesExports checks that every function cmd/libgfxcuda
// exports under gfxcuda_ (//export in Go, or defined in its C files) has a
// prototype in gfxcuda.h, and every prototype a definition.
func TestHeaderMatchesExports(t *testing.T) {
	needSources(t)
	src, err := os.ReadFile(headerPath)
	if err != nil {
		t.Fatal(err)
	}
	a, err := parse(string(src))
	if err != nil {
		t.Fatalf("gfxcuda.h: %v", err)
	}
	declared := map[string]bool{}
	for _, it := range a.items {
		if it.kind == "func" {
			if declared[it.name] {
				t.Errorf("gfxcuda.h declares %s twice", it.name)
			}
			declared[it.name] = true
		}
	}
	if len(declared) < 50 {
		t.Fatalf("gfxcuda.h: only %d prototypes parsed", len(declared))
	}
	defined := map[string]string{} // name: the file defining it
	reExport := regexp.MustCompile(`(?m)^//export (gfxcuda_\w+)\s*$`)
	reCDef := regexp.MustCompile(`(?m)^[A-Za-z][\w \t*]*\b(gfxcuda_\w+)\(([^;{}]*)\)\s*\{`)
	for _, pat := range []string{"*.go", "*.c"} {
		files, err := filepath.Glob(filepath.Join(libDir, pat))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			re := reExport
			if strings.HasSuffix(f, ".c") {
				re = reCDef
			}
			for _, m := range re.FindAllStringSubmatch(string(b), -1) {
				if prev, ok := defined[m[1]]; ok {
					t.Errorf("%s is defined in %s and %s", m[1], prev, filepath.Base(f))
				}
				defined[m[1]] = filepath.Base(f)
			}
		}
	}
	var missing, extra []string
	for name, f := range defined {
		if !declared[name] {
			missing = append(missing, name+" ("+f+")")
		}
	}
	for name := range declared {
		if _, ok := defined[name]; !ok {
			extra = append(extra, name)
		}
	}
	sort.Strings(missing)
	sort.Strings(extra)
	if len(missing) > 0 {
		t.Errorf("exported but without a prototype in gfxcuda.h (declare and document them there, then run go generate ./cmd/libgfxcuda): %v", missing)
	}
	if len(extra) > 0 {
		t.Errorf("declared in gfxcuda.h but neither //export-ed in cmd/libgfxcuda nor defined in its C files: %v", extra)
	}
}

// TestParse checks the parser on a header of each construct, with the
// Python it writes.
func TestParse(t *testing.T) {
	const h = `/* intro */
#ifndef X_H
#define X_H
#include <stdint.h>
#ifdef __cplusplus
extern "C" {
#endif
/* Colors. */
enum { GFXCUDA_RED = 1, GFXCUDA_BLUE = 7 /* blue */ };
/* A pair. */
typedef struct {
	uint64_t a, b; /* both */
	int64_t *p;
	char s[8];
} gfxcuda_gl_pair_t;

/* Section header. */

int gfxcuda_f(const gfxcuda_gl_pair_t *p, char **argv, void **out,
	uint64_t tiles[7], const char *const *names);
/* Nothing. */
void gfxcuda_g(void);
#ifdef __cplusplus
}
#endif
#endif
`
	got, err := generate(h)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"# Colors.\nGFXCUDA_RED = 1  # blue\nGFXCUDA_BLUE = 7\n",
		"# A pair.\nclass GLPair(ctypes.Structure):\n",
		`("a", ctypes.c_uint64),  # both` + "\n" + `        ("b", ctypes.c_uint64),` + "\n",
		`("p", ctypes.POINTER(ctypes.c_int64)),`,
		`("s", ctypes.c_char * 8),`,
		`    "gfxcuda_f": (ctypes.c_int, [ctypes.POINTER(GLPair), ctypes.POINTER(ctypes.c_char_p), ctypes.POINTER(ctypes.c_void_p), ctypes.POINTER(ctypes.c_uint64), ctypes.POINTER(ctypes.c_char_p)]),` + "\n",
		"    # Nothing.\n    \"gfxcuda_g\": (None, []),\n",
	} {
		if !strings.Contains(string(got), want) {
			t.Errorf("the Python lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(string(got), "Section header") {
		t.Errorf("a comment a blank line above a declaration became its documentation:\n%s", got)
	}
	for _, bad := range []string{
		"int gfxcuda_h(unknown_t x);\n",
		"int gfxcuda_h(int);\n",
		"struct s { int a; };\n",
		"int gfxcuda_h(int x)\n",
	} {
		if _, err := generate(bad); err == nil {
			t.Errorf("generate(%q) succeeded", bad)
		}
	}
}
