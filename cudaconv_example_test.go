package gfxcuda_test

import (
	"fmt"

	"github.com/gfxcuda/gfxcuda"
	"github.com/gfxcuda/gfxcuda/format"
	"github.com/gfxcuda/gfxcuda/tensor"
)

// Two cameras' shared textures become one [2, 3, H, W] float16 tensor in
// CUDA memory, flipped and normalized, with one kernel launch on the
// hand-off's stream. (Needs an NVIDIA GPU; not run by go test.)
func ExampleCUDAConverter() {
	dev, err := gfxcuda.Open(gfxcuda.Options{})
	if err != nil {
		fmt.Println(err) // `gfxcuda doctor` says why
		return
	}
	defer dev.Close()
	var srcs []gfxcuda.CUDASource
	var texs []gfxcuda.Resource
	for i := 0; i < 2; i++ {
		tex, err := dev.NewTexture(gfxcuda.TextureOptions{Format: format.RGBA16Float, Width: 640, Height: 480})
		if err != nil {
			fmt.Println(err)
			return
		}
		src, err := gfxcuda.CUDATextureSource(tex, 0) // once, not per frame
		if err != nil {
			fmt.Println(err)
			return
		}
		srcs, texs = append(srcs, src), append(texs, tex)
	}
	l := tensor.Layout{Planar: true, DType: format.Float16, Channels: 3, FlipY: true,
		Mean: [4]float32{0.5, 0.5, 0.5}, Std: [4]float32{0.5, 0.5, 0.5}}
	conv, err := gfxcuda.NewCUDAConverter(dev.CUDA(), l)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer conv.Close()
	dst, err := dev.CUDA().Alloc(conv.Bytes(2, 640, 480))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer dst.Close()

	// Per frame: render with Vulkan (dev.Run), then:
	acc, err := dev.ToCUDA(nil, texs...)
	if err != nil {
		fmt.Println(err)
		return
	}
	err = conv.Convert(acc.Stream(), dst.Ptr(), dst.Size(), srcs...)
	// ... the learner's step on acc.Stream() ...
	if derr := acc.Done(); err == nil {
		err = derr
	}
	fmt.Println(l.Shape(2, 640, 480), err)
}
