package dl

import (
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestOpenNotFoundAndPath: a DLL that cannot be loaded is a NotFoundError
// (ErrNotFound) naming each name tried and the reason; one loaded names its
// file in the system directory, and a symbol it exports is found while a
// missing one is an error naming it.
func TestOpenNotFoundAndPath(t *testing.T) {
	_, err := Open("gfxcuda-no-such.dll", `C:\nowhere\x.dll`)
	var nf *NotFoundError
	if !errors.As(err, &nf) || !errors.Is(err, ErrNotFound) || !slices.Equal(nf.Names, []string{"gfxcuda-no-such.dll", `C:\nowhere\x.dll`}) || len(nf.Reasons) != 2 {
		t.Fatalf("Open of missing libraries: %v", err)
	}
	l, err := Open("kernel32.dll")
	if err != nil {
		t.Fatal(err)
	}
	p := l.Path()
	if !filepath.IsAbs(p) || !strings.EqualFold(filepath.Base(p), "kernel32.dll") {
		t.Errorf("kernel32.dll loaded from %q", p)
	}
	if s, err := l.Sym("GetTickCount64"); err != nil || s == nil {
		t.Errorf("GetTickCount64: %p, %v", s, err)
	}
	if _, err := l.Sym("gfxcudaNoSuchSymbol"); err == nil || !strings.Contains(err.Error(), "gfxcudaNoSuchSymbol") {
		t.Errorf("a missing symbol: %v", err)
	}
	if sp := SearchPath(); len(sp) < 3 {
		t.Errorf("SearchPath %v", sp)
	}
	if s := Self(); s != "" {
		t.Errorf("a test binary is no DLL; Self is %q", s)
	}
}
