package share

import (
	"bytes"
	"os"
	"strconv"
	"testing"

	"github.com/gfxcuda/gfxcuda/cuda"
	"github.com/gfxcuda/gfxcuda/format"
	"github.com/gfxcuda/gfxcuda/interop"
)

// interopDevice opens the GPU both APIs share, or skips with a one-line
// reason (fails under GFXCUDA_REQUIRE_CUDA=1).
func interopDevice(t testing.TB) *interop.Device {
	t.Helper()
	d, err := interop.Open(interop.Options{})
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
	if err := b.Vulkan().Upload(0, random(41, n)); err != nil {
		t.Fatal(err)
	}
	ex, err := Export(b)
	if err != nil {
		t.Fatal(err)
	}
	defer ex.Close()
	c := startChild(t, "cudabuf", "TOKEN="+string(ex.Token()), "SEEDS=41,42")
	c.expect(t, "written")
	got := poisoned(n)
	if err := b.Vulkan().Readback(0, got); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, random(42, n)) {
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
	if err := toDevice(d.CUDA(), m.Ptr(), random(51, size)); err != nil {
		t.Fatal(err)
	}
	ex, err := ExportCUDA(d.CUDA(), m)
	if err != nil {
		t.Fatal(err)
	}
	defer ex.Close()
	c := startChild(t, "vkbuffer2", "TOKEN="+string(ex.Token()))
	c.expect(t, "written")
	got := poisoned(size)
	if err := d.CUDA().CopyDtoH(got, m.Ptr()); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, random(52, size)) {
		t.Fatal("bytes Vulkan wrote in the other process differ")
	}
	c.wait(t)
}

// TestCUDAToCUDAAcrossProcesses: a CUDA allocation opened in CUDA by
// another process.
func TestCUDAToCUDAAcrossProcesses(t *testing.T) {
	d := interopDevice(t)
	m, err := d.CUDA().AllocShareable(4 << 20)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	size := int(m.Size())
	if err := toDevice(d.CUDA(), m.Ptr(), random(61, size)); err != nil {
		t.Fatal(err)
	}
	ex, err := ExportCUDA(d.CUDA(), m)
	if err != nil {
		t.Fatal(err)
	}
	defer ex.Close()
	c := startChild(t, "cudabuf", "TOKEN="+string(ex.Token()), "SEEDS=61,62")
	c.expect(t, "written")
	got := poisoned(size)
	if err := d.CUDA().CopyDtoH(got, m.Ptr()); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, random(62, size)) {
		t.Fatal("bytes CUDA wrote in the other process differ")
	}
	c.wait(t)
}

// TestTextureToCUDAAcrossProcesses: an interop texture written by Vulkan,
// opened by another process with OpenTexture and copied out by CUDA.
func TestTextureToCUDAAcrossProcesses(t *testing.T) {
	d := interopDevice(t)
	tex, err := d.NewTexture(interop.TextureOptions{Format: format.RGBA8UNorm, Width: 1920, Height: 1080})
	if err != nil {
		t.Fatal(err)
	}
	n := 1920 * 1080 * 4
	uploadImage(t, d.Vulkan(), tex.Vulkan(), random(71, n))
	ex, err := Export(tex)
	if err != nil {
		t.Fatal(err)
	}
	defer ex.Close()
	c := startChild(t, "cudatex", "TOKEN="+string(ex.Token()), "NBYTES="+strconv.Itoa(n))
	c.expect(t, "ok")
	c.wait(t)
}

// cudaChild runs the CUDA roles of TestChild.
func cudaChild(t *testing.T, role string, tok Token) {
	ctx := ctx10(t)
	switch role {
	case "cudabuf":
		m, err := tok.Meta()
		if err != nil {
			childFail("%v", err)
		}
		var seeds [2]uint64
		for i, s := range bytes.Split([]byte(os.Getenv("SEEDS")), []byte(",")) {
			seeds[i], _ = strconv.ParseUint(string(s), 10, 64)
		}
		if err := cuda.Init(); err != nil {
			childFail("cuda: %v", err)
		}
		dev, err := cuda.DeviceByUUID(cuda.UUID(m.UUID))
		if err != nil {
			childFail("device: %v", err)
		}
		cc, err := dev.PrimaryContext()
		if err != nil {
			childFail("context: %v", err)
		}
		defer cc.Close()
		b, err := OpenCUDABuffer(ctx, cc, tok)
		if err != nil {
			childFail("open: %v", err)
		}
		n := int(b.Size())
		got := poisoned(n)
		if err := cc.CopyDtoH(got, b.Ptr()); err != nil || !bytes.Equal(got, random(seeds[0], n)) {
			childFail("bytes differ in CUDA (%v)", err)
		}
		if err := toDevice(cc, b.Ptr(), random(seeds[1], n)); err != nil {
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
		got := poisoned(n)
		if err := b.Readback(0, got); err != nil || !bytes.Equal(got, random(51, n)) {
			childFail("bytes differ in Vulkan (%v)", err)
		}
		if err := b.Upload(0, random(52, n)); err != nil {
			childFail("upload: %v", err)
		}
		b.Close()
		say("written")
	case "cudatex":
		d := interopDevice(t)
		tex, err := OpenTexture(ctx, d, tok)
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
		got := poisoned(n)
		if err := d.CUDA().CopyDtoH(got, dm.Ptr()); err != nil || !bytes.Equal(got, random(71, n)) {
			childFail("texels differ in CUDA (%v)", err)
		}
		dm.Close()
		tex.Close()
		say("ok")
	default:
		childFail("unknown role %q", role)
	}
}
