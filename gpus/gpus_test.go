package gpus

import (
	"os"
	"testing"
)

func u(b ...byte) UUID {
	var x UUID
	copy(x[:], b)
	return x
}

func TestMatchByUUIDNotIndex(t *testing.T) {
	a, b, c := u(1), u(2), u(3)
	// Vulkan order a, b, c; CUDA order c, a (b is hidden from CUDA).
	got := Match([]UUID{a, b, c}, []UUID{c, a})
	want := []Pair{{UUID: a, Vulkan: 0, CUDA: 1}, {UUID: c, Vulkan: 2, CUDA: 0}}
	if len(got) != len(want) {
		t.Fatalf("Match = %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("pair %d = %+v, want %+v", i, got[i], want[i])
		}
	}
}

func TestMatchEdgeCases(t *testing.T) {
	zero := UUID{}
	if p := Match([]UUID{zero}, []UUID{zero}); len(p) != 0 {
		t.Errorf("zero UUIDs paired: %+v", p)
	}
	if p := Match(nil, []UUID{u(1)}); len(p) != 0 {
		t.Errorf("empty Vulkan list paired: %+v", p)
	}
	// A UUID listed twice on one side pairs once.
	p := Match([]UUID{u(7), u(7)}, []UUID{u(7)})
	if len(p) != 1 || p[0].Vulkan != 0 {
		t.Errorf("duplicate UUID: %+v", p)
	}
}

// TestDiscover runs for real: on CI it sees lavapipe and no CUDA, on the GPU
// machine the GPU in both APIs.
func TestDiscover(t *testing.T) {
	r := Discover()
	if r.VulkanErr != nil {
		if os.Getenv("GFXCUDA_REQUIRE_VULKAN") == "1" {
			t.Fatalf("Vulkan required: %v", r.VulkanErr)
		}
		t.Skipf("no Vulkan: %v", r.VulkanErr)
	}
	if len(r.Vulkan) == 0 {
		t.Fatal("no Vulkan devices")
	}
	for _, d := range r.Vulkan {
		t.Logf("vulkan %d: %s %s", d.Index, d.Name, UUID(d.DeviceUUID))
	}
	if r.CUDAErr != nil {
		if os.Getenv("GFXCUDA_REQUIRE_CUDA") == "1" {
			t.Fatalf("CUDA required: %v", r.CUDAErr)
		}
		if len(r.Pairs) != 0 {
			t.Errorf("pairs without CUDA: %+v", r.Pairs)
		}
		return
	}
	if os.Getenv("GFXCUDA_REQUIRE_HARDWARE") == "1" && len(r.Pairs) == 0 {
		t.Fatalf("no Vulkan device pairs with a CUDA device")
	}
	for _, p := range r.Pairs {
		if UUID(r.Vulkan[p.Vulkan].DeviceUUID) != r.CUDA[p.CUDA].UUID {
			t.Errorf("pair %+v joins different UUIDs", p)
		}
		if r.Vulkan[p.Vulkan].IsSoftware() {
			t.Errorf("software device %s paired with CUDA", r.Vulkan[p.Vulkan].Name)
		}
	}
}
