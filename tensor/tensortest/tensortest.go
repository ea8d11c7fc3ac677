// Package tensortest holds what the converters' tests share: random source
// images, every layout to test, and the tiles of an atlas.
package tensortest

import (
	"encoding/binary"
	"math"
	"math/rand/v2"

	"github.com/gfxcuda/gfxcuda/format"
	"github.com/gfxcuda/gfxcuda/tensor"
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

// Tile returns tile (col, row) of an atlas of w×h tiles as an image of its
// own: what a converter of the atlas's tiles reads as that view.
func Tile(atlas tensor.Image, col, row int, w, h uint32) tensor.Image {
	in, _ := format.Lookup(atlas.Format)
	bpt := in.BytesPerTexel
	out := tensor.Image{Format: atlas.Format, Width: w, Height: h, Pix: make([]byte, int(w)*int(h)*bpt)}
	for y := 0; y < int(h); y++ {
		src := ((row*int(h)+y)*int(atlas.Width) + col*int(w)) * bpt
		copy(out.Pix[y*int(w)*bpt:(y+1)*int(w)*bpt], atlas.Pix[src:src+int(w)*bpt])
	}
	return out
}
