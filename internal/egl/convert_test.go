package egl

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gfxcuda/gfxcuda/format"
	"github.com/gfxcuda/gfxcuda/tensor"
)

const (
	glRGBA8   = 0x8058
	glRGBA16F = 0x881A
	glRGBA32F = 0x8814
	glRGBA    = 0x1908
	glUByte   = 0x1401
	glHalf    = 0x140B
	glFloat   = 0x1406
)

// convertSourceFormats: a texture internal format, how its texels are
// uploaded, and the reference's source format.
var convertSourceFormats = []struct {
	internal, typ uint32
	f             format.Format
	swap          bool // BGRA8 bytes kept in an RGBA8 texture
}{
	{glRGBA8, glUByte, format.RGBA8UNorm, false},
	{glRGBA8, glUByte, format.BGRA8UNorm, true},
	{glRGBA16F, glHalf, format.RGBA16Float, false},
	{glRGBA32F, glFloat, format.RGBA32Float, false},
}

// randomTexels returns w×h texels of format f: random bytes for RGBA8,
// random finite values in [-2, 2) for the float formats.
func randomTexels(rng *rand.Rand, f format.Format, w, h int) []byte {
	switch f {
	case format.RGBA16Float:
		b := make([]byte, w*h*8)
		for i := 0; i < w*h*4; i++ {
			binary.LittleEndian.PutUint16(b[2*i:], tensor.FloatToHalf(rng.Float32()*4-2))
		}
		return b
	case format.RGBA32Float:
		b := make([]byte, w*h*16)
		for i := 0; i < w*h*4; i++ {
			binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(rng.Float32()*4-2))
		}
		return b
	}
	b := make([]byte, w*h*4)
	for i := range b {
		b[i] = byte(rng.Uint32())
	}
	return b
}

func convertDType(d format.DType) ConvertDType {
	switch d {
	case format.Float16:
		return ConvertFloat16
	case format.Uint8:
		return ConvertUint8
	}
	return ConvertFloat32
}

// TestConverter converts random textures (RGBA8, BGRA8, RGBA16F, RGBA32F; odd
// sizes; 1–3 views at a byte offset) with the per-pixel program where it
// applies and then with the generic one only, into every layout (float32, float16,
// uint8; planar and interleaved; 3 and 4 channels; flipped or not; with
// and without mean/std) in a buffer of random bytes, on the GPU (llvmpipe
// on the CPU machine), and compares every element with the Go reference
// (tensor.Check) and every byte around the tensor with what was there; it
// also reaches the two-dimensional dispatch, checks that the caller's GL
// bindings are put back, and the errors.
func TestConverter(t *testing.T) {
	c := newContext(t, Options{})
	defer func(v int) { convertMaxGroupsX = v }(convertMaxGroupsX)
	defer func() { disableFast = false }()
	rng := rand.New(rand.NewPCG(32, 35))
	err := c.Do(func() error {
		cv, err := NewConverter()
		if err != nil {
			return err
		}
		defer cv.Delete()
		cases := 0
		for _, generic := range []bool{false, true} {
			disableFast = generic
			for _, src := range convertSourceFormats {
				for _, size := range [][2]int{{7, 5}, {13, 3}, {37, 19}} {
					w, h := size[0], size[1]
					for _, dt := range tensor.DTypes {
						for _, planar := range []bool{false, true} {
							for _, ch := range []int{3, 4} {
								cases++
								l := tensor.Layout{Planar: planar, DType: dt, Channels: ch, FlipY: rng.IntN(2) == 0}
								if rng.IntN(2) == 0 {
									l.Mean = [4]float32{0.485, 0.456, 0.406, 0.5}
									l.Std = [4]float32{0.229, 0.224, 0.225, 0.25}
								}
								views := 1 + rng.IntN(3)
								maxX := 65535
								if cases%5 == 0 {
									maxX = 1 // every dispatch in two dimensions
								}
								convertMaxGroupsX = maxX
								if err := checkConvert(t, c, cv, rng, src.internal, src.typ, src.f, src.swap, w, h, l, views); err != nil {
									return fmt.Errorf("generic program only %v: %w", generic, err)
								}
							}
						}
					}
				}
			}
		}
		disableFast = false
		// Bindings put back: the caller's program, active unit, the unit's
		// texture and the storage binding (with its range).
		before := cv.bindings()
		tex, _ := c.CreateTexture2D(glRGBA8, 4, 4, 1)
		defer c.DeleteTexture(tex)
		buf, _ := c.CreateBuffer(256, nil, DynamicDraw)
		defer c.DeleteBuffer(buf)
		if err := cv.Convert(tex, ConvertLayout{Width: 4, Height: 4, Channels: 4, DType: ConvertUint8, Scale: [4]float32{1, 1, 1, 1}}, 0, buf, 0); err != nil {
			return err
		}
		if after := cv.bindings(); before != after {
			t.Errorf("GL state changed by Convert: before %v, after %v (program, active texture, unit's 2D texture and sampler, storage binding 0)", before, after)
		}
		// Errors.
		good := ConvertLayout{Width: 4, Height: 4, Channels: 4, DType: ConvertUint8}
		for _, bad := range []struct {
			l      ConvertLayout
			view   int
			offset int
		}{
			{ConvertLayout{Width: 0, Height: 4, Channels: 4, DType: ConvertUint8}, 0, 0},
			{ConvertLayout{Width: 4, Height: 4, Channels: 2, DType: ConvertUint8}, 0, 0},
			{ConvertLayout{Width: 4, Height: 4, Channels: 4, DType: 7}, 0, 0},
			{good, -1, 0},
			{good, 0, 2},
			{good, 0, -4},
			{ConvertLayout{Width: 1 << 16, Height: 1 << 16, Channels: 4, DType: ConvertUint8}, 0, 0},
		} {
			if err := cv.Convert(tex, bad.l, bad.view, buf, bad.offset); err == nil {
				t.Errorf("Convert(%+v, view %d, offset %d) succeeded", bad.l, bad.view, bad.offset)
			}
		}
		if err := cv.Delete(); err != nil {
			return err
		}
		if err := cv.Delete(); err != nil {
			t.Errorf("second Delete: %v", err)
		}
		if err := cv.Convert(tex, good, 0, buf, 0); err == nil {
			t.Error("Convert after Delete succeeded")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := func() error { _, err := NewConverter(); return err }(); err == nil {
		t.Error("NewConverter outside Do succeeded")
	}
}

// checkConvert converts `views` random textures of one size into a buffer
// of random bytes at a random offset, then compares; a difference is its
// error (returned, not t.Fatal: it runs on the context's thread, inside
// Do).
func checkConvert(t *testing.T, c *Context, cv *Converter, rng *rand.Rand, internal, typ uint32, f format.Format, swap bool, w, h int, l tensor.Layout, views int) error {
	t.Helper()
	imgs := make([]tensor.Image, views)
	texs := make([]Texture, views)
	for v := range imgs {
		pix := randomTexels(rng, f, w, h)
		imgs[v] = tensor.Image{Format: f, Width: uint32(w), Height: uint32(h), Pix: pix}
		tex, err := c.CreateTexture2D(internal, w, h, 1)
		if err != nil {
			return err
		}
		defer c.DeleteTexture(tex)
		if err := c.TextureSubImage2D(tex, 0, w, h, glRGBA, typ, pix); err != nil {
			return err
		}
		texs[v] = tex
	}
	cl := ConvertLayout{Width: w, Height: h, Channels: l.C(), Planar: l.Planar, FlipY: l.FlipY, SwapRB: swap,
		DType: convertDType(l.DType), Mean: l.Mean, Scale: l.Scale()}
	n := views * cl.ViewBytes()
	offset := 4 * rng.IntN(4)
	total := offset + n + 4 + rng.IntN(8)
	before := make([]byte, total)
	for i := range before {
		before[i] = byte(rng.Uint32())
	}
	buf, err := c.CreateBuffer(total, before, DynamicDraw)
	if err != nil {
		return err
	}
	defer c.DeleteBuffer(buf)
	// Views in a random order: edge words shared between views are
	// updated atomically whichever comes first.
	for _, v := range rng.Perm(views) {
		if err := cv.Convert(texs[v], cl, v, buf, offset); err != nil {
			return err
		}
	}
	got := make([]byte, total)
	if err := c.GetBufferSubData(buf, 0, got); err != nil {
		return err
	}
	what := func() string { return fmt.Sprintf("%v %v", f, l) }
	for i := 0; i < offset; i++ {
		if got[i] != before[i] {
			return fmt.Errorf("%s, %dx%d, %d views: byte %d before the tensor (offset %d) changed", what(), w, h, views, i, offset)
		}
	}
	for i := offset + n; i < total; i++ {
		if got[i] != before[i] {
			return fmt.Errorf("%s, %dx%d, %d views: byte %d after the tensor (ends at %d) changed", what(), w, h, views, i, offset+n)
		}
	}
	bad, first, err := tensor.Check(l, imgs, got[offset:offset+n])
	if err != nil {
		return err
	}
	if bad != 0 {
		return fmt.Errorf("%s, %dx%d, %d views at offset %d: %d elements wrong; first: %s", what(), w, h, views, offset, bad, first)
	}
	return nil
}
