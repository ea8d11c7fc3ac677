package nccl

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestMissingLibrary: a path that does not exist gives ErrNotFound naming
// the path and the variable to fix.
func TestMissingLibrary(t *testing.T) {
	t.Setenv(EnvLibrary, "/nonexistent/libnccl.so.2")
	names := Candidates()
	if len(names) != 1 || names[0] != "/nonexistent/libnccl.so.2" {
		t.Fatalf("with %s set, Candidates = %v", EnvLibrary, names)
	}
	_, _, err := load(names)
	if !errors.Is(err, ErrNotFound) {
		t.Fatalf("load: %v, want ErrNotFound", err)
	}
	for _, w := range []string{"/nonexistent/libnccl.so.2", EnvLibrary} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q does not mention %q", err, w)
		}
	}
}

// TestNotNCCL: a shared library without NCCL's entry points (libm) gives
// ErrSymbols naming what is missing.
func TestNotNCCL(t *testing.T) {
	_, _, err := load([]string{"libm.so.6"})
	if !errors.Is(err, ErrSymbols) || !strings.Contains(err.Error(), "ncclCommInitRank") {
		t.Fatalf("load(libm.so.6): %v, want ErrSymbols naming ncclCommInitRank", err)
	}
}

// fakeNCCL compiles a library exporting NCCL's entry points whose
// ncclGetVersion reports v; it skips without a C compiler.
func fakeNCCL(t *testing.T, dir string, v int) string {
	t.Helper()
	cc, err := exec.LookPath("cc")
	if err != nil {
		t.Skip("no C compiler to build a fake libnccl")
	}
	src := filepath.Join(dir, "fake.c")
	var b strings.Builder
	b.WriteString("int ncclGetVersion(int *v) { *v = " + itoa(v) + "; return 0; }\n")
	for _, s := range symbols[1:] {
		b.WriteString("int " + s + "(void) { return 5; }\n")
	}
	if err := os.WriteFile(src, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "libnccl.so.2")
	if o, err := exec.Command(cc, "-shared", "-fPIC", "-o", out, src).CombinedOutput(); err != nil {
		t.Fatalf("cc: %v\n%s", err, o)
	}
	return out
}

func itoa(v int) string {
	s := ""
	for ; v > 0; v /= 10 {
		s = string(rune('0'+v%10)) + s
	}
	return s
}

// TestOldVersion: a library reporting NCCL 2.17.1 is refused with
// ErrTooOld, naming both versions.
func TestOldVersion(t *testing.T) {
	lib := fakeNCCL(t, t.TempDir(), 21701)
	_, v, err := load([]string{lib})
	if !errors.Is(err, ErrTooOld) || v != 21701 || !strings.Contains(err.Error(), "2.17.1") || !strings.Contains(err.Error(), "2.18.1") {
		t.Fatalf("load(fake 2.17.1) = %d, %v; want ErrTooOld naming 2.17.1 and 2.18.1", v, err)
	}
}

// TestWheelSearch: a library in an nvidia-nccl wheel's folder of a
// virtual environment is found, after the loader's name.
func TestWheelSearch(t *testing.T) {
	venv := t.TempDir()
	dir := filepath.Join(venv, "lib", "python3.12", "site-packages", "nvidia", "nccl", "lib")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	lib := fakeNCCL(t, dir, 22803)
	t.Setenv(EnvLibrary, "")
	t.Setenv("VIRTUAL_ENV", venv)
	names := Candidates()
	if names[0] != "libnccl.so.2" {
		t.Fatalf("Candidates()[0] = %q, want the loader's libnccl.so.2", names[0])
	}
	found := false
	for _, n := range names {
		found = found || n == lib
	}
	if !found {
		t.Fatalf("Candidates() = %v lacks %s", names, lib)
	}
	// The wheel's library loads when the loader finds none.
	p, v, err := load([]string{"/nonexistent/libnccl.so.2", lib})
	if err != nil || p != lib || v != 22803 {
		t.Fatalf("load = %q, %d, %v", p, v, err)
	}
	if VersionString(v) != "2.28.3" || VersionString(2708) != "2.7.8" {
		t.Errorf("VersionString(%d) = %s", v, VersionString(v))
	}
}
