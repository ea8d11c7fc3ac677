package main

// compat.go: what compushady's test suite needs beyond gfxcuda_copy and
// gfxcuda_compute_dispatch (copies with texture regions, array slices and
// 2D↔3D, a size that must cover the texels; indirect dispatch), and compute
// work on the Vulkan side of a shared (Vulkan + CUDA) device, so that a
// compushady-style Compute renders straight into a texture CUDA reads.

/*
#include "capi.h"
*/
import "C"

import (
	"unsafe"

	"github.com/gfxcuda/gfxcuda/compute"
)

// extent returns n, or the rest of the axis from start when n is 0, and
// whether start+n fits in size.
func axisExtent(n, start, size uint32) (uint32, bool) {
	if n == 0 {
		if start >= size {
			return 0, false
		}
		n = size - start
	}
	return n, uint64(start)+uint64(n) <= uint64(size)
}

//export gfxcuda_copy_ex
func gfxcuda_copy_ex(src, dst C.uint64_t, r *C.gfxcuda_copy_region_t) C.int {
	return call(func() error {
		reg, se, de, err := copyArgs(src, dst, r, "gfxcuda_copy_ex")
		if err != nil {
			return err
		}
		var devH uint64
		switch s := se.obj.(type) {
		case *buffer:
			devH = s.dev
		case *texture:
			devH = s.dev
		default:
			return errorf(stInvalid, "gfxcuda: cannot copy from a %s", kindName(se.obj))
		}
		dev, err := get[*compute.Device](devH, "device")
		if err != nil {
			return err
		}
		b, err := dev.NewBatch()
		if err != nil {
			return err
		}
		defer b.Close()
		switch s := se.obj.(type) {
		case *buffer:
			d, ok := de.obj.(*texture)
			if !ok {
				return errorf(stInvalid, "gfxcuda_copy_ex: copies from a buffer go into a texture (use gfxcuda_copy for buffers)")
			}
			region, err := sliceRegion(d, reg, uint64(reg.src_offset), s.Size(), true)
			if err != nil {
				return err
			}
			b.CopyBufferToTexture(d.Texture, s.Buffer, region)
		case *texture:
			switch d := de.obj.(type) {
			case *buffer:
				region, err := sliceRegion(s, reg, uint64(reg.dst_offset), d.Size(), false)
				if err != nil {
					return err
				}
				b.CopyTextureToBuffer(d.Buffer, s.Texture, region)
			case *texture:
				tc, err := textureCopy(s, d, reg)
				if err != nil {
					return err
				}
				if s.Dim() == d.Dim() {
					b.CopyTexture(d.Texture, s.Texture, tc)
					break
				}
				// Vulkan copies no 2D image into a 3D one directly: stage
				// the texels through a device buffer in the same batch.
				n := uint64(tc.Width) * uint64(tc.Height) * uint64(tc.Depth) * uint64(s.Format().Info().BytesPerTexel)
				tmp, err := dev.Buffer(n, compute.HeapDefault)
				if err != nil {
					return err
				}
				defer tmp.Close()
				b.CopyTextureToBuffer(tmp, s.Texture, compute.Region{X: tc.SrcX, Y: tc.SrcY, Z: tc.SrcZ,
					Width: tc.Width, Height: tc.Height, Depth: tc.Depth, Slice: tc.SrcSlice, Slices: 1})
				b.CopyBufferToTexture(d.Texture, tmp, compute.Region{X: tc.DstX, Y: tc.DstY, Z: tc.DstZ,
					Width: tc.Width, Height: tc.Height, Depth: tc.Depth, Slice: tc.DstSlice, Slices: 1})
			default:
				return errorf(stInvalid, "gfxcuda: cannot copy a texture into a %s", kindName(de.obj))
			}
		}
		if err := b.Run(); err != nil {
			return &statusError{stRange, err}
		}
		return nil
	})
}

// sliceRegion checks a buffer↔texture copy of one array slice and returns
// its region. A nonzero size must cover the texels copied (compushady's
// rule); toTex: the texture is the destination.
func sliceRegion(t *texture, reg C.gfxcuda_copy_region_t, bufOff, bufSize uint64, toTex bool) (compute.Region, error) {
	x, y, z, slice := uint32(reg.src_x), uint32(reg.src_y), uint32(reg.src_z), uint32(reg.src_slice)
	if toTex {
		x, y, z, slice = uint32(reg.dst_x), uint32(reg.dst_y), uint32(reg.dst_z), uint32(reg.dst_slice)
	}
	if slice >= max(t.Slices(), 1) {
		return compute.Region{}, errorf(stRange, "gfxcuda: slice %d of a texture with %d slices", slice, max(t.Slices(), 1))
	}
	w, okW := axisExtent(uint32(reg.width), x, t.Width())
	h, okH := axisExtent(uint32(reg.height), y, t.Height())
	d, okD := axisExtent(uint32(reg.depth), z, t.Depth())
	if !okW || !okH || !okD {
		return compute.Region{}, errorf(stRange, "gfxcuda: region %dx%dx%d at (%d, %d, %d) is outside a %dx%dx%d texture",
			reg.width, reg.height, reg.depth, x, y, z, t.Width(), t.Height(), t.Depth())
	}
	need := uint64(w) * uint64(t.Format().Info().BytesPerTexel) * uint64(h) * uint64(d)
	if reg.size != 0 && uint64(reg.size) < need {
		return compute.Region{}, errorf(stRange, "gfxcuda: a copy of %d bytes; the %dx%dx%d texels need %d", reg.size, w, h, d, need)
	}
	if bufOff > bufSize || need > bufSize-bufOff {
		return compute.Region{}, errorf(stRange, "gfxcuda: copying %dx%dx%d texels needs %d bytes from offset %d; the buffer has %d bytes", w, h, d, need, bufOff, bufSize)
	}
	return compute.Region{BufferOffset: bufOff, X: x, Y: y, Z: z, Width: w, Height: h, Depth: d, Slice: slice, Slices: 1}, nil
}

// textureCopy checks a texture→texture copy of one slice and returns it.
func textureCopy(s, d *texture, reg C.gfxcuda_copy_region_t) (compute.TextureCopy, error) {
	sx, sy, sz := uint32(reg.src_x), uint32(reg.src_y), uint32(reg.src_z)
	dx, dy, dz := uint32(reg.dst_x), uint32(reg.dst_y), uint32(reg.dst_z)
	w, ok1 := axisExtent(uint32(reg.width), sx, s.Width())
	h, ok2 := axisExtent(uint32(reg.height), sy, s.Height())
	dd, ok3 := axisExtent(uint32(reg.depth), sz, s.Depth())
	if !ok1 || !ok2 || !ok3 {
		return compute.TextureCopy{}, errorf(stRange, "gfxcuda: source region at (%d, %d, %d) is outside a %dx%dx%d texture", sx, sy, sz, s.Width(), s.Height(), s.Depth())
	}
	if uint64(dx)+uint64(w) > uint64(d.Width()) || uint64(dy)+uint64(h) > uint64(d.Height()) || uint64(dz)+uint64(dd) > uint64(d.Depth()) {
		return compute.TextureCopy{}, errorf(stRange, "gfxcuda: %dx%dx%d texels at (%d, %d, %d) do not fit a %dx%dx%d texture", w, h, dd, dx, dy, dz, d.Width(), d.Height(), d.Depth())
	}
	if uint32(reg.src_slice) >= max(s.Slices(), 1) || uint32(reg.dst_slice) >= max(d.Slices(), 1) {
		return compute.TextureCopy{}, errorf(stRange, "gfxcuda: slice %d → %d of textures with %d and %d slices", reg.src_slice, reg.dst_slice, max(s.Slices(), 1), max(d.Slices(), 1))
	}
	if s.Format().Info().BytesPerTexel != d.Format().Info().BytesPerTexel {
		return compute.TextureCopy{}, errorf(stInvalid, "gfxcuda: a copy between %s and %s: texel sizes differ", s.Format(), d.Format())
	}
	return compute.TextureCopy{SrcX: sx, SrcY: sy, SrcZ: sz, DstX: dx, DstY: dy, DstZ: dz, Width: w, Height: h, Depth: dd,
		SrcSlice: uint32(reg.src_slice), DstSlice: uint32(reg.dst_slice), Slices: 1}, nil
}

//export gfxcuda_compute_dispatch_indirect
func gfxcuda_compute_dispatch_indirect(k, args C.uint64_t, offset C.uint64_t, push unsafe.Pointer, npush C.size_t) C.int {
	return call(func() error {
		kk, err := get[*kernel](uint64(k), "compute pipeline")
		if err != nil {
			return err
		}
		b, err := get[*buffer](uint64(args), "buffer")
		if err != nil {
			return err
		}
		if uint64(offset)%4 != 0 || uint64(offset)+12 > b.Size() {
			return errorf(stRange, "gfxcuda: indirect arguments (3 uint32) at offset %d of a %d-byte buffer; the offset must be a multiple of 4 and leave 12 bytes", offset, b.Size())
		}
		a := kk.dispatchArgs()
		if npush > 0 {
			p, err := hostBytes(push, uint64(npush))
			if err != nil {
				return err
			}
			a = append(append([]compute.Arg(nil), a...), compute.Push(append([]byte(nil), p...)))
		}
		return kk.k.DispatchIndirect(b.Buffer, uint64(offset), a...)
	})
}

//export gfxcuda_shared_compute_device
func gfxcuda_shared_compute_device(dev C.uint64_t, out *C.uint64_t) C.int {
	return call(func() error {
		sd, err := get[*sharedDevice](uint64(dev), "shared device")
		if err != nil {
			return err
		}
		if out == nil {
			return errorf(stInvalid, "gfxcuda_shared_compute_device: null output")
		}
		cd := compute.NewSubmitting(sd.d.Vulkan(), sd.d)
		return store(out, cd, cd.Close, uint64(dev))
	})
}

//export gfxcuda_shared_compute_view
func gfxcuda_shared_compute_view(dev, res C.uint64_t, out *C.uint64_t) C.int {
	return call(func() error {
		cd, err := get[*compute.Device](uint64(dev), "device")
		if err != nil {
			return err
		}
		if out == nil {
			return errorf(stInvalid, "gfxcuda_shared_compute_view: null output")
		}
		handles.Lock()
		e, ok := handles.m[uint64(res)]
		handles.Unlock()
		if !ok {
			return errorf(stBadHandle, "gfxcuda: %d is not a live handle", res)
		}
		switch o := e.obj.(type) {
		case *sharedTexture:
			if cd.Vulkan() != o.t.Device().Vulkan() {
				return errorf(stInvalid, "gfxcuda: the shared texture belongs to another device; use its shared device's compute device")
			}
			img, err := o.t.VulkanImage() // an opened texture is imported into Vulkan here
			if err != nil {
				return &statusError{stUnsupported, err}
			}
			t, err := cd.WrapTexture(img)
			if err != nil {
				return err
			}
			return store(out, &texture{Texture: t, slices: max(o.t.Options().Layers, 1), dev: uint64(dev)}, t.Close, uint64(dev), uint64(res))
		case *sharedBuffer:
			if cd.Vulkan() != o.b.Device().Vulkan() {
				return errorf(stInvalid, "gfxcuda: the shared buffer belongs to another device; use its shared device's compute device")
			}
			vb, err := o.b.VulkanBuffer() // an opened buffer is imported into Vulkan here
			if err != nil {
				return &statusError{stUnsupported, err}
			}
			b := cd.WrapBuffer(vb)
			return store(out, &buffer{Buffer: b, dev: uint64(dev)}, b.Close, uint64(dev), uint64(res))
		}
		return errorf(stInvalid, "gfxcuda: a %s has no compute view (shared textures and buffers have)", kindName(e.obj))
	})
}
