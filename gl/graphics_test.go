package gl

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gfxcuda/gfxcuda/format"
	"github.com/gfxcuda/gfxcuda/graphics"
	"github.com/gfxcuda/gfxcuda/internal/egl"
)

// TestDepthViewRowsTopFirst: a DEPTH_COMPONENT32F texture of random depths
// as a graphics.View (what the face takes): its copies keep GL's row order
// until SetRowsTopFirst(true), then flip, every value compared (the face's
// depth tensors rely on it for flip_y).
func TestDepthViewRowsTopFirst(t *testing.T) {
	c := open(t, Options{})
	d := vkDevice(t, c)
	const w, h = 37, 23
	rng := rand.New(rand.NewPCG(5, 23))
	want := make([]byte, w*h*4)
	for i := range w * h {
		binary.LittleEndian.PutUint32(want[4*i:], math.Float32bits(rng.Float32()))
	}
	var tex egl.Texture
	err := c.do(func(e *egl.Context) error {
		var err error
		if tex, err = e.CreateTexture2D(0x8CAC /* DEPTH_COMPONENT32F */, w, h, 1); err != nil {
			return err
		}
		b, err := e.CreateBuffer(len(want), want, egl.StaticDraw)
		if err != nil {
			return err
		}
		defer e.DeleteBuffer(b)
		return e.BufferToTexture(tex, w, h, egl.DepthComponent, egl.Float, b, 0)
	})
	if err != nil {
		t.Fatal(err)
	}
	defer c.do(func(e *egl.Context) error { return e.DeleteTexture(tex) })
	s, err := c.TextureSource(uint32(tex))
	if err != nil {
		t.Fatal(err)
	}
	if !s.Depth() || s.Format() != format.R32Float {
		t.Fatalf("%v: depth %v, format %v", s, s.Depth(), s.Format())
	}
	var gs graphics.Source = s
	gv, err := gs.NewGraphicsView(d, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer gv.Close()
	if gv.Array() != nil {
		t.Error("a view made without CUDA has a CUDA array")
	}
	flipped := make([]byte, len(want))
	for y := range h {
		copy(flipped[y*w*4:(y+1)*w*4], want[(h-1-y)*w*4:(h-y)*w*4])
	}
	got := make([]byte, len(want))
	for _, top := range []bool{false, true, false} {
		gv.SetRowsTopFirst(top)
		if err := gv.ToVulkan(); err != nil {
			t.Fatal(err)
		}
		poison(got)
		if err := downloadImage(d, gv.Image(), got); err != nil {
			t.Fatal(err)
		}
		ref := want
		if top {
			ref = flipped
		}
		if i := firstDiff(got, ref); i >= 0 {
			t.Fatalf("rows top first %v: byte %d is %#x, want %#x", top, i, got[i], ref[i])
		}
	}
}
