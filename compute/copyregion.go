package compute

import (
	"errors"
	"fmt"
)

// ErrRange is wrapped by the errors of a copy or dispatch whose region,
// offset or size lies outside its resources (as opposed to a copy that
// cannot be made at all).
var ErrRange = errors.New("compute: out of range")

// rangeError is an error of ErrRange keeping its own message.
type rangeError struct{ msg string }

func (e *rangeError) Error() string   { return e.msg }
func (e *rangeError) Is(t error) bool { return t == ErrRange }

// ErrTexelSize is wrapped by the error of a copy between textures whose
// texels differ in size.
var ErrTexelSize = errors.New("compute: texel sizes differ")

func rangef(f string, args ...any) error { return &rangeError{fmt.Sprintf(f, args...)} }

// CopyRegion is the region of Device.CopyRegion, as compushady's copy_to
// takes it (and the C library's gfxcuda_copy_region_t). Offsets are in the
// buffer, texel coordinates and one array slice in the texture; an extent
// of 0 means up to the source's edge from its first texel.
type CopyRegion struct {
	// SrcOffset and DstOffset are byte offsets into a source or
	// destination buffer.
	SrcOffset, DstOffset uint64
	// Size, when nonzero, is the bytes copied: it must cover the texels
	// of a buffer↔texture copy (compushady's rule); for buffer→buffer, 0
	// means the rest of the source.
	Size uint64
	// SrcX, SrcY, SrcZ, SrcSlice: the first texel and the slice in a
	// source texture; DstX... in a destination texture.
	SrcX, SrcY, SrcZ, SrcSlice uint32
	DstX, DstY, DstZ, DstSlice uint32
	// Width, Height, Depth: the extent in texels (0: to the edge).
	Width, Height, Depth uint32
}

// axisExtent returns n, or the rest of the axis from start when n is 0,
// and whether start+n fits in size.
func axisExtent(n, start, size uint32) (uint32, bool) {
	if n == 0 {
		if start >= size {
			return 0, false
		}
		n = size - start
	}
	return n, uint64(start)+uint64(n) <= uint64(size)
}

// CopyRegion copies region r of src into dst and waits for it, checking
// it as compushady does: buffer→buffer (a byte range), buffer→texture and
// texture→buffer (one slice; tightly packed texels, which a nonzero Size
// must cover), texture→texture (one slice each, the same texel size; a 2D
// texture and a 3D one are copied through a staging buffer, which Vulkan
// needs). Regions outside their resources give errors wrapping ErrRange,
// as do copies the device refuses when they run; textures of different
// texel sizes ErrTexelSize.
func (d *Device) CopyRegion(dst, src Resource, r CopyRegion) error {
	b, err := d.syncBatch()
	if err != nil {
		return err
	}
	defer d.recycle(b.c)
	staging, err := d.recordCopy(b, dst, src, r, compushadyRules)
	if staging != nil {
		defer staging.Close()
	}
	if err != nil {
		return err
	}
	if err := b.Run(); err != nil {
		return &rangeError{err.Error()}
	}
	return nil
}

// copyRules are what Copy and CopyRegion check differently; recordCopy
// records either's copies the same way.
type copyRules struct {
	name string // the method, for messages
	// region checks a buffer↔texture copy at (x, y, z) of slice in t, the
	// buffer holding bufSize bytes from bufOff, and returns its region.
	region func(t *Texture, r CopyRegion, x, y, z, slice uint32, bufOff, bufSize uint64) (Region, error)
	// textures checks and records a texture→texture copy; a staging
	// buffer it returns is closed by the caller after the batch ran.
	textures func(d *Device, b *Batch, dst, src *Texture, r CopyRegion) (*Buffer, error)
}

// compushadyRules are CopyRegion's.
var compushadyRules = copyRules{name: "CopyRegion", region: sliceRegion, textures: regionTextureCopy}

// recordCopy checks the copy of r from src into dst by rules and records
// it in b.
func (d *Device) recordCopy(b *Batch, dst, src Resource, r CopyRegion, rules copyRules) (staging *Buffer, err error) {
	switch s := src.(type) {
	case *Buffer:
		switch t := dst.(type) {
		case *Buffer:
			return nil, copyBytes(b, t, s, r)
		case *Texture:
			region, err := rules.region(t, r, r.DstX, r.DstY, r.DstZ, r.DstSlice, r.SrcOffset, s.Size())
			if err != nil {
				return nil, err
			}
			b.CopyBufferToTexture(t, s, region)
			return nil, nil
		}
		return nil, fmt.Errorf("compute: %s: cannot copy a buffer into a %T", rules.name, dst)
	case *Texture:
		switch t := dst.(type) {
		case *Buffer:
			region, err := rules.region(s, r, r.SrcX, r.SrcY, r.SrcZ, r.SrcSlice, r.DstOffset, t.Size())
			if err != nil {
				return nil, err
			}
			b.CopyTextureToBuffer(t, s, region)
			return nil, nil
		case *Texture:
			return rules.textures(d, b, t, s, r)
		}
		return nil, fmt.Errorf("compute: %s: cannot copy a texture into a %T", rules.name, dst)
	}
	return nil, fmt.Errorf("compute: %s: cannot copy from a %T", rules.name, src)
}

// regionTextureCopy records CopyRegion's texture→texture copy: one slice
// each, the same texel size; a 2D texture and a 3D one through a staging
// buffer, which Vulkan needs.
func regionTextureCopy(d *Device, b *Batch, dst, src *Texture, r CopyRegion) (*Buffer, error) {
	tc, err := textureCopy(src, dst, r)
	if err != nil {
		return nil, err
	}
	if src.Dim() == dst.Dim() {
		b.CopyTexture(dst, src, tc)
		return nil, nil
	}
	n := uint64(tc.Width) * uint64(tc.Height) * uint64(tc.Depth) * uint64(src.Format().Info().BytesPerTexel)
	staging, err := d.Buffer(n, HeapDefault)
	if err != nil {
		return nil, err
	}
	b.CopyTextureToBuffer(staging, src, Region{X: tc.SrcX, Y: tc.SrcY, Z: tc.SrcZ,
		Width: tc.Width, Height: tc.Height, Depth: tc.Depth, Slice: tc.SrcSlice, Slices: 1})
	b.CopyBufferToTexture(dst, staging, Region{X: tc.DstX, Y: tc.DstY, Z: tc.DstZ,
		Width: tc.Width, Height: tc.Height, Depth: tc.Depth, Slice: tc.DstSlice, Slices: 1})
	return staging, nil
}

// sliceRegion checks a buffer↔texture copy of one array slice of t at
// (x, y, z) and returns its region.
func sliceRegion(t *Texture, r CopyRegion, x, y, z, slice uint32, bufOff, bufSize uint64) (Region, error) {
	if slice >= max(t.Slices(), 1) {
		return Region{}, rangef("compute: slice %d of a texture with %d slices", slice, max(t.Slices(), 1))
	}
	w, okW := axisExtent(r.Width, x, t.Width())
	h, okH := axisExtent(r.Height, y, t.Height())
	d, okD := axisExtent(r.Depth, z, t.Depth())
	if !okW || !okH || !okD {
		return Region{}, rangef("compute: region %dx%dx%d at (%d, %d, %d) is outside a %dx%dx%d texture",
			r.Width, r.Height, r.Depth, x, y, z, t.Width(), t.Height(), t.Depth())
	}
	need := uint64(w) * uint64(t.Format().Info().BytesPerTexel) * uint64(h) * uint64(d)
	if r.Size != 0 && r.Size < need {
		return Region{}, rangef("compute: a copy of %d bytes; the %dx%dx%d texels need %d", r.Size, w, h, d, need)
	}
	if bufOff > bufSize || need > bufSize-bufOff {
		return Region{}, rangef("compute: copying %dx%dx%d texels needs %d bytes from offset %d; the buffer has %d bytes", w, h, d, need, bufOff, bufSize)
	}
	return Region{BufferOffset: bufOff, X: x, Y: y, Z: z, Width: w, Height: h, Depth: d, Slice: slice, Slices: 1}, nil
}

// textureCopy checks a texture→texture copy of one slice and returns it.
func textureCopy(s, d *Texture, r CopyRegion) (TextureCopy, error) {
	w, ok1 := axisExtent(r.Width, r.SrcX, s.Width())
	h, ok2 := axisExtent(r.Height, r.SrcY, s.Height())
	dd, ok3 := axisExtent(r.Depth, r.SrcZ, s.Depth())
	if !ok1 || !ok2 || !ok3 {
		return TextureCopy{}, rangef("compute: source region at (%d, %d, %d) is outside a %dx%dx%d texture", r.SrcX, r.SrcY, r.SrcZ, s.Width(), s.Height(), s.Depth())
	}
	if uint64(r.DstX)+uint64(w) > uint64(d.Width()) || uint64(r.DstY)+uint64(h) > uint64(d.Height()) || uint64(r.DstZ)+uint64(dd) > uint64(d.Depth()) {
		return TextureCopy{}, rangef("compute: %dx%dx%d texels at (%d, %d, %d) do not fit a %dx%dx%d texture", w, h, dd, r.DstX, r.DstY, r.DstZ, d.Width(), d.Height(), d.Depth())
	}
	if r.SrcSlice >= max(s.Slices(), 1) || r.DstSlice >= max(d.Slices(), 1) {
		return TextureCopy{}, rangef("compute: slice %d → %d of textures with %d and %d slices", r.SrcSlice, r.DstSlice, max(s.Slices(), 1), max(d.Slices(), 1))
	}
	if s.Format().Info().BytesPerTexel != d.Format().Info().BytesPerTexel {
		return TextureCopy{}, fmt.Errorf("compute: a copy between %s and %s: %w", s.Format(), d.Format(), ErrTexelSize)
	}
	return TextureCopy{SrcX: r.SrcX, SrcY: r.SrcY, SrcZ: r.SrcZ, DstX: r.DstX, DstY: r.DstY, DstZ: r.DstZ, Width: w, Height: h, Depth: dd,
		SrcSlice: r.SrcSlice, DstSlice: r.DstSlice, Slices: 1}, nil
}

// copyBytes records the copy of r.Size bytes (0: the rest of src from
// r.SrcOffset) from buffer src at r.SrcOffset to dst at r.DstOffset, the
// buffer → buffer case of Copy and CopyRegion.
func copyBytes(b *Batch, dst, src *Buffer, r CopyRegion) error {
	n := r.Size
	if n == 0 {
		n = src.Size() - min(r.SrcOffset, src.Size())
	}
	if r.SrcOffset+n > src.Size() || r.DstOffset+n > dst.Size() {
		return rangef("compute: copy of %d bytes from offset %d of a %d-byte buffer to offset %d of a %d-byte buffer does not fit",
			n, r.SrcOffset, src.Size(), r.DstOffset, dst.Size())
	}
	b.CopyBuffer(dst, src, r.DstOffset, r.SrcOffset, n)
	return nil
}
