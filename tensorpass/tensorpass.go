// Package tensorpass is a Vulkan compute pass that converts textures into
// the tensor a learning framework wants, writing straight into a buffer:
// NCHW or NHWC; float32, float16 or uint8; 3 or 4 channels; optional
// per-channel mean and std and a vertical flip; several views (cameras)
// into one [N, C, H, W] tensor in one dispatch. Recorded right after
// rendering, into a buffer shared with CUDA (package interop), it makes each
// frame ready for PyTorch with no CUDA work at all. It needs no CUDA itself
// and runs on any Vulkan device.
//
// Sources are 2D textures in RGBA8, BGRA8, RGBA16F or RGBA32F with sampled
// usage (interop textures have it). The layout and the Go reference the pass
// is tested against are in package tensorpass/tensor; for textures that
// only CUDA holds (from OpenGL or another renderer), package
// tensorpass/cudaconv does the same conversion with a CUDA kernel.
//
// The pass is compiled from GLSL with package shader the first time a
// layout is used on a machine, then taken from shader's on-disk cache.
package tensorpass

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"github.com/gfxcuda/gfxcuda/format"
	"github.com/gfxcuda/gfxcuda/shader"
	"github.com/gfxcuda/gfxcuda/tensorpass/tensor"
	"github.com/gfxcuda/gfxcuda/vulkan"
)

// Layout says how a Pass lays textures out in a buffer: see tensor.Layout.
type Layout = tensor.Layout

// MaxViewsPerDispatch is how many views one dispatch converts; RecordViews
// records one dispatch per this many views.
const MaxViewsPerDispatch = 8

// Pass is a compiled conversion for one Layout.
type Pass struct {
	l    Layout
	pipe *vulkan.Pipeline
}

// Each invocation converts 4 consecutive texels of a row (so that 8- and
// 16-bit outputs are written as whole 32-bit words) of view gl_WorkGroupID.z.
// Views are indexed with constants only (no dynamic-indexing feature needed).
const tensorShader = `#version 450
#extension GL_EXT_samplerless_texture_functions : require
layout(local_size_x = 64, local_size_y = 4) in;
layout(set = 0, binding = 0) uniform texture2D src[8];
layout(std430, set = 0, binding = 1) writeonly buffer Dst { uint words[]; };
layout(push_constant) uniform PC { uint width; uint height; uint base; uint flip; vec4 mean; vec4 scale; } pc;

vec4 fetch(uint v, ivec2 p) {
	switch (v) {
	case 0u: return texelFetch(src[0], p, 0);
	case 1u: return texelFetch(src[1], p, 0);
	case 2u: return texelFetch(src[2], p, 0);
	case 3u: return texelFetch(src[3], p, 0);
	case 4u: return texelFetch(src[4], p, 0);
	case 5u: return texelFetch(src[5], p, 0);
	case 6u: return texelFetch(src[6], p, 0);
	default: return texelFetch(src[7], p, 0);
	}
}

void main() {
	uint x0 = gl_GlobalInvocationID.x * 4u;
	uint y = gl_GlobalInvocationID.y;
	uint v = gl_WorkGroupID.z;
	if (x0 >= pc.width || y >= pc.height) return;
	int sy = int(pc.flip != 0u ? pc.height - 1u - y : y);
	vec4 t[4];
	for (uint k = 0u; k < 4u; k++)
		t[k] = x0 + k < pc.width ? (fetch(v, ivec2(x0 + k, sy)) - pc.mean) * pc.scale : vec4(0);
	uint plane = pc.width * pc.height;
	uint pix = pc.base + v * plane * CH + y * pc.width + x0; // planar: element of channel 0
	uint pixi = pc.base + v * plane * CH + (y * pc.width + x0) * CH; // interleaved
	uint n = min(4u, pc.width - x0);
#if DTYPE == 0
	for (uint k = 0u; k < n; k++)
		for (uint c = 0u; c < CH; c++)
#if PLANAR
			words[pix + c * plane + k] = floatBitsToUint(t[k][c]);
#else
			words[pixi + k * CH + c] = floatBitsToUint(t[k][c]);
#endif
#elif DTYPE == 1
#if PLANAR
	// Widths are a multiple of 4 here, so 4 texels are 2 words per plane.
	for (uint c = 0u; c < CH; c++) {
		words[(pix + c * plane) / 2u] = packHalf2x16(vec2(t[0][c], t[1][c]));
		words[(pix + c * plane) / 2u + 1u] = packHalf2x16(vec2(t[2][c], t[3][c]));
	}
#else
	// 4 texels × CH halves = 2·CH words.
	float f[16];
	for (uint k = 0u; k < 4u; k++)
		for (uint c = 0u; c < CH; c++)
			f[k * CH + c] = t[k][c];
	for (uint w = 0u; w < 2u * CH; w++)
		words[pixi / 2u + w] = packHalf2x16(vec2(f[2u * w], f[2u * w + 1u]));
#endif
#else
#if PLANAR
	for (uint c = 0u; c < CH; c++)
		words[(pix + c * plane) / 4u] = packUnorm4x8(vec4(t[0][c], t[1][c], t[2][c], t[3][c]));
#else
	float f[16];
	for (uint k = 0u; k < 4u; k++)
		for (uint c = 0u; c < CH; c++)
			f[k * CH + c] = t[k][c];
	for (uint w = 0u; w < CH; w++)
		words[pixi / 4u + w] = packUnorm4x8(vec4(f[4u * w], f[4u * w + 1u], f[4u * w + 2u], f[4u * w + 3u]));
#endif
#endif
}
`

// dtypeCode is the DTYPE the shader is compiled with.
func dtypeCode(d format.DType) int {
	switch d {
	case format.Float32:
		return 0
	case format.Float16:
		return 1
	}
	return 2
}

// New compiles the conversion for layout l on a Vulkan device (compiled
// shaders are cached on disk, see package shader). It needs no CUDA: any
// Vulkan device can run it.
func New(vd *vulkan.Device, l Layout) (*Pass, error) {
	if err := l.Validate(); err != nil {
		return nil, fmt.Errorf("tensorpass: %w", err)
	}
	planar := "0"
	if l.Planar {
		planar = "1"
	}
	m, err := shader.Compile([]byte(tensorShader), shader.Options{Language: shader.GLSL, Filename: "tensor.comp", Optimize: true,
		Defines: map[string]string{"DTYPE": fmt.Sprint(dtypeCode(l.DType)), "PLANAR": planar, "CH": fmt.Sprintf("%du", l.C())}})
	if err != nil {
		return nil, fmt.Errorf("tensorpass: %w", err)
	}
	p, err := vd.NewComputePipeline(m)
	if err != nil {
		return nil, fmt.Errorf("tensorpass: %w", err)
	}
	return &Pass{l: l, pipe: p}, nil
}

// Layout returns the pass's layout.
func (t *Pass) Layout() Layout { return t.l }

// ErrSource is wrapped by the errors of Record and RecordViews for sources
// the pass cannot read (format, size, usage) and destinations too small.
var ErrSource = errors.New("tensorpass: unusable source or destination")

// Record records the conversion of src into dst from byte 0: one view,
// a tensor of Layout().Bytes(width, height) bytes. For shared resources pass
// tex.Vulkan() and buf.Vulkan().
func (t *Pass) Record(c *vulkan.Commands, src *vulkan.Image, dst *vulkan.Buffer) error {
	return t.RecordViews(c, []*vulkan.Image{src}, dst, 0)
}

// RecordViews records the conversion of len(srcs) views (2D images of one
// size and a source format, with sampled usage) into one tensor of shape
// Layout().Shape(len(srcs), width, height) in dst from byte off (a multiple
// of 4): one dispatch per MaxViewsPerDispatch views. The width must be a
// multiple of 4.
func (t *Pass) RecordViews(c *vulkan.Commands, srcs []*vulkan.Image, dst *vulkan.Buffer, off uint64) error {
	if len(srcs) == 0 {
		return fmt.Errorf("%w: no views", ErrSource)
	}
	o := srcs[0].Options()
	for i, s := range srcs {
		so := s.Options()
		if so.Width != o.Width || so.Height != o.Height {
			return fmt.Errorf("%w: view %d is %dx%d, view 0 %dx%d", ErrSource, i, so.Width, so.Height, o.Width, o.Height)
		}
		if err := tensor.CheckSource(format.Format(so.Format)); err != nil {
			return fmt.Errorf("%w: view %d: %v", ErrSource, i, err)
		}
		if so.Usage&vulkan.ImageSampled == 0 {
			return fmt.Errorf("%w: view %d has no sampled usage (usage %v)", ErrSource, i, so.Usage)
		}
		if so.Dim != 0 && so.Dim != vulkan.Image2D || so.Layers > 1 {
			return fmt.Errorf("%w: view %d is not a plain 2D image (one layer)", ErrSource, i)
		}
	}
	if o.Width%4 != 0 {
		return fmt.Errorf("%w: width %d is not a multiple of 4", ErrSource, o.Width)
	}
	if off%4 != 0 {
		return fmt.Errorf("%w: offset %d is not a multiple of 4", ErrSource, off)
	}
	per := t.l.Bytes(o.Width, o.Height)
	if need := off + per*uint64(len(srcs)); dst.Size() < need {
		return fmt.Errorf("%w: %d views of %dx%d as %s need %d bytes from offset %d, buffer has %d", ErrSource, len(srcs), o.Width, o.Height, t.l, per*uint64(len(srcs)), off, dst.Size())
	}
	if (off+per*uint64(len(srcs)))/uint64(t.l.DType.Size()) > math.MaxUint32 {
		return fmt.Errorf("%w: tensor of %d bytes is too large for one pass", ErrSource, per*uint64(len(srcs)))
	}
	scale := t.l.Scale()
	for v0 := 0; v0 < len(srcs); v0 += MaxViewsPerDispatch {
		group := srcs[v0:min(len(srcs), v0+MaxViewsPerDispatch)]
		b := make([]vulkan.Binding, 0, MaxViewsPerDispatch+1)
		for e := 0; e < MaxViewsPerDispatch; e++ {
			img := group[0] // unused elements repeat a real view
			if e < len(group) {
				img = group[e]
			}
			b = append(b, vulkan.Binding{Binding: 0, Element: uint32(e), Image: img})
		}
		b = append(b, vulkan.Binding{Binding: 1, Buffer: dst})
		push := make([]byte, 48)
		binary.LittleEndian.PutUint32(push[0:], o.Width)
		binary.LittleEndian.PutUint32(push[4:], o.Height)
		// base: the group's first element (the shader's views are relative).
		binary.LittleEndian.PutUint32(push[8:], uint32((off+per*uint64(v0))/uint64(t.l.DType.Size())))
		if t.l.FlipY {
			binary.LittleEndian.PutUint32(push[12:], 1)
		}
		for i := 0; i < 4; i++ {
			binary.LittleEndian.PutUint32(push[16+4*i:], math.Float32bits(t.l.Mean[i]))
			binary.LittleEndian.PutUint32(push[32+4*i:], math.Float32bits(scale[i]))
		}
		c.Dispatch(t.pipe, b, push, (o.Width/4+63)/64, (o.Height+3)/4, uint32(len(group)))
	}
	return c.Err()
}

// Close frees the pipeline. Idempotent.
func (t *Pass) Close() error { return t.pipe.Close() }
