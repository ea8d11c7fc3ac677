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
			quad := cv.quadRuns
			for _, src := range convertSourceFormats {
				// Widths of 8, 36 and 132 (multiples of 4) reach the
				// 4-pixel program for the uint8 and float16 layouts the
				// per-pixel one does not take; 132 × 21 takes 3 × 2 of its
				// 64×16-texel work groups.
				for _, size := range [][2]int{{7, 5}, {13, 3}, {37, 19}, {8, 5}, {36, 7}, {132, 21}} {
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
			if ran := cv.quadRuns - quad; ran == 0 == !generic {
				t.Errorf("generic program only %v: the 4-pixel program ran %d times", generic, ran)
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
	// Views in a random order: edge words shared between views are
	// updated atomically whichever comes first.
	err := checkInto(c, rng, l, imgs, func(buf Buffer, offset int) error {
		for _, v := range rng.Perm(views) {
			if err := cv.Convert(texs[v], cl, v, buf, offset); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("%v %v, %dx%d, %d views: %w", f, l, w, h, views, err)
	}
	return nil
}

// checkInto runs conv into a buffer of random bytes, the tensor of imgs
// under l from a random offset (a multiple of 4), then compares every
// element with the Go reference and every byte around the tensor with
// what was there; a difference is its error.
func checkInto(c *Context, rng *rand.Rand, l tensor.Layout, imgs []tensor.Image, conv func(buf Buffer, offset int) error) error {
	n := int(l.Bytes(imgs[0].Width, imgs[0].Height)) * len(imgs)
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
	if err := conv(buf, offset); err != nil {
		return err
	}
	got := make([]byte, total)
	if err := c.GetBufferSubData(buf, 0, got); err != nil {
		return err
	}
	for i := range got {
		if (i < offset || i >= offset+n) && got[i] != before[i] {
			return fmt.Errorf("byte %d outside the tensor [%d, %d) changed", i, offset, offset+n)
		}
	}
	bad, first, err := tensor.Check(l, imgs, got[offset:offset+n])
	if err != nil {
		return err
	}
	if bad != 0 {
		return fmt.Errorf("at offset %d: %d elements wrong; first: %s", offset, bad, first)
	}
	return nil
}

// TestConverterTiles converts the views of random atlases (RGBA8, BGRA8,
// RGBA16F, RGBA32F; cols × rows tiles of odd sizes, n ≤ cols·rows views,
// an atlas with a margin before its first tile) with ConvertTiles into
// every layout — the per-pixel program in one dispatch where it applies
// (and in dispatches of 2 views), tile by tile elsewhere, and tile by tile
// with the generic program only — in a buffer of random bytes: every
// element against the Go reference of each tile, the bytes around the
// tensor untouched; then the errors.
func TestConverterTiles(t *testing.T) {
	c := newContext(t, Options{})
	defer func(v int) { convertMaxGroupsZ = v }(convertMaxGroupsZ)
	defer func() { disableFast = false }()
	rng := rand.New(rand.NewPCG(36, 37))
	err := c.Do(func() error {
		cv, err := NewConverter()
		if err != nil {
			return err
		}
		defer cv.Delete()
		for i, src := range convertSourceFormats {
			for _, dt := range tensor.DTypes {
				for _, planar := range []bool{false, true} {
					for _, ch := range []int{3, 4} {
						l := tensor.Layout{Planar: planar, DType: dt, Channels: ch, FlipY: rng.IntN(2) == 0}
						if rng.IntN(2) == 0 {
							l.Mean = [4]float32{0.485, 0.456, 0.406, 0.5}
							l.Std = [4]float32{0.229, 0.224, 0.225, 0.25}
						}
						mode := rng.IntN(3) // 0: one dispatch, 1: dispatches of 2 views, 2: the generic program only
						disableFast, convertMaxGroupsZ = mode == 2, 65535
						if mode == 1 {
							convertMaxGroupsZ = 2
						}
						w, h, cols, rows := 5+rng.IntN(13), 3+rng.IntN(9), 1+rng.IntN(5), 1+rng.IntN(4)
						if rng.IntN(2) == 0 {
							w = 4 * (1 + rng.IntN(4)) // the 4-pixel program's widths
						}
						n := 1 + rng.IntN(cols*rows)
						if err := checkTiles(c, cv, rng, src.internal, src.typ, src.f, src.swap, w, h, cols, rows, n, i%2 == 1, l); err != nil {
							return fmt.Errorf("%v %v, %d x %d tiles of %dx%d, %d views, mode %d: %w", src.f, l, cols, rows, w, h, n, mode, err)
						}
					}
				}
			}
		}
		if cv.quadRuns == 0 {
			t.Error("the 4-pixel program never ran")
		}
		disableFast = false
		tex, _ := c.CreateTexture2D(glRGBA8, 8, 8, 1)
		defer c.DeleteTexture(tex)
		buf, _ := c.CreateBuffer(1024, nil, DynamicDraw)
		defer c.DeleteBuffer(buf)
		good := ConvertLayout{Width: 4, Height: 4, Channels: 4, DType: ConvertUint8, Scale: [4]float32{1, 1, 1, 1}}
		for _, bad := range []struct {
			l            ConvertLayout
			cols, n, off int
		}{
			{good, 0, 1, 0},
			{good, 2, 0, 0},
			{good, 2, 1, 2},
			{ConvertLayout{Width: 4, Height: 4, Channels: 2, DType: ConvertUint8}, 2, 1, 0},
			{ConvertLayout{Width: 4, Height: 4, Channels: 4, DType: 7}, 2, 1, 0},
			{ConvertLayout{Width: 4, Height: 4, Channels: 4, DType: ConvertUint8, OriginX: -1}, 2, 1, 0},
		} {
			if err := cv.ConvertTiles(tex, bad.l, bad.cols, bad.n, buf, bad.off); err == nil {
				t.Errorf("ConvertTiles(%+v, %d per row, %d views, offset %d) succeeded", bad.l, bad.cols, bad.n, bad.off)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// checkTiles makes an atlas of cols × rows random tiles of w×h (margin:
// one more row and column of texels before the first tile, passed as the
// origin), converts its first n views with ConvertTiles (checkInto), and
// compares.
func checkTiles(c *Context, cv *Converter, rng *rand.Rand, internal, typ uint32, f format.Format, swap bool, w, h, cols, rows, n int, margin bool, l tensor.Layout) error {
	m := 0
	if margin {
		m = 1
	}
	aw, ah := m+cols*w, m+rows*h
	pix := randomTexels(rng, f, aw, ah)
	tex, err := c.CreateTexture2D(internal, aw, ah, 1)
	if err != nil {
		return err
	}
	defer c.DeleteTexture(tex)
	if err := c.TextureSubImage2D(tex, 0, aw, ah, glRGBA, typ, pix); err != nil {
		return err
	}
	bpp := len(pix) / (aw * ah)
	imgs := make([]tensor.Image, n)
	for v := range imgs {
		tile := make([]byte, 0, w*h*bpp)
		x0, y0 := m+(v%cols)*w, m+(v/cols)*h
		for y := y0; y < y0+h; y++ {
			tile = append(tile, pix[(y*aw+x0)*bpp:(y*aw+x0+w)*bpp]...)
		}
		imgs[v] = tensor.Image{Format: f, Width: uint32(w), Height: uint32(h), Pix: tile}
	}
	cl := ConvertLayout{Width: w, Height: h, Channels: l.C(), Planar: l.Planar, FlipY: l.FlipY, SwapRB: swap,
		DType: convertDType(l.DType), Mean: l.Mean, Scale: l.Scale(), OriginX: m, OriginY: m}
	return checkInto(c, rng, l, imgs, func(buf Buffer, offset int) error {
		return cv.ConvertTiles(tex, cl, cols, n, buf, offset)
	})
}
