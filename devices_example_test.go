package gfxcuda_test

import (
	"fmt"

	"github.com/gfxcuda/gfxcuda"
)

// DiscoverDevices never fails: what it cannot find is recorded with the reason.
// Pairs are the GPUs both APIs see, matched by UUID.
func ExampleDiscoverDevices() {
	r := gfxcuda.DiscoverDevices()
	if r.VulkanErr != nil {
		fmt.Println("Vulkan:", r.VulkanErr)
	}
	for _, d := range r.Vulkan {
		fmt.Println("Vulkan device:", d.Name)
	}
	if r.CUDAErr != nil {
		fmt.Println("CUDA:", r.CUDAErr)
	}
	fmt.Println("GPUs shared by Vulkan and CUDA:", len(r.Pairs))
}

// MatchDevices pairs devices by UUID, never by index: the APIs enumerate in
// different orders.
func ExampleMatchDevices() {
	a := gfxcuda.UUID{1}
	b := gfxcuda.UUID{2}
	for _, p := range gfxcuda.MatchDevices([]gfxcuda.UUID{a, b}, []gfxcuda.UUID{b, a}) {
		fmt.Printf("Vulkan %d = CUDA %d\n", p.Vulkan, p.CUDA)
	}
	// Output:
	// Vulkan 0 = CUDA 1
	// Vulkan 1 = CUDA 0
}
