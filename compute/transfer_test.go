package compute

import (
	"bytes"
	"testing"

	"github.com/gfxcuda/gfxcuda/format"
	"github.com/gfxcuda/gfxcuda/vulkan"
)

// TestBufferTransfers: uploads and readbacks of device-local buffers larger
// than the staging rings, at odd offsets, into new and preallocated
// slices, compared byte for byte on random data; and copies between every
// pair of heaps with offsets.
func TestBufferTransfers(t *testing.T) {
	for _, mode := range []vulkan.TransferMode{vulkan.TransferAuto, vulkan.TransferStaged, vulkan.TransferImport} {
		t.Run(mode.String(), func(t *testing.T) {
			testBufferTransfers(t, mode)
		})
	}
}

func testBufferTransfers(t *testing.T, mode vulkan.TransferMode) {
	d := openTest(t)
	d.Vulkan().SetTransferMode(mode)
	r := newRand(11)
	const size = 37<<20 + 12
	b, err := d.Buffer(size, HeapDefault)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	data := randomBytes(r, size)
	if err := b.Upload(data); err != nil {
		t.Fatal(err)
	}
	got, err := b.Readback()
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("Readback of %d bytes differs (%v)", size, err)
	}
	// Part of it, at an odd offset, into a reused slice.
	part := randomBytes(r, 9<<20+3)
	const off = 1<<20 + 5
	if err := b.UploadAt(off, part); err != nil {
		t.Fatal(err)
	}
	copy(data[off:], part)
	into := poison(size)
	for round := range 2 {
		if err := b.ReadbackInto(into); err != nil || !bytes.Equal(into, data) {
			t.Fatalf("ReadbackInto round %d differs (%v)", round, err)
		}
		clear(into)
	}
	sub := poison(len(part))
	if err := b.ReadbackAt(off, sub); err != nil || !bytes.Equal(sub, part) {
		t.Fatalf("ReadbackAt(%d) differs (%v)", off, err)
	}
	// Unaligned host memory: an import of the middle, the ends staged.
	odd := randomBytes(r, 5<<20+1001)[77:]
	if err := b.UploadAt(3, odd); err != nil {
		t.Fatal(err)
	}
	oddBack := poison(len(odd) + 200)[123:][:len(odd)]
	if err := b.ReadbackAt(3, oddBack); err != nil || !bytes.Equal(oddBack, odd) {
		t.Fatalf("unaligned round trip differs (%v)", err)
	}
	imports := d.Vulkan().HostImports()
	switch {
	case !d.Vulkan().ImportsHostMemory() && imports != 0:
		t.Errorf("%d host imports with %v", imports, mode)
	case d.Vulkan().ImportsHostMemory() && imports == 0:
		t.Errorf("no host import with %v, though the device imports", mode)
	case mode == vulkan.TransferImport && !d.Vulkan().ImportsHostMemory() && d.Vulkan().Physical().HasExtension("VK_EXT_external_memory_host"):
		t.Error("TransferImport does not import on a device with VK_EXT_external_memory_host")
	}
	t.Logf("%d transfers imported host memory", imports)

	// Copies with offsets and sizes between every pair of heaps.
	heaps := []Heap{HeapDefault, HeapUpload, HeapReadback}
	for _, hs := range heaps {
		for _, hd := range heaps {
			src := newBuffer(t, d, hs, randomBytes(r, 4096))
			dst := newBuffer(t, d, hd, poison(4096))
			bt, err := d.NewBatch()
			if err != nil {
				t.Fatal(err)
			}
			bt.CopyBuffer(dst, src, 100, 7, 3000)
			if err := bt.Run(); err != nil {
				t.Fatalf("%v → %v: %v", hs, hd, err)
			}
			bt.Close()
			want := poison(4096)
			copy(want[100:3100], readback(t, src)[7:3007])
			if g := readback(t, dst); !bytes.Equal(g, want) {
				t.Errorf("%v → %v: copy differs", hs, hd)
			}
			src.Close()
			dst.Close()
		}
	}
}

// TestTextureTransfers: 1D, 2D, 3D textures and 1D and 2D arrays, whole and
// by region, uploaded and read back through the staging rings; and
// texture-to-texture copies of regions between slices.
func TestTextureTransfers(t *testing.T) {
	for _, mode := range []vulkan.TransferMode{vulkan.TransferAuto, vulkan.TransferStaged, vulkan.TransferImport} {
		t.Run(mode.String(), func(t *testing.T) {
			testTextureTransfers(t, mode)
		})
	}
}

func testTextureTransfers(t *testing.T, mode vulkan.TransferMode) {
	d := openTest(t)
	d.Vulkan().SetTransferMode(mode)
	r := newRand(12)
	type mk func() (*Texture, error)
	for _, c := range []struct {
		name string
		make mk
	}{
		{"1D", func() (*Texture, error) { return d.Texture1D(777, format.RGBA8UNorm) }},
		{"1D array", func() (*Texture, error) { return d.Texture1DArray(300, 3, format.R32Float) }},
		{"2D 1080p", func() (*Texture, error) { return d.Texture2D(1920, 1080, format.RGBA8UNorm) }},
		{"2D array", func() (*Texture, error) { return d.Texture2DArray(65, 33, 4, format.RG16Float) }},
		{"3D", func() (*Texture, error) { return d.Texture3D(40, 30, 20, format.RGBA32Float) }},
	} {
		tex, err := c.make()
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		data := randomBytes(r, int(tex.Size()))
		if err := tex.Upload(data); err != nil {
			t.Fatalf("%s: Upload: %v", c.name, err)
		}
		got := poison(int(tex.Size()))
		if err := tex.ReadbackInto(got); err != nil || !bytes.Equal(got, data) {
			t.Fatalf("%s: round trip differs (%v)", c.name, err)
		}
		// A region: from (1, 0, 0) (and the last slice), 3 texels wide.
		bpp := uint64(tex.Format().Info().BytesPerTexel)
		reg := TextureRegion{X: 1, Width: 3, Layer: tex.Slices() - 1}
		if tex.Height() > 1 {
			reg.Y, reg.Height = 2, 5
		}
		if tex.Depth() > 1 {
			reg.Z, reg.Depth = 3, 2
		}
		n, err := tex.RegionSize(reg)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		patch := randomBytes(r, int(n))
		if err := tex.UploadRegion(reg, patch); err != nil {
			t.Fatalf("%s: UploadRegion: %v", c.name, err)
		}
		// Apply the patch to the expected bytes.
		w, h, dp := uint64(tex.Width()), uint64(tex.Height()), uint64(tex.Depth())
		rh, rd := max(uint64(reg.Height), 1), max(uint64(reg.Depth), 1)
		if tex.Height() == 1 {
			rh = 1
		}
		if tex.Depth() == 1 {
			rd = 1
		}
		var at uint64
		for z := range rd {
			for y := range rh {
				o := ((uint64(reg.Layer)*dp+uint64(reg.Z)+z)*h+uint64(reg.Y)+y)*w*bpp + uint64(reg.X)*bpp
				copy(data[o:o+3*bpp], patch[at:at+3*bpp])
				at += 3 * bpp
			}
		}
		back, err := tex.Readback()
		if err != nil || !bytes.Equal(back, data) {
			t.Fatalf("%s: after UploadRegion the texture differs (%v)", c.name, err)
		}
		sub := poison(int(n))
		if err := tex.ReadbackRegion(reg, sub); err != nil || !bytes.Equal(sub, patch) {
			t.Fatalf("%s: ReadbackRegion differs (%v)", c.name, err)
		}
		tex.Close()
	}

	// Texture to texture: a region of slice 1 into slice 2 at an offset.
	a, _ := d.Texture2DArray(16, 16, 3, format.RGBA8UNorm)
	bt, _ := d.Texture2DArray(16, 16, 3, format.RGBA8UNorm)
	defer a.Close()
	defer bt.Close()
	src := randomBytes(r, int(a.Size()))
	dst := randomBytes(r, int(bt.Size()))
	if err := a.Upload(src); err != nil {
		t.Fatal(err)
	}
	if err := bt.Upload(dst); err != nil {
		t.Fatal(err)
	}
	batch, err := d.NewBatch()
	if err != nil {
		t.Fatal(err)
	}
	defer batch.Close()
	batch.CopyTexture(bt, a, TextureCopy{SrcX: 2, SrcY: 3, DstX: 5, DstY: 1, Width: 4, Height: 6, SrcSlice: 1, DstSlice: 2, Slices: 1})
	if err := batch.Run(); err != nil {
		t.Fatal(err)
	}
	for y := range 6 {
		for x := range 4 {
			s := ((1*16+3+y)*16 + 2 + x) * 4
			o := ((2*16+1+y)*16 + 5 + x) * 4
			copy(dst[o:o+4], src[s:s+4])
		}
	}
	if got, err := bt.Readback(); err != nil || !bytes.Equal(got, dst) {
		t.Fatalf("CopyTexture region differs (%v)", err)
	}
	t.Logf("%d transfers imported host memory", d.Vulkan().HostImports())
	if !d.Vulkan().ImportsHostMemory() && d.Vulkan().HostImports() != 0 {
		t.Errorf("host imports with %v", mode)
	}
}

// TestSamplerModes: every filter and address mode, per axis, reading a
// known texture outside [0, 1).
func TestSamplerModes(t *testing.T) {
	d := openTest(t)
	k := compile(t, d, "samp.hlsl", `Texture2D<float> tex : register(t0);
SamplerState smp : register(s0);
RWStructuredBuffer<float> o : register(u0);
cbuffer P : register(b0) { float2 uv; float2 pad; };
[numthreads(1, 1, 1)] void main() { o[0] = tex.SampleLevel(smp, uv, 0); }`)
	tex, err := d.Texture2D(2, 2, format.R32Float)
	if err != nil {
		t.Fatal(err)
	}
	defer tex.Close()
	if err := tex.Upload(f32bytes([]float32{1, 2, 3, 4})); err != nil {
		t.Fatal(err)
	}
	out := newBuffer(t, d, HeapReadback, poison(4))
	sample := func(sp SamplerSpec, u, v float32) float32 {
		t.Helper()
		s, err := d.SamplerWith(sp)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		cb := newBuffer(t, d, HeapUpload, f32bytes([]float32{u, v, 0, 0}))
		defer cb.Close()
		if err := k.Dispatch(1, 1, 1, SRV(0, tex), SamplerAt(0, s), UAV(0, out), CBV(0, cb)); err != nil {
			t.Fatal(err)
		}
		return f32s(readback(t, out))[0]
	}
	pt := func(u, v AddressMode) SamplerSpec {
		return SamplerSpec{MinFilter: FilterPoint, MagFilter: FilterPoint, AddressU: u, AddressV: v, AddressW: u}
	}
	// Texel centres: u 0.25 → column 0, 0.75 → column 1.
	for _, c := range []struct {
		name string
		sp   SamplerSpec
		u, v float32
		want float32
	}{
		{"wrap", pt(AddressWrap, AddressWrap), 1.25, 0.25, 1},
		{"mirror", pt(AddressMirror, AddressWrap), 1.25, 0.25, 2},
		{"clamp", pt(AddressClamp, AddressClamp), 3.0, 5.0, 4},
		{"border", pt(AddressBorder, AddressBorder), 2.0, 0.25, 0},
		{"per axis: u clamp, v wrap", pt(AddressClamp, AddressWrap), -1.0, 1.75, 3},
		{"linear", SamplerSpec{MinFilter: FilterLinear, MagFilter: FilterLinear, AddressU: AddressClamp, AddressV: AddressClamp, AddressW: AddressClamp}, 0.5, 0.5, 2.5},
		{"point", pt(AddressClamp, AddressClamp), 0.5 + 1e-3, 0.5 + 1e-3, 4},
	} {
		if got := sample(c.sp, c.u, c.v); got != c.want {
			t.Errorf("%s: sampled %v at (%v, %v), want %v", c.name, got, c.u, c.v, c.want)
		}
	}
	sp, err := ParseSampler("point,linear:clamp:wrap")
	if err != nil || sp.MinFilter != FilterPoint || sp.MagFilter != FilterLinear || sp.AddressU != AddressClamp || sp.AddressV != AddressWrap || sp.AddressW != AddressWrap {
		t.Errorf("ParseSampler: %+v, %v", sp, err)
	}
}

// TestUploadChunked: float3s padded to float4s with a filler, as
// compushady's upload_chunked does.
func TestUploadChunked(t *testing.T) {
	d := openTest(t)
	r := newRand(31)
	data := randomBytes(r, 12*100)
	filler := []byte{1, 2, 3, 4}
	b, err := d.Buffer(16*100, HeapDefault)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if err := b.UploadChunked(data, 12, filler); err != nil {
		t.Fatal(err)
	}
	got := readback(t, b)
	for i := range 100 {
		if !bytes.Equal(got[16*i:16*i+12], data[12*i:12*i+12]) || !bytes.Equal(got[16*i+12:16*i+16], filler) {
			t.Fatalf("chunk %d: %v", i, got[16*i:16*i+16])
		}
	}
	// A partial chunk is not written (compushady's rule): 13 bytes in
	// 12-byte chunks write one chunk and its filler, nothing after.
	part := randomBytes(r, 13)
	if err := b.UploadChunked(part, 12, filler); err != nil {
		t.Fatal(err)
	}
	want := append(append(append([]byte{}, part[:12]...), filler...), got[16:]...)
	if got := readback(t, b); !bytes.Equal(got, want) {
		t.Errorf("13 bytes in 12-byte chunks: %v, want %v", got[:32], want[:32])
	}
	if err := b.UploadChunked(randomBytes(r, 12*101), 12, filler); err == nil {
		t.Error("101 chunks into a 100-chunk buffer accepted")
	}
}
