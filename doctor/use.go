package doctor

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gfxcuda/gfxcuda"
	"github.com/gfxcuda/gfxcuda/compute"
	"github.com/gfxcuda/gfxcuda/vulkan"
)

// Use is something that works on the machine checked, and how to try it.
type Use struct {
	What string `json:"what"`
	Try  string `json:"try"`
}

// youCanUse lists what works given what the probes found: compute shaders,
// the Python API and sharing between processes wherever Vulkan runs
// (lavapipe included), OpenGL where EGL makes a context, CUDA where its
// driver sees a GPU, and zero-copy interop where interopOK.
func youCanUse(r *gfxcuda.DeviceReport, g *GLReport, interopOK bool) []Use {
	out := []Use{}
	add := func(what, try string) { out = append(out, Use{What: what, Try: try}) }

	var runsCompute, share []*vulkan.PhysicalDevice
	if r.VulkanErr == nil {
		for _, d := range r.Vulkan {
			if compute.HasCompute(d) {
				runsCompute = append(runsCompute, d)
			}
			if d.CanExportOpaqueFD() && d.CanImportOpaqueFD() {
				share = append(share, d)
			}
		}
	}
	cudaOK := r.CUDAErr == nil && len(r.CUDA) > 0

	if len(runsCompute) > 0 {
		add("compute shaders (HLSL, GLSL, WGSL, SPIR-V) on "+deviceList(runsCompute),
			"gfxcuda run k.hlsl --dispatch 16 --uav 0:4096 --out o.npy (any compute shader; gfxcuda run -h); Go: compute.Open(compute.Options{}); GFXCUDA_DEVICE picks the device")
		add("compushady's Python API (import gfxcuda as compushady), on the same devices",
			"pip install gfxcuda (or pip install . from a checkout; developers: make python); python3 -c 'import gfxcuda as compushady; print(compushady.get_discovered_devices())'")
		add("compute benchmarks (compushady's workloads, Vulkan alone)", "gfxcuda bench --only compute")
		if interopOK {
			add("the whole demo: frames rendered with Vulkan handed to CUDA as tensors, with no copy", "gfxcuda demo")
		} else {
			add("the demo's Vulkan half: rendering, and frames laid out as tensors by a compute pass (tensorpass)", "gfxcuda demo")
		}
	}
	if len(share) > 0 {
		what := "sharing Vulkan memory between processes: frame rings (host-visible buffers, or textures written by a compute shader) opened from a printed token"
		try := "gfxcuda share --cpu (or gfxcuda share), then the printed gfxcuda open TOKEN in another terminal; Go: gfxcuda.ExportVulkan, gfxcuda.NewRing, gfxcuda.OpenRing"
		if slices.ContainsFunc(share, (*vulkan.PhysicalDevice).CanExportSemaphoreFD) {
			what += ", handed over on the GPU with exported timeline semaphores"
		}
		if interopOK {
			try += "; gfxcuda open --cuda TOKEN consumes them in CUDA"
		}
		add(what+" ("+deviceList(share)+")", try)
	}
	if g != nil && g.Context != nil {
		in := g.Context
		add("OpenGL on headless EGL, no display needed: "+in.Renderer+" ("+in.Version+")",
			"Go: gl.Open(gl.Options{}) (docs/gl.md); your own renderer's context: gl.Adopt")
		if in.MemoryObject && len(share) > 0 {
			add("Vulkan memory in OpenGL (GL_EXT_memory_object_fd): buffers and frame rings GL and Vulkan share",
				"Go: gl.Context.NewSharedBuffer(vkDev, size), gl.Context.NewRing(gl.RingOptions{Vulkan: vkDev, …})")
		}
		if cudaOK && in.UUIDMatched {
			add("OpenGL textures and buffers registered in CUDA, read as tensors with no copy",
				"Go: gl.Open(gl.Options{CUDA: ctx}), Context.RegisterTexture, gfxcuda.Converter (docs/opengl.md)")
		}
	}
	if cudaOK {
		var names []string
		for _, d := range r.CUDA {
			names = append(names, fmt.Sprintf("%d: %s", d.Ordinal, d.Name))
		}
		add("CUDA "+r.CUDAVersion.String()+" on "+strings.Join(names, ", ")+": memory, kernels (PTX), IPC handles, DLPack tensors for PyTorch, CuPy and Numba",
			"gfxcuda devices; Go: cuda.Devices(), Context.LoadModule; Python: gfxcuda's DLPack / __cuda_array_interface__ (docs/python.md)")
	}
	if interopOK {
		var gpus []string
		for _, p := range r.Pairs {
			gpus = append(gpus, r.CUDA[p.CUDA].Name)
		}
		add("zero-copy Vulkan↔CUDA buffers, textures and frame rings, handed over on the GPU ("+strings.Join(slices.Compact(gpus), ", ")+")",
			"Go: gfxcuda.Open(gfxcuda.Options{}); Python: gfxcuda.texture(tensor); gfxcuda bench")
	}
	return out
}

// deviceList names devices, marking software ones as running on the CPU.
func deviceList(ds []*vulkan.PhysicalDevice) string {
	var s []string
	for _, d := range ds {
		n := d.Name
		if d.IsSoftware() {
			n += ", on the CPU"
		}
		s = append(s, n)
	}
	return strings.Join(s, "; ")
}
