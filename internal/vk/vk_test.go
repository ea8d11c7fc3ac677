package vk

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strings"
	"testing"
	"unsafe"
)

// unavailable skips t, or fails it under GFXCUDA_REQUIRE_VULKAN=1.
func unavailable(t *testing.T, format string, args ...any) {
	t.Helper()
	if os.Getenv("GFXCUDA_REQUIRE_VULKAN") == "1" {
		t.Fatalf("GFXCUDA_REQUIRE_VULKAN=1: "+format, args...)
	}
	t.Skipf(format, args...)
}

func loader(t *testing.T) *Loader {
	t.Helper()
	l, err := Load()
	if err != nil {
		if !errors.Is(err, ErrNoLoader) {
			t.Errorf("Load error %v does not wrap ErrNoLoader", err)
		}
		unavailable(t, "Vulkan loader unavailable: %v", err)
	}
	return l
}

// newInstance creates an instance capturing messages, with the validation
// layer when installed; at the end of the test it is destroyed and any
// error message fails the test.
func newInstance(t *testing.T) (*Instance, bool) {
	t.Helper()
	l := loader(t)
	v, err := l.InstanceVersion()
	if err != nil {
		t.Fatal(err)
	}
	layers, err := l.InstanceLayers()
	if err != nil {
		t.Fatal(err)
	}
	validation := slices.ContainsFunc(layers, func(p LayerProperties) bool { return p.Name == ValidationLayerName })
	// On Windows (tested under Wine) the layer is not required: no Windows
	// build of it is at hand there.
	if !validation && os.Getenv("GFXCUDA_REQUIRE_VULKAN") == "1" && runtime.GOOS != "windows" {
		t.Fatalf("GFXCUDA_REQUIRE_VULKAN=1: %s not installed", ValidationLayerName)
	}
	info := InstanceCreateInfo{
		AppName:         "vk-test",
		APIVersion:      min(v&^0xfff, APIVersion1_3),
		Extensions:      []string{ExtDebugUtils},
		CaptureMessages: true,
	}
	if validation {
		info.Layers = []string{ValidationLayerName}
	}
	in, err := l.CreateInstance(info)
	if errors.Is(err, ErrorIncompatibleDriver) {
		unavailable(t, "no Vulkan driver: %v", err)
	}
	if err != nil {
		t.Fatalf("CreateInstance: %v", err)
	}
	t.Cleanup(func() {
		in.Destroy()
		in.Destroy()
		if msgs := in.Messages(MessageError); len(msgs) > 0 {
			t.Errorf("validation errors:\n%s", strings.Join(msgs, "\n"))
		}
	})
	return in, validation
}

func TestResult(t *testing.T) {
	if ErrorOutOfDeviceMemory.Error() != "VK_ERROR_OUT_OF_DEVICE_MEMORY" || Success.String() != "VK_SUCCESS" {
		t.Errorf("names: %q %q", ErrorOutOfDeviceMemory, Success)
	}
	if got := Result(-424242).Error(); got != "VkResult(-424242)" {
		t.Errorf("unknown result: %q", got)
	}
	err := fmt.Errorf("vkAllocateMemory: %w", ErrorOutOfDeviceMemory)
	if !errors.Is(err, ErrorOutOfDeviceMemory) || errors.Is(err, ErrorOutOfHostMemory) {
		t.Errorf("errors.Is(%v)", err)
	}
	if Timeout.IsError() || !ErrorDeviceLost.IsError() {
		t.Error("IsError")
	}
}

func TestVersions(t *testing.T) {
	v := MakeAPIVersion(0, 1, 3, 230)
	if VersionMajor(v) != 1 || VersionMinor(v) != 3 || VersionPatch(v) != 230 {
		t.Errorf("unpack %x", v)
	}
	if !VersionAtLeast(v, 1, 3) || VersionAtLeast(v, 1, 4) || !VersionAtLeast(APIVersion1_1, 1, 1) {
		t.Error("VersionAtLeast")
	}
}

func TestArena(t *testing.T) {
	var a arena
	s := a.cstr("hello")
	if got := unsafe.String((*byte)(unsafe.Pointer(s)), 5); got != "hello" || *(*byte)(unsafe.Add(unsafe.Pointer(s), 5)) != 0 {
		t.Errorf("cstr = %q", got)
	}
	if a.cstrs(nil) != nil {
		t.Error("cstrs(nil) != nil")
	}
	xs := allocN[uint64](&a, 100)
	for _, x := range xs {
		if x != 0 {
			t.Fatal("allocN not zeroed")
		}
	}
	a.free()
	a.free()
}

func TestLoader(t *testing.T) {
	l := loader(t)
	if l2, _ := Load(); l2 != l {
		t.Error("Load is not cached")
	}
	v, err := l.InstanceVersion()
	if err != nil || !VersionAtLeast(v, 1, 0) {
		t.Errorf("InstanceVersion = %x, %v", v, err)
	}
	exts, err := l.InstanceExtensions("")
	if err != nil || len(exts) == 0 {
		t.Errorf("InstanceExtensions = %v, %v", exts, err)
	}
	if _, err := l.InstanceExtensions("VK_LAYER_gfxcuda_no_such_layer"); !errors.Is(err, ErrorLayerNotPresent) {
		t.Errorf("extensions of a missing layer: %v, want VK_ERROR_LAYER_NOT_PRESENT", err)
	}
	if _, err := l.InstanceLayers(); err != nil {
		t.Error(err)
	}
	t.Logf("%s: instance version %d.%d.%d", l.Path(), VersionMajor(v), VersionMinor(v), VersionPatch(v))
}

func TestMissingLayer(t *testing.T) {
	l := loader(t)
	_, err := l.CreateInstance(InstanceCreateInfo{APIVersion: APIVersion1_1, Layers: []string{"VK_LAYER_gfxcuda_no_such_layer"}})
	if !errors.Is(err, ErrorLayerNotPresent) {
		t.Errorf("CreateInstance with a missing layer: %v, want VK_ERROR_LAYER_NOT_PRESENT", err)
	}
}

func TestInstanceAndDevice(t *testing.T) {
	in, _ := newInstance(t)
	pds, err := in.PhysicalDevices()
	if err != nil {
		t.Fatal(err)
	}
	if len(pds) == 0 {
		unavailable(t, "no Vulkan physical device")
	}
	for _, pd := range pds {
		base := in.PhysicalDeviceProperties(pd, PropertiesQuery{})
		api := min(base.APIVersion, in.APIVersion())
		q := PropertiesQuery{ID: VersionAtLeast(api, 1, 1), Driver: VersionAtLeast(api, 1, 2)}
		p := in.PhysicalDeviceProperties(pd, q)
		if p.DeviceName != base.DeviceName || p.HasID != q.ID || p.HasDriver != q.Driver {
			t.Errorf("properties %+v, base %+v", p, base)
		}
		t.Logf("%s: %s %s", p.DeviceName, p.DriverName, p.DriverInfo)
		fq := FeatureQuery{Vulkan12: VersionAtLeast(api, 1, 2), Vulkan13: VersionAtLeast(api, 1, 3)}
		feats := in.PhysicalDeviceFeatures(pd, fq)
		types, heaps := in.MemoryProperties(pd)
		if len(types) == 0 || len(heaps) == 0 {
			t.Errorf("%d memory types, %d heaps", len(types), len(heaps))
		}
		fams := in.QueueFamilies(pd)
		fam := slices.IndexFunc(fams, func(f QueueFamily) bool { return f.QueueFlags&QueueCompute != 0 })
		if fam < 0 {
			t.Fatalf("no compute family in %+v", fams)
		}
		exts, err := in.DeviceExtensions(pd)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		if slices.ContainsFunc(exts, func(e ExtensionProperties) bool { return e.Name == ExtExternalMemoryFD }) {
			names = append(names, ExtExternalMemoryFD)
			mp, err := in.ExternalBufferProperties(pd, 0, BufferUsageStorageBuffer, ExternalMemoryHandleTypeOpaqueFD)
			if err != nil {
				t.Error(err)
			}
			t.Logf("OPAQUE_FD buffer: %+v", mp)
		}
		d, err := in.CreateDevice(pd, DeviceCreateInfo{
			Queues:       []QueueCreateInfo{{Family: uint32(fam), Priorities: []float32{1}}},
			Extensions:   names,
			Features:     feats,
			FeatureQuery: fq,
		})
		if err != nil {
			t.Fatalf("CreateDevice: %v", err)
		}
		if q := d.Queue(uint32(fam), 0); q == nil {
			t.Error("nil queue")
		}
		if err := d.WaitIdle(); err != nil {
			t.Error(err)
		}
		d.Destroy()
		d.Destroy()
	}
}

func TestMessages(t *testing.T) {
	in, validation := newInstance(t)
	in.injectMessage(MessageWarning, "first")
	in.injectMessage(MessageWarning, "")
	in.injectMessage(MessageWarning, "third")
	if got := in.Messages(MessageWarning); !slices.Equal(got, []string{"first", "", "third"}) {
		t.Errorf("Messages = %q", got)
	}
	if got := in.Messages(MessageWarning); got != nil {
		t.Errorf("second Messages = %q", got)
	}
	// Past 1 MiB, messages are counted, not kept.
	big := strings.Repeat("x", 1000)
	for range 1100 {
		in.injectMessage(MessageWarning, big)
	}
	got := in.Messages(MessageWarning)
	if n := len(got); n < 1000 || n >= 1100 || !strings.Contains(got[n-1], "more messages dropped") {
		t.Errorf("%d messages, last %.60q", n, got[n-1])
	}
	if got := in.Messages(MessageKind(7)); got != nil {
		t.Errorf("Messages of a bogus kind = %q", got)
	}

	if !validation {
		return
	}
	// A real validation error: queue priority 2 (VUID-VkDeviceQueueCreateInfo-pQueuePriorities-00383).
	pds, err := in.PhysicalDevices()
	if err != nil || len(pds) == 0 {
		unavailable(t, "no Vulkan physical device: %v", err)
	}
	d, err := in.CreateDevice(pds[0], DeviceCreateInfo{Queues: []QueueCreateInfo{{Family: 0, Priorities: []float32{2}}}})
	if err == nil {
		d.Destroy()
	}
	msgs := in.Messages(MessageError)
	if !slices.ContainsFunc(msgs, func(m string) bool { return strings.Contains(m, "pQueuePriorities-00383") }) {
		t.Errorf("errors = %q, want pQueuePriorities-00383", msgs)
	}
	// Messages taken at Destroy stay available.
	in.injectMessage(MessageError, "late")
	in.Destroy()
	if got := in.Messages(MessageError); !slices.Equal(got, []string{"late"}) {
		t.Errorf("Messages after Destroy = %q", got)
	}
}

// TestPinned checks that the layers and drivers an instance loaded stay
// loaded after it is destroyed.
func TestPinned(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("pinning is Linux-only (Windows DLLs unload and reload safely)")
	}
	in, validation := newInstance(t)
	if !validation {
		t.Skip("no validation layer to watch")
	}
	in.Destroy()
	if !slices.ContainsFunc(loadedObjects(), func(n string) bool { return strings.Contains(n, "VkLayer_khronos_validation") }) {
		t.Errorf("validation layer unloaded; loaded objects: %q", loadedObjects())
	}
}

// TestFlags2 checks the literal synchronization2 flag values against the
// header's.
func TestFlags2(t *testing.T) {
	for name, v := range flags2FromHeader() {
		if v[0] != v[1] {
			t.Errorf("%s = 0x%x, header 0x%x", name, v[0], v[1])
		}
	}
}

// TestLegacyFlags checks the translation of synchronization2 flags for
// vkCmdPipelineBarrier.
func TestLegacyFlags(t *testing.T) {
	if got := legacyStages(PipelineStage2Copy | PipelineStage2ComputeShader); got != PipelineStageTransfer|0x800 {
		t.Errorf("legacyStages(copy|compute) = 0x%x", got)
	}
	if got := legacyStages(PipelineStage2AllCommands | PipelineStage2Host); got != 0x10000|0x4000 {
		t.Errorf("legacyStages(all|host) = 0x%x", got)
	}
	if got := legacyAccess(Access2ShaderStorageWrite | Access2ShaderSampledRead | Access2MemoryWrite); got != AccessShaderWrite|AccessShaderRead|0x10000 {
		t.Errorf("legacyAccess = 0x%x", got)
	}
}

// TestRawCopy drives the resource and command entry points directly: two
// host-visible buffers, a fill and a copy submitted with vkQueueSubmit2 and
// with vkQueueSubmit, each signalling a timeline semaphore.
func TestRawCopy(t *testing.T) {
	in, _ := newInstance(t)
	pds, err := in.PhysicalDevices()
	if err != nil || len(pds) == 0 {
		unavailable(t, "no Vulkan physical device: %v", err)
	}
	pd := pds[0]
	base := in.PhysicalDeviceProperties(pd, PropertiesQuery{})
	api := min(base.APIVersion, in.APIVersion())
	fq := FeatureQuery{Vulkan12: VersionAtLeast(api, 1, 2), Vulkan13: VersionAtLeast(api, 1, 3)}
	feats := in.PhysicalDeviceFeatures(pd, fq)
	if !feats.TimelineSemaphore {
		t.Skip("no timeline semaphores")
	}
	feats.BufferDeviceAddress = false
	fams := in.QueueFamilies(pd)
	fam := uint32(slices.IndexFunc(fams, func(f QueueFamily) bool { return f.QueueFlags&QueueCompute != 0 }))
	d, err := in.CreateDevice(pd, DeviceCreateInfo{
		Queues:       []QueueCreateInfo{{Family: fam, Priorities: []float32{1}}},
		Features:     feats,
		FeatureQuery: fq,
	})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Destroy()
	q := d.Queue(fam, 0)
	types, _ := in.MemoryProperties(pd)
	const n = 4096
	newBuffer := func() (Buffer, DeviceMemory, []byte) {
		b, err := d.CreateBuffer(BufferCreateInfo{Size: n, Usage: BufferUsageTransferSrc | BufferUsageTransferDst})
		if err != nil {
			t.Fatal(err)
		}
		req := d.BufferMemoryRequirements(b)
		ti := -1
		for i := range types {
			if req.MemoryTypeBits&(1<<i) != 0 && types[i].PropertyFlags&(MemoryPropertyHostVisible|MemoryPropertyHostCoherent) == MemoryPropertyHostVisible|MemoryPropertyHostCoherent {
				ti = i
				break
			}
		}
		if ti < 0 {
			t.Fatal("no host-visible coherent memory type")
		}
		m, err := d.AllocateMemory(MemoryAllocateInfo{Size: req.Size, TypeIndex: uint32(ti)})
		if err != nil {
			t.Fatal(err)
		}
		if err := d.BindBufferMemory(b, m, 0); err != nil {
			t.Fatal(err)
		}
		p, err := d.MapMemory(m, 0, WholeSize)
		if err != nil {
			t.Fatal(err)
		}
		return b, m, unsafe.Slice((*byte)(p), n)
	}
	src, srcMem, srcBytes := newBuffer()
	dst, dstMem, dstBytes := newBuffer()
	defer func() {
		d.DestroyBuffer(src)
		d.DestroyBuffer(dst)
		d.FreeMemory(srcMem)
		d.FreeMemory(dstMem)
	}()
	sem, err := d.CreateSemaphore(SemaphoreCreateInfo{Timeline: true, Initial: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer d.DestroySemaphore(sem)
	if v, err := d.SemaphoreCounterValue(sem); v != 1 || err != nil {
		t.Errorf("counter = %d, %v", v, err)
	}
	if r := d.WaitSemaphores([]Semaphore{sem}, []uint64{2}, false, 1000); r != Timeout {
		t.Errorf("WaitSemaphores on an unsignalled value = %v, want VK_TIMEOUT", r)
	}
	pool, err := d.CreateCommandPool(fam, CommandPoolCreateTransient)
	if err != nil {
		t.Fatal(err)
	}
	defer d.DestroyCommandPool(pool)
	cb, err := d.AllocateCommandBuffer(pool)
	if err != nil {
		t.Fatal(err)
	}
	full := MemoryBarrier{SrcStage: PipelineStage2AllCommands, SrcAccess: Access2MemoryWrite,
		DstStage: PipelineStage2AllCommands | PipelineStage2Host, DstAccess: Access2MemoryRead | Access2MemoryWrite}
	for i, sync2 := range []bool{feats.Synchronization2, false} {
		for j := range srcBytes {
			srcBytes[j] = byte(j * (i + 3))
			dstBytes[j] = 0
		}
		if err := d.ResetCommandPool(pool); err != nil {
			t.Fatal(err)
		}
		if err := d.BeginCommandBuffer(cb, true); err != nil {
			t.Fatal(err)
		}
		dep := Dependency{Memory: []MemoryBarrier{full}}
		d.CmdFillBuffer(cb, dst, 0, WholeSize, 0x01010101)
		if sync2 {
			d.CmdPipelineBarrier2(cb, dep)
		} else {
			d.CmdPipelineBarrier(cb, dep)
		}
		d.CmdCopyBuffer(cb, src, dst, []BufferCopy{{SrcOffset: 8, DstOffset: 16, Size: 100}})
		if sync2 {
			d.CmdPipelineBarrier2(cb, dep)
		} else {
			d.CmdPipelineBarrier(cb, dep)
		}
		if err := d.EndCommandBuffer(cb); err != nil {
			t.Fatal(err)
		}
		v := uint64(10 + i)
		info := SubmitInfo{
			Wait:           []SemaphoreSubmit{{Semaphore: sem, Value: 1, Stage: PipelineStage2AllCommands}},
			CommandBuffers: []CommandBuffer{cb},
			Signal:         []SemaphoreSubmit{{Semaphore: sem, Value: v, Stage: PipelineStage2AllCommands}},
		}
		if sync2 {
			err = d.QueueSubmit2(q, info)
		} else {
			err = d.QueueSubmit(q, info, true)
		}
		if err != nil {
			t.Fatal(err)
		}
		if r := d.WaitSemaphores([]Semaphore{sem}, []uint64{v}, false, 10e9); r != Success {
			t.Fatalf("WaitSemaphores = %v", r)
		}
		for j, b := range dstBytes {
			want := byte(1)
			if j >= 16 && j < 116 {
				want = srcBytes[j-8]
			}
			if b != want {
				t.Fatalf("sync2 %v: byte %d = %d, want %d", sync2, j, b, want)
			}
		}
	}
	if err := d.QueueWaitIdle(q); err != nil {
		t.Error(err)
	}
}
