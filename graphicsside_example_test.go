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

// A tiled frame — a renderer that drew 64 environments' 64×64 views side
// by side into one 512×512 texture — written by GL itself into a Buffer
// CUDA shares, as one [64, 64, 64, 4] uint8 tensor: when the call returns,
// CUDA reads it at buf.Ptr() with no wait and no CUDA work queued for it.
func ExampleGraphicsWriteTilesTo() {
	d, err := gfxcuda.Open(gfxcuda.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer d.Close()
	c, err := gl.Adopt(nil) // the renderer's context, current on this thread
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	const atlas = 1 // the renderer's texture name
	src, err := c.TextureSource(atlas)
	if err != nil {
		log.Fatal(err)
	}
	g, err := gfxcuda.NewGraphicsSource(src)
	if err != nil {
		log.Fatal(err)
	}
	defer g.Close()
	l := tensor.Layout{DType: format.Uint8, Channels: 4, FlipY: true}
	tiles := gfxcuda.Tiles{Cols: 8, Rows: 8, N: 64}
	n, err := g.TilesTensorBytes(l, tiles)
	if err != nil {
		log.Fatal(err)
	}
	buf, err := d.NewBuffer(n)
	if err != nil {
		log.Fatal(err)
	}
	defer buf.Close()
	// Each step, after the renderer drew:
	if err := gfxcuda.GraphicsWriteTilesTo(d, buf, 0, l, tiles, g); err != nil {
		log.Fatal(err)
	}
	fmt.Println(l.Shape(tiles.N, uint32(src.Width()/tiles.Cols), uint32(src.Height()/tiles.Rows)))
}
