// Package tensorpass is a Vulkan compute pass that writes an RGBA8 image
// in the layout a learning framework wants (NCHW or NHWC; float32, float16
// or uint8; 3 or 4 channels) into a buffer. Recorded right after
// rendering into a buffer shared with CUDA (package interop), it makes each
// frame ready for PyTorch with no CUDA work at all; it needs no CUDA itself
// and runs on any Vulkan device.
//
// The pass is compiled from GLSL with package shader the first time a
// layout is used on a machine, then taken from shader's on-disk cache.
package tensorpass

import (
	"encoding/binary"
	"fmt"

	"github.com/gfxcuda/gfxcuda/format"
	"github.com/gfxcuda/gfxcuda/shader"
	"github.com/gfxcuda/gfxcuda/vulkan"
)

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
	module *shader.Module
}

// Each invocation converts 4 consecutive texels of a row (so that 8- and
// 16-bit outputs are written as whole 32-bit words).
const tensorShader = `#version 450
layout(local_size_x = 64, local_size_y = 4) in;
layout(set = 0, binding = 0, rgba8) uniform readonly image2D src;
layout(std430, set = 0, binding = 1) writeonly buffer Dst { uint words[]; };
layout(push_constant) uniform PC { uint width; uint height; } pc;

#if DTYPE == 0
#define PUT(i, v) words[i] = floatBitsToUint(v)
#endif

void main() {
	uint x0 = gl_GlobalInvocationID.x * 4u;
	uint y = gl_GlobalInvocationID.y;
	if (x0 >= pc.width || y >= pc.height) return;
	vec4 t[4];
	for (uint k = 0u; k < 4u; k++)
		t[k] = x0 + k < pc.width ? imageLoad(src, ivec2(x0 + k, y)) : vec4(0);
	uint pix = y * pc.width + x0;
	uint plane = pc.width * pc.height;
	uint n = min(4u, pc.width - x0);
#if DTYPE == 0
	for (uint k = 0u; k < n; k++)
		for (uint c = 0u; c < CH; c++)
#if PLANAR
			PUT(c * plane + pix + k, t[k][c]);
#else
			PUT((pix + k) * CH + c, t[k][c]);
#endif
#elif DTYPE == 1
#if PLANAR
	// Widths are a multiple of 4 here, so 4 texels are 2 words per plane.
	for (uint c = 0u; c < CH; c++) {
		words[(c * plane + pix) / 2u] = packHalf2x16(vec2(t[0][c], t[1][c]));
		words[(c * plane + pix) / 2u + 1u] = packHalf2x16(vec2(t[2][c], t[3][c]));
	}
#else
	// 4 texels × CH halves = 2·CH words.
	float v[16];
	for (uint k = 0u; k < 4u; k++)
		for (uint c = 0u; c < CH; c++)
			v[k * CH + c] = t[k][c];
	for (uint w = 0u; w < 2u * CH; w++)
		words[(pix * CH) / 2u + w] = packHalf2x16(vec2(v[2u * w], v[2u * w + 1u]));
#endif
#else
#if PLANAR
	for (uint c = 0u; c < CH; c++)
		words[(c * plane + pix) / 4u] = packUnorm4x8(vec4(t[0][c], t[1][c], t[2][c], t[3][c]));
#else
	float v[16];
	for (uint k = 0u; k < 4u; k++)
		for (uint c = 0u; c < CH; c++)
			v[k * CH + c] = t[k][c];
	for (uint w = 0u; w < CH; w++)
		words[(pix * CH) / 4u + w] = packUnorm4x8(vec4(v[4u * w], v[4u * w + 1u], v[4u * w + 2u], v[4u * w + 3u]));
#endif
#endif
}
`

// New compiles the conversion for layout l on a Vulkan device (compiled
// shaders are cached on disk, see package shader). It needs no CUDA: any
// Vulkan device can run it.
func New(vd *vulkan.Device, l Layout) (*Pass, error) {
	if ch := l.channels(); ch != 3 && ch != 4 {
		return nil, fmt.Errorf("tensorpass: tensor of %d channels (3 or 4)", ch)
	}
	code := dtypeCode(l.DType)
	if code < 0 {
		return nil, fmt.Errorf("tensorpass: element type %s (want format.Float32, format.Float16 or format.Uint8)", l.DType)
	}
	planar := "0"
	if l.Planar {
		planar = "1"
	}
	m, err := shader.Compile([]byte(tensorShader), shader.Options{Language: shader.GLSL, Filename: "tensor.comp", Optimize: true,
		Defines: map[string]string{"DTYPE": fmt.Sprint(code), "PLANAR": planar, "CH": fmt.Sprintf("%du", l.channels())}})
	if err != nil {
		return nil, fmt.Errorf("tensorpass: %w", err)
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
