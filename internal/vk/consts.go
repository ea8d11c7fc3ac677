package vk

/*
#define VK_NO_PROTOTYPES 1
#include <vulkan/vulkan.h>
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
