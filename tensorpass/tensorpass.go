// Package tensorpass is a Vulkan compute pass that writes an RGBA8 image
// in the layout a learning framework wants (NCHW or NHWC; float32, float16
// or uint8; 3 or 4 channels) into a buffer. Recorded right after
// rendering into a buffer shared with CUDA (package interop), it makes each
// frame ready for PyTorch with no CUDA work at all; it needs no CUDA itself
// and runs on any Vulkan device.
//
// The pass is GLSL (tensor.comp), compiled for every layout by go generate
// into shaders_gen.go: the package links no shader compiler.
package tensorpass

import (
	"encoding/base64"
	"encoding/binary"
	"fmt"

	"github.com/gfxcuda/gfxcuda/format"
	"github.com/gfxcuda/gfxcuda/spirv"
	"github.com/gfxcuda/gfxcuda/vulkan"
)

//go:generate go run gen.go

// Layout says how a Pass lays an image out in a buffer for CUDA: the shape
// a learning framework wants, so that CUDA does nothing per frame.
type Layout struct {
	Planar bool // NCHW (channel planes); false: NHWC (interleaved)
	// DType is the element type: format.Float32 or format.Float16
	// (normalized to [0, 1] from the UNORM image) or format.Uint8 (the
	// bytes as they are).
	DType format.DType
	// Channels to write: 3 (RGB, alpha dropped) or 4. 0 means 4.
	Channels int
}

// dtypeCode is the DTYPE the shader is compiled with, or -1 for an element
// type the pass cannot write.
func dtypeCode(d format.DType) int {
	switch d {
	case format.Float32:
		return 0
	case format.Float16:
		return 1
	case format.Uint8:
		return 2
	}
	return -1
}

// Bytes returns the tensor's size for a width×height image.
func (l Layout) Bytes(width, height uint32) uint64 {
	return uint64(width) * uint64(height) * uint64(l.channels()) * uint64(l.DType.Size())
}

func (l Layout) channels() int {
	if l.Channels == 0 {
		return 4
	}
	return l.Channels
}

// Pass is a Vulkan compute pass that converts an RGBA image (a storage
// image in the GENERAL layout) into a tensor layout in a buffer.
type Pass struct {
	l      Layout
	pipe   *vulkan.Pipeline
	module *spirv.Module
}

// variant selects a precompiled module: the shader's DTYPE, PLANAR and
// channels.
type variant struct {
	dtype    int
	planar   bool
	channels int
}

// New creates the conversion for layout l on a Vulkan device. It needs no
// CUDA and no shader compiler: any Vulkan device can run it.
func New(vd *vulkan.Device, l Layout) (*Pass, error) {
	if ch := l.channels(); ch != 3 && ch != 4 {
		return nil, fmt.Errorf("tensorpass: tensor of %d channels (3 or 4)", ch)
	}
	code := dtypeCode(l.DType)
	if code < 0 {
		return nil, fmt.Errorf("tensorpass: element type %s (want format.Float32, format.Float16 or format.Uint8)", l.DType)
	}
	enc, ok := modules[variant{code, l.Planar, l.channels()}]
	if !ok {
		return nil, fmt.Errorf("tensorpass: no module for %+v: run go generate ./tensorpass", l)
	}
	b, err := base64.StdEncoding.DecodeString(enc)
	if err != nil {
		return nil, fmt.Errorf("tensorpass: module for %+v: %w", l, err)
	}
	m, err := spirv.Reflect(b)
	if err != nil {
		return nil, fmt.Errorf("tensorpass: module for %+v: %w", l, err)
	}
	p, err := vd.NewComputePipeline(m)
	if err != nil {
		return nil, err
	}
	return &Pass{l: l, pipe: p, module: m}, nil
}

// Layout returns the pass's layout.
func (t *Pass) Layout() Layout { return t.l }

// Record records the conversion of src (a 2D RGBA8 UNORM image with storage
// usage) into dst from byte 0. The width must be a multiple of 4. For shared
// resources pass tex.Vulkan() and buf.Vulkan().
func (t *Pass) Record(c *vulkan.Commands, src *vulkan.Image, dst *vulkan.Buffer) error {
	o := src.Options()
	if o.Width%4 != 0 {
		return fmt.Errorf("tensorpass: width %d is not a multiple of 4", o.Width)
	}
	if need := t.l.Bytes(o.Width, o.Height); dst.Size() < need {
		return fmt.Errorf("tensorpass: %dx%d as %d×%s needs %d bytes, buffer has %d", o.Width, o.Height, t.l.channels(), t.l.DType, need, dst.Size())
	}
	push := make([]byte, 8)
	binary.LittleEndian.PutUint32(push[0:], o.Width)
	binary.LittleEndian.PutUint32(push[4:], o.Height)
	c.Dispatch(t.pipe, []vulkan.Binding{{Binding: 0, Image: src}, {Binding: 1, Buffer: dst}}, push,
		(o.Width/4+63)/64, (o.Height+3)/4, 1)
	return c.Err()
}

// Close frees the pipeline.
func (t *Pass) Close() error { return t.pipe.Close() }
