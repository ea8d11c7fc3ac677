package main

// tensor.go: the fused texture → tensor conversion of the face
// (gfxcuda.Texture.ToTensor), for C and Python.

/*
#include "capi.h"
*/
import "C"

import (
	"errors"

	"github.com/gfxcuda/gfxcuda"
	"github.com/gfxcuda/gfxcuda/format"
)

// tensorLayout converts a C layout into the face's.
func tensorLayout(l *C.gfxcuda_tensor_layout_t) (gfxcuda.TensorLayout, error) {
	if l == nil {
		return gfxcuda.TensorLayout{}, errorf(stInvalid, "gfxcuda_texture_to_tensor: null layout")
	}
	out := gfxcuda.TensorLayout{Planar: l.planar != 0, Channels: int(l.channels), FlipY: l.flip_y != 0,
		DType: format.DType{Code: uint8(l.dtype_code), Bits: uint8(l.dtype_bits), Lanes: 1}}
	for i := range 4 {
		out.Mean[i], out.Std[i] = float32(l.mean[i]), float32(l.std[i])
	}
	if err := out.Validate(); err != nil {
		return out, &statusError{stInvalid, err}
	}
	return out, nil
}

//export gfxcuda_texture_to_tensor
func gfxcuda_texture_to_tensor(tex, dst C.uint64_t, layout *C.gfxcuda_tensor_layout_t, offset C.uint64_t, converter C.int, stream C.uint64_t) C.int {
	return call(func() error {
		return textureToTensor("gfxcuda_texture_to_tensor", tex, dst, layout, offset, converter, stream, gfxcuda.Tiles{})
	})
}

//export gfxcuda_texture_tiles_to_tensor
func gfxcuda_texture_tiles_to_tensor(tex, dst C.uint64_t, layout *C.gfxcuda_tensor_layout_t, offset C.uint64_t,
	cols, rows, n C.int, converter C.int, stream C.uint64_t) C.int {
	return call(func() error {
		if cols <= 0 || rows <= 0 || n <= 0 {
			return errorf(stInvalid, "gfxcuda_texture_tiles_to_tensor: %d x %d tiles, %d views: each at least 1", int(cols), int(rows), int(n))
		}
		g := gfxcuda.Tiles{Cols: int(cols), Rows: int(rows), N: int(n)}
		return textureToTensor("gfxcuda_texture_tiles_to_tensor", tex, dst, layout, offset, converter, stream, g)
	})
}

// textureToTensor is the two entry points' shim: handles, layout and
// stream decoded, then Texture.ToTensor, its errors as statuses.
func textureToTensor(what string, tex, dst C.uint64_t, layout *C.gfxcuda_tensor_layout_t, offset C.uint64_t, converter C.int,
	stream C.uint64_t, g gfxcuda.Tiles) error {
	t, err := get[*sharedTexture](uint64(tex), "shared texture")
	if err != nil {
		return err
	}
	b, err := get[*sharedBuffer](uint64(dst), "shared buffer")
	if err != nil {
		return err
	}
	l, err := tensorLayout(layout)
	if err != nil {
		return err
	}
	conv := gfxcuda.Converter(converter)
	if conv != gfxcuda.ConverterCUDA && conv != gfxcuda.ConverterVulkan {
		return errorf(stInvalid, "%s: converter %d (0: CUDA, 1: Vulkan)", what, converter)
	}
	s, done, err := t.sd.stream(uint64(stream))
	if err != nil {
		return err
	}
	defer done()
	err = t.t.ToTensor(b.b, gfxcuda.TensorOptions{Layout: l, Converter: conv, Stream: s, Offset: uint64(offset), Tiles: g})
	switch {
	case errors.Is(err, gfxcuda.ErrSource), errors.Is(err, gfxcuda.ErrClosed):
		return &statusError{stInvalid, err}
	case errors.Is(err, gfxcuda.ErrHeldByCUDA):
		return &statusError{stInvalid, err}
	case errors.Is(err, gfxcuda.ErrUnsupported):
		return &statusError{stUnsupported, err}
	}
	return err
}
