package gl

import (
	"fmt"
	"testing"

	"github.com/gfxcuda/gfxcuda/format"
	"github.com/gfxcuda/gfxcuda/tensor"
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
