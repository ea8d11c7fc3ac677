package tensorconv

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestGeneratedUpToDate runs the generator (go run gen_tensorpass.go), which
// recompiles tensor.comp for every layout, and checks that
// vulkanconv_shaders_gen.go holds exactly that: run go generate after
// changing the shader. With another compiler version the SPIR-V may differ
// legitimately, so the comparison is skipped there.
func TestGeneratedUpToDate(t *testing.T) {
	if _, err := os.Stat("tensor.comp"); os.IsNotExist(err) {
		t.Skip("tensor.comp is not here (a test binary copied without its package's sources)")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go tool on PATH to run the generator (the GPU machine has none)")
	}
	out, err := exec.Command(goTool, "run", "gen_tensorpass.go", "-compiler").Output()
	if err != nil {
		t.Fatalf("go run gen_tensorpass.go -compiler: %v", err)
	}
	if c := strings.TrimSpace(string(out)); c != compiler {
		t.Skipf("compiler here is %q, vulkanconv_shaders_gen.go was made by %q", c, compiler)
	}
	gen := filepath.Join(t.TempDir(), "gen.go")
	if out, err := exec.Command(goTool, "run", "gen_tensorpass.go", "-o", gen).CombinedOutput(); err != nil {
		t.Fatalf("go run gen_tensorpass.go: %v\n%s", err, out)
	}
	want, err := os.ReadFile(gen)
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("vulkanconv_shaders_gen.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Error("vulkanconv_shaders_gen.go is not what tensor.comp compiles to: run go generate")
	}
	// 3 element types × planar or not × 3 or 4 channels × 1 or 8 views or
	// tiles of an image or of a buffer, and uint8's bytes passes from a
	// buffer, from an image and from an image viewed as R32_UINT, fetched
	// or gathered (planar or not × 3 or 4 channels).
	if want := 3*2*2*4 + 4*2*2; len(modules) != want {
		t.Errorf("%d modules, want %d", len(modules), want)
	}
}
