package doctor

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/gfxcuda/gfxcuda"
	"github.com/gfxcuda/gfxcuda/cuda"
	"github.com/gfxcuda/gfxcuda/vulkan"
)

func find(t *testing.T, res Result, name string) Check {
	t.Helper()
	for _, c := range res.Checks {
		if strings.HasPrefix(c.Name, name) {
			return c
		}
	}
	t.Fatalf("no check %q in %+v", name, res.Checks)
	return Check{}
}

func TestSameReleaseVersions(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want bool
	}{{"580.159.04", "580.159.4", true}, {"580.159.04", "580.159", true}, {"580.159.04", "575.57.08", false}, {"580.159", "580.160", false}} {
		if got := sameRelease(c.a, c.b); got != c.want {
			t.Errorf("sameRelease(%s, %s) = %v", c.a, c.b, got)
		}
	}
}

func TestNoLoader(t *testing.T) {
	r := &gfxcuda.DeviceReport{VulkanErr: vulkan.ErrNoLoader, CUDAErr: &cuda.NoDriverError{Reason: "libcuda.so.1 not found", Fix: "install it"}}
	res := Run(r)
	if res.OK {
		t.Fatal("OK without Vulkan or CUDA")
	}
	if c := find(t, res, "vulkan loader"); c.Status != Fail || !strings.Contains(c.Fix, "libvulkan1") {
		t.Errorf("loader check %+v", c)
	}
	if c := find(t, res, "cuda driver"); c.Status != Fail || c.Fix != "install it" {
		t.Errorf("cuda check %+v", c)
	}
}

func TestNoICD(t *testing.T) {
	res := Run(&gfxcuda.DeviceReport{VulkanErr: vulkan.ErrNoDevice, CUDAErr: errors.New("x")})
	if c := find(t, res, "vulkan driver"); c.Status != Fail || !strings.Contains(c.Fix, "VK_DRIVER_FILES") {
		t.Errorf("%+v", c)
	}
}

// TestRealMachine runs the checks on this machine's devices. On CI (lavapipe,
// no CUDA) it must fail and explain both; on the GPU machine it must pass.
func TestRealMachine(t *testing.T) {
	r := gfxcuda.DiscoverDevices()
	res := Run(r)
	for _, c := range res.Checks {
		t.Logf("[%s] %s: %s", c.Status, c.Name, c.Detail)
	}
	if r.CUDAErr != nil && res.OK {
		t.Error("OK without CUDA")
	}
	if r.VulkanErr == nil && r.CUDAErr == nil && len(r.Pairs) > 0 {
		// A GPU machine: interop must be possible unless a check says why not.
		if !res.OK {
			t.Errorf("interop reported impossible on a machine with paired devices")
		}
	}
	if r.VulkanErr == nil {
		soft := true
		for _, d := range r.Vulkan {
			soft = soft && d.IsSoftware()
		}
		if soft {
			if c := find(t, res, "vulkan driver"); c.Status != Fail || !strings.Contains(c.Detail, "software") {
				t.Errorf("software-only Vulkan not flagged: %+v", c)
			}
		}
	}
	// What works is listed wherever Vulkan runs, lavapipe included.
	if r.VulkanErr == nil && len(r.Vulkan) > 0 && !strings.Contains(useText(res), "compute shaders") {
		t.Errorf("you can use: %+v", res.YouCanUse)
	}
	// On the GPU machine (one H100, healthy) none of the checks of the
	// common failures may fire: no false alarm where everything works.
	if os.Getenv("GFXCUDA_REQUIRE_HARDWARE") == "1" && res.OK {
		t.Logf("host: %+v", ProbeHost(ProbeOptions{}))
		for _, c := range res.Checks {
			for _, n := range []string{numberingCheck, graphicsCheck, noGraphicsChk, versionsCheck} {
				if strings.HasPrefix(c.Name, n) && (c.Status == Warn || c.Status == Fail) {
					t.Errorf("false alarm on a working GPU machine: [%s] %s: %s", c.State, c.Name, c.Detail)
				}
			}
		}
	}
}

// TestCheckSharing: the sharing checks say which ways between processes
// and containers work, never failing the machine.
func TestCheckSharing(t *testing.T) {
	cs := CheckSharing([]gfxcuda.RendezvousCheck{
		{Rendezvous: gfxcuda.RendezvousAbstract, OK: true, Detail: "works"},
		{Rendezvous: gfxcuda.RendezvousFS, Detail: "/dev/shm/gfxcuda belongs to uid 7", Fix: "set GFXCUDA_SHARE_DIR"},
		{Rendezvous: gfxcuda.RendezvousPidfd, OK: true, Detail: "pidfd_getfd works"},
	})
	if len(cs) != 3 || cs[0].Name != "share: abstract socket" || cs[0].Status != Pass ||
		cs[1].Name != "share: filesystem socket" || cs[1].Status != Info || cs[1].Fix != "set GFXCUDA_SHARE_DIR" ||
		cs[2].Name != "share: pidfd_getfd" || cs[2].Status != Pass {
		t.Errorf("%+v", cs)
	}
	// On this machine: three checks, none a failure.
	for _, c := range CheckSharing(gfxcuda.ProbeRendezvous()) {
		if c.Status == Fail || c.Detail == "" {
			t.Errorf("%+v", c)
		}
		t.Logf("[%v] %s: %s", c.Status, c.Name, c.Detail)
	}
}
