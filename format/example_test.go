package format_test

import (
	"fmt"

	"github.com/gfxcuda/gfxcuda/format"
)

// What the format table knows about a texture format: its Vulkan name, how
// a CUDA array holds it, and the element type a tensor over it has.
func ExampleLookup() {
	in, ok := format.Lookup(format.BGRA8UNorm)
	if !ok {
		return
	}
	fmt.Println(in.Name, in.VkName)
	fmt.Println("bytes per texel:", in.BytesPerTexel, "blue first:", in.BGR)
	fmt.Println("CUDA array: channels", in.CUDAChannels, "can hold it:", in.CUDAArrayCapable())
	fmt.Println("tensor element:", in.DType, "×", in.DTypeLanes)
	// Output:
	// bgra8_unorm VK_FORMAT_B8G8R8A8_UNORM
	// bytes per texel: 4 blue first: true
	// CUDA array: channels 4 can hold it: true
	// tensor element: uint8 × 4
}
