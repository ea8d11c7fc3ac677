package gfxcuda_test

import (
	"fmt"

	"github.com/gfxcuda/gfxcuda"
	"github.com/gfxcuda/gfxcuda/format"
	"github.com/gfxcuda/gfxcuda/vulkan"
)

// A 4×1 BGRA8 texture becomes a planar (NCHW) uint8 tensor of 3 channels,
// red first, alpha dropped, on any Vulkan device. With an gfxcuda.Device,
// pass tex.Vulkan() and a shared buffer's Vulkan() instead: CUDA then reads
// the tensor with no work of its own.
func ExampleVulkanConverter() {
	inst, err := vulkan.NewInstance(vulkan.InstanceOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer inst.Close()
	pds, err := inst.PhysicalDevices()
	if err != nil {
		fmt.Println(err)
		return
	}
	vd, err := inst.NewDevice(pds[0], vulkan.DeviceOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer vd.Close()

	img, _ := vd.NewImage(vulkan.ImageOptions{Format: uint32(format.BGRA8UNorm), Width: 4, Height: 1,
		Usage: vulkan.ImageSampled | vulkan.ImageTransferDst})
	defer img.Close()
	texels, _ := vd.NewBuffer(vulkan.BufferOptions{Size: 16, Heap: vulkan.HeapUpload})
	defer texels.Close()
	m, _ := texels.Map()
	copy(m, []byte{ // B, G, R, A
		10, 20, 30, 255, 11, 21, 31, 255, 12, 22, 32, 255, 13, 23, 33, 255})
	out, _ := vd.NewBuffer(vulkan.BufferOptions{Size: 12, Heap: vulkan.HeapReadback})
	defer out.Close()

	pass, err := gfxcuda.NewVulkanConverter(vd, gfxcuda.TensorLayout{Planar: true, DType: format.Uint8, Channels: 3})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer pass.Close()
	err = vd.Run(func(c *vulkan.Commands) error {
		c.TransitionImage(img, vulkan.LayoutTransferDst)
		c.CopyBufferToImage(img, texels, vulkan.BufferImageCopy{})
		return pass.Record(c, img, out)
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	t, _ := out.Map()
	out.Invalidate(0, 12)
	fmt.Println("shape", pass.Layout().Shape(1, 4, 1))
	fmt.Println("R", t[0:4], "G", t[4:8], "B", t[8:12])
	// Output:
	// shape [1 3 1 4]
	// R [30 31 32 33] G [20 21 22 23] B [10 11 12 13]
}
