package compute

import (
	"errors"
	"fmt"
)

// ErrUnsupported is wrapped by the errors of what package compute does not
// do (yet), as opposed to a request that is out of range or malformed.
var ErrUnsupported = errors.New("compute: not supported")

// Copy copies src into dst and waits for it, by the rules of gfxcuda's
// first copy (the C library's gfxcuda_copy, Python's copy_to without
// slices), which are looser than CopyRegion's:
//   - buffer→buffer: Size bytes (0: the rest of the source) from SrcOffset
//     to DstOffset, which must fit both buffers.
//   - buffer→texture and texture→buffer: the region at DstX, DstY, DstZ
//     (into a texture) or SrcX, SrcY, SrcZ (out of one) of extent Width,
//     Height, Depth (0: to the texture's edge), of every array slice, as
//     tightly packed texels from DstOffset or SrcOffset in the buffer.
//     Size is not used (CopyRegion requires it to cover the texels); the
//     buffer must hold one slice's texels from its offset.
//   - texture→texture: all of src into dst, which must have the same
//     extent; the region is not used.
//
// SrcSlice and DstSlice must be 0 (the error wraps ErrUnsupported).
// Regions outside their resources give errors wrapping ErrRange; an error
// of the device running the copy is returned as it is.
func (d *Device) Copy(dst, src Resource, r CopyRegion) error {
	if r.SrcSlice != 0 || r.DstSlice != 0 {
		return fmt.Errorf("compute: Copy: copies to and from texture slices other than 0 (SrcSlice %d, DstSlice %d): %w; use CopyRegion",
			r.SrcSlice, r.DstSlice, ErrUnsupported)
	}
	b, err := d.syncBatch()
	if err != nil {
		return err
	}
	defer d.recycle(b.c)
	if _, err := d.recordCopy(b, dst, src, r, firstCopyRules); err != nil {
		return err
	}
	return b.Run()
}

// syncBatch returns a batch over an idle command buffer of the device's
// spares (dispatches reuse them too), for a call that submits it, waits
// and gives it back with recycle: a new command pool and buffer for each
// small copy cost more than the copy (python/bench/compushady_side.py).
func (d *Device) syncBatch() (*Batch, error) {
	c, err := d.commands()
	if err != nil {
		return nil, err
	}
	return &Batch{d: d, c: c}, nil
}

// firstCopyRules are Copy's.
var firstCopyRules = copyRules{name: "Copy", region: allSlicesRegion, textures: wholeTextureCopy}

// wholeTextureCopy records Copy's texture→texture copy: all of src into
// dst, of the same extent.
func wholeTextureCopy(_ *Device, b *Batch, dst, src *Texture, _ CopyRegion) (*Buffer, error) {
	if src.Width() != dst.Width() || src.Height() != dst.Height() || src.Depth() != dst.Depth() {
		return nil, rangef("compute: copy of a %dx%dx%d texture into a %dx%dx%d one", src.Width(), src.Height(), src.Depth(), dst.Width(), dst.Height(), dst.Depth())
	}
	b.Copy(dst, src)
	return nil, nil
}

// allSlicesRegion checks a buffer↔texture copy of Copy at (x, y, z) in t,
// of every slice (slice is not used), and returns its region.
func allSlicesRegion(t *Texture, r CopyRegion, x, y, z, _ uint32, bufOff, bufSize uint64) (Region, error) {
	w, h, d := r.Width, r.Height, r.Depth
	if w == 0 {
		w = t.Width() - min(x, t.Width())
	}
	if h == 0 {
		h = t.Height() - min(y, t.Height())
	}
	if d == 0 {
		d = t.Depth() - min(z, t.Depth())
	}
	if uint64(x)+uint64(w) > uint64(t.Width()) || uint64(y)+uint64(h) > uint64(t.Height()) || uint64(z)+uint64(d) > uint64(t.Depth()) {
		return Region{}, rangef("compute: region %dx%dx%d at (%d, %d, %d) is outside a %dx%dx%d texture", w, h, d, x, y, z, t.Width(), t.Height(), t.Depth())
	}
	need := uint64(w) * uint64(t.Format().Info().BytesPerTexel) * uint64(h) * uint64(d)
	if bufOff > bufSize || need > bufSize-bufOff {
		return Region{}, rangef("compute: copying %dx%dx%d texels needs %d bytes from offset %d; the buffer has %d bytes", w, h, d, need, bufOff, bufSize)
	}
	return Region{BufferOffset: bufOff, X: x, Y: y, Z: z, Width: w, Height: h, Depth: d}, nil
}
