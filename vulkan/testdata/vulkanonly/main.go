// Command vulkanonly is the smallest program that uses package vulkan:
// TestVulkanOnlyBinary builds it and checks what it links.
package main

import (
	"fmt"
	"os"

	"github.com/gfxcuda/gfxcuda/vulkan"
)

func main() {
	in, err := vulkan.NewInstance(vulkan.InstanceOptions{AppName: "vulkanonly"})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	defer in.Close()
	pds, err := in.PhysicalDevices()
	fmt.Println(len(pds), err)
}
