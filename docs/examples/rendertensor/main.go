// Command rendertensor renders frames with a Vulkan compute shader into a
// texture shared with CUDA, hands each frame to CUDA without a trip through
// the host, and converts it there into a normalized NCHW float32 tensor:
// the input a PyTorch model takes. It checks the last tensor against the
// Go reference. See docs/render-to-pytorch.md.
package main

import (
	"encoding/binary"
	"fmt"
	"io"
	"log"
	"os"

	"github.com/gfxcuda/gfxcuda"
	"github.com/gfxcuda/gfxcuda/format"
	"github.com/gfxcuda/gfxcuda/shader"
	"github.com/gfxcuda/gfxcuda/tensor"
	"github.com/gfxcuda/gfxcuda/vulkan"
)

const scene = `#version 450
layout(local_size_x = 16, local_size_y = 16) in;
layout(binding = 0, rgba8) uniform writeonly image2D img;
layout(push_constant) uniform PC { uint frame; } pc;
void main() {
	ivec2 p = ivec2(gl_GlobalInvocationID.xy);
	vec2 uv = vec2(p) / vec2(imageSize(img));
	float t = float(pc.frame) * 0.1;
	imageStore(img, p, vec4(uv.x, uv.y, 0.5 + 0.5 * sin(t + 10.0 * uv.x), 1.0));
}
`

const width, height = 256, 128

func main() {
	if err := run(os.Stdout); err != nil {
		log.Fatal(err)
	}
}

func run(out io.Writer) error {
	// One GPU seen by Vulkan and CUDA (fails with a reason where there is
	// none: `gfxcuda doctor` says what to fix).
	dev, err := gfxcuda.Open(gfxcuda.Options{})
	if err != nil {
		return err
	}
	defer dev.Close()

	// The texture the renderer draws into; CUDA sees the same memory.
	tex, err := dev.NewTexture(gfxcuda.TextureOptions{Format: format.RGBA8UNorm, Width: width, Height: height})
	if err != nil {
		return err
	}
	m, err := shader.Compile([]byte(scene), shader.Options{Language: shader.GLSL, Filename: "scene.comp"})
	if err != nil {
		return err
	}
	pipe, err := dev.Vulkan().NewComputePipeline(m)
	if err != nil {
		return err
	}
	defer pipe.Close()

	// The tensor: [1, 3, H, W] float32, ImageNet-normalized, in CUDA memory.
	layout := tensor.Layout{Planar: true, DType: format.Float32, Channels: 3,
		Mean: [4]float32{0.485, 0.456, 0.406}, Std: [4]float32{0.229, 0.224, 0.225}}
	conv, err := gfxcuda.NewCUDAConverter(dev.CUDA(), layout)
	if err != nil {
		return err
	}
	defer conv.Close()
	src, err := gfxcuda.CUDATextureSource(tex, 0)
	if err != nil {
		return err
	}
	t, err := dev.CUDA().Alloc(layout.Bytes(width, height))
	if err != nil {
		return err
	}
	defer t.Close()

	const frames = 10
	for f := uint32(0); f < frames; f++ {
		// Render frame f with Vulkan.
		push := binary.LittleEndian.AppendUint32(nil, f)
		if err := dev.Run(func(c *vulkan.Commands) error {
			c.Dispatch(pipe, []vulkan.Binding{{Binding: 0, Image: tex.Vulkan()}}, push, width/16, height/16, 1)
			return c.Err()
		}); err != nil {
			return err
		}
		// Hand it to CUDA (the stream waits on the GPU, the host does not)
		// and convert it in place into the tensor.
		acc, err := dev.ToCUDA(nil, tex)
		if err != nil {
			return err
		}
		if err := conv.Convert(acc.Stream(), t.Ptr(), t.Size(), src); err != nil {
			acc.Done()
			return err
		}
		// A learner would launch its step on acc.Stream() here.
		if err := acc.Done(); err != nil {
			return err
		}
	}
	if err := dev.Stream().Synchronize(); err != nil {
		return err
	}

	// Check the last tensor against the Go reference of the texture.
	got := make([]byte, t.Size())
	if err := dev.CUDA().CopyDtoH(got, t.Ptr()); err != nil {
		return err
	}
	pix := make([]byte, width*height*4)
	if err := tex.CopyToSync(nil, t.Ptr(), 0); err != nil { // reuse t: the check is done with it
		return err
	}
	if err := dev.CUDA().CopyDtoH(pix, t.Ptr()); err != nil {
		return err
	}
	views := []tensor.Image{{Format: format.RGBA8UNorm, Width: width, Height: height, Pix: pix}}
	bad, first, err := tensor.Check(layout, views, got)
	if err != nil {
		return err
	}
	if bad > 0 {
		return fmt.Errorf("%d elements wrong; first: %s", bad, first)
	}
	fmt.Fprintf(out, "%d frames → CUDA tensor %v %s at %#x: checked\n", frames, layout.Shape(1, width, height), layout.DType, uint64(t.Ptr()))
	return nil
}
