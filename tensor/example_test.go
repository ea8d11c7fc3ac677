package tensor_test

import (
	"fmt"

	"github.com/gfxcuda/gfxcuda/format"
	"github.com/gfxcuda/gfxcuda/tensor"
)

// A 2×1 BGRA8 image as an ImageNet-normalized NCHW float32 tensor, computed
// on the host: what the Vulkan pass and the CUDA kernel are checked against.
func Example() {
	img := tensor.Image{Format: format.BGRA8UNorm, Width: 2, Height: 1,
		Pix: []byte{0, 128, 255, 255 /* B G R A */, 255, 255, 255, 255}}
	l := tensor.Layout{Planar: true, DType: format.Float32, Channels: 3,
		Mean: [4]float32{0.485, 0.456, 0.406}, Std: [4]float32{0.229, 0.224, 0.225}}
	v, err := tensor.Values(l, []tensor.Image{img})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("shape", l.Shape(1, 2, 1))
	for c := 0; c < 3; c++ {
		fmt.Printf("channel %d: %.3f %.3f\n", c, v[2*c], v[2*c+1])
	}
	// Output:
	// shape [1 3 1 2]
	// channel 0: 2.249 2.249
	// channel 1: 0.205 2.429
	// channel 2: -1.804 2.640
}
