package compute

import (
	"bytes"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/gfxcuda/gfxcuda/format"
	"github.com/gfxcuda/gfxcuda/shader"
	"github.com/gfxcuda/gfxcuda/vulkan"
)

// Buffers placed over the same bytes of a Memory see each other's writes,
// through the host mapping and through GPU copies.
func TestMemoryAliasedBuffers(t *testing.T) {
	d := openTest(t)
	r := newRand(41)
	for _, heap := range []Heap{HeapUpload, HeapReadback, HeapDefault} {
		m, err := d.NewMemory(256<<10, heap)
		if err != nil {
			t.Fatal(err)
		}
		a, err := d.PlacedBuffer(64<<10, heap, 0, 0, Placement{Memory: m, Offset: 64 << 10})
		if err != nil {
			t.Fatal(err)
		}
		whole, err := d.PlacedBuffer(256<<10, heap, 0, 0, Placement{Memory: m})
		if err != nil {
			t.Fatal(err)
		}
		if err := whole.Upload(poison(256 << 10)); err != nil {
			t.Fatal(err)
		}
		want := randomBytes(r, 64<<10)
		if err := a.Upload(want); err != nil {
			t.Fatal(err)
		}
		got := make([]byte, 64<<10)
		if err := whole.ReadbackAt(64<<10, got); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("%v heap: the whole-memory buffer does not see what the buffer at 64 KiB wrote", heap)
		}
		// A GPU copy out of the alias reads the same bytes.
		rb, err := d.Buffer(64<<10, HeapReadback)
		if err != nil {
			t.Fatal(err)
		}
		b := mustBatch(t, d)
		b.CopyBuffer(rb, whole, 0, 64<<10, 64<<10)
		if err := b.Run(); err != nil {
			t.Fatal(err)
		}
		got2, err := rb.Readback()
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got2, want) {
			t.Fatalf("%v heap: GPU copy of the alias differs", heap)
		}
		// The memory outlives its Close while buffers use it.
		if err := m.Close(); err != nil {
			t.Fatal(err)
		}
		if err := a.Upload(want[:16]); err != nil {
			t.Fatalf("upload after the Memory's Close: %v", err)
		}
		for _, c := range []interface{ Close() error }{a, whole, rb, b} {
			c.Close()
		}
	}
}

func mustBatch(t *testing.T, d *Device) *Batch {
	t.Helper()
	b, err := d.NewBatch()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// A texture placed in default-heap memory round-trips random texels.
func TestMemoryPlacedTexture(t *testing.T) {
	d := openTest(t)
	m, err := d.NewMemory(1<<20, HeapDefault)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	tex, err := d.PlacedTexture(vulkan.Image2D, 64, 32, 1, 1, format.RGBA8UInt, Placement{Memory: m})
	if err != nil {
		t.Fatal(err)
	}
	defer tex.Close()
	want := randomBytes(newRand(7), int(tex.Size()))
	if err := tex.Upload(want); err != nil {
		t.Fatal(err)
	}
	got, err := tex.Readback()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatal("placed texture: texels differ")
	}
}

// Placements that cannot be made fail with ErrPlacement and leave nothing
// behind; a thousand placed buffers come and go.
func TestMemoryPlacementErrors(t *testing.T) {
	d := openTest(t)
	up, err := d.NewMemory(64<<10, HeapUpload)
	if err != nil {
		t.Fatal(err)
	}
	defer up.Close()
	def, err := d.NewMemory(4096, HeapDefault)
	if err != nil {
		t.Fatal(err)
	}
	defer def.Close()
	for name, f := range map[string]func() error{
		"past the end": func() error {
			_, err := d.PlacedBuffer(1024, HeapUpload, 0, 0, Placement{Memory: up, Offset: 64 << 10})
			return err
		},
		"too big": func() error { _, err := d.PlacedBuffer(128<<10, HeapUpload, 0, 0, Placement{Memory: up}); return err },
		"misaligned": func() error {
			_, err := d.PlacedBuffer(256, HeapUpload, 0, 0, Placement{Memory: up, Offset: 1})
			return err
		},
		"wrong heap": func() error { _, err := d.PlacedBuffer(256, HeapReadback, 0, 0, Placement{Memory: up}); return err },
		"texture upload": func() error {
			_, err := d.PlacedTexture(vulkan.Image1D, 2, 1, 1, 1, format.RGBA8UNorm, Placement{Memory: up})
			return err
		},
		"texture too big": func() error {
			_, err := d.PlacedTexture(vulkan.Image2D, 4096, 4096, 1, 1, format.RGBA8UNorm, Placement{Memory: def})
			return err
		},
	} {
		err := f()
		if !errors.Is(err, vulkan.ErrPlacement) {
			t.Errorf("%s: got %v, want an error wrapping ErrPlacement", name, err)
		}
	}
	for range 1000 {
		b, err := d.PlacedBuffer(256, HeapUpload, 0, 0, Placement{Memory: up, Offset: 4096})
		if err != nil {
			t.Fatal(err)
		}
		b.Close()
	}
}

// Sparse buffers: blocks bound to memory (aliased where the device allows)
// read back what was written through another block; without sparse
// binding the error says so.
func TestSparseBuffer(t *testing.T) {
	d := openTest(t)
	if !d.SparseSupported() {
		_, err := d.PlacedBuffer(1<<20, HeapDefault, 0, 0, Placement{Sparse: true})
		if !errors.Is(err, vulkan.ErrUnsupported) || !bytes.Contains([]byte(err.Error()), []byte("sparseBinding")) {
			t.Fatalf("sparse buffer without sparse binding: %v", err)
		}
		if os.Getenv("GFXCUDA_REQUIRE_HARDWARE") == "1" {
			t.Fatalf("GFXCUDA_REQUIRE_HARDWARE=1 but %s has no sparse binding", d)
		}
		t.Skipf("%s has no sparse binding (checked the error)", d)
	}
	b, err := d.PlacedBuffer(2<<20, HeapDefault, 0, 0, Placement{Sparse: true})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	l, _ := b.Sparse()
	m, err := d.NewMemory(4*l.Size, HeapDefault)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	off := func(i uint64) uint64 {
		if l.Aliased {
			return 0
		}
		return i * l.Size
	}
	for i := range uint32(3) {
		if err := b.BindBlock(i, m, off(uint64(i))); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.BindBlock(l.Blocks[0], m, 0); !errors.Is(err, vulkan.ErrPlacement) || !strings.Contains(err.Error(), "out of bounds") {
		t.Errorf("BindBlock past the last block: %v, want vulkan.ErrPlacement, out of bounds", err)
	}
	want := randomBytes(newRand(9), int(l.Size))
	if err := b.UploadAt(2*l.Size, want); err != nil {
		t.Fatal(err)
	}
	got := make([]byte, l.Size)
	if err := b.ReadbackAt(2*l.Size, got); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatal("sparse block 2 does not read back")
	}
	if l.Aliased {
		for i := range uint64(2) {
			copy(got, poison(len(got)))
			if err := b.ReadbackAt(i*l.Size, got); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("aliased block %d does not see block 2's bytes", i)
			}
		}
	}
	if err := b.BindBlock(l.Blocks[0], m, 0); err == nil {
		t.Fatal("binding a block past the end succeeded")
	}
	if err := b.BindBlock(0, m, 1); !errors.Is(err, vulkan.ErrPlacement) {
		t.Fatalf("misaligned memory offset: %v", err)
	}
}

// Bindless kernels: a runtime-sized array of typed buffers, bound element
// by element, some left unbound.
func TestBindlessKernel(t *testing.T) {
	d := openTest(t)
	src := `
Buffer<uint> inputs[] : register(t0);
RWBuffer<uint> outputs[] : register(u0);
[numthreads(1, 1, 1)]
void main(uint3 tid : SV_DispatchThreadID)
{
	outputs[0][tid.x] = inputs[tid.x][0] * 3 + tid.x;
}`
	m := compileModule(t, src)
	if !d.BindlessSupported() {
		_, err := d.KernelWith(m, KernelOptions{Bindless: 64})
		if !errors.Is(err, vulkan.ErrUnsupported) {
			t.Fatalf("bindless kernel without descriptor indexing: %v", err)
		}
		if os.Getenv("GFXCUDA_REQUIRE_HARDWARE") == "1" {
			t.Fatalf("GFXCUDA_REQUIRE_HARDWARE=1 but %s lacks descriptor indexing", d)
		}
		t.Skipf("%s lacks descriptor indexing (checked the error)", d)
	}
	if _, err := d.Kernel(m, ""); err == nil {
		t.Fatal("a runtime-sized array compiled into a kernel that is not bindless")
	}
	k, err := d.KernelWith(m, KernelOptions{Bindless: 64})
	if err != nil {
		t.Fatal(err)
	}
	defer k.Close()
	const n = 40 // of 64: the rest stay unbound
	vals := u32s(randomBytes(newRand(3), 4*n))
	args := []Arg{}
	for i := range n {
		b, err := d.TypedBuffer(format.R32UInt, 1, HeapDefault)
		if err != nil {
			t.Fatal(err)
		}
		defer b.Close()
		if err := b.Upload(u32bytes(vals[i : i+1])); err != nil {
			t.Fatal(err)
		}
		args = append(args, SRV(0, b).Element(uint32(i)))
	}
	out, err := d.TypedBuffer(format.R32UInt, n, HeapDefault)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	if err := out.Upload(poison(4 * n)); err != nil {
		t.Fatal(err)
	}
	args = append(args, UAV(0, out).Element(0))
	if err := k.Dispatch(n, 1, 1, args...); err != nil {
		t.Fatal(err)
	}
	raw, err := out.Readback()
	if err != nil {
		t.Fatal(err)
	}
	got := u32s(raw)
	for i := range n {
		if want := vals[i]*3 + uint32(i); got[i] != want {
			t.Fatalf("output %d = %#x, want %#x", i, got[i], want)
		}
	}
}

func compileModule(t *testing.T, src string) *shader.Module {
	t.Helper()
	m, err := shader.Compile([]byte(src), shader.Options{Filename: "bindless.hlsl"})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// Sparse textures: two blocks bound to different places in memory, a
// block-sized region written into the second and read back.
func TestSparseTexture(t *testing.T) {
	d := openTest(t)
	if !d.SparseSupported() {
		t.Skip("no sparse binding (TestSparseBuffer checks the error)")
	}
	tex, err := d.PlacedTexture(vulkan.Image2D, 512, 512, 1, 1, format.RGBA8UNorm, Placement{Sparse: true})
	if err != nil {
		t.Fatal(err)
	}
	defer tex.Close()
	l, ok := tex.Sparse()
	if !ok || l.Block[0] == 0 || l.Blocks[0]*l.Block[0] < 512 {
		t.Fatalf("sparse layout %+v", l)
	}
	m, err := d.NewMemory(2*l.Size, HeapDefault)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if err := tex.BindBlock(0, 0, 0, 0, m, 0); err != nil {
		t.Fatal(err)
	}
	if err := tex.BindBlock(1, 0, 0, 0, m, l.Size); err != nil {
		t.Fatal(err)
	}
	w, h := l.Block[0], l.Block[1]
	stage, err := d.Texture2D(w, h, format.RGBA8UNorm)
	if err != nil {
		t.Fatal(err)
	}
	defer stage.Close()
	want := randomBytes(newRand(11), int(stage.Size()))
	if err := stage.Upload(want); err != nil {
		t.Fatal(err)
	}
	back, err := d.Texture2D(w, h, format.RGBA8UNorm)
	if err != nil {
		t.Fatal(err)
	}
	defer back.Close()
	if err := back.Upload(poison(int(back.Size()))); err != nil {
		t.Fatal(err)
	}
	b := mustBatch(t, d)
	defer b.Close()
	b.CopyTexture(tex, stage, TextureCopy{DstX: w, Width: w, Height: h})
	b.Barrier()
	b.CopyTexture(back, tex, TextureCopy{SrcX: w, Width: w, Height: h})
	if err := b.Run(); err != nil {
		t.Fatal(err)
	}
	got, err := back.Readback()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatal("sparse texture block 1 does not read back")
	}
}

// A device closed with memory, placed buffers and textures still open
// destroys them in order (the validation layer reports any leak or use
// after free when openTest's cleanup closes the device).
func TestMemoryLeftOpenAtDeviceClose(t *testing.T) {
	d := openTest(t)
	m, err := d.NewMemory(1<<20, HeapDefault)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.PlacedBuffer(4096, HeapDefault, 0, 0, Placement{Memory: m}); err != nil {
		t.Fatal(err)
	}
	if _, err := d.PlacedTexture(vulkan.Image2D, 16, 16, 1, 1, format.RGBA8UNorm, Placement{Memory: m, Offset: 64 << 10}); err != nil {
		t.Fatal(err)
	}
}

// TestPlacedTextureHeap: a texture placed in memory of the upload heap is
// refused with vulkan.ErrPlacement (textures live on the default heap).
func TestPlacedTextureHeap(t *testing.T) {
	d := openTest(t)
	m, err := d.NewMemory(1<<20, HeapUpload)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if _, err := d.PlacedTexture(vulkan.Image2D, 4, 4, 1, 1, format.RGBA8UNorm, Placement{Memory: m}); !errors.Is(err, vulkan.ErrPlacement) || !strings.Contains(err.Error(), "HEAP_DEFAULT") {
		t.Errorf("a texture in upload memory: %v, want vulkan.ErrPlacement naming HEAP_DEFAULT", err)
	}
}
