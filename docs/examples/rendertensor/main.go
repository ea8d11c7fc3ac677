// Command rendertensor renders frames with a Vulkan compute shader into a
// texture shared with CUDA and converts each one, on the GPU and without a
// trip through the host, into a normalized NCHW float32 tensor in CUDA
// memory: the input a PyTorch model takes. It checks the last tensor
// against the Go reference. See docs/render-to-pytorch.md.
package main

import (
	"fmt"
	"io"
	"log"
	"os"

	"github.com/gfxcuda/gfxcuda"
	"github.com/gfxcuda/gfxcuda/format"
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
	if err := run(os.Stdout, gfxcuda.ConverterCUDA); err != nil {
		log.Fatal(err)
	}
}

func run(out io.Writer, converter gfxcuda.Converter) error {
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
	// The renderer: a compute shader on the device's Vulkan side.
	render, err := dev.Compile([]byte(scene), gfxcuda.ShaderOptions{Language: gfxcuda.GLSL, Filename: "scene.comp"})
	if err != nil {
		return err
	}
	defer render.Close()

	// The tensor: [1, 3, H, W] float32, ImageNet-normalized, in memory
	// CUDA (and so PyTorch) reads at t.Ptr().
	layout := gfxcuda.TensorLayout{Planar: true, DType: format.Float32, Channels: 3,
		Mean: [4]float32{0.485, 0.456, 0.406}, Std: [4]float32{0.229, 0.224, 0.225}}
	t, err := dev.NewTensorBuffer(layout, 1, width, height)
	if err != nil {
		return err
	}
	// The conversion: the CUDA kernel, queued on the device's stream, or
	// the Vulkan pass, which that stream then waits for on the GPU.
	conv := gfxcuda.TensorOptions{Layout: layout, Converter: converter, Stream: dev.Stream()}

	const frames = 10
	for f := uint32(0); f < frames; f++ {
		// Render frame f with Vulkan.
		if err := render.Dispatch(width/16, height/16, 1, gfxcuda.At(0, tex), gfxcuda.PushValues(f)); err != nil {
			return err
		}
		// Hand it to CUDA and convert it into the tensor (the host does
		// not wait for the GPU).
		if err := tex.ToTensor(t, conv); err != nil {
			return err
		}
		// A learner would launch its step on conv.Stream here.
	}

	// Check the last tensor against the Go reference of the texture.
	bad, first, err := tex.CheckTensor(t, conv)
	if err != nil {
		return err
	}
	if bad > 0 {
		return fmt.Errorf("%d elements wrong; first: %s", bad, first)
	}
	fmt.Fprintf(out, "%d frames → CUDA tensor %v %s at %#x (%s converter): checked\n",
		frames, layout.Shape(1, width, height), layout.DType, uint64(t.Ptr()), converter)
	return nil
}
