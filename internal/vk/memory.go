package vk

/*
#define VK_NO_PROTOTYPES 1
#include <vulkan/vulkan.h>

static VkResult gfx_vkCreateBuffer(PFN_vkCreateBuffer f, VkDevice d, const VkBufferCreateInfo *info, VkBuffer *b) {
	return f(d, info, NULL, b);
}
static void gfx_vkDestroyBuffer(PFN_vkDestroyBuffer f, VkDevice d, VkBuffer b) {
	f(d, b, NULL);
}
static void gfx_vkGetBufferMemoryRequirements(PFN_vkGetBufferMemoryRequirements f, VkDevice d, VkBuffer b, VkMemoryRequirements *r) {
	f(d, b, r);
}
static void gfx_vkGetBufferMemoryRequirements2(PFN_vkGetBufferMemoryRequirements2 f, VkDevice d, const VkBufferMemoryRequirementsInfo2 *info, VkMemoryRequirements2 *r) {
	f(d, info, r);
}
static VkResult gfx_vkCreateImage(PFN_vkCreateImage f, VkDevice d, const VkImageCreateInfo *info, VkImage *i) {
	return f(d, info, NULL, i);
}
static void gfx_vkDestroyImage(PFN_vkDestroyImage f, VkDevice d, VkImage i) {
	f(d, i, NULL);
}
static void gfx_vkGetImageMemoryRequirements(PFN_vkGetImageMemoryRequirements f, VkDevice d, VkImage i, VkMemoryRequirements *r) {
	f(d, i, r);
}
static void gfx_vkGetImageMemoryRequirements2(PFN_vkGetImageMemoryRequirements2 f, VkDevice d, const VkImageMemoryRequirementsInfo2 *info, VkMemoryRequirements2 *r) {
	f(d, info, r);
}
static VkResult gfx_vkAllocateMemory(PFN_vkAllocateMemory f, VkDevice d, const VkMemoryAllocateInfo *info, VkDeviceMemory *m) {
	return f(d, info, NULL, m);
}
static void gfx_vkFreeMemory(PFN_vkFreeMemory f, VkDevice d, VkDeviceMemory m) {
	f(d, m, NULL);
}
static VkResult gfx_vkBindBufferMemory(PFN_vkBindBufferMemory f, VkDevice d, VkBuffer b, VkDeviceMemory m, VkDeviceSize off) {
	return f(d, b, m, off);
}
static VkResult gfx_vkBindImageMemory(PFN_vkBindImageMemory f, VkDevice d, VkImage i, VkDeviceMemory m, VkDeviceSize off) {
	return f(d, i, m, off);
}
static VkResult gfx_vkMapMemory(PFN_vkMapMemory f, VkDevice d, VkDeviceMemory m, VkDeviceSize off, VkDeviceSize size, void **p) {
	return f(d, m, off, size, 0, p);
}
static void gfx_vkUnmapMemory(PFN_vkUnmapMemory f, VkDevice d, VkDeviceMemory m) {
	f(d, m);
}
static VkResult gfx_vkFlushMappedMemoryRanges(PFN_vkFlushMappedMemoryRanges f, VkDevice d, uint32_t n, const VkMappedMemoryRange *r) {
	return f(d, n, r);
}
static VkResult gfx_vkInvalidateMappedMemoryRanges(PFN_vkInvalidateMappedMemoryRanges f, VkDevice d, uint32_t n, const VkMappedMemoryRange *r) {
	return f(d, n, r);
}
static VkResult gfx_vkGetMemoryFdKHR(PFN_vkGetMemoryFdKHR f, VkDevice d, const VkMemoryGetFdInfoKHR *info, int *fd) {
	return f(d, info, fd);
}
static VkResult gfx_vkGetMemoryHostPointerPropertiesEXT(PFN_vkGetMemoryHostPointerPropertiesEXT f, VkDevice d, void *p, VkMemoryHostPointerPropertiesEXT *props) {
	return f(d, VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT, p, props);
}
static VkResult gfx_vkCreateImageView(PFN_vkCreateImageView f, VkDevice d, const VkImageViewCreateInfo *info, VkImageView *v) {
	return f(d, info, NULL, v);
}
static void gfx_vkDestroyImageView(PFN_vkDestroyImageView f, VkDevice d, VkImageView v) {
	f(d, v, NULL);
}
static VkResult gfx_vkCreateSampler(PFN_vkCreateSampler f, VkDevice d, const VkSamplerCreateInfo *info, VkSampler *s) {
	return f(d, info, NULL, s);
}
static void gfx_vkDestroySampler(PFN_vkDestroySampler f, VkDevice d, VkSampler s) {
	f(d, s, NULL);
}
*/
import "C"

import (
	"fmt"
	"unsafe"
)

// Non-dispatchable handles, 64-bit integers (see the package comment). The
// zero value is VK_NULL_HANDLE.
type (
	// Buffer is a VkBuffer.
	Buffer uint64
	// Image is a VkImage.
	Image uint64
	// ImageView is a VkImageView.
	ImageView uint64
	// Sampler is a VkSampler.
	Sampler uint64
	// DeviceMemory is a VkDeviceMemory.
	DeviceMemory uint64
)

// WholeSize is VK_WHOLE_SIZE.
const WholeSize = ^uint64(0)

// HasMemoryFD reports whether vkGetMemoryFdKHR was loaded, that is whether
// VK_KHR_external_memory_fd is enabled.
func (d *Device) HasMemoryFD() bool { return d.fn.getMemoryFdKHR != nil }

// BufferCreateInfo describes a buffer of exclusive sharing mode.
type BufferCreateInfo struct {
	Size  uint64
	Usage uint32 // VkBufferUsageFlags
	Flags uint32 // VkBufferCreateFlags
	// ExternalHandleTypes chains VkExternalMemoryBufferCreateInfo when not
	// zero.
	ExternalHandleTypes uint32
}

// CreateBuffer calls vkCreateBuffer.
func (d *Device) CreateBuffer(info BufferCreateInfo) (Buffer, error) {
	var a arena
	defer a.free()
	ci := alloc[C.VkBufferCreateInfo](&a)
	ci.sType = C.VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO
	ci.flags = C.VkBufferCreateFlags(info.Flags)
	ci.size = C.VkDeviceSize(info.Size)
	ci.usage = C.VkBufferUsageFlags(info.Usage)
	ci.sharingMode = C.VK_SHARING_MODE_EXCLUSIVE
	if info.ExternalHandleTypes != 0 {
		ext := alloc[C.VkExternalMemoryBufferCreateInfo](&a)
		ext.sType = C.VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_BUFFER_CREATE_INFO
		ext.handleTypes = C.VkExternalMemoryHandleTypeFlags(info.ExternalHandleTypes)
		ci.pNext = unsafe.Pointer(ext)
	}
	var b C.VkBuffer
	if r := Result(C.gfx_vkCreateBuffer(d.fn.createBuffer, d.h, ci, &b)); r != Success {
		return 0, fmt.Errorf("vkCreateBuffer: %w", r)
	}
	return Buffer(b), nil
}

// DestroyBuffer calls vkDestroyBuffer; a null handle is ignored.
func (d *Device) DestroyBuffer(b Buffer) {
	if b != 0 {
		C.gfx_vkDestroyBuffer(d.fn.destroyBuffer, d.h, C.VkBuffer(b))
	}
}

// MemoryRequirements is a VkMemoryRequirements with the
// VkMemoryDedicatedRequirements answers (both false without
// vkGet*MemoryRequirements2).
type MemoryRequirements struct {
	Size, Alignment   uint64
	MemoryTypeBits    uint32
	PrefersDedicated  bool
	RequiresDedicated bool
}

func memoryRequirements(r *C.VkMemoryRequirements, ded *C.VkMemoryDedicatedRequirements) MemoryRequirements {
	out := MemoryRequirements{
		Size:           uint64(r.size),
		Alignment:      uint64(r.alignment),
		MemoryTypeBits: uint32(r.memoryTypeBits),
	}
	if ded != nil {
		out.PrefersDedicated = ded.prefersDedicatedAllocation != 0
		out.RequiresDedicated = ded.requiresDedicatedAllocation != 0
	}
	return out
}

// BufferMemoryRequirements asks what memory b needs
// (vkGetBufferMemoryRequirements2 where loaded, else the 1.0 call).
func (d *Device) BufferMemoryRequirements(b Buffer) MemoryRequirements {
	if d.fn.getBufferMemoryRequirements2 == nil {
		var r C.VkMemoryRequirements
		C.gfx_vkGetBufferMemoryRequirements(d.fn.getBufferMemoryRequirements, d.h, C.VkBuffer(b), &r)
		return memoryRequirements(&r, nil)
	}
	var a arena
	defer a.free()
	info := alloc[C.VkBufferMemoryRequirementsInfo2](&a)
	info.sType = C.VK_STRUCTURE_TYPE_BUFFER_MEMORY_REQUIREMENTS_INFO_2
	info.buffer = C.VkBuffer(b)
	ded := alloc[C.VkMemoryDedicatedRequirements](&a)
	ded.sType = C.VK_STRUCTURE_TYPE_MEMORY_DEDICATED_REQUIREMENTS
	r2 := alloc[C.VkMemoryRequirements2](&a)
	r2.sType = C.VK_STRUCTURE_TYPE_MEMORY_REQUIREMENTS_2
	r2.pNext = unsafe.Pointer(ded)
	C.gfx_vkGetBufferMemoryRequirements2(d.fn.getBufferMemoryRequirements2, d.h, info, r2)
	return memoryRequirements(&r2.memoryRequirements, ded)
}

// ImageCreateInfo describes an image of one sample, exclusive sharing mode
// and initial layout UNDEFINED.
type ImageCreateInfo struct {
	Flags       uint32 // VkImageCreateFlags
	Type        uint32 // VkImageType
	Format      uint32 // VkFormat
	Extent      [3]uint32
	MipLevels   uint32
	ArrayLayers uint32
	Tiling      uint32 // VkImageTiling
	Usage       uint32 // VkImageUsageFlags
	// ExternalHandleTypes chains VkExternalMemoryImageCreateInfo when not
	// zero.
	ExternalHandleTypes uint32
	// ViewFormats, when not empty, chains a VkImageFormatListCreateInfo
	// (Vulkan 1.2): the formats the image's views may have (Flags then
	// holds CreateMutableFormat).
	ViewFormats []uint32
}

// CreateMutableFormat is VK_IMAGE_CREATE_MUTABLE_FORMAT_BIT.
const CreateMutableFormat = C.VK_IMAGE_CREATE_MUTABLE_FORMAT_BIT

// CreateImage calls vkCreateImage.
func (d *Device) CreateImage(info ImageCreateInfo) (Image, error) {
	var a arena
	defer a.free()
	ci := alloc[C.VkImageCreateInfo](&a)
	ci.sType = C.VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO
	ci.flags = C.VkImageCreateFlags(info.Flags)
	ci.imageType = C.VkImageType(info.Type)
	ci.format = C.VkFormat(info.Format)
	ci.extent = C.VkExtent3D{width: C.uint32_t(info.Extent[0]), height: C.uint32_t(info.Extent[1]), depth: C.uint32_t(info.Extent[2])}
	ci.mipLevels = C.uint32_t(info.MipLevels)
	ci.arrayLayers = C.uint32_t(info.ArrayLayers)
	ci.samples = C.VK_SAMPLE_COUNT_1_BIT
	ci.tiling = C.VkImageTiling(info.Tiling)
	ci.usage = C.VkImageUsageFlags(info.Usage)
	ci.sharingMode = C.VK_SHARING_MODE_EXCLUSIVE
	ci.initialLayout = C.VK_IMAGE_LAYOUT_UNDEFINED
	if info.ExternalHandleTypes != 0 {
		ext := alloc[C.VkExternalMemoryImageCreateInfo](&a)
		ext.sType = C.VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_IMAGE_CREATE_INFO
		ext.handleTypes = C.VkExternalMemoryHandleTypeFlags(info.ExternalHandleTypes)
		ext.pNext = ci.pNext
		ci.pNext = unsafe.Pointer(ext)
	}
	if len(info.ViewFormats) > 0 {
		fl := alloc[C.VkImageFormatListCreateInfo](&a)
		fl.sType = C.VK_STRUCTURE_TYPE_IMAGE_FORMAT_LIST_CREATE_INFO
		fs := allocN[C.VkFormat](&a, len(info.ViewFormats))
		for i, f := range info.ViewFormats {
			fs[i] = C.VkFormat(f)
		}
		fl.viewFormatCount = C.uint32_t(len(fs))
		fl.pViewFormats = &fs[0]
		fl.pNext = ci.pNext
		ci.pNext = unsafe.Pointer(fl)
	}
	var img C.VkImage
	if r := Result(C.gfx_vkCreateImage(d.fn.createImage, d.h, ci, &img)); r != Success {
		return 0, fmt.Errorf("vkCreateImage: %w", r)
	}
	return Image(img), nil
}

// DestroyImage calls vkDestroyImage; a null handle is ignored.
func (d *Device) DestroyImage(i Image) {
	if i != 0 {
		C.gfx_vkDestroyImage(d.fn.destroyImage, d.h, C.VkImage(i))
	}
}

// ImageMemoryRequirements asks what memory i needs
// (vkGetImageMemoryRequirements2 where loaded, else the 1.0 call).
func (d *Device) ImageMemoryRequirements(i Image) MemoryRequirements {
	if d.fn.getImageMemoryRequirements2 == nil {
		var r C.VkMemoryRequirements
		C.gfx_vkGetImageMemoryRequirements(d.fn.getImageMemoryRequirements, d.h, C.VkImage(i), &r)
		return memoryRequirements(&r, nil)
	}
	var a arena
	defer a.free()
	info := alloc[C.VkImageMemoryRequirementsInfo2](&a)
	info.sType = C.VK_STRUCTURE_TYPE_IMAGE_MEMORY_REQUIREMENTS_INFO_2
	info.image = C.VkImage(i)
	ded := alloc[C.VkMemoryDedicatedRequirements](&a)
	ded.sType = C.VK_STRUCTURE_TYPE_MEMORY_DEDICATED_REQUIREMENTS
	r2 := alloc[C.VkMemoryRequirements2](&a)
	r2.sType = C.VK_STRUCTURE_TYPE_MEMORY_REQUIREMENTS_2
	r2.pNext = unsafe.Pointer(ded)
	C.gfx_vkGetImageMemoryRequirements2(d.fn.getImageMemoryRequirements2, d.h, info, r2)
	return memoryRequirements(&r2.memoryRequirements, ded)
}

// MemoryAllocateInfo describes an allocation and what is chained to
// VkMemoryAllocateInfo.
type MemoryAllocateInfo struct {
	Size      uint64
	TypeIndex uint32
	// ExportHandleTypes chains VkExportMemoryAllocateInfo when not zero.
	ExportHandleTypes uint32
	// DedicatedBuffer or DedicatedImage, when not null, chains
	// VkMemoryDedicatedAllocateInfo.
	DedicatedBuffer Buffer
	DedicatedImage  Image
	// ImportHandleType, when not zero, chains VkImportMemoryFdInfoKHR with
	// ImportFD. On success the implementation owns the descriptor; on
	// failure the caller still does.
	ImportHandleType uint32
	ImportFD         int
	// HostPointer, when not nil, chains VkImportMemoryHostPointerInfoEXT
	// (HOST_ALLOCATION): the allocation is that host memory, which must
	// stay valid, and pinned if Go's, until the memory is freed.
	HostPointer unsafe.Pointer
}

// AllocateMemory calls vkAllocateMemory.
func (d *Device) AllocateMemory(info MemoryAllocateInfo) (DeviceMemory, error) {
	var a arena
	defer a.free()
	ai := alloc[C.VkMemoryAllocateInfo](&a)
	ai.sType = C.VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO
	ai.allocationSize = C.VkDeviceSize(info.Size)
	ai.memoryTypeIndex = C.uint32_t(info.TypeIndex)
	next := &ai.pNext
	if info.ExportHandleTypes != 0 {
		ex := alloc[C.VkExportMemoryAllocateInfo](&a)
		ex.sType = C.VK_STRUCTURE_TYPE_EXPORT_MEMORY_ALLOCATE_INFO
		ex.handleTypes = C.VkExternalMemoryHandleTypeFlags(info.ExportHandleTypes)
		*next = unsafe.Pointer(ex)
		next = &ex.pNext
	}
	if info.DedicatedBuffer != 0 || info.DedicatedImage != 0 {
		ded := alloc[C.VkMemoryDedicatedAllocateInfo](&a)
		ded.sType = C.VK_STRUCTURE_TYPE_MEMORY_DEDICATED_ALLOCATE_INFO
		ded.buffer = C.VkBuffer(info.DedicatedBuffer)
		ded.image = C.VkImage(info.DedicatedImage)
		*next = unsafe.Pointer(ded)
		next = &ded.pNext
	}
	if info.HostPointer != nil {
		hp := alloc[C.VkImportMemoryHostPointerInfoEXT](&a)
		hp.sType = C.VK_STRUCTURE_TYPE_IMPORT_MEMORY_HOST_POINTER_INFO_EXT
		hp.handleType = C.VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT
		hp.pHostPointer = info.HostPointer
		*next = unsafe.Pointer(hp)
		next = &hp.pNext
	}
	if info.ImportHandleType != 0 {
		im := alloc[C.VkImportMemoryFdInfoKHR](&a)
		im.sType = C.VK_STRUCTURE_TYPE_IMPORT_MEMORY_FD_INFO_KHR
		im.handleType = C.VkExternalMemoryHandleTypeFlagBits(info.ImportHandleType)
		im.fd = C.int(info.ImportFD)
		*next = unsafe.Pointer(im)
	}
	var m C.VkDeviceMemory
	if r := Result(C.gfx_vkAllocateMemory(d.fn.allocateMemory, d.h, ai, &m)); r != Success {
		return 0, fmt.Errorf("vkAllocateMemory: %w", r)
	}
	return DeviceMemory(m), nil
}

// FreeMemory calls vkFreeMemory; a null handle is ignored.
func (d *Device) FreeMemory(m DeviceMemory) {
	if m != 0 {
		C.gfx_vkFreeMemory(d.fn.freeMemory, d.h, C.VkDeviceMemory(m))
	}
}

// BindBufferMemory calls vkBindBufferMemory.
func (d *Device) BindBufferMemory(b Buffer, m DeviceMemory, offset uint64) error {
	if r := Result(C.gfx_vkBindBufferMemory(d.fn.bindBufferMemory, d.h, C.VkBuffer(b), C.VkDeviceMemory(m), C.VkDeviceSize(offset))); r != Success {
		return fmt.Errorf("vkBindBufferMemory: %w", r)
	}
	return nil
}

// BindImageMemory calls vkBindImageMemory.
func (d *Device) BindImageMemory(i Image, m DeviceMemory, offset uint64) error {
	if r := Result(C.gfx_vkBindImageMemory(d.fn.bindImageMemory, d.h, C.VkImage(i), C.VkDeviceMemory(m), C.VkDeviceSize(offset))); r != Success {
		return fmt.Errorf("vkBindImageMemory: %w", r)
	}
	return nil
}

// MapMemory maps size bytes (or WholeSize) of m from offset into the
// address space (vkMapMemory). The pointer is C memory, valid until
// UnmapMemory or FreeMemory.
func (d *Device) MapMemory(m DeviceMemory, offset, size uint64) (unsafe.Pointer, error) {
	var p unsafe.Pointer
	if r := Result(C.gfx_vkMapMemory(d.fn.mapMemory, d.h, C.VkDeviceMemory(m), C.VkDeviceSize(offset), C.VkDeviceSize(size), &p)); r != Success {
		return nil, fmt.Errorf("vkMapMemory: %w", r)
	}
	return p, nil
}

// UnmapMemory calls vkUnmapMemory.
func (d *Device) UnmapMemory(m DeviceMemory) {
	C.gfx_vkUnmapMemory(d.fn.unmapMemory, d.h, C.VkDeviceMemory(m))
}

func (d *Device) mappedRange(a *arena, m DeviceMemory, offset, size uint64) *C.VkMappedMemoryRange {
	r := alloc[C.VkMappedMemoryRange](a)
	r.sType = C.VK_STRUCTURE_TYPE_MAPPED_MEMORY_RANGE
	r.memory = C.VkDeviceMemory(m)
	r.offset = C.VkDeviceSize(offset)
	r.size = C.VkDeviceSize(size)
	return r
}

// FlushMappedMemory makes host writes to a mapped range of non-coherent
// memory available to the device (vkFlushMappedMemoryRanges). offset and
// size must be multiples of nonCoherentAtomSize, or size WholeSize or reach
// the end of the allocation.
func (d *Device) FlushMappedMemory(m DeviceMemory, offset, size uint64) error {
	var a arena
	defer a.free()
	if r := Result(C.gfx_vkFlushMappedMemoryRanges(d.fn.flushMappedMemoryRanges, d.h, 1, d.mappedRange(&a, m, offset, size))); r != Success {
		return fmt.Errorf("vkFlushMappedMemoryRanges: %w", r)
	}
	return nil
}

// InvalidateMappedMemory makes device writes to a mapped range of
// non-coherent memory visible to the host (vkInvalidateMappedMemoryRanges),
// with the same alignment rules as FlushMappedMemory.
func (d *Device) InvalidateMappedMemory(m DeviceMemory, offset, size uint64) error {
	var a arena
	defer a.free()
	if r := Result(C.gfx_vkInvalidateMappedMemoryRanges(d.fn.invalidateMappedMemoryRanges, d.h, 1, d.mappedRange(&a, m, offset, size))); r != Success {
		return fmt.Errorf("vkInvalidateMappedMemoryRanges: %w", r)
	}
	return nil
}

// HasHostPointer reports whether VK_EXT_external_memory_host's
// vkGetMemoryHostPointerPropertiesEXT is loaded.
func (d *Device) HasHostPointer() bool { return d.fn.getMemoryHostPointerProps != nil }

// HostPointerTypeBits returns the memory types host memory at p can be
// imported as (vkGetMemoryHostPointerPropertiesEXT).
func (d *Device) HostPointerTypeBits(p unsafe.Pointer) (uint32, error) {
	if d.fn.getMemoryHostPointerProps == nil {
		return 0, fmt.Errorf("%w: vkGetMemoryHostPointerPropertiesEXT (VK_EXT_external_memory_host not enabled)", ErrProcNotFound)
	}
	var a arena
	defer a.free()
	props := alloc[C.VkMemoryHostPointerPropertiesEXT](&a)
	props.sType = C.VK_STRUCTURE_TYPE_MEMORY_HOST_POINTER_PROPERTIES_EXT
	if r := Result(C.gfx_vkGetMemoryHostPointerPropertiesEXT(d.fn.getMemoryHostPointerProps, d.h, p, props)); r != Success {
		return 0, fmt.Errorf("vkGetMemoryHostPointerPropertiesEXT: %w", r)
	}
	return uint32(props.memoryTypeBits), nil
}

// MemoryFD exports m as a new file descriptor of handleType
// (vkGetMemoryFdKHR); the caller owns it.
func (d *Device) MemoryFD(m DeviceMemory, handleType uint32) (int, error) {
	if d.fn.getMemoryFdKHR == nil {
		return -1, fmt.Errorf("%w: vkGetMemoryFdKHR (VK_KHR_external_memory_fd not enabled)", ErrProcNotFound)
	}
	var a arena
	defer a.free()
	info := alloc[C.VkMemoryGetFdInfoKHR](&a)
	info.sType = C.VK_STRUCTURE_TYPE_MEMORY_GET_FD_INFO_KHR
	info.memory = C.VkDeviceMemory(m)
	info.handleType = C.VkExternalMemoryHandleTypeFlagBits(handleType)
	fd := C.int(-1)
	if r := Result(C.gfx_vkGetMemoryFdKHR(d.fn.getMemoryFdKHR, d.h, info, &fd)); r != Success {
		return -1, fmt.Errorf("vkGetMemoryFdKHR: %w", r)
	}
	return int(fd), nil
}

// ImageViewCreateInfo describes an image view with identity swizzle.
type ImageViewCreateInfo struct {
	Image      Image
	ViewType   uint32 // VkImageViewType
	Format     uint32 // VkFormat
	Aspect     uint32 // VkImageAspectFlags
	BaseMip    uint32
	MipCount   uint32
	BaseLayer  uint32
	LayerCount uint32
}

// CreateImageView calls vkCreateImageView.
func (d *Device) CreateImageView(info ImageViewCreateInfo) (ImageView, error) {
	var a arena
	defer a.free()
	ci := alloc[C.VkImageViewCreateInfo](&a)
	ci.sType = C.VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO
	ci.image = C.VkImage(info.Image)
	ci.viewType = C.VkImageViewType(info.ViewType)
	ci.format = C.VkFormat(info.Format)
	ci.subresourceRange = C.VkImageSubresourceRange{
		aspectMask:     C.VkImageAspectFlags(info.Aspect),
		baseMipLevel:   C.uint32_t(info.BaseMip),
		levelCount:     C.uint32_t(info.MipCount),
		baseArrayLayer: C.uint32_t(info.BaseLayer),
		layerCount:     C.uint32_t(info.LayerCount),
	}
	var v C.VkImageView
	if r := Result(C.gfx_vkCreateImageView(d.fn.createImageView, d.h, ci, &v)); r != Success {
		return 0, fmt.Errorf("vkCreateImageView: %w", r)
	}
	return ImageView(v), nil
}

// DestroyImageView calls vkDestroyImageView; a null handle is ignored.
func (d *Device) DestroyImageView(v ImageView) {
	if v != 0 {
		C.gfx_vkDestroyImageView(d.fn.destroyImageView, d.h, C.VkImageView(v))
	}
}

// SamplerCreateInfo describes a sampler without anisotropy or compare.
type SamplerCreateInfo struct {
	MagFilter, MinFilter uint32 // VkFilter
	MipmapMode           uint32 // VkSamplerMipmapMode
	AddressU             uint32 // VkSamplerAddressMode
	AddressV             uint32
	AddressW             uint32
	BorderColor          uint32 // VkBorderColor
	MaxLod               float32
	Unnormalized         bool
}

// CreateSampler calls vkCreateSampler.
func (d *Device) CreateSampler(info SamplerCreateInfo) (Sampler, error) {
	var a arena
	defer a.free()
	ci := alloc[C.VkSamplerCreateInfo](&a)
	ci.sType = C.VK_STRUCTURE_TYPE_SAMPLER_CREATE_INFO
	ci.magFilter = C.VkFilter(info.MagFilter)
	ci.minFilter = C.VkFilter(info.MinFilter)
	ci.mipmapMode = C.VkSamplerMipmapMode(info.MipmapMode)
	ci.addressModeU = C.VkSamplerAddressMode(info.AddressU)
	ci.addressModeV = C.VkSamplerAddressMode(info.AddressV)
	ci.addressModeW = C.VkSamplerAddressMode(info.AddressW)
	ci.borderColor = C.VkBorderColor(info.BorderColor)
	ci.maxLod = C.float(info.MaxLod)
	if info.Unnormalized {
		ci.unnormalizedCoordinates = C.VK_TRUE
	}
	var s C.VkSampler
	if r := Result(C.gfx_vkCreateSampler(d.fn.createSampler, d.h, ci, &s)); r != Success {
		return 0, fmt.Errorf("vkCreateSampler: %w", r)
	}
	return Sampler(s), nil
}

// DestroySampler calls vkDestroySampler; a null handle is ignored.
func (d *Device) DestroySampler(s Sampler) {
	if s != 0 {
		C.gfx_vkDestroySampler(d.fn.destroySampler, d.h, C.VkSampler(s))
	}
}
