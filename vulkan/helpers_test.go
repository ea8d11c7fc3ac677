package vulkan

import (
	"errors"
	"os"
	"runtime"
	"strings"
	"testing"
)

// requireVulkan reports whether GFXCUDA_REQUIRE_VULKAN=1: then a machine
// without Vulkan (or without the validation layer) fails the tests instead
// of skipping them, so that CI cannot pass by skipping.
func requireVulkan() bool { return os.Getenv("GFXCUDA_REQUIRE_VULKAN") == "1" }

// unavailable skips t, or fails it under GFXCUDA_REQUIRE_VULKAN=1.
func unavailable(t testing.TB, format string, args ...any) {
	t.Helper()
	if requireVulkan() {
		t.Fatalf("GFXCUDA_REQUIRE_VULKAN=1: "+format, args...)
	}
	t.Skipf(format, args...)
}

// newTestInstance returns an instance with validation on, closed at the end
// of the test, after which the test fails if the validation layer reported
// any error.
func newTestInstance(t testing.TB) *Instance {
	t.Helper()
	on := true
	in, err := NewInstance(InstanceOptions{AppName: "gfxcuda-test", Validation: &on})
	if err != nil {
		if errors.Is(err, ErrNoLoader) || errors.Is(err, ErrNoDevice) {
			unavailable(t, "Vulkan unavailable: %v", err)
		}
		t.Fatalf("NewInstance: %v", err)
	}
	checkValidation(t, in)
	if !in.ValidationEnabled() {
		const msg = "Vulkan validation layer VK_LAYER_KHRONOS_validation unavailable (apt install vulkan-validationlayers)"
		// On Windows (tested under Wine) the layer is not required: no
		// Windows build of it is at hand there.
		if requireVulkan() && runtime.GOOS != "windows" {
			t.Fatal("GFXCUDA_REQUIRE_VULKAN=1: " + msg)
		}
		t.Log(msg + "; testing without it")
	}
	return in
}

// checkValidation closes in at the end of the test and fails the test on
// validation errors, those of Close included.
func checkValidation(t testing.TB, in *Instance) {
	t.Helper()
	t.Cleanup(func() {
		if err := in.Close(); err != nil {
			t.Errorf("Instance.Close: %v", err)
		}
		failOnValidationErrors(t, in)
	})
}

func failOnValidationErrors(t testing.TB, in *Instance) {
	t.Helper()
	if msgs := in.TakeValidationErrors(); len(msgs) > 0 {
		t.Errorf("%d validation error(s):\n%s", len(msgs), strings.Join(msgs, "\n"))
	}
}

// physicalDevices lists the devices, skipping or failing when there are none.
func physicalDevices(t testing.TB, in *Instance) []*PhysicalDevice {
	t.Helper()
	pds, err := in.PhysicalDevices()
	if errors.Is(err, ErrNoDevice) {
		unavailable(t, "no Vulkan physical device: %v", err)
	}
	if err != nil {
		t.Fatalf("PhysicalDevices: %v", err)
	}
	return pds
}

// lavapipe returns Mesa's software device, or skips the test without it
// (GPU machines may list only their GPU).
func lavapipe(t testing.TB, in *Instance) *PhysicalDevice {
	t.Helper()
	for _, pd := range physicalDevices(t, in) {
		if strings.Contains(pd.Name, "llvmpipe") || pd.DriverName == "llvmpipe" {
			return pd
		}
	}
	t.Skip("lavapipe (mesa-vulkan-drivers) is not among the Vulkan devices")
	return nil
}

// openFDs lists this process's open file descriptors and what they are.
func openFDs(t testing.TB) []string {
	t.Helper()
	if runtime.GOOS == "windows" {
		// Under Wine /proc/self/fd is Wine's own process, whose
		// descriptors come and go with its server; Windows has handles.
		// The caller's work still runs; only the count is left out.
		t.Log("file descriptors are Linux's: not counted on Windows")
		return nil
	}
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skipf("cannot list file descriptors: %v", err)
	}
	var out []string
	for _, e := range ents {
		target, _ := os.Readlink("/proc/self/fd/" + e.Name())
		out = append(out, e.Name()+"->"+target)
	}
	return out
}
