package doctor

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/gfxcuda/gfxcuda"
	"github.com/gfxcuda/gfxcuda/cuda"
	"github.com/gfxcuda/gfxcuda/internal/egl"
)

func findGL(t *testing.T, cs []Check, name string) Check {
	t.Helper()
	return find(t, Result{Checks: cs}, name)
}

// fakeH100 is a CUDA device that no EGL device on any machine matches: not
// by UUID, and not by ordinal either (EGL_NV_device_cuda, on NVIDIA's EGL,
// reports each device's real CUDA ordinal; ordinal 0 would match the first
// GPU of a GPU machine).
var fakeH100 = cuda.DeviceInfo{Ordinal: 99, Name: "NVIDIA H100 80GB HBM3", UUID: cuda.UUID{0xde, 0xad, 0xbe, 0xef, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12},
	UUIDString: "GPU-deadbeef-0102-0304-0506-0708090a0b0c"}

// child runs this test binary's test name with extra environment and
// returns the GL checks it printed as JSON.
func child(t *testing.T, name string, env ...string) []Check {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^"+name+"$", "-test.v")
	cmd.Env = append(os.Environ(), append(env, "GFXCUDA_DOCTOR_CHILD=1")...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	for _, line := range strings.Split(string(out), "\n") {
		if j, ok := strings.CutPrefix(line, "CHECKS "); ok {
			var cs []Check
			if err := json.Unmarshal([]byte(j), &cs); err != nil {
				t.Fatal(err)
			}
			return cs
		}
	}
	t.Fatalf("child printed no checks:\n%s", out)
	return nil
}

// TestGLChild is run by the tests below in a child process (libEGL loads
// once per process, so each condition gets its own).
func TestGLChild(t *testing.T) {
	if os.Getenv("GFXCUDA_DOCTOR_CHILD") != "1" {
		t.Skip("run by the GL doctor tests")
	}
	r := &gfxcuda.DeviceReport{}
	if os.Getenv("GFXCUDA_DOCTOR_FAKE_CUDA") == "1" {
		r.CUDA = []cuda.DeviceInfo{fakeH100}
	}
	b, _ := json.Marshal(CheckGL(ProbeGL(r)))
	fmt.Printf("CHECKS %s\n", b)
}

func needEGL(t *testing.T) {
	if err := egl.Load(); err != nil {
		if os.Getenv("GFXCUDA_REQUIRE_GL") == "1" {
			t.Fatalf("GFXCUDA_REQUIRE_GL=1: %v", err)
		}
		t.Skipf("no EGL: %v", err)
	}
}

// TestGLNoLibrary: libEGL missing (for real, in a child process).
func TestGLNoLibrary(t *testing.T) {
	cs := child(t, "TestGLChild", "GFXCUDA_LIBEGL=/nonexistent/libEGL.so.1")
	c := findGL(t, cs, "gl: egl library")
	if c.State != "warn" || !strings.Contains(c.Fix, "apt-get install libegl1") || !strings.Contains(c.Detail, "libEGL.so.1 not found") {
		t.Fatalf("%+v", c)
	}
	if len(cs) != 1 {
		t.Fatalf("more checks after a missing libEGL: %+v", cs)
	}
}

// TestGLVendorFileMissing: __EGL_VENDOR_LIBRARY_FILENAMES naming no file,
// and glvnd finding no vendor file at all (both for real).
func TestGLVendorFileMissing(t *testing.T) {
	needEGL(t)
	cs := child(t, "TestGLChild", "__EGL_VENDOR_LIBRARY_FILENAMES=/nonexistent/10_nvidia.json")
	if c := findGL(t, cs, "gl: egl vendor files"); c.State != "warn" || !strings.Contains(c.Detail, "/nonexistent/10_nvidia.json") {
		t.Fatalf("%+v", c)
	}
	if c := findGL(t, cs, "gl: context"); c.State != "warn" || !strings.Contains(c.Fix, "__EGL_VENDOR_LIBRARY_FILENAMES") {
		t.Fatalf("%+v", c)
	}
	empty := t.TempDir()
	cs = child(t, "TestGLChild", "__EGL_VENDOR_LIBRARY_FILENAMES=", "__EGL_VENDOR_LIBRARY_DIRS="+empty, "GFXCUDA_DOCTOR_FAKE_CUDA=1")
	c := findGL(t, cs, "gl: egl vendor files")
	if c.State != "warn" || !strings.Contains(c.Detail, "no EGL vendor file") || !strings.Contains(c.Fix, "10_nvidia.json") {
		t.Fatalf("%+v", c)
	}
	t.Logf("%s → %s", c.Detail, c.Fix)
}

// TestGLWrongDevice: a CUDA GPU that no EGL device is (real probe, CUDA
// device injected): GL runs on llvmpipe, and doctor says how to get
// NVIDIA's EGL.
func TestGLWrongDevice(t *testing.T) {
	needEGL(t)
	cs := child(t, "TestGLChild", "GFXCUDA_DOCTOR_FAKE_CUDA=1")
	c := findGL(t, cs, "gl: same GPU as CUDA")
	if c.State != "warn" || !strings.Contains(c.Detail, "not the CUDA device") || c.Fix == "" {
		t.Fatalf("%+v", c)
	}
	software := strings.Contains(c.Detail, "llvmpipe")
	if software && !strings.Contains(c.Fix, "__EGL_VENDOR_LIBRARY_FILENAMES=") {
		t.Fatalf("%+v", c)
	}
	// On a GPU machine GL runs on the GPU, which still is not the injected
	// device: the fix points at the device list instead.
	if !software && !strings.Contains(c.Fix, "CUDA_VISIBLE_DEVICES") {
		t.Fatalf("%+v", c)
	}
	if os.Getenv("GFXCUDA_REQUIRE_HARDWARE") == "1" && software {
		t.Fatalf("GFXCUDA_REQUIRE_HARDWARE=1 but GL runs on llvmpipe: %+v", c)
	}
	// No EGL device is the injected GPU either: doctor says so, by name.
	if e := findGL(t, cs, "gl: egl device index"); e.State != "warn" || !strings.Contains(e.Detail, "CUDA 99 (NVIDIA H100 80GB HBM3, GPU-deadbeef-") ||
		!strings.Contains(e.Detail, ": no EGL device") || e.Fix == "" {
		t.Fatalf("%+v", e)
	}
	// Mesa's vendor file only, with CUDA present: the NVIDIA one is missing.
	if v := findGL(t, cs, "gl: egl vendor files"); software && (v.State != "warn" || !strings.Contains(v.Detail, "no NVIDIA EGL vendor file")) {
		t.Fatalf("%+v", v)
	}
}

// TestGLNVIDIAVendorElsewhere: the NVIDIA vendor file exists where glvnd
// does not look (containers): the fix names it.
func TestGLNVIDIAVendorElsewhere(t *testing.T) {
	g := &GLReport{Library: "libEGL.so.1", VendorFiles: []string{"/usr/share/glvnd/egl_vendor.d/50_mesa.json"},
		NVIDIAVendorFile: "/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json", CUDA: []cuda.DeviceInfo{fakeH100},
		ContextErr: fmt.Errorf("egl: no headless context")}
	cs := CheckGL(g)
	c := findGL(t, cs, "gl: egl vendor files")
	if c.State != "warn" || c.Fix != "export __EGL_VENDOR_LIBRARY_FILENAMES=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json" {
		t.Fatalf("%+v", c)
	}
	if c := findGL(t, cs, "gl: headless platforms"); c.State != "warn" {
		t.Fatalf("no platforms: %+v", c)
	}
}

// TestGLMissingExtensions: a hardware GL driver without the memory object
// and semaphore extensions (injected) is warned about, with the fix.
func TestGLMissingExtensions(t *testing.T) {
	in := egl.Info{Renderer: "Some GPU/PCIe", Vendor: "X", Version: "4.6", UUIDMatched: true, MatchedBy: "EGL_NV_device_cuda"}
	g := &GLReport{Library: "libEGL.so.1", VendorFiles: []string{"/usr/share/glvnd/egl_vendor.d/10_nvidia.json"},
		ClientExtensions: "EGL_EXT_platform_device", Context: &in, CUDA: []cuda.DeviceInfo{fakeH100}}
	cs := CheckGL(g)
	if c := findGL(t, cs, "gl: vulkan memory import"); c.State != "warn" || !strings.Contains(c.Detail, "GL_EXT_memory_object_fd") || c.Fix == "" {
		t.Fatalf("%+v", c)
	}
	if c := findGL(t, cs, "gl: semaphores"); c.State != "warn" || c.Fix == "" {
		t.Fatalf("%+v", c)
	}
	if c := findGL(t, cs, "gl: same GPU as CUDA"); c.State != "ok" || !strings.Contains(c.Detail, "EGL_NV_device_cuda") {
		t.Fatalf("%+v", c)
	}
	if c := findGL(t, cs, "gl: egl vendor files"); c.State != "ok" {
		t.Fatalf("%+v", c)
	}
}

// TestGLRealMachine probes this machine: on the CPU machine llvmpipe on
// both platforms with memory import and no semaphores; on the GPU machine
// the H100 matched to CUDA.
func TestGLRealMachine(t *testing.T) {
	needEGL(t)
	r := gfxcuda.DiscoverDevices()
	cs := CheckGL(ProbeGL(r))
	for _, c := range cs {
		t.Logf("%-28s %-5s %s %s", c.Name, c.State, c.Detail, c.Fix)
	}
	if c := findGL(t, cs, "gl: context"); c.State != "ok" {
		t.Fatalf("%+v", c)
	}
	if c := findGL(t, cs, "gl: vulkan memory import"); c.State != "ok" {
		t.Fatalf("%+v", c)
	}
	if len(r.CUDA) > 0 {
		if c := findGL(t, cs, "gl: same GPU as CUDA"); c.State != "ok" {
			t.Fatalf("%+v", c)
		}
	}
}

func randomCUDA(r *rand.Rand, ordinal int) cuda.DeviceInfo {
	var u cuda.UUID
	for i := range u {
		u[i] = byte(r.UintN(256))
	}
	return cuda.DeviceInfo{Ordinal: ordinal, Name: fmt.Sprintf("NVIDIA H100 #%d", ordinal), UUID: u, UUIDString: u.String()}
}

// TestGLEGLIndex: doctor names each CUDA device's EGL device index (by
// UUID, else by EGL_NV_device_cuda for a device without one; a UUID of
// another GPU wins over a CUDA ordinal), or why there is none, with the fix.
func TestGLEGLIndex(t *testing.T) {
	r := rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64()))
	c0, c1 := randomCUDA(r, 0), randomCUDA(r, 1)
	other := [16]byte(randomCUDA(r, 7).UUID)
	u1 := [16]byte(c1.UUID)
	base := GLReport{Library: "libEGL.so.1", VendorFiles: []string{"/usr/share/glvnd/egl_vendor.d/10_nvidia.json"},
		ClientExtensions: "EGL_EXT_platform_device EGL_MESA_platform_surfaceless", ContextErr: errors.New("egl: not made in this test")}

	// Both found: CUDA 1 by UUID at EGL 0, CUDA 0 by EGL_NV_device_cuda
	// at EGL 2 (EGL 1 says CUDA 0 too, but its UUID is another GPU's).
	g := base
	g.CUDA = []cuda.DeviceInfo{c0, c1}
	g.Devices = []egl.DeviceInfo{{Description: "/dev/dri/renderD128", UUID: &u1, CUDADevice: 1},
		{Description: "/dev/dri/renderD129", UUID: &other, CUDADevice: 0}, {Description: "/dev/dri/renderD130", CUDADevice: 0}}
	c := findGL(t, CheckGL(&g), "gl: egl device index")
	t.Logf("%s: %s", c.State, c.Detail)
	for _, want := range []string{"CUDA 0 = EGL device 2 (/dev/dri/renderD130, by EGL_NV_device_cuda): set MUJOCO_EGL_DEVICE_ID=2 / EGL_DEVICE_ID=2",
		"CUDA 1 = EGL device 0 (/dev/dri/renderD128, by UUID): set MUJOCO_EGL_DEVICE_ID=0 / EGL_DEVICE_ID=0"} {
		if c.State != "ok" || !strings.Contains(c.Detail, want) || c.Fix != "" {
			t.Errorf("want ok with %q: %+v", want, c)
		}
	}

	// Mesa's software device only: no EGL device is the GPU, and the fix
	// is NVIDIA's EGL.
	g.Devices = []egl.DeviceInfo{{Description: "software", CUDADevice: -1}}
	c = findGL(t, CheckGL(&g), "gl: egl device index")
	t.Logf("%s: %s → %s", c.State, c.Detail, c.Fix)
	if c.State != "warn" || !strings.Contains(c.Detail, "CUDA 0 ("+c0.Name+", "+c0.UUIDString+"): no EGL device") ||
		!strings.Contains(c.Detail, "CUDA 1 (") || !strings.Contains(c.Detail, "EGL's devices: 0 software") ||
		!strings.Contains(c.Fix, "__EGL_VENDOR_LIBRARY_FILENAMES=") || strings.Contains(c.Detail, "MUJOCO_EGL_DEVICE_ID") {
		t.Errorf("%+v", c)
	}

	// NVIDIA's EGL lists CUDA 1's GPU but not CUDA 0's (a MIG instance).
	g.Devices = []egl.DeviceInfo{{Description: "/dev/dri/renderD128", UUID: &u1, CUDADevice: 1}}
	c = findGL(t, CheckGL(&g), "gl: egl device index")
	if c.State != "warn" || !strings.Contains(c.Detail, "CUDA 1 = EGL device 0 ") || !strings.Contains(c.Detail, "CUDA 0 (") ||
		!strings.Contains(c.Fix, "MIG") || strings.Contains(c.Fix, "__EGL_VENDOR_LIBRARY_FILENAMES") {
		t.Errorf("%+v", c)
	}

	// No device platform: why, and the fix.
	g.ClientExtensions = "EGL_MESA_platform_surfaceless"
	c = findGL(t, CheckGL(&g), "gl: egl device index")
	if c.State != "warn" || !strings.Contains(c.Detail, "no device platform") || !strings.Contains(c.Fix, "__EGL_VENDOR_LIBRARY_FILENAMES") {
		t.Errorf("%+v", c)
	}

	// No CUDA device: no such check.
	g = base
	g.Devices = []egl.DeviceInfo{{Description: "software", CUDADevice: -1}}
	for _, c := range CheckGL(&g) {
		if c.Name == "gl: egl device index" {
			t.Errorf("without CUDA: %+v", c)
		}
	}
}
