package vk

import "strconv"

// Result is a VkResult. Negative values are errors; Result implements error
// so that a failed call can be returned as is, wrapped with %w, and tested
// with errors.Is(err, vk.ErrorOutOfDeviceMemory).
type Result int32

// The VkResult codes of Vulkan 1.3 and its registered extensions.
const (
	Success                                     Result = 0           // VK_SUCCESS
	NotReady                                    Result = 1           // VK_NOT_READY
	Timeout                                     Result = 2           // VK_TIMEOUT
	EventSet                                    Result = 3           // VK_EVENT_SET
	EventReset                                  Result = 4           // VK_EVENT_RESET
	Incomplete                                  Result = 5           // VK_INCOMPLETE
	ErrorOutOfHostMemory                        Result = -1          // VK_ERROR_OUT_OF_HOST_MEMORY
	ErrorOutOfDeviceMemory                      Result = -2          // VK_ERROR_OUT_OF_DEVICE_MEMORY
	ErrorInitializationFailed                   Result = -3          // VK_ERROR_INITIALIZATION_FAILED
	ErrorDeviceLost                             Result = -4          // VK_ERROR_DEVICE_LOST
	ErrorMemoryMapFailed                        Result = -5          // VK_ERROR_MEMORY_MAP_FAILED
	ErrorLayerNotPresent                        Result = -6          // VK_ERROR_LAYER_NOT_PRESENT
	ErrorExtensionNotPresent                    Result = -7          // VK_ERROR_EXTENSION_NOT_PRESENT
	ErrorFeatureNotPresent                      Result = -8          // VK_ERROR_FEATURE_NOT_PRESENT
	ErrorIncompatibleDriver                     Result = -9          // VK_ERROR_INCOMPATIBLE_DRIVER
	ErrorTooManyObjects                         Result = -10         // VK_ERROR_TOO_MANY_OBJECTS
	ErrorFormatNotSupported                     Result = -11         // VK_ERROR_FORMAT_NOT_SUPPORTED
	ErrorFragmentedPool                         Result = -12         // VK_ERROR_FRAGMENTED_POOL
	ErrorUnknown                                Result = -13         // VK_ERROR_UNKNOWN
	ErrorOutOfPoolMemory                        Result = -1000069000 // VK_ERROR_OUT_OF_POOL_MEMORY
	ErrorInvalidExternalHandle                  Result = -1000072003 // VK_ERROR_INVALID_EXTERNAL_HANDLE
	ErrorFragmentation                          Result = -1000161000 // VK_ERROR_FRAGMENTATION
	ErrorInvalidOpaqueCaptureAddress            Result = -1000257000 // VK_ERROR_INVALID_OPAQUE_CAPTURE_ADDRESS
	PipelineCompileRequired                     Result = 1000297000  // VK_PIPELINE_COMPILE_REQUIRED
	ErrorSurfaceLostKHR                         Result = -1000000000 // VK_ERROR_SURFACE_LOST_KHR
	ErrorNativeWindowInUseKHR                   Result = -1000000001 // VK_ERROR_NATIVE_WINDOW_IN_USE_KHR
	SuboptimalKHR                               Result = 1000001003  // VK_SUBOPTIMAL_KHR
	ErrorOutOfDateKHR                           Result = -1000001004 // VK_ERROR_OUT_OF_DATE_KHR
	ErrorIncompatibleDisplayKHR                 Result = -1000003001 // VK_ERROR_INCOMPATIBLE_DISPLAY_KHR
	ErrorValidationFailedEXT                    Result = -1000011001 // VK_ERROR_VALIDATION_FAILED_EXT
	ErrorInvalidShaderNV                        Result = -1000012000 // VK_ERROR_INVALID_SHADER_NV
	ErrorImageUsageNotSupportedKHR              Result = -1000023000 // VK_ERROR_IMAGE_USAGE_NOT_SUPPORTED_KHR
	ErrorVideoPictureLayoutNotSupportedKHR      Result = -1000023001 // VK_ERROR_VIDEO_PICTURE_LAYOUT_NOT_SUPPORTED_KHR
	ErrorVideoProfileOperationNotSupportedKHR   Result = -1000023002 // VK_ERROR_VIDEO_PROFILE_OPERATION_NOT_SUPPORTED_KHR
	ErrorVideoProfileFormatNotSupportedKHR      Result = -1000023003 // VK_ERROR_VIDEO_PROFILE_FORMAT_NOT_SUPPORTED_KHR
	ErrorVideoProfileCodecNotSupportedKHR       Result = -1000023004 // VK_ERROR_VIDEO_PROFILE_CODEC_NOT_SUPPORTED_KHR
	ErrorVideoStdVersionNotSupportedKHR         Result = -1000023005 // VK_ERROR_VIDEO_STD_VERSION_NOT_SUPPORTED_KHR
	ErrorInvalidDRMFormatModifierPlaneLayoutEXT Result = -1000158000 // VK_ERROR_INVALID_DRM_FORMAT_MODIFIER_PLANE_LAYOUT_EXT
	ErrorNotPermittedKHR                        Result = -1000174001 // VK_ERROR_NOT_PERMITTED_KHR
	ErrorFullScreenExclusiveModeLostEXT         Result = -1000255000 // VK_ERROR_FULL_SCREEN_EXCLUSIVE_MODE_LOST_EXT
	ThreadIdleKHR                               Result = 1000268000  // VK_THREAD_IDLE_KHR
	ThreadDoneKHR                               Result = 1000268001  // VK_THREAD_DONE_KHR
	OperationDeferredKHR                        Result = 1000268002  // VK_OPERATION_DEFERRED_KHR
	OperationNotDeferredKHR                     Result = 1000268003  // VK_OPERATION_NOT_DEFERRED_KHR
	ErrorCompressionExhaustedEXT                Result = -1000338000 // VK_ERROR_COMPRESSION_EXHAUSTED_EXT
)

var resultNames = map[Result]string{
	Success:                                     "VK_SUCCESS",
	NotReady:                                    "VK_NOT_READY",
	Timeout:                                     "VK_TIMEOUT",
	EventSet:                                    "VK_EVENT_SET",
	EventReset:                                  "VK_EVENT_RESET",
	Incomplete:                                  "VK_INCOMPLETE",
	ErrorOutOfHostMemory:                        "VK_ERROR_OUT_OF_HOST_MEMORY",
	ErrorOutOfDeviceMemory:                      "VK_ERROR_OUT_OF_DEVICE_MEMORY",
	ErrorInitializationFailed:                   "VK_ERROR_INITIALIZATION_FAILED",
	ErrorDeviceLost:                             "VK_ERROR_DEVICE_LOST",
	ErrorMemoryMapFailed:                        "VK_ERROR_MEMORY_MAP_FAILED",
	ErrorLayerNotPresent:                        "VK_ERROR_LAYER_NOT_PRESENT",
	ErrorExtensionNotPresent:                    "VK_ERROR_EXTENSION_NOT_PRESENT",
	ErrorFeatureNotPresent:                      "VK_ERROR_FEATURE_NOT_PRESENT",
	ErrorIncompatibleDriver:                     "VK_ERROR_INCOMPATIBLE_DRIVER",
	ErrorTooManyObjects:                         "VK_ERROR_TOO_MANY_OBJECTS",
	ErrorFormatNotSupported:                     "VK_ERROR_FORMAT_NOT_SUPPORTED",
	ErrorFragmentedPool:                         "VK_ERROR_FRAGMENTED_POOL",
	ErrorUnknown:                                "VK_ERROR_UNKNOWN",
	ErrorOutOfPoolMemory:                        "VK_ERROR_OUT_OF_POOL_MEMORY",
	ErrorInvalidExternalHandle:                  "VK_ERROR_INVALID_EXTERNAL_HANDLE",
	ErrorFragmentation:                          "VK_ERROR_FRAGMENTATION",
	ErrorInvalidOpaqueCaptureAddress:            "VK_ERROR_INVALID_OPAQUE_CAPTURE_ADDRESS",
	PipelineCompileRequired:                     "VK_PIPELINE_COMPILE_REQUIRED",
	ErrorSurfaceLostKHR:                         "VK_ERROR_SURFACE_LOST_KHR",
	ErrorNativeWindowInUseKHR:                   "VK_ERROR_NATIVE_WINDOW_IN_USE_KHR",
	SuboptimalKHR:                               "VK_SUBOPTIMAL_KHR",
	ErrorOutOfDateKHR:                           "VK_ERROR_OUT_OF_DATE_KHR",
	ErrorIncompatibleDisplayKHR:                 "VK_ERROR_INCOMPATIBLE_DISPLAY_KHR",
	ErrorValidationFailedEXT:                    "VK_ERROR_VALIDATION_FAILED_EXT",
	ErrorInvalidShaderNV:                        "VK_ERROR_INVALID_SHADER_NV",
	ErrorImageUsageNotSupportedKHR:              "VK_ERROR_IMAGE_USAGE_NOT_SUPPORTED_KHR",
	ErrorVideoPictureLayoutNotSupportedKHR:      "VK_ERROR_VIDEO_PICTURE_LAYOUT_NOT_SUPPORTED_KHR",
	ErrorVideoProfileOperationNotSupportedKHR:   "VK_ERROR_VIDEO_PROFILE_OPERATION_NOT_SUPPORTED_KHR",
	ErrorVideoProfileFormatNotSupportedKHR:      "VK_ERROR_VIDEO_PROFILE_FORMAT_NOT_SUPPORTED_KHR",
	ErrorVideoProfileCodecNotSupportedKHR:       "VK_ERROR_VIDEO_PROFILE_CODEC_NOT_SUPPORTED_KHR",
	ErrorVideoStdVersionNotSupportedKHR:         "VK_ERROR_VIDEO_STD_VERSION_NOT_SUPPORTED_KHR",
	ErrorInvalidDRMFormatModifierPlaneLayoutEXT: "VK_ERROR_INVALID_DRM_FORMAT_MODIFIER_PLANE_LAYOUT_EXT",
	ErrorNotPermittedKHR:                        "VK_ERROR_NOT_PERMITTED_KHR",
	ErrorFullScreenExclusiveModeLostEXT:         "VK_ERROR_FULL_SCREEN_EXCLUSIVE_MODE_LOST_EXT",
	ThreadIdleKHR:                               "VK_THREAD_IDLE_KHR",
	ThreadDoneKHR:                               "VK_THREAD_DONE_KHR",
	OperationDeferredKHR:                        "VK_OPERATION_DEFERRED_KHR",
	OperationNotDeferredKHR:                     "VK_OPERATION_NOT_DEFERRED_KHR",
	ErrorCompressionExhaustedEXT:                "VK_ERROR_COMPRESSION_EXHAUSTED_EXT",
}

// Error returns the Vulkan name of r, such as "VK_ERROR_OUT_OF_DEVICE_MEMORY".
func (r Result) Error() string { return r.String() }

// String returns the Vulkan name of r, or "VkResult(N)" for an unknown code.
func (r Result) String() string {
	if n, ok := resultNames[r]; ok {
		return n
	}
	return "VkResult(" + strconv.Itoa(int(r)) + ")"
}

// IsError reports whether r is an error code (negative) rather than a
// success or status code such as VK_TIMEOUT or VK_INCOMPLETE.
func (r Result) IsError() bool { return r < 0 }
