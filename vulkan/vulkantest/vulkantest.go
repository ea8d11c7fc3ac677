// Package vulkantest gives tests a Vulkan device: the first physical device
// (lavapipe on the CPU machine), validation on, closed at the test's end
// with a failure for every validation message. Without Vulkan the test
// skips, unless GFXCUDA_REQUIRE_VULKAN=1 makes that a failure. For tests
// only.
package vulkantest

import (
	"os"
	"testing"

	"github.com/gfxcuda/gfxcuda/vulkan"
)

// Device opens the first Vulkan device with validation for t.
func Device(t testing.TB) *vulkan.Device {
	t.Helper()
	on := true
	inst, err := vulkan.NewInstance(vulkan.InstanceOptions{Validation: &on})
	if err != nil {
		if os.Getenv("GFXCUDA_REQUIRE_VULKAN") == "1" {
			t.Fatal(err)
		}
		t.Skipf("no Vulkan: %v", err)
	}
	pds, err := inst.PhysicalDevices()
	if err != nil {
		inst.Close()
		t.Fatal(err)
	}
	vd, err := inst.NewDevice(pds[0], vulkan.DeviceOptions{})
	if err != nil {
		inst.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		vd.Close()
		if msgs := inst.TakeValidationErrors(); len(msgs) > 0 {
			t.Errorf("%d validation errors, first: %s", len(msgs), msgs[0])
		}
		inst.Close()
	})
	return vd
}
