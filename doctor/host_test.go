package doctor

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gfxcuda/gfxcuda"
	"github.com/gfxcuda/gfxcuda/cuda"
	"github.com/gfxcuda/gfxcuda/internal/egl"
	"github.com/gfxcuda/gfxcuda/vulkan"
)

// The four situations' checks, by name.
const (
	numberingCheck = "gpu numbering"
	graphicsCheck  = "nvidia graphics driver"
	noGraphicsChk  = "graphics on the GPU"
	versionsCheck  = "driver versions"
)

// makeRoot builds a fake file system root: each entry is a file with that
// content, or, when the content starts with "->", a symbolic link to the
// rest.
func makeRoot(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for name, content := range files {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		var err error
		if target, ok := strings.CutPrefix(content, "->"); ok {
			err = os.Symlink(target, p)
		} else {
			err = os.WriteFile(p, []byte(content), 0o644)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// envOf is a fake environment of KEY=VALUE pairs.
func envOf(kv ...string) func(string) (string, bool) {
	m := map[string]string{}
	for _, s := range kv {
		k, v, _ := strings.Cut(s, "=")
		m[k] = v
	}
	return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
}

const (
	icdJSON     = `{"file_format_version": "1.0.1", "ICD": {"library_path": "libGLX_nvidia.so.0", "api_version": "1.4.312"}}`
	kernelLine  = "NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.95.05  Tue Sep 23 09:32:40 UTC 2025\nGCC version: gcc 12\n"
	multiarch   = "/usr/lib/x86_64-linux-gnu"
	nvidiaLib64 = "/usr/local/nvidia/lib64"
)

// driverFiles are the files of NVIDIA driver release ver in dir.
func driverFiles(dir, ver string) map[string]string {
	fs := map[string]string{}
	for _, l := range []string{"libcuda", "libGLX_nvidia", "libEGL_nvidia", "libnvidia-glcore", "libnvidia-eglcore"} {
		fs[dir+"/"+l+".so."+ver] = "ELF"
	}
	fs[dir+"/libcuda.so.1"] = "->libcuda.so." + ver
	fs[dir+"/libGLX_nvidia.so.0"] = "->libGLX_nvidia.so." + ver
	fs[dir+"/libEGL_nvidia.so.0"] = "->libEGL_nvidia.so." + ver
	return fs
}

// healthyFiles is a machine with driver 580.95.05 installed completely.
func healthyFiles() map[string]string {
	fs := driverFiles(multiarch, "580.95.05")
	fs["/etc/ld.so.conf"] = "include /etc/ld.so.conf.d/*.conf\n"
	fs["/etc/ld.so.conf.d/x86_64-linux-gnu.conf"] = "# Multiarch support\n/usr/local/lib/x86_64-linux-gnu\n" + multiarch + "\n"
	fs["/proc/driver/nvidia/version"] = kernelLine
	fs["/usr/share/vulkan/icd.d/nvidia_icd.json"] = icdJSON
	fs["/usr/share/glvnd/egl_vendor.d/10_nvidia.json"] = `{"ICD": {"library_path": "libEGL_nvidia.so.0"}}`
	return fs
}

var (
	uuidA = cuda.UUID{0xa0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}
	uuidB = cuda.UUID{0xb0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}
)

// nvidiaVK is a healthy NVIDIA Vulkan device (driver 580.95.05).
func nvidiaVK(index int, name string, u cuda.UUID) *vulkan.PhysicalDevice {
	return &vulkan.PhysicalDevice{Index: index, Name: name, Type: vulkan.DeviceTypeDiscrete, VendorID: 0x10de, DeviceID: 0x2330,
		DriverVersion: 580<<22 | 95<<14 | 5<<6, DriverName: "NVIDIA", DeviceUUID: u,
		QueueFamilies:     []vulkan.QueueFamily{{Count: 16, Graphics: true, Compute: true, Transfer: true}},
		MemoryHeaps:       []vulkan.MemoryHeap{{Size: 80 << 30, DeviceLocal: true}, {Size: 64 << 30}},
		ExternalMemory:    []vulkan.ExternalMemorySupport{{Handle: vulkan.OpaqueFD, Exportable: true, Importable: true}},
		ExternalSemaphore: []vulkan.ExternalSemaphoreSupport{{Handle: vulkan.OpaqueFD, Timeline: true, Exportable: true, Importable: true}}}
}

// lavapipe is Mesa's software Vulkan device.
func lavapipe(index int) *vulkan.PhysicalDevice {
	return &vulkan.PhysicalDevice{Index: index, Name: "llvmpipe (LLVM 15.0.6, 256 bits)", Type: vulkan.DeviceTypeCPU, VendorID: 0x10005,
		DriverName: "llvmpipe", DeviceUUID: [16]byte{0x6d, 0x65, 0x73, 0x61},
		QueueFamilies:  []vulkan.QueueFamily{{Count: 1, Graphics: true, Compute: true, Transfer: true}},
		MemoryHeaps:    []vulkan.MemoryHeap{{Size: 2 << 30, DeviceLocal: true}},
		ExternalMemory: []vulkan.ExternalMemorySupport{{Handle: vulkan.OpaqueFD, Exportable: true, Importable: true}}}
}

func cudaDev(ordinal int, name string, u cuda.UUID) cuda.DeviceInfo {
	return cuda.DeviceInfo{Ordinal: ordinal, Name: name, UUID: u, UUIDString: u.String(), ComputeMajor: 9,
		PosixFDHandles: true, TimelineSemaphores: true, VirtualMemory: true}
}

// report is what gfxcuda.Discover would find with these devices.
func report(vk []*vulkan.PhysicalDevice, cu ...cuda.DeviceInfo) *gfxcuda.DeviceReport {
	r := &gfxcuda.DeviceReport{VulkanVersion: vulkan.Version{Major: 1, Minor: 3, Patch: 239}, Vulkan: vk, Validation: true,
		CUDAVersion: cuda.Version{Major: 13, Minor: 0}, CUDA: cu}
	r.Pairs = gfxcuda.PairDevices(vk, cu)
	for _, d := range vk {
		if d.VendorID == 0x10de {
			r.NVIDIA.Vulkan = d.DriverVersionString()
		}
	}
	if len(cu) > 0 {
		r.NVIDIA.LibCUDA = "580.95.05"
	}
	return r
}

// healthyGL is NVIDIA's EGL on the CUDA GPU.
func healthyGL(cu []cuda.DeviceInfo) *GLReport {
	vendor := "/usr/share/glvnd/egl_vendor.d/10_nvidia.json"
	return &GLReport{Library: "libEGL.so.1", VendorFiles: []string{vendor}, NVIDIAVendorFile: vendor,
		ClientExtensions: "EGL_EXT_platform_base EGL_EXT_platform_device", Devices: []egl.DeviceInfo{{Description: "/dev/dri/card1", CUDADevice: 0}},
		Context: &egl.Info{Vendor: "NVIDIA Corporation", Renderer: "NVIDIA H100 80GB HBM3/PCIe/SSE2", Version: "4.6.0 NVIDIA 580.95.05",
			UUIDMatched: true, MatchedBy: "EGL_NV_device_cuda", CUDADevice: 0, MemoryObject: true, SemaphoreFD: true},
		CUDA: cu}
}

// has returns the checks whose name starts with name.
func has(res Result, name string) []Check {
	var out []Check
	for _, c := range res.Checks {
		if strings.HasPrefix(c.Name, name) {
			out = append(out, c)
		}
	}
	return out
}

func logChecks(t *testing.T, res Result) {
	t.Helper()
	for _, c := range res.Checks {
		t.Logf("[%-4s] %s: %s | fix: %s", c.Status, c.Name, c.Detail, c.Fix)
	}
}

// TestProbeHost reads a fake root: the kernel module's version, the
// libraries through ld.so.conf with their soname links followed, the ICD
// the loader reads and whether its library resolves, the container.
func TestProbeHost(t *testing.T) {
	fs := healthyFiles()
	fs["/.dockerenv"] = ""
	fs["/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json"] = icdJSON
	root := makeRoot(t, fs)
	h := ProbeHost(ProbeOptions{Root: root, LookupEnv: envOf("NVIDIA_DRIVER_CAPABILITIES=all", "CUDA_VISIBLE_DEVICES=")})
	if h.KernelModule != "580.95.05" || !strings.Contains(h.KernelLine, "Kernel Module") {
		t.Errorf("kernel module %q (%q)", h.KernelModule, h.KernelLine)
	}
	if h.Container != "docker" {
		t.Errorf("container %q", h.Container)
	}
	if v, ok := h.Env["CUDA_VISIBLE_DEVICES"]; !ok || v != "" {
		t.Errorf("CUDA_VISIBLE_DEVICES set to empty not recorded: %v", h.Env)
	}
	if _, ok := h.Env["HOME"]; ok {
		t.Errorf("real environment leaked into the fake one: %v", h.Env)
	}
	found := map[string]string{}
	for _, l := range h.Libraries {
		found[filepath.Base(l.Path)] = l.Version
	}
	for f, v := range map[string]string{"libGLX_nvidia.so.0": "580.95.05", "libnvidia-glcore.so.580.95.05": "580.95.05", "libcuda.so.1": "580.95.05"} {
		if found[f] != v {
			t.Errorf("%s: version %q, want %q (found %v)", f, found[f], v, found)
		}
	}
	var visible, hidden int
	for _, icd := range h.ICDs {
		switch {
		case icd.Path == "/usr/share/vulkan/icd.d/nvidia_icd.json" && icd.Visible && icd.Library == multiarch+"/libGLX_nvidia.so.0":
			visible++
		case icd.Path == "/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json" && !icd.Visible:
			hidden++
		}
	}
	if visible != 1 || hidden != 1 {
		t.Errorf("ICDs %+v", h.ICDs)
	}
	// VK_DRIVER_FILES replaces the standard directories.
	h = ProbeHost(ProbeOptions{Root: root, LookupEnv: envOf("VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json")})
	for _, icd := range h.ICDs {
		if icd.Visible != strings.HasPrefix(icd.Path, "/usr/local/nvidia/") {
			t.Errorf("with VK_DRIVER_FILES: %+v", icd)
		}
	}
	// /sys/module/nvidia/version when /proc has none.
	h = ProbeHost(ProbeOptions{Root: makeRoot(t, map[string]string{"/sys/module/nvidia/version": "575.57.08\n"}), LookupEnv: envOf()})
	if h.KernelModule != "575.57.08" || len(h.Libraries) != 0 || len(h.ICDs) != 0 {
		t.Errorf("%+v", h)
	}
}

// TestProbeHostReal reads this machine; it must not fail, and on a
// machine without the NVIDIA driver it finds none of its files.
func TestProbeHostReal(t *testing.T) {
	h := ProbeHost(ProbeOptions{})
	t.Logf("container %q, kernel module %q, libraries %+v, ICDs %+v", h.Container, h.KernelModule, h.Libraries, h.ICDs)
	if _, err := os.Stat("/proc/driver/nvidia/version"); err != nil && h.KernelModule != "" {
		if _, err := os.Stat("/sys/module/nvidia/version"); err != nil {
			t.Errorf("kernel module %q without the driver", h.KernelModule)
		}
	}
}

// TestHealthyNothingFires: a machine with one driver release installed
// completely, its ICD visible, CUDA_VISIBLE_DEVICES unset and no MIG (the
// GPU machine's configuration) passes every check, and none of the four
// situations' checks appears, also in a container set up as the GPU
// runner's (driver under /usr/local/nvidia, found through VK_DRIVER_FILES
// and LD_LIBRARY_PATH, an older driver's leftovers in the image, lavapipe
// installed next to the GPU).
func TestHealthyNothingFires(t *testing.T) {
	h100 := cudaDev(0, "NVIDIA H100 80GB HBM3", uuidA)
	container := healthyFiles()
	for f, c := range driverFiles(nvidiaLib64, "580.95.05") {
		container[f] = c
	}
	delete(container, "/usr/share/vulkan/icd.d/nvidia_icd.json")
	container["/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json"] = icdJSON
	container["/usr/share/vulkan/icd.d/lvp_icd.x86_64.json"] = `{"ICD": {"library_path": "/usr/lib/x86_64-linux-gnu/libvulkan_lvp.so"}}`
	container[multiarch+"/libnvidia-glcore.so.575.57.08"] = "old ELF"
	container[multiarch+"/libGLX_nvidia.so.0"] = "->libGLX_nvidia.so.575.57.08"
	container[multiarch+"/libGLX_nvidia.so.575.57.08"] = "old ELF"
	container["/.dockerenv"] = ""
	for _, c := range []struct {
		name  string
		files map[string]string
		env   []string
		vk    []*vulkan.PhysicalDevice
	}{
		{"host", healthyFiles(), nil, []*vulkan.PhysicalDevice{nvidiaVK(0, h100.Name, uuidA)}},
		{"container", container, []string{"NVIDIA_VISIBLE_DEVICES=all", "NVIDIA_DRIVER_CAPABILITIES=compute,utility,graphics",
			"VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json", "LD_LIBRARY_PATH=" + nvidiaLib64, "GFXCUDA_VALIDATION=1"},
			[]*vulkan.PhysicalDevice{nvidiaVK(0, h100.Name, uuidA), lavapipe(1)}},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := ProbeHost(ProbeOptions{Root: makeRoot(t, c.files), LookupEnv: envOf(c.env...)})
			r := report(c.vk, h100)
			res := RunWith(r, h, healthyGL(r.CUDA))
			logChecks(t, res)
			if !res.OK {
				t.Error("interop not possible")
			}
			for _, ck := range res.Checks {
				if ck.Status == Warn || ck.Status == Fail {
					t.Errorf("%s: %s: %s", ck.State, ck.Name, ck.Detail)
				}
			}
			for _, n := range []string{numberingCheck, graphicsCheck, noGraphicsChk} {
				if cs := has(res, n); len(cs) > 0 {
					t.Errorf("%s fired: %+v", n, cs)
				}
			}
			v := find(t, res, versionsCheck)
			if v.Status != Pass || !strings.Contains(v.Detail, "libGLX_nvidia 580.95.05") || !strings.Contains(v.Detail, "kernel module 580.95.05") {
				t.Errorf("%+v", v)
			}
			if !strings.Contains(useText(res), "zero-copy Vulkan↔CUDA") {
				t.Errorf("you can use: %+v", res.YouCanUse)
			}
		})
	}
}

func useText(res Result) string {
	b, _ := json.Marshal(res.YouCanUse)
	return string(b)
}

// TestCUDAVisibleDevices: CUDA_VISIBLE_DEVICES renumbers CUDA's GPUs only
// (SimplerEnv#73, LichtFeld-Studio#1315). With two GPUs and
// CUDA_VISIBLE_DEVICES=1, CUDA device 0 is Vulkan device 1: doctor warns
// that compute.Open's default is the other GPU and names the
// GFXCUDA_DEVICE that fixes it; with CUDA_VISIBLE_DEVICES=1,0 gfxcuda.Open's
// default pair is not CUDA device 0; with one GPU it explains the variable.
func TestCUDAVisibleDevices(t *testing.T) {
	a, b := nvidiaVK(0, "NVIDIA RTX A6000", uuidA), nvidiaVK(1, "NVIDIA RTX A6000", uuidB)
	root := makeRoot(t, healthyFiles())

	// CUDA_VISIBLE_DEVICES=1: CUDA sees B only, as device 0.
	r := report([]*vulkan.PhysicalDevice{a, b}, cudaDev(0, "NVIDIA RTX A6000", uuidB))
	res := RunWith(r, ProbeHost(ProbeOptions{Root: root, LookupEnv: envOf("CUDA_VISIBLE_DEVICES=1")}), nil)
	logChecks(t, res)
	c := find(t, res, numberingCheck)
	if c.Status != Warn || !strings.Contains(c.Detail, "Vulkan device 0") || !strings.Contains(c.Detail, "by UUID") ||
		!strings.Contains(c.Detail, `CUDA_VISIBLE_DEVICES="1"`) || !strings.Contains(c.Fix, "GFXCUDA_DEVICE=GPU-"+uuidB.String()) || !strings.Contains(c.Fix, "set_current_device(1)") {
		t.Errorf("%+v", c)
	}
	if !res.OK {
		t.Error("interop pairs by UUID and must still be possible")
	}
	// GFXCUDA_DEVICE naming CUDA device 0's GPU settles it: only the explanation remains.
	res = RunWith(r, ProbeHost(ProbeOptions{Root: root, LookupEnv: envOf("CUDA_VISIBLE_DEVICES=1", "GFXCUDA_DEVICE="+uuidB.String())}), nil)
	if c := find(t, res, numberingCheck); c.Status != Info || !strings.Contains(c.Detail, "same GPU") {
		t.Errorf("with GFXCUDA_DEVICE: %+v", c)
	}
	// A GFXCUDA_DEVICE that names nothing.
	res = RunWith(r, ProbeHost(ProbeOptions{Root: root, LookupEnv: envOf("GFXCUDA_DEVICE=7")}), nil)
	if c := find(t, res, numberingCheck); c.Status != Warn || !strings.Contains(c.Detail, `GFXCUDA_DEVICE="7"`) {
		t.Errorf("GFXCUDA_DEVICE=7: %+v", c)
	}

	// CUDA_VISIBLE_DEVICES=1,0: CUDA device 0 is B, gfxcuda.Open's first pair is A.
	r = report([]*vulkan.PhysicalDevice{a, b}, cudaDev(0, "NVIDIA RTX A6000", uuidB), cudaDev(1, "NVIDIA RTX A6000", uuidA))
	res = RunWith(r, ProbeHost(ProbeOptions{Root: root, LookupEnv: envOf("CUDA_VISIBLE_DEVICES=1,0")}), nil)
	c = find(t, res, numberingCheck)
	if c.Status != Warn || !strings.Contains(c.Detail, "gfxcuda.Open uses Vulkan device 0 = CUDA device 1") || !strings.Contains(c.Fix, "gfxcuda.Options{UUID") {
		t.Errorf("%+v", c)
	}
	// The same order without the variable (CUDA's fastest-first order): still a warning.
	res = RunWith(r, ProbeHost(ProbeOptions{Root: root, LookupEnv: envOf()}), nil)
	if c := find(t, res, numberingCheck); c.Status != Warn || !strings.Contains(c.Fix, "CUDA_DEVICE_ORDER=PCI_BUS_ID") {
		t.Errorf("%+v", c)
	}

	// One GPU, CUDA_VISIBLE_DEVICES=0: nothing wrong, the variable explained.
	r = report([]*vulkan.PhysicalDevice{a}, cudaDev(0, "NVIDIA RTX A6000", uuidA))
	res = RunWith(r, ProbeHost(ProbeOptions{Root: root, LookupEnv: envOf("CUDA_VISIBLE_DEVICES=0")}), nil)
	if c := find(t, res, numberingCheck); c.Status != Info || !strings.Contains(c.Detail, "CUDA only") || !strings.Contains(c.Fix, "GFXCUDA_DEVICE") {
		t.Errorf("%+v", c)
	}
	// CUDA_VISIBLE_DEVICES hiding every GPU.
	r = report([]*vulkan.PhysicalDevice{a})
	r.CUDAErr = &cuda.NoDriverError{Reason: "cuInit failed: CUDA_ERROR_NO_DEVICE", Err: cuda.ErrorNoDevice}
	res = RunWith(r, ProbeHost(ProbeOptions{Root: root, LookupEnv: envOf("CUDA_VISIBLE_DEVICES=")}), nil)
	if c := find(t, res, numberingCheck); c.Status != Warn || !strings.Contains(c.Detail, "leaves CUDA no GPU") {
		t.Errorf("%+v", c)
	}
}

// TestContainerWithoutGraphics: a container started without the graphics
// capability has libcuda but no Vulkan ICD, libGLX_nvidia or
// libEGL_nvidia: CUDA works, Vulkan sees lavapipe only. doctor names the
// capability and how to grant it in docker, podman and Kubernetes.
func TestContainerWithoutGraphics(t *testing.T) {
	fs := map[string]string{
		"/.dockerenv":                                 "",
		"/etc/ld.so.conf":                             multiarch + "\n",
		"/proc/driver/nvidia/version":                 kernelLine,
		multiarch + "/libcuda.so.1":                   "->libcuda.so.580.95.05",
		multiarch + "/libcuda.so.580.95.05":           "ELF",
		"/usr/share/vulkan/icd.d/lvp_icd.x86_64.json": `{"ICD": {"library_path": "/usr/lib/x86_64-linux-gnu/libvulkan_lvp.so"}}`,
	}
	r := report([]*vulkan.PhysicalDevice{lavapipe(0)}, cudaDev(0, "NVIDIA H100 80GB HBM3", uuidA))
	h := ProbeHost(ProbeOptions{Root: makeRoot(t, fs), LookupEnv: envOf("NVIDIA_VISIBLE_DEVICES=all", "NVIDIA_DRIVER_CAPABILITIES=compute,utility")})
	res := RunWith(r, h, nil)
	logChecks(t, res)
	c := find(t, res, graphicsCheck)
	for _, want := range []string{"no NVIDIA Vulkan ICD", "no libGLX_nvidia.so.0", "no libEGL_nvidia.so.0", `NVIDIA_DRIVER_CAPABILITIES="compute,utility" has no graphics`, "docker container"} {
		if !strings.Contains(c.Detail, want) {
			t.Errorf("detail lacks %q: %+v", want, c)
		}
	}
	for _, want := range []string{"--gpus all -e NVIDIA_DRIVER_CAPABILITIES=all", "compute,utility,graphics", "podman", "Kubernetes"} {
		if !strings.Contains(c.Fix, want) {
			t.Errorf("fix lacks %q: %+v", want, c)
		}
	}
	if c.Status != Fail || res.OK {
		t.Errorf("%+v, ok %v", c, res.OK)
	}
	if cs := has(res, noGraphicsChk); len(cs) > 0 {
		t.Errorf("a missing graphics driver taken for a GPU without graphics: %+v", cs)
	}

	// The image ships its own nvidia_icd.json: it names a library that is not there.
	fs["/usr/share/vulkan/icd.d/nvidia_icd.json"] = icdJSON
	h = ProbeHost(ProbeOptions{Root: makeRoot(t, fs), LookupEnv: envOf("NVIDIA_VISIBLE_DEVICES=all")})
	c = find(t, RunWith(r, h, nil), graphicsCheck)
	if c.Status != Fail || !strings.Contains(c.Detail, "names libGLX_nvidia.so.0, which is not in the library search path") ||
		!strings.Contains(c.Detail, "NVIDIA_DRIVER_CAPABILITIES is unset") || !strings.Contains(c.Fix, "NVIDIA_DRIVER_CAPABILITIES=all") {
		t.Errorf("%+v", c)
	}

	// The driver's ICD mounted where the loader does not look.
	delete(fs, "/usr/share/vulkan/icd.d/nvidia_icd.json")
	for f, c := range driverFiles(nvidiaLib64, "580.95.05") {
		fs[f] = c
	}
	fs["/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json"] = icdJSON
	h = ProbeHost(ProbeOptions{Root: makeRoot(t, fs), LookupEnv: envOf("NVIDIA_DRIVER_CAPABILITIES=all", "LD_LIBRARY_PATH="+nvidiaLib64)})
	c = find(t, RunWith(r, h, nil), graphicsCheck)
	if c.Status != Fail || c.Fix != "export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json" {
		t.Errorf("%+v", c)
	}

	// Vulkan works (an ICD in the image) but EGL cannot, for lack of the capability.
	fs = healthyFiles()
	fs["/.dockerenv"] = ""
	for _, f := range []string{"/libEGL_nvidia.so.0", "/libEGL_nvidia.so.580.95.05"} {
		delete(fs, multiarch+f)
	}
	h = ProbeHost(ProbeOptions{Root: makeRoot(t, fs), LookupEnv: envOf("NVIDIA_DRIVER_CAPABILITIES=compute,utility")})
	r = report([]*vulkan.PhysicalDevice{nvidiaVK(0, "NVIDIA H100 80GB HBM3", uuidA)}, cudaDev(0, "NVIDIA H100 80GB HBM3", uuidA))
	res = RunWith(r, h, nil)
	if c := find(t, res, graphicsCheck); c.Status != Warn || !strings.Contains(c.Detail, "libEGL_nvidia.so.0 is missing") || !res.OK {
		t.Errorf("%+v", c)
	}
	// ... unless EGL runs on the CUDA GPU all the same (its library found elsewhere).
	if cs := has(RunWith(r, h, healthyGL(r.CUDA)), graphicsCheck); len(cs) > 0 {
		t.Errorf("warned although EGL runs on the GPU: %+v", cs)
	}
}

// TestGLLibrariesFromAnotherRelease: the GL/Vulkan user-space driver
// (libnvidia-gl) of another release than the kernel module (SAPIEN#250):
// the NVIDIA ICD loads but lists no GPU. The driver versions check names
// the libraries and the package to install.
func TestGLLibrariesFromAnotherRelease(t *testing.T) {
	fs := driverFiles(multiarch, "575.57.08")
	delete(fs, multiarch+"/libcuda.so.575.57.08")
	fs[multiarch+"/libcuda.so.1"] = "->libcuda.so.580.95.05"
	fs[multiarch+"/libcuda.so.580.95.05"] = "ELF"
	fs["/etc/ld.so.conf"] = multiarch + "\n"
	fs["/sys/module/nvidia/version"] = "580.95.05\n"
	fs["/usr/share/vulkan/icd.d/nvidia_icd.json"] = icdJSON
	r := report([]*vulkan.PhysicalDevice{lavapipe(0)}, cudaDev(0, "NVIDIA H100 80GB HBM3", uuidA))
	res := RunWith(r, ProbeHost(ProbeOptions{Root: makeRoot(t, fs), LookupEnv: envOf()}), nil)
	logChecks(t, res)
	c := find(t, res, versionsCheck)
	if c.Status != Fail || !strings.Contains(c.Detail, "kernel module 580.95.05") || !strings.Contains(c.Detail, "libGLX_nvidia 575.57.08") ||
		!strings.Contains(c.Detail, "libnvidia-glcore 575.57.08") || !strings.Contains(c.Fix, "libnvidia-gl-580") || !strings.Contains(c.Fix, "container") {
		t.Errorf("%+v", c)
	}
	for _, n := range []string{graphicsCheck, noGraphicsChk} {
		if cs := has(res, n); len(cs) > 0 {
			t.Errorf("%s fired for a version skew: %+v", n, cs)
		}
	}
	// Without the GL libraries the parts agree (the check as before).
	r2 := report([]*vulkan.PhysicalDevice{nvidiaVK(0, "NVIDIA H100 80GB HBM3", uuidA)}, cudaDev(0, "NVIDIA H100 80GB HBM3", uuidA))
	r2.NVIDIA.KernelModule = "580.95.05"
	if c := find(t, RunVulkanCUDA(r2), versionsCheck); c.Status != Pass {
		t.Errorf("%+v", c)
	}
}

// TestGPUWithoutGraphics: MIG instances (SAPIEN#290 on an H100) and
// compute-only vGPU profiles have no graphics: CUDA sees them, Vulkan does
// not. doctor says so and what to use instead; so it does when the NVIDIA
// ICD loads but lists no GPU.
func TestGPUWithoutGraphics(t *testing.T) {
	root := makeRoot(t, healthyFiles())
	migUUID := cuda.UUID{0x3c, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}
	mig := cudaDev(0, "NVIDIA H100 80GB HBM3 MIG 1g.10gb", migUUID)
	// Vulkan lists nothing of NVIDIA's.
	r := report([]*vulkan.PhysicalDevice{lavapipe(0)}, mig)
	res := RunWith(r, ProbeHost(ProbeOptions{Root: root, LookupEnv: envOf()}), nil)
	logChecks(t, res)
	c := find(t, res, noGraphicsChk)
	if c.Status != Fail || !strings.Contains(c.Detail, "MIG instance") || !strings.Contains(c.Detail, "no graphics") ||
		!strings.Contains(c.Fix, "-mig 0") || !strings.Contains(c.Fix, "CUDA alone") {
		t.Errorf("%+v", c)
	}
	if cs := has(res, graphicsCheck); len(cs) > 0 {
		t.Errorf("container fix offered for MIG: %+v", cs)
	}
	// Picked by MIG UUID in CUDA_VISIBLE_DEVICES; Vulkan lists the whole GPU, another UUID.
	plain := cudaDev(0, "NVIDIA H100 80GB HBM3", migUUID)
	r = report([]*vulkan.PhysicalDevice{nvidiaVK(0, "NVIDIA H100 80GB HBM3", uuidA)}, plain)
	res = RunWith(r, ProbeHost(ProbeOptions{Root: root, LookupEnv: envOf("CUDA_VISIBLE_DEVICES=MIG-3c010203-0405-0607-0809-0a0b0c0d0e0f")}), nil)
	if c := find(t, res, noGraphicsChk); c.Status != Fail || !strings.Contains(c.Detail, "CUDA_VISIBLE_DEVICES=MIG-") {
		t.Errorf("%+v", c)
	}
	// A compute-only vGPU profile.
	r = report([]*vulkan.PhysicalDevice{lavapipe(0)}, cudaDev(0, "NVIDIA A100-40C", uuidA))
	res = RunWith(r, ProbeHost(ProbeOptions{Root: root, LookupEnv: envOf()}), nil)
	if c := find(t, res, noGraphicsChk); c.Status != Fail || !strings.Contains(c.Detail, "vGPU") || !strings.Contains(c.Fix, "Q-series") {
		t.Errorf("%+v", c)
	}
	// The ICD loads (versions agree) but lists no GPU.
	r = report([]*vulkan.PhysicalDevice{lavapipe(0)}, cudaDev(0, "NVIDIA H100 80GB HBM3", uuidA))
	res = RunWith(r, ProbeHost(ProbeOptions{Root: root, LookupEnv: envOf()}), nil)
	if c := find(t, res, noGraphicsChk); c.Status != Fail || !strings.Contains(c.Detail, "loads but lists no GPU") || !strings.Contains(c.Fix, "vulkaninfo") {
		t.Errorf("%+v", c)
	}
	// Without the probes, MIG is still recognised from the device name.
	if c := find(t, RunVulkanCUDA(report(nil, mig)), noGraphicsChk); c.Status != Fail {
		t.Errorf("%+v", c)
	}
}

// TestYouCanUseCPU: on a CPU machine (lavapipe, llvmpipe, no CUDA) doctor
// lists compute shaders, the Python API, sharing between processes and
// OpenGL, each with something to try, and nothing of CUDA's.
func TestYouCanUseCPU(t *testing.T) {
	r := report([]*vulkan.PhysicalDevice{lavapipe(0)})
	r.CUDAErr = &cuda.NoDriverError{Reason: "libcuda.so.1 not found"}
	g := &GLReport{Library: "libEGL.so.1", VendorFiles: []string{"/usr/share/glvnd/egl_vendor.d/50_mesa.json"}, ClientExtensions: "EGL_EXT_platform_device",
		Context: &egl.Info{Renderer: "llvmpipe (LLVM 15.0.6, 256 bits)", Version: "4.5 (Core Profile) Mesa 22.3.6", MemoryObject: true}}
	res := RunWith(r, ProbeHost(ProbeOptions{Root: t.TempDir(), LookupEnv: envOf()}), g)
	if res.OK {
		t.Fatal("interop possible without CUDA")
	}
	text := useText(res)
	t.Log(text)
	for _, want := range []string{"compute shaders", "gfxcuda run", "compute.Open", "import gfxcuda as compushady", "gfxcuda bench --only compute",
		"gfxcuda share", "gfxcuda open TOKEN", "OpenGL on headless EGL", "gl.Open", "GL_EXT_memory_object_fd", "on the CPU", "gfxcuda demo"} {
		if !strings.Contains(text, want) {
			t.Errorf("you can use lacks %q", want)
		}
	}
	for _, not := range []string{"CUDA 13", "zero-copy Vulkan↔CUDA", "--cuda"} {
		if strings.Contains(text, not) {
			t.Errorf("you can use offers %q without CUDA", not)
		}
	}
	for _, u := range res.YouCanUse {
		if u.What == "" || u.Try == "" {
			t.Errorf("%+v", u)
		}
	}
	// JSON: snake_case keys, an empty list rather than null.
	b, _ := json.Marshal(RunWith(&gfxcuda.DeviceReport{VulkanErr: vulkan.ErrNoLoader, CUDAErr: r.CUDAErr}, nil, nil))
	if !strings.Contains(string(b), `"you_can_use":[]`) {
		t.Errorf("%s", b)
	}
	b, _ = json.Marshal(res)
	if !strings.Contains(string(b), `"you_can_use":[{"what":"compute shaders`) {
		t.Errorf("%s", b)
	}
}
