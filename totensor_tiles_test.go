package gfxcuda

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/gfxcuda/gfxcuda/format"
	"github.com/gfxcuda/gfxcuda/tensor"
	"github.com/gfxcuda/gfxcuda/tensor/tensortest"
	"github.com/gfxcuda/gfxcuda/vulkan"
)

// tilesOf cuts the first n tiles (row by row) of cols × rows out of atlas.
func tilesOf(atlas tensor.Image, cols, rows, n int) []tensor.Image {
	w, h := atlas.Width/uint32(cols), atlas.Height/uint32(rows)
	var out []tensor.Image
	for v := 0; v < n; v++ {
		out = append(out, tensortest.Tile(atlas, v%cols, v/cols, w, h))
	}
	return out
}

// checkTiles checks got, a tensor of n views at byte off with poison (0xCD)
// around it: the poison untouched and every element against the Go
// reference of the first n tiles of atlas.
func checkTiles(t *testing.T, what string, l tensor.Layout, atlas tensor.Image, cols, rows, n int, got []byte, off, per uint64) {
	t.Helper()
	for i, b := range append(append([]byte{}, got[:off]...), got[off+per:]...) {
		if b != 0xCD {
			t.Fatalf("%s: byte %d around the tensor written", what, i)
		}
	}
	bad, first, err := tensor.Check(l, tilesOf(atlas, cols, rows, n), got[off:off+per])
	noErr(t, err)
	if bad > 0 {
		t.Errorf("%s: %d elements wrong; first: %s", what, bad, first)
	}
}

// TestToTensorTilesCPU converts the 7 used tiles of a random 3 x 3 atlas of
// each source format into a tensor in a Device's buffer (ConverterVulkan),
// through the face's ToTensor with its hand-offs — real Vulkan on
// lavapipe, a fake CUDA side (the test is of the face's own path: checks,
// recording, submission, the states) — and compares every element, read
// back through Vulkan, with the Go reference of the tiles, and the bytes
// around the tensor with their poison.
func TestToTensorTilesCPU(t *testing.T) {
	d, f := fakeDevice(t)
	f.auto(t)
	rng := rand.New(rand.NewPCG(rand.Uint64(), 35))
	const cols, rows, n, tw, th, off = 3, 3, 7, 8, 5, 12
	l := tensor.Layout{Planar: true, DType: format.Float32, Channels: 3, FlipY: true,
		Mean: [4]float32{0.485, 0.456, 0.406}, Std: [4]float32{0.229, 0.224, 0.225}}
	size := off + l.Bytes(tw, th)*n + 16
	for _, sf := range tensor.Sources {
		atlas := tensortest.RandomImage(rng, sf, tw*cols, th*rows)
		o := TextureOptions{Format: sf, Width: atlas.Width, Height: atlas.Height, Layers: 1,
			Usage: vulkan.ImageTransferSrc | vulkan.ImageTransferDst | vulkan.ImageSampled | vulkan.ImageStorage}
		img, err := d.vk.NewImage(vulkan.ImageOptions{Dim: vulkan.Image2D, Format: uint32(sf), Width: o.Width, Height: o.Height, Layers: 1, Usage: o.Usage})
		noErr(t, err)
		tex := &Texture{s: state{d: d}, o: o, info: sf.Info(), vk: img}
		d.mu.Lock()
		d.adopt(tex, &tex.s, guardImage(img))
		d.mu.Unlock()
		uploadImage(t, d, tex, atlas.Pix)
		b := fakeBuffer(t, d, size)
		rb, err := d.vk.NewBuffer(vulkan.BufferOptions{Size: size, Heap: vulkan.HeapReadback})
		noErr(t, err)
		m, err := rb.Map()
		noErr(t, err)
		noErr(t, d.Run(func(c *vulkan.Commands) error { c.FillBuffer(b.Vulkan(), 0, size, 0xCDCDCDCD); return nil }))
		noErr(t, tex.ToTensor(b, TensorOptions{Layout: l, Converter: ConverterVulkan, Offset: off, Tiles: Tiles{Cols: cols, Rows: rows, N: n}}))
		noErr(t, d.Run(func(c *vulkan.Commands) error { c.CopyBuffer(rb, b.Vulkan(), 0, 0, size); return nil }))
		noErr(t, rb.Invalidate(0, size))
		checkTiles(t, sf.String(), l, atlas, cols, rows, n, m, off, l.Bytes(tw, th)*n)
		closeT(t, rb)
	}
}

// TestToTensorTilesErrors: tiles that do not divide the texture, no views
// or more views than tiles, a buffer too small for N views, and tiles asked
// of the CUDA converter are each refused, naming what is wrong.
func TestToTensorTilesErrors(t *testing.T) {
	d, f := fakeDevice(t)
	f.auto(t)
	tex := fakeTexture(t, d, 16, 8)
	b := fakeBuffer(t, d, 4096)
	l := tensor.Layout{DType: format.Uint8}
	for _, c := range []struct {
		g    Tiles
		conv Converter
		want error
	}{
		{Tiles{Cols: 3, Rows: 2, N: 4}, ConverterVulkan, ErrSource},
		{Tiles{Cols: 2, Rows: 3, N: 4}, ConverterVulkan, ErrSource},
		{Tiles{Cols: 2, Rows: 2, N: 0}, ConverterVulkan, ErrSource},
		{Tiles{Cols: 2, Rows: 2, N: 5}, ConverterVulkan, ErrSource},
		{Tiles{Cols: 0, Rows: 2, N: 1}, ConverterVulkan, ErrSource},
		{Tiles{Cols: 2, Rows: 2, N: 4}, ConverterCUDA, ErrUnsupported},
	} {
		err := tex.ToTensor(b, TensorOptions{Layout: l, Converter: c.conv, Tiles: c.g})
		if !errors.Is(err, c.want) {
			t.Errorf("%+v with %v: %v, want %v", c.g, c.conv, err, c.want)
		}
	}
	small := fakeBuffer(t, d, 100)
	if err := tex.ToTensor(small, TensorOptions{Layout: l, Converter: ConverterVulkan, Tiles: Tiles{Cols: 2, Rows: 2, N: 4}}); !errors.Is(err, ErrSource) {
		t.Errorf("4 tiles of 8x4 RGBA8 into 100 bytes: %v, want ErrSource", err)
	}
}

// TestToTensorTiles is TestToTensorTilesCPU on a real Device (CUDA): the 13
// used tiles of a random 4 x 4 atlas of each source format through
// ToTensor (ConverterVulkan), read by CUDA on the Device's stream after
// the hand-off, every element compared. Without a GPU it skips.
func TestToTensorTiles(t *testing.T) {
	d := openDevice(t)
	rng := rand.New(rand.NewPCG(rand.Uint64(), 36))
	const cols, rows, n, tw, th, pad = 4, 4, 13, 12, 7, 64
	for _, l := range []tensor.Layout{
		{DType: format.Uint8},
		{Planar: true, DType: format.Float16, Channels: 3, FlipY: true},
	} {
		per := l.Bytes(tw, th) * n
		buf, err := d.NewBuffer(per + 2*pad)
		noErr(t, err)
		for _, sf := range tensor.Sources {
			atlas := tensortest.RandomImage(rng, sf, tw*cols, th*rows)
			tex, err := d.NewTexture(TextureOptions{Format: sf, Width: atlas.Width, Height: atlas.Height})
			noErr(t, err)
			uploadImage(t, d, tex, atlas.Pix)
			poisonBuffer(t, d, buf)
			noErr(t, tex.ToTensor(buf, TensorOptions{Layout: l, Converter: ConverterVulkan, Offset: pad, Tiles: Tiles{Cols: cols, Rows: rows, N: n}}))
			checkTiles(t, fmt.Sprintf("%s from %v", l, sf), l, atlas, cols, rows, n, readTensor(t, d, buf, per+2*pad), pad, per)
			closeT(t, tex)
		}
		closeT(t, buf)
	}
}

// TestToTensorTilesViewable: an RGBA8 texture made with R32_UINT among its
// view formats is shared with CUDA as any other (random texels written by
// Vulkan read by CUDA and back, every byte), and ToTensor converts its
// tiles from texel words — two rows an invocation for tiles of an even
// height, one otherwise — every element of the tensor, read by CUDA,
// against the Go reference and the bytes around it untouched. The same
// texture imported from its exported memory with the same options
// converts the same. Without a GPU it skips.
func TestToTensorTilesViewable(t *testing.T) {
	d := openDevice(t)
	rng := rand.New(rand.NewPCG(rand.Uint64(), 37))
	const cols, rows, n, tw, pad = 4, 4, 13, 16, 64
	for _, th := range []uint32{6, 7} {
		o := TextureOptions{Format: format.RGBA8UNorm, Width: tw * cols, Height: th * rows, ViewFormats: []format.Format{format.R32UInt}}
		tex, err := d.NewTexture(o)
		noErr(t, err)
		if got := tex.Vulkan().Options().ViewFormats; len(got) != 1 || got[0] != uint32(format.R32UInt) {
			t.Fatalf("the texture's image has view formats %v, want [R32_UINT]", got)
		}
		scratch := must(d.CUDA().Alloc(uint64(o.Width * o.Height * 4)))(t)
		host := pinned(t, d, int(o.Width*o.Height*4))
		roundTripTexture(t, d, tex, scratch, host)
		closeT(t, scratch)
		fd, err := tex.ExportFD()
		noErr(t, err)
		imp, err := d.ImportTexture(fd, tex.Options(), ImportOptions{AllocationSize: tex.AllocationSize()})
		noErr(t, err)
		for _, l := range []tensor.Layout{{DType: format.Uint8}, {Planar: true, DType: format.Uint8, Channels: 3, FlipY: true}} {
			per := l.Bytes(tw, th) * n
			buf, err := d.NewBuffer(per + 2*pad)
			noErr(t, err)
			atlas := tensortest.RandomImage(rng, format.RGBA8UNorm, o.Width, o.Height)
			uploadImage(t, d, tex, atlas.Pix)
			for _, src := range []*Texture{tex, imp} {
				poisonBuffer(t, d, buf)
				noErr(t, src.ToTensor(buf, TensorOptions{Layout: l, Converter: ConverterVulkan, Offset: pad, Tiles: Tiles{Cols: cols, Rows: rows, N: n}}))
				checkTiles(t, fmt.Sprintf("%s from %d-row tiles (imported: %v)", l, th, src == imp), l, atlas, cols, rows, n,
					readTensor(t, d, buf, per+2*pad), pad, per)
			}
			closeT(t, buf)
		}
		closeT(t, imp)
		closeT(t, tex)
	}
}
