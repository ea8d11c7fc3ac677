package doctor

import (
	"runtime"
	"strings"
)

// windowsNote is the first check on Windows: what works there today.
const windowsNote = "Windows: compute shaders on Vulkan work (HLSL, GLSL, WGSL, SPIR-V; the CLI's devices, doctor, run, bench --only compute); " +
	"CUDA interop, sharing between processes and OpenGL are not supported on Windows yet"

// forWindows adapts a Result to Windows when goos says so: a first check
// says what works there; checks of what Windows does not support yet
// (CUDA, OpenGL on EGL, sharing) become Info with that reason instead of
// Linux fixes; the remaining Linux-only fixes (apt-get, VK_DRIVER_FILES
// paths) name what Windows users install instead; the Python API is left
// out of YouCanUse (no Windows wheel yet). Run applies it.
func forWindows(res Result, goos string) Result {
	if goos != "windows" {
		return res
	}
	const later = "not supported on Windows yet (docs/windows.md)"
	out := []Check{mk("platform", Info, windowsNote, "docs/windows.md has the plan for the rest")}
	for _, c := range res.Checks {
		switch {
		case c.Name == "cuda driver" || strings.HasPrefix(c.Name, "cuda") || strings.HasPrefix(c.Name, "interop"):
			c = mk(c.Name, Info, "CUDA interop is "+later+" ("+c.Detail+")", "")
		case strings.HasPrefix(c.Name, "gl"):
			c = mk(c.Name, Info, "OpenGL is "+later, "")
		case c.Name == "vulkan validation layer" && c.Fix != "":
			c.Fix = "install the Vulkan SDK (LunarG), which has the validation layers"
		case c.Name == "vulkan loader" && c.Status == Fail:
			c.Fix = "install your GPU vendor's driver, which brings vulkan-1.dll and its Vulkan driver"
		case c.Name == "vulkan driver" && c.Status == Fail:
			c = mk(c.Name, Warn, c.Detail, "install your GPU vendor's driver (it brings its Vulkan driver); software rasterizers run compute shaders, slowly")
		}
		out = append(out, c)
	}
	res.Checks = out
	var use []Use
	for _, u := range res.YouCanUse {
		if !strings.Contains(u.What, "Python API") {
			use = append(use, u)
		}
	}
	res.YouCanUse = use
	return res
}

// onWindows is forWindows for this process's system.
func onWindows(res Result) Result { return forWindows(res, runtime.GOOS) }
