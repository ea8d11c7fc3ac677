package vk

/*
#define VK_NO_PROTOTYPES 1
#include <stdint.h>
#include <string.h>
#include <vulkan/vulkan.h>

static VkResult gfx_vkCreateShaderModule(PFN_vkCreateShaderModule f, VkDevice d, const VkShaderModuleCreateInfo *info, VkShaderModule *m) {
	return f(d, info, NULL, m);
}
static void gfx_vkDestroyShaderModule(PFN_vkDestroyShaderModule f, VkDevice d, VkShaderModule m) {
	f(d, m, NULL);
}
static VkResult gfx_vkCreateDescriptorSetLayout(PFN_vkCreateDescriptorSetLayout f, VkDevice d, const VkDescriptorSetLayoutCreateInfo *info, VkDescriptorSetLayout *l) {
	return f(d, info, NULL, l);
}
static void gfx_vkDestroyDescriptorSetLayout(PFN_vkDestroyDescriptorSetLayout f, VkDevice d, VkDescriptorSetLayout l) {
	f(d, l, NULL);
}
static VkResult gfx_vkCreatePipelineLayout(PFN_vkCreatePipelineLayout f, VkDevice d, const VkPipelineLayoutCreateInfo *info, VkPipelineLayout *l) {
	return f(d, info, NULL, l);
}
static void gfx_vkDestroyPipelineLayout(PFN_vkDestroyPipelineLayout f, VkDevice d, VkPipelineLayout l) {
	f(d, l, NULL);
}
static VkResult gfx_vkCreateComputePipelines(PFN_vkCreateComputePipelines f, VkDevice d, const VkComputePipelineCreateInfo *info, VkPipeline *p) {
	return f(d, VK_NULL_HANDLE, 1, info, NULL, p);
}
static void gfx_vkDestroyPipeline(PFN_vkDestroyPipeline f, VkDevice d, VkPipeline p) {
	f(d, p, NULL);
}
static VkResult gfx_vkCreateDescriptorPool(PFN_vkCreateDescriptorPool f, VkDevice d, const VkDescriptorPoolCreateInfo *info, VkDescriptorPool *p) {
	return f(d, info, NULL, p);
}
static void gfx_vkDestroyDescriptorPool(PFN_vkDestroyDescriptorPool f, VkDevice d, VkDescriptorPool p) {
	f(d, p, NULL);
}
static VkResult gfx_vkResetDescriptorPool(PFN_vkResetDescriptorPool f, VkDevice d, VkDescriptorPool p) {
	return f(d, p, 0);
}
static VkResult gfx_vkAllocateDescriptorSets(PFN_vkAllocateDescriptorSets f, VkDevice d, const VkDescriptorSetAllocateInfo *info, VkDescriptorSet *s) {
	return f(d, info, s);
}
static void gfx_vkUpdateDescriptorSets(PFN_vkUpdateDescriptorSets f, VkDevice d, uint32_t n, const VkWriteDescriptorSet *w) {
	f(d, n, w, 0, NULL);
}
static VkResult gfx_vkCreateBufferView(PFN_vkCreateBufferView f, VkDevice d, const VkBufferViewCreateInfo *info, VkBufferView *v) {
	return f(d, info, NULL, v);
}
static void gfx_vkDestroyBufferView(PFN_vkDestroyBufferView f, VkDevice d, VkBufferView v) {
	f(d, v, NULL);
}
static void gfx_vkCmdBindPipeline(PFN_vkCmdBindPipeline f, VkCommandBuffer cb, VkPipeline p) {
	f(cb, VK_PIPELINE_BIND_POINT_COMPUTE, p);
}
static void gfx_vkCmdBindDescriptorSets(PFN_vkCmdBindDescriptorSets f, VkCommandBuffer cb, VkPipelineLayout l, uint32_t first, uint32_t n, const VkDescriptorSet *s) {
	f(cb, VK_PIPELINE_BIND_POINT_COMPUTE, l, first, n, s, 0, NULL);
}
static void gfx_vkCmdPushConstants(PFN_vkCmdPushConstants f, VkCommandBuffer cb, VkPipelineLayout l, VkShaderStageFlags stages, uint32_t off, uint32_t size, const void *data) {
	f(cb, l, stages, off, size, data);
}
static void gfx_vkCmdDispatch(PFN_vkCmdDispatch f, VkCommandBuffer cb, uint32_t x, uint32_t y, uint32_t z) {
	f(cb, x, y, z);
}
static void gfx_vkCmdDispatchIndirect(PFN_vkCmdDispatchIndirect f, VkCommandBuffer cb, VkBuffer b, VkDeviceSize off) {
	f(cb, b, off);
}
static void gfx_vkCmdCopyImage(PFN_vkCmdCopyImage f, VkCommandBuffer cb, VkImage src, VkImageLayout srcLayout, VkImage dst, VkImageLayout dstLayout, uint32_t n, const VkImageCopy *r) {
	f(cb, src, srcLayout, dst, dstLayout, n, r);
}
*/
import "C"

import (
	"fmt"
	"unsafe"
)

// More non-dispatchable handles (see the package comment).
type (
	// ShaderModule is a VkShaderModule.
	ShaderModule uint64
	// DescriptorSetLayout is a VkDescriptorSetLayout.
	DescriptorSetLayout uint64
	// PipelineLayout is a VkPipelineLayout.
	PipelineLayout uint64
	// Pipeline is a VkPipeline.
	Pipeline uint64
	// DescriptorPool is a VkDescriptorPool.
	DescriptorPool uint64
	// DescriptorSet is a VkDescriptorSet, valid while its pool is.
	DescriptorSet uint64
	// BufferView is a VkBufferView.
	BufferView uint64
)

// VkDescriptorType values.
const (
	DescriptorTypeSampler              = C.VK_DESCRIPTOR_TYPE_SAMPLER
	DescriptorTypeCombinedImageSampler = C.VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER
	DescriptorTypeSampledImage         = C.VK_DESCRIPTOR_TYPE_SAMPLED_IMAGE
	DescriptorTypeStorageImage         = C.VK_DESCRIPTOR_TYPE_STORAGE_IMAGE
	DescriptorTypeUniformTexelBuffer   = C.VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER
	DescriptorTypeStorageTexelBuffer   = C.VK_DESCRIPTOR_TYPE_STORAGE_TEXEL_BUFFER
	DescriptorTypeUniformBuffer        = C.VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER
	DescriptorTypeStorageBuffer        = C.VK_DESCRIPTOR_TYPE_STORAGE_BUFFER
)

// ShaderStageCompute is VK_SHADER_STAGE_COMPUTE_BIT.
const ShaderStageCompute = C.VK_SHADER_STAGE_COMPUTE_BIT

// DescriptorPoolCreateFreeDescriptorSet is
// VK_DESCRIPTOR_POOL_CREATE_FREE_DESCRIPTOR_SET_BIT.
const DescriptorPoolCreateFreeDescriptorSet = C.VK_DESCRIPTOR_POOL_CREATE_FREE_DESCRIPTOR_SET_BIT

// CreateShaderModule calls vkCreateShaderModule with SPIR-V words.
func (d *Device) CreateShaderModule(words []uint32) (ShaderModule, error) {
	if len(words) == 0 {
		return 0, fmt.Errorf("vkCreateShaderModule: empty module")
	}
	var a arena
	defer a.free()
	code := allocN[C.uint32_t](&a, len(words))
	for i, w := range words {
		code[i] = C.uint32_t(w)
	}
	ci := alloc[C.VkShaderModuleCreateInfo](&a)
	ci.sType = C.VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO
	ci.codeSize = C.size_t(4 * len(words))
	ci.pCode = &code[0]
	var m C.VkShaderModule
	if r := Result(C.gfx_vkCreateShaderModule(d.fn.createShaderModule, d.h, ci, &m)); r != Success {
		return 0, fmt.Errorf("vkCreateShaderModule: %w", r)
	}
	return ShaderModule(m), nil
}

// DestroyShaderModule calls vkDestroyShaderModule; a null handle is ignored.
func (d *Device) DestroyShaderModule(m ShaderModule) {
	if m != 0 {
		C.gfx_vkDestroyShaderModule(d.fn.destroyShaderModule, d.h, C.VkShaderModule(m))
	}
}

// DescriptorSetLayoutBinding is a VkDescriptorSetLayoutBinding without
// immutable samplers.
type DescriptorSetLayoutBinding struct {
	Binding uint32
	Type    uint32 // VkDescriptorType
	Count   uint32
	Stages  uint32 // VkShaderStageFlags
	// Flags are VkDescriptorBindingFlags (descriptor indexing), chained
	// in a VkDescriptorSetLayoutBindingFlagsCreateInfo when any is set.
	Flags uint32
}

// CreateDescriptorSetLayout calls vkCreateDescriptorSetLayout; no bindings
// makes an empty layout.
func (d *Device) CreateDescriptorSetLayout(bindings []DescriptorSetLayoutBinding) (DescriptorSetLayout, error) {
	var a arena
	defer a.free()
	ci := alloc[C.VkDescriptorSetLayoutCreateInfo](&a)
	ci.sType = C.VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO
	if n := len(bindings); n > 0 {
		bs := allocN[C.VkDescriptorSetLayoutBinding](&a, n)
		fs := allocN[C.VkDescriptorBindingFlags](&a, n)
		flagged := false
		for i, b := range bindings {
			bs[i].binding = C.uint32_t(b.Binding)
			bs[i].descriptorType = C.VkDescriptorType(b.Type)
			bs[i].descriptorCount = C.uint32_t(b.Count)
			bs[i].stageFlags = C.VkShaderStageFlags(b.Stages)
			fs[i] = C.VkDescriptorBindingFlags(b.Flags)
			flagged = flagged || b.Flags != 0
		}
		if flagged {
			fi := alloc[C.VkDescriptorSetLayoutBindingFlagsCreateInfo](&a)
			fi.sType = C.VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_BINDING_FLAGS_CREATE_INFO
			fi.bindingCount = C.uint32_t(n)
			fi.pBindingFlags = &fs[0]
			ci.pNext = unsafe.Pointer(fi)
		}
		ci.bindingCount = C.uint32_t(n)
		ci.pBindings = &bs[0]
	}
	var l C.VkDescriptorSetLayout
	if r := Result(C.gfx_vkCreateDescriptorSetLayout(d.fn.createDescriptorSetLayout, d.h, ci, &l)); r != Success {
		return 0, fmt.Errorf("vkCreateDescriptorSetLayout: %w", r)
	}
	return DescriptorSetLayout(l), nil
}

// DestroyDescriptorSetLayout calls vkDestroyDescriptorSetLayout; a null
// handle is ignored.
func (d *Device) DestroyDescriptorSetLayout(l DescriptorSetLayout) {
	if l != 0 {
		C.gfx_vkDestroyDescriptorSetLayout(d.fn.destroyDescriptorSetLayout, d.h, C.VkDescriptorSetLayout(l))
	}
}

// PushConstantRange is a VkPushConstantRange.
type PushConstantRange struct {
	Stages       uint32 // VkShaderStageFlags
	Offset, Size uint32
}

// CreatePipelineLayout calls vkCreatePipelineLayout.
func (d *Device) CreatePipelineLayout(sets []DescriptorSetLayout, push []PushConstantRange) (PipelineLayout, error) {
	var a arena
	defer a.free()
	ci := alloc[C.VkPipelineLayoutCreateInfo](&a)
	ci.sType = C.VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO
	if n := len(sets); n > 0 {
		ls := allocN[C.VkDescriptorSetLayout](&a, n)
		for i, l := range sets {
			ls[i] = C.VkDescriptorSetLayout(l)
		}
		ci.setLayoutCount = C.uint32_t(n)
		ci.pSetLayouts = &ls[0]
	}
	if n := len(push); n > 0 {
		ps := allocN[C.VkPushConstantRange](&a, n)
		for i, p := range push {
			ps[i] = C.VkPushConstantRange{stageFlags: C.VkShaderStageFlags(p.Stages), offset: C.uint32_t(p.Offset), size: C.uint32_t(p.Size)}
		}
		ci.pushConstantRangeCount = C.uint32_t(n)
		ci.pPushConstantRanges = &ps[0]
	}
	var l C.VkPipelineLayout
	if r := Result(C.gfx_vkCreatePipelineLayout(d.fn.createPipelineLayout, d.h, ci, &l)); r != Success {
		return 0, fmt.Errorf("vkCreatePipelineLayout: %w", r)
	}
	return PipelineLayout(l), nil
}

// DestroyPipelineLayout calls vkDestroyPipelineLayout; a null handle is
// ignored.
func (d *Device) DestroyPipelineLayout(l PipelineLayout) {
	if l != 0 {
		C.gfx_vkDestroyPipelineLayout(d.fn.destroyPipelineLayout, d.h, C.VkPipelineLayout(l))
	}
}

// SpecConstant is one specialization constant's value for
// CreateComputePipeline: a VkSpecializationMapEntry and its data.
type SpecConstant struct {
	ID   uint32 // the SpecId
	Size uint32 // bytes: 1, 2, 4 or 8 (a VkBool32 is 4)
	Bits uint64 // the value, its low Size bytes little-endian
}

// CreateComputePipeline creates one compute pipeline from the entry point
// of a shader module (vkCreateComputePipelines, no pipeline cache), with
// the specialization constants spec set (VkSpecializationInfo; none when
// empty).
func (d *Device) CreateComputePipeline(module ShaderModule, entry string, layout PipelineLayout, spec []SpecConstant) (Pipeline, error) {
	var a arena
	defer a.free()
	ci := alloc[C.VkComputePipelineCreateInfo](&a)
	ci.sType = C.VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO
	ci.stage.sType = C.VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO
	ci.stage.stage = C.VK_SHADER_STAGE_COMPUTE_BIT
	ci.stage.module = C.VkShaderModule(module)
	ci.stage.pName = a.cstr(entry)
	ci.layout = C.VkPipelineLayout(layout)
	if n := len(spec); n > 0 {
		entries := allocN[C.VkSpecializationMapEntry](&a, n)
		var size uintptr
		for _, s := range spec {
			size += uintptr(s.Size)
		}
		data := unsafe.Slice((*byte)(a.bytes(size)), size)
		off := uint32(0)
		for i, s := range spec {
			entries[i] = C.VkSpecializationMapEntry{constantID: C.uint32_t(s.ID), offset: C.uint32_t(off), size: C.size_t(s.Size)}
			for k := uint32(0); k < s.Size && k < 8; k++ {
				data[off+k] = byte(s.Bits >> (8 * k))
			}
			off += s.Size
		}
		si := alloc[C.VkSpecializationInfo](&a)
		si.mapEntryCount = C.uint32_t(n)
		si.pMapEntries = &entries[0]
		si.dataSize = C.size_t(size)
		si.pData = unsafe.Pointer(&data[0])
		ci.stage.pSpecializationInfo = si
	}
	ci.basePipelineIndex = -1
	var p C.VkPipeline
	if r := Result(C.gfx_vkCreateComputePipelines(d.fn.createComputePipelines, d.h, ci, &p)); r != Success {
		return 0, fmt.Errorf("vkCreateComputePipelines: %w", r)
	}
	return Pipeline(p), nil
}

// DestroyPipeline calls vkDestroyPipeline; a null handle is ignored.
func (d *Device) DestroyPipeline(p Pipeline) {
	if p != 0 {
		C.gfx_vkDestroyPipeline(d.fn.destroyPipeline, d.h, C.VkPipeline(p))
	}
}

// DescriptorPoolSize is a VkDescriptorPoolSize.
type DescriptorPoolSize struct {
	Type  uint32 // VkDescriptorType
	Count uint32
}

// CreateDescriptorPool calls vkCreateDescriptorPool; flags are
// VkDescriptorPoolCreateFlags.
func (d *Device) CreateDescriptorPool(maxSets uint32, sizes []DescriptorPoolSize, flags uint32) (DescriptorPool, error) {
	var a arena
	defer a.free()
	ci := alloc[C.VkDescriptorPoolCreateInfo](&a)
	ci.sType = C.VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO
	ci.flags = C.VkDescriptorPoolCreateFlags(flags)
	ci.maxSets = C.uint32_t(maxSets)
	if n := len(sizes); n > 0 {
		ss := allocN[C.VkDescriptorPoolSize](&a, n)
		for i, s := range sizes {
			ss[i] = C.VkDescriptorPoolSize{_type: C.VkDescriptorType(s.Type), descriptorCount: C.uint32_t(s.Count)}
		}
		ci.poolSizeCount = C.uint32_t(n)
		ci.pPoolSizes = &ss[0]
	}
	var p C.VkDescriptorPool
	if r := Result(C.gfx_vkCreateDescriptorPool(d.fn.createDescriptorPool, d.h, ci, &p)); r != Success {
		return 0, fmt.Errorf("vkCreateDescriptorPool: %w", r)
	}
	return DescriptorPool(p), nil
}

// DestroyDescriptorPool calls vkDestroyDescriptorPool, which frees its sets;
// a null handle is ignored.
func (d *Device) DestroyDescriptorPool(p DescriptorPool) {
	if p != 0 {
		C.gfx_vkDestroyDescriptorPool(d.fn.destroyDescriptorPool, d.h, C.VkDescriptorPool(p))
	}
}

// ResetDescriptorPool frees every set of p (vkResetDescriptorPool).
func (d *Device) ResetDescriptorPool(p DescriptorPool) error {
	if r := Result(C.gfx_vkResetDescriptorPool(d.fn.resetDescriptorPool, d.h, C.VkDescriptorPool(p))); r != Success {
		return fmt.Errorf("vkResetDescriptorPool: %w", r)
	}
	return nil
}

// AllocateDescriptorSet allocates one set of layout from p
// (vkAllocateDescriptorSets). A full pool answers an error wrapping
// ErrorOutOfPoolMemory or ErrorFragmentedPool.
func (d *Device) AllocateDescriptorSet(p DescriptorPool, layout DescriptorSetLayout) (DescriptorSet, error) {
	var a arena
	defer a.free()
	ls := alloc[C.VkDescriptorSetLayout](&a)
	*ls = C.VkDescriptorSetLayout(layout)
	ai := alloc[C.VkDescriptorSetAllocateInfo](&a)
	ai.sType = C.VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO
	ai.descriptorPool = C.VkDescriptorPool(p)
	ai.descriptorSetCount = 1
	ai.pSetLayouts = ls
	var s C.VkDescriptorSet
	if r := Result(C.gfx_vkAllocateDescriptorSets(d.fn.allocateDescriptorSets, d.h, ai, &s)); r != Success {
		return 0, fmt.Errorf("vkAllocateDescriptorSets: %w", r)
	}
	return DescriptorSet(s), nil
}

// DescriptorBufferInfo is a VkDescriptorBufferInfo.
type DescriptorBufferInfo struct {
	Buffer        Buffer
	Offset, Range uint64 // Range may be WholeSize
}

// DescriptorImageInfo is a VkDescriptorImageInfo.
type DescriptorImageInfo struct {
	Sampler Sampler
	View    ImageView
	Layout  uint32 // VkImageLayout
}

// WriteDescriptorSet is a VkWriteDescriptorSet: one of Buffers, Images or
// TexelViews, as Type requires, holding the descriptors of consecutive
// array elements from ArrayElement.
type WriteDescriptorSet struct {
	Set          DescriptorSet
	Binding      uint32
	ArrayElement uint32
	Type         uint32 // VkDescriptorType
	Buffers      []DescriptorBufferInfo
	Images       []DescriptorImageInfo
	TexelViews   []BufferView
}

// UpdateDescriptorSets writes descriptors (vkUpdateDescriptorSets).
func (d *Device) UpdateDescriptorSets(writes []WriteDescriptorSet) {
	if len(writes) == 0 {
		return
	}
	var a arena
	defer a.free()
	ws := allocN[C.VkWriteDescriptorSet](&a, len(writes))
	for i, w := range writes {
		ws[i].sType = C.VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET
		ws[i].dstSet = C.VkDescriptorSet(w.Set)
		ws[i].dstBinding = C.uint32_t(w.Binding)
		ws[i].dstArrayElement = C.uint32_t(w.ArrayElement)
		ws[i].descriptorType = C.VkDescriptorType(w.Type)
		switch {
		case len(w.Buffers) > 0:
			bs := allocN[C.VkDescriptorBufferInfo](&a, len(w.Buffers))
			for j, b := range w.Buffers {
				bs[j] = C.VkDescriptorBufferInfo{buffer: C.VkBuffer(b.Buffer), offset: C.VkDeviceSize(b.Offset), _range: C.VkDeviceSize(b.Range)}
			}
			ws[i].descriptorCount = C.uint32_t(len(w.Buffers))
			ws[i].pBufferInfo = &bs[0]
		case len(w.Images) > 0:
			is := allocN[C.VkDescriptorImageInfo](&a, len(w.Images))
			for j, im := range w.Images {
				is[j] = C.VkDescriptorImageInfo{sampler: C.VkSampler(im.Sampler), imageView: C.VkImageView(im.View), imageLayout: C.VkImageLayout(im.Layout)}
			}
			ws[i].descriptorCount = C.uint32_t(len(w.Images))
			ws[i].pImageInfo = &is[0]
		case len(w.TexelViews) > 0:
			vs := allocN[C.VkBufferView](&a, len(w.TexelViews))
			for j, v := range w.TexelViews {
				vs[j] = C.VkBufferView(v)
			}
			ws[i].descriptorCount = C.uint32_t(len(w.TexelViews))
			ws[i].pTexelBufferView = &vs[0]
		}
	}
	C.gfx_vkUpdateDescriptorSets(d.fn.updateDescriptorSets, d.h, C.uint32_t(len(writes)), &ws[0])
}

// CreateBufferView calls vkCreateBufferView: a view of size bytes (or
// WholeSize) of b from offset, as texels of format.
func (d *Device) CreateBufferView(b Buffer, format uint32, offset, size uint64) (BufferView, error) {
	var a arena
	defer a.free()
	ci := alloc[C.VkBufferViewCreateInfo](&a)
	ci.sType = C.VK_STRUCTURE_TYPE_BUFFER_VIEW_CREATE_INFO
	ci.buffer = C.VkBuffer(b)
	ci.format = C.VkFormat(format)
	ci.offset = C.VkDeviceSize(offset)
	ci._range = C.VkDeviceSize(size)
	var v C.VkBufferView
	if r := Result(C.gfx_vkCreateBufferView(d.fn.createBufferView, d.h, ci, &v)); r != Success {
		return 0, fmt.Errorf("vkCreateBufferView: %w", r)
	}
	return BufferView(v), nil
}

// DestroyBufferView calls vkDestroyBufferView; a null handle is ignored.
func (d *Device) DestroyBufferView(v BufferView) {
	if v != 0 {
		C.gfx_vkDestroyBufferView(d.fn.destroyBufferView, d.h, C.VkBufferView(v))
	}
}

// CmdBindComputePipeline records vkCmdBindPipeline at the compute bind
// point.
func (d *Device) CmdBindComputePipeline(cb CommandBuffer, p Pipeline) {
	C.gfx_vkCmdBindPipeline(d.fn.cmdBindPipeline, cb, C.VkPipeline(p))
}

// CmdBindComputeDescriptorSets records vkCmdBindDescriptorSets at the
// compute bind point, sets bound from set number first on.
func (d *Device) CmdBindComputeDescriptorSets(cb CommandBuffer, layout PipelineLayout, first uint32, sets []DescriptorSet) {
	if len(sets) == 0 {
		return
	}
	var a arena
	defer a.free()
	ss := allocN[C.VkDescriptorSet](&a, len(sets))
	for i, s := range sets {
		ss[i] = C.VkDescriptorSet(s)
	}
	C.gfx_vkCmdBindDescriptorSets(d.fn.cmdBindDescriptorSets, cb, C.VkPipelineLayout(layout), C.uint32_t(first), C.uint32_t(len(sets)), &ss[0])
}

// CmdPushConstants records vkCmdPushConstants of data at offset.
func (d *Device) CmdPushConstants(cb CommandBuffer, layout PipelineLayout, stages, offset uint32, data []byte) {
	if len(data) == 0 {
		return
	}
	var a arena
	defer a.free()
	p := a.bytes(uintptr(len(data)))
	copy(unsafe.Slice((*byte)(p), len(data)), data)
	C.gfx_vkCmdPushConstants(d.fn.cmdPushConstants, cb, C.VkPipelineLayout(layout), C.VkShaderStageFlags(stages),
		C.uint32_t(offset), C.uint32_t(len(data)), p)
}

// CmdDispatch records vkCmdDispatch.
func (d *Device) CmdDispatch(cb CommandBuffer, x, y, z uint32) {
	C.gfx_vkCmdDispatch(d.fn.cmdDispatch, cb, C.uint32_t(x), C.uint32_t(y), C.uint32_t(z))
}

// CmdDispatchIndirect records vkCmdDispatchIndirect with the
// VkDispatchIndirectCommand at offset of b.
func (d *Device) CmdDispatchIndirect(cb CommandBuffer, b Buffer, offset uint64) {
	C.gfx_vkCmdDispatchIndirect(d.fn.cmdDispatchIndirect, cb, C.VkBuffer(b), C.VkDeviceSize(offset))
}

// ImageCopy is a VkImageCopy between two images of one mip level.
type ImageCopy struct {
	SrcAspect, DstAspect       uint32 // VkImageAspectFlags
	SrcBaseLayer, DstBaseLayer uint32
	LayerCount                 uint32
	SrcOffset, DstOffset       [3]int32
	Extent                     [3]uint32
}

// CmdCopyImage records vkCmdCopyImage; no regions records nothing.
func (d *Device) CmdCopyImage(cb CommandBuffer, src Image, srcLayout uint32, dst Image, dstLayout uint32, regions []ImageCopy) {
	if len(regions) == 0 {
		return
	}
	var a arena
	defer a.free()
	rs := allocN[C.VkImageCopy](&a, len(regions))
	for i, r := range regions {
		rs[i] = C.VkImageCopy{
			srcSubresource: C.VkImageSubresourceLayers{aspectMask: C.VkImageAspectFlags(r.SrcAspect),
				baseArrayLayer: C.uint32_t(r.SrcBaseLayer), layerCount: C.uint32_t(r.LayerCount)},
			srcOffset: C.VkOffset3D{x: C.int32_t(r.SrcOffset[0]), y: C.int32_t(r.SrcOffset[1]), z: C.int32_t(r.SrcOffset[2])},
			dstSubresource: C.VkImageSubresourceLayers{aspectMask: C.VkImageAspectFlags(r.DstAspect),
				baseArrayLayer: C.uint32_t(r.DstBaseLayer), layerCount: C.uint32_t(r.LayerCount)},
			dstOffset: C.VkOffset3D{x: C.int32_t(r.DstOffset[0]), y: C.int32_t(r.DstOffset[1]), z: C.int32_t(r.DstOffset[2])},
			extent:    C.VkExtent3D{width: C.uint32_t(r.Extent[0]), height: C.uint32_t(r.Extent[1]), depth: C.uint32_t(r.Extent[2])},
		}
	}
	C.gfx_vkCmdCopyImage(d.fn.cmdCopyImage, cb, C.VkImage(src), C.VkImageLayout(srcLayout), C.VkImage(dst), C.VkImageLayout(dstLayout),
		C.uint32_t(len(regions)), &rs[0])
}

// Limits are the VkPhysicalDeviceLimits compute work is checked against.
type Limits struct {
	MaxComputeWorkGroupCount        [3]uint32
	MaxComputeWorkGroupSize         [3]uint32
	MaxComputeWorkGroupInvocations  uint32
	MaxComputeSharedMemorySize      uint32
	MaxPushConstantsSize            uint32
	MaxBoundDescriptorSets          uint32
	MaxUniformBufferRange           uint32
	MaxStorageBufferRange           uint32
	MaxTexelBufferElements          uint32
	MinUniformBufferOffsetAlignment uint64
	MinStorageBufferOffsetAlignment uint64
	MinTexelBufferOffsetAlignment   uint64
	MaxImageDimension1D             uint32
	MaxImageDimension2D             uint32
	MaxImageDimension3D             uint32
	MaxSamplerAnisotropy            float32
}

func limitsOf(l *C.VkPhysicalDeviceLimits) Limits {
	out := Limits{
		MaxComputeWorkGroupInvocations:  uint32(l.maxComputeWorkGroupInvocations),
		MaxComputeSharedMemorySize:      uint32(l.maxComputeSharedMemorySize),
		MaxPushConstantsSize:            uint32(l.maxPushConstantsSize),
		MaxBoundDescriptorSets:          uint32(l.maxBoundDescriptorSets),
		MaxUniformBufferRange:           uint32(l.maxUniformBufferRange),
		MaxStorageBufferRange:           uint32(l.maxStorageBufferRange),
		MaxTexelBufferElements:          uint32(l.maxTexelBufferElements),
		MinUniformBufferOffsetAlignment: uint64(l.minUniformBufferOffsetAlignment),
		MinStorageBufferOffsetAlignment: uint64(l.minStorageBufferOffsetAlignment),
		MinTexelBufferOffsetAlignment:   uint64(l.minTexelBufferOffsetAlignment),
		MaxImageDimension1D:             uint32(l.maxImageDimension1D),
		MaxImageDimension2D:             uint32(l.maxImageDimension2D),
		MaxImageDimension3D:             uint32(l.maxImageDimension3D),
		MaxSamplerAnisotropy:            float32(l.maxSamplerAnisotropy),
	}
	for i := range 3 {
		out.MaxComputeWorkGroupCount[i] = uint32(l.maxComputeWorkGroupCount[i])
		out.MaxComputeWorkGroupSize[i] = uint32(l.maxComputeWorkGroupSize[i])
	}
	return out
}
