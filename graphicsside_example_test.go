package gfxcuda_test

import (
	"fmt"
	"log"

	"github.com/gfxcuda/gfxcuda"
	"github.com/gfxcuda/gfxcuda/cuda"
	"github.com/gfxcuda/gfxcuda/format"
	"github.com/gfxcuda/gfxcuda/gl"
	"github.com/gfxcuda/gfxcuda/tensor"
)

// A frame your own OpenGL renderer drew, into a CUDA tensor: adopt the
// renderer's context (current on this thread), take its texture into the
// face, and convert each frame into an [3, H, W] float32 tensor, top row
// first. Call it on the renderer's thread, after it drew.
func ExampleNewGraphicsSource() {
	d, err := gfxcuda.Open(gfxcuda.Options{}) // the renderer's GPU (gl.Context.CUDADevice says which)
	if err != nil {
		log.Fatal(err)
	}
	defer d.Close()
	c, err := gl.Adopt(nil) // the context current on this thread
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	const texture = 1 // the renderer's texture name
	src, err := c.TextureSource(texture)
	if err != nil {
		log.Fatal(err)
	}
	g, err := gfxcuda.NewGraphicsSource(src)
	if err != nil {
		log.Fatal(err)
	}
	defer g.Close()
	l := tensor.Layout{Planar: true, DType: format.Float32, Channels: 3, FlipY: true}
	out, err := d.CUDA().Alloc(g.TensorBytes(l))
	if err != nil {
		log.Fatal(err)
	}
	defer out.Close()
	s, err := d.CUDA().NewStream(cuda.StreamNonBlocking)
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()
	// Each frame: the copy (or an in-place read), the hand-off and the
	// conversion, queued on s.
	if err := g.ToTensor(d, s, out.Ptr(), out.Size(), l); err != nil {
		log.Fatal(err)
	}
	fmt.Println(l.Shape(1, uint32(src.Width()), uint32(src.Height())))
}
