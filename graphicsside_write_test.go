package gfxcuda

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/gfxcuda/gfxcuda/format"
	"github.com/gfxcuda/gfxcuda/gl"
	"github.com/gfxcuda/gfxcuda/tensor"
	"github.com/gfxcuda/gfxcuda/tensor/tensortest"
	"github.com/gfxcuda/gfxcuda/vulkan"
)

// exportableBuffer is a Buffer of the Device with only its Vulkan side, in
// memory GL can import (the fake CUDA side has none).
func exportableBuffer(t *testing.T, d *Device, size uint64) *Buffer {
	t.Helper()
	return fakeBufferOf(t, d, vulkan.BufferOptions{Size: size, Exportable: true})
}

// glSources makes n RGBA8 GL textures of random texels, w×h, each a
// GraphicsSource closed when the test ends.
func glSources(t *testing.T, c *gl.Context, rng *rand.Rand, w, h uint32, n int) ([]*gl.Texture, []*GraphicsSource) {
	t.Helper()
	texs, srcs := make([]*gl.Texture, n), make([]*GraphicsSource, n)
	for v := range n {
		tex := glTexture(t, c, tensortest.RandomImage(rng, format.RGBA8UNorm, w, h))
		s, err := c.TextureSource(tex.Name())
		noErr(t, err)
		g, err := NewGraphicsSource(s)
		noErr(t, err)
		t.Cleanup(func() { g.Close() })
		texs[v], srcs[v] = tex, g
	}
	return texs, srcs
}

// TestGraphicsWriteTensorsCPU: two GL textures' frames written into a
// Device's buffer by GL itself (GraphicsWriteTensors) while a hand-off
// holds it — real GL (llvmpipe) and Vulkan (lavapipe), a fake CUDA side
// (the test is of the face's own path: its checks, views and states) —
// read back through Vulkan after the hand-off returns: every element
// against the Go reference, for two frames; then what it refuses.
func TestGraphicsWriteTensorsCPU(t *testing.T) {
	d, f := fakeDevice(t)
	f.auto(t)
	c := openGL(t, nil)
	rng := rand.New(rand.NewPCG(rand.Uint64(), 41))
	const w, h, off = 20, 7, 8
	l := tensor.Layout{Planar: true, DType: format.Float16, Channels: 3, FlipY: true}
	texs, srcs := glSources(t, c, rng, w, h, 2)
	n := 2 * l.Bytes(w, h)
	b := exportableBuffer(t, d, off+n+64)
	for frame := 0; frame < 2; frame++ {
		imgs := make([]tensor.Image, 2)
		for v, tex := range texs {
			imgs[v] = tensortest.RandomImage(rng, format.RGBA8UNorm, w, h)
			noErr(t, tex.Upload(imgs[v].Pix))
		}
		poisonVK := make([]byte, b.size)
		for i := range poisonVK {
			poisonVK[i] = 0xCD
		}
		noErr(t, b.vk.Upload(0, poisonVK))
		acc, err := d.ToCUDA(nil, b)
		noErr(t, err)
		if err := GraphicsWriteTensors(acc, b, off, l, srcs...); err != nil {
			t.Fatalf("frame %d: %v", frame, err)
		}
		noErr(t, acc.Done())
		noErr(t, d.Run(func(*vulkan.Commands) error { return nil })) // Vulkan has it back
		got := make([]byte, b.size)
		noErr(t, b.vk.Readback(0, got))
		for i, v := range append(append([]byte{}, got[:off]...), got[off+n:]...) {
			if v != 0xCD {
				t.Fatalf("frame %d: byte %d around the tensor written", frame, i)
			}
		}
		bad, first, err := tensor.Check(l, imgs, got[off:off+n])
		noErr(t, err)
		if bad > 0 {
			t.Errorf("frame %d: %d elements wrong; first: %s", frame, bad, first)
		}
	}
	// Refusals: a destination the hand-off does not hold, a closed source,
	// a source twice, a bad layout.
	acc, err := d.ToCUDA(nil, exportableBuffer(t, d, 64))
	noErr(t, err)
	if err := GraphicsWriteTensors(acc, b, 0, l, srcs...); !errors.Is(err, ErrGraphicsInput) {
		t.Errorf("a destination the hand-off does not hold: %v, want ErrGraphicsInput", err)
	}
	noErr(t, acc.Done())
	acc, err = d.ToCUDA(nil, b)
	noErr(t, err)
	if err := GraphicsWriteTensors(acc, b, 0, l, srcs[0], srcs[0]); !errors.Is(err, ErrGraphicsInput) {
		t.Errorf("a source twice: %v, want ErrGraphicsInput", err)
	}
	if err := GraphicsWriteTensors(acc, b, 0, tensor.Layout{DType: format.Uint8, Channels: 2}, srcs...); !errors.Is(err, ErrGraphicsInput) {
		t.Errorf("2 channels: %v, want ErrGraphicsInput", err)
	}
	noErr(t, srcs[1].Close())
	if err := GraphicsWriteTensors(acc, b, 0, l, srcs...); !errors.Is(err, ErrClosed) {
		t.Errorf("a closed source: %v, want ErrClosed", err)
	}
	noErr(t, acc.Done())
	if err := GraphicsWriteTensors(acc, b, 0, l, srcs[0]); !errors.Is(err, ErrGraphicsInput) {
		t.Errorf("after Done: %v, want ErrGraphicsInput", err)
	}
}

// TestGraphicsWriteTensorsToCPU: GraphicsWriteTensorsTo, the same as
// TestGraphicsWriteTensorsCPU for a buffer no hand-off holds (the C
// library's pool of GL outputs): two frames, every element against the Go
// reference, the bytes around the tensor untouched; then a buffer a
// hand-off holds, a closed one and a bad layout are refused.
func TestGraphicsWriteTensorsToCPU(t *testing.T) {
	d, f := fakeDevice(t)
	f.auto(t)
	c := openGL(t, nil)
	rng := rand.New(rand.NewPCG(rand.Uint64(), 43))
	const w, h, off = 24, 5, 12
	l := tensor.Layout{DType: format.Uint8, Channels: 4, FlipY: true}
	texs, srcs := glSources(t, c, rng, w, h, 3)
	n := 3 * l.Bytes(w, h)
	b := exportableBuffer(t, d, off+n+64) // llvmpipe reads 48 bytes past a GL buffer: a margin
	for frame := 0; frame < 2; frame++ {
		imgs := make([]tensor.Image, len(texs))
		for v, tex := range texs {
			imgs[v] = tensortest.RandomImage(rng, format.RGBA8UNorm, w, h)
			noErr(t, tex.Upload(imgs[v].Pix))
		}
		poison := make([]byte, b.size)
		for i := range poison {
			poison[i] = byte(rng.Uint32())
		}
		noErr(t, b.vk.Upload(0, poison))
		if err := GraphicsWriteTensorsTo(d, b, off, l, srcs...); err != nil {
			t.Fatalf("frame %d: %v", frame, err)
		}
		got := make([]byte, b.size)
		noErr(t, b.vk.Readback(0, got))
		if !bytes.Equal(got[:off], poison[:off]) || !bytes.Equal(got[off+n:], poison[off+n:]) {
			t.Fatalf("frame %d: bytes around the tensor written", frame)
		}
		bad, first, err := tensor.Check(l, imgs, got[off:off+n])
		noErr(t, err)
		if bad > 0 {
			t.Errorf("frame %d: %d elements wrong; first: %s", frame, bad, first)
		}
	}
	acc, err := d.ToCUDA(nil, b)
	noErr(t, err)
	if err := GraphicsWriteTensorsTo(d, b, 0, l, srcs...); !errors.Is(err, ErrGraphicsInput) {
		t.Errorf("a buffer a hand-off holds: %v, want ErrGraphicsInput", err)
	}
	noErr(t, acc.Done())
	if err := GraphicsWriteTensorsTo(d, b, 0, tensor.Layout{DType: format.Uint8, Channels: 2}, srcs...); !errors.Is(err, ErrGraphicsInput) {
		t.Errorf("2 channels: %v, want ErrGraphicsInput", err)
	}
	noErr(t, d.Run(func(*vulkan.Commands) error { return nil }))
	closed := exportableBuffer(t, d, 64)
	noErr(t, closed.Close())
	if err := GraphicsWriteTensorsTo(d, closed, 0, l, srcs[0]); !errors.Is(err, ErrGraphicsInput) {
		t.Errorf("a closed buffer: %v, want ErrGraphicsInput", err)
	}
}

// tileOf is the w×h tile of im (RGBA8) from texel (x0, y0).
func tileOf(im tensor.Image, x0, y0, w, h uint32) tensor.Image {
	pix := make([]byte, 0, w*h*4)
	for y := y0; y < y0+h; y++ {
		pix = append(pix, im.Pix[(y*im.Width+x0)*4:(y*im.Width+x0+w)*4]...)
	}
	return tensor.Image{Format: im.Format, Width: w, Height: h, Pix: pix}
}

// TestGraphicsWriteTilesToCPU: a GL texture that is an atlas of 5 × 3
// tiles of 13 × 7, its first 14 tiles written by GL (GraphicsWriteTilesTo)
// into a Device's buffer, for two frames and two layouts (uint8 RGBA
// interleaved: GL's per-pixel program, one dispatch; float16 planar RGB:
// tile by tile): every element of every tile against the Go reference, the
// bytes around untouched; then what it refuses.
func TestGraphicsWriteTilesToCPU(t *testing.T) {
	d, f := fakeDevice(t)
	f.auto(t)
	c := openGL(t, nil)
	rng := rand.New(rand.NewPCG(rand.Uint64(), 47))
	const cols, rows, tw, th, n, off = 5, 3, 13, 7, 14, 8
	texs, srcs := glSources(t, c, rng, cols*tw, rows*th, 1)
	tex, src := texs[0], srcs[0]
	tiles := Tiles{Cols: cols, Rows: rows, N: n}
	for _, l := range []tensor.Layout{
		{DType: format.Uint8, Channels: 4, FlipY: true},
		{Planar: true, DType: format.Float16, Channels: 3, Mean: [4]float32{0.5, 0.25, 0.125}, Std: [4]float32{0.5, 2, 1}},
	} {
		need, err := src.TilesTensorBytes(l, tiles)
		noErr(t, err)
		if want := l.Bytes(tw, th) * n; need != want {
			t.Fatalf("%v: TilesTensorBytes %d, want %d", l, need, want)
		}
		b := exportableBuffer(t, d, off+need+64)
		for frame := 0; frame < 2; frame++ {
			atlas := tensortest.RandomImage(rng, format.RGBA8UNorm, cols*tw, rows*th)
			noErr(t, tex.Upload(atlas.Pix))
			imgs := make([]tensor.Image, n)
			for v := range imgs {
				imgs[v] = tileOf(atlas, uint32(v%cols)*tw, uint32(v/cols)*th, tw, th)
			}
			poison := bytes.Repeat([]byte{0xCD}, int(b.size))
			noErr(t, b.vk.Upload(0, poison))
			if err := GraphicsWriteTilesTo(d, b, off, l, tiles, src); err != nil {
				t.Fatalf("%v frame %d: %v", l, frame, err)
			}
			got := make([]byte, b.size)
			noErr(t, b.vk.Readback(0, got))
			if !bytes.Equal(got[:off], poison[:off]) || !bytes.Equal(got[off+need:], poison[off+need:]) {
				t.Fatalf("%v frame %d: bytes around the tensor written", l, frame)
			}
			bad, first, err := tensor.Check(l, imgs, got[off:off+need])
			noErr(t, err)
			if bad > 0 {
				t.Errorf("%v frame %d: %d elements wrong; first: %s", l, frame, bad, first)
			}
		}
	}
	// Refusals.
	l := tensor.Layout{DType: format.Uint8, Channels: 4}
	b := exportableBuffer(t, d, 64)
	big := exportableBuffer(t, d, l.Bytes(cols*tw, rows*th)+64)
	for _, bad := range []Tiles{{Cols: 4, Rows: 3, N: 1}, {Cols: 5, Rows: 2, N: 1}, {Cols: 5, Rows: 3, N: 0}, {Cols: 5, Rows: 3, N: 16}, {Cols: 0, Rows: 3, N: 1}} {
		if err := GraphicsWriteTilesTo(d, big, 0, l, bad, src); !errors.Is(err, ErrGraphicsInput) {
			t.Errorf("tiles %+v: %v, want ErrGraphicsInput", bad, err)
		}
	}
	if err := GraphicsWriteTilesTo(d, b, 0, l, tiles, src); !errors.Is(err, ErrGraphicsInput) {
		t.Errorf("a destination too small: %v, want ErrGraphicsInput", err)
	}
	if err := GraphicsWriteTilesTo(d, big, 0, tensor.Layout{DType: format.Uint8, Channels: 2}, tiles, src); !errors.Is(err, ErrGraphicsInput) {
		t.Errorf("2 channels: %v, want ErrGraphicsInput", err)
	}
	acc, err := d.ToCUDA(nil, big)
	noErr(t, err)
	if err := GraphicsWriteTilesTo(d, big, 0, l, tiles, src); !errors.Is(err, ErrGraphicsInput) {
		t.Errorf("a destination a hand-off holds: %v, want ErrGraphicsInput", err)
	}
	noErr(t, acc.Done())
	noErr(t, src.Close())
	if err := GraphicsWriteTilesTo(d, exportableBuffer(t, d, big.size), 0, l, tiles, src); !errors.Is(err, ErrClosed) {
		t.Errorf("a closed source: %v, want ErrClosed", err)
	}
}
