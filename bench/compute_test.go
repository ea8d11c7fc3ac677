package bench

import (
	"bytes"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/gfxcuda/gfxcuda/vulkan"
)

// TestComputeQuick runs the compute group as `gfxcuda bench --only compute
// --quick` does, on whatever Vulkan device there is (lavapipe in CI):
// every transfer and dispatch is compared inside, so an error fails here.
func TestComputeQuick(t *testing.T) {
	s := &Suite{O: Options{Reps: 1, Quick: true}}
	err := s.Compute()
	if errors.Is(err, vulkan.ErrNoLoader) || errors.Is(err, vulkan.ErrNoDevice) {
		if os.Getenv("GFXCUDA_REQUIRE_VULKAN") == "1" {
			t.Fatalf("GFXCUDA_REQUIRE_VULKAN=1: %v", err)
		}
		t.Skipf("Vulkan unavailable: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	s.R.Compare()
	want := map[string]bool{}
	for _, n := range []string{"dispatch(1,1,1) waited, 1000 in a row", "1000 dispatches in one batch",
		"upload 64 MiB to device memory", "readback 64 MiB into new bytes", "readback 64 MiB into a preallocated slice",
		"1080p RGBA8 texture upload + readback", "HLSL compile, in process", "HLSL compile, cached",
		"host memcpy 64 MiB, parallel", "DMA upload heap → device-local, 64 MiB", "empty submit + wait",
		"host memcpy 64 MiB into staging memory", "host memcpy 64 MiB out of staging memory",
		"DMA staging memory → device-local, 64 MiB", "upload 64 MiB, host memory imported per call",
		"readback 64 MiB into a preallocated slice, imported per call",
		"1080p RGBA8 texture upload + readback, imported per call"} {
		want[n] = true
	}
	for _, f := range s.R.Figures {
		delete(want, f.Name)
		if f.Value <= 0 {
			t.Errorf("%s: %v %s", f.Name, f.Value, f.Unit)
		}
		if f.Group == ComputeGroup && f.Against != "" && f.Ratio == 0 {
			t.Errorf("%s: not compared with %s", f.Name, f.Against)
		}
		if f.Group == ComputeGroup && f.Name == "upload 64 MiB to device memory" && !strings.Contains(f.Note, "target ≥ 13") {
			t.Errorf("%s: note %q lacks the target", f.Name, f.Note)
		}
		// Transfer rows say where the time went; the imported ones how
		// long the import took.
		if f.Group == ComputeGroup && (strings.Contains(f.Name, "64 MiB") || strings.Contains(f.Name, "texture")) {
			if !strings.Contains(f.Note, "host copy") {
				t.Errorf("%s: note %q lacks the breakdown", f.Name, f.Note)
			}
			// lavapipe and the H100 both have VK_EXT_external_memory_host.
			if strings.Contains(f.Name, "imported per call") && !strings.Contains(f.Note, "import ") {
				t.Errorf("%s: note %q: the import's time is not shown", f.Name, f.Note)
			}
		}
	}
	refs, err := CompushadyReference()
	if err != nil || refs["upload-64MiB"].Value != 6.60 || refs["dispatch-waited"].Unit != "µs" {
		t.Errorf("reference: %+v, %v", refs, err)
	}
	for n := range want {
		t.Errorf("no figure %q", n)
	}
	// No machine's path is printed, and targets set for the H100 are met
	// or not on an H100 alone: elsewhere they are references.
	var table, js bytes.Buffer
	s.R.WriteTable(&table)
	if err := s.R.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	for _, out := range []string{table.String(), js.String()} {
		if m := absPath.FindString(out); m != "" {
			t.Errorf("the report prints a path: %q", m)
		}
	}
	onH100 := refs["upload-64MiB"].SameModel(s.R.Device)
	for _, l := range strings.Split(table.String(), "\n") {
		if !onH100 && (strings.Contains(l, "NOT met") || strings.Contains(l, ": met")) {
			t.Errorf("on %s, a target of the H100 is met or not: %s", s.R.Device, l)
		}
	}
	if !onH100 && !strings.Contains(table.String(), "reference (H100): target ≥ 2×") {
		t.Errorf("on %s, the table shows no reference (H100) target:\n%s", s.R.Device, table.String())
	}
}
