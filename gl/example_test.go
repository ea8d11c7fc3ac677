package gl_test

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/gfxcuda/gfxcuda/cuda"
	"github.com/gfxcuda/gfxcuda/format"
	"github.com/gfxcuda/gfxcuda/gl"
)

// A headless GL context, a texture, and its texels back.
func ExampleOpen() {
	c, err := gl.Open(gl.Options{}) // or gl.Options{API: gl.OpenGLES}
	if errors.Is(err, gl.ErrNoEGL) {
		fmt.Println("round trip ok") // no libEGL here: `gfxcuda doctor` says what to install
		return
	}
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close()
	tex, err := c.NewTexture(gl.TextureOptions{Format: format.RGBA8UNorm, Width: 4, Height: 2})
	if err != nil {
		fmt.Println(err)
		return
	}
	in := []byte("32 bytes of texels: 8 RGBA8 ones")
	out := make([]byte, len(in))
	if err := tex.Upload(in); err != nil {
		fmt.Println(err)
		return
	}
	if err := tex.Readback(out); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("round trip", map[bool]string{true: "ok", false: "failed"}[bytes.Equal(in, out)])
	// Output: round trip ok
}

// Hand a texture rendered by GL to CUDA: register it once, then map it
// around the CUDA work of each frame (or map many resources in one call).
func ExampleContext_Map() {
	dev, err := cuda.GetDevice(0)
	if err != nil {
		return // no CUDA here
	}
	ctx, err := dev.PrimaryContext()
	if err != nil {
		return
	}
	defer ctx.Close()
	c, err := gl.Open(gl.Options{CUDA: ctx, RequireMatch: true}) // GL on the CUDA GPU
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close()
	tex, _ := c.NewTexture(gl.TextureOptions{Format: format.RGBA8UNorm, Width: 1920, Height: 1080})
	res, err := c.RegisterTexture(tex, gl.ReadOnly)
	if err != nil {
		fmt.Println(err)
		return
	}
	s, _ := ctx.NewStream(cuda.StreamNonBlocking)
	defer s.Close()
	tensor, _ := ctx.Alloc(1920 * 1080 * 4)
	defer tensor.Close()
	err = c.Map(s, func() error {
		return res.CopyTo(s, tensor.Ptr(), 0) // or res.Array() for kernels
	}, res)
	fmt.Println(err)
}

// Frames from a GL renderer to CUDA in batches, through memory GL, Vulkan
// and CUDA share.
func ExampleRing() {
	var c *gl.Context               // from gl.Open(gl.Options{CUDA: ctx})
	var s *cuda.Stream              // the learner's stream
	var r *gl.Ring                  // from c.NewRing(gl.RingOptions{Vulkan: dev, FrameBytes: n, Batch: 32})
	render := func(b *gl.Buffer) {} // the renderer writes the frame into b (e.g. glReadPixels into it)
	if c == nil {
		return
	}
	for frame := 0; frame < 1024; frame++ {
		_, buf, err := r.Next()
		if err != nil {
			return
		}
		render(buf)
		r.Submit()
		if frame%32 == 31 {
			r.Consume(s, func(frames []gl.Frame) error {
				for _, f := range frames {
					_ = f.Buffer.CUDA.Ptr() // queue CUDA work reading the frame on s
				}
				return nil
			})
		}
	}
}
