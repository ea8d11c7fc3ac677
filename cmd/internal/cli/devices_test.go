package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"github.com/gfxcuda/gfxcuda"
	"github.com/gfxcuda/gfxcuda/cuda"
	"github.com/gfxcuda/gfxcuda/gl"
	"github.com/gfxcuda/gfxcuda/vulkan"
)

func randomUUID(r *rand.Rand) [16]byte {
	var u [16]byte
	for i := range u {
		u[i] = byte(r.UintN(256))
	}
	return u
}

// tableColumn returns, for the table whose header line ("  #  …")
// contains header, each row's first and last fields (tabwriter separates columns
// by two spaces or more), failing when the table is missing or its last
// column is not EGL.
func tableColumn(t *testing.T, text, header string) map[string]string {
	t.Helper()
	sep := regexp.MustCompile(`\s{2,}`)
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		if !strings.HasPrefix(l, "  #  ") || !strings.Contains(l, header) {
			continue
		}
		h := sep.Split(strings.TrimSpace(l), -1)
		if h[len(h)-1] != "EGL" {
			t.Fatalf("table %q: last column %q, want EGL:\n%s", header, h[len(h)-1], text)
		}
		rows := map[string]string{}
		for _, r := range lines[i+1:] {
			if !strings.HasPrefix(r, "  ") || strings.HasPrefix(r, "  peer paths") {
				break
			}
			f := sep.Split(strings.TrimSpace(r), -1)
			if len(f) != len(h) {
				t.Fatalf("table %q: row %q has %d columns, the header %d", header, r, len(f), len(h))
			}
			rows[f[0]] = f[len(f)-1]
		}
		return rows
	}
	t.Fatalf("no table headed %q:\n%s", header, text)
	return nil
}

const (
	vulkanHeader = "VENDOR:DEVICE"
	cudaHeader   = "MEMORY FREE/TOTAL"
)

// fakeDevices is a report of two NVIDIA GPUs seen by both APIs and
// lavapipe, and EGL devices that are: lavapipe by UUID, CUDA 1's GPU by
// EGL_NV_device_cuda only, and a GPU of another UUID that EGL numbers CUDA
// 0 (its UUID wins: it is not CUDA 0's GPU).
func fakeDevices(t *testing.T) (*gfxcuda.DeviceReport, eglDevices, map[string]string, map[string]string) {
	r := rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64()))
	gpu0, gpu1, lvp, other := randomUUID(r), randomUUID(r), randomUUID(r), randomUUID(r)
	vk := []*vulkan.PhysicalDevice{
		{Index: 0, Name: "NVIDIA H100 80GB HBM3", Type: vulkan.DeviceTypeDiscrete, VendorID: 0x10de, DeviceUUID: gpu1},
		{Index: 1, Name: "llvmpipe (LLVM 15.0.6, 256 bits)", Type: vulkan.DeviceTypeCPU, VendorID: 0x10005, DeviceUUID: lvp},
		{Index: 2, Name: "NVIDIA H100 80GB HBM3", Type: vulkan.DeviceTypeDiscrete, VendorID: 0x10de, DeviceUUID: gpu0},
	}
	cu := []cuda.DeviceInfo{
		{Ordinal: 0, Name: "NVIDIA H100 80GB HBM3", UUID: gpu0, UUIDString: cuda.UUID(gpu0).String(), PCIBusID: "0000:19:00.0"},
		{Ordinal: 1, Name: "NVIDIA H100 80GB HBM3", UUID: gpu1, UUIDString: cuda.UUID(gpu1).String(), PCIBusID: "0000:3b:00.0"},
	}
	rep := &gfxcuda.DeviceReport{Vulkan: vk, CUDA: cu,
		Pairs: gfxcuda.MatchDevices([]gfxcuda.UUID{gpu1, lvp, gpu0}, []gfxcuda.UUID{gpu0, gpu1})}
	if len(rep.Pairs) != 2 {
		t.Fatalf("pairs %+v", rep.Pairs)
	}
	e := eglDevices{devs: []gl.EGLDevice{
		{Index: 0, Description: "/dev/dri/renderD130", UUID: &other, CUDADevice: 0},
		{Index: 1, Description: "software", UUID: &lvp, CUDADevice: -1},
		{Index: 2, Description: "/dev/dri/renderD129", CUDADevice: 1},
	}}
	wantVK := map[string]string{"0": "2", "1": "1", "2": "-"}
	wantCUDA := map[string]string{"0": "-", "1": "2"}
	return rep, e, wantVK, wantCUDA
}

// TestDevicesEGLColumn: the Vulkan and CUDA tables end with the EGL index
// of each GPU (by UUID, else by EGL_NV_device_cuda through the GPU's CUDA
// ordinal), and the EGL devices are listed.
func TestDevicesEGLColumn(t *testing.T) {
	rep, e, wantVK, wantCUDA := fakeDevices(t)
	var b bytes.Buffer
	printDevices(&b, rep, e)
	text := b.String()
	t.Log("\n" + text)
	for _, c := range []struct {
		header string
		want   map[string]string
	}{{vulkanHeader, wantVK}, {cudaHeader, wantCUDA}} {
		got := tableColumn(t, text, c.header)
		if fmt.Sprint(got) != fmt.Sprint(c.want) {
			t.Errorf("table %q: EGL column %v, want %v", c.header, got, c.want)
		}
	}
	for _, want := range []string{`EGL: 3 device\(s\)`, `\n  0  /dev/dri/renderD130\s+` + uuidString(*e.devs[0].UUID) + `\s+0\n`,
		`\n  1  software\s+` + uuidString(*e.devs[1].UUID) + `\s+-\n`, `\n  2  /dev/dri/renderD129\s+- \(no EGL_EXT_device_persistent_id\)\s+1\n`} {
		if !regexp.MustCompile(want).MatchString(text) {
			t.Errorf("the EGL devices lack %q", want)
		}
	}

	// Without libEGL every GPU gets "-" and the output says why.
	b.Reset()
	none := eglDevices{err: errors.New("gl: libEGL.so.1 not found: install the EGL loader")}
	printDevices(&b, rep, none)
	for _, h := range []string{vulkanHeader, cudaHeader} {
		for dev, v := range tableColumn(t, b.String(), h) {
			if v != "-" {
				t.Errorf("no EGL: table %q, device %s: EGL %q", h, dev, v)
			}
		}
	}
	if !strings.Contains(b.String(), "EGL: unavailable: gl: libEGL.so.1 not found") {
		t.Errorf("no EGL: the output does not say why:\n%s", b.String())
	}
}

// TestDevicesEGLJSON: --json gives egl_index (null for none) on each
// Vulkan and CUDA device, and egl_devices.
func TestDevicesEGLJSON(t *testing.T) {
	rep, e, wantVK, wantCUDA := fakeDevices(t)
	raw, err := json.Marshal(reportJSON(rep, e))
	if err != nil {
		t.Fatal(err)
	}
	var out struct {
		Vulkan []map[string]any `json:"vulkan"`
		CUDA   []map[string]any `json:"cuda"`
		EGL    []map[string]any `json:"egl_devices"`
	}
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatal(err)
	}
	index := func(m map[string]any) string {
		v, ok := m["egl_index"]
		if !ok {
			t.Fatalf("no egl_index key in %v", m)
		}
		if v == nil {
			return "-"
		}
		return fmt.Sprint(v)
	}
	for _, v := range out.Vulkan {
		if got, want := index(v), wantVK[fmt.Sprint(v["index"])]; got != want {
			t.Errorf("vulkan %v: egl_index %s, want %s", v["index"], got, want)
		}
	}
	for _, c := range out.CUDA {
		if got, want := index(c), wantCUDA[fmt.Sprint(c["ordinal"])]; got != want {
			t.Errorf("cuda %v: egl_index %s, want %s", c["ordinal"], got, want)
		}
		if c["uuid"] != rep.CUDA[int(c["ordinal"].(float64))].UUIDString || c["pci_bus_id"] == nil {
			t.Errorf("cuda device keys lost: %v", c)
		}
	}
	if len(out.Vulkan) != 3 || len(out.CUDA) != 2 || len(out.EGL) != 3 {
		t.Fatalf("%d vulkan, %d cuda, %d egl devices:\n%s", len(out.Vulkan), len(out.CUDA), len(out.EGL), raw)
	}
	if out.EGL[1]["uuid"] != uuidString(*e.devs[1].UUID) || out.EGL[2]["cuda_ordinal"] != 1.0 || out.EGL[2]["uuid"] != nil || out.EGL[0]["description"] != "/dev/dri/renderD130" {
		t.Errorf("egl_devices: %v", out.EGL)
	}

	raw, _ = json.Marshal(reportJSON(rep, eglDevices{err: errors.New("gl: no libEGL")}))
	if !bytes.Contains(raw, []byte(`"egl_error":"gl: no libEGL"`)) || !bytes.Contains(raw, []byte(`"egl_devices":[]`)) ||
		bytes.Count(raw, []byte(`"egl_index":null`)) != 5 {
		t.Errorf("no EGL: %s", raw)
	}
}

// TestDevicesEGLReal runs `gfxcuda devices` on this machine: the tables
// have the EGL column, its values are what EGL's own devices give (on
// Mesa 22's EGL, which has no EGL_EXT_device_persistent_id, "-" for
// lavapipe), and without libEGL the command still succeeds.
func TestDevicesEGLReal(t *testing.T) {
	rc, text, stderr := gfx("devices")
	if rc != 0 {
		t.Fatalf("devices: exit %d: %s", rc, stderr)
	}
	t.Log("\n" + text)
	devs, eglErr := gl.EGLDevices()
	if eglErr != nil {
		if os.Getenv("GFXCUDA_REQUIRE_GL") == "1" {
			t.Fatalf("GFXCUDA_REQUIRE_GL=1: %v", eglErr)
		}
		t.Logf("no EGL here (%v): checking the dashes", eglErr)
	}
	r := gfxcuda.DiscoverDevices()
	// expected, computed from EGL's devices directly: by UUID, else by a
	// UUID-less device's CUDA ordinal.
	expect := func(u [16]byte, ordinal int) string {
		for i, d := range devs {
			if d.UUID != nil && *d.UUID == u {
				return fmt.Sprint(i)
			}
		}
		for i, d := range devs {
			if ordinal >= 0 && d.UUID == nil && d.CUDADevice == ordinal {
				return fmt.Sprint(i)
			}
		}
		return "-"
	}
	_, js, _ := gfx("devices", "--json")
	var rep reportOut
	if err := json.Unmarshal([]byte(js), &rep); err != nil {
		t.Fatal(err)
	}
	if r.VulkanErr == nil {
		col := tableColumn(t, text, vulkanHeader)
		if len(col) != len(r.Vulkan) {
			t.Fatalf("Vulkan table: %d rows, %d devices", len(col), len(r.Vulkan))
		}
		for i, d := range r.Vulkan {
			ord := -1
			if c, ok := r.CUDAFor(i); ok {
				ord = c.Ordinal
			}
			want := expect(d.DeviceUUID, ord)
			if got := col[fmt.Sprint(d.Index)]; got != want {
				t.Errorf("Vulkan %d (%s): EGL %q, want %q", d.Index, d.Name, got, want)
			}
			if got := "-"; rep.Vulkan[i].EGLIndex != nil {
				if got = fmt.Sprint(*rep.Vulkan[i].EGLIndex); got != want {
					t.Errorf("Vulkan %d: JSON egl_index %s, want %s", d.Index, got, want)
				}
			} else if want != "-" {
				t.Errorf("Vulkan %d: JSON egl_index null, want %s", d.Index, want)
			}
		}
	}
	if r.CUDAErr == nil {
		col := tableColumn(t, text, cudaHeader)
		for _, d := range r.CUDA {
			if got, want := col[fmt.Sprint(d.Ordinal)], expect(d.UUID, d.Ordinal); got != want {
				t.Errorf("CUDA %d: EGL %q, want %q", d.Ordinal, got, want)
			}
		}
	}
	if eglErr == nil && !strings.Contains(text, fmt.Sprintf("EGL: %d device(s)", len(devs))) || len(rep.EGL) != len(devs) {
		t.Errorf("EGL's %d devices are not listed (JSON: %d)", len(devs), len(rep.EGL))
	}

	// Without libEGL (for real, in a child: libEGL loads once per process).
	cmd := exec.Command(os.Args[0], "devices")
	cmd.Env = append(os.Environ(), "GFXCUDA_AS_CLI=1", "GFXCUDA_LIBEGL=/nonexistent/libEGL.so.1")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("devices without libEGL: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "EGL: unavailable: ") || !strings.Contains(string(out), "/nonexistent/libEGL.so.1") {
		t.Errorf("devices without libEGL does not say so:\n%s", out)
	}
	if r.VulkanErr == nil {
		for dev, v := range tableColumn(t, string(out), vulkanHeader) {
			if v != "-" {
				t.Errorf("without libEGL, Vulkan %s: EGL %q", dev, v)
			}
		}
	}
}
