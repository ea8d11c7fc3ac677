package vulkan

import (
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// maxVulkanOnlyBinary bounds the size of a program that imports package
// vulkan alone. With the shader compiler linked in it was 11.5 MB.
const maxVulkanOnlyBinary = 4 << 20

// TestVulkanOnlyBinary builds testdata/vulkanonly, a program that imports
// package vulkan and nothing else of gfxcuda, and checks that it stays small
// and links no shader compiler: package vulkan reflects SPIR-V with the
// pure-Go package spirv, and must never import package shader (glslang,
// SPIRV-Tools and shaderc, linked statically through cgo).
func TestVulkanOnlyBinary(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no Go toolchain here (a test binary copied to another machine): nothing to build")
	}
	exe := filepath.Join(t.TempDir(), "vulkanonly")
	cmd := exec.Command(goTool, "build", "-o", exe, "./testdata/vulkanonly")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build ./testdata/vulkanonly: %v\n%s", err, out)
	}
	st, err := os.Stat(exe)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("vulkan-only program: %d bytes", st.Size())
	if st.Size() >= maxVulkanOnlyBinary {
		t.Errorf("a program importing only package vulkan is %d bytes, want under %d: something pulls in a large dependency (see go list -deps ./testdata/vulkanonly)",
			st.Size(), maxVulkanOnlyBinary)
	}

	f, err := elf.Open(exe)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	syms, err := f.Symbols()
	if err != nil {
		t.Fatalf("reading the symbol table: %v", err)
	}
	var own, compiler int
	var examples []string
	for _, s := range syms {
		n := strings.ToLower(s.Name)
		if strings.Contains(n, "gfxcuda/vulkan.") {
			own++
		}
		if strings.Contains(n, "glslang") || strings.Contains(n, "shaderc") || strings.Contains(n, "spvtools") {
			compiler++
			if len(examples) < 5 {
				examples = append(examples, s.Name)
			}
		}
	}
	// The scan must see the program's own symbols, or it proves nothing.
	if own == 0 {
		t.Fatalf("no gfxcuda/vulkan symbols among %d: the symbol scan is broken", len(syms))
	}
	if compiler > 0 {
		t.Errorf("the vulkan-only program links %d shader compiler symbols, such as %v", compiler, examples)
	}
}
