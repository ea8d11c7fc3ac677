// Package doctor checks whether a machine can share GPU memory between
// Vulkan and CUDA and, for every problem, says what is wrong and how to fix
// it. `gfxcuda doctor` prints its findings.
package doctor

import (
	"errors"
	"fmt"
	"strings"

	"github.com/gfxcuda/gfxcuda"
	"github.com/gfxcuda/gfxcuda/cuda"
	"github.com/gfxcuda/gfxcuda/vulkan"
)

// Status is a check's outcome.
type Status int

// Outcomes, from best to worst.
const (
	Pass Status = iota
	Info        // worth knowing, not a problem
	Warn        // interop works, but something is off
	Fail        // interop is not possible until this is fixed
)

// String is the status as the text report marks it: ok, info, warn, FAIL.
func (s Status) String() string {
	return [...]string{"ok", "info", "warn", "FAIL"}[s]
}

// jsonName is the status as --json names it: ok, info, warn, fail.
func (s Status) jsonName() string {
	return [...]string{"ok", "info", "warn", "fail"}[s]
}

// Check is one finding.
type Check struct {
	Name   string `json:"name"`
	Status Status `json:"-"`
	State  string `json:"status"`
	Detail string `json:"detail"`
	Fix    string `json:"fix,omitempty"`
}

// Result is the outcome of all checks.
type Result struct {
	Checks []Check `json:"checks"`
	// OK is true when Vulkan↔CUDA interop is possible on at least one GPU.
	OK bool `json:"ok"`
	// YouCanUse lists what works on this machine, whether or not interop
	// does, each with a command or API to try it.
	YouCanUse []Use `json:"you_can_use"`
	// Libraries are the libraries loaded at run time and the file each was
	// loaded from, or where it was looked for (ProbeLibraries; Run fills it
	// in, RunWith leaves it empty).
	Libraries []LoadedLibrary `json:"libraries"`
}

// Run checks the report that gfxcuda.Discover produced, the driver's files
// and the environment (ProbeHost), OpenGL on EGL (ProbeGL, CheckGL), and
// the ways processes and containers can share with each other
// (gfxcuda.ProbeRendezvous, CheckSharing), and says which files the
// libraries it loads came from (ProbeLibraries).
func Run(r *gfxcuda.DeviceReport) Result {
	res := RunWith(r, ProbeHost(ProbeOptions{}), ProbeGL(r))
	res.Checks = append(res.Checks, CheckSharing(gfxcuda.ProbeRendezvous())...)
	res.Libraries = ProbeLibraries()
	return onWindows(res)
}

// RunWith checks what the probes found: r from gfxcuda.Discover, h from
// ProbeHost and g from ProbeGL, which tests build themselves. A nil h
// leaves out the checks of the driver's files and the environment, a nil g
// those of OpenGL.
func RunWith(r *gfxcuda.DeviceReport, h *Host, g *GLReport) Result {
	res := runVulkanCUDA(r, h, g)
	if g != nil {
		res.Checks = append(res.Checks, CheckGL(g)...)
	}
	res.YouCanUse = youCanUse(r, g, res.OK)
	return res
}

// RunVulkanCUDA checks the report that gfxcuda.Discover produced: Vulkan,
// CUDA and interop between them, without probing anything.
func RunVulkanCUDA(r *gfxcuda.DeviceReport) Result {
	res := runVulkanCUDA(r, nil, nil)
	res.YouCanUse = youCanUse(r, nil, res.OK)
	return res
}

func runVulkanCUDA(r *gfxcuda.DeviceReport, h *Host, g *GLReport) Result {
	var res Result
	var env map[string]string
	if h != nil {
		env = h.Env
	}
	kernel := r.NVIDIA.KernelModule
	if kernel == "" && h != nil {
		kernel = h.KernelModule
	}
	ref := kernel
	if ref == "" {
		ref = r.NVIDIA.LibCUDA
	}
	glLibs := h.glVersions(ref)
	glSkew := false
	for _, l := range glLibs {
		if ref != "" && !sameRelease(l[1], ref) {
			glSkew = true
		}
	}
	add := func(name string, st Status, detail, fix string) {
		res.Checks = append(res.Checks, mk(name, st, detail, fix))
	}

	// Vulkan loader and drivers.
	switch {
	case errors.Is(r.VulkanErr, vulkan.ErrNoLoader):
		add("vulkan loader", Fail, "libvulkan.so.1 is not installed: "+r.VulkanErr.Error(),
			"sudo apt-get install libvulkan1")
	case errors.Is(r.VulkanErr, vulkan.ErrNoDevice) || (r.VulkanErr == nil && len(r.Vulkan) == 0):
		add("vulkan loader", Pass, "Vulkan "+r.VulkanVersion.String(), "")
		add("vulkan driver", Fail, "the Vulkan loader found no driver (ICD)",
			"install the NVIDIA driver's Vulkan ICD (nvidia_icd.json; on containers set VK_DRIVER_FILES=/usr/share/vulkan/icd.d/nvidia_icd.json or where the driver put it), or mesa-vulkan-drivers for software rendering")
	case r.VulkanErr != nil:
		add("vulkan", Fail, r.VulkanErr.Error(), "run `vulkaninfo --summary` to see what the loader reports")
	default:
		add("vulkan loader", Pass, "Vulkan "+r.VulkanVersion.String(), "")
		var hw, sw []string
		for _, d := range r.Vulkan {
			if d.IsSoftware() {
				sw = append(sw, d.Name)
			} else {
				hw = append(hw, d.Name)
			}
		}
		if len(hw) == 0 {
			add("vulkan driver", Fail, "only software rasterizers found ("+strings.Join(sw, ", ")+"): they run on the CPU and cannot share memory with CUDA",
				"install the NVIDIA driver's Vulkan ICD; if it is installed but not found, point the loader at it: export VK_DRIVER_FILES=/usr/share/vulkan/icd.d/nvidia_icd.json (containers: /usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json)")
		} else {
			add("vulkan driver", Pass, "hardware: "+strings.Join(hw, ", "), "")
		}
	}
	if r.VulkanErr == nil {
		if r.Validation {
			add("vulkan validation layer", Info, "installed (GFXCUDA_VALIDATION=1 switches it on)", "")
		} else {
			add("vulkan validation layer", Info, "not installed (only needed for debugging)", "sudo apt-get install vulkan-validationlayers")
		}
	}

	// CUDA.
	var nd *cuda.NoDriverError
	switch {
	case errors.As(r.CUDAErr, &nd):
		add("cuda driver", Fail, nd.Reason, nd.Fix)
	case r.CUDAErr != nil:
		add("cuda driver", Fail, r.CUDAErr.Error(), "check nvidia-smi; reinstall the NVIDIA driver")
	case len(r.CUDA) == 0:
		add("cuda driver", Fail, "CUDA "+r.CUDAVersion.String()+" driver sees no device", "check nvidia-smi and CUDA_VISIBLE_DEVICES")
	default:
		var names []string
		for _, d := range r.CUDA {
			names = append(names, fmt.Sprintf("%s (sm_%d%d)", d.Name, d.ComputeMajor, d.ComputeMinor))
		}
		add("cuda driver", Pass, "CUDA "+r.CUDAVersion.String()+": "+strings.Join(names, ", "), "")
		if r.CUDAVersion.Major < 12 {
			add("cuda driver version", Warn, "CUDA "+r.CUDAVersion.String()+" driver: gfxcuda is tested with CUDA 12 and 13 drivers", "install NVIDIA driver 525 or newer")
		}
	}

	// The driver's graphics part, and GPUs without graphics.
	res.Checks = append(res.Checks, checkGraphicsDriver(r, h, g, kernel)...)
	res.Checks = append(res.Checks, checkNoGraphics(r, h, glSkew)...)

	// Same GPU in both APIs.
	if len(r.Vulkan) > 0 && len(r.CUDA) > 0 {
		if len(r.Pairs) == 0 {
			var vu, cu []string
			for _, d := range r.Vulkan {
				vu = append(vu, d.Name+" "+cuda.UUID(d.DeviceUUID).String())
			}
			for _, d := range r.CUDA {
				cu = append(cu, d.Name+" "+d.UUIDString)
			}
			add("same GPU in Vulkan and CUDA", Fail,
				"no Vulkan device has the UUID of a CUDA device (Vulkan: "+strings.Join(vu, "; ")+"; CUDA: "+strings.Join(cu, "; ")+")",
				"make the NVIDIA Vulkan driver visible (VK_DRIVER_FILES) and check that CUDA_VISIBLE_DEVICES and MESA_VK_DEVICE_SELECT do not hide the GPU from one API")
		} else {
			for _, p := range r.Pairs {
				add("same GPU in Vulkan and CUDA", Pass, fmt.Sprintf("Vulkan device %d = CUDA device %d (%s, UUID %s)",
					p.Vulkan, r.CUDA[p.CUDA].Ordinal, r.CUDA[p.CUDA].Name, p.UUID), "")
			}
			if len(r.Pairs) < len(r.CUDA) {
				add("same GPU in Vulkan and CUDA", Warn, fmt.Sprintf("%d of %d CUDA devices have no Vulkan twin", len(r.CUDA)-len(r.Pairs), len(r.CUDA)),
					"check VK_DRIVER_FILES and that the NVIDIA ICD sees every GPU")
			}
		}
	}

	res.Checks = append(res.Checks, checkNumbering(r, env)...)

	// External memory and semaphores on each paired GPU.
	usable := 0
	for _, p := range r.Pairs {
		d := r.Vulkan[p.Vulkan]
		c := r.CUDA[p.CUDA]
		ok := true
		name := fmt.Sprintf("interop on %s", d.Name)
		if !d.CanExportOpaqueFD() || !d.CanImportOpaqueFD() {
			ok = false
			add(name+": external memory", Fail, "the Vulkan driver cannot export and import OPAQUE_FD memory (VK_KHR_external_memory_fd)",
				"update the NVIDIA driver; VK_KHR_external_memory_fd has been supported since driver 396")
		} else {
			add(name+": external memory", Pass, "Vulkan exports and imports OPAQUE_FD memory; CUDA imports it", "")
		}
		if !d.CanExportSemaphoreFD() {
			ok = false
			add(name+": external semaphores", Fail, "the Vulkan driver cannot export timeline semaphores as OPAQUE_FD (VK_KHR_external_semaphore_fd)",
				"update the NVIDIA driver (timeline semaphore export needs driver 450 or newer)")
		} else if !c.TimelineSemaphores {
			ok = false
			add(name+": external semaphores", Fail, "CUDA reports no timeline semaphore interop on this device",
				"update the NVIDIA driver (CUDA 11.2 or newer)")
		} else {
			add(name+": external semaphores", Pass, "timeline semaphores export from Vulkan and import into CUDA", "")
		}
		if !c.PosixFDHandles {
			add(name+": CUDA memory export", Warn, "CUDA cannot export its allocations as POSIX fds (cuMemCreate), so CUDA→Vulkan sharing is unavailable",
				"update the NVIDIA driver")
		}
		if ok {
			usable++
		}
	}

	// Driver component versions: the kernel module, libcuda, the Vulkan
	// driver and the GL/Vulkan libraries in the library search path.
	v := r.NVIDIA
	var parts []string
	versions := map[string]string{}
	for _, kv := range append([][2]string{{"kernel module", kernel}, {"libcuda", v.LibCUDA}, {"Vulkan driver", v.Vulkan}}, glLibs...) {
		if kv[1] != "" {
			parts = append(parts, kv[0]+" "+kv[1])
			versions[kv[0]] = kv[1]
		}
	}
	if len(versions) > 1 {
		skew := false
		var first string
		for _, ver := range versions {
			if first == "" {
				first = ver
			} else if !sameRelease(first, ver) {
				skew = true
			}
		}
		if skew {
			fix := "reinstall one driver release completely (kernel module and libraries), or reboot after an upgrade so the new kernel module loads"
			if glSkew {
				fix = "the GL/Vulkan libraries (libnvidia-gl) are not the kernel module's release: " + hostGLFix(ref) +
					"; in a container, use the host's driver (NVIDIA_DRIVER_CAPABILITIES=all mounts its libraries) instead of driver libraries installed in the image, or an image built for the host's driver; or " + fix
			}
			add("driver versions", Fail, "NVIDIA driver parts disagree: "+strings.Join(parts, ", "), fix)
		} else {
			add("driver versions", Pass, strings.Join(parts, ", "), "")
		}
	}

	res.OK = usable > 0
	if !res.OK {
		for _, c := range res.Checks {
			if c.Status == Fail {
				return res
			}
		}
		add("interop", Fail, "no GPU is usable from both Vulkan and CUDA", "see the checks above")
	}
	return res
}

// sameRelease compares driver versions by their first two numbers
// (580.159.04 and 580.159.4 are the same release).
func sameRelease(a, b string) bool {
	pa, pb := strings.Split(a, "."), strings.Split(b, ".")
	for i := 0; i < 2; i++ {
		if i >= len(pa) || i >= len(pb) {
			return len(pa) == len(pb)
		}
		if strings.TrimLeft(pa[i], "0") != strings.TrimLeft(pb[i], "0") {
			return false
		}
	}
	return true
}

// CheckSharing turns gfxcuda.ProbeRendezvous's findings into checks: which
// ways to reach an exporter in another process or container this machine
// allows (informational: they do not decide Result.OK).
func CheckSharing(rs []gfxcuda.RendezvousCheck) []Check {
	var out []Check
	for _, r := range rs {
		st := Pass
		if !r.OK {
			st = Info
		}
		name := map[gfxcuda.Rendezvous]string{gfxcuda.RendezvousAbstract: "share: abstract socket",
			gfxcuda.RendezvousFS: "share: filesystem socket", gfxcuda.RendezvousPidfd: "share: pidfd_getfd"}[r.Rendezvous]
		out = append(out, mk(name, st, r.Detail, r.Fix))
	}
	return out
}
