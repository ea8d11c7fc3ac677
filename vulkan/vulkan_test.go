package vulkan

import (
	"errors"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/gfxcuda/gfxcuda/internal/vk"
)

func TestInstance(t *testing.T) {
	in := newTestInstance(t)
	if !in.APIVersion().AtLeast(1, 1) {
		t.Errorf("APIVersion = %v, want at least 1.1", in.APIVersion())
	}
	if maxAPIVersion.Less(in.APIVersion()) {
		t.Errorf("APIVersion = %v, above %v", in.APIVersion(), maxAPIVersion)
	}
	if in.LoaderVersion().Less(in.APIVersion()) {
		t.Errorf("APIVersion %v above LoaderVersion %v", in.APIVersion(), in.LoaderVersion())
	}
	if in.ValidationEnabled() {
		if !slices.Contains(in.Layers(), "VK_LAYER_KHRONOS_validation") || !slices.Contains(in.Extensions(), "VK_EXT_debug_utils") {
			t.Errorf("validation enabled with layers %v, extensions %v", in.Layers(), in.Extensions())
		}
		if in.ValidationMissing() {
			t.Error("ValidationMissing with validation enabled")
		}
	}
	t.Logf("loader %v, instance %v, layers %v, extensions %v", in.LoaderVersion(), in.APIVersion(), in.Layers(), in.Extensions())
}

func TestPhysicalDevices(t *testing.T) {
	in := newTestInstance(t)
	pds := physicalDevices(t, in)
	again, err := in.PhysicalDevices()
	if err != nil || !slices.Equal(pds, again) {
		t.Errorf("second PhysicalDevices = %v, %v; want the same devices", again, err)
	}
	for i, pd := range pds {
		t.Logf("%d: %v, driver %s %s (%s), vendor 0x%04x device 0x%04x, software %v", i, pd, pd.DriverName,
			pd.DriverVersionString(), pd.DriverInfo, pd.VendorID, pd.DeviceID, pd.IsSoftware())
		t.Logf("   memory %+v, queues %+v", pd.ExternalMemory, pd.QueueFamilies)
		t.Logf("   image memory %+v", pd.ExternalImageMemory)
		t.Logf("   semaphores %+v", pd.ExternalSemaphore)
		t.Logf("   timeline %v, sync2 %v, bda %v", pd.TimelineSemaphore, pd.Synchronization2, pd.BufferDeviceAddress)
		if pd.Index != i {
			t.Errorf("device %d: Index = %d", i, pd.Index)
		}
		if pd.Name == "" {
			t.Errorf("device %d: empty Name", i)
		}
		if !pd.APIVersion.AtLeast(1, 0) {
			t.Errorf("%s: APIVersion %v", pd.Name, pd.APIVersion)
		}
		if pd.APIVersion.AtLeast(1, 1) {
			if pd.DeviceUUID == ([16]byte{}) || pd.DriverUUID == ([16]byte{}) {
				t.Errorf("%s: zero UUID: device %x driver %x", pd.Name, pd.DeviceUUID, pd.DriverUUID)
			}
		}
		if pd.APIVersion.AtLeast(1, 2) && pd.DriverName == "" {
			t.Errorf("%s: empty DriverName", pd.Name)
		}
		if len(pd.MemoryHeaps) == 0 || len(pd.MemoryTypes) == 0 {
			t.Errorf("%s: %d heaps, %d memory types", pd.Name, len(pd.MemoryHeaps), len(pd.MemoryTypes))
		}
		for _, mt := range pd.MemoryTypes {
			if int(mt.HeapIndex) >= len(pd.MemoryHeaps) {
				t.Errorf("%s: memory type on heap %d of %d", pd.Name, mt.HeapIndex, len(pd.MemoryHeaps))
			}
		}
		if !slices.ContainsFunc(pd.QueueFamilies, func(f QueueFamily) bool { return f.Compute && f.Count > 0 }) {
			t.Errorf("%s: no compute queue family in %+v", pd.Name, pd.QueueFamilies)
		}
		if !slices.IsSorted(pd.Extensions) || len(pd.Extensions) == 0 {
			t.Errorf("%s: extensions not sorted or empty", pd.Name)
		}
		if len(pd.ExternalMemory) != 3 || len(pd.ExternalImageMemory) != 3 || len(pd.ExternalSemaphore) != 4 {
			t.Errorf("%s: %d/%d/%d external support entries, want 3/3/4", pd.Name,
				len(pd.ExternalMemory), len(pd.ExternalImageMemory), len(pd.ExternalSemaphore))
		}
		if s := pd.SemaphoreSupport(SyncFD, true); s.Exportable || s.Importable {
			t.Errorf("%s: timeline SYNC_FD semaphores claimed: %+v", pd.Name, s)
		}
		if pd.CanExportOpaqueFD() && !pd.HasExtension("VK_KHR_external_memory_fd") {
			t.Errorf("%s: OPAQUE_FD export without VK_KHR_external_memory_fd", pd.Name)
		}
		if pd.Type == DeviceTypeCPU && !pd.IsSoftware() {
			t.Errorf("%s: CPU device not IsSoftware", pd.Name)
		}
		if pd.VendorID == 0x10de && pd.IsSoftware() {
			t.Errorf("%s: NVIDIA device IsSoftware", pd.Name)
		}
	}
}

func TestLavapipe(t *testing.T) {
	in := newTestInstance(t)
	pd := lavapipe(t, in)
	if !pd.IsSoftware() || pd.Type != DeviceTypeCPU {
		t.Errorf("lavapipe: IsSoftware %v, Type %v", pd.IsSoftware(), pd.Type)
	}
	if pd.DeviceUUID == ([16]byte{}) || pd.DriverUUID == ([16]byte{}) {
		t.Errorf("lavapipe: zero UUIDs %x %x", pd.DeviceUUID, pd.DriverUUID)
	}
	// On Windows (Wine's winevulkan) lavapipe has no OPAQUE_FD: file
	// descriptors are Linux-only.
	if runtime.GOOS != "windows" && (!pd.CanExportOpaqueFD() || !pd.CanImportOpaqueFD()) {
		t.Errorf("lavapipe: OPAQUE_FD buffer memory %+v, want exportable and importable", pd.MemorySupport(OpaqueFD))
	}
	if s := pd.ImageMemorySupport(OpaqueFD); runtime.GOOS != "windows" && (!s.Exportable || !s.Importable) {
		t.Errorf("lavapipe: OPAQUE_FD image memory %+v, want exportable and importable", s)
	}
	// Lavapipe has no VK_KHR_external_semaphore_fd: semaphores cannot be
	// shared with it.
	if pd.CanExportSemaphoreFD() {
		t.Error("lavapipe: CanExportSemaphoreFD = true")
	}
	if !pd.TimelineSemaphore || !pd.Synchronization2 {
		t.Errorf("lavapipe: timelineSemaphore %v, synchronization2 %v; want both", pd.TimelineSemaphore, pd.Synchronization2)
	}
	if !strings.HasPrefix(pd.DriverInfo, "Mesa") {
		t.Errorf("lavapipe: DriverInfo %q", pd.DriverInfo)
	}
}

func TestNewDevice(t *testing.T) {
	in := newTestInstance(t)
	for _, pd := range physicalDevices(t, in) {
		d, err := in.NewDevice(pd, DeviceOptions{})
		if err != nil {
			t.Errorf("%s: NewDevice: %v", pd.Name, err)
			continue
		}
		t.Logf("%s: family %d, enabled %v, missing %v", pd.Name, d.QueueFamily(), d.Enabled(), d.Missing())
		if d.Physical() != pd {
			t.Errorf("Physical() = %v, want %v", d.Physical(), pd)
		}
		fam := pd.QueueFamilies[d.QueueFamily()]
		if !fam.Compute {
			t.Errorf("%s: queue family %+v has no compute", pd.Name, fam)
		}
		if c, ok := d.ComputeOnlyFamily(); ok && (pd.QueueFamilies[c].Graphics || !pd.QueueFamilies[c].Compute) {
			t.Errorf("%s: compute-only family %+v", pd.Name, pd.QueueFamilies[c])
		}
		for _, e := range interopExtensions {
			if pd.HasExtension(e) != d.HasEnabled(e) || pd.HasExtension(e) == slices.Contains(d.Missing(), e) {
				t.Errorf("%s: %s: present %v, enabled %v, missing %v", pd.Name, e,
					pd.HasExtension(e), d.HasEnabled(e), slices.Contains(d.Missing(), e))
			}
		}
		if pd.TimelineSemaphore != d.HasEnabled(FeatureTimelineSemaphore) ||
			pd.Synchronization2 != d.HasEnabled(FeatureSynchronization2) ||
			pd.BufferDeviceAddress != d.HasEnabled(FeatureBufferDeviceAddress) {
			t.Errorf("%s: features not enabled as supported: %v", pd.Name, d.Enabled())
		}
		if pd.IsSoftware() && pd.DriverName == "llvmpipe" {
			if !slices.Contains(d.Missing(), "VK_KHR_external_semaphore_fd") {
				t.Errorf("lavapipe: Missing() = %v, want VK_KHR_external_semaphore_fd", d.Missing())
			}
			if !d.HasEnabled("VK_KHR_external_memory_fd") && runtime.GOOS != "windows" {
				t.Errorf("lavapipe: Enabled() = %v, want VK_KHR_external_memory_fd", d.Enabled())
			}
		}
		if err := d.WaitIdle(); err != nil {
			t.Errorf("WaitIdle: %v", err)
		}
		if err := d.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
		if err := d.Close(); err != nil {
			t.Errorf("second Close: %v", err)
		}
		if err := d.WaitIdle(); !errors.Is(err, ErrClosed) {
			t.Errorf("WaitIdle after Close = %v, want ErrClosed", err)
		}
	}
}

func TestDeviceOptionsExtensions(t *testing.T) {
	in := newTestInstance(t)
	pd := physicalDevices(t, in)[0]
	_, err := in.NewDevice(pd, DeviceOptions{Extensions: []string{"VK_GFXCUDA_no_such_extension"}})
	if !errors.Is(err, ErrorExtensionNotPresent) || !strings.Contains(err.Error(), "VK_GFXCUDA_no_such_extension") {
		t.Errorf("NewDevice with a bogus extension: %v, want ErrorExtensionNotPresent naming it", err)
	}
	d, err := in.NewDevice(pd, DeviceOptions{Extensions: []string{pd.Extensions[0]}})
	if err != nil {
		t.Fatalf("NewDevice with %s: %v", pd.Extensions[0], err)
	}
	if !d.HasEnabled(pd.Extensions[0]) {
		t.Errorf("%s not enabled: %v", pd.Extensions[0], d.Enabled())
	}
	// Left open: Instance.Close must close it.
}

func TestCloseOrder(t *testing.T) {
	in := newTestInstance(t)
	pd := physicalDevices(t, in)[0]
	d, err := in.NewDevice(pd, DeviceOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := in.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := in.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if err := d.WaitIdle(); !errors.Is(err, ErrClosed) {
		t.Errorf("device WaitIdle after Instance.Close = %v, want ErrClosed", err)
	}
	if err := d.Close(); err != nil {
		t.Errorf("device Close after Instance.Close: %v", err)
	}
	if _, err := in.PhysicalDevices(); !errors.Is(err, ErrClosed) {
		t.Errorf("PhysicalDevices after Close = %v, want ErrClosed", err)
	}
	if _, err := in.NewDevice(pd, DeviceOptions{}); !errors.Is(err, ErrClosed) {
		t.Errorf("NewDevice after Close = %v, want ErrClosed", err)
	}
}

func TestForeignDevice(t *testing.T) {
	a, b := newTestInstance(t), newTestInstance(t)
	pd := physicalDevices(t, a)[0]
	if _, err := b.NewDevice(pd, DeviceOptions{}); !errors.Is(err, ErrForeignDevice) {
		t.Errorf("NewDevice with another instance's device = %v, want ErrForeignDevice", err)
	}
	if _, err := b.NewDevice(nil, DeviceOptions{}); !errors.Is(err, ErrForeignDevice) {
		t.Errorf("NewDevice(nil) = %v, want ErrForeignDevice", err)
	}
}

// TestValidationCapture proves that validation errors reach
// TakeValidationErrors: it creates a device with a queue priority of 2,
// which the layer reports (VUID-VkDeviceQueueCreateInfo-pQueuePriorities-00383)
// and drivers ignore.
func TestValidationCapture(t *testing.T) {
	in := newTestInstance(t)
	if !in.ValidationEnabled() {
		t.Skip("validation layer not installed")
	}
	pd := physicalDevices(t, in)[0]
	fam := slices.IndexFunc(pd.QueueFamilies, func(f QueueFamily) bool { return f.Count > 0 })
	raw, err := in.raw.CreateDevice(pd.h, vk.DeviceCreateInfo{
		Queues: []vk.QueueCreateInfo{{Family: uint32(fam), Priorities: []float32{2}}},
	})
	msgs := in.TakeValidationErrors()
	if err == nil {
		raw.Destroy()
	}
	if !slices.ContainsFunc(msgs, func(m string) bool {
		return strings.Contains(m, "VUID-VkDeviceQueueCreateInfo-pQueuePriorities-00383")
	}) {
		t.Errorf("validation errors = %q, want VUID-VkDeviceQueueCreateInfo-pQueuePriorities-00383", msgs)
	}
	if msgs := in.TakeValidationErrors(); len(msgs) != 0 {
		t.Errorf("second TakeValidationErrors = %q, want none", msgs)
	}
}

func TestValidationFromEnv(t *testing.T) {
	for _, tc := range []struct {
		env           string
		want, verbose bool
	}{{"", false, false}, {"0", false, false}, {"1", true, false}, {"true", true, false}, {"verbose", true, true}} {
		t.Setenv(ValidationEnv, tc.env)
		if on, v := validationFromEnv(); on != tc.want || v != tc.verbose {
			t.Errorf("%s=%q: %v, %v; want %v, %v", ValidationEnv, tc.env, on, v, tc.want, tc.verbose)
		}
	}
	t.Setenv(ValidationEnv, "0")
	in, err := NewInstance(InstanceOptions{})
	if err != nil {
		unavailable(t, "Vulkan unavailable: %v", err)
	}
	defer in.Close()
	if in.ValidationEnabled() || in.ValidationMissing() {
		t.Errorf("%s=0: ValidationEnabled %v, ValidationMissing %v", ValidationEnv, in.ValidationEnabled(), in.ValidationMissing())
	}
	if msgs := in.TakeValidationErrors(); msgs != nil {
		t.Errorf("TakeValidationErrors without validation = %q", msgs)
	}
}

func TestNoDriver(t *testing.T) {
	if underWine() {
		t.Skip("under Wine the host's Vulkan loader has read VK_DRIVER_FILES at start; the test needs real Windows")
	}
	newTestInstance(t) // skips where Vulkan is missing
	t.Setenv("VK_DRIVER_FILES", "/nonexistent/gfxcuda_icd.json")
	t.Setenv("VK_ICD_FILENAMES", "/nonexistent/gfxcuda_icd.json")
	on := true
	in, err := NewInstance(InstanceOptions{Validation: &on})
	if err == nil {
		in.Close()
		t.Fatal("NewInstance with no driver succeeded")
	}
	if !errors.Is(err, ErrNoDevice) || !errors.Is(err, ErrorIncompatibleDriver) {
		t.Errorf("NewInstance with no driver = %v, want ErrNoDevice and VK_ERROR_INCOMPATIBLE_DRIVER", err)
	}
	if !strings.Contains(err.Error(), "mesa-vulkan-drivers") {
		t.Errorf("error does not say what to install: %v", err)
	}
}

func TestConcurrentUse(t *testing.T) {
	in := newTestInstance(t)
	pds := physicalDevices(t, in)
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for range 5 {
				if _, err := in.PhysicalDevices(); err != nil {
					t.Error(err)
					return
				}
				d, err := in.NewDevice(pds[0], DeviceOptions{})
				if err != nil {
					t.Error(err)
					return
				}
				in.TakeValidationWarnings()
				if err := d.WaitIdle(); err != nil {
					t.Error(err)
				}
				if err := d.Close(); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	// Devices left open while the instance closes, concurrently.
	var devs []*Device
	for range 3 {
		d, err := in.NewDevice(pds[0], DeviceOptions{})
		if err != nil {
			t.Fatal(err)
		}
		devs = append(devs, d)
	}
	for _, d := range devs {
		wg.Go(func() { d.Close() })
	}
	wg.Go(func() { in.Close() })
	wg.Wait()
}

// TestCycles creates and closes instances and devices 200 times and checks
// that file descriptors do not pile up. Drivers may open a few files lazily
// (NVIDIA's does), so the count after the second half of the cycles is
// compared with the count after the first half.
func TestCycles(t *testing.T) {
	n := 200
	if testing.Short() {
		n = 20
	}
	cycle := func() {
		in := newTestInstance(t)
		for _, pd := range physicalDevices(t, in) {
			d, err := in.NewDevice(pd, DeviceOptions{})
			if err != nil {
				t.Fatalf("NewDevice: %v", err)
			}
			if err := d.Close(); err != nil {
				t.Fatalf("Device.Close: %v", err)
			}
		}
		if err := in.Close(); err != nil {
			t.Fatalf("Instance.Close: %v", err)
		}
		failOnValidationErrors(t, in)
	}
	cycle() // loads the loader, layers and drivers for good
	before := openFDs(t)
	for range n / 2 {
		cycle()
	}
	mid := openFDs(t)
	for range n - n/2 {
		cycle()
	}
	after := openFDs(t)
	if len(after) > len(mid) {
		t.Errorf("file descriptors: %d after %d cycles, %d after %d: leak\nbefore: %v\nafter: %v",
			len(after), n, len(mid), n/2, before, after)
	}
	if len(after) > len(before)+4 {
		t.Errorf("file descriptors: %d after %d cycles, %d before\nbefore: %v\nafter: %v",
			len(after), n, len(before), before, after)
	}
	t.Logf("open file descriptors: %d before, %d after %d cycles, %d after %d", len(before), len(mid), n/2, len(after), n)
}

func TestVersion(t *testing.T) {
	v := versionOf(vk.MakeAPIVersion(0, 1, 3, 230))
	if v != (Version{1, 3, 230}) || v.String() != "1.3.230" {
		t.Errorf("versionOf = %+v %q", v, v)
	}
	if !v.AtLeast(1, 3) || !v.AtLeast(1, 2) || v.AtLeast(1, 4) || v.AtLeast(2, 0) {
		t.Error("AtLeast")
	}
	if !(Version{1, 2, 999}).Less(v) || v.Less(Version{1, 3, 0}) {
		t.Error("Less")
	}
}

func TestDriverVersionString(t *testing.T) {
	for _, tc := range []struct {
		vendor, version uint32
		want            string
	}{
		{0x10de, 580<<22 | 95<<14 | 5<<6, "580.95.05"},
		{0x10de, 535<<22 | 104<<14 | 12<<6, "535.104.12"},
		{0x10de, 1<<22 | 2<<14 | 3<<6 | 4, "1.2.3.4"},
		{0x1002, 2<<22 | 0<<12 | 250, "2.0.250"},
		{0x10005, vk.MakeAPIVersion(0, 22, 3, 6), "22.3.6"},
	} {
		pd := PhysicalDevice{VendorID: tc.vendor, DriverVersion: tc.version}
		if got := pd.DriverVersionString(); got != tc.want {
			t.Errorf("vendor 0x%x version 0x%x: %q, want %q", tc.vendor, tc.version, got, tc.want)
		}
	}
}

func TestStrings(t *testing.T) {
	for v, want := range map[fmtStringer]string{
		DeviceTypeCPU:                         "CPU",
		DeviceTypeDiscrete:                    "discrete GPU",
		DeviceType(42):                        "DeviceType(42)",
		OpaqueFD:                              "OPAQUE_FD",
		DMABuf:                                "DMA_BUF",
		HostAllocation:                        "HOST_ALLOCATION",
		SyncFD:                                "SYNC_FD",
		HandleType(0):                         "HandleType(0)",
		MemoryDeviceLocal | MemoryHostVisible: "DEVICE_LOCAL|HOST_VISIBLE",
		MemoryPropertyFlags(0):                "0",
		MemoryPropertyFlags(0x1000):           "0x1000",
	} {
		if got := v.String(); got != want {
			t.Errorf("%#v.String() = %q, want %q", v, got, want)
		}
	}
	sw := PhysicalDevice{Name: "SwiftShader Device (Subzero)", Type: DeviceTypeOther}
	gpu := PhysicalDevice{Name: "NVIDIA H100 80GB HBM3", Type: DeviceTypeDiscrete, DriverName: "NVIDIA"}
	if !sw.IsSoftware() || gpu.IsSoftware() {
		t.Errorf("IsSoftware: swiftshader %v, NVIDIA %v", sw.IsSoftware(), gpu.IsSoftware())
	}
}

type fmtStringer interface{ String() string }

// TestZeroValues checks that zero Instance and Device values fail cleanly.
func TestZeroValues(t *testing.T) {
	var in Instance
	if err := in.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	if in.TakeValidationErrors() != nil || in.TakeValidationWarnings() != nil {
		t.Error("messages from a zero Instance")
	}
	if _, err := in.PhysicalDevices(); !errors.Is(err, ErrClosed) {
		t.Errorf("PhysicalDevices: %v", err)
	}
	var d Device
	if err := d.WaitIdle(); !errors.Is(err, ErrClosed) {
		t.Errorf("WaitIdle: %v", err)
	}
	if err := d.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
}

func TestResultErrors(t *testing.T) {
	err := errors.Join(errors.New("x"), ErrorOutOfDeviceMemory)
	if !errors.Is(err, ErrorOutOfDeviceMemory) || errors.Is(err, ErrorOutOfHostMemory) {
		t.Error("errors.Is on Result")
	}
	var r Result
	if !errors.As(err, &r) || r != ErrorOutOfDeviceMemory || r.Error() != "VK_ERROR_OUT_OF_DEVICE_MEMORY" {
		t.Errorf("errors.As: %v", r)
	}
}
