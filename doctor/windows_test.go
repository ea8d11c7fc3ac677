package doctor

import (
	"reflect"
	"strings"
	"testing"
)

// TestForWindows: on Windows the doctor says first what works there, turns
// the checks of what Windows does not support yet into Info with that
// reason (no Linux fix), names what Windows users install instead of
// apt-get packages, and leaves the Python API out; elsewhere it changes
// nothing.
func TestForWindows(t *testing.T) {
	in := Result{
		Checks: []Check{
			mk("vulkan loader", Pass, "Vulkan 1.3.0", ""),
			mk("vulkan driver", Fail, "only software rasterizers found (llvmpipe)", "export VK_DRIVER_FILES=/usr/share/vulkan/icd.d/nvidia_icd.json"),
			mk("vulkan validation layer", Info, "not installed", "sudo apt-get install vulkan-validationlayers"),
			mk("cuda driver", Fail, "nvcuda.dll not found", "install the NVIDIA driver"),
			mk("gl: egl library", Warn, "libEGL.so.1 not found", "sudo apt-get install libegl1"),
			mk("share: abstract socket", Info, "not supported on Windows yet", "share between processes on Linux for now"),
		},
		YouCanUse: []Use{{What: "compute shaders on llvmpipe", Try: "gfxcuda run"}, {What: "compushady's Python API (import gfxcuda as compushady)", Try: "pip install gfxcuda"}},
	}
	if got := forWindows(in, "linux"); !reflect.DeepEqual(got, in) {
		t.Fatalf("on Linux the result changed: %+v", got)
	}
	got := forWindows(in, "windows")
	if len(got.Checks) != len(in.Checks)+1 || got.Checks[0].Name != "platform" || !strings.Contains(got.Checks[0].Detail, "compute shaders on Vulkan work") {
		t.Fatalf("no platform check first: %+v", got.Checks)
	}
	by := map[string]Check{}
	for _, c := range got.Checks {
		by[c.Name] = c
		if strings.Contains(c.Fix, "apt-get") || strings.Contains(c.Fix, "/usr/") {
			t.Errorf("%s: a Linux fix on Windows: %q", c.Name, c.Fix)
		}
	}
	for _, name := range []string{"cuda driver", "gl: egl library"} {
		if c := by[name]; c.Status != Info || !strings.Contains(c.Detail, "not supported on Windows yet") {
			t.Errorf("%s: %+v, want Info saying it is not supported on Windows yet", name, c)
		}
	}
	if c := by["vulkan driver"]; c.Status != Warn || !strings.Contains(c.Fix, "vendor's driver") {
		t.Errorf("vulkan driver: %+v", c)
	}
	if c := by["vulkan validation layer"]; !strings.Contains(c.Fix, "Vulkan SDK") {
		t.Errorf("validation layer: %+v", c)
	}
	if len(got.YouCanUse) != 1 || strings.Contains(got.YouCanUse[0].What, "Python") {
		t.Errorf("you can use: %+v", got.YouCanUse)
	}
}
