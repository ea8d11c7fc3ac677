package gfxcuda

import (
	"github.com/gfxcuda/gfxcuda/cuda"
	"github.com/gfxcuda/gfxcuda/format"
	"github.com/gfxcuda/gfxcuda/tensor"
	"github.com/gfxcuda/gfxcuda/tensorconv"
	"github.com/gfxcuda/gfxcuda/vulkan"
)

// The tensor converters are package tensorconv's; the face runs them on its
// textures and buffers (Texture.ToTensor, totensor.go) and re-exports their
// names here.

// TensorLayout says how a converter lays textures out in a buffer: see
// tensor.Layout.
type TensorLayout = tensor.Layout

// VulkanConverter is a compiled Vulkan conversion for one layout
// (tensorconv.VulkanConverter).
type VulkanConverter = tensorconv.VulkanConverter

// Tiles is an atlas's grid of equal tiles, the views of
// VulkanConverter.RecordTiles (tensorconv.Tiles).
type Tiles = tensorconv.Tiles

// CUDAConverter converts CUDA surfaces into a tensor with one kernel launch
// per MaxViewsPerLaunch views (tensorconv.CUDAConverter).
type CUDAConverter = tensorconv.CUDAConverter

// CUDASource is one view to convert: a 2D texture (or one layer of a
// layered one) read through a CUDA surface object (tensorconv.CUDASource).
type CUDASource = tensorconv.CUDASource

// SurfaceTexture is a texture CUDA reads through a surface object: a
// Device's Texture, or another renderer's (tensorconv.SurfaceTexture).
type SurfaceTexture = tensorconv.SurfaceTexture

// Converter limits and the conversion kernel's name.
const (
	// MaxViewsPerDispatch is how many views one dispatch converts.
	MaxViewsPerDispatch = tensorconv.MaxViewsPerDispatch
	// MaxTiles is the most tiles (views) RecordTiles converts.
	MaxTiles = tensorconv.MaxTiles
	// MaxViewsPerLaunch is how many views one kernel launch converts.
	MaxViewsPerLaunch = tensorconv.MaxViewsPerLaunch
	// CUDAConverterKernel is the name of the CUDA kernel in gfxcuda's
	// embedded PTX.
	CUDAConverterKernel = tensorconv.CUDAConverterKernel
)

// The converters' errors.
var (
	// ErrSource is wrapped by the tensor converters' errors for sources
	// they cannot read and destinations too small.
	ErrSource = tensorconv.ErrSource
	// ErrNoCUDAConverterKernel is returned by NewCUDAConverter when the
	// embedded PTX lacks the conversion kernel.
	ErrNoCUDAConverterKernel = tensorconv.ErrNoCUDAConverterKernel
)

// NewVulkanConverter creates the conversion for layout l on a Vulkan
// device; it needs no CUDA and no shader compiler.
func NewVulkanConverter(vd *vulkan.Device, l TensorLayout) (*VulkanConverter, error) {
	return tensorconv.NewVulkanConverter(vd, l)
}

// NewCUDAConverter loads the conversion kernel for layout l into ctx
// (ErrNoCUDAConverterKernel when the embedded PTX lacks it).
func NewCUDAConverter(ctx *cuda.Context, l tensor.Layout) (*CUDAConverter, error) {
	return tensorconv.NewCUDAConverter(ctx, l)
}

// HasCUDAConverterKernel reports whether the embedded PTX has the
// conversion kernel.
func HasCUDAConverterKernel() bool { return tensorconv.HasCUDAConverterKernel() }

// CUDAArraySource describes layer of a CUDA array (made with Surface set)
// whose texels are in format f; the surface object it makes is the
// array's (tensorconv.CUDAArraySource).
func CUDAArraySource(a *cuda.Array, f format.Format, layer uint32) (CUDASource, error) {
	return tensorconv.CUDAArraySource(a, f, layer)
}

// CUDATextureSource describes layer of a shared texture (a *Texture with
// storage usage), through the texture's own surface object
// (tensorconv.CUDATextureSource).
func CUDATextureSource(t SurfaceTexture, layer uint32) (CUDASource, error) {
	return tensorconv.CUDATextureSource(t, layer)
}
