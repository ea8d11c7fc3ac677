package main

// placed.go: compushady's heaps (memory that buffers and textures are
// placed in, aliasing each other), sparse resources and their tiles, and
// bindless pipelines (compute.Memory, compute.Placement,
// compute.KernelOptions.Bindless).

/*
#include <stdint.h>
*/
import "C"

import (
	"errors"
	"fmt"
	"unsafe"

	"github.com/gfxcuda/gfxcuda/compute"
	"github.com/gfxcuda/gfxcuda/format"
	"github.com/gfxcuda/gfxcuda/shader"
	"github.com/gfxcuda/gfxcuda/vulkan"
)

// heap is a compute.Memory with the device handle it was made on.
type heap struct {
	*compute.Memory
	dev uint64
}

//export gfxcuda_heap_new
func gfxcuda_heap_new(dev C.uint64_t, heapType C.int, size C.uint64_t, out *C.uint64_t) C.int {
	return call(func() error {
		d, err := get[*compute.Device](uint64(dev), "device")
		if err != nil {
			return err
		}
		if out == nil {
			return errorf(stInvalid, "gfxcuda_heap_new: null output")
		}
		if heapType < 0 || heapType > 2 {
			return errorf(stInvalid, "gfxcuda: unknown heap type %d; use HEAP_DEFAULT (0), HEAP_UPLOAD (1) or HEAP_READBACK (2)", heapType)
		}
		if size == 0 {
			return errorf(stInvalid, "gfxcuda: a heap of 0 bytes; give a size of at least 1 byte")
		}
		m, err := d.NewMemory(uint64(size), compute.Heap(heapType))
		if err != nil {
			return err
		}
		return store(out, &heap{m, uint64(dev)}, m.Close, uint64(dev))
	})
}

// placement resolves a heap handle (0: none) and offset, or sparse.
func placement(dev, heapH C.uint64_t, offset C.uint64_t, sparse C.int) (compute.Placement, []uint64, error) {
	p := compute.Placement{Offset: uint64(offset), Sparse: sparse != 0}
	if heapH == 0 {
		return p, nil, nil
	}
	if p.Sparse {
		return p, nil, errorf(stInvalid, "gfxcuda: a sparse resource is not placed in a heap: leave heap unset and bind its tiles with bind_tile")
	}
	hp, err := get[*heap](uint64(heapH), "heap")
	if err != nil {
		return p, nil, err
	}
	if hp.dev != uint64(dev) {
		return p, nil, errorf(stInvalid, "gfxcuda: the heap belongs to another device; make it on the resource's device")
	}
	p.Memory = hp.Memory
	return p, []uint64{uint64(heapH)}, nil
}

// placementError gives a placement or sparse error its status: invalid
// (compushady's BufferException, Texture*Exception) for a placement the
// heap refuses, unsupported for a missing device feature.
func placementError(err error) error {
	switch {
	case errors.Is(err, vulkan.ErrPlacement):
		return &statusError{stInvalid, fmt.Errorf("gfxcuda: %w", err)}
	case errors.Is(err, vulkan.ErrUnsupported):
		return &statusError{stUnsupported, fmt.Errorf("gfxcuda: %w", err)}
	}
	return err
}

//export gfxcuda_buffer_new_placed
func gfxcuda_buffer_new_placed(dev C.uint64_t, size C.uint64_t, heapType C.int, stride C.uint32_t, f C.uint32_t,
	heapH C.uint64_t, offset C.uint64_t, sparse C.int, out *C.uint64_t) C.int {
	return call(func() error {
		return newBuffer("gfxcuda_buffer_new_placed", dev, size, heapType, stride, f, heapH, offset, sparse, out)
	})
}

// newBuffer makes a buffer (gfxcuda_buffer_new, gfxcuda_buffer_new_placed):
// of its own memory when heapH is 0 and sparse is 0, else placed in the
// heap or sparse. stride makes it structured, else f typed.
func newBuffer(fn string, dev, size C.uint64_t, heapType C.int, stride, f C.uint32_t,
	heapH, offset C.uint64_t, sparse C.int, out *C.uint64_t) error {
	d, err := get[*compute.Device](uint64(dev), "device")
	if err != nil {
		return err
	}
	if out == nil {
		return errorf(stInvalid, "%s: null output", fn)
	}
	if size == 0 {
		return errorf(stInvalid, "gfxcuda: a buffer of 0 bytes; give a size of at least 1 byte")
	}
	if heapType < 0 || heapType > 2 {
		return errorf(stInvalid, "gfxcuda: heap %d; use GFXCUDA_HEAP_DEFAULT (0), UPLOAD (1) or READBACK (2)", heapType)
	}
	if f != 0 {
		if _, ok := format.Lookup(format.Format(f)); !ok {
			return errorf(stInvalid, "gfxcuda: unknown format %d", f)
		}
	}
	p, deps, err := placement(dev, heapH, offset, sparse)
	if err != nil {
		return err
	}
	if stride != 0 {
		f = 0 // a structured buffer; the format is not used
	}
	b, err := d.PlacedBuffer(uint64(size), compute.Heap(heapType), uint32(stride), format.Format(f), p)
	if err != nil {
		return placementError(err)
	}
	return store(out, &buffer{b, uint64(dev)}, b.Close, append(deps, uint64(dev))...)
}

//export gfxcuda_texture_new_placed
func gfxcuda_texture_new_placed(dev C.uint64_t, dim C.int, w, h, depth, slices C.uint32_t, f C.uint32_t,
	heapH C.uint64_t, offset C.uint64_t, sparse C.int, out *C.uint64_t) C.int {
	return call(func() error {
		return newTexture("gfxcuda_texture_new_placed", dev, dim, w, h, depth, slices, f, heapH, offset, sparse, out)
	})
}

// newTexture makes a 1D, 2D or 3D texture (gfxcuda_texture_new,
// gfxcuda_texture_new_placed): of its own memory when heapH is 0 and
// sparse is 0, else placed in a HEAP_DEFAULT heap or sparse. A placement
// the heap refuses is GFXCUDA_ERR_INVALID; what the device cannot make,
// GFXCUDA_ERR_UNSUPPORTED.
func newTexture(fn string, dev C.uint64_t, dim C.int, w, h, depth, slices, f C.uint32_t,
	heapH, offset C.uint64_t, sparse C.int, out *C.uint64_t) error {
	d, err := get[*compute.Device](uint64(dev), "device")
	if err != nil {
		return err
	}
	if out == nil {
		return errorf(stInvalid, "%s: null output", fn)
	}
	if _, ok := format.Lookup(format.Format(f)); !ok {
		return errorf(stInvalid, "gfxcuda: unknown texture format %d (see gfxcuda.formats)", f)
	}
	if w == 0 || h == 0 || depth == 0 || slices == 0 {
		return errorf(stInvalid, "gfxcuda: a texture of %dx%dx%d texels and %d slices; every extent must be at least 1", w, h, depth, slices)
	}
	var vd vulkan.ImageDim
	switch dim {
	case 1:
		vd = vulkan.Image1D
	case 2:
		vd = vulkan.Image2D
	case 3:
		vd = vulkan.Image3D
	default:
		return errorf(stInvalid, "gfxcuda: texture dimension %d (1, 2 or 3)", dim)
	}
	if dim == 3 && slices != 1 {
		return errorf(stInvalid, "gfxcuda: 3D textures have no slices")
	}
	p, deps, err := placement(dev, heapH, offset, sparse)
	if err != nil {
		return err
	}
	t, err := d.PlacedTexture(vd, uint32(w), uint32(h), uint32(depth), uint32(slices), format.Format(f), p)
	if err != nil {
		st := stUnsupported
		if errors.Is(err, vulkan.ErrPlacement) {
			st = stInvalid
		}
		return &statusError{st, err}
	}
	return store(out, &texture{Texture: t, slices: uint32(slices), dev: uint64(dev)}, t.Close, append(deps, uint64(dev))...)
}

// sparseOf returns the sparse layout of a buffer or texture handle.
func sparseOf(h uint64) (vulkan.SparseLayout, compute.Resource, error) {
	r, err := resourceOf(h)
	if err != nil {
		return vulkan.SparseLayout{}, nil, err
	}
	var l vulkan.SparseLayout
	var ok bool
	switch x := r.(type) {
	case *compute.Buffer:
		l, ok = x.Sparse()
	case *compute.Texture:
		l, ok = x.Sparse()
	}
	if !ok {
		return l, r, errorf(stInvalid, "gfxcuda: not a sparse resource: make it with sparse=True to bind its tiles")
	}
	return l, r, nil
}

//export gfxcuda_resource_tiles
func gfxcuda_resource_tiles(res C.uint64_t, out *C.uint64_t) C.int {
	return call(func() error {
		if out == nil {
			return errorf(stInvalid, "gfxcuda_resource_tiles: null output")
		}
		o := unsafe.Slice((*uint64)(unsafe.Pointer(out)), 7)
		l, _, err := sparseOf(uint64(res))
		if err != nil {
			clear(o)
			if _, e := resourceOf(uint64(res)); e == nil {
				return nil // not sparse: all zero, as compushady reports
			}
			return err
		}
		o[0], o[1], o[2] = uint64(l.Block[0]), uint64(l.Block[1]), uint64(l.Block[2])
		o[3], o[4], o[5] = uint64(l.Blocks[0]), uint64(l.Blocks[1]), uint64(l.Blocks[2])
		o[6] = l.Size
		return nil
	})
}

//export gfxcuda_bind_tile
func gfxcuda_bind_tile(res C.uint64_t, x, y, z C.uint32_t, heapH C.uint64_t, offset C.uint64_t, slice C.uint32_t) C.int {
	return call(func() error {
		_, r, err := sparseOf(uint64(res))
		if err != nil {
			return err
		}
		var m *compute.Memory
		if heapH != 0 {
			hp, err := get[*heap](uint64(heapH), "heap")
			if err != nil {
				return err
			}
			m = hp.Memory
		}
		switch t := r.(type) {
		case *compute.Buffer:
			err = t.BindBlock(uint32(x), m, uint64(offset))
		case *compute.Texture:
			err = t.BindBlock(uint32(x), uint32(y), uint32(z), uint32(slice), m, uint64(offset))
		}
		if err != nil {
			return placementError(err)
		}
		return nil
	})
}

//export gfxcuda_compute_new_bindless
func gfxcuda_compute_new_bindless(dev C.uint64_t, spirv unsafe.Pointer, n C.size_t,
	cbv *C.uint64_t, ncbv C.size_t, srv *C.uint64_t, nsrv C.size_t,
	uav *C.uint64_t, nuav C.size_t, samplers *C.uint64_t, nsamplers C.size_t, bindless C.uint32_t, out *C.uint64_t) C.int {
	return call(func() error {
		d, err := get[*compute.Device](uint64(dev), "device")
		if err != nil {
			return err
		}
		if out == nil {
			return errorf(stInvalid, "gfxcuda_compute_new_bindless: null output")
		}
		if bindless == 0 {
			return errorf(stInvalid, "gfxcuda: a bindless pipeline of 0 descriptors; give max_bindless of at least 1")
		}
		if !d.BindlessSupported() {
			return errorf(stUnsupported, "gfxcuda: bindless compute pipelines need descriptor indexing (the runtimeDescriptorArray and descriptorBindingPartiallyBound features), which %s lacks", d)
		}
		code, err := hostBytes(spirv, uint64(n))
		if err != nil {
			return err
		}
		m, err := shader.Compile(append([]byte(nil), code...), shader.Options{Language: shader.SPIRV})
		if err != nil {
			return err
		}
		k, err := d.KernelWith(m, compute.KernelOptions{Bindless: uint32(bindless)})
		if err != nil {
			return placementError(err)
		}
		var hs [4][]uint64
		for i, l := range [4]handleList{{cbv, ncbv}, {srv, nsrv}, {uav, nuav}, {samplers, nsamplers}} {
			if hs[i], err = l.handles("gfxcuda_compute_new_bindless"); err != nil {
				k.Close()
				return err
			}
		}
		l, deps, err := listResources(hs)
		if err != nil {
			k.Close()
			return err
		}
		bl, err := k.NewBindless(uint32(bindless), l)
		if err != nil {
			k.Close()
			return &statusError{stInvalid, err}
		}
		return store(out, &kernel{k: k, dev: uint64(dev), bl: bl}, k.Close, append(deps, uint64(dev))...)
	})
}

//export gfxcuda_compute_bind
func gfxcuda_compute_bind(k C.uint64_t, class C.int, index C.uint32_t, res C.uint64_t) C.int {
	return call(func() error {
		kk, err := get[*kernel](uint64(k), "compute pipeline")
		if err != nil {
			return err
		}
		if kk.bl == nil {
			return errorf(stInvalid, "gfxcuda: the compute pipeline is not bindless: make it with bindless=True to bind after creation")
		}
		if class < 0 || class > 3 {
			return errorf(stInvalid, "gfxcuda: class %d (0 cbv, 1 srv, 2 uav, 3 samplers)", class)
		}
		r, err := listResource(int(class), uint64(res))
		if err != nil {
			return errorf(statusOf(err), "gfxcuda: %s[%d]: %v", classNames[class], index, err)
		}
		if err := kk.bl.Bind(int(class), uint32(index), r); err != nil {
			return &statusError{stInvalid, err}
		}
		return nil
	})
}
