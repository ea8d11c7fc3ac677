package vulkan

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// testDevice returns a device on the preferred physical device of in: a
// GPU where there is one, else the first device (lavapipe here).
func testDevice(t testing.TB, in *Instance) *Device {
	t.Helper()
	pds := physicalDevices(t, in)
	pd := pds[0]
	for _, p := range pds {
		if !p.IsSoftware() {
			pd = p
			break
		}
	}
	d, err := in.NewDevice(pd, DeviceOptions{})
	if err != nil {
		t.Fatalf("NewDevice(%s): %v", pd.Name, err)
	}
	t.Cleanup(func() {
		if err := d.Close(); err != nil {
			t.Errorf("Device.Close: %v", err)
		}
	})
	return d
}

// sameDevice returns a device of in on the physical device d is on.
func sameDevice(t testing.TB, in *Instance, d *Device) *Device {
	t.Helper()
	for _, pd := range physicalDevices(t, in) {
		if pd.DeviceUUID == d.Physical().DeviceUUID && pd.DriverUUID == d.Physical().DriverUUID {
			d2, err := in.NewDevice(pd, DeviceOptions{})
			if err != nil {
				t.Fatalf("NewDevice(%s): %v", pd.Name, err)
			}
			t.Cleanup(func() { d2.Close() })
			return d2
		}
	}
	t.Fatalf("no physical device with the UUID of %s", d)
	return nil
}

// barrierModes runs f with synchronization2 barriers and submissions (where
// the device has them) and with the Vulkan 1.0 ones.
func barrierModes(t *testing.T, d *Device, f func(t *testing.T)) {
	t.Helper()
	modes := []bool{false}
	if d.sync2 {
		modes = []bool{true, false}
	}
	for _, s2 := range modes {
		name := "classic"
		if s2 {
			name = "sync2"
		}
		t.Run(name, func(t *testing.T) {
			old := d.sync2
			d.sync2 = s2
			defer func() { d.sync2 = old }()
			f(t)
		})
	}
}

func randomBytes(seed uint64, n int) []byte {
	r := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

// poisoned returns n bytes of 0xa5.
func poisoned(n int) []byte { return bytes.Repeat([]byte{0xa5}, n) }

// firstDiff describes the first difference of got and want.
func firstDiff(got, want []byte) string {
	if len(got) != len(want) {
		return fmt.Sprintf("length %d, want %d", len(got), len(want))
	}
	for i := range got {
		if got[i] != want[i] {
			return fmt.Sprintf("byte %d is 0x%02x, want 0x%02x", i, got[i], want[i])
		}
	}
	return ""
}

func mustEqual(t testing.TB, what string, got, want []byte) {
	t.Helper()
	if diff := firstDiff(got, want); diff != "" {
		t.Fatalf("%s: %s", what, diff)
	}
}

// allowDriverErrors drains the captured error messages and fails the test
// on any that does not contain one of allowed. Drivers report the errors
// they return through the messenger too (lavapipe does, as the bare name
// of the VkResult).
func allowDriverErrors(t testing.TB, in *Instance, allowed ...string) {
	t.Helper()
	for _, m := range in.TakeValidationErrors() {
		ok := false
		for _, a := range allowed {
			ok = ok || strings.Contains(m, a)
		}
		if !ok {
			t.Errorf("validation error: %s", m)
		}
	}
}

func fdCount(t testing.TB) int { return len(openFDs(t)) }

func TestChooseMemoryType(t *testing.T) {
	// The memory types of an NVIDIA discrete GPU with resizable BAR.
	nv := []MemoryType{
		{HeapIndex: 1, Flags: 0},
		{HeapIndex: 0, Flags: MemoryDeviceLocal},
		{HeapIndex: 1, Flags: MemoryHostVisible | MemoryHostCoherent},
		{HeapIndex: 1, Flags: MemoryHostVisible | MemoryHostCoherent | MemoryHostCached},
		{HeapIndex: 2, Flags: MemoryDeviceLocal | MemoryHostVisible | MemoryHostCoherent},
	}
	// lavapipe: one type of everything.
	lvp := []MemoryType{{Flags: MemoryDeviceLocal | MemoryHostVisible | MemoryHostCoherent | MemoryHostCached}}
	// An integrated GPU with a non-coherent cached type and a lazily
	// allocated one.
	igpu := []MemoryType{
		{Flags: MemoryDeviceLocal | MemoryLazilyAllocated},
		{Flags: MemoryDeviceLocal | MemoryHostVisible | MemoryHostCached},
		{Flags: MemoryDeviceLocal | MemoryHostVisible | MemoryHostCoherent},
		{Flags: MemoryDeviceLocal | 0x40}, // AMD device-coherent
	}
	for _, tc := range []struct {
		name  string
		types []MemoryType
		bits  uint32
		heap  Heap
		want  int
	}{
		{"nv default", nv, 0x1f, HeapDefault, 1},
		{"nv upload", nv, 0x1f, HeapUpload, 2},
		{"nv readback", nv, 0x1f, HeapReadback, 3},
		{"nv upload, BAR only", nv, 1 << 4, HeapUpload, 4},
		{"nv default, host only", nv, 0xc, HeapDefault, 2},
		{"lvp default", lvp, 1, HeapDefault, 0},
		{"lvp upload", lvp, 1, HeapUpload, 0},
		{"lvp readback", lvp, 1, HeapReadback, 0},
		{"igpu default", igpu, 0xf, HeapDefault, 1},
		{"igpu upload", igpu, 0xf, HeapUpload, 2},
		{"igpu readback", igpu, 0xf, HeapReadback, 1},
		{"none", nv, 0, HeapDefault, -1},
		{"no host-visible", nv, 1 << 1, HeapUpload, -1},
		{"only lazy", igpu, 1, HeapDefault, -1},
	} {
		got, err := chooseMemoryType(tc.types, tc.bits, tc.heap)
		if got != tc.want || (err != nil) != (tc.want < 0) {
			t.Errorf("%s: chooseMemoryType = %d, %v; want %d", tc.name, got, err, tc.want)
		}
	}
}

func TestBufferHeaps(t *testing.T) {
	in := newTestInstance(t)
	d := testDevice(t, in)
	for _, heap := range []Heap{HeapDefault, HeapUpload, HeapReadback} {
		for _, size := range []int{1, 4097, 1 << 20} {
			t.Run(fmt.Sprintf("%v/%d", heap, size), func(t *testing.T) {
				b, err := d.NewBuffer(BufferOptions{Size: uint64(size), Heap: heap})
				if err != nil {
					t.Fatal(err)
				}
				defer b.Close()
				if b.Size() != uint64(size) || b.AllocationSize() < uint64(size) || b.Heap() != heap {
					t.Errorf("Size %d, AllocationSize %d, Heap %v", b.Size(), b.AllocationSize(), b.Heap())
				}
				if b.Usage()&(BufferStorage|BufferUniform|BufferTransferSrc|BufferTransferDst|BufferIndirect) !=
					BufferStorage|BufferUniform|BufferTransferSrc|BufferTransferDst|BufferIndirect {
					t.Errorf("default usage %v", b.Usage())
				}
				data := randomBytes(uint64(size), size)
				if err := b.Upload(0, data); err != nil {
					t.Fatal(err)
				}
				got := poisoned(size)
				if err := b.Readback(0, got); err != nil {
					t.Fatal(err)
				}
				mustEqual(t, "whole buffer", got, data)

				// An odd range in the middle.
				if size > 2 {
					off, n := uint64(1), size-2
					part := randomBytes(uint64(size)+1, n)
					if err := b.Upload(off, part); err != nil {
						t.Fatal(err)
					}
					copy(data[off:], part)
					got := poisoned(size)
					if err := b.Readback(0, got); err != nil {
						t.Fatal(err)
					}
					mustEqual(t, "after a partial upload", got, data)
					got = poisoned(n - 1)
					if err := b.Readback(off+1, got); err != nil {
						t.Fatal(err)
					}
					mustEqual(t, "partial readback", got, data[off+1:off+uint64(n)])
				}

				if err := b.Upload(uint64(size), []byte{1}); err == nil {
					t.Error("Upload past the end succeeded")
				}
				if err := b.Readback(1, make([]byte, size)); err == nil {
					t.Error("Readback past the end succeeded")
				}

				m, err := b.Map()
				if heap == HeapDefault {
					if err == nil {
						t.Error("Map of a HeapDefault buffer succeeded")
					}
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				if len(m) != size {
					t.Fatalf("Map: %d bytes", len(m))
				}
				mustEqual(t, "mapped bytes", m, data)
				fresh := randomBytes(uint64(size)+2, size)
				copy(m, fresh)
				if err := b.Flush(0, uint64(size)); err != nil {
					t.Fatal(err)
				}
				got = poisoned(size)
				if err := b.Readback(0, got); err != nil {
					t.Fatal(err)
				}
				mustEqual(t, "Readback after writing the mapping", got, fresh)
			})
		}
	}
}

func TestCopyAndFill(t *testing.T) {
	in := newTestInstance(t)
	d := testDevice(t, in)
	barrierModes(t, d, func(t *testing.T) {
		const n = 64 << 10
		src, err := d.NewBuffer(BufferOptions{Size: n, Heap: HeapUpload})
		if err != nil {
			t.Fatal(err)
		}
		defer src.Close()
		mid, err := d.NewBuffer(BufferOptions{Size: n})
		if err != nil {
			t.Fatal(err)
		}
		defer mid.Close()
		dst, err := d.NewBuffer(BufferOptions{Size: n, Heap: HeapReadback})
		if err != nil {
			t.Fatal(err)
		}
		defer dst.Close()
		data := randomBytes(7, n)
		if err := src.Upload(0, data); err != nil {
			t.Fatal(err)
		}
		if err := dst.Upload(0, poisoned(n)); err != nil {
			t.Fatal(err)
		}

		want := poisoned(n)
		fill := func(b []byte, off, size int, v uint32) {
			for i := off; i < off+size; i += 4 {
				b[i], b[i+1], b[i+2], b[i+3] = byte(v), byte(v>>8), byte(v>>16), byte(v>>24)
			}
		}
		// mid: filled, then partly overwritten from src; dst gets pieces.
		midWant := make([]byte, n)
		fill(midWant, 0, n, 0xdeadbeef)
		copy(midWant[1000:], data[333:333+20001])
		fill(midWant, 40000, 1024, 0x01020304)
		copy(want[5:], midWant[0:50000])
		copy(want[60000:], data[1:1+5000])
		copy(want[59999:60000], midWant[n-1:])

		c, err := d.NewCommands()
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		c.FillBuffer(mid, 0, 0, 0xdeadbeef)
		c.MemoryBarrier()
		c.CopyBuffer(mid, src, 1000, 333, 20001)
		c.MemoryBarrier()
		c.FillBuffer(mid, 40000, 1024, 0x01020304)
		c.MemoryBarrier()
		c.CopyBuffer(dst, mid, 5, 0, 50000)
		c.CopyBuffer(dst, src, 60000, 1, 5000)
		c.CopyBuffer(dst, mid, 59999, n-1, 1)
		c.MemoryBarrier()
		if err := c.Err(); err != nil {
			t.Fatal(err)
		}
		if err := c.Submit(SubmitOptions{}); err != nil {
			t.Fatal(err)
		}
		if err := c.Wait(10 * time.Second); err != nil {
			t.Fatal(err)
		}
		if !c.Done() {
			t.Error("Done = false after Wait")
		}
		got := poisoned(n)
		if err := dst.Readback(0, got); err != nil {
			t.Fatal(err)
		}
		mustEqual(t, "dst", got, want)
		gotMid := poisoned(n)
		if err := mid.Readback(0, gotMid); err != nil {
			t.Fatal(err)
		}
		mustEqual(t, "mid", gotMid, midWant)

		// Reuse after Reset.
		if err := c.Reset(); err != nil {
			t.Fatal(err)
		}
		c.FillBuffer(dst, 4, 8, 0)
		c.MemoryBarrier()
		if err := c.Submit(SubmitOptions{}); err != nil {
			t.Fatal(err)
		}
		if err := c.Wait(-1); err != nil {
			t.Fatal(err)
		}
		fill(want, 4, 8, 0)
		if err := dst.Readback(0, got); err != nil {
			t.Fatal(err)
		}
		mustEqual(t, "dst after the second batch", got, want)
	})
}

func TestCommandErrors(t *testing.T) {
	in := newTestInstance(t)
	d := testDevice(t, in)
	a, err := d.NewBuffer(BufferOptions{Size: 256})
	if err != nil {
		t.Fatal(err)
	}
	img, err := d.NewImage(ImageOptions{Format: uint32(fmtR8G8B8A8Unorm), Width: 4, Height: 4})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		record func(c *Commands)
		want   string
	}{
		{"copy out of range", func(c *Commands) { c.CopyBuffer(a, a, 0, 200, 100) }, "outside"},
		{"overlap", func(c *Commands) { c.CopyBuffer(a, a, 0, 10, 20) }, "overlapping"},
		{"fill unaligned", func(c *Commands) { c.FillBuffer(a, 2, 8, 0) }, "multiples of 4"},
		{"nil buffer", func(c *Commands) { c.FillBuffer(nil, 0, 4, 0) }, "nil buffer"},
		{"wrong layout", func(c *Commands) { c.CopyBufferToImage(img, a, BufferImageCopy{}) }, "TransitionImage"},
		{"region", func(c *Commands) {
			c.TransitionImage(img, LayoutTransferDst)
			c.CopyBufferToImage(img, a, BufferImageCopy{X: 2, Width: 3})
		}, "outside"},
		{"buffer too small", func(c *Commands) {
			c.TransitionImage(img, LayoutGeneral)
			c.CopyBufferToImage(img, a, BufferImageCopy{BufferOffset: 200})
		}, "outside"},
		{"unaligned offset", func(c *Commands) {
			c.TransitionImage(img, LayoutGeneral)
			c.CopyImageToBuffer(a, img, BufferImageCopy{BufferOffset: 2, Width: 1, Height: 1})
		}, "multiple of 4"},
		{"undefined layout", func(c *Commands) { c.TransitionImage(img, LayoutUndefined) }, "cannot transition"},
	} {
		c, err := d.NewCommands()
		if err != nil {
			t.Fatal(err)
		}
		tc.record(c)
		err = c.Err()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: Err() = %v, want one saying %q", tc.name, err, tc.want)
		}
		c.FillBuffer(a, 0, 4, 1) // ignored
		if err2 := c.Submit(SubmitOptions{}); err2 != err {
			t.Errorf("%s: Submit = %v, want the recording error", tc.name, err2)
		}
		if err := c.Reset(); err != nil || c.Err() != nil {
			t.Errorf("%s: Reset = %v, Err %v", tc.name, err, c.Err())
		}
		c.Close()
	}

	// A batch that uses a buffer closed before submission.
	b, err := d.NewBuffer(BufferOptions{Size: 64})
	if err != nil {
		t.Fatal(err)
	}
	c, err := d.NewCommands()
	if err != nil {
		t.Fatal(err)
	}
	c.FillBuffer(b, 0, 0, 7)
	b.Close()
	if err := c.Submit(SubmitOptions{}); !errors.Is(err, ErrClosed) {
		t.Errorf("Submit with a closed buffer = %v, want ErrClosed", err)
	}
	c.FillBuffer(b, 0, 0, 7)
	if err := c.Reset(); err != nil {
		t.Fatal(err)
	}
	c.FillBuffer(b, 0, 0, 7)
	if err := c.Err(); !errors.Is(err, ErrClosed) {
		t.Errorf("recording on a closed buffer: Err = %v, want ErrClosed", err)
	}
	if err := c.Reset(); err != nil {
		t.Fatal(err)
	}
	if err := c.Wait(0); err == nil {
		t.Error("Wait on a batch not submitted succeeded")
	}
	if err := c.Submit(SubmitOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := c.Submit(SubmitOptions{}); err == nil {
		t.Error("second Submit succeeded")
	}
	if err := c.Wait(time.Minute); err != nil {
		t.Fatal(err)
	}
	c.Close()
	c.Close()
	if err := c.Submit(SubmitOptions{}); !errors.Is(err, ErrClosed) {
		t.Errorf("Submit after Close = %v", err)
	}
	if err := c.Reset(); !errors.Is(err, ErrClosed) {
		t.Errorf("Reset after Close = %v", err)
	}
	if err := c.Err(); !errors.Is(err, ErrClosed) {
		t.Errorf("Err after Close = %v", err)
	}
	c.FillBuffer(a, 0, 4, 1) // nothing, no crash

	// Run returns record's error, and the batch is not submitted.
	boom := errors.New("boom")
	if err := d.Run(func(c *Commands) error { c.FillBuffer(a, 0, 0, 1); return boom }); err != boom {
		t.Errorf("Run = %v, want boom", err)
	}
	if err := d.Run(func(c *Commands) error { c.FillBuffer(a, 1, 0, 1); return nil }); err == nil {
		t.Error("Run with a recording error succeeded")
	}
}

// imageCase is one image of TestImages.
type imageCase struct {
	name string
	o    ImageOptions
}

func TestImages(t *testing.T) {
	in := newTestInstance(t)
	d := testDevice(t, in)
	cases := []imageCase{
		{"1D rgba8", ImageOptions{Dim: Image1D, Format: uint32(fmtR8G8B8A8Unorm), Width: 300}},
		{"1D array r32f", ImageOptions{Dim: Image1D, Format: uint32(fmtR32Sfloat), Width: 77, Layers: 3}},
		{"2D rgba8", ImageOptions{Format: uint32(fmtR8G8B8A8Unorm), Width: 137, Height: 61}},
		{"2D bgra8", ImageOptions{Dim: Image2D, Format: uint32(fmtB8G8R8A8Unorm), Width: 32, Height: 9}},
		{"2D r32f", ImageOptions{Dim: Image2D, Format: uint32(fmtR32Sfloat), Width: 65, Height: 33}},
		{"2D r8", ImageOptions{Dim: Image2D, Format: uint32(fmtR8Unorm), Width: 31, Height: 7}},
		{"2D rgba16f", ImageOptions{Dim: Image2D, Format: uint32(fmtR16G16B16A16Sfloat), Width: 40, Height: 23}},
		{"2D rgba32f", ImageOptions{Dim: Image2D, Format: uint32(fmtR32G32B32A32Sfloat), Width: 19, Height: 17}},
		{"2D array rgba8", ImageOptions{Dim: Image2D, Format: uint32(fmtR8G8B8A8Unorm), Width: 29, Height: 13, Layers: 4}},
		{"3D rgba8", ImageOptions{Dim: Image3D, Format: uint32(fmtR8G8B8A8Unorm), Width: 17, Height: 9, Depth: 5}},
		{"3D r32ui", ImageOptions{Dim: Image3D, Format: uint32(fmtR32Uint), Width: 8, Height: 8, Depth: 8}},
		{"2D d32f", ImageOptions{Dim: Image2D, Format: uint32(fmtD32Sfloat), Width: 16, Height: 8}},
	}
	barrierModes(t, d, func(t *testing.T) {
		for i, tc := range cases {
			t.Run(tc.name, func(t *testing.T) { testImage(t, d, tc.o, uint64(i)) })
		}
	})
}

// texelOffset is the byte offset of texel (x, y, z) of layer l in a tightly
// packed copy of an image of o.
func texelOffset(o ImageOptions, bs, x, y, z, l uint32) int {
	return int(((l*o.Depth+z)*o.Height+y)*o.Width+x) * int(bs)
}

func testImage(t *testing.T, d *Device, o ImageOptions, seed uint64) {
	img, err := d.NewImage(o)
	if err != nil {
		t.Fatal(err)
	}
	defer img.Close()
	o = img.Options()
	if img.Layout() != LayoutUndefined {
		t.Errorf("initial layout %v", img.Layout())
	}
	bs, _, _ := FormatBlock(o.Format)
	texels := o.Width * o.Height * o.Depth * o.Layers
	size := int(texels * bs)
	data := imageData(o, seed, size)

	// A sub-region: from texel (1, 1, 1) or as far as the image allows,
	// half the extent, the last layers, from a padded buffer region.
	x, y, z := min(1, o.Width-1), min(1, o.Height-1), min(1, o.Depth-1)
	w, h, dp := max(o.Width/2, 1), max(o.Height/2, 1), max(o.Depth/2, 1)
	baseLayer := o.Layers / 2
	layers := o.Layers - baseLayer
	rowLen, imgH := w+3, h+2
	if o.Dim == Image1D {
		imgH = 1
	}
	subOff := uint64(bs * 5)
	if bs%4 != 0 {
		subOff = uint64(bs * 4)
	}
	subBytes := int(rowLen*imgH*dp*layers*bs) + int(subOff)
	total := size + subBytes
	up, err := d.NewBuffer(BufferOptions{Size: uint64(total), Heap: HeapUpload})
	if err != nil {
		t.Fatal(err)
	}
	defer up.Close()
	down, err := d.NewBuffer(BufferOptions{Size: uint64(total), Heap: HeapReadback})
	if err != nil {
		t.Fatal(err)
	}
	defer down.Close()
	if err := up.Upload(0, data); err != nil {
		t.Fatal(err)
	}
	sub := imageData(o, seed+100, subBytes)
	region := BufferImageCopy{
		BufferOffset: subOff, RowLength: rowLen, ImageHeight: imgH,
		X: int32(x), Y: int32(y), Z: int32(z), Width: w, Height: h, Depth: dp,
		BaseLayer: baseLayer, Layers: layers,
	}
	if o.Dim == Image1D {
		region.ImageHeight = 0
	}
	want := append([]byte(nil), data...)
	for l := range layers {
		for k := range dp {
			for j := range h {
				for i := range w {
					src := int(subOff) + int((((l*dp+k)*imgH+j)*rowLen+i)*bs)
					dst := texelOffset(o, bs, x+i, y+j, z+k, baseLayer+l)
					copy(want[dst:dst+int(bs)], sub[src:src+int(bs)])
				}
			}
		}
	}
	if err := down.Upload(0, poisoned(total)); err != nil {
		t.Fatal(err)
	}

	err = d.Run(func(c *Commands) error {
		c.TransitionImage(img, LayoutTransferDst)
		c.CopyBufferToImage(img, up, BufferImageCopy{})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if img.Layout() != LayoutTransferDst {
		t.Errorf("layout after the upload: %v", img.Layout())
	}
	if err := up.Upload(0, sub); err != nil {
		t.Fatal(err)
	}
	err = d.Run(func(c *Commands) error {
		c.MemoryBarrier()
		c.TransitionImage(img, LayoutGeneral)
		c.CopyBufferToImage(img, up, region)
		c.TransitionImage(img, LayoutTransferSrc)
		c.CopyImageToBuffer(down, img, BufferImageCopy{})
		// The sub-region again, into the padded layout after the image.
		r := region
		r.BufferOffset = uint64(size)
		c.CopyImageToBuffer(down, img, r)
		c.MemoryBarrier()
		return c.Err()
	})
	if err != nil {
		t.Fatal(err)
	}
	got := poisoned(total)
	if err := down.Readback(0, got); err != nil {
		t.Fatal(err)
	}
	mustEqual(t, "whole image", got[:size], want)
	// The padded readback: region texels equal, padding untouched.
	base := size
	for l := range layers {
		for k := range dp {
			for j := range imgH {
				for i := range rowLen {
					off := base + int((((l*dp+k)*imgH+j)*rowLen+i)*bs)
					g := got[off : off+int(bs)]
					if i < w && j < h {
						src := texelOffset(o, bs, x+i, y+j, z+k, baseLayer+l)
						if !bytes.Equal(g, want[src:src+int(bs)]) {
							t.Fatalf("padded readback: texel (%d, %d, %d) layer %d = %x, want %x", i, j, k, l, g, want[src:src+int(bs)])
						}
					} else if !bytes.Equal(g, poisoned(int(bs))) {
						t.Fatalf("padded readback: padding at (%d, %d, %d) layer %d = %x, want poison", i, j, k, l, g)
					}
				}
			}
		}
	}
	if img.Layout() != LayoutTransferSrc {
		t.Errorf("final layout %v", img.Layout())
	}
}

// imageData returns n random bytes valid as texels of o's format: depth
// values in [0, 1), since others may not survive a copy.
func imageData(o ImageOptions, seed uint64, n int) []byte {
	b := randomBytes(seed, n)
	if vkFormat(o.Format) == fmtD32Sfloat {
		r := rand.New(rand.NewPCG(seed, 2))
		for i := 0; i+4 <= n; i += 4 {
			copy(b[i:], le32(math.Float32bits(r.Float32())))
		}
	}
	return b
}

func le32(v uint32) []byte { return []byte{byte(v), byte(v >> 8), byte(v >> 16), byte(v >> 24)} }

func TestImageOptions(t *testing.T) {
	in := newTestInstance(t)
	d := testDevice(t, in)
	for _, o := range []ImageOptions{
		{Dim: Image1D, Format: uint32(fmtR8G8B8A8Unorm), Width: 4, Height: 2},
		{Dim: Image2D, Format: uint32(fmtR8G8B8A8Unorm), Width: 4, Depth: 2},
		{Dim: Image3D, Format: uint32(fmtR8G8B8A8Unorm), Width: 4, Layers: 2},
		{Dim: 7, Format: uint32(fmtR8G8B8A8Unorm)},
		{Format: uint32(fmtR8G8B8A8Unorm), Exportable: true, Import: &ImportFD{FD: -1, Size: 1}},
		{Format: uint32(fmtR8G8B8A8Unorm), Width: 1 << 20, Height: 1 << 20},
		{Format: uint32(fmtR8G8B8A8Unorm), Layers: 1 << 20},
	} {
		if img, err := d.NewImage(o); err == nil {
			img.Close()
			t.Errorf("NewImage(%+v) succeeded", o)
		}
	}
	img, err := d.NewImage(ImageOptions{Format: uint32(fmtR8G8B8A8Unorm)})
	if err != nil {
		t.Fatal(err)
	}
	got := img.Options()
	if got.Dim != Image2D || got.Width != 1 || got.Height != 1 || got.Depth != 1 || got.Layers != 1 || got.Usage == 0 {
		t.Errorf("defaults: %+v", got)
	}
	if img.Dedicated() && !d.pd.effectiveAPI.AtLeast(1, 1) {
		t.Error("dedicated without Vulkan 1.1")
	}
	v, err := img.viewHandle()
	if err != nil || v == 0 {
		t.Errorf("view: %v, %v", v, err)
	}
	if v2, err := img.viewHandle(); err != nil || v2 != v {
		t.Errorf("second view differs (%v)", err)
	}
	if _, err := img.ExportFD(); err == nil {
		t.Error("ExportFD of a non-exportable image succeeded")
	}
	img.Close()
	if _, err := img.ExportFD(); !errors.Is(err, ErrClosed) {
		t.Errorf("ExportFD after Close = %v", err)
	}

	xfer, err := d.NewImage(ImageOptions{Format: uint32(fmtR8G8B8A8Unorm), Usage: ImageTransferDst})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := xfer.viewHandle(); err == nil {
		t.Error("view of a transfer-only image succeeded")
	}
	for _, dim := range []ImageDim{Image1D, Image2D, Image3D} {
		for _, layers := range []uint32{1, 3} {
			if dim == Image3D && layers > 1 {
				continue
			}
			img, err := d.NewImage(ImageOptions{Dim: dim, Format: uint32(fmtR8G8B8A8Unorm), Width: 8, Height: 1, Layers: layers})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := img.viewHandle(); err != nil {
				t.Errorf("%v image of %d layers: view: %v", dim, layers, err)
			}
		}
	}
	for _, f := range []Filter{FilterNearest, FilterLinear} {
		for _, a := range []AddressMode{AddressRepeat, AddressMirroredRepeat, AddressClampToEdge, AddressClampToBorder} {
			s, err := d.NewSampler(SamplerOptions{Filter: f, Address: a})
			if err != nil {
				t.Fatalf("NewSampler(%v, %v): %v", f, a, err)
			}
			if s.handle() == 0 || s.Options() != (SamplerOptions{Filter: f, Address: a}) {
				t.Error("sampler")
			}
			if a == AddressRepeat {
				s.Close()
			}
		}
	}
	if _, err := d.NewSampler(SamplerOptions{Filter: 5}); err == nil {
		t.Error("NewSampler with a bogus filter succeeded")
	}
}

func TestFormatNotSupported(t *testing.T) {
	in := newTestInstance(t)
	d := testDevice(t, in)
	check := func(o ImageOptions, wantName string) {
		t.Helper()
		_, err := d.NewImage(o)
		if !errors.Is(err, ErrFormatNotSupported) {
			t.Fatalf("NewImage(%v, %v) = %v, want ErrFormatNotSupported", FormatName(o.Format), o.Usage, err)
		}
		for _, s := range []string{wantName, d.Physical().Name} {
			if !strings.Contains(err.Error(), s) {
				t.Errorf("error %q does not name %q", err, s)
			}
		}
		if o.Usage != 0 && !strings.Contains(err.Error(), o.Usage.String()) {
			t.Errorf("error %q does not name the usage %v", err, o.Usage)
		}
		if d.ImageFormatSupported(o.Format, o.Usage, o.Exportable) {
			t.Errorf("ImageFormatSupported(%v, %v) = true", FormatName(o.Format), o.Usage)
		}
	}
	// Three-component 8-bit formats are storage images almost nowhere
	// (neither on lavapipe nor on NVIDIA).
	if !d.ImageFormatSupported(uint32(fmtR8G8B8Unorm), ImageStorage, false) {
		check(ImageOptions{Format: uint32(fmtR8G8B8Unorm), Usage: ImageStorage, Width: 8, Height: 8}, "VK_FORMAT_R8G8B8_UNORM")
	}
	check(ImageOptions{Format: 0x7fff0000, Width: 8, Height: 8}, "VkFormat(2147418112)")
	check(ImageOptions{Format: 0, Width: 8, Height: 8}, "VK_FORMAT_UNDEFINED")
	if !d.ImageFormatSupported(uint32(fmtR8G8B8A8Unorm), 0, false) || !d.ImageFormatSupported(uint32(fmtR32Sfloat), ImageStorage, false) {
		t.Error("ImageFormatSupported(rgba8 or r32f storage) = false")
	}
	if FormatName(37) != "VK_FORMAT_R8G8B8A8_UNORM" || FormatName(1000066000) != "VK_FORMAT_ASTC_4x4_SFLOAT_BLOCK" {
		t.Errorf("FormatName: %q %q", FormatName(37), FormatName(1000066000))
	}
	for f, want := range map[vkFormat][3]uint32{
		fmtR8G8B8A8Unorm:      {4, 1, 1},
		fmtR32G32B32A32Sfloat: {16, 1, 1},
		fmtR32G32B32Sfloat:    {12, 1, 1},
		fmtR16G16B16A16Sfloat: {8, 1, 1},
		fmtD24UnormS8Uint:     {4, 1, 1},
		fmtBC1RGBAUnorm:       {8, 4, 4},
		fmtBC7Unorm:           {16, 4, 4},
		fmtASTC10x8Unorm:      {16, 10, 8},
		64:                    {4, 1, 1}, // A2B10G10R10_UNORM_PACK32
		1000156003:            {0, 1, 1}, // G8_B8R8_2PLANE_420_UNORM
		0x7fff0000:            {0, 1, 1},
	} {
		s, w, h := FormatBlock(uint32(f))
		if [3]uint32{s, w, h} != want {
			t.Errorf("FormatBlock(%v) = %d, %d, %d; want %v", f, s, w, h, want)
		}
	}
}

// exportPair returns a device and a device of another instance on the same
// physical device, both able to export and import OPAQUE_FD memory, or
// skips.
func exportPair(t *testing.T) (*Instance, *Device, *Instance, *Device) {
	if runtime.GOOS == "windows" {
		t.Skip("OPAQUE_FD memory export and import are Linux-only (not supported on Windows yet; TestWindowsRefusesFDs checks the error)")
	}
	in := newTestInstance(t)
	a := testDevice(t, in)
	if !a.Physical().CanExportOpaqueFD() || !a.Physical().CanImportOpaqueFD() {
		unavailable(t, "%s cannot export and import OPAQUE_FD memory", a)
	}
	in2 := newTestInstance(t)
	return in, a, in2, sameDevice(t, in2, a)
}

func TestExportImportBuffer(t *testing.T) {
	_, a, _, b := exportPair(t)
	for _, heap := range []Heap{HeapDefault, HeapUpload} {
		t.Run(heap.String(), func(t *testing.T) {
			const n = 3<<20 + 5
			src, err := a.NewBuffer(BufferOptions{Size: n, Heap: heap, Exportable: true})
			if err != nil {
				t.Fatal(err)
			}
			defer src.Close()
			if !src.Exportable() || src.AllocationSize() < n || (a.pd.effectiveAPI.AtLeast(1, 1) && !src.Dedicated()) {
				t.Errorf("Exportable %v, AllocationSize %d, Dedicated %v", src.Exportable(), src.AllocationSize(), src.Dedicated())
			}
			data := randomBytes(11, n)
			if err := src.Upload(0, data); err != nil {
				t.Fatal(err)
			}
			fd, err := src.ExportFD()
			if err != nil {
				t.Fatal(err)
			}
			fd2, err := src.ExportFD()
			if err != nil {
				t.Fatal(err)
			}
			if fd2 == fd {
				t.Error("ExportFD returned the same descriptor twice")
			}
			closeFD(fd2)
			dst, err := b.NewBuffer(BufferOptions{Size: n, Heap: heap,
				Import: &ImportFD{FD: fd, Size: src.AllocationSize(), Dedicated: src.Dedicated()}})
			if err != nil {
				t.Fatal(err)
			}
			defer dst.Close()
			if dst.AllocationSize() != src.AllocationSize() || dst.Exportable() {
				t.Errorf("imported: AllocationSize %d, Exportable %v", dst.AllocationSize(), dst.Exportable())
			}
			if _, err := dst.ExportFD(); err == nil {
				t.Error("ExportFD of an imported buffer succeeded")
			}
			got := poisoned(n)
			if err := dst.Readback(0, got); err != nil {
				t.Fatal(err)
			}
			mustEqual(t, "imported buffer", got, data)

			// And back: written on B, read on A.
			more := randomBytes(12, 1000)
			if err := dst.Upload(777, more); err != nil {
				t.Fatal(err)
			}
			copy(data[777:], more)
			if err := src.Readback(0, got); err != nil {
				t.Fatal(err)
			}
			mustEqual(t, "exporter after the importer wrote", got, data)
		})
	}
}

func TestExportImportImage(t *testing.T) {
	_, a, _, b := exportPair(t)
	o := ImageOptions{Format: uint32(fmtR8G8B8A8Unorm), Width: 123, Height: 45, Exportable: true}
	if !a.ImageFormatSupported(o.Format, 0, true) {
		unavailable(t, "%s cannot export rgba8 images", a)
	}
	src, err := a.NewImage(o)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	if a.pd.effectiveAPI.AtLeast(1, 1) && !src.Dedicated() {
		t.Error("exportable image not dedicated")
	}
	n := int(o.Width * o.Height * 4)
	data := randomBytes(21, n)
	up, err := a.NewBuffer(BufferOptions{Size: uint64(n), Heap: HeapUpload})
	if err != nil {
		t.Fatal(err)
	}
	defer up.Close()
	if err := up.Upload(0, data); err != nil {
		t.Fatal(err)
	}
	err = a.Run(func(c *Commands) error {
		c.TransitionImage(src, LayoutTransferDst)
		c.CopyBufferToImage(src, up, BufferImageCopy{})
		c.releaseImages(LayoutGeneral, src)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	fd, err := src.ExportFD()
	if err != nil {
		t.Fatal(err)
	}
	io := src.Options()
	io.Exportable = false
	io.Import = &ImportFD{FD: fd, Size: src.AllocationSize()}
	dst, err := b.NewImage(io)
	if err != nil {
		t.Fatal(err)
	}
	defer dst.Close()
	if dst.AllocationSize() != src.AllocationSize() {
		t.Errorf("AllocationSize %d, exporter's %d", dst.AllocationSize(), src.AllocationSize())
	}
	down, err := b.NewBuffer(BufferOptions{Size: uint64(n), Heap: HeapReadback})
	if err != nil {
		t.Fatal(err)
	}
	defer down.Close()
	err = b.Run(func(c *Commands) error {
		c.acquireImages(LayoutGeneral, LayoutTransferSrc, dst)
		c.CopyImageToBuffer(down, dst, BufferImageCopy{})
		c.releaseImages(LayoutGeneral, dst)
		c.MemoryBarrier()
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	got := poisoned(n)
	if err := down.Readback(0, got); err != nil {
		t.Fatal(err)
	}
	mustEqual(t, "imported image", got, data)
	// Back on A: acquire it again.
	err = a.Run(func(c *Commands) error {
		c.acquireImages(LayoutGeneral, LayoutTransferSrc, src)
		c.CopyImageToBuffer(up, src, BufferImageCopy{})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestImportFailures(t *testing.T) {
	in, a, inB, b := exportPair(t)
	// The exporter: lavapipe backs exportable memory with a descriptor of
	// its own, open until the buffer is closed.
	src, err := a.NewBuffer(BufferOptions{Size: 1 << 16, Exportable: true})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	before := fdCount(t)

	// /dev/null is no memory: the driver refuses it, NewBuffer closes it.
	fd := devNullFD(t)
	if _, err := b.NewBuffer(BufferOptions{Size: 4096, Import: &ImportFD{FD: fd, Size: 4096, Dedicated: true}}); err == nil {
		t.Error("import of /dev/null succeeded")
	} else {
		t.Logf("import of /dev/null: %v", err)
	}
	allowDriverErrors(t, inB, "VK_ERROR_INVALID_EXTERNAL_HANDLE")
	if fdOpen(fd) {
		t.Errorf("descriptor %d still open after a failed import", fd)
		closeFD(fd)
	}

	// Images too.
	fd = devNullFD(t)
	if _, err := b.NewImage(ImageOptions{Format: uint32(fmtR8G8B8A8Unorm), Width: 16, Height: 16, Import: &ImportFD{FD: fd, Size: 1024}}); err == nil {
		t.Error("image import of /dev/null succeeded")
	}
	allowDriverErrors(t, inB, "VK_ERROR_INVALID_EXTERNAL_HANDLE")
	if fdOpen(fd) {
		t.Errorf("descriptor %d still open after a failed image import", fd)
	}

	// A real export, but a size other than what the buffer needs, and
	// options that fail before any Vulkan call: the descriptor is closed
	// each time.
	for _, o := range []BufferOptions{
		{Size: 1 << 16, Import: &ImportFD{Size: 4096, Dedicated: true}},
		{Size: 1 << 16, Import: &ImportFD{Size: 1 << 20, Dedicated: true}},
		{Size: 1 << 16, Import: &ImportFD{Size: 0, Dedicated: true}},
		{Size: 0, Import: &ImportFD{Size: 1 << 16, Dedicated: true}},
		{Size: 1 << 16, Exportable: true, Import: &ImportFD{Size: 1 << 16, Dedicated: true}},
		{Size: 1 << 16, Heap: 9, Import: &ImportFD{Size: 1 << 16, Dedicated: true}},
	} {
		fd, err := src.ExportFD()
		if err != nil {
			t.Fatal(err)
		}
		o.Import.FD = fd
		if buf, err := b.NewBuffer(o); err == nil {
			buf.Close()
			t.Errorf("NewBuffer(%+v) succeeded", o)
		}
		if fdOpen(fd) {
			t.Errorf("descriptor still open after NewBuffer(%+v) failed", o)
		}
	}
	// Semaphore import, unsupported on lavapipe, closes the descriptor too.
	if !b.raw.HasSemaphoreFD() {
		fd, err := src.ExportFD()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := b.ImportSemaphoreFD(fd, true); !errors.Is(err, ErrUnsupported) {
			t.Errorf("ImportSemaphoreFD = %v, want ErrUnsupported", err)
		}
		if fdOpen(fd) {
			t.Error("descriptor still open after ImportSemaphoreFD failed")
		}
	}
	// Invalid descriptors fail cleanly.
	if _, err := b.NewBuffer(BufferOptions{Size: 64, Import: &ImportFD{FD: -1, Size: 64}}); !errors.Is(err, ErrorInvalidExternalHandle) {
		t.Errorf("import of fd -1 = %v, want ErrorInvalidExternalHandle", err)
	}
	if _, err := b.ImportSemaphoreFD(-1, true); err == nil {
		t.Error("ImportSemaphoreFD(-1) succeeded")
	}
	if after := fdCount(t); after != before {
		t.Errorf("%d descriptors open, %d before", after, before)
	}
	failOnValidationErrors(t, in)
}

func TestTimelineSemaphore(t *testing.T) {
	in := newTestInstance(t)
	d := testDevice(t, in)
	s, err := d.NewTimelineSemaphore(5, false)
	if err != nil {
		t.Fatal(err)
	}
	if v, err := s.Value(); v != 5 || err != nil {
		t.Errorf("Value = %d, %v; want 5", v, err)
	}
	if err := s.Signal(7); err != nil {
		t.Fatal(err)
	}
	// A timeline only goes up: SignalAbove refuses 7 again and 6, and
	// the value stays 7.
	for _, v := range []uint64{7, 6} {
		if err := s.SignalAbove(v); !errors.Is(err, ErrNotIncreasing) {
			t.Errorf("SignalAbove(%d) at 7 = %v, want ErrNotIncreasing", v, err)
		}
	}
	if v, err := s.Value(); v != 7 || err != nil {
		t.Errorf("Value after refused signals = %d, %v; want 7", v, err)
	}
	if err := s.Wait(7, 0); err != nil {
		t.Errorf("Wait(7, 0) = %v", err)
	}
	start := time.Now()
	if err := s.Wait(8, 20*time.Millisecond); !errors.Is(err, ErrTimeout) {
		t.Errorf("Wait(8) = %v, want ErrTimeout", err)
	}
	if el := time.Since(start); el < 20*time.Millisecond || el > 5*time.Second {
		t.Errorf("Wait(8, 20ms) took %v", el)
	}
	if err := s.SignalAbove(8); err != nil {
		t.Errorf("SignalAbove(8) at 7 = %v", err)
	}
	if v, err := s.Value(); v != 8 || err != nil {
		t.Errorf("Value after SignalAbove(8) = %d, %v; want 8", v, err)
	}
	if _, err := s.ExportFD(); err == nil {
		t.Error("ExportFD of a non-exportable semaphore succeeded")
	}
	if !s.Timeline() {
		t.Error("Timeline = false")
	}

	// A batch waits for s = 10 and signals u = 3; the host releases it.
	u, err := d.NewTimelineSemaphore(0, false)
	if err != nil {
		t.Fatal(err)
	}
	buf, err := d.NewBuffer(BufferOptions{Size: 64, Heap: HeapReadback})
	if err != nil {
		t.Fatal(err)
	}
	c, err := d.NewCommands()
	if err != nil {
		t.Fatal(err)
	}
	c.FillBuffer(buf, 0, 0, 0x11223344)
	c.MemoryBarrier()
	if err := c.Submit(SubmitOptions{
		Wait:   []SemaphoreValue{{s, 10}},
		Signal: []SemaphoreValue{{u, 3}},
	}); err != nil {
		t.Fatal(err)
	}
	time.Sleep(20 * time.Millisecond)
	if c.Done() {
		t.Error("the batch ran before its wait was signalled")
	}
	if v, err := u.Value(); err != nil || v != 0 {
		t.Errorf("u = %d (%v) before the batch ran", v, err)
	}
	if err := c.Wait(10 * time.Millisecond); !errors.Is(err, ErrTimeout) {
		t.Errorf("Wait on a blocked batch = %v, want ErrTimeout", err)
	}
	if err := c.Reset(); err == nil {
		t.Error("Reset of a running batch succeeded")
	}
	// Readback waits for the batch that uses the buffer: release it from
	// another goroutine.
	go func() {
		time.Sleep(10 * time.Millisecond)
		if err := s.Signal(10); err != nil {
			t.Error(err)
		}
	}()
	got := make([]byte, 4)
	if err := buf.Readback(0, got); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, []byte{0x44, 0x33, 0x22, 0x11}) {
		t.Errorf("after the batch: %x", got)
	}
	if err := u.Wait(3, 5*time.Second); err != nil {
		t.Fatal(err)
	}
	if err := c.Wait(5 * time.Second); err != nil {
		t.Fatal(err)
	}

	// Batches chained by a semaphore: the second waits for the first.
	c2, err := d.NewCommands()
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Reset(); err != nil {
		t.Fatal(err)
	}
	c2.FillBuffer(buf, 0, 4, 0x55)
	c2.MemoryBarrier()
	c.FillBuffer(buf, 0, 4, 0x66)
	if err := c.Submit(SubmitOptions{Signal: []SemaphoreValue{{u, 4}}}); err != nil {
		t.Fatal(err)
	}
	if err := c2.Submit(SubmitOptions{Wait: []SemaphoreValue{{u, 4}}, Signal: []SemaphoreValue{{s, 11}}}); err != nil {
		t.Fatal(err)
	}
	if err := s.Wait(11, 5*time.Second); err != nil {
		t.Fatal(err)
	}
	if err := buf.Readback(0, got); err != nil {
		t.Fatal(err)
	}
	if got[0] != 0x55 {
		t.Errorf("the chained batches ran out of order: %x", got)
	}
	c2.Close()

	s.Close()
	if err := s.Signal(20); !errors.Is(err, ErrClosed) {
		t.Errorf("Signal after Close = %v", err)
	}
	if _, err := s.Value(); !errors.Is(err, ErrClosed) {
		t.Errorf("Value after Close = %v", err)
	}
	if err := s.Wait(1, 0); !errors.Is(err, ErrClosed) {
		t.Errorf("Wait after Close = %v", err)
	}

	// A Wait in progress ends when the semaphore closes.
	w, err := d.NewTimelineSemaphore(0, false)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error)
	go func() { done <- w.Wait(1, -1) }()
	time.Sleep(10 * time.Millisecond)
	w.Close()
	select {
	case err := <-done:
		if !errors.Is(err, ErrClosed) {
			t.Errorf("Wait interrupted by Close = %v, want ErrClosed", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Wait did not end when the semaphore closed")
	}
}

func TestSemaphoreExport(t *testing.T) {
	in := newTestInstance(t)
	d := testDevice(t, in)
	if !d.Physical().CanExportSemaphoreFD() {
		_, err := d.NewTimelineSemaphore(0, true)
		if !errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), "semaphore export") || !strings.Contains(err.Error(), d.Physical().Name) {
			t.Errorf("exportable semaphore on %s: %v; want ErrUnsupported saying semaphore export is unsupported", d, err)
		}
		t.Logf("%v", err)
		return
	}
	s, err := d.NewTimelineSemaphore(1, true)
	if err != nil {
		t.Fatal(err)
	}
	fd, err := s.ExportFD()
	if err != nil {
		t.Fatal(err)
	}
	in2 := newTestInstance(t)
	d2 := sameDevice(t, in2, d)
	s2, err := d2.ImportSemaphoreFD(fd, true)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Signal(42); err != nil {
		t.Fatal(err)
	}
	if err := s2.Wait(42, 5*time.Second); err != nil {
		t.Fatal(err)
	}
	// A batch on d2 signals, the host waits on d.
	if err := d2.Run(func(c *Commands) error { return nil }); err != nil {
		t.Fatal(err)
	}
	c, err := d2.NewCommands()
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Submit(SubmitOptions{Signal: []SemaphoreValue{{s2, 50}}}); err != nil {
		t.Fatal(err)
	}
	if err := s.Wait(50, 5*time.Second); err != nil {
		t.Fatal(err)
	}
	c.Close()
}

func TestOwnershipTransfer(t *testing.T) {
	in := newTestInstance(t)
	d := testDevice(t, in)
	exportable := d.Physical().CanExportOpaqueFD()
	barrierModes(t, d, func(t *testing.T) {
		buf, err := d.NewBuffer(BufferOptions{Size: 1 << 12, Exportable: exportable})
		if err != nil {
			t.Fatal(err)
		}
		defer buf.Close()
		img, err := d.NewImage(ImageOptions{Format: uint32(fmtR8G8B8A8Unorm), Width: 8, Height: 8, Exportable: exportable})
		if err != nil {
			t.Fatal(err)
		}
		defer img.Close()
		err = d.Run(func(c *Commands) error {
			c.FillBuffer(buf, 0, 0, 1)
			c.TransitionImage(img, LayoutTransferDst)
			c.CopyBufferToImage(img, buf, BufferImageCopy{})
			c.releaseBuffers(buf)
			c.releaseImages(LayoutGeneral, img)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if img.Layout() != LayoutGeneral {
			t.Errorf("layout after release: %v", img.Layout())
		}
		err = d.Run(func(c *Commands) error {
			c.acquireBuffers(buf)
			c.acquireImages(LayoutGeneral, LayoutTransferSrc, img)
			c.CopyImageToBuffer(buf, img, BufferImageCopy{})
			c.releaseImages(LayoutGeneral, img)
			c.acquireImages(LayoutGeneral, LayoutGeneral, img)
			c.releaseBuffers(buf)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if img.Layout() != LayoutGeneral {
			t.Errorf("layout after acquire: %v", img.Layout())
		}
	})
}

// TestExportCycles creates, exports, imports and closes a small exportable
// buffer many times, on two devices, and checks that no file descriptor
// stays open.
func TestExportCycles(t *testing.T) {
	_, a, _, b := exportPair(t)
	n := 1000
	if testing.Short() {
		n = 100
	}
	cycle := func(i int) {
		src, err := a.NewBuffer(BufferOptions{Size: 256, Heap: HeapUpload, Exportable: true})
		if err != nil {
			t.Fatal(err)
		}
		m, err := src.Map()
		if err != nil {
			t.Fatal(err)
		}
		m[0] = byte(i)
		fd, err := src.ExportFD()
		if err != nil {
			t.Fatal(err)
		}
		dst, err := b.NewBuffer(BufferOptions{Size: 256, Heap: HeapUpload, Import: &ImportFD{FD: fd, Size: src.AllocationSize(), Dedicated: src.Dedicated()}})
		if err != nil {
			t.Fatal(err)
		}
		got, err := dst.Map()
		if err != nil {
			t.Fatal(err)
		}
		if got[0] != byte(i) {
			t.Fatalf("cycle %d: imported byte %d", i, got[0])
		}
		dst.Close()
		src.Close()
	}
	cycle(0)
	before := openFDs(t)
	for i := range n {
		cycle(i)
	}
	if after := openFDs(t); len(after) != len(before) {
		t.Errorf("%d descriptors open after %d cycles, %d before\nbefore: %v\nafter: %v", len(after), n, len(before), before, after)
	}
}

func TestDeviceCloseWithChildren(t *testing.T) {
	in := newTestInstance(t)
	d := testDevice(t, in)
	buf, err := d.NewBuffer(BufferOptions{Size: 1 << 20, Heap: HeapUpload})
	if err != nil {
		t.Fatal(err)
	}
	dbuf, err := d.NewBuffer(BufferOptions{Size: 1 << 20, Exportable: d.Physical().CanExportOpaqueFD()})
	if err != nil {
		t.Fatal(err)
	}
	img, err := d.NewImage(ImageOptions{Format: uint32(fmtR8G8B8A8Unorm), Width: 64, Height: 64})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := img.viewHandle(); err != nil {
		t.Fatal(err)
	}
	smp, err := d.NewSampler(SamplerOptions{})
	if err != nil {
		t.Fatal(err)
	}
	sem, err := d.NewTimelineSemaphore(0, false)
	if err != nil {
		t.Fatal(err)
	}
	idle, err := d.NewCommands()
	if err != nil {
		t.Fatal(err)
	}
	idle.FillBuffer(dbuf, 0, 0, 3)
	// A submitted batch, not waited for, signalling sem.
	c, err := d.NewCommands()
	if err != nil {
		t.Fatal(err)
	}
	c.CopyBuffer(dbuf, buf, 0, 0, 1<<20)
	c.TransitionImage(img, LayoutGeneral)
	if err := c.Submit(SubmitOptions{Signal: []SemaphoreValue{{sem, 1}}}); err != nil {
		t.Fatal(err)
	}
	if err := d.Run(func(c *Commands) error { return nil }); err != nil { // leaves a spare batch
		t.Fatal(err)
	}
	// A host wait that would last forever.
	waitDone := make(chan error)
	go func() { waitDone <- sem.Wait(100, -1) }()
	time.Sleep(10 * time.Millisecond)

	if err := d.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	select {
	case err := <-waitDone:
		if !errors.Is(err, ErrClosed) {
			t.Errorf("Wait across Device.Close = %v, want ErrClosed", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Wait did not end when the device closed")
	}
	if err := d.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	for name, err := range map[string]error{
		"Upload":     buf.Upload(0, []byte{1}),
		"Readback":   buf.Readback(0, []byte{1}),
		"Flush":      buf.Flush(0, 1),
		"Signal":     sem.Signal(5),
		"Submit":     c.Submit(SubmitOptions{}),
		"Wait":       c.Wait(0),
		"Reset":      c.Reset(),
		"idle Err":   idle.Err(),
		"Run":        d.Run(func(*Commands) error { return nil }),
		"WaitIdle":   d.WaitIdle(),
		"NewBuffer":  second(d.NewBuffer(BufferOptions{Size: 4})),
		"NewImage":   second(d.NewImage(ImageOptions{Format: uint32(fmtR8G8B8A8Unorm)})),
		"NewSampler": second(d.NewSampler(SamplerOptions{})),
		"NewSem":     second(d.NewTimelineSemaphore(0, false)),
		"NewCmds":    second(d.NewCommands()),
		"ExportFD":   second(dbuf.ExportFD()),
		"Map":        second(buf.Map()),
		"Value":      second(sem.Value()),
		"ImgExport":  second(img.ExportFD()),
	} {
		if !errors.Is(err, ErrClosed) {
			t.Errorf("%s after Device.Close = %v, want ErrClosed", name, err)
		}
	}
	if d.ImageFormatSupported(uint32(fmtR8G8B8A8Unorm), 0, false) {
		t.Error("ImageFormatSupported after Close = true")
	}
	for _, cl := range []interface{ Close() error }{buf, dbuf, img, smp, sem, idle, c} {
		if err := cl.Close(); err != nil {
			t.Errorf("%T.Close after Device.Close: %v", cl, err)
		}
	}
	if len(d.children) != 0 {
		t.Errorf("%d children left", len(d.children))
	}
}

func second[T any](_ T, err error) error { return err }

// TestZeroResources checks that zero and nil objects fail cleanly.
func TestZeroResources(t *testing.T) {
	var b *Buffer
	if err := b.Close(); err != nil {
		t.Error(err)
	}
	if err := b.Upload(0, nil); !errors.Is(err, ErrClosed) {
		t.Error(err)
	}
	var zb Buffer
	if err := zb.Close(); err != nil {
		t.Error(err)
	}
	if _, err := zb.Map(); !errors.Is(err, ErrClosed) {
		t.Error(err)
	}
	var img Image
	if err := img.Close(); err != nil {
		t.Error(err)
	}
	if _, err := img.ExportFD(); !errors.Is(err, ErrClosed) {
		t.Error(err)
	}
	var s Semaphore
	if err := s.Wait(1, 0); !errors.Is(err, ErrClosed) {
		t.Error(err)
	}
	var sm Sampler
	if err := sm.Close(); err != nil {
		t.Error(err)
	}
	var c Commands
	c.MemoryBarrier()
	if err := c.Submit(SubmitOptions{}); !errors.Is(err, ErrClosed) || !errors.Is(c.Err(), ErrClosed) {
		t.Error(err)
	}
	if err := c.Close(); err != nil {
		t.Error(err)
	}
	var d Device
	if _, err := d.NewBuffer(BufferOptions{Size: 1}); !errors.Is(err, ErrClosed) {
		t.Error(err)
	}
	if _, err := d.NewCommands(); !errors.Is(err, ErrClosed) {
		t.Error(err)
	}
}

// TestConcurrentUse uploads, reads back and runs batches from several
// goroutines on one device (run it with -race).
func TestConcurrentResources(t *testing.T) {
	in := newTestInstance(t)
	d := testDevice(t, in)
	shared, err := d.NewBuffer(BufferOptions{Size: 1 << 16})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			own, err := d.NewBuffer(BufferOptions{Size: 4096})
			if err != nil {
				t.Error(err)
				return
			}
			defer own.Close()
			for i := range 10 {
				data := randomBytes(uint64(g*100+i), 4096)
				if err := own.Upload(0, data); err != nil {
					t.Error(err)
					return
				}
				err := d.Run(func(c *Commands) error {
					c.MemoryBarrier()
					c.CopyBuffer(shared, own, uint64(g)*4096, 0, 4096)
					c.MemoryBarrier()
					return nil
				})
				if err != nil {
					t.Error(err)
					return
				}
				got := make([]byte, 4096)
				if err := shared.Readback(uint64(g)*4096, got); err != nil {
					t.Error(err)
					return
				}
				if diff := firstDiff(got, data); diff != "" {
					t.Errorf("goroutine %d, round %d: %s", g, i, diff)
					return
				}
			}
		})
	}
	wg.Wait()
	// Close racing with use.
	victim, err := d.NewBuffer(BufferOptions{Size: 1 << 16})
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		wg.Go(func() {
			for range 5 {
				err := victim.Upload(0, make([]byte, 1<<16))
				if err != nil && !errors.Is(err, ErrClosed) {
					t.Error(err)
				}
			}
		})
	}
	wg.Go(func() { time.Sleep(5 * time.Millisecond); victim.Close() })
	wg.Wait()
}

// TestOwnershipTransferMany moves two buffers and two images to the
// external queue family and back, each direction in one barrier command,
// and checks that the images' contents survive (the acquire names the
// layout the release left), their layouts are tracked, and an image listed
// twice fails the batch.
func TestOwnershipTransferMany(t *testing.T) {
	in := newTestInstance(t)
	d := testDevice(t, in)
	exportable := d.Physical().CanExportOpaqueFD()
	barrierModes(t, d, func(t *testing.T) {
		const w, h = 16, 8
		n := w * h * 4
		var bufs []*Buffer
		var imgs []*Image
		for i := 0; i < 2; i++ {
			buf, err := d.NewBuffer(BufferOptions{Size: uint64(n), Exportable: exportable})
			if err != nil {
				t.Fatal(err)
			}
			defer buf.Close()
			bufs = append(bufs, buf)
			img, err := d.NewImage(ImageOptions{Format: uint32(fmtR8G8B8A8Unorm), Width: w, Height: h, Exportable: exportable})
			if err != nil {
				t.Fatal(err)
			}
			defer img.Close()
			imgs = append(imgs, img)
		}
		data := [][]byte{randomBytes(31, n), randomBytes(32, n)}
		for i, b := range bufs {
			if err := b.Upload(0, data[i]); err != nil {
				t.Fatal(err)
			}
		}
		err := d.Run(func(c *Commands) error {
			for i, img := range imgs {
				c.TransitionImage(img, LayoutTransferDst)
				c.CopyBufferToImage(img, bufs[i], BufferImageCopy{})
			}
			c.releaseBuffers(bufs...)
			c.releaseImages(LayoutGeneral, imgs...)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		for _, img := range imgs {
			if img.Layout() != LayoutGeneral {
				t.Errorf("layout after release: %v", img.Layout())
			}
		}
		// Back, and the images copied crosswise into the buffers.
		err = d.Run(func(c *Commands) error {
			c.acquireBuffers(bufs...)
			c.acquireImages(LayoutGeneral, LayoutTransferSrc, imgs...)
			c.CopyImageToBuffer(bufs[1], imgs[0], BufferImageCopy{})
			c.CopyImageToBuffer(bufs[0], imgs[1], BufferImageCopy{})
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		for i, img := range imgs {
			if img.Layout() != LayoutTransferSrc {
				t.Errorf("image %d: layout after acquire: %v", i, img.Layout())
			}
			got := poisoned(n)
			if err := bufs[1-i].Readback(0, got); err != nil {
				t.Fatal(err)
			}
			mustEqual(t, fmt.Sprintf("image %d after the transfers", i), got, data[i])
		}
		c, err := d.NewCommands()
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		c.releaseImages(LayoutGeneral, imgs[0], imgs[0])
		if err := c.Err(); err == nil || !strings.Contains(err.Error(), "listed twice") {
			t.Errorf("an image listed twice: error %v", err)
		}
	})
}

// TestImportMemoryPlaced imports an exported allocation once as a Memory
// and places buffers over parts of it: each sees the exporter's bytes at
// its offset, writes through them reach the exporter, and offsets the
// buffer's alignment forbids are refused with ErrPlacement. (The exporter
// here is a dedicated Vulkan allocation, imported as non-dedicated: the
// stand-in on lavapipe for cuMemCreate memory, which is not dedicated.)
func TestImportMemoryPlaced(t *testing.T) {
	_, a, _, b := exportPair(t)
	if a.Physical().Type != DeviceTypeCPU {
		// A GPU driver may hold an importer to the exporter's dedication;
		// there the face's TestPoolCUDA imports cuMemCreate memory, which
		// is not dedicated, the same way.
		t.Skipf("%s: the stand-in (a dedicated export imported whole) is for lavapipe", a.Physical().Name)
	}
	const n = 1 << 20
	src, err := a.NewBuffer(BufferOptions{Size: n, Exportable: true})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	data := randomBytes(21, n)
	if err := src.Upload(0, data); err != nil {
		t.Fatal(err)
	}
	fd, err := src.ExportFD()
	if err != nil {
		t.Fatal(err)
	}
	m, err := b.ImportMemory(ImportFD{FD: fd, Size: src.AllocationSize()})
	if err != nil {
		t.Fatal(err)
	}
	if !m.Imported() || m.Size() != src.AllocationSize() {
		t.Errorf("Imported %v, Size %d", m.Imported(), m.Size())
	}
	const off, size = 64 << 10, 200 << 10
	p, err := b.NewBuffer(BufferOptions{Size: size, Memory: m, Offset: off})
	if err != nil {
		t.Fatal(err)
	}
	m.Close() // the placed buffer keeps the allocation
	got := poisoned(size)
	if err := p.Readback(0, got); err != nil {
		t.Fatal(err)
	}
	mustEqual(t, "placed buffer", got, data[off:off+size])
	more := randomBytes(22, 5000)
	if err := p.Upload(100, more); err != nil {
		t.Fatal(err)
	}
	copy(data[off+100:], more)
	all := poisoned(n)
	if err := src.Readback(0, all); err != nil {
		t.Fatal(err)
	}
	mustEqual(t, "exporter after a placed buffer wrote", all, data)
	p.Close()

	fd2, err := src.ExportFD()
	if err != nil {
		t.Fatal(err)
	}
	m2, err := b.ImportMemory(ImportFD{FD: fd2, Size: src.AllocationSize()})
	if err != nil {
		t.Fatal(err)
	}
	defer m2.Close()
	if _, err := b.NewBuffer(BufferOptions{Size: 64, Memory: m2, Offset: 3}); !errors.Is(err, ErrPlacement) {
		t.Errorf("a buffer at offset 3: %v, want ErrPlacement", err)
	}
	if _, err := b.NewImage(ImageOptions{Format: uint32(fmtR8G8B8A8Unorm), Width: 16, Height: 16, Memory: m2}); !errors.Is(err, ErrPlacement) {
		t.Errorf("an image in imported memory: %v, want ErrPlacement", err)
	}
	if _, err := b.ImportMemory(ImportFD{FD: -1, Size: 4096}); err == nil {
		t.Error("ImportMemory of fd -1 succeeded")
	}
	if _, err := b.ImportMemory(ImportFD{FD: -1, Size: 4096, Dedicated: true}); err == nil {
		t.Error("ImportMemory of a dedicated allocation succeeded")
	}
}
