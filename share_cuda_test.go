//go:build linux

package gfxcuda

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"
	"testing"

	"github.com/gfxcuda/gfxcuda/cuda"
	"github.com/gfxcuda/gfxcuda/format"
	"github.com/gfxcuda/gfxcuda/internal/sharenet"
)

// interopDevice opens the GPU both APIs share, or skips with a one-line
// reason (fails under GFXCUDA_REQUIRE_CUDA=1).
func interopDevice(t testing.TB) *Device {
	t.Helper()
	d, err := Open(Options{})
	if err != nil {
		if os.Getenv("GFXCUDA_REQUIRE_CUDA") == "1" {
			t.Fatalf("GPU required: %v", err)
		}
		t.Skipf("no GPU shared by Vulkan and CUDA: %v", err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}

// toDevice copies src (Go memory) to dst with the synchronous copy and
// waits until the device holds it (a pageable copy may return while its
// DMA still runs), so that another API or process may read it next.
func toDevice(ctx *cuda.Context, dst cuda.DevicePtr, src []byte) error {
	if err := ctx.CopyHtoD(dst, src); err != nil {
		return err
	}
	return ctx.Synchronize()
}

// TestVulkanToCUDAAcrossProcesses: a Vulkan allocation, opened in CUDA by
// another process; each side checks the bytes the other wrote.
func TestVulkanToCUDAAcrossProcesses(t *testing.T) {
	d := interopDevice(t)
	const n = 16<<20 + 12
	b, err := d.NewBuffer(n)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Vulkan().Upload(0, seededRandom(41, n)); err != nil {
		t.Fatal(err)
	}
	ex, err := Export(b)
	if err != nil {
		t.Fatal(err)
	}
	defer ex.Close()
	c := startChild(t, "cudabuf", "TOKEN="+string(ex.Token()), "SEEDS=41,42")
	c.expect(t, "written")
	got := poisonedBytes(n)
	if err := b.Vulkan().Readback(0, got); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, seededRandom(42, n)) {
		t.Fatal("bytes CUDA wrote in the other process differ")
	}
	c.wait(t)
}

// TestCUDAToVulkanAcrossProcesses: a CUDA allocation, opened in Vulkan by
// another process.
func TestCUDAToVulkanAcrossProcesses(t *testing.T) {
	d := interopDevice(t)
	const n = 8<<20 + 100
	m, err := d.CUDA().AllocShareable(n)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	size := int(m.Size())
	if err := toDevice(d.CUDA(), m.Ptr(), seededRandom(51, size)); err != nil {
		t.Fatal(err)
	}
	ex, err := ExportCUDA(d.CUDA(), m)
	if err != nil {
		t.Fatal(err)
	}
	defer ex.Close()
	c := startChild(t, "vkbuffer2", "TOKEN="+string(ex.Token()))
	c.expect(t, "written")
	got := poisonedBytes(size)
	if err := d.CUDA().CopyDtoH(got, m.Ptr()); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, seededRandom(52, size)) {
		t.Fatal("bytes Vulkan wrote in the other process differ")
	}
	c.wait(t)
}

// TestCUDAToCUDAAcrossProcesses: a CUDA allocation opened in CUDA by
// another process.
func TestCUDAToCUDAAcrossProcesses(t *testing.T) {
	shareableRoundTrip(t, 4<<20, "cudabuf", 61, 62, "bytes CUDA wrote in the other process differ")
}

// TestTextureToCUDAAcrossProcesses: an interop texture written by Vulkan,
// opened by another process with OpenTexture and copied out by CUDA.
func TestTextureToCUDAAcrossProcesses(t *testing.T) {
	d := interopDevice(t)
	tex, err := d.NewTexture(TextureOptions{Format: format.RGBA8UNorm, Width: 1920, Height: 1080})
	if err != nil {
		t.Fatal(err)
	}
	n := 1920 * 1080 * 4
	uploadVulkanImage(t, d.Vulkan(), tex.Vulkan(), seededRandom(71, n))
	ex, err := Export(tex)
	if err != nil {
		t.Fatal(err)
	}
	defer ex.Close()
	c := startChild(t, "cudatex", "TOKEN="+string(ex.Token()), "NBYTES="+strconv.Itoa(n))
	c.expect(t, "ok")
	c.wait(t)
}

// TestCUDAShareableOpensWithCUDAAlone: memory the exporter allocated with
// cuMemCreate (POSIX descriptor) opens in another process with
// cuMemImportFromShareableHandle alone: the child maps it into CUDA, never
// loads Vulkan, and both sides check every byte the other wrote.
func TestCUDAShareableOpensWithCUDAAlone(t *testing.T) {
	shareableRoundTrip(t, 32<<20+5, "cudaonly", 81, 82, "bytes the CUDA-only opener wrote differ")
}

// shareableRoundTrip exports a cuMemCreate allocation of size bytes
// holding random(in) to a child of role, which checks them and writes
// random(out) back; the parent then checks every byte (failing with
// mismatch).
func shareableRoundTrip(t *testing.T, size int, role string, in, out uint64, mismatch string) {
	d := interopDevice(t)
	m, err := d.CUDA().AllocShareable(uint64(size))
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	size = int(m.Size())
	if err := toDevice(d.CUDA(), m.Ptr(), seededRandom(in, size)); err != nil {
		t.Fatal(err)
	}
	ex, err := ExportCUDA(d.CUDA(), m)
	if err != nil {
		t.Fatal(err)
	}
	defer ex.Close()
	c := startChild(t, role, "TOKEN="+string(ex.Token()), fmt.Sprintf("SEEDS=%d,%d", in, out))
	c.expect(t, "written")
	got := poisonedBytes(size)
	if err := d.CUDA().CopyDtoH(got, m.Ptr()); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, seededRandom(out, size)) {
		t.Fatal(mismatch)
	}
	c.wait(t)
}

// TestOpenCUDAReusesImport: opening one resource twice in one context
// maps it once (the same pointer, the same array), counted: the memory
// stays mapped until the last handle closes; every open still asks the
// exporter, so forged and withdrawn tokens fail while the import lives.
func TestOpenCUDAReusesImport(t *testing.T) {
	d := interopDevice(t)
	cx := d.CUDA()
	ctx := ctx10(t)
	for _, fromCUDA := range []bool{false, true} {
		const n = 8 << 20
		var b *Buffer
		var err error
		if fromCUDA {
			b, err = d.NewBufferFromCUDA(n)
		} else {
			b, err = d.NewBuffer(n)
		}
		if err != nil {
			t.Fatal(err)
		}
		if err := toDevice(cx, b.Ptr(), seededRandom(91, n)); err != nil {
			t.Fatal(err)
		}
		ex, err := Export(b)
		if err != nil {
			t.Fatal(err)
		}
		before := openImports()
		b1, err := OpenCUDABuffer(ctx, cx, ex.Token())
		if err != nil {
			t.Fatal(err)
		}
		if (b1.im.cu != nil) != fromCUDA {
			t.Errorf("from CUDA %v: mapped with cuMemImportFromShareableHandle: %v", fromCUDA, b1.im.cu != nil)
		}
		b2, err := OpenCUDABuffer(ctx, cx, ex.Token())
		if err != nil {
			t.Fatal(err)
		}
		if b1.Ptr() != b2.Ptr() || openImports() != before+1 {
			t.Errorf("two opens: pointers %#x and %#x, %d imports (want 1 shared)", b1.Ptr(), b2.Ptr(), openImports()-before)
		}
		forged, _ := sharenet.Forge(ex.Token(), func(_ *Meta, secret *[16]byte) { secret[9] ^= 2 })
		if _, err := OpenCUDABuffer(ctx, cx, forged); !errors.Is(err, ErrRefused) {
			t.Errorf("a forged token of an imported resource: %v", err)
		}
		b1.Close()
		b1.Close() // idempotent
		if b1.Ptr() != 0 {
			t.Error("a closed handle still has a pointer")
		}
		got := poisonedBytes(n)
		if err := cx.CopyDtoH(got, b2.Ptr()); err != nil || !bytes.Equal(got, seededRandom(91, n)) {
			t.Errorf("the import went with the first handle (%v)", err)
		}
		ex.Close()
		if _, err := OpenCUDABuffer(ctx, cx, ex.Token()); !errors.Is(err, ErrWithdrawn) {
			t.Errorf("withdrawn while imported: %v", err)
		}
		b2.Close()
		if openImports() != before {
			t.Errorf("%d imports left", openImports()-before)
		}
		b.Close()
	}
	tex, err := d.NewTexture(TextureOptions{Format: format.RGBA8UNorm, Width: 64, Height: 32})
	if err != nil {
		t.Fatal(err)
	}
	defer tex.Close()
	ex, err := Export(tex)
	if err != nil {
		t.Fatal(err)
	}
	defer ex.Close()
	t1, err := OpenCUDATexture(ctx, cx, ex.Token())
	if err != nil {
		t.Fatal(err)
	}
	t2, err := OpenCUDATexture(ctx, cx, ex.Token())
	if err != nil {
		t.Fatal(err)
	}
	if t1.Array() != t2.Array() {
		t.Error("two opens of a texture: two arrays")
	}
	t1.Close()
	if t2.Array() == nil {
		t.Error("the array went with the first handle")
	}
	t2.Close()
}

// TestOpenBufferImportsVulkanLazily: OpenBuffer and OpenTexture import
// into CUDA at once and into Vulkan on Vulkan's first use; CUDA reads the
// exporter's bytes before, Vulkan after, and hand-offs work either way.
func TestOpenBufferImportsVulkanLazily(t *testing.T) {
	d := interopDevice(t)
	ctx := ctx10(t)
	cx := d.CUDA()
	for _, fromCUDA := range []bool{false, true} {
		const n = 4<<20 + 64
		var src *Buffer
		var err error
		if fromCUDA {
			src, err = d.NewBufferFromCUDA(n)
		} else {
			src, err = d.NewBuffer(n)
		}
		if err != nil {
			t.Fatal(err)
		}
		if err := toDevice(cx, src.Ptr(), seededRandom(95, n)); err != nil {
			t.Fatal(err)
		}
		ex, err := Export(src)
		if err != nil {
			t.Fatal(err)
		}
		b, err := d.OpenBuffer(ctx, ex.Token())
		if err != nil {
			t.Fatal(err)
		}
		if b.VulkanImported() || b.FromCUDA() != fromCUDA {
			t.Errorf("from CUDA %v: in Vulkan at open: %v, FromCUDA %v", fromCUDA, b.VulkanImported(), b.FromCUDA())
		}
		got := poisonedBytes(n)
		if err := cx.CopyDtoH(got, b.Ptr()); err != nil || !bytes.Equal(got, seededRandom(95, n)) {
			t.Fatalf("CUDA reads of the lazy import differ (%v)", err)
		}
		// A hand-off before Vulkan ever used it.
		if err := b.Map(nil, func(p cuda.DevicePtr, s *cuda.Stream) error { return nil }); err != nil {
			t.Fatal(err)
		}
		if b.VulkanImported() {
			t.Error("a hand-off imported the buffer into Vulkan")
		}
		if err := toDevice(cx, b.Ptr(), seededRandom(96, n)); err != nil {
			t.Fatal(err)
		}
		vb, err := b.VulkanBuffer()
		if err != nil || !b.VulkanImported() || vb != b.Vulkan() {
			t.Fatalf("Vulkan's first use: %v", err)
		}
		got = poisonedBytes(n)
		if err := vb.Readback(0, got); err != nil || !bytes.Equal(got, seededRandom(96, n)) {
			t.Fatalf("Vulkan reads of the lazy import differ (%v)", err)
		}
		if _, err := b.ExportFD(); !errors.Is(err, ErrNotExportable) {
			t.Errorf("an opened buffer exported again: %v", err)
		}
		b.Close()
		ex.Close()
		src.Close()
	}
	tex, err := d.NewTexture(TextureOptions{Format: format.RGBA8UNorm, Width: 320, Height: 200})
	if err != nil {
		t.Fatal(err)
	}
	defer tex.Close()
	nb := 320 * 200 * 4
	uploadVulkanImage(t, d.Vulkan(), tex.Vulkan(), seededRandom(97, nb))
	ex, err := Export(tex)
	if err != nil {
		t.Fatal(err)
	}
	defer ex.Close()
	ot, err := d.OpenTexture(ctx, ex.Token())
	if err != nil {
		t.Fatal(err)
	}
	defer ot.Close()
	if ot.VulkanImported() {
		t.Error("the texture is in Vulkan at open")
	}
	lin, err := cx.Alloc(uint64(nb))
	if err != nil {
		t.Fatal(err)
	}
	defer lin.Close()
	if err := ot.CopyToSync(nil, lin.Ptr(), 0); err != nil {
		t.Fatal(err)
	}
	got := poisonedBytes(nb)
	if err := cx.CopyDtoH(got, lin.Ptr()); err != nil || !bytes.Equal(got, seededRandom(97, nb)) {
		t.Fatalf("CUDA reads of the lazy texture differ (%v)", err)
	}
	img, err := ot.VulkanImage()
	if err != nil || !ot.VulkanImported() {
		t.Fatal(err)
	}
	if !bytes.Equal(readVulkanImage(t, d.Vulkan(), img, nb), seededRandom(97, nb)) {
		t.Fatal("Vulkan reads of the lazy texture differ")
	}
}

// cudaChild runs the CUDA roles of TestChild.
func cudaChild(t *testing.T, role string, tok Token) {
	ctx := ctx10(t)
	switch role {
	case "cudabuf", "cudaonly":
		m, err := tok.Meta()
		if err != nil {
			childFail("%v", err)
		}
		var seeds [2]uint64
		for i, s := range bytes.Split([]byte(os.Getenv("SEEDS")), []byte(",")) {
			seeds[i], _ = strconv.ParseUint(string(s), 10, 64)
		}
		cc := childContext(t, cuda.UUID(m.UUID), "device")
		b, err := OpenCUDABuffer(ctx, cc, tok)
		if err != nil {
			childFail("open: %v", err)
		}
		if role == "cudaonly" {
			if b.im.cu == nil {
				childFail("cuMemCreate memory was not mapped with cuMemImportFromShareableHandle")
			}
			if maps, _ := os.ReadFile("/proc/self/maps"); bytes.Contains(maps, []byte("libvulkan")) {
				childFail("opening for CUDA loaded Vulkan")
			}
		}
		n := int(b.Size())
		got := poisonedBytes(n)
		if err := cc.CopyDtoH(got, b.Ptr()); err != nil || !bytes.Equal(got, seededRandom(seeds[0], n)) {
			childFail("bytes differ in CUDA (%v)", err)
		}
		if err := toDevice(cc, b.Ptr(), seededRandom(seeds[1], n)); err != nil {
			childFail("write: %v", err)
		}
		b.Close()
		say("written")
	case "vkbuffer2":
		d := vkDevice(t)
		b, err := OpenVulkanBuffer(ctx, d, tok)
		if err != nil {
			childFail("open: %v", err)
		}
		n := int(b.Size())
		got := poisonedBytes(n)
		if err := b.Readback(0, got); err != nil || !bytes.Equal(got, seededRandom(51, n)) {
			childFail("bytes differ in Vulkan (%v)", err)
		}
		if err := b.Upload(0, seededRandom(52, n)); err != nil {
			childFail("upload: %v", err)
		}
		b.Close()
		say("written")
	case "cudatex":
		d := interopDevice(t)
		tex, err := d.OpenTexture(ctx, tok)
		if err != nil {
			childFail("open: %v", err)
		}
		n, _ := strconv.Atoi(os.Getenv("NBYTES"))
		dm, err := d.CUDA().Alloc(uint64(n))
		if err != nil {
			childFail("alloc: %v", err)
		}
		if err := tex.CopyToSync(nil, dm.Ptr(), 0); err != nil {
			childFail("copy: %v", err)
		}
		got := poisonedBytes(n)
		if err := d.CUDA().CopyDtoH(got, dm.Ptr()); err != nil || !bytes.Equal(got, seededRandom(71, n)) {
			childFail("texels differ in CUDA (%v)", err)
		}
		dm.Close()
		tex.Close()
		say("ok")
	default:
		childFail("unknown role %q", role)
	}
}
