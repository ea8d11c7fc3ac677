package doctor

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/gfxcuda/gfxcuda"
	"github.com/gfxcuda/gfxcuda/cuda"
	"github.com/gfxcuda/gfxcuda/gl"
	"github.com/gfxcuda/gfxcuda/internal/egl"
)

// GLReport is what ProbeGL found out about OpenGL on EGL. Tests build
// their own to check CheckGL's explanations.
type GLReport struct {
	// LoadErr is why libEGL could not be loaded (nil when it was).
	LoadErr error
	Library string // the file libEGL was loaded as
	// Vendor files: the glvnd EGL vendor JSON files glvnd will read
	// (from __EGL_VENDOR_LIBRARY_FILENAMES, else the vendor directories),
	// the value of that variable, the ones it names that do not exist, and
	// NVIDIA's vendor file where one exists on disk (visible or not).
	VendorFiles      []string
	VendorEnv        string
	MissingVendor    []string
	NVIDIAVendorFile string
	// ClientExtensions are EGL's client extensions (platforms on offer).
	ClientExtensions string
	// Devices are the EGL devices.
	Devices []egl.DeviceInfo
	// Context is the context made for the first CUDA device (or any GPU);
	// ContextErr why none could be made.
	Context    *egl.Info
	ContextErr error
	// CUDA are the CUDA devices the GL context should run on.
	CUDA []cuda.DeviceInfo
}

// Where glvnd looks for EGL vendor files, and where NVIDIA's drivers put
// theirs (containers mount the driver under /usr/local/nvidia).
var (
	vendorDirs     = []string{"/etc/glvnd/egl_vendor.d", "/usr/share/glvnd/egl_vendor.d"}
	nvidiaVendorAt = []string{
		"/usr/share/glvnd/egl_vendor.d/10_nvidia.json",
		"/etc/glvnd/egl_vendor.d/10_nvidia.json",
		"/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json",
		"/usr/local/share/glvnd/egl_vendor.d/10_nvidia.json",
	}
)

// ProbeGL loads libEGL, lists the vendor files and EGL devices and makes a
// context on the first CUDA device of r (when there is one).
func ProbeGL(r *gfxcuda.DeviceReport) *GLReport {
	g := &GLReport{CUDA: r.CUDA}
	g.VendorEnv = os.Getenv("__EGL_VENDOR_LIBRARY_FILENAMES")
	if g.VendorEnv != "" {
		for _, f := range strings.Split(g.VendorEnv, ":") {
			if f == "" {
				continue
			}
			if _, err := os.Stat(f); err != nil {
				g.MissingVendor = append(g.MissingVendor, f)
			} else {
				g.VendorFiles = append(g.VendorFiles, f)
			}
		}
	} else {
		dirs := vendorDirs
		if d := os.Getenv("__EGL_VENDOR_LIBRARY_DIRS"); d != "" {
			dirs = strings.Split(d, ":")
		}
		for _, d := range dirs {
			m, _ := filepath.Glob(filepath.Join(d, "*.json"))
			g.VendorFiles = append(g.VendorFiles, m...)
		}
	}
	for _, f := range append(g.VendorFiles, nvidiaVendorAt...) {
		if strings.Contains(filepath.Base(f), "nvidia") {
			if _, err := os.Stat(f); err == nil {
				g.NVIDIAVendorFile = f
				break
			}
		}
	}
	if g.LoadErr = egl.Load(); g.LoadErr != nil {
		return g
	}
	g.Library = egl.Library()
	g.ClientExtensions, _ = egl.ClientExtensions()
	g.Devices, _ = egl.Devices()
	var o egl.Options
	if len(r.CUDA) > 0 {
		u := [16]byte(r.CUDA[0].UUID)
		ord := r.CUDA[0].Ordinal
		o.DeviceUUID, o.CUDADevice = &u, &ord
	}
	c, err := egl.New(o)
	if err != nil {
		g.ContextErr = err
		return g
	}
	in := c.Info()
	g.Context = &in
	c.Close()
	return g
}

func hasWord(list, w string) bool {
	for _, f := range strings.Fields(list) {
		if f == w {
			return true
		}
	}
	return false
}

// CheckGL explains what g found. GL is optional for Vulkan↔CUDA interop, so
// its problems are warnings: they matter to GL renderers (package gl).
func CheckGL(g *GLReport) []Check {
	var out []Check
	add := func(name string, st Status, detail, fix string) {
		out = append(out, mk(name, st, detail, fix))
	}
	nvidia := len(g.CUDA) > 0
	const nvExport = "export __EGL_VENDOR_LIBRARY_FILENAMES="
	nvFile := g.NVIDIAVendorFile
	if nvFile == "" {
		nvFile = "/usr/share/glvnd/egl_vendor.d/10_nvidia.json"
	}

	// libEGL.
	if g.LoadErr != nil {
		fix := "sudo apt-get install libegl1"
		if !errors.Is(g.LoadErr, egl.ErrNoLibrary) {
			fix = "install libglvnd's libEGL (sudo apt-get install libegl1); GFXCUDA_LIBEGL names another file to load"
		}
		if nvidia {
			fix += " (the NVIDIA driver then supplies the GL driver through its vendor file)"
		} else {
			fix += " libegl-mesa0 libgl1-mesa-dri (Mesa, for software rendering)"
		}
		add("gl: egl library", Warn, "OpenGL on EGL is unavailable: "+g.LoadErr.Error(), fix)
		return out
	}
	add("gl: egl library", Pass, g.Library, "")

	// Vendor files.
	switch {
	case len(g.MissingVendor) > 0:
		fix := "point __EGL_VENDOR_LIBRARY_FILENAMES at files that exist"
		if g.NVIDIAVendorFile != "" {
			fix = nvExport + g.NVIDIAVendorFile
		}
		add("gl: egl vendor files", Warn, "__EGL_VENDOR_LIBRARY_FILENAMES names files that do not exist: "+strings.Join(g.MissingVendor, ", "), fix)
	case len(g.VendorFiles) == 0:
		fix := "sudo apt-get install libegl-mesa0 (Mesa's EGL, for software rendering)"
		if nvidia && g.NVIDIAVendorFile != "" {
			fix = nvExport + g.NVIDIAVendorFile
		} else if nvidia {
			fix = "install the NVIDIA driver's EGL library (libnvidia-egl / libEGL_nvidia.so.0) and its vendor file " + nvFile +
				"; in containers run with NVIDIA_DRIVER_CAPABILITIES=all (or including graphics) and " + nvExport + nvFile
		}
		add("gl: egl vendor files", Warn, "glvnd finds no EGL vendor file, so libEGL has no driver to load", fix)
	case nvidia && !anyNVIDIA(g.VendorFiles):
		fix := "install the NVIDIA driver's EGL library (libEGL_nvidia.so.0) and " + nvFile +
			"; in containers run with NVIDIA_DRIVER_CAPABILITIES including graphics"
		if g.NVIDIAVendorFile != "" {
			fix = nvExport + g.NVIDIAVendorFile
		}
		add("gl: egl vendor files", Warn, "no NVIDIA EGL vendor file is visible to glvnd (found: "+strings.Join(g.VendorFiles, ", ")+
			"): GL would run on a software renderer, not on the CUDA GPU", fix)
	default:
		add("gl: egl vendor files", Pass, strings.Join(g.VendorFiles, ", "), "")
	}

	// Platforms.
	dev, surf := hasWord(g.ClientExtensions, "EGL_EXT_platform_device"), hasWord(g.ClientExtensions, "EGL_MESA_platform_surfaceless")
	switch {
	case !dev && !surf:
		add("gl: headless platforms", Warn, "EGL offers neither EGL_EXT_platform_device nor EGL_MESA_platform_surfaceless: no context without a window system",
			"install a driver's EGL: the NVIDIA driver's ("+nvExport+nvFile+") or Mesa's (libegl-mesa0)")
	case !dev:
		add("gl: headless platforms", Info, "surfaceless only (no EGL_EXT_platform_device): the GPU cannot be chosen", "")
	default:
		var ds []string
		for _, d := range g.Devices {
			s := d.Description
			if d.CUDADevice >= 0 {
				s += fmt.Sprintf(" (CUDA %d)", d.CUDADevice)
			}
			ds = append(ds, s)
		}
		add("gl: headless platforms", Pass, fmt.Sprintf("device platform (%d EGL devices: %s)", len(g.Devices), strings.Join(ds, "; ")), "")
	}
	if nvidia {
		out = append(out, eglIndexCheck(g, dev, nvExport+nvFile))
	}

	// A context.
	if g.ContextErr != nil {
		add("gl: context", Warn, g.ContextErr.Error(), "run with EGL_LOG_LEVEL=debug to see why the driver refused; "+
			"for NVIDIA GPUs "+nvExport+nvFile+"; for software rendering sudo apt-get install libegl-mesa0 libgl1-mesa-dri")
		return out
	}
	in := g.Context
	add("gl: context", Pass, in.String(), "")

	// On the CUDA device?
	software := strings.Contains(strings.ToLower(in.Renderer), "llvmpipe") || strings.Contains(strings.ToLower(in.Renderer), "softpipe")
	if nvidia {
		if in.UUIDMatched {
			add("gl: same GPU as CUDA", Pass, fmt.Sprintf("%s = CUDA device %d (%s), matched by %s", in.Renderer, g.CUDA[0].Ordinal, g.CUDA[0].Name, in.MatchedBy), "")
		} else {
			fix := "make NVIDIA's EGL the one glvnd loads: " + nvExport + nvFile
			if !software {
				fix = "check CUDA_VISIBLE_DEVICES and that the EGL device list includes this GPU (EGL_NV_device_cuda)"
			}
			add("gl: same GPU as CUDA", Warn, fmt.Sprintf("the EGL device is not the CUDA device: GL runs on %s, CUDA on %s (UUID %s), so CUDA cannot register GL objects",
				in.Renderer, g.CUDA[0].Name, g.CUDA[0].UUIDString), fix)
		}
	} else {
		add("gl: same GPU as CUDA", Info, "no CUDA device: GL↔CUDA registration not checked", "")
	}

	// Extensions.
	if in.MemoryObject {
		add("gl: vulkan memory import", Pass, "GL_EXT_memory_object_fd: GL imports Vulkan (and so CUDA-shared) memory", "")
	} else {
		add("gl: vulkan memory import", Warn, "the GL driver lacks GL_EXT_memory_object_fd: Vulkan memory cannot be imported into GL (NewSharedBuffer, rings)",
			"use the NVIDIA driver's EGL ("+nvExport+nvFile+") or Mesa 20 or newer")
	}
	switch {
	case in.SemaphoreFD:
		add("gl: semaphores", Pass, "GL_EXT_semaphore_fd", "")
	case software:
		add("gl: semaphores", Info, "GL_EXT_semaphore_fd absent ("+in.Renderer+" has none): gfxcuda orders GL's work with fences on the host", "")
	default:
		add("gl: semaphores", Warn, "the GL driver lacks GL_EXT_semaphore_fd: GL's work is ordered with host waits", "update the GPU driver")
	}
	return out
}

// eglIndexCheck names, for each CUDA device, its EGL device index (what a
// renderer that picks its EGL device takes: MUJOCO_EGL_DEVICE_ID,
// pyrender's EGL_DEVICE_ID), or says why it has none. nvFix is the export
// that makes glvnd load NVIDIA's EGL.
func eglIndexCheck(g *GLReport, devicePlatform bool, nvFix string) Check {
	const name = "gl: egl device index"
	if !devicePlatform || len(g.Devices) == 0 {
		why := "EGL lists no device (eglQueryDevicesEXT found none)"
		if !devicePlatform {
			why = "EGL offers no device platform (EGL_EXT_platform_device)"
		}
		return mk(name, Warn, why+": a renderer cannot put its context on CUDA device "+fmt.Sprint(g.CUDA[0].Ordinal)+"'s GPU", "make NVIDIA's EGL the one glvnd loads: "+nvFix)
	}
	devs := make([]gl.EGLDevice, len(g.Devices))
	nvidiaEGL := false // some EGL device is an NVIDIA GPU (has a UUID or a CUDA ordinal)
	var listed []string
	for i, d := range g.Devices {
		devs[i] = gl.EGLDevice{Index: i, Description: d.Description, UUID: d.UUID, CUDADevice: d.CUDADevice}
		nvidiaEGL = nvidiaEGL || d.UUID != nil || d.CUDADevice >= 0
		listed = append(listed, fmt.Sprintf("%d %s", i, d.Description))
	}
	var found, missing []string
	for _, c := range g.CUDA {
		i := gl.MatchEGLDevice(devs, c.UUID, c.Ordinal)
		if i < 0 {
			missing = append(missing, fmt.Sprintf("CUDA %d (%s, %s): no EGL device", c.Ordinal, c.Name, c.UUIDString))
			continue
		}
		by := "EGL_NV_device_cuda"
		if devs[i].UUID != nil {
			by = "UUID"
		}
		found = append(found, fmt.Sprintf("CUDA %d = EGL device %d (%s, by %s): set MUJOCO_EGL_DEVICE_ID=%d / EGL_DEVICE_ID=%d", c.Ordinal, i, devs[i].Description, by, i, i))
	}
	detail := strings.Join(append(found, missing...), "; ")
	if len(found) > 0 {
		detail += " (MuJoCo's and pyrender's variables; PyOpenGL and C take eglQueryDevicesEXT's device of that index)"
	}
	if len(missing) == 0 {
		return mk(name, Pass, detail, "")
	}
	detail += fmt.Sprintf(" (EGL's devices: %s; none reports such a GPU's UUID, EGL_EXT_device_persistent_id, or its CUDA ordinal, EGL_NV_device_cuda)", strings.Join(listed, ", "))
	fix := "make NVIDIA's EGL the one glvnd loads: " + nvFix
	if nvidiaEGL {
		fix = "NVIDIA's EGL lists other GPUs but not this one: a GPU without graphics (MIG, compute-only vGPU) has no EGL device; check CUDA_VISIBLE_DEVICES and nvidia-smi"
	}
	return mk(name, Warn, detail, fix)
}

func anyNVIDIA(files []string) bool {
	for _, f := range files {
		if strings.Contains(strings.ToLower(filepath.Base(f)), "nvidia") {
			return true
		}
	}
	return false
}
