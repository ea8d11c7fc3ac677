package vk

/*
#define VK_NO_PROTOTYPES 1
#include <vulkan/vulkan.h>

// The synchronization2 flags are static const variables, which Go cannot
// reference: flags2FromHeader reads them through gfx_flag2, in this order.
static const uint64_t gfx_flags2[] = {
	VK_PIPELINE_STAGE_2_TOP_OF_PIPE_BIT,
	VK_PIPELINE_STAGE_2_DRAW_INDIRECT_BIT,
	VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
	VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT,
	VK_PIPELINE_STAGE_2_BOTTOM_OF_PIPE_BIT,
	VK_PIPELINE_STAGE_2_HOST_BIT,
	VK_PIPELINE_STAGE_2_ALL_GRAPHICS_BIT,
	VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT,
	VK_PIPELINE_STAGE_2_COPY_BIT,
	VK_PIPELINE_STAGE_2_RESOLVE_BIT,
	VK_PIPELINE_STAGE_2_BLIT_BIT,
	VK_PIPELINE_STAGE_2_CLEAR_BIT,
	VK_PIPELINE_STAGE_2_INDEX_INPUT_BIT,
	VK_PIPELINE_STAGE_2_VERTEX_ATTRIBUTE_INPUT_BIT,
	VK_PIPELINE_STAGE_2_PRE_RASTERIZATION_SHADERS_BIT,
	VK_ACCESS_2_INDIRECT_COMMAND_READ_BIT,
	VK_ACCESS_2_UNIFORM_READ_BIT,
	VK_ACCESS_2_SHADER_READ_BIT,
	VK_ACCESS_2_SHADER_WRITE_BIT,
	VK_ACCESS_2_TRANSFER_READ_BIT,
	VK_ACCESS_2_TRANSFER_WRITE_BIT,
	VK_ACCESS_2_HOST_READ_BIT,
	VK_ACCESS_2_HOST_WRITE_BIT,
	VK_ACCESS_2_MEMORY_READ_BIT,
	VK_ACCESS_2_MEMORY_WRITE_BIT,
	VK_ACCESS_2_SHADER_SAMPLED_READ_BIT,
	VK_ACCESS_2_SHADER_STORAGE_READ_BIT,
	VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT,
};
static uint64_t gfx_flag2(int i) { return gfx_flags2[i]; }
*/
import "C"

// Extension and layer names.
const (
	ValidationLayerName = "VK_LAYER_KHRONOS_validation"

	ExtDebugUtils                    = "VK_EXT_debug_utils"
	ExtPortabilityEnumeration        = "VK_KHR_portability_enumeration"
	ExtGetPhysicalDeviceProperties2  = "VK_KHR_get_physical_device_properties2"
	ExtExternalMemoryCapabilities    = "VK_KHR_external_memory_capabilities"
	ExtExternalSemaphoreCapabilities = "VK_KHR_external_semaphore_capabilities"
	ExtExternalFenceCapabilities     = "VK_KHR_external_fence_capabilities"
	ExtExternalMemory                = "VK_KHR_external_memory"
	ExtExternalSemaphore             = "VK_KHR_external_semaphore"
	ExtExternalFence                 = "VK_KHR_external_fence"
	ExtExternalMemoryFD              = "VK_KHR_external_memory_fd"
	ExtExternalSemaphoreFD           = "VK_KHR_external_semaphore_fd"
	ExtExternalFenceFD               = "VK_KHR_external_fence_fd"
	ExtExternalMemoryHost            = "VK_EXT_external_memory_host"
	ExtExternalMemoryDMABuf          = "VK_EXT_external_memory_dma_buf"
	ExtImageDRMFormatModifier        = "VK_EXT_image_drm_format_modifier"
	ExtDedicatedAllocation           = "VK_KHR_dedicated_allocation"
	ExtGetMemoryRequirements2        = "VK_KHR_get_memory_requirements2"
	ExtSynchronization2              = "VK_KHR_synchronization2"
	ExtTimelineSemaphore             = "VK_KHR_timeline_semaphore"
	ExtBufferDeviceAddress           = "VK_KHR_buffer_device_address"
	ExtDriverProperties              = "VK_KHR_driver_properties"
	ExtCreateRenderpass2             = "VK_KHR_create_renderpass2"
	ExtDepthStencilResolve           = "VK_KHR_depth_stencil_resolve"
	ExtPortabilitySubset             = "VK_KHR_portability_subset"
)

// InstanceCreateEnumeratePortabilityKHR is VK_INSTANCE_CREATE_ENUMERATE_PORTABILITY_BIT_KHR.
const InstanceCreateEnumeratePortabilityKHR = C.VK_INSTANCE_CREATE_ENUMERATE_PORTABILITY_BIT_KHR

// VkPhysicalDeviceType.
const (
	PhysicalDeviceTypeOther         = C.VK_PHYSICAL_DEVICE_TYPE_OTHER
	PhysicalDeviceTypeIntegratedGPU = C.VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU
	PhysicalDeviceTypeDiscreteGPU   = C.VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU
	PhysicalDeviceTypeVirtualGPU    = C.VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU
	PhysicalDeviceTypeCPU           = C.VK_PHYSICAL_DEVICE_TYPE_CPU
)

// VkDriverId values of software implementations.
const (
	DriverIDGoogleSwiftshader = C.VK_DRIVER_ID_GOOGLE_SWIFTSHADER
	DriverIDMesaLLVMpipe      = C.VK_DRIVER_ID_MESA_LLVMPIPE
)

// VkQueueFlagBits.
const (
	QueueGraphics      = C.VK_QUEUE_GRAPHICS_BIT
	QueueCompute       = C.VK_QUEUE_COMPUTE_BIT
	QueueTransfer      = C.VK_QUEUE_TRANSFER_BIT
	QueueSparseBinding = C.VK_QUEUE_SPARSE_BINDING_BIT
	QueueProtected     = C.VK_QUEUE_PROTECTED_BIT
)

// VkMemoryHeapFlagBits.
const (
	MemoryHeapDeviceLocal   = C.VK_MEMORY_HEAP_DEVICE_LOCAL_BIT
	MemoryHeapMultiInstance = C.VK_MEMORY_HEAP_MULTI_INSTANCE_BIT
)

// VkMemoryPropertyFlagBits.
const (
	MemoryPropertyDeviceLocal     = C.VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT
	MemoryPropertyHostVisible     = C.VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT
	MemoryPropertyHostCoherent    = C.VK_MEMORY_PROPERTY_HOST_COHERENT_BIT
	MemoryPropertyHostCached      = C.VK_MEMORY_PROPERTY_HOST_CACHED_BIT
	MemoryPropertyLazilyAllocated = C.VK_MEMORY_PROPERTY_LAZILY_ALLOCATED_BIT
	MemoryPropertyProtected       = C.VK_MEMORY_PROPERTY_PROTECTED_BIT
)

// VkExternalMemoryHandleTypeFlagBits.
const (
	ExternalMemoryHandleTypeOpaqueFD       = C.VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT
	ExternalMemoryHandleTypeDMABuf         = C.VK_EXTERNAL_MEMORY_HANDLE_TYPE_DMA_BUF_BIT_EXT
	ExternalMemoryHandleTypeHostAllocation = C.VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT
	ExternalMemoryHandleTypeHostMapped     = C.VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_MAPPED_FOREIGN_MEMORY_BIT_EXT
)

// VkExternalMemoryFeatureFlagBits.
const (
	ExternalMemoryFeatureDedicatedOnly = C.VK_EXTERNAL_MEMORY_FEATURE_DEDICATED_ONLY_BIT
	ExternalMemoryFeatureExportable    = C.VK_EXTERNAL_MEMORY_FEATURE_EXPORTABLE_BIT
	ExternalMemoryFeatureImportable    = C.VK_EXTERNAL_MEMORY_FEATURE_IMPORTABLE_BIT
)

// VkExternalSemaphoreHandleTypeFlagBits.
const (
	ExternalSemaphoreHandleTypeOpaqueFD = C.VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD_BIT
	ExternalSemaphoreHandleTypeSyncFD   = C.VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_SYNC_FD_BIT
)

// VkExternalSemaphoreFeatureFlagBits.
const (
	ExternalSemaphoreFeatureExportable = C.VK_EXTERNAL_SEMAPHORE_FEATURE_EXPORTABLE_BIT
	ExternalSemaphoreFeatureImportable = C.VK_EXTERNAL_SEMAPHORE_FEATURE_IMPORTABLE_BIT
)

// VkBufferUsageFlagBits.
const (
	BufferUsageTransferSrc         = C.VK_BUFFER_USAGE_TRANSFER_SRC_BIT
	BufferUsageTransferDst         = C.VK_BUFFER_USAGE_TRANSFER_DST_BIT
	BufferUsageUniformBuffer       = C.VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT
	BufferUsageStorageBuffer       = C.VK_BUFFER_USAGE_STORAGE_BUFFER_BIT
	BufferUsageShaderDeviceAddress = C.VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT
)

// VkImageUsageFlagBits.
const (
	ImageUsageTransferSrc     = C.VK_IMAGE_USAGE_TRANSFER_SRC_BIT
	ImageUsageTransferDst     = C.VK_IMAGE_USAGE_TRANSFER_DST_BIT
	ImageUsageSampled         = C.VK_IMAGE_USAGE_SAMPLED_BIT
	ImageUsageStorage         = C.VK_IMAGE_USAGE_STORAGE_BIT
	ImageUsageColorAttachment = C.VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT
)

// VkFormat, VkImageType and VkImageTiling values.
const (
	FormatR8G8B8A8Unorm = C.VK_FORMAT_R8G8B8A8_UNORM
	ImageType2D         = C.VK_IMAGE_TYPE_2D
	ImageTilingOptimal  = C.VK_IMAGE_TILING_OPTIMAL
	ImageTilingLinear   = C.VK_IMAGE_TILING_LINEAR
)

// More VkBufferUsageFlagBits.
const (
	BufferUsageUniformTexelBuffer = C.VK_BUFFER_USAGE_UNIFORM_TEXEL_BUFFER_BIT
	BufferUsageStorageTexelBuffer = C.VK_BUFFER_USAGE_STORAGE_TEXEL_BUFFER_BIT
	BufferUsageIndirectBuffer     = C.VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT
)

// More VkImageUsageFlagBits.
const (
	ImageUsageDepthStencilAttachment = C.VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT
)

// VkFormatFeatureFlagBits.
const (
	FormatFeatureSampledImage             = C.VK_FORMAT_FEATURE_SAMPLED_IMAGE_BIT
	FormatFeatureStorageImage             = C.VK_FORMAT_FEATURE_STORAGE_IMAGE_BIT
	FormatFeatureUniformTexelBuffer       = C.VK_FORMAT_FEATURE_UNIFORM_TEXEL_BUFFER_BIT
	FormatFeatureStorageTexelBuffer       = C.VK_FORMAT_FEATURE_STORAGE_TEXEL_BUFFER_BIT
	FormatFeatureColorAttachment          = C.VK_FORMAT_FEATURE_COLOR_ATTACHMENT_BIT
	FormatFeatureDepthStencilAttachment   = C.VK_FORMAT_FEATURE_DEPTH_STENCIL_ATTACHMENT_BIT
	FormatFeatureSampledImageFilterLinear = C.VK_FORMAT_FEATURE_SAMPLED_IMAGE_FILTER_LINEAR_BIT
	FormatFeatureTransferSrc              = C.VK_FORMAT_FEATURE_TRANSFER_SRC_BIT
	FormatFeatureTransferDst              = C.VK_FORMAT_FEATURE_TRANSFER_DST_BIT
)

// VkImageType, VkImageViewType and VkImageAspectFlagBits values.
const (
	ImageType1D = C.VK_IMAGE_TYPE_1D
	ImageType3D = C.VK_IMAGE_TYPE_3D

	ImageViewType1D      = C.VK_IMAGE_VIEW_TYPE_1D
	ImageViewType2D      = C.VK_IMAGE_VIEW_TYPE_2D
	ImageViewType3D      = C.VK_IMAGE_VIEW_TYPE_3D
	ImageViewType1DArray = C.VK_IMAGE_VIEW_TYPE_1D_ARRAY
	ImageViewType2DArray = C.VK_IMAGE_VIEW_TYPE_2D_ARRAY

	ImageAspectColor   = C.VK_IMAGE_ASPECT_COLOR_BIT
	ImageAspectDepth   = C.VK_IMAGE_ASPECT_DEPTH_BIT
	ImageAspectStencil = C.VK_IMAGE_ASPECT_STENCIL_BIT
)

// VkImageLayout values.
const (
	ImageLayoutUndefined                     = C.VK_IMAGE_LAYOUT_UNDEFINED
	ImageLayoutGeneral                       = C.VK_IMAGE_LAYOUT_GENERAL
	ImageLayoutColorAttachmentOptimal        = C.VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL
	ImageLayoutDepthStencilAttachmentOptimal = C.VK_IMAGE_LAYOUT_DEPTH_STENCIL_ATTACHMENT_OPTIMAL
	ImageLayoutDepthStencilReadOnlyOptimal   = C.VK_IMAGE_LAYOUT_DEPTH_STENCIL_READ_ONLY_OPTIMAL
	ImageLayoutShaderReadOnlyOptimal         = C.VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL
	ImageLayoutTransferSrcOptimal            = C.VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL
	ImageLayoutTransferDstOptimal            = C.VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL
	ImageLayoutPreinitialized                = C.VK_IMAGE_LAYOUT_PREINITIALIZED
)

// Special queue family indices, mip level and array layer counts.
const (
	QueueFamilyIgnored   = ^uint32(0)     // VK_QUEUE_FAMILY_IGNORED
	QueueFamilyExternal  = ^uint32(0) - 1 // VK_QUEUE_FAMILY_EXTERNAL
	RemainingMipLevels   = ^uint32(0)     // VK_REMAINING_MIP_LEVELS
	RemainingArrayLayers = ^uint32(0)     // VK_REMAINING_ARRAY_LAYERS
)

// VkCommandPoolCreateFlagBits.
const (
	CommandPoolCreateTransient          = C.VK_COMMAND_POOL_CREATE_TRANSIENT_BIT
	CommandPoolCreateResetCommandBuffer = C.VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT
)

// VkFilter, VkSamplerMipmapMode, VkSamplerAddressMode and VkBorderColor
// values.
const (
	FilterNearest                    = C.VK_FILTER_NEAREST
	FilterLinear                     = C.VK_FILTER_LINEAR
	SamplerMipmapModeNearest         = C.VK_SAMPLER_MIPMAP_MODE_NEAREST
	SamplerMipmapModeLinear          = C.VK_SAMPLER_MIPMAP_MODE_LINEAR
	SamplerAddressModeRepeat         = C.VK_SAMPLER_ADDRESS_MODE_REPEAT
	SamplerAddressModeMirroredRepeat = C.VK_SAMPLER_ADDRESS_MODE_MIRRORED_REPEAT
	SamplerAddressModeClampToEdge    = C.VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE
	SamplerAddressModeClampToBorder  = C.VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_BORDER
	BorderColorFloatTransparentBlack = C.VK_BORDER_COLOR_FLOAT_TRANSPARENT_BLACK
)

// VkPipelineStageFlagBits and VkAccessFlagBits (Vulkan 1.0) used by the
// translation of synchronization2 barriers.
const (
	PipelineStageTransfer = C.VK_PIPELINE_STAGE_TRANSFER_BIT
	AccessShaderRead      = C.VK_ACCESS_SHADER_READ_BIT
	AccessShaderWrite     = C.VK_ACCESS_SHADER_WRITE_BIT
)

// VkPipelineStageFlagBits2 (64-bit; the header declares them as static
// const variables, which cgo cannot turn into Go constants, hence the
// literal values, checked against the header in TestFlags2).
const (
	PipelineStage2None                    uint64 = 0
	PipelineStage2TopOfPipe               uint64 = 0x1
	PipelineStage2DrawIndirect            uint64 = 0x2
	PipelineStage2ComputeShader           uint64 = 0x800
	PipelineStage2AllTransfer             uint64 = 0x1000
	PipelineStage2BottomOfPipe            uint64 = 0x2000
	PipelineStage2Host                    uint64 = 0x4000
	PipelineStage2AllGraphics             uint64 = 0x8000
	PipelineStage2AllCommands             uint64 = 0x10000
	PipelineStage2Copy                    uint64 = 0x100000000
	PipelineStage2Resolve                 uint64 = 0x200000000
	PipelineStage2Blit                    uint64 = 0x400000000
	PipelineStage2Clear                   uint64 = 0x800000000
	PipelineStage2IndexInput              uint64 = 0x1000000000
	PipelineStage2VertexAttributeInput    uint64 = 0x2000000000
	PipelineStage2PreRasterizationShaders uint64 = 0x4000000000
)

// VkAccessFlagBits2 (64-bit; literal values as above).
const (
	Access2None                uint64 = 0
	Access2IndirectCommandRead uint64 = 0x1
	Access2UniformRead         uint64 = 0x8
	Access2ShaderRead          uint64 = 0x20
	Access2ShaderWrite         uint64 = 0x40
	Access2TransferRead        uint64 = 0x800
	Access2TransferWrite       uint64 = 0x1000
	Access2HostRead            uint64 = 0x2000
	Access2HostWrite           uint64 = 0x4000
	Access2MemoryRead          uint64 = 0x8000
	Access2MemoryWrite         uint64 = 0x10000
	Access2ShaderSampledRead   uint64 = 0x100000000
	Access2ShaderStorageRead   uint64 = 0x200000000
	Access2ShaderStorageWrite  uint64 = 0x400000000
)

// flags2FromHeader returns the header's values of the 64-bit flags above,
// keyed by Go name, with the Go value first, for TestFlags2.
func flags2FromHeader() map[string][2]uint64 {
	goValues := []struct {
		name  string
		value uint64
	}{
		{"PipelineStage2TopOfPipe", PipelineStage2TopOfPipe},
		{"PipelineStage2DrawIndirect", PipelineStage2DrawIndirect},
		{"PipelineStage2ComputeShader", PipelineStage2ComputeShader},
		{"PipelineStage2AllTransfer", PipelineStage2AllTransfer},
		{"PipelineStage2BottomOfPipe", PipelineStage2BottomOfPipe},
		{"PipelineStage2Host", PipelineStage2Host},
		{"PipelineStage2AllGraphics", PipelineStage2AllGraphics},
		{"PipelineStage2AllCommands", PipelineStage2AllCommands},
		{"PipelineStage2Copy", PipelineStage2Copy},
		{"PipelineStage2Resolve", PipelineStage2Resolve},
		{"PipelineStage2Blit", PipelineStage2Blit},
		{"PipelineStage2Clear", PipelineStage2Clear},
		{"PipelineStage2IndexInput", PipelineStage2IndexInput},
		{"PipelineStage2VertexAttributeInput", PipelineStage2VertexAttributeInput},
		{"PipelineStage2PreRasterizationShaders", PipelineStage2PreRasterizationShaders},
		{"Access2IndirectCommandRead", Access2IndirectCommandRead},
		{"Access2UniformRead", Access2UniformRead},
		{"Access2ShaderRead", Access2ShaderRead},
		{"Access2ShaderWrite", Access2ShaderWrite},
		{"Access2TransferRead", Access2TransferRead},
		{"Access2TransferWrite", Access2TransferWrite},
		{"Access2HostRead", Access2HostRead},
		{"Access2HostWrite", Access2HostWrite},
		{"Access2MemoryRead", Access2MemoryRead},
		{"Access2MemoryWrite", Access2MemoryWrite},
		{"Access2ShaderSampledRead", Access2ShaderSampledRead},
		{"Access2ShaderStorageRead", Access2ShaderStorageRead},
		{"Access2ShaderStorageWrite", Access2ShaderStorageWrite},
	}
	out := map[string][2]uint64{}
	for i, v := range goValues {
		out[v.name] = [2]uint64{v.value, uint64(C.gfx_flag2(C.int(i)))}
	}
	return out
}
