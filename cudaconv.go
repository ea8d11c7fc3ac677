// The CUDA tensor converter (formerly package tensorpass/cudaconv) converts textures that CUDA holds (CUDA arrays, through
// surface objects) into the tensor a learning framework wants, with one CUDA
// kernel launch: NCHW or NHWC; float32, float16 or uint8; 3 or 4 channels;
// optional per-channel mean and std and a vertical flip; several views
// (cameras) into one [N, C, H, W] tensor. It reads the texture where it is,
// with no intermediate copy, so it works for textures from any renderer:
// gfxcuda's shared textures (a Device's Texture), OpenGL textures registered
// with CUDA, or CUDA's own arrays.
//
// The layout and the Go reference the kernel is tested against are in
// package tensor. For frames gfxcuda renders with Vulkan,
// the VulkanConverter does the same conversion on the Vulkan side, so CUDA
// does no work per frame.
//
// The kernel (gfx_tex_to_tensor) is part of gfxcuda's embedded PTX
// (kernels), JIT-compiled by the driver: no CUDA toolkit is needed.

package gfxcuda

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/gfxcuda/gfxcuda/cuda"
	"github.com/gfxcuda/gfxcuda/format"
	"github.com/gfxcuda/gfxcuda/kernels"
	"github.com/gfxcuda/gfxcuda/tensor"
)

// CUDAConverterKernel is the name of the CUDA kernel in gfxcuda's embedded PTX.
const CUDAConverterKernel = "gfx_tex_to_tensor"

// MaxViewsPerLaunch is how many views one kernel launch converts; Convert
// launches once per this many views.
const MaxViewsPerLaunch = 8

var (
	// ErrNoCUDAConverterKernel is returned by NewCUDAConverter when gfxcuda's embedded PTX does not
	// contain the conversion kernel (a build whose PTX was not regenerated
	// after kernels.cu changed).
	ErrNoCUDAConverterKernel = errors.New("cudaconv: gfxcuda's embedded PTX lacks the " + CUDAConverterKernel + " kernel; regenerate kernels/kernels.ptx with scripts/gen-ptx.sh (needs nvcc)")
)

// HasCUDAConverterKernel reports whether the embedded PTX has the conversion kernel.
func HasCUDAConverterKernel() bool {
	return bytes.Contains(kernels.PTX, []byte(".entry "+CUDAConverterKernel+"("))
}

// CUDASource is one view to convert: a 2D texture (or one layer of a layered
// one) read through a CUDA surface object.
type CUDASource struct {
	Surface       cuda.SurfObject
	Format        format.Format // tensor.Sources: RGBA8, BGRA8, RGBA16F or RGBA32F (UNORM or FLOAT)
	Width, Height uint32
	Layered       bool   // the surface is over a layered array
	Layer         uint32 // which layer, when Layered
}

// cudaLayout is how a CUDA array must hold each source format.
func cudaLayout(f format.Format) (cuda.ArrayFormat, bool) {
	switch f {
	case format.RGBA8UNorm, format.BGRA8UNorm:
		return cuda.FormatUint8, true
	case format.RGBA16Float:
		return cuda.FormatHalf, true
	case format.RGBA32Float:
		return cuda.FormatFloat32, true
	}
	return 0, false
}

// CUDAArraySource describes layer of a CUDA array (made with Surface set) whose
// texels are in format f (the array itself does not say whether its bytes
// are RGBA or BGRA). It creates a surface object, which the array owns and
// destroys when it is closed: make Sources once, not per frame.
func CUDAArraySource(a *cuda.Array, f format.Format, layer uint32) (CUDASource, error) {
	d := a.Desc()
	if err := tensor.CheckSource(f); err != nil {
		return CUDASource{}, fmt.Errorf("%w: %v", ErrSource, err)
	}
	want, _ := cudaLayout(f)
	if d.Format != want || d.Channels != 4 {
		return CUDASource{}, fmt.Errorf("%w: a CUDA array of %d×%s cannot hold %v texels (want 4×%s)", ErrSource, d.Channels, d.Format, f, want)
	}
	if !d.Surface {
		return CUDASource{}, fmt.Errorf("%w: the CUDA array was not made for surface access (CUDA_ARRAY3D_SURFACE_LDST; for OpenGL, register with CU_GRAPHICS_REGISTER_FLAGS_SURFACE_LDST)", ErrSource)
	}
	if d.Layers == 0 && layer != 0 || d.Layers > 0 && uint64(layer) >= d.Layers {
		return CUDASource{}, fmt.Errorf("%w: layer %d of an array of %d layers", ErrSource, layer, d.Layers)
	}
	s, err := a.Surface()
	if err != nil {
		return CUDASource{}, fmt.Errorf("cudaconv: %w", err)
	}
	return CUDASource{Surface: s, Format: f, Width: uint32(d.Width), Height: uint32(d.Height), Layered: d.Layers > 0, Layer: layer}, nil
}

// SurfaceTexture is what CUDATextureSource needs of a shared texture; *Texture
// has it.
type SurfaceTexture interface {
	Array() *cuda.Array
	Format() format.Info
	Surface() (cuda.SurfObject, error)
}

// CUDATextureSource describes layer of a shared texture (an *Texture
// with storage usage), using the texture's own surface object.
func CUDATextureSource(t SurfaceTexture, layer uint32) (CUDASource, error) {
	a := t.Array()
	if a == nil {
		return CUDASource{}, fmt.Errorf("%w: texture has no CUDA array", ErrSource)
	}
	d := a.Desc()
	f := t.Format().Format
	if err := tensor.CheckSource(f); err != nil {
		return CUDASource{}, fmt.Errorf("%w: %v", ErrSource, err)
	}
	if d.Layers == 0 && layer != 0 || d.Layers > 0 && uint64(layer) >= d.Layers {
		return CUDASource{}, fmt.Errorf("%w: layer %d of a texture of %d layers", ErrSource, layer, d.Layers)
	}
	s, err := t.Surface()
	if err != nil {
		return CUDASource{}, fmt.Errorf("%w: %w", ErrSource, err)
	}
	return CUDASource{Surface: s, Format: f, Width: uint32(d.Width), Height: uint32(d.Height), Layered: d.Layers > 0, Layer: layer}, nil
}

// CUDAConverter is the conversion for one layout in one CUDA context.
type CUDAConverter struct {
	l   tensor.Layout
	mod *cuda.Module
	fn  *cuda.Function
}

// NewCUDAConverter loads the conversion kernel for layout l into ctx. It returns
// ErrNoKernel when the embedded PTX lacks the kernel.
func NewCUDAConverter(ctx *cuda.Context, l tensor.Layout) (*CUDAConverter, error) {
	if err := l.Validate(); err != nil {
		return nil, fmt.Errorf("cudaconv: %w", err)
	}
	if !HasCUDAConverterKernel() {
		return nil, ErrNoCUDAConverterKernel
	}
	m, err := ctx.LoadModule(kernels.PTX)
	if err != nil {
		return nil, fmt.Errorf("cudaconv: loading gfxcuda's kernels: %w", err)
	}
	f, err := m.Function(CUDAConverterKernel)
	if err != nil {
		m.Close()
		return nil, fmt.Errorf("cudaconv: %w", err)
	}
	return &CUDAConverter{l: l, mod: m, fn: f}, nil
}

// Layout returns the converter's layout.
func (c *CUDAConverter) Layout() tensor.Layout { return c.l }

// Bytes is the size of the tensor of n views of width×height.
func (c *CUDAConverter) Bytes(n int, width, height uint32) uint64 {
	return c.l.Bytes(width, height) * uint64(n)
}

// Convert queues on stream s (nil: the legacy default stream) the
// conversion of views (all of one size and format) into one tensor of shape
// Layout().Shape(len(views), width, height) at dst, which has dstSize bytes.
// The textures must be held by CUDA until the stream has run the kernel
// (for a Device's textures: between Device.ToCUDA and Access.Done, on the
// Access's stream). It never blocks the host.
func (c *CUDAConverter) Convert(s *cuda.Stream, dst cuda.DevicePtr, dstSize uint64, views ...CUDASource) error {
	if c.fn == nil {
		return ErrClosed
	}
	if len(views) == 0 {
		return fmt.Errorf("%w: no views", ErrSource)
	}
	v0 := views[0]
	for i, v := range views {
		if v.Width != v0.Width || v.Height != v0.Height || v.Format != v0.Format {
			return fmt.Errorf("%w: view %d is %dx%d %v, view 0 %dx%d %v (one launch converts views of one size and format)",
				ErrSource, i, v.Width, v.Height, v.Format, v0.Width, v0.Height, v0.Format)
		}
		if v.Surface == 0 {
			return fmt.Errorf("%w: view %d has no surface object", ErrSource, i)
		}
		if !v.Layered && v.Layer != 0 {
			return fmt.Errorf("%w: view %d: layer %d of an array without layers", ErrSource, i, v.Layer)
		}
	}
	if err := tensor.CheckSource(v0.Format); err != nil {
		return fmt.Errorf("%w: %v", ErrSource, err)
	}
	if v0.Width == 0 || v0.Height == 0 {
		return fmt.Errorf("%w: empty %dx%d views", ErrSource, v0.Width, v0.Height)
	}
	if dst == 0 {
		return fmt.Errorf("%w: null destination", ErrSource)
	}
	per := c.l.Bytes(v0.Width, v0.Height)
	if need := per * uint64(len(views)); dstSize < need {
		return fmt.Errorf("%w: %d views of %dx%d as %s need %d bytes, destination has %d", ErrSource, len(views), v0.Width, v0.Height, c.l, need, dstSize)
	}
	fmtCode := map[format.Format]uint32{format.RGBA8UNorm: 0, format.BGRA8UNorm: 1, format.RGBA16Float: 2, format.RGBA32Float: 3}[v0.Format]
	dtype := map[format.DType]uint32{format.Float32: 0, format.Float16: 1, format.Uint8: 2}[c.l.DType]
	b2u := func(b bool) uint32 {
		if b {
			return 1
		}
		return 0
	}
	scale := c.l.Scale()
	elemsPerView := per / uint64(c.l.DType.Size())
	for g := 0; g < len(views); g += MaxViewsPerLaunch {
		group := views[g:min(len(views), g+MaxViewsPerLaunch)]
		args := make([]any, 0, 34)
		for i := 0; i < MaxViewsPerLaunch; i++ {
			v := group[0]
			if i < len(group) {
				v = group[i]
			}
			args = append(args, v.Surface)
		}
		var layered uint32
		for i := 0; i < MaxViewsPerLaunch; i++ {
			var l uint32
			if i < len(group) {
				l = group[i].Layer
				layered |= b2u(group[i].Layered) << i
			}
			args = append(args, l)
		}
		args = append(args, layered, v0.Width, v0.Height, fmtCode,
			dst, uint64(g)*elemsPerView, dtype, b2u(c.l.Planar), uint32(c.l.C()), b2u(c.l.FlipY))
		for i := 0; i < 4; i++ {
			args = append(args, c.l.Mean[i])
		}
		for i := 0; i < 4; i++ {
			args = append(args, scale[i])
		}
		grid := cuda.Dim3{X: (v0.Width + 31) / 32, Y: (v0.Height + 7) / 8, Z: uint32(len(group))}
		if err := c.fn.Launch(s, grid, cuda.Dim3{X: 32, Y: 8}, 0, args...); err != nil {
			return fmt.Errorf("cudaconv: %w", err)
		}
	}
	return nil
}

// Close unloads the kernel. Idempotent.
func (c *CUDAConverter) Close() error {
	if c.mod == nil {
		return nil
	}
	m := c.mod
	c.mod, c.fn = nil, nil
	return m.Close()
}
