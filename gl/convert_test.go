package gl

import (
	"errors"
	"fmt"
	"testing"

	"github.com/gfxcuda/gfxcuda/format"
	"github.com/gfxcuda/gfxcuda/internal/egl"
	"github.com/gfxcuda/gfxcuda/tensor"
	"github.com/gfxcuda/gfxcuda/vulkan"
)

// TestTensorConverter converts three random 33×17 textures of each source
// format (RGBA8, BGRA8, RGBA16F, RGBA32F) into a poisoned buffer at an
// offset, in several layouts, and compares every element with the Go
// reference (tensor.Check) and every byte around the tensor with the
// poison; then the errors: views of two sizes, a format the conversions do
// not read, a bad offset, a buffer too small, another context's buffer, a
// closed view, use after Close.
func TestTensorConverter(t *testing.T) {
	c := open(t, Options{})
	tc, err := c.NewTensorConverter()
	if err != nil {
		t.Fatal(err)
	}
	const w, h, n, off = 33, 17, 3, 8
	layouts := []tensor.Layout{
		{DType: format.Uint8, FlipY: true},
		{DType: format.Uint8, Channels: 3},
		{DType: format.Float32, Planar: true, Mean: [4]float32{0.485, 0.456, 0.406}, Std: [4]float32{0.229, 0.224, 0.225}},
		{DType: format.Float16, Planar: true, Channels: 3, FlipY: true},
	}
	for fi, f := range tensor.Sources {
		views := make([]*Texture, n)
		imgs := make([]tensor.Image, n)
		for v := range views {
			tex, err := c.NewTexture(TextureOptions{Format: f, Width: w, Height: h})
			if err != nil {
				t.Fatal(err)
			}
			defer tex.Close()
			pix := randomTexels(f, tex.Bytes(), uint64(100*fi+v))
			if err := tex.Upload(pix); err != nil {
				t.Fatal(err)
			}
			views[v], imgs[v] = tex, tensor.Image{Format: f, Width: w, Height: h, Pix: pix}
		}
		for _, l := range layouts {
			size := n * int(l.Bytes(w, h))
			b, err := c.NewBuffer(off + size + 12)
			if err != nil {
				t.Fatal(err)
			}
			before := make([]byte, b.Size())
			poison(before)
			if err := b.Upload(0, before); err != nil {
				t.Fatal(err)
			}
			if err := tc.Convert(l, views, b, off); err != nil {
				t.Fatalf("%v, %v: %v", f, l, err)
			}
			got := make([]byte, b.Size())
			if err := b.Readback(0, got); err != nil {
				t.Fatal(err)
			}
			b.Close()
			what := fmt.Sprintf("%v, %v", f, l)
			if i := firstDiff(got[:off], before[:off]); i >= 0 {
				t.Errorf("%s: byte %d before the tensor changed", what, i)
			}
			if i := firstDiff(got[off+size:], before[off+size:]); i >= 0 {
				t.Errorf("%s: byte %d after the tensor changed", what, off+size+i)
			}
			bad, first, err := tensor.Check(l, imgs, got[off:off+size])
			if err != nil {
				t.Fatal(err)
			}
			if bad != 0 {
				t.Errorf("%s: %d of %d elements wrong; first: %s", what, bad, size/l.DType.Size(), first)
			}
		}
	}

	// Errors.
	a, _ := c.NewTexture(TextureOptions{Format: format.RGBA8UNorm, Width: 8, Height: 8})
	other, _ := c.NewTexture(TextureOptions{Format: format.RGBA8UNorm, Width: 8, Height: 4})
	r8, _ := c.NewTexture(TextureOptions{Format: format.R8UNorm, Width: 8, Height: 8})
	closed, _ := c.NewTexture(TextureOptions{Format: format.RGBA8UNorm, Width: 8, Height: 8})
	closed.Close()
	b, _ := c.NewBuffer(1024)
	small, _ := c.NewBuffer(100)
	c2 := open(t, Options{})
	b2, _ := c2.NewBuffer(1024)
	l := tensor.Layout{DType: format.Uint8}
	for _, bad := range []struct {
		what  string
		l     tensor.Layout
		views []*Texture
		dst   *Buffer
		off   int
	}{
		{"no views", l, nil, b, 0},
		{"two sizes", l, []*Texture{a, other}, b, 0},
		{"an R8 view", l, []*Texture{r8}, b, 0},
		{"offset 2", l, []*Texture{a}, b, 2},
		{"a buffer too small", l, []*Texture{a}, small, 0},
		{"another context's buffer", l, []*Texture{a}, b2, 0},
		{"a closed view", l, []*Texture{closed}, b, 0},
		{"2 channels", tensor.Layout{DType: format.Uint8, Channels: 2}, []*Texture{a}, b, 0},
	} {
		if err := tc.Convert(bad.l, bad.views, bad.dst, bad.off); err == nil {
			t.Errorf("%s: Convert succeeded", bad.what)
		} else {
			t.Logf("%s: %v", bad.what, err)
		}
	}
	if err := tc.Close(); err != nil {
		t.Fatal(err)
	}
	if err := tc.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if err := tc.Convert(l, []*Texture{a}, b, 0); err == nil {
		t.Error("Convert after Close succeeded")
	}
}

// copyViews makes n textures of format f, w×h, each a source with a copy
// view on d (NewView), closed when the test ends.
func copyViews(t *testing.T, c *Context, d *vulkan.Device, f format.Format, w, h, n int) ([]*Texture, []*View) {
	t.Helper()
	texs, views := make([]*Texture, n), make([]*View, n)
	for v := range n {
		tex, err := c.NewTexture(TextureOptions{Format: f, Width: w, Height: h})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { tex.Close() })
		s, err := c.TextureSource(tex.Name())
		if err != nil {
			t.Fatal(err)
		}
		view, err := s.NewView(d)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { view.Close() })
		texs[v], views[v] = tex, view
	}
	return texs, views
}

// TestTensorConverterViews: the renderer's textures (RGBA8, RGBA16F,
// RGBA32F; 37 x 11) as sources with copy views, two frames each, converted
// by ConvertViews (copy + dispatch, GL only) into a poisoned buffer: every
// element against the Go reference of the texels uploaded for that frame,
// the bytes around the tensor untouched; then a depth view, a closed view
// and views of two sizes are refused.
func TestTensorConverterViews(t *testing.T) {
	c := open(t, Options{})
	d := vkDevice(t, c)
	tc, err := c.NewTensorConverter()
	if err != nil {
		t.Fatal(err)
	}
	defer tc.Close()
	const w, h, off = 37, 11, 4
	l := tensor.Layout{Planar: true, DType: format.Float32, Channels: 3, FlipY: true,
		Mean: [4]float32{0.5, 0.25, 0.125}, Std: [4]float32{0.5, 2, 1}}
	for fi, f := range []format.Format{format.RGBA8UNorm, format.RGBA16Float, format.RGBA32Float} {
		texs, views := copyViews(t, c, d, f, w, h, 2)
		size := off + 2*int(l.Bytes(w, h)) + 8
		b, err := c.NewBuffer(size)
		if err != nil {
			t.Fatal(err)
		}
		for frame := 0; frame < 2; frame++ {
			imgs := make([]tensor.Image, len(texs))
			for v, tex := range texs {
				pix := randomTexels(f, tex.Bytes(), uint64(1000*fi+10*frame+v))
				if err := tex.Upload(pix); err != nil {
					t.Fatal(err)
				}
				imgs[v] = tensor.Image{Format: f, Width: w, Height: h, Pix: pix}
			}
			before := make([]byte, size)
			poison(before)
			if err := b.Upload(0, before); err != nil {
				t.Fatal(err)
			}
			if err := tc.ConvertViews(l, views, b, off); err != nil {
				t.Fatalf("%v frame %d: %v", f, frame, err)
			}
			got := make([]byte, size)
			if err := b.Readback(0, got); err != nil {
				t.Fatal(err)
			}
			n := 2 * int(l.Bytes(w, h))
			if i := firstDiff(got[:off], before[:off]); i >= 0 {
				t.Errorf("%v frame %d: byte %d before the tensor changed", f, frame, i)
			}
			if i := firstDiff(got[off+n:], before[off+n:]); i >= 0 {
				t.Errorf("%v frame %d: byte %d after the tensor changed", f, frame, off+n+i)
			}
			bad, first, err := tensor.Check(l, imgs, got[off:off+n])
			if err != nil {
				t.Fatal(err)
			}
			if bad != 0 {
				t.Errorf("%v frame %d: %d elements wrong; first: %s", f, frame, bad, first)
			}
		}
		b.Close()
	}

	// Refusals.
	b, _ := c.NewBuffer(1 << 16)
	defer b.Close()
	small, _ := c.NewTexture(TextureOptions{Format: format.RGBA8UNorm, Width: 8, Height: 8})
	defer small.Close()
	big, _ := c.NewTexture(TextureOptions{Format: format.RGBA8UNorm, Width: 8, Height: 4})
	defer big.Close()
	var depth egl.Texture
	if err := c.do(func(e *egl.Context) (err error) {
		depth, err = e.CreateTexture2D(0x8CAC /* DEPTH_COMPONENT32F */, 8, 8, 1)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	defer c.do(func(e *egl.Context) error { return e.DeleteTexture(depth) })
	var vs []*View
	for _, name := range []uint32{small.Name(), big.Name(), uint32(depth)} {
		s, err := c.TextureSource(name)
		if err != nil {
			t.Fatal(err)
		}
		v, err := s.NewView(d)
		if err != nil {
			t.Fatal(err)
		}
		defer v.Close()
		vs = append(vs, v)
	}
	u := tensor.Layout{DType: format.Uint8}
	if err := tc.ConvertViews(u, vs[:2], b, 0); err == nil {
		t.Error("views of two sizes: converted")
	}
	if err := tc.ConvertViews(u, vs[2:], b, 0); !errors.Is(err, ErrUnsupportedFormat) {
		t.Errorf("a depth view: %v, want ErrUnsupportedFormat", err)
	}
	vs[0].Close()
	if err := tc.ConvertViews(u, vs[:1], b, 0); !errors.Is(err, ErrClosed) {
		t.Errorf("a closed view: %v, want ErrClosed", err)
	}
}

// TestWriteTensors: two copy views' frames written by GL into an
// Exportable Vulkan buffer (what a face Buffer CUDA shares is) at an
// offset, read back through Vulkan: every element against the Go
// reference, the bytes around untouched; a second call into the same
// buffer reuses its GL import, and more buffers than the Context keeps
// imported work one after the other.
func TestWriteTensors(t *testing.T) {
	c := open(t, Options{})
	d := vkDevice(t, c)
	const w, h, off = 24, 9, 16
	l := tensor.Layout{DType: format.Uint8, Channels: 3, FlipY: true}
	texs, views := copyViews(t, c, d, format.RGBA8UNorm, w, h, 2)
	n := 2 * int(l.Bytes(w, h))
	size := uint64(off + n + 8)
	for i := 0; i < maxImports+2; i++ {
		vb, err := d.NewBuffer(vulkan.BufferOptions{Size: size + 64, Exportable: true})
		if err != nil {
			t.Fatal(err)
		}
		defer vb.Close()
		for round := 0; round < 2; round++ {
			imgs := make([]tensor.Image, 2)
			for v, tex := range texs {
				pix := randomTexels(format.RGBA8UNorm, tex.Bytes(), uint64(100*i+10*round+v))
				if err := tex.Upload(pix); err != nil {
					t.Fatal(err)
				}
				imgs[v] = tensor.Image{Format: format.RGBA8UNorm, Width: w, Height: h, Pix: pix}
			}
			before := make([]byte, size)
			poison(before)
			if err := vb.Upload(0, before); err != nil {
				t.Fatal(err)
			}
			if err := views[0].WriteTensors(l, vb, off, views[1]); err != nil {
				t.Fatalf("buffer %d, round %d: %v", i, round, err)
			}
			got := make([]byte, size)
			if err := vb.Readback(0, got); err != nil {
				t.Fatal(err)
			}
			if j := firstDiff(got[:off], before[:off]); j >= 0 {
				t.Fatalf("buffer %d, round %d: byte %d before the tensor changed", i, round, j)
			}
			if j := firstDiff(got[off+n:], before[off+n:]); j >= 0 {
				t.Fatalf("buffer %d, round %d: byte %d after the tensor changed", i, round, off+n+j)
			}
			bad, first, err := tensor.Check(l, imgs, got[off:off+n])
			if err != nil {
				t.Fatal(err)
			}
			if bad != 0 {
				t.Fatalf("buffer %d, round %d: %d elements wrong; first: %s", i, round, bad, first)
			}
		}
	}
	c.mu.Lock()
	kept := len(c.imports)
	c.mu.Unlock()
	if kept != maxImports {
		t.Errorf("%d GL imports kept after %d buffers, want %d", kept, maxImports+2, maxImports)
	}
	if err := views[0].WriteTensors(l, nil, 0); err == nil {
		t.Error("no destination: written")
	}
}

// TestTensorConverterTiles converts the 7 used tiles of random 3 x 3
// atlases (RGBA8, BGRA8, RGBA16F, RGBA32F) into a poisoned buffer and
// compares every element with the Go reference of the tiles cut out on the
// host; tiles that do not divide the atlas and n out of range are refused.
func TestTensorConverterTiles(t *testing.T) {
	c := open(t, Options{})
	tc, err := c.NewTensorConverter()
	if err != nil {
		t.Fatal(err)
	}
	defer tc.Close()
	const cols, rows, n, tw, th, off = 3, 3, 7, 12, 5, 8
	l := tensor.Layout{Planar: true, DType: format.Float32, Channels: 3, FlipY: true,
		Mean: [4]float32{0.485, 0.456, 0.406}, Std: [4]float32{0.229, 0.224, 0.225}}
	size := off + n*int(l.Bytes(tw, th)) + 12
	for fi, f := range tensor.Sources {
		atlas, err := c.NewTexture(TextureOptions{Format: f, Width: cols * tw, Height: rows * th})
		if err != nil {
			t.Fatal(err)
		}
		defer atlas.Close()
		pix := randomTexels(f, atlas.Bytes(), uint64(500+fi))
		if err := atlas.Upload(pix); err != nil {
			t.Fatal(err)
		}
		bpt := atlas.Bytes() / (cols * tw * rows * th)
		var tiles []tensor.Image
		for v := 0; v < n; v++ {
			tile := tensor.Image{Format: f, Width: tw, Height: th}
			for y := 0; y < th; y++ {
				i := (((v/cols)*th+y)*cols*tw + (v%cols)*tw) * bpt
				tile.Pix = append(tile.Pix, pix[i:i+tw*bpt]...)
			}
			tiles = append(tiles, tile)
		}
		b, err := c.NewBuffer(size)
		if err != nil {
			t.Fatal(err)
		}
		before := make([]byte, size)
		poison(before)
		if err := b.Upload(0, before); err != nil {
			t.Fatal(err)
		}
		if err := tc.ConvertTiles(l, atlas, cols, rows, n, b, off); err != nil {
			t.Fatalf("%v: %v", f, err)
		}
		got := make([]byte, size)
		if err := b.Readback(0, got); err != nil {
			t.Fatal(err)
		}
		b.Close()
		m := n * int(l.Bytes(tw, th))
		if i := firstDiff(got[:off], before[:off]); i >= 0 {
			t.Errorf("%v: byte %d before the tensor changed", f, i)
		}
		if i := firstDiff(got[off+m:], before[off+m:]); i >= 0 {
			t.Errorf("%v: byte %d after the tensor changed", f, off+m+i)
		}
		bad, first, err := tensor.Check(l, tiles, got[off:off+m])
		if err != nil {
			t.Fatal(err)
		}
		if bad != 0 {
			t.Errorf("%v: %d elements wrong; first: %s", f, bad, first)
		}
		if f != format.RGBA8UNorm {
			continue
		}
		big, _ := c.NewBuffer(1 << 16)
		defer big.Close()
		for _, bad := range []struct{ cols, rows, n int }{{5, 3, 5}, {3, 2, 5}, {3, 3, 0}, {3, 3, 10}, {0, 3, 1}} {
			if err := tc.ConvertTiles(l, atlas, bad.cols, bad.rows, bad.n, big, 0); err == nil {
				t.Errorf("%d x %d tiles, %d views: converted", bad.cols, bad.rows, bad.n)
			}
		}
	}
}
