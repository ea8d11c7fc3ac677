package dl

import (
	"errors"
	"slices"
	"testing"
)

// TestIsSystemDir: glibc's default directories and the multiarch ones in
// them are system directories; others under /usr/lib are not.
func TestIsSystemDir(t *testing.T) {
	for d, want := range map[string]bool{
		"/lib": true, "/usr/lib": true, "/usr/lib64": true, "/lib/x86_64-linux-gnu": true,
		"/usr/lib/aarch64-linux-gnu/": true, "/usr/lib/foo": false, "/opt/nv": false,
		"/usr/lib/x86_64-linux-gnu/nvidia": false, "/usr/local/lib": false, "/usr/lib/x-linux-gnu/a": false,
	} {
		if got := isSystemDir(d); got != want {
			t.Errorf("isSystemDir(%q) = %v", d, got)
		}
	}
}

// TestOpenNotFoundAndPath: a library that cannot be loaded is a
// NotFoundError (ErrNotFound) naming each name tried and dlerror's reason;
// one loaded names the real file; the search path holds the ld.so cache.
func TestOpenNotFoundAndPath(t *testing.T) {
	_, err := Open("libgfxcuda-no-such.so.1", "/nowhere/libx.so")
	var nf *NotFoundError
	if !errors.As(err, &nf) || !errors.Is(err, ErrNotFound) || !slices.Equal(nf.Names, []string{"libgfxcuda-no-such.so.1", "/nowhere/libx.so"}) || len(nf.Reasons) != 2 {
		t.Fatalf("Open of missing libraries: %v", err)
	}
	l, err := Open("libc.so.6")
	if err != nil {
		t.Fatal(err)
	}
	if p := l.Path(); p == "" || p[0] != '/' || p == "libc.so.6" {
		t.Errorf("libc.so.6 loaded from %q", p)
	}
	if sp := SearchPath(); !slices.Contains(sp, "/etc/ld.so.cache") || len(sp) < 2 {
		t.Errorf("SearchPath %v", sp)
	}
	if s := Self(); s != "" {
		t.Errorf("a test binary is no shared library; Self is %q", s)
	}
}
