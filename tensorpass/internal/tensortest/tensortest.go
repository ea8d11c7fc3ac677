// Package tensortest holds what the converters' tests share: random source
// images, every layout to test, and the comparison of a converter's output
// with the Go reference (package tensor) within the rounding each element
// type allows.
package tensortest

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/gfxcuda/gfxcuda/format"
	"github.com/gfxcuda/gfxcuda/tensorpass/tensor"
)

// RandomImage returns a w×h image of format f with random texels: random
// bytes for 8-bit formats, random values in [-2, 2] for float formats.
func RandomImage(rng *rand.Rand, f format.Format, w, h uint32) tensor.Image {
	in, _ := format.Lookup(f)
	pix := make([]byte, int(w)*int(h)*in.BytesPerTexel)
	switch f {
	case format.RGBA16Float:
		for i := 0; i < len(pix); i += 2 {
			binary.LittleEndian.PutUint16(pix[i:], tensor.FloatToHalf(rng.Float32()*4-2))
		}
	case format.RGBA32Float:
		for i := 0; i < len(pix); i += 4 {
			binary.LittleEndian.PutUint32(pix[i:], math.Float32bits(rng.Float32()*4-2))
		}
	default:
		for i := range pix {
			pix[i] = byte(rng.Uint32())
		}
	}
	return tensor.Image{Format: f, Width: w, Height: h, Pix: pix}
}

// Layouts returns every combination of planar, element type, channels,
// normalization and flip (24 × 2 × 2 = 48 layouts).
func Layouts() []tensor.Layout {
	var ls []tensor.Layout
	for _, d := range tensor.DTypes {
		for _, planar := range []bool{false, true} {
			for _, ch := range []int{3, 4} {
				for _, norm := range []bool{false, true} {
					for _, flip := range []bool{false, true} {
						l := tensor.Layout{Planar: planar, DType: d, Channels: ch, FlipY: flip}
						if norm {
							l.Mean = [4]float32{0.485, 0.456, 0.406, 0.5}
							l.Std = [4]float32{0.229, 0.224, 0.225, 0.25}
							if d == format.Uint8 {
								// Values that stay mostly inside [0, 1].
								l.Mean = [4]float32{0.25, 0.1, 0, -0.2}
								l.Std = [4]float32{0.5, 1.25, 2, 1.5}
							}
						}
						ls = append(ls, l)
					}
				}
			}
		}
	}
	return ls
}

// Compare checks a converter's output got against the reference for views,
// element by element: float32 within 1e-5 relative (the GPU may read a
// UNORM texel an ulp off and fuse the normalization), float16 within one
// unit in the last place, uint8 exactly for 8-bit sources without
// normalization, else within 1 (rounding of ties may differ). It returns
// the number of elements out of tolerance and a description of the first.
func Compare(l tensor.Layout, views []tensor.Image, got []byte) (bad int, first string, err error) {
	want, err := tensor.Values(l, views)
	if err != nil {
		return 0, "", err
	}
	if need := len(want) * l.DType.Size(); len(got) != need {
		return 0, "", fmt.Errorf("output has %d bytes, want %d", len(got), need)
	}
	g := tensor.Decode(l.DType, got)
	exact8 := !l.Normalized() && (views[0].Format == format.RGBA8UNorm || views[0].Format == format.BGRA8UNorm)
	for i, w := range want {
		ok := false
		switch l.DType {
		case format.Float32:
			ok = math.Abs(float64(g[i]-w)) <= 1e-5*math.Max(1, math.Abs(float64(w)))
		case format.Float16:
			ulp := math.Max(math.Ldexp(1, math.Ilogb(math.Abs(float64(w)))-10), math.Ldexp(1, -24))
			ok = math.Abs(float64(g[i]-w)) <= ulp*1.001
		case format.Uint8:
			r := float32(tensor.ToUint8(w))
			if exact8 {
				ok = g[i] == r
			} else {
				ok = math.Abs(float64(g[i]-r)) <= 1
			}
		}
		if !ok {
			if bad == 0 {
				first = fmt.Sprintf("element %d: got %g, want %g (%s)", i, g[i], w, where(l, len(views), views[0].Width, views[0].Height, i))
			}
			bad++
		}
	}
	return bad, first, nil
}

// where names the view, channel and texel of element i.
func where(l tensor.Layout, n int, w, h uint32, i int) string {
	ch := l.C()
	per := int(w) * int(h) * ch
	v, r := i/per, i%per
	var c, p int
	if l.Planar {
		c, p = r/(int(w)*int(h)), r%(int(w)*int(h))
	} else {
		c, p = r%ch, r/ch
	}
	y := p / int(w)
	if l.FlipY {
		y = int(h) - 1 - y
	}
	return fmt.Sprintf("view %d of %d, texel (%d, %d), channel %d", v, n, p%int(w), y, c)
}
