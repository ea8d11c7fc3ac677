package main

/*
#include <stdlib.h>
#include "capi.h"
*/
import "C"

import (
	"fmt"
	"sync"
	"unsafe"

	"github.com/gfxcuda/gfxcuda/cuda"
	"github.com/gfxcuda/gfxcuda/dlpack"
	"github.com/gfxcuda/gfxcuda/format"
	"github.com/gfxcuda/gfxcuda/interop"
)

// contexts holds the primary context of each CUDA device used, retained
// for the life of the process (the context PyTorch, CuPy and Numba use).
var contexts = struct {
	sync.Mutex
	m map[int]*cuda.Context
}{m: map[int]*cuda.Context{}}

func contextFor(ordinal int) (*cuda.Context, error) {
	contexts.Lock()
	defer contexts.Unlock()
	if c, ok := contexts.m[ordinal]; ok {
		return c, nil
	}
	if err := cuda.Init(); err != nil {
		return nil, &statusError{stNoCUDA, err}
	}
	d, err := cuda.GetDevice(ordinal)
	if err != nil {
		return nil, &statusError{stNoDevice, err}
	}
	c, err := d.PrimaryContext()
	if err != nil {
		return nil, err
	}
	contexts.m[ordinal] = c
	return c, nil
}

type cudaMem struct {
	m       *cuda.DeviceMemory
	ordinal int
}

// wrappedMem is CUDA memory gfxcuda does not own (CudaBuffer.from_cuda):
// its owner keeps it alive.
type wrappedMem struct {
	ptr, size uint64
	ordinal   int
}

type sharedDevice struct {
	d       *interop.Device
	ordinal int
}

type sharedBuffer struct {
	b       *interop.Buffer
	ordinal int
}

type sharedTexture struct {
	t       *interop.Texture
	sd      *sharedDevice
	ordinal int
}

type imported struct {
	m     *dlpack.Managed
	shape unsafe.Pointer // C copies of shape and strides handed out
}

//export gfxcuda_cuda_device_count
func gfxcuda_cuda_device_count(n *C.int) C.int {
	return call(func() error {
		if n == nil {
			return errorf(stInvalid, "gfxcuda_cuda_device_count: null output")
		}
		*n = 0
		if err := cuda.Init(); err != nil {
			return &statusError{stNoCUDA, err}
		}
		c, err := cuda.DeviceCount()
		if err != nil {
			return err
		}
		*n = C.int(c)
		return nil
	})
}

//export gfxcuda_cuda_alloc
func gfxcuda_cuda_alloc(device C.int, size C.uint64_t, out *C.uint64_t) C.int {
	return call(func() error {
		if out == nil {
			return errorf(stInvalid, "gfxcuda_cuda_alloc: null output")
		}
		if size == 0 {
			return errorf(stInvalid, "gfxcuda: a CUDA allocation of 0 bytes")
		}
		c, err := contextFor(int(device))
		if err != nil {
			return err
		}
		m, err := c.Alloc(uint64(size))
		if err != nil {
			return err
		}
		return store(out, &cudaMem{m, int(device)}, m.Close)
	})
}

//export gfxcuda_cuda_wrap
func gfxcuda_cuda_wrap(device C.int, ptr, size C.uint64_t, out *C.uint64_t) C.int {
	return call(func() error {
		if out == nil || ptr == 0 {
			return errorf(stInvalid, "gfxcuda_cuda_wrap: null pointer")
		}
		if device < 0 {
			return errorf(stInvalid, "gfxcuda_cuda_wrap: device %d", device)
		}
		return store(out, &wrappedMem{uint64(ptr), uint64(size), int(device)}, nil)
	})
}

// Copy directions of gfxcuda_cuda_memcpy.
const (
	copyHtoD = 0
	copyDtoH = 1
	copyDtoD = 2
)

//export gfxcuda_cuda_memcpy
func gfxcuda_cuda_memcpy(device C.int, dst, src C.uint64_t, n C.uint64_t, kind C.int) C.int {
	return call(func() error {
		c, err := contextFor(int(device))
		if err != nil {
			return err
		}
		if n == 0 {
			return nil
		}
		if dst == 0 || src == 0 {
			return errorf(stInvalid, "gfxcuda_cuda_memcpy: null pointer")
		}
		switch kind {
		case copyHtoD:
			return c.CopyHtoD(cuda.DevicePtr(dst), unsafe.Slice((*byte)(cptr(uintptr(src))), n))
		case copyDtoH:
			return c.CopyDtoH(unsafe.Slice((*byte)(cptr(uintptr(dst))), n), cuda.DevicePtr(src))
		case copyDtoD:
			return c.CopyDtoD(cuda.DevicePtr(dst), cuda.DevicePtr(src), uint64(n))
		}
		return errorf(stInvalid, "gfxcuda_cuda_memcpy: direction %d (0: host to device, 1: device to host, 2: device to device)", kind)
	})
}

//export gfxcuda_shared_open
func gfxcuda_shared_open(device C.int, out *C.uint64_t) C.int {
	return call(func() error {
		if out == nil {
			return errorf(stInvalid, "gfxcuda_shared_open: null output")
		}
		if err := cuda.Init(); err != nil {
			return &statusError{stNoCUDA, err}
		}
		cd, err := cuda.GetDevice(int(device))
		if err != nil {
			return &statusError{stNoDevice, err}
		}
		u, err := cd.UUID()
		if err != nil {
			return err
		}
		d, err := interop.Open(interop.Options{UUID: &u})
		if err != nil {
			return &statusError{stNoDevice, err}
		}
		return store(out, &sharedDevice{d, int(device)}, d.Close)
	})
}

//export gfxcuda_shared_buffer_new
func gfxcuda_shared_buffer_new(dev C.uint64_t, size C.uint64_t, out *C.uint64_t) C.int {
	return call(func() error {
		sd, err := get[*sharedDevice](uint64(dev), "shared device")
		if err != nil {
			return err
		}
		if out == nil {
			return errorf(stInvalid, "gfxcuda_shared_buffer_new: null output")
		}
		if size == 0 {
			return errorf(stInvalid, "gfxcuda: a shared buffer of 0 bytes")
		}
		b, err := sd.d.NewBuffer(uint64(size))
		if err != nil {
			return err
		}
		return store(out, &sharedBuffer{b, sd.ordinal}, b.Close, uint64(dev))
	})
}

//export gfxcuda_shared_texture_new
func gfxcuda_shared_texture_new(dev C.uint64_t, f C.uint32_t, w, h, layers C.uint32_t, out *C.uint64_t) C.int {
	return call(func() error {
		sd, err := get[*sharedDevice](uint64(dev), "shared device")
		if err != nil {
			return err
		}
		if out == nil {
			return errorf(stInvalid, "gfxcuda_shared_texture_new: null output")
		}
		if _, ok := format.Lookup(format.Format(f)); !ok {
			return errorf(stInvalid, "gfxcuda: unknown texture format %d", f)
		}
		t, err := sd.d.NewTexture(interop.TextureOptions{Format: format.Format(f), Width: uint32(w), Height: uint32(h), Layers: max(uint32(layers), 1)})
		if err != nil {
			return &statusError{stUnsupported, err}
		}
		return store(out, &sharedTexture{t, sd, sd.ordinal}, t.Close, uint64(dev))
	})
}

// syncCaller makes a copy ordered after the caller's earlier CUDA work and
// complete before its later work: it waits for the context's pending work
// (the legacy default stream and every other stream of the context), and
// the copy itself is synchronous.
//
// MERGE NOTE: with cuda.WrapStream(ctx, handle) (branch cudax) a copy given
// stream= runs asynchronously on that stream instead: Map(WrapStream(...),
// CopyTo) without the two host waits.
func syncCaller(t *sharedTexture, stream uint64) error {
	_ = stream
	return t.sd.d.CUDA().Synchronize()
}

//export gfxcuda_shared_texture_copy
func gfxcuda_shared_texture_copy(tex C.uint64_t, ptr C.uint64_t, pitch C.uint64_t, toCUDA C.int, stream C.uint64_t) C.int {
	return call(func() error {
		t, err := get[*sharedTexture](uint64(tex), "shared texture")
		if err != nil {
			return err
		}
		if ptr == 0 {
			return errorf(stInvalid, "gfxcuda: copy to or from a null device pointer")
		}
		if err := syncCaller(t, uint64(stream)); err != nil {
			return err
		}
		if toCUDA != 0 {
			return t.t.CopyToSync(nil, cuda.DevicePtr(ptr), uint64(pitch))
		}
		return t.t.CopyFromSync(nil, cuda.DevicePtr(ptr), uint64(pitch))
	})
}

//export gfxcuda_shared_texture_from_cuda
func gfxcuda_shared_texture_from_cuda(dev C.uint64_t, ptr, pitch C.uint64_t, w, h, channels C.uint32_t, code, bits C.int, out *C.uint64_t) C.int {
	return call(func() error {
		sd, err := get[*sharedDevice](uint64(dev), "shared device")
		if err != nil {
			return err
		}
		if out == nil || ptr == 0 {
			return errorf(stInvalid, "gfxcuda_shared_texture_from_cuda: null pointer")
		}
		if err := sd.d.CUDA().Synchronize(); err != nil {
			return err
		}
		t, err := sd.d.NewTextureFromCUDA(nil, cuda.DevicePtr(ptr), uint64(pitch), uint32(w), uint32(h), uint32(channels),
			format.DType{Code: uint8(code), Bits: uint8(bits), Lanes: 1})
		if err != nil {
			return &statusError{stUnsupported, err}
		}
		return store(out, &sharedTexture{t, sd, sd.ordinal}, t.Close, uint64(dev))
	})
}

// MERGE NOTE (branch share): gfxcuda_shared_texture_ipc_handle and
// gfxcuda_shared_texture_open_ipc are the only two functions to fill in
// with the share package's cross-process tokens.

//export gfxcuda_shared_texture_ipc_handle
func gfxcuda_shared_texture_ipc_handle(tex C.uint64_t, out *unsafe.Pointer, n *C.size_t) C.int {
	return call(func() error {
		if _, err := get[*sharedTexture](uint64(tex), "shared texture"); err != nil {
			return err
		}
		return errorf(stNotImplemented, "gfxcuda: cross-process texture handles are not in this build yet (they come with the share package)")
	})
}

//export gfxcuda_shared_texture_open_ipc
func gfxcuda_shared_texture_open_ipc(dev C.uint64_t, handle unsafe.Pointer, n C.size_t, out *C.uint64_t) C.int {
	return call(func() error {
		if _, err := get[*sharedDevice](uint64(dev), "shared device"); err != nil {
			return err
		}
		return errorf(stNotImplemented, "gfxcuda: cross-process texture handles are not in this build yet (they come with the share package)")
	})
}

// cudaInfo fills the resource info of CUDA-side objects.
func cudaInfo(o any, out *C.gfxcuda_resource_info_t) error {
	switch o := o.(type) {
	case *cudaMem:
		out.kind, out.size, out.device_ptr, out.cuda_device = kindCUDAMemory, C.uint64_t(o.m.Size()), C.uint64_t(o.m.Ptr()), C.int32_t(o.ordinal)
	case *sharedDevice:
		out.kind, out.cuda_device = kindSharedDevice, C.int32_t(o.ordinal)
	case *sharedBuffer:
		out.kind, out.size, out.device_ptr, out.cuda_device = kindSharedBuffer, C.uint64_t(o.b.Size()), C.uint64_t(o.b.Ptr()), C.int32_t(o.ordinal)
	case *sharedTexture:
		tO := o.t.Options()
		out.kind, out.cuda_device = kindSharedTexture, C.int32_t(o.ordinal)
		out.format, out.width, out.height, out.depth, out.slices = C.uint32_t(tO.Format), C.uint32_t(tO.Width), C.uint32_t(tO.Height), 1, C.uint32_t(max(tO.Layers, 1))
		out.row_pitch, out.bytes_per_texel = C.uint64_t(o.t.RowBytes()), C.uint32_t(o.t.Format().BytesPerTexel)
		out.size = out.row_pitch * C.uint64_t(tO.Height) * C.uint64_t(out.slices)
	case *wrappedMem:
		out.kind, out.size, out.device_ptr, out.cuda_device = kindCUDAMemory, C.uint64_t(o.size), C.uint64_t(o.ptr), C.int32_t(o.ordinal)
	case *imported:
		out.kind = kindImported
	default:
		return errorf(stInvalid, "gfxcuda: no resource info for a %T", o)
	}
	return nil
}

// memoryOf returns the device memory range of a handle DLPack can export.
func memoryOf(h uint64) (ptr, size uint64, ordinal int, err error) {
	handles.Lock()
	e, ok := handles.m[h]
	handles.Unlock()
	if !ok {
		return 0, 0, 0, errorf(stBadHandle, "gfxcuda: %d is not a live handle", h)
	}
	switch o := e.obj.(type) {
	case *cudaMem:
		return uint64(o.m.Ptr()), o.m.Size(), o.ordinal, nil
	case *sharedBuffer:
		return uint64(o.b.Ptr()), o.b.Size(), o.ordinal, nil
	case *wrappedMem:
		return o.ptr, o.size, o.ordinal, nil
	}
	return 0, 0, 0, errorf(stUnsupported, "gfxcuda: a %T has no linear CUDA memory to export", e.obj)
}

// tensorOf converts the C description.
func tensorOf(t *C.gfxcuda_tensor_t) (dlpack.Tensor, error) {
	if t == nil {
		return dlpack.Tensor{}, errorf(stInvalid, "null tensor description")
	}
	nd := int(t.ndim)
	if nd < 0 || nd > 32 || (nd > 0 && t.shape == nil) {
		return dlpack.Tensor{}, errorf(stInvalid, "gfxcuda: tensor of %d dimensions", nd)
	}
	out := dlpack.Tensor{Data: uintptr(t.data), ByteOffset: uint64(t.byte_offset),
		Device:   dlpack.Device{Type: dlpack.DeviceType(t.device_type), ID: int32(t.device_id)},
		DType:    format.DType{Code: uint8(t.code), Bits: uint8(t.bits), Lanes: uint16(max(t.lanes, 1))},
		ReadOnly: uint64(t.flags)&dlpack.FlagReadOnly != 0, IsCopied: uint64(t.flags)&dlpack.FlagIsCopied != 0}
	if nd > 0 {
		out.Shape = append([]int64{}, unsafe.Slice((*int64)(unsafe.Pointer(t.shape)), nd)...)
		if t.strides != nil {
			out.Strides = append([]int64{}, unsafe.Slice((*int64)(unsafe.Pointer(t.strides)), nd)...)
		}
	}
	return out, out.Validate()
}

// extent returns the bytes [lo, hi) a tensor's elements span from Data.
func extent(t dlpack.Tensor) (lo, hi int64) {
	if t.Elements() == 0 {
		return int64(t.ByteOffset), int64(t.ByteOffset)
	}
	strides := t.Strides
	lo, hi = 0, 0
	acc := int64(1)
	for i := len(t.Shape) - 1; i >= 0; i-- {
		s := acc
		if strides != nil {
			s = strides[i]
		}
		span := (t.Shape[i] - 1) * s
		if span < 0 {
			lo += span
		} else {
			hi += span
		}
		acc *= t.Shape[i]
	}
	is := int64(t.ItemSize())
	return int64(t.ByteOffset) + lo*is, int64(t.ByteOffset) + hi*is + is
}

//export gfxcuda_dlpack_export
func gfxcuda_dlpack_export(owner C.uint64_t, desc *C.gfxcuda_tensor_t, versioned C.int, out *unsafe.Pointer) C.int {
	return call(func() error {
		if out == nil {
			return errorf(stInvalid, "gfxcuda_dlpack_export: null output")
		}
		t, err := tensorOf(desc)
		if err != nil {
			return &statusError{stInvalid, err}
		}
		ptr, size, ordinal, err := memoryOf(uint64(owner))
		if err != nil {
			return err
		}
		lo, hi := extent(t)
		if uint64(t.Data) < ptr || lo < 0 || uint64(t.Data)-ptr+uint64(hi) > size {
			return errorf(stRange, "gfxcuda: the tensor spans bytes [%d, %d) from %#x, outside the %d bytes at %#x it is made from", lo, hi, t.Data, size, ptr)
		}
		if t.Device.Type != dlpack.CUDA || int(t.Device.ID) != ordinal {
			return errorf(stInvalid, "gfxcuda: the memory is on CUDA device %d, the tensor says %s:%d", ordinal, t.Device.Type, t.Device.ID)
		}
		if err := retain(uint64(owner)); err != nil {
			return err
		}
		p, err := dlpack.Export(t, versioned != 0, func() { release(uint64(owner)) })
		if err != nil {
			release(uint64(owner))
			return &statusError{stInvalid, err}
		}
		*out = p
		return nil
	})
}

//export gfxcuda_dlpack_import
func gfxcuda_dlpack_import(managed unsafe.Pointer, versioned C.int, out *C.uint64_t, desc *C.gfxcuda_tensor_t) C.int {
	return call(func() error {
		if out == nil || desc == nil {
			return errorf(stInvalid, "gfxcuda_dlpack_import: null output")
		}
		m, err := dlpack.Import(managed, versioned != 0)
		if err != nil {
			return &statusError{stInvalid, err}
		}
		t := m.Tensor()
		nd := len(t.Shape)
		dims := C.calloc(C.size_t(max(2*nd, 1)), 8)
		if dims == nil {
			m.Close()
			return errorf(stFailed, "out of host memory")
		}
		ds := unsafe.Slice((*int64)(dims), 2*nd)
		copy(ds, t.Shape)
		*desc = C.gfxcuda_tensor_t{data: C.uint64_t(t.Data), byte_offset: C.uint64_t(t.ByteOffset),
			device_type: C.int32_t(t.Device.Type), device_id: C.int32_t(t.Device.ID),
			code: C.uint8_t(t.DType.Code), bits: C.uint8_t(t.DType.Bits), lanes: C.uint16_t(t.DType.Lanes), ndim: C.int32_t(nd)}
		if nd > 0 {
			desc.shape = (*C.int64_t)(dims)
			if t.Strides != nil {
				copy(ds[nd:], t.Strides)
				desc.strides = (*C.int64_t)(unsafe.Add(dims, nd*8))
			}
		}
		if t.ReadOnly {
			desc.flags |= C.uint64_t(dlpack.FlagReadOnly)
		}
		im := &imported{m: m, shape: dims}
		return store(out, im, func() error {
			err := m.Close()
			C.free(dims)
			return err
		})
	})
}

//export gfxcuda_dlpack_live
func gfxcuda_dlpack_live(n *C.uint64_t) C.int {
	return call(func() error {
		if n == nil {
			return errorf(stInvalid, "null output")
		}
		*n = C.uint64_t(dlpack.Live())
		return nil
	})
}

// cptr turns an address the caller passed as an integer into a pointer.
func cptr(p uintptr) unsafe.Pointer { return unsafe.Add(unsafe.Pointer(nil), p) }

var _ = fmt.Sprint
