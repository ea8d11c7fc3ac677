package vk

/*
#define VK_NO_PROTOTYPES 1
#include <vulkan/vulkan.h>

static VkResult gfx_vkCreateCommandPool(PFN_vkCreateCommandPool f, VkDevice d, const VkCommandPoolCreateInfo *info, VkCommandPool *p) {
	return f(d, info, NULL, p);
}
static void gfx_vkDestroyCommandPool(PFN_vkDestroyCommandPool f, VkDevice d, VkCommandPool p) {
	f(d, p, NULL);
}
static VkResult gfx_vkResetCommandPool(PFN_vkResetCommandPool f, VkDevice d, VkCommandPool p, VkCommandPoolResetFlags flags) {
	return f(d, p, flags);
}
static VkResult gfx_vkAllocateCommandBuffers(PFN_vkAllocateCommandBuffers f, VkDevice d, const VkCommandBufferAllocateInfo *info, VkCommandBuffer *cb) {
	return f(d, info, cb);
}
static VkResult gfx_vkBeginCommandBuffer(PFN_vkBeginCommandBuffer f, VkCommandBuffer cb, const VkCommandBufferBeginInfo *info) {
	return f(cb, info);
}
static VkResult gfx_vkEndCommandBuffer(PFN_vkEndCommandBuffer f, VkCommandBuffer cb) {
	return f(cb);
}
static void gfx_vkCmdCopyBuffer(PFN_vkCmdCopyBuffer f, VkCommandBuffer cb, VkBuffer src, VkBuffer dst, uint32_t n, const VkBufferCopy *r) {
	f(cb, src, dst, n, r);
}
static void gfx_vkCmdFillBuffer(PFN_vkCmdFillBuffer f, VkCommandBuffer cb, VkBuffer dst, VkDeviceSize off, VkDeviceSize size, uint32_t data) {
	f(cb, dst, off, size, data);
}
static void gfx_vkCmdCopyBufferToImage(PFN_vkCmdCopyBufferToImage f, VkCommandBuffer cb, VkBuffer src, VkImage dst, VkImageLayout layout, uint32_t n, const VkBufferImageCopy *r) {
	f(cb, src, dst, layout, n, r);
}
static void gfx_vkCmdCopyImageToBuffer(PFN_vkCmdCopyImageToBuffer f, VkCommandBuffer cb, VkImage src, VkImageLayout layout, VkBuffer dst, uint32_t n, const VkBufferImageCopy *r) {
	f(cb, src, layout, dst, n, r);
}
static void gfx_vkCmdPipelineBarrier(PFN_vkCmdPipelineBarrier f, VkCommandBuffer cb, VkPipelineStageFlags src, VkPipelineStageFlags dst,
		uint32_t nm, const VkMemoryBarrier *m, uint32_t nb, const VkBufferMemoryBarrier *b, uint32_t ni, const VkImageMemoryBarrier *i) {
	f(cb, src, dst, 0, nm, m, nb, b, ni, i);
}
static void gfx_vkCmdPipelineBarrier2(PFN_vkCmdPipelineBarrier2 f, VkCommandBuffer cb, const VkDependencyInfo *dep) {
	f(cb, dep);
}
static VkResult gfx_vkQueueSubmit(PFN_vkQueueSubmit f, VkQueue q, uint32_t n, const VkSubmitInfo *s, VkFence fence) {
	return f(q, n, s, fence);
}
static VkResult gfx_vkQueueSubmit2(PFN_vkQueueSubmit2 f, VkQueue q, uint32_t n, const VkSubmitInfo2 *s, VkFence fence) {
	return f(q, n, s, fence);
}
static VkResult gfx_vkQueueWaitIdle(PFN_vkQueueWaitIdle f, VkQueue q) {
	return f(q);
}
*/
import "C"

import (
	"fmt"
	"unsafe"
)

type (
	// CommandPool is a VkCommandPool.
	CommandPool uint64
	// CommandBuffer is a VkCommandBuffer, valid while its pool is.
	CommandBuffer = C.VkCommandBuffer
)

// HasSynchronization2 reports whether vkCmdPipelineBarrier2 and
// vkQueueSubmit2 were loaded. They may be called only where the
// synchronization2 feature is enabled.
func (d *Device) HasSynchronization2() bool {
	return d.fn.cmdPipelineBarrier2 != nil && d.fn.queueSubmit2 != nil
}

// CreateCommandPool creates a command pool for queue family
// (vkCreateCommandPool); flags are VkCommandPoolCreateFlags.
func (d *Device) CreateCommandPool(family, flags uint32) (CommandPool, error) {
	var a arena
	defer a.free()
	ci := alloc[C.VkCommandPoolCreateInfo](&a)
	ci.sType = C.VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO
	ci.flags = C.VkCommandPoolCreateFlags(flags)
	ci.queueFamilyIndex = C.uint32_t(family)
	var p C.VkCommandPool
	if r := Result(C.gfx_vkCreateCommandPool(d.fn.createCommandPool, d.h, ci, &p)); r != Success {
		return 0, fmt.Errorf("vkCreateCommandPool: %w", r)
	}
	return CommandPool(p), nil
}

// DestroyCommandPool destroys a pool and its command buffers
// (vkDestroyCommandPool); a null handle is ignored.
func (d *Device) DestroyCommandPool(p CommandPool) {
	if p != 0 {
		C.gfx_vkDestroyCommandPool(d.fn.destroyCommandPool, d.h, C.VkCommandPool(p))
	}
}

// ResetCommandPool returns every command buffer of p to the initial state
// (vkResetCommandPool).
func (d *Device) ResetCommandPool(p CommandPool) error {
	if r := Result(C.gfx_vkResetCommandPool(d.fn.resetCommandPool, d.h, C.VkCommandPool(p), 0)); r != Success {
		return fmt.Errorf("vkResetCommandPool: %w", r)
	}
	return nil
}

// AllocateCommandBuffer allocates one primary command buffer from p
// (vkAllocateCommandBuffers).
func (d *Device) AllocateCommandBuffer(p CommandPool) (CommandBuffer, error) {
	var a arena
	defer a.free()
	ai := alloc[C.VkCommandBufferAllocateInfo](&a)
	ai.sType = C.VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO
	ai.commandPool = C.VkCommandPool(p)
	ai.level = C.VK_COMMAND_BUFFER_LEVEL_PRIMARY
	ai.commandBufferCount = 1
	cb := alloc[C.VkCommandBuffer](&a)
	if r := Result(C.gfx_vkAllocateCommandBuffers(d.fn.allocateCommandBuffers, d.h, ai, cb)); r != Success {
		return nil, fmt.Errorf("vkAllocateCommandBuffers: %w", r)
	}
	return *cb, nil
}

// BeginCommandBuffer starts recording (vkBeginCommandBuffer), with
// VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT if oneTime.
func (d *Device) BeginCommandBuffer(cb CommandBuffer, oneTime bool) error {
	var a arena
	defer a.free()
	bi := alloc[C.VkCommandBufferBeginInfo](&a)
	bi.sType = C.VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO
	if oneTime {
		bi.flags = C.VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT
	}
	if r := Result(C.gfx_vkBeginCommandBuffer(d.fn.beginCommandBuffer, cb, bi)); r != Success {
		return fmt.Errorf("vkBeginCommandBuffer: %w", r)
	}
	return nil
}

// EndCommandBuffer ends recording (vkEndCommandBuffer).
func (d *Device) EndCommandBuffer(cb CommandBuffer) error {
	if r := Result(C.gfx_vkEndCommandBuffer(d.fn.endCommandBuffer, cb)); r != Success {
		return fmt.Errorf("vkEndCommandBuffer: %w", r)
	}
	return nil
}

// BufferCopy is a VkBufferCopy.
type BufferCopy struct {
	SrcOffset, DstOffset, Size uint64
}

// CmdCopyBuffer records vkCmdCopyBuffer; no regions records nothing.
func (d *Device) CmdCopyBuffer(cb CommandBuffer, src, dst Buffer, regions []BufferCopy) {
	if len(regions) == 0 {
		return
	}
	var a arena
	defer a.free()
	rs := allocN[C.VkBufferCopy](&a, len(regions))
	for i, r := range regions {
		rs[i] = C.VkBufferCopy{srcOffset: C.VkDeviceSize(r.SrcOffset), dstOffset: C.VkDeviceSize(r.DstOffset), size: C.VkDeviceSize(r.Size)}
	}
	C.gfx_vkCmdCopyBuffer(d.fn.cmdCopyBuffer, cb, C.VkBuffer(src), C.VkBuffer(dst), C.uint32_t(len(regions)), &rs[0])
}

// CmdFillBuffer records vkCmdFillBuffer.
func (d *Device) CmdFillBuffer(cb CommandBuffer, dst Buffer, offset, size uint64, data uint32) {
	C.gfx_vkCmdFillBuffer(d.fn.cmdFillBuffer, cb, C.VkBuffer(dst), C.VkDeviceSize(offset), C.VkDeviceSize(size), C.uint32_t(data))
}

// BufferImageCopy is a VkBufferImageCopy.
type BufferImageCopy struct {
	BufferOffset      uint64
	BufferRowLength   uint32 // texels; 0: tightly packed
	BufferImageHeight uint32 // rows; 0: tightly packed
	Aspect            uint32 // VkImageAspectFlags
	MipLevel          uint32
	BaseLayer         uint32
	LayerCount        uint32
	Offset            [3]int32
	Extent            [3]uint32
}

func bufferImageCopies(a *arena, regions []BufferImageCopy) *C.VkBufferImageCopy {
	rs := allocN[C.VkBufferImageCopy](a, len(regions))
	for i, r := range regions {
		rs[i] = C.VkBufferImageCopy{
			bufferOffset:      C.VkDeviceSize(r.BufferOffset),
			bufferRowLength:   C.uint32_t(r.BufferRowLength),
			bufferImageHeight: C.uint32_t(r.BufferImageHeight),
			imageSubresource: C.VkImageSubresourceLayers{
				aspectMask:     C.VkImageAspectFlags(r.Aspect),
				mipLevel:       C.uint32_t(r.MipLevel),
				baseArrayLayer: C.uint32_t(r.BaseLayer),
				layerCount:     C.uint32_t(r.LayerCount),
			},
			imageOffset: C.VkOffset3D{x: C.int32_t(r.Offset[0]), y: C.int32_t(r.Offset[1]), z: C.int32_t(r.Offset[2])},
			imageExtent: C.VkExtent3D{width: C.uint32_t(r.Extent[0]), height: C.uint32_t(r.Extent[1]), depth: C.uint32_t(r.Extent[2])},
		}
	}
	return &rs[0]
}

// CmdCopyBufferToImage records vkCmdCopyBufferToImage into dst, which is in
// dstLayout; no regions records nothing.
func (d *Device) CmdCopyBufferToImage(cb CommandBuffer, src Buffer, dst Image, dstLayout uint32, regions []BufferImageCopy) {
	if len(regions) == 0 {
		return
	}
	var a arena
	defer a.free()
	C.gfx_vkCmdCopyBufferToImage(d.fn.cmdCopyBufferToImage, cb, C.VkBuffer(src), C.VkImage(dst), C.VkImageLayout(dstLayout),
		C.uint32_t(len(regions)), bufferImageCopies(&a, regions))
}

// CmdCopyImageToBuffer records vkCmdCopyImageToBuffer from src, which is
// in srcLayout; no regions records nothing.
func (d *Device) CmdCopyImageToBuffer(cb CommandBuffer, src Image, srcLayout uint32, dst Buffer, regions []BufferImageCopy) {
	if len(regions) == 0 {
		return
	}
	var a arena
	defer a.free()
	C.gfx_vkCmdCopyImageToBuffer(d.fn.cmdCopyImageToBuffer, cb, C.VkImage(src), C.VkImageLayout(srcLayout), C.VkBuffer(dst),
		C.uint32_t(len(regions)), bufferImageCopies(&a, regions))
}

// MemoryBarrier is a VkMemoryBarrier2: synchronization2 stage and access
// flags (VkPipelineStageFlags2, VkAccessFlags2).
type MemoryBarrier struct {
	SrcStage, SrcAccess uint64
	DstStage, DstAccess uint64
}

// BufferBarrier is a VkBufferMemoryBarrier2.
type BufferBarrier struct {
	MemoryBarrier
	SrcFamily, DstFamily uint32 // QueueFamilyIgnored for no ownership transfer
	Buffer               Buffer
	Offset, Size         uint64 // Size may be WholeSize
}

// ImageBarrier is a VkImageMemoryBarrier2.
type ImageBarrier struct {
	MemoryBarrier
	OldLayout, NewLayout uint32 // VkImageLayout
	SrcFamily, DstFamily uint32 // QueueFamilyIgnored for no ownership transfer
	Image                Image
	Aspect               uint32 // VkImageAspectFlags
	BaseMip, MipCount    uint32 // MipCount may be RemainingMipLevels
	BaseLayer, Layers    uint32 // Layers may be RemainingArrayLayers
}

// Dependency is a VkDependencyInfo: the barriers of one pipeline barrier.
type Dependency struct {
	Memory  []MemoryBarrier
	Buffers []BufferBarrier
	Images  []ImageBarrier
}

func (dep Dependency) empty() bool {
	return len(dep.Memory) == 0 && len(dep.Buffers) == 0 && len(dep.Images) == 0
}

func subresourceRange(b *ImageBarrier) C.VkImageSubresourceRange {
	return C.VkImageSubresourceRange{
		aspectMask:     C.VkImageAspectFlags(b.Aspect),
		baseMipLevel:   C.uint32_t(b.BaseMip),
		levelCount:     C.uint32_t(b.MipCount),
		baseArrayLayer: C.uint32_t(b.BaseLayer),
		layerCount:     C.uint32_t(b.Layers),
	}
}

// CmdPipelineBarrier2 records dep with vkCmdPipelineBarrier2; the
// synchronization2 feature must be enabled.
func (d *Device) CmdPipelineBarrier2(cb CommandBuffer, dep Dependency) {
	if dep.empty() {
		return
	}
	var a arena
	defer a.free()
	di := alloc[C.VkDependencyInfo](&a)
	di.sType = C.VK_STRUCTURE_TYPE_DEPENDENCY_INFO
	if n := len(dep.Memory); n > 0 {
		ms := allocN[C.VkMemoryBarrier2](&a, n)
		for i, m := range dep.Memory {
			ms[i].sType = C.VK_STRUCTURE_TYPE_MEMORY_BARRIER_2
			ms[i].srcStageMask = C.VkPipelineStageFlags2(m.SrcStage)
			ms[i].srcAccessMask = C.VkAccessFlags2(m.SrcAccess)
			ms[i].dstStageMask = C.VkPipelineStageFlags2(m.DstStage)
			ms[i].dstAccessMask = C.VkAccessFlags2(m.DstAccess)
		}
		di.memoryBarrierCount = C.uint32_t(n)
		di.pMemoryBarriers = &ms[0]
	}
	if n := len(dep.Buffers); n > 0 {
		bs := allocN[C.VkBufferMemoryBarrier2](&a, n)
		for i, b := range dep.Buffers {
			bs[i].sType = C.VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER_2
			bs[i].srcStageMask = C.VkPipelineStageFlags2(b.SrcStage)
			bs[i].srcAccessMask = C.VkAccessFlags2(b.SrcAccess)
			bs[i].dstStageMask = C.VkPipelineStageFlags2(b.DstStage)
			bs[i].dstAccessMask = C.VkAccessFlags2(b.DstAccess)
			bs[i].srcQueueFamilyIndex = C.uint32_t(b.SrcFamily)
			bs[i].dstQueueFamilyIndex = C.uint32_t(b.DstFamily)
			bs[i].buffer = C.VkBuffer(b.Buffer)
			bs[i].offset = C.VkDeviceSize(b.Offset)
			bs[i].size = C.VkDeviceSize(b.Size)
		}
		di.bufferMemoryBarrierCount = C.uint32_t(n)
		di.pBufferMemoryBarriers = &bs[0]
	}
	if n := len(dep.Images); n > 0 {
		is := allocN[C.VkImageMemoryBarrier2](&a, n)
		for i := range dep.Images {
			b := &dep.Images[i]
			is[i].sType = C.VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER_2
			is[i].srcStageMask = C.VkPipelineStageFlags2(b.SrcStage)
			is[i].srcAccessMask = C.VkAccessFlags2(b.SrcAccess)
			is[i].dstStageMask = C.VkPipelineStageFlags2(b.DstStage)
			is[i].dstAccessMask = C.VkAccessFlags2(b.DstAccess)
			is[i].oldLayout = C.VkImageLayout(b.OldLayout)
			is[i].newLayout = C.VkImageLayout(b.NewLayout)
			is[i].srcQueueFamilyIndex = C.uint32_t(b.SrcFamily)
			is[i].dstQueueFamilyIndex = C.uint32_t(b.DstFamily)
			is[i].image = C.VkImage(b.Image)
			is[i].subresourceRange = subresourceRange(b)
		}
		di.imageMemoryBarrierCount = C.uint32_t(n)
		di.pImageMemoryBarriers = &is[0]
	}
	C.gfx_vkCmdPipelineBarrier2(d.fn.cmdPipelineBarrier2, cb, di)
}

// legacyStages maps synchronization2 stage flags to VkPipelineStageFlags:
// the low 32 bits are the same; the split transfer stages (copy, resolve,
// blit, clear) become TRANSFER, the split vertex input stages VERTEX_INPUT,
// pre-rasterization ALL_GRAPHICS. NONE becomes none (the caller substitutes
// TOP_OF_PIPE or BOTTOM_OF_PIPE).
func legacyStages(s uint64) uint32 {
	out := uint32(s)
	if s&(PipelineStage2Copy|PipelineStage2Resolve|PipelineStage2Blit|PipelineStage2Clear) != 0 {
		out |= PipelineStageTransfer
	}
	if s&(PipelineStage2IndexInput|PipelineStage2VertexAttributeInput) != 0 {
		out |= C.VK_PIPELINE_STAGE_VERTEX_INPUT_BIT
	}
	if s&PipelineStage2PreRasterizationShaders != 0 {
		out |= C.VK_PIPELINE_STAGE_ALL_GRAPHICS_BIT
	}
	return out
}

// legacyAccess maps synchronization2 access flags to VkAccessFlags: the
// low 32 bits are the same; the split shader reads and writes become
// SHADER_READ and SHADER_WRITE.
func legacyAccess(a uint64) uint32 {
	out := uint32(a)
	if a&(Access2ShaderSampledRead|Access2ShaderStorageRead) != 0 {
		out |= AccessShaderRead
	}
	if a&Access2ShaderStorageWrite != 0 {
		out |= AccessShaderWrite
	}
	return out
}

// CmdPipelineBarrier records dep with the Vulkan 1.0 vkCmdPipelineBarrier,
// for devices without synchronization2. Its single source and destination
// stage masks are the union of the barriers' (an empty one becomes
// TOP_OF_PIPE or BOTTOM_OF_PIPE), and flags are translated as legacyStages
// and legacyAccess say.
func (d *Device) CmdPipelineBarrier(cb CommandBuffer, dep Dependency) {
	if dep.empty() {
		return
	}
	var a arena
	defer a.free()
	var src, dst uint32
	stages := func(m *MemoryBarrier) {
		src |= legacyStages(m.SrcStage)
		dst |= legacyStages(m.DstStage)
	}
	var ms *C.VkMemoryBarrier
	if n := len(dep.Memory); n > 0 {
		s := allocN[C.VkMemoryBarrier](&a, n)
		for i := range dep.Memory {
			m := &dep.Memory[i]
			stages(m)
			s[i].sType = C.VK_STRUCTURE_TYPE_MEMORY_BARRIER
			s[i].srcAccessMask = C.VkAccessFlags(legacyAccess(m.SrcAccess))
			s[i].dstAccessMask = C.VkAccessFlags(legacyAccess(m.DstAccess))
		}
		ms = &s[0]
	}
	var bs *C.VkBufferMemoryBarrier
	if n := len(dep.Buffers); n > 0 {
		s := allocN[C.VkBufferMemoryBarrier](&a, n)
		for i := range dep.Buffers {
			b := &dep.Buffers[i]
			stages(&b.MemoryBarrier)
			s[i].sType = C.VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER
			s[i].srcAccessMask = C.VkAccessFlags(legacyAccess(b.SrcAccess))
			s[i].dstAccessMask = C.VkAccessFlags(legacyAccess(b.DstAccess))
			s[i].srcQueueFamilyIndex = C.uint32_t(b.SrcFamily)
			s[i].dstQueueFamilyIndex = C.uint32_t(b.DstFamily)
			s[i].buffer = C.VkBuffer(b.Buffer)
			s[i].offset = C.VkDeviceSize(b.Offset)
			s[i].size = C.VkDeviceSize(b.Size)
		}
		bs = &s[0]
	}
	var is *C.VkImageMemoryBarrier
	if n := len(dep.Images); n > 0 {
		s := allocN[C.VkImageMemoryBarrier](&a, n)
		for i := range dep.Images {
			b := &dep.Images[i]
			stages(&b.MemoryBarrier)
			s[i].sType = C.VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER
			s[i].srcAccessMask = C.VkAccessFlags(legacyAccess(b.SrcAccess))
			s[i].dstAccessMask = C.VkAccessFlags(legacyAccess(b.DstAccess))
			s[i].oldLayout = C.VkImageLayout(b.OldLayout)
			s[i].newLayout = C.VkImageLayout(b.NewLayout)
			s[i].srcQueueFamilyIndex = C.uint32_t(b.SrcFamily)
			s[i].dstQueueFamilyIndex = C.uint32_t(b.DstFamily)
			s[i].image = C.VkImage(b.Image)
			s[i].subresourceRange = subresourceRange(b)
		}
		is = &s[0]
	}
	if src == 0 {
		src = C.VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT
	}
	if dst == 0 {
		dst = C.VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT
	}
	C.gfx_vkCmdPipelineBarrier(d.fn.cmdPipelineBarrier, cb, C.VkPipelineStageFlags(src), C.VkPipelineStageFlags(dst),
		C.uint32_t(len(dep.Memory)), ms, C.uint32_t(len(dep.Buffers)), bs, C.uint32_t(len(dep.Images)), is)
}

// SemaphoreSubmit is a VkSemaphoreSubmitInfo: a semaphore to wait on or
// signal, its timeline value (ignored for binary semaphores) and the
// synchronization2 stages the operation covers.
type SemaphoreSubmit struct {
	Semaphore Semaphore
	Value     uint64
	Stage     uint64 // VkPipelineStageFlags2
}

// SubmitInfo is one batch of a queue submission.
type SubmitInfo struct {
	Wait           []SemaphoreSubmit
	CommandBuffers []CommandBuffer
	Signal         []SemaphoreSubmit
}

// QueueSubmit2 submits one batch with vkQueueSubmit2; the
// synchronization2 feature must be enabled. Like every queue operation it
// needs external synchronization on q.
func (d *Device) QueueSubmit2(q Queue, s SubmitInfo) error {
	var a arena
	defer a.free()
	si := alloc[C.VkSubmitInfo2](&a)
	si.sType = C.VK_STRUCTURE_TYPE_SUBMIT_INFO_2
	sems := func(list []SemaphoreSubmit) *C.VkSemaphoreSubmitInfo {
		if len(list) == 0 {
			return nil
		}
		out := allocN[C.VkSemaphoreSubmitInfo](&a, len(list))
		for i, x := range list {
			out[i].sType = C.VK_STRUCTURE_TYPE_SEMAPHORE_SUBMIT_INFO
			out[i].semaphore = C.VkSemaphore(x.Semaphore)
			out[i].value = C.uint64_t(x.Value)
			out[i].stageMask = C.VkPipelineStageFlags2(x.Stage)
		}
		return &out[0]
	}
	si.waitSemaphoreInfoCount = C.uint32_t(len(s.Wait))
	si.pWaitSemaphoreInfos = sems(s.Wait)
	si.signalSemaphoreInfoCount = C.uint32_t(len(s.Signal))
	si.pSignalSemaphoreInfos = sems(s.Signal)
	if n := len(s.CommandBuffers); n > 0 {
		cbs := allocN[C.VkCommandBufferSubmitInfo](&a, n)
		for i, cb := range s.CommandBuffers {
			cbs[i].sType = C.VK_STRUCTURE_TYPE_COMMAND_BUFFER_SUBMIT_INFO
			cbs[i].commandBuffer = cb
		}
		si.commandBufferInfoCount = C.uint32_t(n)
		si.pCommandBufferInfos = &cbs[0]
	}
	if r := Result(C.gfx_vkQueueSubmit2(d.fn.queueSubmit2, q, 1, si, 0)); r != Success {
		return fmt.Errorf("vkQueueSubmit2: %w", r)
	}
	return nil
}

// QueueSubmit submits one batch with the Vulkan 1.0 vkQueueSubmit. With
// timeline, VkTimelineSemaphoreSubmitInfo carries the semaphores' values
// (the timelineSemaphore feature must be enabled). Wait stages are
// translated as legacyStages says; signal stages are ignored.
func (d *Device) QueueSubmit(q Queue, s SubmitInfo, timeline bool) error {
	var a arena
	defer a.free()
	si := alloc[C.VkSubmitInfo](&a)
	si.sType = C.VK_STRUCTURE_TYPE_SUBMIT_INFO
	var tl *C.VkTimelineSemaphoreSubmitInfo
	if timeline && len(s.Wait)+len(s.Signal) > 0 {
		tl = alloc[C.VkTimelineSemaphoreSubmitInfo](&a)
		tl.sType = C.VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO
		si.pNext = unsafe.Pointer(tl)
	}
	if n := len(s.Wait); n > 0 {
		ss := allocN[C.VkSemaphore](&a, n)
		st := allocN[C.VkPipelineStageFlags](&a, n)
		vs := allocN[C.uint64_t](&a, n)
		for i, w := range s.Wait {
			ss[i] = C.VkSemaphore(w.Semaphore)
			st[i] = C.VkPipelineStageFlags(legacyStages(w.Stage))
			if st[i] == 0 {
				st[i] = C.VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT
			}
			vs[i] = C.uint64_t(w.Value)
		}
		si.waitSemaphoreCount = C.uint32_t(n)
		si.pWaitSemaphores = &ss[0]
		si.pWaitDstStageMask = &st[0]
		if tl != nil {
			tl.waitSemaphoreValueCount = C.uint32_t(n)
			tl.pWaitSemaphoreValues = &vs[0]
		}
	}
	if n := len(s.Signal); n > 0 {
		ss := allocN[C.VkSemaphore](&a, n)
		vs := allocN[C.uint64_t](&a, n)
		for i, x := range s.Signal {
			ss[i] = C.VkSemaphore(x.Semaphore)
			vs[i] = C.uint64_t(x.Value)
		}
		si.signalSemaphoreCount = C.uint32_t(n)
		si.pSignalSemaphores = &ss[0]
		if tl != nil {
			tl.signalSemaphoreValueCount = C.uint32_t(n)
			tl.pSignalSemaphoreValues = &vs[0]
		}
	}
	if n := len(s.CommandBuffers); n > 0 {
		cbs := allocN[C.VkCommandBuffer](&a, n)
		copy(cbs, s.CommandBuffers)
		si.commandBufferCount = C.uint32_t(n)
		si.pCommandBuffers = &cbs[0]
	}
	if r := Result(C.gfx_vkQueueSubmit(d.fn.queueSubmit, q, 1, si, 0)); r != Success {
		return fmt.Errorf("vkQueueSubmit: %w", r)
	}
	return nil
}

// QueueWaitIdle waits until q has finished its work (vkQueueWaitIdle).
func (d *Device) QueueWaitIdle(q Queue) error {
	if r := Result(C.gfx_vkQueueWaitIdle(d.fn.queueWaitIdle, q)); r != Success {
		return fmt.Errorf("vkQueueWaitIdle: %w", r)
	}
	return nil
}
