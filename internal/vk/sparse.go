package vk

/*
#define VK_NO_PROTOTYPES 1
#include <vulkan/vulkan.h>

static VkResult gfx_vkQueueBindSparse(PFN_vkQueueBindSparse f, VkQueue q, const VkBindSparseInfo *info, VkFence fence) {
	return f(q, 1, info, fence);
}
static void gfx_vkGetImageSparseMemoryRequirements(PFN_vkGetImageSparseMemoryRequirements f, VkDevice d, VkImage i, uint32_t *n, VkSparseImageMemoryRequirements *r) {
	f(d, i, n, r);
}
*/
import "C"

import (
	"fmt"
	"unsafe"
)

// Sparse resource creation flags (VkBufferCreateFlags and
// VkImageCreateFlags share the values).
const (
	CreateSparseBinding   = C.VK_BUFFER_CREATE_SPARSE_BINDING_BIT
	CreateSparseResidency = C.VK_BUFFER_CREATE_SPARSE_RESIDENCY_BIT
	CreateSparseAliased   = C.VK_BUFFER_CREATE_SPARSE_ALIASED_BIT
)

// DescriptorBindingPartiallyBound is VK_DESCRIPTOR_BINDING_PARTIALLY_BOUND_BIT.
const DescriptorBindingPartiallyBound = C.VK_DESCRIPTOR_BINDING_PARTIALLY_BOUND_BIT

// SparseBufferBind binds Size bytes of a sparse buffer from ResourceOffset
// to Memory at MemoryOffset (a null Memory unbinds them).
type SparseBufferBind struct {
	Buffer         Buffer
	ResourceOffset uint64
	Size           uint64
	Memory         DeviceMemory
	MemoryOffset   uint64
}

// SparseImageBind binds the texels of one array layer (mip level 0, color
// aspect) at Offset of extent Extent of a sparse image to Memory at
// MemoryOffset (a null Memory unbinds them).
type SparseImageBind struct {
	Image        Image
	Layer        uint32
	Offset       [3]int32
	Extent       [3]uint32
	Memory       DeviceMemory
	MemoryOffset uint64
}

// BindSparseInfo is one VkBindSparseInfo: the binds, and a timeline
// semaphore wait and signal around them (Semaphore null: none).
type BindSparseInfo struct {
	Buffers   []SparseBufferBind
	Images    []SparseImageBind
	Semaphore Semaphore
	Wait      uint64 // waited for when not zero
	Signal    uint64 // signalled when not zero
}

// QueueBindSparse calls vkQueueBindSparse with one VkBindSparseInfo.
func (d *Device) QueueBindSparse(q Queue, info BindSparseInfo) error {
	var a arena
	defer a.free()
	bi := alloc[C.VkBindSparseInfo](&a)
	bi.sType = C.VK_STRUCTURE_TYPE_BIND_SPARSE_INFO
	if n := len(info.Buffers); n > 0 {
		infos := allocN[C.VkSparseBufferMemoryBindInfo](&a, n)
		for i, b := range info.Buffers {
			m := alloc[C.VkSparseMemoryBind](&a)
			m.resourceOffset = C.VkDeviceSize(b.ResourceOffset)
			m.size = C.VkDeviceSize(b.Size)
			m.memory = C.VkDeviceMemory(b.Memory)
			m.memoryOffset = C.VkDeviceSize(b.MemoryOffset)
			infos[i].buffer = C.VkBuffer(b.Buffer)
			infos[i].bindCount = 1
			infos[i].pBinds = m
		}
		bi.bufferBindCount = C.uint32_t(n)
		bi.pBufferBinds = &infos[0]
	}
	if n := len(info.Images); n > 0 {
		infos := allocN[C.VkSparseImageMemoryBindInfo](&a, n)
		for i, b := range info.Images {
			m := alloc[C.VkSparseImageMemoryBind](&a)
			m.subresource.aspectMask = C.VK_IMAGE_ASPECT_COLOR_BIT
			m.subresource.arrayLayer = C.uint32_t(b.Layer)
			m.offset = C.VkOffset3D{x: C.int32_t(b.Offset[0]), y: C.int32_t(b.Offset[1]), z: C.int32_t(b.Offset[2])}
			m.extent = C.VkExtent3D{width: C.uint32_t(b.Extent[0]), height: C.uint32_t(b.Extent[1]), depth: C.uint32_t(b.Extent[2])}
			m.memory = C.VkDeviceMemory(b.Memory)
			m.memoryOffset = C.VkDeviceSize(b.MemoryOffset)
			infos[i].image = C.VkImage(b.Image)
			infos[i].bindCount = 1
			infos[i].pBinds = m
		}
		bi.imageBindCount = C.uint32_t(n)
		bi.pImageBinds = &infos[0]
	}
	if info.Semaphore != 0 && (info.Wait != 0 || info.Signal != 0) {
		tl := alloc[C.VkTimelineSemaphoreSubmitInfo](&a)
		tl.sType = C.VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO
		sem := allocN[C.VkSemaphore](&a, 1)
		sem[0] = C.VkSemaphore(info.Semaphore)
		if info.Wait != 0 {
			v := allocN[C.uint64_t](&a, 1)
			v[0] = C.uint64_t(info.Wait)
			bi.waitSemaphoreCount = 1
			bi.pWaitSemaphores = &sem[0]
			tl.waitSemaphoreValueCount = 1
			tl.pWaitSemaphoreValues = &v[0]
		}
		if info.Signal != 0 {
			v := allocN[C.uint64_t](&a, 1)
			v[0] = C.uint64_t(info.Signal)
			bi.signalSemaphoreCount = 1
			bi.pSignalSemaphores = &sem[0]
			tl.signalSemaphoreValueCount = 1
			tl.pSignalSemaphoreValues = &v[0]
		}
		bi.pNext = unsafe.Pointer(tl)
	}
	if r := Result(C.gfx_vkQueueBindSparse(d.fn.queueBindSparse, C.VkQueue(q), bi, 0)); r != Success {
		return fmt.Errorf("vkQueueBindSparse: %w", r)
	}
	return nil
}

// SparseImageGranularity returns the texel extent of one sparse block of
// the color aspect of a sparse image (vkGetImageSparseMemoryRequirements);
// ok is false when the image reports no color aspect.
func (d *Device) SparseImageGranularity(i Image) (g [3]uint32, ok bool) {
	var n C.uint32_t
	C.gfx_vkGetImageSparseMemoryRequirements(d.fn.getImageSparseMemoryRequirements, d.h, C.VkImage(i), &n, nil)
	if n == 0 {
		return g, false
	}
	var a arena
	defer a.free()
	rs := allocN[C.VkSparseImageMemoryRequirements](&a, int(n))
	C.gfx_vkGetImageSparseMemoryRequirements(d.fn.getImageSparseMemoryRequirements, d.h, C.VkImage(i), &n, &rs[0])
	for _, r := range rs[:n] {
		if r.formatProperties.aspectMask&C.VK_IMAGE_ASPECT_COLOR_BIT != 0 {
			e := r.formatProperties.imageGranularity
			return [3]uint32{uint32(e.width), uint32(e.height), uint32(e.depth)}, true
		}
	}
	return g, false
}
