package main

// arrayif.go: the checks of a tensor description against its memory and
// the array interfaces, both built by package dlpack: gfxcuda_dlpack_export,
// the C exporters (capi.c: they build their managed tensors of the
// description package dlpack computes here) and gfxcuda_array_interface
// check the same way,
// and Python's __cuda_array_interface__ and __array_interface__ come from
// gfxcuda_array_interface.

/*
#include <stdlib.h>
#include "capi.h"
*/
import "C"

import (
	"errors"
	"unsafe"

	"github.com/gfxcuda/gfxcuda/dlpack"
)

// tensorIn converts desc and checks that it lies inside owner's memory, on
// its device.
func tensorIn(owner uint64, desc *C.gfxcuda_tensor_t) (dlpack.Tensor, error) {
	t, err := tensorOf(desc)
	if err != nil {
		return t, &statusError{stInvalid, err}
	}
	ptr, size, devType, ordinal, err := memoryOf(owner)
	if err != nil {
		return t, err
	}
	if err := t.Within(ptr, size, dlpack.Device{Type: devType, ID: int32(ordinal)}); err != nil {
		if errors.Is(err, dlpack.ErrOutside) {
			return t, &statusError{stRange, err}
		}
		return t, &statusError{stInvalid, err}
	}
	return t, nil
}

// gfxExporterCheck checks a description a C exporter (capi.c) has not
// checked yet, as gfxcuda_dlpack_export does, and writes package dlpack's
// description of it to *out (dlpack.Describe), which the exporter builds
// its managed tensors of.
//
//export gfxExporterCheck
func gfxExporterCheck(owner C.uint64_t, desc *C.gfxcuda_tensor_t, out *C.gfx_dlpack_desc) C.int {
	return call(func() error {
		t, err := tensorIn(uint64(owner), desc)
		if err != nil {
			return err
		}
		if err := dlpack.Describe(t, unsafe.Pointer(out)); err != nil {
			return &statusError{stInvalid, err}
		}
		return nil
	})
}

//export gfxcuda_array_interface
func gfxcuda_array_interface(owner C.uint64_t, desc *C.gfxcuda_tensor_t, stream C.int64_t, out *C.gfxcuda_array_interface_t) C.int {
	return call(func() error {
		if out == nil {
			return errorf(stInvalid, "gfxcuda_array_interface: null output")
		}
		t, err := tensorIn(uint64(owner), desc)
		if err != nil {
			return err
		}
		a, err := t.ArrayInterface(int64(stream))
		if err != nil {
			return &statusError{stInvalid, err}
		}
		*out = C.gfxcuda_array_interface_t{data: C.uint64_t(a.Data), version: 3, ndim: C.int32_t(len(a.Shape)),
			stream: C.int64_t(a.Stream)}
		if a.ReadOnly {
			out.read_only = 1
		}
		if a.Host {
			out.host = 1
		}
		ts := unsafe.Slice((*byte)(unsafe.Pointer(&out.typestr[0])), len(out.typestr))
		copy(ts[:len(ts)-1], a.TypeStr)
		for i, s := range a.Shape {
			out.shape[i] = C.int64_t(s)
		}
		if a.Strides != nil {
			out.has_strides = 1
			for i, s := range a.Strides {
				out.strides[i] = C.int64_t(s)
			}
		}
		return nil
	})
}

//export gfxcuda_dtype_parse
func gfxcuda_dtype_parse(name *C.char, code, bits *C.uint8_t) C.int {
	return call(func() error {
		if name == nil || code == nil || bits == nil {
			return errorf(stInvalid, "gfxcuda_dtype_parse: null name or output")
		}
		dt, err := dlpack.ParseTypeStr(C.GoString(name))
		if err != nil {
			return &statusError{stInvalid, err}
		}
		*code, *bits = C.uint8_t(dt.Code), C.uint8_t(dt.Bits)
		return nil
	})
}
