package gfxcuda

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gfxcuda/gfxcuda/cuda"
	"github.com/gfxcuda/gfxcuda/format"
	"github.com/gfxcuda/gfxcuda/kernels"
	"github.com/gfxcuda/gfxcuda/vulkan"
)

// openDevice opens the shared GPU, or skips with a one-line reason when
// there is none (fails instead with GFXCUDA_REQUIRE_CUDA=1).
func openDevice(t testing.TB) *Device {
	t.Helper()
	on := true
	d, err := Open(Options{Validation: &on})
	if err != nil {
		if os.Getenv("GFXCUDA_REQUIRE_CUDA") == "1" {
			t.Fatalf("GPU required: %v", err)
		}
		t.Skipf("no GPU shared by Vulkan and CUDA: %v", err)
	}
	t.Cleanup(func() {
		if err := d.Close(); err != nil {
			t.Errorf("Device.Close: %v", err)
		}
		if msgs := d.inst.TakeValidationErrors(); len(msgs) > 0 {
			t.Errorf("%d Vulkan validation errors, first: %s", len(msgs), msgs[0])
		}
	})
	return d
}

var rng = rand.New(rand.NewChaCha8([32]byte{7, 1, 2}))

func random(n int) []byte {
	b := make([]byte, n)
	for i := 0; i+8 <= n; i += 8 {
		v := rng.Uint64()
		for k := 0; k < 8; k++ {
			b[i+k] = byte(v >> (8 * k))
		}
	}
	for i := n &^ 7; i < n; i++ {
		b[i] = byte(rng.Uint32())
	}
	return b
}

func poisoned(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = 0xCD
	}
	return b
}

// pinned allocates pinned host memory of n bytes filled with data (if any).
func pinned(t testing.TB, d *Device, n int) *cuda.HostMemory {
	h, err := d.CUDA().AllocHost(uint64(n))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { closeT(t, h) })
	return h
}

// TestOpenWithoutCUDA runs TestOpenWithoutCUDAChild in a process that cannot
// load libcuda, so the error path is covered on GPU machines too.
func TestOpenWithoutCUDA(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-test.run=^TestOpenWithoutCUDAChild$", "-test.v")
	cmd.Env = append(os.Environ(), "GFXCUDA_LIBCUDA=/nonexistent/libcuda.so.1", "GFXCUDA_CHILD=1")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS: TestOpenWithoutCUDAChild") {
		t.Fatalf("child: %v\n%s", err, out)
	}
}

func TestOpenWithoutCUDAChild(t *testing.T) {
	if os.Getenv("GFXCUDA_CHILD") != "1" {
		t.Skip("runs only in the child process TestOpenWithoutCUDA starts")
	}
	_, err := Open(Options{})
	if !errors.Is(err, ErrNoSharedGPU) || !errors.Is(err, cuda.ErrNoDriver) {
		t.Errorf("Open without CUDA: %v, want ErrNoSharedGPU wrapping cuda.ErrNoDriver", err)
	}
	if _, err := OpenOrdinal(0, Options{}); !errors.Is(err, cuda.ErrNoDriver) {
		t.Errorf("OpenOrdinal without CUDA: %v, want cuda.ErrNoDriver", err)
	}
}

// TestOpenOrdinal: OpenOrdinal opens the GPU of a CUDA ordinal (the one
// Open picks by that GPU's UUID), refuses an ordinal CUDA lacks with
// ErrNoSharedGPU and a UUID given as well.
func TestOpenOrdinal(t *testing.T) {
	u := cuda.UUID{1}
	if _, err := OpenOrdinal(0, Options{UUID: &u}); err == nil {
		t.Error("OpenOrdinal with Options.UUID succeeded")
	}
	d := openDevice(t) // skips without a shared GPU
	want, err := d.CUDA().Device().UUID()
	if err != nil {
		t.Fatal(err)
	}
	o, err := OpenOrdinal(d.CUDA().Device().Ordinal(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	if got, err := o.CUDA().Device().UUID(); err != nil || got != want {
		t.Errorf("OpenOrdinal(%d) opened %s (%v), want %s", d.CUDA().Device().Ordinal(), got, err, want)
	}
	if _, err := OpenOrdinal(1<<20, Options{}); !errors.Is(err, ErrNoSharedGPU) {
		t.Errorf("OpenOrdinal(1<<20) = %v, want ErrNoSharedGPU", err)
	}
}

// TestFormatErrorOnVulkan checks the format checks and the error text
// against a real Vulkan driver (lavapipe in CI), without CUDA.
func TestFormatErrorOnVulkan(t *testing.T) {
	on := true
	inst, err := vulkan.NewInstance(vulkan.InstanceOptions{Validation: &on})
	if err != nil {
		if os.Getenv("GFXCUDA_REQUIRE_VULKAN") == "1" {
			t.Fatal(err)
		}
		t.Skipf("no Vulkan: %v", err)
	}
	defer closeT(t, inst)
	pds, err := inst.PhysicalDevices()
	if err != nil {
		t.Fatal(err)
	}
	vd, err := inst.NewDevice(pds[0], vulkan.DeviceOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer closeT(t, vd)
	d := &Device{vk: vd}
	if !d.shareable(format.RGBA8UNorm, vulkan.ImageSampled|vulkan.ImageTransferSrc|vulkan.ImageTransferDst) {
		t.Errorf("rgba8_unorm not shareable on %s", pds[0].Name)
	}
	if d.shareable(format.RGB32Float, vulkan.ImageTransferSrc) {
		t.Error("rgb32_float reported shareable (CUDA arrays cannot hold it)")
	}
	err = d.formatError(format.RGB32Float, vulkan.ImageTransferSrc|vulkan.ImageTransferDst, "test")
	for _, want := range []string{"rgb32_float", "VK_FORMAT_R32G32B32_SFLOAT", pds[0].Name, "nearest supported: rgba32_float"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	if u := d.defaultUsage(format.RGBA8UNorm); u&vulkan.ImageSampled == 0 || u&vulkan.ImageTransferDst == 0 {
		t.Errorf("default usage for rgba8: %v", u)
	}
	if msgs := inst.TakeValidationErrors(); len(msgs) > 0 {
		t.Errorf("validation: %v", msgs)
	}
}

// roundTripBuffer checks both directions through one buffer: Vulkan writes
// → CUDA reads; CUDA writes (and runs a kernel) → Vulkan reads.
func roundTripBuffer(t *testing.T, d *Device, b *Buffer) {
	n := int(b.Size())
	want := random(n)
	if err := b.Vulkan().Upload(0, want); err != nil {
		t.Fatal(err)
	}
	host := pinned(t, d, n)
	copy(host.Bytes(), poisoned(n))
	err := b.Map(nil, func(p cuda.DevicePtr, s *cuda.Stream) error { return s.CopyDtoH(host.Bytes(), p) })
	if err != nil {
		t.Fatal(err)
	}
	noErr(t, d.Stream().Synchronize())
	if !bytes.Equal(host.Bytes(), want) {
		t.Fatalf("%d bytes: Vulkan → CUDA differs", n)
	}
	// CUDA writes new data, then xors it in place with a kernel.
	want2 := random(n)
	copy(host.Bytes(), want2)
	mod, err := d.CUDA().LoadModule(kernels.PTX)
	if err != nil {
		t.Fatal(err)
	}
	defer closeT(t, mod)
	xor, err := mod.Function(kernels.XorU32)
	if err != nil {
		t.Fatal(err)
	}
	const key = 0x9e3779b9
	err = b.Map(nil, func(p cuda.DevicePtr, s *cuda.Stream) error {
		if err := s.CopyHtoD(p, host.Bytes()); err != nil {
			return err
		}
		words := uint64(n / 4)
		if words == 0 {
			return nil
		}
		return xor.Launch(s, cuda.Dim3{X: uint32(min((words+255)/256, 4096))}, cuda.Dim3{X: 256}, 0, p, words, uint32(key))
	})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+4 <= n; i += 4 {
		want2[i] ^= 0xb9
		want2[i+1] ^= 0x79
		want2[i+2] ^= 0x37
		want2[i+3] ^= 0x9e
	}
	got := poisoned(n)
	// No empty Run first: the Readback itself waits for CUDA's hand-back.
	if err := b.Vulkan().Readback(0, got); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want2) {
		t.Fatalf("%d bytes: CUDA → Vulkan differs", n)
	}
}

func TestBufferVulkanToCUDA(t *testing.T) {
	d := openDevice(t)
	for _, n := range []uint64{4, 4097, 64<<20 + 12} {
		b, err := d.NewBuffer(n)
		if err != nil {
			t.Fatal(err)
		}
		roundTripBuffer(t, d, b)
		if err := b.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

func TestBufferCUDAToVulkan(t *testing.T) {
	d := openDevice(t)
	for _, n := range []uint64{4, 4097, 64<<20 + 12} {
		b, err := d.NewBufferFromCUDA(n)
		if err != nil {
			t.Fatal(err)
		}
		roundTripBuffer(t, d, b)
		noErr(t, b.Close())
	}
}

func TestBufferRanges(t *testing.T) {
	d := openDevice(t)
	b, err := d.NewBuffer(1 << 20)
	if err != nil {
		t.Fatal(err)
	}
	base := random(1 << 20)
	b.Vulkan().Upload(0, base)
	patch := random(1000)
	h := pinned(t, d, 1000)
	copy(h.Bytes(), patch)
	err = b.Map(nil, func(p cuda.DevicePtr, s *cuda.Stream) error {
		q, err := b.Range(12345, 1000)
		if err != nil {
			return err
		}
		return s.CopyHtoD(q, h.Bytes())
	})
	if err != nil {
		t.Fatal(err)
	}
	copy(base[12345:], patch)
	got := poisoned(1 << 20)
	if err := b.Vulkan().Readback(0, got); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, base) {
		t.Error("sub-range write landed wrong")
	}
	if _, err := b.Range(1<<20-10, 11); err == nil {
		t.Error("Range past the end accepted")
	}
}

// uploadImage writes data (tightly packed, all layers) into the texture
// through Vulkan; readImage reads it back the same way.
func uploadImage(t *testing.T, d *Device, tex *Texture, data []byte) {
	stage, err := d.Vulkan().NewBuffer(vulkan.BufferOptions{Size: uint64(len(data)), Heap: vulkan.HeapUpload})
	if err != nil {
		t.Fatal(err)
	}
	defer closeT(t, stage)
	m, err := stage.Map()
	if err != nil {
		t.Fatal(err)
	}
	copy(m, data)
	err = d.Run(func(c *vulkan.Commands) error {
		c.TransitionImage(tex.Vulkan(), vulkan.LayoutTransferDst)
		c.CopyBufferToImage(tex.Vulkan(), stage, vulkan.BufferImageCopy{})
		c.TransitionImage(tex.Vulkan(), vulkan.LayoutGeneral)
		return c.Err()
	})
	if err != nil {
		t.Fatal(err)
	}
}

func readImage(t *testing.T, d *Device, tex *Texture, n int) []byte {
	stage, err := d.Vulkan().NewBuffer(vulkan.BufferOptions{Size: uint64(n), Heap: vulkan.HeapReadback})
	if err != nil {
		t.Fatal(err)
	}
	defer closeT(t, stage)
	m, err := stage.Map()
	if err != nil {
		t.Fatal(err)
	}
	copy(m, poisoned(n))
	err = d.Run(func(c *vulkan.Commands) error {
		c.TransitionImage(tex.Vulkan(), vulkan.LayoutTransferSrc)
		c.CopyImageToBuffer(stage, tex.Vulkan(), vulkan.BufferImageCopy{})
		c.TransitionImage(tex.Vulkan(), vulkan.LayoutGeneral)
		return c.Err()
	})
	if err != nil {
		t.Fatal(err)
	}
	return append([]byte(nil), m...)
}

// roundTripTexture: Vulkan writes → CUDA copies out; CUDA copies in → Vulkan reads.
func roundTripTexture(t *testing.T, d *Device, tex *Texture, scratch *cuda.DeviceMemory, host *cuda.HostMemory) {
	o := tex.Options()
	n := int(tex.RowBytes()) * int(o.Height) * int(o.Layers)
	want := random(n)
	uploadImage(t, d, tex, want)
	hb := host.Bytes()[:n]
	copy(hb, poisoned(n))
	acc, err := d.ToCUDA(nil, tex)
	if err != nil {
		t.Fatal(err)
	}
	s := acc.Stream()
	if err := s.Memset8(scratch.Ptr(), 0xEE, uint64(n)); err != nil {
		t.Fatal(err)
	}
	if err := tex.CopyTo(s, scratch.Ptr(), 0); err != nil {
		t.Fatal(err)
	}
	if err := s.CopyDtoH(hb, scratch.Ptr()); err != nil {
		t.Fatal(err)
	}
	// The reverse direction in the same access: new data into the texture.
	want2 := random(n)
	if err := s.Synchronize(); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(hb, want) {
		t.Fatalf("%s %dx%dx%d: Vulkan → CUDA differs", tex.Format().Name, o.Width, o.Height, o.Layers)
	}
	copy(hb, want2)
	if err := s.CopyHtoD(scratch.Ptr(), hb); err != nil {
		t.Fatal(err)
	}
	if err := tex.CopyFrom(s, scratch.Ptr(), 0); err != nil {
		t.Fatal(err)
	}
	if err := acc.Done(); err != nil {
		t.Fatal(err)
	}
	got := readImage(t, d, tex, n)
	if !bytes.Equal(got, want2) {
		t.Fatalf("%s %dx%dx%d: CUDA → Vulkan differs", tex.Format().Name, o.Width, o.Height, o.Layers)
	}
}

func TestTextureEveryFormatAndSize(t *testing.T) {
	d := openDevice(t)
	sizes := [][2]uint32{{1, 1}, {33, 17}, {1920, 1080}, {4096, 4096}}
	if testing.Short() {
		sizes = sizes[:3]
	}
	const maxBytes = 4096 * 4096 * 16
	scratch, err := d.CUDA().Alloc(maxBytes)
	if err != nil {
		t.Fatal(err)
	}
	defer closeT(t, scratch)
	host := pinned(t, d, maxBytes)
	shared := 0
	start := time.Now()
	for _, in := range format.All() {
		tex, err := d.NewTexture(TextureOptions{Format: in.Format, Width: 1, Height: 1})
		if err != nil {
			if !errors.Is(err, ErrUnsupported) {
				t.Fatalf("%s: %v", in.Name, err)
			}
			if in.CUDAArrayCapable() {
				t.Logf("%s: not shareable on this device: %v", in.Name, err)
			}
			continue
		}
		noErr(t, tex.Close())
		shared++
		for _, sz := range sizes {
			tex, err := d.NewTexture(TextureOptions{Format: in.Format, Width: sz[0], Height: sz[1]})
			if err != nil {
				t.Fatalf("%s %v: %v", in.Name, sz, err)
			}
			roundTripTexture(t, d, tex, scratch, host)
			if err := tex.Close(); err != nil {
				t.Fatal(err)
			}
		}
	}
	t.Logf("%d formats shared at %d sizes in %v", shared, len(sizes), time.Since(start))
	if shared < 30 {
		t.Errorf("only %d formats shareable", shared)
	}
}

func TestTextureArrayAndSurfaceKernel(t *testing.T) {
	d := openDevice(t)
	tex, err := d.NewTexture(TextureOptions{Format: format.RGBA8UNorm, Width: 257, Height: 65, Layers: 3})
	if err != nil {
		t.Fatal(err)
	}
	defer closeT(t, tex)
	scratch := must(d.CUDA().Alloc(257 * 65 * 4 * 3))(t)
	defer closeT(t, scratch)
	host := pinned(t, d, 257*65*4*3)
	roundTripTexture(t, d, tex, scratch, host)

	// A kernel writes the texture through a surface object; Vulkan sees it.
	n := 257 * 65 * 4 * 3
	want := random(n)
	uploadImage(t, d, tex, want)
	mod, err := d.CUDA().LoadModule(kernels.PTX)
	if err != nil {
		t.Fatal(err)
	}
	defer closeT(t, mod)
	fn := must(mod.Function(kernels.SurfXor))(t)
	surf, err := tex.Surface()
	if err != nil {
		t.Fatal(err)
	}
	err = tex.Map(nil, func(_ *cuda.Array, s *cuda.Stream) error {
		return fn.Launch(s, cuda.Dim3{X: (257 + 15) / 16, Y: (65 + 15) / 16}, cuda.Dim3{X: 16, Y: 16}, 0,
			surf, uint32(257), uint32(65), uint32(3), uint32(4), uint32(0xA5A5A5A5))
	})
	if err != nil {
		t.Fatal(err)
	}
	for i := range want {
		want[i] ^= 0xA5
	}
	if got := readImage(t, d, tex, n); !bytes.Equal(got, want) {
		t.Error("surface kernel result differs in Vulkan")
	}
}

func TestFormatErrors(t *testing.T) {
	d := openDevice(t)
	_, err := d.NewTexture(TextureOptions{Format: format.RGB32Float, Width: 4, Height: 4})
	if !errors.Is(err, ErrUnsupported) {
		t.Fatalf("rgb32_float: %v", err)
	}
	msg := err.Error()
	for _, want := range []string{"rgb32_float", d.Vulkan().Physical().Name, "nearest supported: rgba32_float"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error %q lacks %q", msg, want)
		}
	}
}

func TestHandOffMisuse(t *testing.T) {
	d := openDevice(t)
	b, err := d.NewBuffer(4096)
	if err != nil {
		t.Fatal(err)
	}
	tex := must(d.NewTexture(TextureOptions{Format: format.R32Float, Width: 8, Height: 8}))(t)
	acc, err := d.ToCUDA(nil, b)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.ToCUDA(nil, b); !errors.Is(err, ErrHeldByCUDA) {
		t.Errorf("second ToCUDA: %v", err)
	}
	if err := tex.CopyTo(d.Stream(), b.Ptr(), 0); !errors.Is(err, ErrNotHeld) {
		t.Errorf("copy of a texture Vulkan holds: %v", err)
	}
	noErr(t, acc.Done())
	if err := acc.Done(); err != nil {
		t.Errorf("second Done: %v", err)
	}
	// Back to Vulkan and to CUDA again without Vulkan work in between.
	for i := 0; i < 100; i++ {
		if err := b.Map(nil, func(cuda.DevicePtr, *cuda.Stream) error { return nil }); err != nil {
			t.Fatal(err)
		}
	}
	// Closed resources are refused, never crash.
	noErr(t, b.Close())
	noErr(t, b.Close())
	if _, err := d.ToCUDA(nil, b); !errors.Is(err, ErrClosed) {
		t.Errorf("ToCUDA of a closed buffer: %v", err)
	}
}

func TestCloseOrder(t *testing.T) {
	on := true
	d, err := Open(Options{Validation: &on})
	if err != nil {
		if os.Getenv("GFXCUDA_REQUIRE_CUDA") == "1" {
			t.Fatal(err)
		}
		t.Skipf("no shared GPU: %v", err)
	}
	b := must(d.NewBuffer(1 << 16))(t)
	tex := must(d.NewTexture(TextureOptions{Format: format.RGBA8UNorm, Width: 64, Height: 64}))(t)
	acc := must(d.ToCUDA(nil, b, tex))(t) // left open on purpose
	if err := d.Close(); err != nil {
		t.Fatalf("Device.Close with open children: %v", err)
	}
	if err := b.Close(); err != nil {
		t.Error(err)
	}
	if err := tex.Close(); err != nil {
		t.Error(err)
	}
	if err := acc.Done(); !errors.Is(err, ErrClosed) {
		t.Errorf("Done after Device.Close: %v", err)
	}
	if _, err := d.NewBuffer(16); !errors.Is(err, ErrClosed) {
		t.Errorf("NewBuffer after Close: %v", err)
	}
	if err := d.Close(); err != nil {
		t.Error(err)
	}
}

func countFDs(t testing.TB) int {
	e, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	return len(e)
}

// fdTargets maps this process's open descriptors to what they point at.
func fdTargets(t testing.TB) map[string]string {
	e, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	m := make(map[string]string, len(e))
	for _, f := range e {
		m[f.Name()], _ = os.Readlink("/proc/self/fd/" + f.Name())
	}
	return m
}

// newFDs waits up to 2 s for descriptors opened since before (a map from
// fdTargets) to close, as descriptors closed by the driver's or
// NCCL's own threads may still be on their way, and returns those left,
// with their targets, for the failure message.
func newFDs(t testing.TB, before map[string]string) []string {
	var extra []string
	for deadline := time.Now().Add(2 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		extra = extra[:0]
		for fd, target := range fdTargets(t) {
			if before[fd] != target {
				extra = append(extra, fd+" → "+target)
			}
		}
		if len(extra) == 0 || time.Now().After(deadline) {
			return extra
		}
	}
}

func TestNoLeaks(t *testing.T) {
	d := openDevice(t)
	cycle := func() {
		b, err := d.NewBuffer(1 << 20)
		if err != nil {
			t.Fatal(err)
		}
		c, err := d.NewBufferFromCUDA(1 << 20)
		if err != nil {
			t.Fatal(err)
		}
		tex, err := d.NewTexture(TextureOptions{Format: format.RGBA8UNorm, Width: 256, Height: 256})
		if err != nil {
			t.Fatal(err)
		}
		acc, err := d.ToCUDA(nil, b, c, tex)
		if err != nil {
			t.Fatal(err)
		}
		noErr(t, acc.Done())
		for _, x := range []interface{ Close() error }{tex, c, b} {
			if err := x.Close(); err != nil {
				t.Fatal(err)
			}
		}
	}
	for i := 0; i < 20; i++ { // warm up driver caches
		cycle()
	}
	noErr(t, d.CUDA().Synchronize())
	free0, _, err := d.CUDA().MemInfo()
	noErr(t, err)
	fd0 := countFDs(t)
	for i := 0; i < 1000; i++ {
		cycle()
	}
	noErr(t, d.CUDA().Synchronize())
	free1, _, err := d.CUDA().MemInfo()
	noErr(t, err)
	if fd1 := countFDs(t); fd1 != fd0 {
		t.Errorf("open fds %d → %d after 1000 cycles", fd0, fd1)
	}
	if free0 > free1+8<<20 {
		t.Errorf("free GPU memory %d → %d MiB after 1000 cycles", free0>>20, free1>>20)
	}
}

// TestTextureFromCUDA is Gfx2Cuda's texture(tensor): a texture shaped like
// a CUDA image, holding its data, read back through Vulkan.
func TestTextureFromCUDA(t *testing.T) {
	d := openDevice(t)
	const w, h, ch = 37, 19, 4
	for _, dt := range []format.DType{{Code: format.DLUInt, Bits: 8, Lanes: 1}, {Code: format.DLFloat, Bits: 32, Lanes: 1}, {Code: format.DLFloat, Bits: 16, Lanes: 1}} {
		n := w * h * ch * int(dt.Bits) / 8
		data := random(n)
		img, err := d.CUDA().Alloc(uint64(n))
		if err != nil {
			t.Fatal(err)
		}
		if err := d.CUDA().CopyHtoD(img.Ptr(), data); err != nil {
			t.Fatal(err)
		}
		tex, err := d.NewTextureFromCUDA(nil, img.Ptr(), 0, w, h, ch, dt)
		if err != nil {
			t.Fatalf("%s: %v", dt.TypeStr(), err)
		}
		want := must(format.ForDType(dt, ch))(t)
		if tex.Options().Format != want || tex.Options().Width != w || tex.Options().Height != h {
			t.Errorf("%s: texture %+v", dt.TypeStr(), tex.Options())
		}
		if got := readImage(t, d, tex, n); !bytes.Equal(got, data) {
			t.Errorf("%s: texture contents differ from the CUDA image", dt.TypeStr())
		}
		noErr(t, tex.Close())
		noErr(t, img.Close())
	}
	if _, err := d.NewTextureFromCUDA(nil, 0, 0, 4, 4, 3, format.DType{Code: format.DLFloat, Bits: 32, Lanes: 1}); err == nil {
		t.Error("3-channel texture accepted")
	}
}

// TestTextureFromCUDAAfterSync: the image is written on a non-blocking
// stream the call is not told of; NewTextureFromCUDAAfterSync synchronizes
// the context first, so the texture holds what that stream wrote.
func TestTextureFromCUDAAfterSync(t *testing.T) {
	d := openDevice(t)
	const w, h, ch = 33, 17, 4
	n := w * h * ch
	img, err := d.CUDA().Alloc(uint64(n))
	if err != nil {
		t.Fatal(err)
	}
	defer img.Close()
	s, err := d.CUDA().NewStream(cuda.StreamNonBlocking)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	noErr(t, s.Memset8(img.Ptr(), 0x5A, uint64(n)))
	tex, err := d.NewTextureFromCUDAAfterSync(img.Ptr(), 0, w, h, ch, format.DType{Code: format.DLUInt, Bits: 8, Lanes: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer tex.Close()
	if got := readImage(t, d, tex, n); !bytes.Equal(got, bytes.Repeat([]byte{0x5A}, n)) {
		t.Error("texture contents differ from what the other stream wrote")
	}
}

// noErr reports err, if any, as a test error.
func noErr(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Error(err)
	}
}

// closeT closes c, reporting an error.
func closeT(t testing.TB, c interface{ Close() error }) {
	t.Helper()
	noErr(t, c.Close())
}

// must returns v, failing the test on err: must(f())(t).
func must[T any](v T, err error) func(testing.TB) T {
	return func(t testing.TB) T {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
}

// CopyFromSync and CopyToSync read and write the caller's pointer in order
// with the caller's stream: the bytes a stream is still writing (after a
// long memset) are the ones copied. Needs the GPU.
func TestSyncCopiesOrderWithCallerStream(t *testing.T) {
	d := openDevice(t)
	const w, h = 1024, 512
	n := w * h * 4
	tex := must(d.NewTexture(TextureOptions{Format: format.RGBA8UNorm, Width: w, Height: h}))(t)
	defer closeT(t, tex)
	s := must(d.CUDA().NewStream(cuda.StreamNonBlocking))(t)
	defer closeT(t, s)
	src := must(d.CUDA().Alloc(uint64(n)))(t)
	defer closeT(t, src)
	dst := must(d.CUDA().Alloc(uint64(n)))(t)
	defer closeT(t, dst)
	delay := must(d.CUDA().Alloc(1 << 30))(t) // keeps s busy a while
	defer closeT(t, delay)
	host := pinned(t, d, n)
	for round := range 3 {
		want := random(n)
		copy(host.Bytes(), want)
		if err := s.Memset32(delay.Ptr(), uint32(round), (1<<30)/4); err != nil {
			t.Fatal(err)
		}
		if err := s.CopyHtoD(src.Ptr(), host.Bytes()[:n]); err != nil {
			t.Fatal(err)
		}
		if err := tex.CopyFromSync(s, src.Ptr(), 0); err != nil {
			t.Fatal(err)
		}
		if err := s.Memset8(dst.Ptr(), 0xCD, uint64(n)); err != nil {
			t.Fatal(err)
		}
		if err := tex.CopyToSync(s, dst.Ptr(), 0); err != nil {
			t.Fatal(err)
		}
		got := make([]byte, n)
		if err := d.CUDA().CopyDtoH(got, dst.Ptr()); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("round %d: the texture does not hold what the caller's stream wrote", round)
		}
	}
	// nil: ordered with the legacy default stream.
	want := random(n)
	if err := d.CUDA().CopyHtoD(src.Ptr(), want); err != nil {
		t.Fatal(err)
	}
	if err := tex.CopyFromSync(nil, src.Ptr(), 0); err != nil {
		t.Fatal(err)
	}
	if err := tex.CopyToSync(nil, dst.Ptr(), 0); err != nil {
		t.Fatal(err)
	}
	got := make([]byte, n)
	if err := d.CUDA().CopyDtoH(got, dst.Ptr()); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatal("legacy-stream round trip differs")
	}
}

// Texture.Surface is safe for concurrent use (run with -race). Needs the GPU.
func TestSurfaceConcurrent(t *testing.T) {
	d := openDevice(t)
	tex := must(d.NewTexture(TextureOptions{Format: format.RGBA8UNorm, Width: 64, Height: 64}))(t)
	defer closeT(t, tex)
	surfs := make([]cuda.SurfObject, 8)
	errs := make([]error, 8)
	var wg sync.WaitGroup
	for i := range surfs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			surfs[i], errs[i] = tex.Surface()
		}()
	}
	wg.Wait()
	for i := range surfs {
		if errs[i] != nil || surfs[i] == 0 || surfs[i] != surfs[0] {
			t.Fatalf("Surface %d: %v, %v (first %v)", i, surfs[i], errs[i], surfs[0])
		}
	}
}

// TestTextureCopyStream: CopyFromStream outside a hand-off (through Map)
// and CopyToStream inside an explicit one on another stream (ordered
// after and before the hand-off's stream) round-trip the texels; a copy
// after the hand-off's end goes through Map again.
func TestTextureCopyStream(t *testing.T) {
	d := openDevice(t)
	const w, h = 29, 13
	tex, err := d.NewTexture(TextureOptions{Format: format.RGBA8UNorm, Width: w, Height: h})
	if err != nil {
		t.Fatal(err)
	}
	defer closeT(t, tex)
	n := w * h * 4
	data := random(n)
	src := must(d.CUDA().Alloc(uint64(n)))(t)
	defer closeT(t, src)
	dst := must(d.CUDA().Alloc(uint64(n)))(t)
	defer closeT(t, dst)
	noErr(t, d.CUDA().CopyHtoD(src.Ptr(), data))
	s := must(d.CUDA().NewStream(cuda.StreamNonBlocking))(t)
	defer closeT(t, s)
	noErr(t, tex.CopyFromStream(s, src.Ptr(), 0))
	held := must(d.CUDA().NewStream(cuda.StreamNonBlocking))(t)
	defer closeT(t, held)
	acc, err := d.ToCUDA(held, tex)
	if err != nil {
		t.Fatal(err)
	}
	noErr(t, tex.CopyToStream(s, dst.Ptr(), 0))
	noErr(t, acc.Done())
	noErr(t, held.Synchronize())
	got := make([]byte, n)
	noErr(t, d.CUDA().CopyDtoH(got, dst.Ptr()))
	if !bytes.Equal(got, data) {
		t.Error("texels copied inside the hand-off differ")
	}
	noErr(t, d.CUDA().Synchronize())
	noErr(t, s.Memset8(dst.Ptr(), 0, uint64(n)))
	noErr(t, tex.CopyToStream(s, dst.Ptr(), 0)) // after Done: Map again
	noErr(t, s.Synchronize())
	noErr(t, d.CUDA().CopyDtoH(got, dst.Ptr()))
	if !bytes.Equal(got, data) {
		t.Error("texels copied after the hand-off differ")
	}
}
