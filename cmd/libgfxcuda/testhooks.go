package main

// testhooks.go: Go-typed calls of a few exported C entry points, for this
// package's tests and benchmarks (test files cannot use cgo's C types).

/*
#include <stdlib.h>
#include <string.h>
#include "capi.h"
const char *gfxcuda_last_error(void);
int gfxcuda_cli_main(int argc, char **argv);

*/
import "C"

import "unsafe"

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
