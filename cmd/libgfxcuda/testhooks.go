package main

// testhooks.go: Go-typed calls of a few exported C entry points, for this
// package's tests and benchmarks (test files cannot use cgo's C types).

/*
#include <stdlib.h>
#include <string.h>
#include "capi.h"
const char *gfxcuda_last_error(void);
int gfxcuda_cli_main(int argc, char **argv);
int gfxcuda_dlpack_exporter_export(void *exporter, const gfxcuda_tensor_t *desc, int versioned, void **managed);
int gfxcuda_dlpack_exporter_drop(void *exporter);

*/
import "C"

import (
	"unsafe"

	"github.com/gfxcuda/gfxcuda/dlpack"
	"github.com/gfxcuda/gfxcuda/format"
)

func cDeviceOpen(index int) (uint64, int) {
	var h C.uint64_t
	st := gfxcuda_device_open(C.int(index), &h)
	return uint64(h), int(st)
}

func cBufferNew(dev, size uint64, stride uint32) (uint64, int) {
	var h C.uint64_t
	st := gfxcuda_buffer_new(C.uint64_t(dev), C.uint64_t(size), 0, C.uint32_t(stride), 0, &h)
	return uint64(h), int(st)
}

// cComputeNew makes a pipeline of SPIR-V with uav bound at u0, u1, ... It
// copies the handles and code into C memory, as a C caller holds them.
func cComputeNew(dev uint64, spirv []byte, uav []uint64) (uint64, int) {
	code := C.CBytes(spirv)
	defer C.free(code)
	var list *C.uint64_t
	if len(uav) > 0 {
		p := C.malloc(C.size_t(8 * len(uav)))
		defer C.free(p)
		copy(unsafe.Slice((*uint64)(p), len(uav)), uav)
		list = (*C.uint64_t)(p)
	}
	var h C.uint64_t
	st := gfxcuda_compute_new(C.uint64_t(dev), code, C.size_t(len(spirv)), nil, 0, nil, 0, list, C.size_t(len(uav)), nil, 0, &h)
	return uint64(h), int(st)
}

func cDispatch(k uint64, x, y, z uint32) int {
	return int(gfxcuda_compute_dispatch(C.uint64_t(k), C.uint32_t(x), C.uint32_t(y), C.uint32_t(z), nil, 0))
}

// cDispatchPush is cDispatch with push constants, from C memory.
func cDispatchPush(k uint64, x, y, z uint32, push []byte) int {
	p := C.CBytes(push)
	defer C.free(p)
	return int(gfxcuda_compute_dispatch(C.uint64_t(k), C.uint32_t(x), C.uint32_t(y), C.uint32_t(z), p, C.size_t(len(push))))
}

func cReadback(buf, off uint64, dst []byte) int {
	p := C.malloc(C.size_t(len(dst)))
	defer C.free(p)
	st := gfxcuda_buffer_readback(C.uint64_t(buf), C.uint64_t(off), p, C.uint64_t(len(dst)))
	copy(dst, unsafe.Slice((*byte)(p), len(dst)))
	return int(st)
}

// goLastError is the calling thread's last error message (tests call
// it right after the failing call; a goroutine may have moved threads in
// between, so it is for messages only).
func goLastError() string { return C.GoString(C.gfxcuda_last_error()) }

func cBufferCreate(dev, size uint64, heap int, stride, f uint32) int64 {
	return int64(gfxcuda_buffer_create(C.uint64_t(dev), C.uint64_t(size), C.int(heap), C.uint32_t(stride), C.uint32_t(f)))
}

func cBufferCreateInt(dev, size, heap, stride, f int) int64 {
	return int64(gfxcuda_buffer_create_int(C.int(dev), C.int(size), C.int(heap), C.int(stride), C.int(f)))
}

func cReleaseInt(h int) int { return int(gfxcuda_release_int(C.int(h))) }

// cCLIMain runs gfxcuda_cli_main with argv {"gfxcuda", args...} in C
// memory; an argument "<NULL>" is passed as a NULL pointer.
func cCLIMain(args []string) int {
	argv := append([]string{"gfxcuda"}, args...)
	p := (**C.char)(C.calloc(C.size_t(len(argv)+1), C.size_t(unsafe.Sizeof(uintptr(0)))))
	defer C.free(unsafe.Pointer(p))
	ptrs := unsafe.Slice(p, len(argv))
	for i, a := range argv {
		if a == "<NULL>" {
			continue
		}
		ptrs[i] = C.CString(a)
		defer C.free(unsafe.Pointer(ptrs[i]))
	}
	return int(C.gfxcuda_cli_main(C.int(len(argv)), p))
}

// cBufferCreateN, cRecycleN and cReleaseN call the batch entry points on
// hs (Go memory: the calls are Go functions, C keeps nothing).
func cBufferCreateN(dev, size uint64, heap int, hs []int64) int64 {
	var p *C.int64_t
	if len(hs) > 0 {
		p = (*C.int64_t)(unsafe.Pointer(&hs[0]))
	}
	return int64(gfxcuda_buffer_create_n(C.uint64_t(dev), C.uint64_t(size), C.int(heap), 0, 0, p, C.int(len(hs))))
}

func cRecycleN(hs []int64) int64 {
	var p *C.int64_t
	if len(hs) > 0 {
		p = (*C.int64_t)(unsafe.Pointer(&hs[0]))
	}
	return int64(gfxcuda_buffer_recycle_n(p, C.int(len(hs))))
}

func cReleaseN(hs []int64) int {
	var p *C.int64_t
	if len(hs) > 0 {
		p = (*C.int64_t)(unsafe.Pointer(&hs[0]))
	}
	return int(gfxcuda_release_n(p, C.int(len(hs))))
}

// cTensor is a gfxcuda_tensor_t of t in C memory (shape and strides
// too); free it with its func.
func cTensor(t dlpack.Tensor) (*C.gfxcuda_tensor_t, func()) {
	nd := len(t.Shape)
	p := C.calloc(1, C.size_t(unsafe.Sizeof(C.gfxcuda_tensor_t{}))+C.size_t(16*max(nd, 1)))
	d := (*C.gfxcuda_tensor_t)(p)
	dims := unsafe.Slice((*int64)(unsafe.Add(p, unsafe.Sizeof(C.gfxcuda_tensor_t{}))), 2*nd)
	*d = C.gfxcuda_tensor_t{data: C.uint64_t(t.Data), byte_offset: C.uint64_t(t.ByteOffset),
		device_type: C.int32_t(t.Device.Type), device_id: C.int32_t(t.Device.ID), code: C.uint8_t(t.DType.Code),
		bits: C.uint8_t(t.DType.Bits), lanes: C.uint16_t(t.DType.Lanes), ndim: C.int32_t(nd), flags: C.uint64_t(t.Flags())}
	if nd > 0 {
		copy(dims, t.Shape)
		d.shape = (*C.int64_t)(unsafe.Pointer(&dims[0]))
		if t.Strides != nil {
			copy(dims[nd:], t.Strides)
			d.strides = (*C.int64_t)(unsafe.Pointer(&dims[nd]))
		}
	}
	return d, func() { C.free(p) }
}

// cDLPackImport imports the managed tensor at p (gfxcuda_dlpack_import):
// a handle over its memory.
func cDLPackImport(p unsafe.Pointer, versioned bool) (uint64, int) {
	var h C.uint64_t
	var d C.gfxcuda_tensor_t
	st := gfxcuda_dlpack_import(p, cBool(versioned), &h, &d) // d's arrays are the handle's
	return uint64(h), int(st)
}

// cDLPackExport exports t over owner's memory as gfxcuda_dlpack_export
// does (package dlpack's Export, in Go).
func cDLPackExport(owner uint64, t dlpack.Tensor, versioned bool) (unsafe.Pointer, int) {
	d, free := cTensor(t)
	defer free()
	var out unsafe.Pointer
	st := gfxcuda_dlpack_export(C.uint64_t(owner), d, cBool(versioned), &out)
	return out, int(st)
}

// cExporterNew, cExporterExport and cExporterDrop call the C exporter's
// entry points (capi.c: exports built without entering Go).
func cExporterNew(owner uint64) (unsafe.Pointer, int) {
	var e unsafe.Pointer
	st := gfxcuda_dlpack_exporter_new(C.uint64_t(owner), &e)
	return e, int(st)
}

func cExporterExport(e unsafe.Pointer, t dlpack.Tensor, versioned bool) (unsafe.Pointer, int) {
	d, free := cTensor(t)
	defer free()
	var out unsafe.Pointer
	st := C.gfxcuda_dlpack_exporter_export(e, d, cBool(versioned), &out)
	return out, int(st)
}

func cExporterDrop(e unsafe.Pointer) int { return int(C.gfxcuda_dlpack_exporter_drop(e)) }

// cCallDeleter calls the deleter of the managed tensor at p.
func cCallDeleter(p unsafe.Pointer, versioned bool) { C.gfx_dlpack_call_deleter(p, cBool(versioned)) }

// cDLPackLive is gfxcuda_dlpack_live's count.
func cDLPackLive() uint64 {
	var n C.uint64_t
	gfxcuda_dlpack_live(&n)
	return uint64(n)
}

func cBool(b bool) C.int {
	if b {
		return 1
	}
	return 0
}

// tensorInfo is gfxcuda_tensor_info_t in Go's types.
type tensorInfo struct {
	Elements, ItemSize, NBytes uint64
	Lo, Hi                     int64
	Contiguous, Dense          bool
	Strides                    []int64
}

// cTensorInfo calls gfxcuda_tensor_info on t's description in C memory.
func cTensorInfo(t dlpack.Tensor) (tensorInfo, int) {
	d, free := cTensor(t)
	defer free()
	var out C.gfxcuda_tensor_info_t
	st := int(gfxcuda_tensor_info(d, &out))
	if st != stOK {
		return tensorInfo{}, st
	}
	s := make([]int64, int(out.ndim))
	for i := range s {
		s[i] = int64(out.strides[i])
	}
	return tensorInfo{uint64(out.elements), uint64(out.itemsize), uint64(out.nbytes), int64(out.lo), int64(out.hi),
		out.contiguous != 0, out.dense != 0, s}, st
}

// cViewFormats calls viewFormats on a C copy of vals (n of them; a null
// array when null), as gfxcuda_shared_texture_new_views reads its view
// formats.
func cViewFormats(vals []uint32, n int, null bool) ([]format.Format, error) {
	var p *C.uint32_t
	if !null && len(vals) > 0 {
		m := C.malloc(C.size_t(4 * len(vals)))
		defer C.free(m)
		copy(unsafe.Slice((*uint32)(m), len(vals)), vals)
		p = (*C.uint32_t)(m)
	}
	return viewFormats("test", p, C.uint32_t(n))
}
