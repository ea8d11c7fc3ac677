// Package tensor describes how a texture becomes a tensor for a learning
// framework (shape, element type, channels, normalization, flip) and holds
// the Go reference conversion that both of gfxcuda's converters are checked
// against: gfxcuda.VulkanConverter (a Vulkan compute pass) and
// gfxcuda.CUDAConverter (a CUDA kernel). It is pure Go and links no GPU
// library.
//
// A conversion reads N views (cameras) of W×H texels in one of the source
// formats RGBA8, BGRA8, RGBA16F or RGBA32F and writes one tensor of shape
// [N, C, H, W] (planar, NCHW) or [N, H, W, C] (interleaved, NHWC), C = 3 or
// 4. Each channel value v (in [0, 1] for UNORM textures, as stored for float
// textures, always red first) becomes (v − Mean[c]) / Std[c], then is stored
// as float32, float16 (rounded to nearest) or uint8 (clamped to [0, 1],
// times 255, rounded).
package tensor

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/gfxcuda/gfxcuda/format"
	"github.com/gfxcuda/gfxcuda/internal/half"
)

// Layout says how texels are laid out in a tensor. The zero value with a
// DType set is NHWC, 4 channels, values as read, rows top to bottom.
type Layout struct {
	// Planar selects NCHW (channel planes); false is NHWC (interleaved).
	Planar bool
	// DType is format.Float32, format.Float16 or format.Uint8.
	DType format.DType
	// Channels is 3 (RGB: alpha dropped) or 4; 0 means 4.
	Channels int
	// Mean and Std normalize channel c (red first) to (v − Mean[c]) /
	// Std[c]. A zero Std[c] means 1, so the zero value leaves values as
	// they are. ImageNet's are Mean {0.485, 0.456, 0.406}, Std {0.229,
	// 0.224, 0.225}.
	Mean, Std [4]float32
	// FlipY writes the texture's last row first, for renderers whose
	// origin is bottom-left (OpenGL) and learners that want it top-left,
	// or the other way round.
	FlipY bool
}

// Sources are the texel formats a conversion reads.
var Sources = []format.Format{format.RGBA8UNorm, format.BGRA8UNorm, format.RGBA16Float, format.RGBA32Float}

// DTypes are the element types a conversion writes.
var DTypes = []format.DType{format.Float32, format.Float16, format.Uint8}

// C returns the number of channels written (3 or 4).
func (l Layout) C() int {
	if l.Channels == 0 {
		return 4
	}
	return l.Channels
}

// Validate reports what is wrong with the layout, or nil.
func (l Layout) Validate() error {
	if c := l.C(); c != 3 && c != 4 {
		return fmt.Errorf("tensor: %d channels (3 or 4)", c)
	}
	switch l.DType {
	case format.Float32, format.Float16, format.Uint8:
	default:
		return fmt.Errorf("tensor: element type %s (want format.Float32, format.Float16 or format.Uint8)", l.DType)
	}
	for c, s := range l.Std {
		if math.IsNaN(float64(s)) || math.IsInf(float64(s), 0) || math.IsNaN(float64(l.Mean[c])) || math.IsInf(float64(l.Mean[c]), 0) {
			return fmt.Errorf("tensor: channel %d: mean %g, std %g are not finite", c, l.Mean[c], s)
		}
	}
	return nil
}

// Normalized reports whether Mean or Std change any value.
func (l Layout) Normalized() bool {
	for c := 0; c < 4; c++ {
		if l.Mean[c] != 0 || (l.Std[c] != 0 && l.Std[c] != 1) {
			return true
		}
	}
	return false
}

// Scale returns the factors the converters multiply by: 1/Std[c] (1 where
// Std[c] is 0), computed in float32 as the GPU code receives them.
func (l Layout) Scale() [4]float32 {
	var s [4]float32
	for c := range s {
		s[c] = 1
		if l.Std[c] != 0 {
			s[c] = 1 / l.Std[c]
		}
	}
	return s
}

// Bytes is the size of one view's tensor: width×height×C elements.
func (l Layout) Bytes(width, height uint32) uint64 {
	return uint64(width) * uint64(height) * uint64(l.C()) * uint64(l.DType.Size())
}

// Shape returns the tensor's shape for n views of width×height: [n, C, H,
// W] when Planar, else [n, H, W, C].
func (l Layout) Shape(n int, width, height uint32) []int {
	if l.Planar {
		return []int{n, l.C(), int(height), int(width)}
	}
	return []int{n, int(height), int(width), l.C()}
}

// Index returns the element index of channel c of texel (x, y) of view v
// (x, y in the texture's own rows: FlipY is applied here).
func (l Layout) Index(v, x, y, c int, width, height uint32) int {
	w, h, ch := int(width), int(height), l.C()
	if l.FlipY {
		y = h - 1 - y
	}
	base := v * w * h * ch
	if l.Planar {
		return base + c*w*h + y*w + x
	}
	return base + (y*w+x)*ch + c
}

func (l Layout) String() string {
	s := "NHWC"
	if l.Planar {
		s = "NCHW"
	}
	s = fmt.Sprintf("%s %s C=%d", s, l.DType, l.C())
	if l.Normalized() {
		s += fmt.Sprintf(" mean=%v std=%v", l.Mean[:l.C()], l.Std[:l.C()])
	}
	if l.FlipY {
		s += " flipY"
	}
	return s
}

// Image is a texture's texels in host memory, tightly packed rows, for the
// reference conversion.
type Image struct {
	Format        format.Format // one of Sources
	Width, Height uint32
	Pix           []byte
}

// Texel returns texel (x, y) as RGBA values (red first, UNORM scaled to
// [0, 1]).
func (im Image) Texel(x, y int) ([4]float32, error) {
	var t [4]float32
	w := int(im.Width)
	switch im.Format {
	case format.RGBA8UNorm, format.BGRA8UNorm:
		p := im.Pix[(y*w+x)*4:]
		for c := 0; c < 4; c++ {
			t[c] = float32(p[c]) / 255
		}
		if im.Format == format.BGRA8UNorm {
			t[0], t[2] = t[2], t[0]
		}
	case format.RGBA16Float:
		p := im.Pix[(y*w+x)*8:]
		for c := 0; c < 4; c++ {
			t[c] = HalfToFloat(binary.LittleEndian.Uint16(p[2*c:]))
		}
	case format.RGBA32Float:
		p := im.Pix[(y*w+x)*16:]
		for c := 0; c < 4; c++ {
			t[c] = math.Float32frombits(binary.LittleEndian.Uint32(p[4*c:]))
		}
	default:
		return t, fmt.Errorf("tensor: source format %v (want RGBA8, BGRA8, RGBA16F or RGBA32F)", im.Format)
	}
	return t, nil
}

// CheckSource reports whether f is a source format, naming the formats
// that are when it is not.
func CheckSource(f format.Format) error {
	for _, s := range Sources {
		if f == s {
			return nil
		}
	}
	name := fmt.Sprint(uint32(f))
	if in, ok := format.Lookup(f); ok {
		name = in.Name
	}
	return fmt.Errorf("tensor: source format %s (want rgba8_unorm, bgra8_unorm, rgba16_float or rgba32_float)", name)
}

// Values returns the views' tensor as float32 values before they are
// stored: (v − Mean[c]) · Scale()[c], in the layout's element order.
func Values(l Layout, views []Image) ([]float32, error) {
	if err := l.Validate(); err != nil {
		return nil, err
	}
	if len(views) == 0 {
		return nil, fmt.Errorf("tensor: no views")
	}
	w, h := views[0].Width, views[0].Height
	ch := l.C()
	scale := l.Scale()
	out := make([]float32, len(views)*int(w)*int(h)*ch)
	for v, im := range views {
		if im.Width != w || im.Height != h {
			return nil, fmt.Errorf("tensor: view %d is %dx%d, view 0 %dx%d", v, im.Width, im.Height, w, h)
		}
		if err := CheckSource(im.Format); err != nil {
			return nil, err
		}
		in, _ := format.Lookup(im.Format)
		if need := int(w) * int(h) * in.BytesPerTexel; len(im.Pix) < need {
			return nil, fmt.Errorf("tensor: view %d has %d bytes, %dx%d %s needs %d", v, len(im.Pix), w, h, in.Name, need)
		}
		for y := 0; y < int(h); y++ {
			for x := 0; x < int(w); x++ {
				t, _ := im.Texel(x, y)
				for c := 0; c < ch; c++ {
					out[l.Index(v, x, y, c, w, h)] = (t[c] - l.Mean[c]) * scale[c]
				}
			}
		}
	}
	return out, nil
}

// Reference converts views on the host: the bytes a converter must write
// (little-endian elements), up to rounding.
func Reference(l Layout, views []Image) ([]byte, error) {
	vals, err := Values(l, views)
	if err != nil {
		return nil, err
	}
	return Encode(l.DType, vals), nil
}

// Encode stores float32 values as elements of d (see the package comment).
func Encode(d format.DType, vals []float32) []byte {
	out := make([]byte, len(vals)*d.Size())
	for i, v := range vals {
		switch d {
		case format.Float32:
			binary.LittleEndian.PutUint32(out[4*i:], math.Float32bits(v))
		case format.Float16:
			binary.LittleEndian.PutUint16(out[2*i:], FloatToHalf(v))
		case format.Uint8:
			out[i] = ToUint8(v)
		}
	}
	return out
}

// Decode reads elements of d back as float32 values (uint8 as 0..255).
func Decode(d format.DType, b []byte) []float32 {
	n := len(b) / d.Size()
	out := make([]float32, n)
	for i := range out {
		switch d {
		case format.Float32:
			out[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
		case format.Float16:
			out[i] = HalfToFloat(binary.LittleEndian.Uint16(b[2*i:]))
		case format.Uint8:
			out[i] = float32(b[i])
		}
	}
	return out
}

// ToUint8 stores v as a uint8: clamped to [0, 1], times 255, rounded.
func ToUint8(v float32) uint8 {
	if !(v > 0) { // NaN too
		return 0
	}
	if v >= 1 {
		return 255
	}
	return uint8(math.Floor(float64(v)*255 + 0.5))
}

// HalfToFloat decodes an IEEE 754 half.
func HalfToFloat(h uint16) float32 { return half.ToFloat32(h) }

// FloatToHalf encodes v as an IEEE 754 half, rounding to nearest even.
func FloatToHalf(v float32) uint16 { return half.FromFloat32(v) }

// Check compares a converter's output got with the reference for views,
// element by element: float32 within 1e-5 relative (the GPU may read a
// UNORM texel an ulp off and fuse the normalization), float16 within one
// unit in the last place, uint8 exactly for 8-bit sources without
// normalization, else within 1 (rounding of ties may differ). It returns
// the number of elements out of tolerance and a description of the first.
func Check(l Layout, views []Image, got []byte) (bad int, first string, err error) {
	want, err := Values(l, views)
	if err != nil {
		return 0, "", err
	}
	if need := len(want) * l.DType.Size(); len(got) != need {
		return 0, "", fmt.Errorf("output has %d bytes, want %d", len(got), need)
	}
	g := Decode(l.DType, got)
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
			r := float32(ToUint8(w))
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
func where(l Layout, n int, w, h uint32, i int) string {
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
