package compute

import (
	"os/exec"
	"strings"
	"testing"
)

// TestNoCUDALinked: a Vulkan-only compute user links no CUDA binding and
// no interop code (gfxcuda.Device.Compute bridges them).
func TestNoCUDALinked(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go tool on PATH to list the dependencies (the GPU machine has none)")
	}
	out, err := exec.Command(goTool, "list", "-deps", "github.com/gfxcuda/gfxcuda/compute").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, p := range strings.Fields(string(out)) {
		switch p {
		case "github.com/gfxcuda/gfxcuda/cuda", "github.com/gfxcuda/gfxcuda/interop", "github.com/gfxcuda/gfxcuda/internal/cu":
			t.Errorf("package compute depends on %s", p)
		}
	}
}
