package tensor

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gfxcuda/gfxcuda/format"
)

// TestHalfRoundTrip decodes every half and encodes it back.
func TestHalfRoundTrip(t *testing.T) {
	for h := 0; h < 1<<16; h++ {
		f := HalfToFloat(uint16(h))
		if math.IsNaN(float64(f)) {
			if exp, man := h>>10&0x1f, h&0x3ff; exp != 31 || man == 0 {
				t.Fatalf("%#04x decoded as NaN", h)
			}
			continue
		}
		if got := FloatToHalf(f); got != uint16(h) {
			t.Fatalf("%#04x → %g → %#04x", h, f, got)
		}
	}
}

// TestFloatToHalfRounding checks rounding to nearest even against the
// exact midpoint rule on random floats.
func TestFloatToHalfRounding(t *testing.T) {
	rng := rand.New(rand.NewPCG(rand.Uint64(), 1))
	for i := 0; i < 200000; i++ {
		v := float32(math.Ldexp(rng.Float64()*2-1, rng.IntN(40)-24))
		h := FloatToHalf(v)
		got := float64(HalfToFloat(h))
		// No other half is nearer.
		for _, n := range []uint16{h - 1, h + 1} {
			o := float64(HalfToFloat(n))
			if math.IsNaN(o) || math.IsInf(o, 0) || (n^h)&0x8000 != 0 {
				continue
			}
			if d, dg := math.Abs(o-float64(v)), math.Abs(got-float64(v)); d < dg || (d == dg && h&1 == 1) {
				t.Fatalf("%g → %#04x (%g), but %#04x (%g) is nearer or even", v, h, got, n, o)
			}
		}
	}
	for _, c := range []struct {
		v float32
		h uint16
	}{{1, 0x3c00}, {-2, 0xc000}, {65504, 0x7bff}, {1e6, 0x7c00}, {0.5 / 1024 / 16384, 0}, {1.0 / (1 << 24), 1}} {
		if got := FloatToHalf(c.v); got != c.h {
			t.Errorf("FloatToHalf(%g) = %#04x, want %#04x", c.v, got, c.h)
		}
	}
}

// TestReference works one texel of each source format through by hand.
func TestReference(t *testing.T) {
	bgra := Image{Format: format.BGRA8UNorm, Width: 2, Height: 1, Pix: []byte{0, 51, 255, 102, 10, 20, 30, 40}}
	l := Layout{DType: format.Float32, Channels: 3, Planar: true, Mean: [4]float32{0.5, 0, 0, 0}, Std: [4]float32{0.5, 0, 2, 0}}
	got, err := Values(l, []Image{bgra})
	if err != nil {
		t.Fatal(err)
	}
	// Planar [1, 3, 1, 2]: R plane (255, 30), G plane (51, 20), B plane (0, 10).
	want := []float32{(1 - 0.5) * 2, (30.0/255 - 0.5) * 2, 51.0 / 255, 20.0 / 255, 0, 10.0 / 255 * 0.5}
	for i := range want {
		if math.Abs(float64(got[i]-want[i])) > 1e-7 {
			t.Errorf("element %d = %g, want %g", i, got[i], want[i])
		}
	}
	// Flipped NHWC uint8 of two rows: row 1 comes first.
	rgba := Image{Format: format.RGBA8UNorm, Width: 1, Height: 2, Pix: []byte{1, 2, 3, 4, 5, 6, 7, 8}}
	b, err := Reference(Layout{DType: format.Uint8, FlipY: true}, []Image{rgba})
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != string([]byte{5, 6, 7, 8, 1, 2, 3, 4}) {
		t.Errorf("flipped = %v", b)
	}
	// Float sources, float16 out.
	f32 := Image{Format: format.RGBA32Float, Width: 1, Height: 1, Pix: make([]byte, 16)}
	for c, v := range []float32{-1.5, 0.25, 3, 1} {
		bits := math.Float32bits(v)
		f32.Pix[4*c], f32.Pix[4*c+1], f32.Pix[4*c+2], f32.Pix[4*c+3] = byte(bits), byte(bits>>8), byte(bits>>16), byte(bits>>24)
	}
	b, err = Reference(Layout{DType: format.Float16}, []Image{f32})
	if err != nil {
		t.Fatal(err)
	}
	if d := Decode(format.Float16, b); d[0] != -1.5 || d[1] != 0.25 || d[2] != 3 || d[3] != 1 {
		t.Errorf("float16 = %v", d)
	}
}

func TestLayoutErrors(t *testing.T) {
	for _, l := range []Layout{{DType: format.Int16}, {DType: format.Float32, Channels: 2}, {DType: format.Uint8, Std: [4]float32{float32(math.Inf(1))}}} {
		if l.Validate() == nil {
			t.Errorf("%+v accepted", l)
		}
	}
	if _, err := Values(Layout{DType: format.Float32}, []Image{{Format: format.R8UNorm, Width: 1, Height: 1, Pix: []byte{0}}}); err == nil {
		t.Error("R8 source accepted")
	}
	if _, err := Values(Layout{DType: format.Float32}, []Image{{Format: format.RGBA8UNorm, Width: 2, Height: 2, Pix: []byte{0}}}); err == nil {
		t.Error("short image accepted")
	}
	l := Layout{DType: format.Float16, Channels: 3, Planar: true}
	if s := l.Shape(2, 4, 3); len(s) != 4 || s[0] != 2 || s[1] != 3 || s[2] != 3 || s[3] != 4 {
		t.Errorf("shape %v", s)
	}
	if n := l.Bytes(4, 3); n != 4*3*3*2 {
		t.Errorf("bytes %d", n)
	}
}

// TestCheckCatches checks that Check accepts the reference and rejects a
// tensor with one element changed by more than the tolerance.
func TestCheckCatches(t *testing.T) {
	rng := rand.New(rand.NewPCG(rand.Uint64(), 9))
	pix := make([]byte, 8*4*4)
	for i := range pix {
		pix[i] = byte(rng.Uint32())
	}
	views := []Image{{Format: format.RGBA8UNorm, Width: 8, Height: 4, Pix: pix}}
	for _, d := range DTypes {
		l := Layout{DType: d, Planar: true, FlipY: true}
		ref, err := Reference(l, views)
		if err != nil {
			t.Fatal(err)
		}
		if bad, first, err := Check(l, views, ref); bad != 0 || err != nil {
			t.Fatalf("%s: reference rejected: %d, %s, %v", l, bad, first, err)
		}
		i := rng.IntN(len(ref)/d.Size()) * d.Size()
		ref[i+d.Size()-1] ^= 0x40 // the top byte: far beyond any rounding
		if bad, first, _ := Check(l, views, ref); bad != 1 || !strings.Contains(first, "view 0 of 1") {
			t.Errorf("%s: corrupted element: %d bad, %q", l, bad, first)
		}
		if _, _, err := Check(l, views, ref[1:]); err == nil {
			t.Errorf("%s: short tensor accepted", l)
		}
	}
}
