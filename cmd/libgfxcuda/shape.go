package main

// shape.go: what the library computes of tensors, for bindings that would
// otherwise compute it again (Python): a description's element count,
// sizes, extent and strides (package dlpack's Tensor), and the shape and
// size of the tensors the conversions write (package tensor's Layout).

/*
#include "capi.h"
*/
import "C"

import (
	"unsafe"

	"github.com/gfxcuda/gfxcuda"
	"github.com/gfxcuda/gfxcuda/format"
	"github.com/gfxcuda/gfxcuda/tensor"
)

//export gfxcuda_tensor_info
func gfxcuda_tensor_info(desc *C.gfxcuda_tensor_t, out *C.gfxcuda_tensor_info_t) C.int {
	return call(func() error {
		if desc == nil || out == nil {
			return errorf(stInvalid, "gfxcuda_tensor_info: null description or output")
		}
		d := *desc
		if d.data == 0 {
			d.data = 1 // not read: a placeholder for Validate's null check
		}
		t, err := tensorOf(&d)
		if err != nil {
			return &statusError{stInvalid, err}
		}
		lo, hi := t.Extent()
		n := t.Elements()
		*out = C.gfxcuda_tensor_info_t{elements: C.uint64_t(n), itemsize: C.uint64_t(t.ItemSize()),
			nbytes: C.uint64_t(uint64(n) * uint64(t.ItemSize())), lo: C.int64_t(lo), hi: C.int64_t(hi),
			ndim: C.int32_t(len(t.Shape))}
		if t.Contiguous() {
			out.contiguous = 1
		}
		if t.Dense() {
			out.dense = 1
		}
		for i, s := range t.ElementStrides() {
			out.strides[i] = C.int64_t(s)
		}
		return nil
	})
}

// layoutShape returns the shape of l's tensor of n views of w×h (n 0: one
// view, without the N dimension) and its bytes, perView each.
func layoutShape(l tensor.Layout, n int, w, h uint32, perView uint64) ([]int64, uint64) {
	dims := l.Shape(max(n, 1), w, h)
	if n == 0 {
		dims = dims[1:]
	}
	out := make([]int64, len(dims))
	for i, d := range dims {
		out[i] = int64(d)
	}
	return out, perView * uint64(max(n, 1))
}

// putShape writes dims to shape[0..4) (the rest 0), their count to ndim
// (when not nil) and n to nbytes.
func putShape(dims []int64, n uint64, shape *C.int64_t, ndim *C.int32_t, nbytes *C.uint64_t) {
	out := unsafe.Slice((*int64)(unsafe.Pointer(shape)), 4)
	clear(out)
	copy(out, dims)
	if ndim != nil {
		*ndim = C.int32_t(len(dims))
	}
	*nbytes = C.uint64_t(n)
}

//export gfxcuda_texture_tensor_shape
func gfxcuda_texture_tensor_shape(tex C.uint64_t, layout *C.gfxcuda_tensor_layout_t, cols, rows, n C.int,
	shape *C.int64_t, nbytes *C.uint64_t) C.int {
	return call(func() error {
		if shape == nil || nbytes == nil {
			return errorf(stInvalid, "gfxcuda_texture_tensor_shape: null output")
		}
		t, err := get[*sharedTexture](uint64(tex), "shared texture")
		if err != nil {
			return err
		}
		l, err := tensorLayout(layout)
		if err != nil {
			return err
		}
		o := t.t.Options()
		w, h, views := uint32(o.Width), uint32(o.Height), 1
		if cols != 0 || rows != 0 || n != 0 {
			g := gfxcuda.Tiles{Cols: int(cols), Rows: int(rows), N: int(n)}
			if w, h, err = g.Size(w, h); err != nil {
				return &statusError{stInvalid, err}
			}
			views = g.N
		}
		dims, size := layoutShape(l, views, w, h, l.Bytes(w, h))
		putShape(dims, size, shape, nil, nbytes)
		return nil
	})
}

//export gfxcuda_gl_tensor_shape
func gfxcuda_gl_tensor_shape(src C.uint64_t, layout *C.gfxcuda_tensor_layout_t, n C.int, shape *C.int64_t, ndim *C.int32_t,
	nbytes *C.uint64_t) C.int {
	return call(func() error {
		if shape == nil || ndim == nil || nbytes == nil {
			return errorf(stInvalid, "gfxcuda_gl_tensor_shape: null output")
		}
		if n < 0 || n > 1<<16 {
			return errorf(stInvalid, "gfxcuda_gl_tensor_shape: %d sources; 0 (one, without N) to 65536", n)
		}
		s, err := get[*glSource](uint64(src), "GL source")
		if err != nil {
			return err
		}
		l, err := tensorLayout(layout)
		if err != nil {
			return err
		}
		per := s.g.TensorBytes(l)
		src := s.g.Source()
		if src.Depth() {
			l.Channels, l.DType = 1, format.Float32 // one float32 per pixel, whatever l's channels
		}
		dims, size := layoutShape(l, int(n), uint32(src.Width()), uint32(src.Height()), per)
		putShape(dims, size, shape, ndim, nbytes)
		return nil
	})
}
