// Package graphics is the face's graphics side: the seam through which a
// graphics API other than the Device's own Vulkan hands its frames to the
// face (package gfxcuda), which takes them to CUDA tensors and to compute
// shaders with the same converters as its own textures. It is the
// counterpart of the face's CUDA side.
//
// OpenGL plugs in here: *gl.Source is a Source and *gl.View a View, so a
// frame that the caller's own GL renderer drew reaches torch through
// gfxcuda.NewGraphicsSource and GraphicsSource.ToTensor (and from C and
// Python through the face, by its usual rule). The package holds
// interfaces only: gl implements them without importing the face, and the
// face uses them without importing gl, so package gl stays usable alone
// and Vulkan users do not link it.
package graphics

import (
	"github.com/gfxcuda/gfxcuda/cuda"
	"github.com/gfxcuda/gfxcuda/format"
	"github.com/gfxcuda/gfxcuda/tensor"
	"github.com/gfxcuda/gfxcuda/vulkan"
)

// A Source is an object of another API's renderer whose frames the face
// takes: for OpenGL a texture, a renderbuffer or what is attached to a
// framebuffer of the caller's context (*gl.Source). Its methods that touch
// the API run where its context is current.
type Source interface {
	// String names the object as its renderer knows it, for messages.
	String() string
	// Width and Height are the frame's size in texels.
	Width() int
	Height() int
	// Format is the texel format its views hold: format.RGBA8UNorm,
	// format.RGBA16Float or format.RGBA32Float for colour, format.R32Float
	// for depth.
	Format() format.Format
	// Depth reports whether the source is depth: its views hold depth as
	// float32 in [0, 1], GL's values.
	Depth() bool
	// NewGraphicsView makes the source's view on dev: memory that dev's
	// Vulkan and, when cu is not nil, CUDA share, which each hand-off
	// fills with the source's current frame. The caller keeps it (one per
	// device) and closes it.
	NewGraphicsView(dev *vulkan.Device, cu *cuda.Context) (View, error)
}

// A View is a Source's frames in memory that a Vulkan device and CUDA
// share.
type View interface {
	// Image is the view's Vulkan image, what compute shaders read; nil for
	// a view made for CUDA that CUDA reads in place.
	Image() *vulkan.Image
	// Array is the view's own CUDA array, the same every frame; nil for a
	// view made without CUDA, and for one CUDA reads in place (UseInCUDA
	// gives its array).
	Array() *cuda.Array
	// ToVulkan copies the source's current frame into the view and hands
	// the image to Vulkan (work submitted afterwards sees it).
	ToVulkan() error
	// UseInCUDA hands the current frames of this view and of more (views
	// of the same API context) to CUDA with one synchronization — copied
	// into the views' memory, or mapped where CUDA reads the object in
	// place — and runs f with their CUDA arrays, in that order, for f to
	// queue work that reads them on s; then it gives them back to the API,
	// whose later work waits for that work on the GPU. Arrays that are not
	// the views' own (Array) are valid inside f only.
	UseInCUDA(s *cuda.Stream, f func(arrays []*cuda.Array) error, more ...View) error
	// CUDAIdle tells the view that CUDA's work on its last frame has
	// finished, so the next copy need not wait for it on the GPU.
	CUDAIdle()
	// SetRowsTopFirst says how a depth view's copies order rows: top row
	// first (flipped from GL's order) or GL's order (bottom row first, the
	// default). Colour views ignore it (the converters flip colour).
	SetRowsTopFirst(top bool)
	// Close frees the view. Idempotent.
	Close() error
}

// A TensorWriter is a View that converts its frames into tensors itself,
// with its API's own compute shaders, into Vulkan memory that CUDA shares
// (a face Buffer's): the tensor is complete when WriteTensors returns (the
// host waited for the API), and CUDA runs nothing per frame — no switch of
// the GPU from the API's context to CUDA's for a kernel. gl's copy views
// are TensorWriters.
type TensorWriter interface {
	// WriteTensors converts the current frames of this view and of more
	// (views of the same API context, one size and colour format) into
	// dst (Exportable) from byte off: a tensor of l.Shape(1+len(more), w,
	// h), views in order.
	WriteTensors(l tensor.Layout, dst *vulkan.Buffer, off uint64, more ...View) error
	// WriteTiles converts the first n tiles of this view's current frame
	// (an atlas: cols × rows tiles of equal size, row by row from its first
	// row and column, as tiled renderers draw many environments' views)
	// into dst from byte off: a tensor of l.Shape(n, w/cols, h/rows).
	WriteTiles(l tensor.Layout, cols, rows, n int, dst *vulkan.Buffer, off uint64) error
}
