package main

// The Go half of DLPack 1.3's C exchange API (exchange.c): the allocator's
// memory. The rest of the exchange runs in C.

/*
#cgo linux LDFLAGS: -ldl
#include <stdlib.h>
#include "capi.h"
*/
import "C"

import (
	"unsafe"

	"github.com/gfxcuda/gfxcuda/dlpack"
)

// gfxDLPackAlloc makes a new C-contiguous managed tensor
// (DLManagedTensorVersioned) of desc's dtype, shape and device: CUDA device
// memory (cuda.Context.Alloc) or host memory (kDLCPU, C memory). Its
// deleter frees the memory. A status; the message in gfxcuda_last_error.
//
//export gfxDLPackAlloc
func gfxDLPackAlloc(desc *C.gfxcuda_tensor_t, out *unsafe.Pointer) C.int {
	return call(func() error {
		if desc == nil || out == nil {
			return errorf(stInvalid, "gfxDLPackAlloc: null description or output")
		}
		// The data pointer is what we allocate: a placeholder for the checks.
		desc.data, desc.strides, desc.byte_offset, desc.flags = 1, nil, 0, 0
		t, err := tensorOf(desc)
		if err != nil {
			return &statusError{stInvalid, err}
		}
		if t.DType.Lanes > 1 {
			return errorf(stInvalid, "gfxcuda: the DLPack allocator makes tensors of one lane, not %d", t.DType.Lanes)
		}
		n := uint64(t.Elements()) * uint64(t.ItemSize())
		var free func()
		switch t.Device.Type {
		case dlpack.CUDA:
			c, err := contextFor(int(t.Device.ID))
			if err != nil {
				return err
			}
			m, err := c.Alloc(max(n, 1))
			if err != nil {
				return err
			}
			t.Data, free = uintptr(m.Ptr()), func() { _ = m.Close() }
		case dlpack.CPU:
			if t.Device.ID != 0 {
				return errorf(stInvalid, "gfxcuda: host memory is DLPack device (kDLCPU, 0), not (kDLCPU, %d)", t.Device.ID)
			}
			p := C.malloc(C.size_t(max(n, 1)))
			if p == nil {
				return errorf(stFailed, "gfxcuda: out of host memory for a tensor of %d bytes", n)
			}
			t.Data, free = uintptr(p), func() { C.free(p) }
		default:
			return errorf(stUnsupported, "gfxcuda: the DLPack allocator makes CUDA (kDLCUDA) or host (kDLCPU) tensors, not %s", t.Device.Type)
		}
		p, err := dlpack.Export(t, true, free)
		if err != nil {
			free()
			return &statusError{stInvalid, err}
		}
		*out = p
		return nil
	})
}
