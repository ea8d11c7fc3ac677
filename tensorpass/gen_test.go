package tensorpass

import (
	"bytes"
	"os"
	"testing"

	"github.com/gfxcuda/gfxcuda/tensorpass/internal/gen"
)

// TestGeneratedUpToDate recompiles tensor.comp for every layout and checks
// that shaders_gen.go holds exactly that: run go generate ./tensorpass after
// changing the shader. With another compiler version the SPIR-V may differ
// legitimately, so the comparison is skipped there.
func TestGeneratedUpToDate(t *testing.T) {
	if c := gen.Compiler(); c != compiler {
		t.Skipf("compiler here is %q, shaders_gen.go was made by %q", c, compiler)
	}
	src, err := os.ReadFile("tensor.comp")
	if os.IsNotExist(err) {
		t.Skip("tensor.comp is not here (a test binary copied without its package's sources)")
	}
	if err != nil {
		t.Fatal(err)
	}
	want, err := gen.Generate(src)
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("shaders_gen.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Error("shaders_gen.go is not what tensor.comp compiles to: run go generate ./tensorpass")
	}
	if len(modules) != len(gen.Variants()) {
		t.Errorf("%d modules for %d layouts", len(modules), len(gen.Variants()))
	}
}
