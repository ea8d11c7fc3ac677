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
	"errors"
	"unsafe"

	"github.com/gfxcuda/gfxcuda"
	"github.com/gfxcuda/gfxcuda/compute"
)

// copyRegion converts a C region.
func copyRegion(r C.gfxcuda_copy_region_t) compute.CopyRegion {
	return compute.CopyRegion{SrcOffset: uint64(r.src_offset), DstOffset: uint64(r.dst_offset), Size: uint64(r.size),
		SrcX: uint32(r.src_x), SrcY: uint32(r.src_y), SrcZ: uint32(r.src_z), SrcSlice: uint32(r.src_slice),
		DstX: uint32(r.dst_x), DstY: uint32(r.dst_y), DstZ: uint32(r.dst_z), DstSlice: uint32(r.dst_slice),
		Width: uint32(r.width), Height: uint32(r.height), Depth: uint32(r.depth)}
}

// copyStatus maps compute's copy errors to statuses.
func copyStatus(err error) error {
	switch {
	case errors.Is(err, compute.ErrRange):
		return &statusError{stRange, err}
	case errors.Is(err, compute.ErrTexelSize):
		return &statusError{stInvalid, err}
	case errors.Is(err, compute.ErrUnsupported):
		return &statusError{stUnsupported, err}
	}
	return err
}

//export gfxcuda_copy_ex
func gfxcuda_copy_ex(src, dst C.uint64_t, r *C.gfxcuda_copy_region_t) C.int {
	return call(func() error {
		reg, se, de, err := copyArgs(src, dst, r, "gfxcuda_copy_ex")
		if err != nil {
			return err
		}
		var devH uint64
		var s, d compute.Resource
		switch o := se.obj.(type) {
		case *buffer:
			devH, s = o.dev, o.Buffer
			if _, ok := de.obj.(*texture); !ok {
				return errorf(stInvalid, "gfxcuda_copy_ex: copies from a buffer go into a texture (use gfxcuda_copy for buffers)")
			}
		case *texture:
			devH, s = o.dev, o.Texture
		default:
			return errorf(stInvalid, "gfxcuda: cannot copy from a %s", kindName(se.obj))
		}
		switch o := de.obj.(type) {
		case *buffer:
			d = o.Buffer
		case *texture:
			d = o.Texture
		default:
			return errorf(stInvalid, "gfxcuda: cannot copy a texture into a %s", kindName(de.obj))
		}
		dev, err := get[*compute.Device](devH, "device")
		if err != nil {
			return err
		}
		return copyStatus(dev.CopyRegion(d, s, copyRegion(reg)))
	})
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
		a := kk.dispatchArgs()
		if npush > 0 {
			p, err := hostBytes(push, uint64(npush))
			if err != nil {
				return err
			}
			a = append(append([]compute.Arg(nil), a...), compute.Push(append([]byte(nil), p...)))
		}
		return kk.dispatchError(copyStatus(kk.k.DispatchIndirect(b.Buffer, uint64(offset), a...)))
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
		cd := sd.d.NewCompute()
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
			t, err := o.t.ComputeTexture(cd)
			if err != nil {
				return viewStatus(err)
			}
			return store(out, &texture{Texture: t, slices: max(o.t.Options().Layers, 1), dev: uint64(dev)}, t.Close, uint64(dev), uint64(res))
		case *sharedBuffer:
			b, err := o.b.ComputeBuffer(cd)
			if err != nil {
				return viewStatus(err)
			}
			return store(out, &buffer{Buffer: b, dev: uint64(dev)}, b.Close, uint64(dev), uint64(res))
		}
		return errorf(stInvalid, "gfxcuda: a %s has no compute view (shared textures and buffers have)", kindName(e.obj))
	})
}

// viewStatus maps the errors of compute views of shared resources.
func viewStatus(err error) error {
	switch {
	case errors.Is(err, gfxcuda.ErrOtherDevice):
		return &statusError{stInvalid, err}
	case errors.Is(err, gfxcuda.ErrUnsupported):
		return &statusError{stUnsupported, err}
	}
	return err
}
