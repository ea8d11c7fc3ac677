package vulkan

import (
	"errors"

	"github.com/gfxcuda/gfxcuda/internal/vk"
)

// ErrNoLoader is wrapped by NewInstance's error when the Vulkan loader,
// libvulkan.so.1, cannot be loaded. Its message says how to install one.
var ErrNoLoader = vk.ErrNoLoader

// ErrNoDevice is wrapped by the errors of NewInstance and
// Instance.PhysicalDevices when the loader works but finds no Vulkan driver
// (ICD) or no physical device.
var ErrNoDevice = errors.New("no Vulkan device: the loader found no driver or physical device " +
	"(install mesa-vulkan-drivers for a software device, or the NVIDIA driver; " +
	"VK_DRIVER_FILES can name an ICD json such as /usr/share/vulkan/icd.d/nvidia_icd.json)")

// ErrClosed is returned by the methods of an object after its Close or its
// Device's Close (or Instance's), and by recording methods of a Commands
// whose resources were closed before submission.
var ErrClosed = errors.New("vulkan: use after Close")

// ErrTimeout is wrapped by the errors of host waits that time out.
var ErrTimeout = errors.New("vulkan: timed out")

// ErrUnsupported is wrapped by the errors of operations the device cannot
// do, such as exporting a semaphore where VK_KHR_external_semaphore_fd is
// missing; the message says what is missing.
var ErrUnsupported = errors.New("not supported on this device")

// ErrFormatNotSupported is wrapped by the errors of NewImage for an image
// format, usage, type, size or export the device does not support; the
// message names the format, the usage and the device.
var ErrFormatNotSupported = errors.New("image format not supported")

// ErrLayoutOrder is wrapped by the error of Commands.Submit for a batch
// recorded for image layouts that the batches submitted before it do not
// leave the images in: batches that use an image were submitted in another
// order than they were recorded (or the image was handed to another API in
// between).
var ErrLayoutOrder = errors.New("image layout out of order")

// ErrForeignDevice is returned by Instance.NewDevice for a PhysicalDevice of
// another instance.
var ErrForeignDevice = errors.New("vulkan: physical device belongs to another instance")

// Result is a VkResult. Errors of failed Vulkan calls wrap a Result, so that
//
//	errors.Is(err, vulkan.ErrorOutOfDeviceMemory)
//
// tells what the driver answered; its Error method returns the Vulkan name,
// such as "VK_ERROR_OUT_OF_DEVICE_MEMORY".
type Result = vk.Result

// The VkResult error codes callers are most likely to branch on. Every other
// code is a Result too.
const (
	ErrorOutOfHostMemory       = vk.ErrorOutOfHostMemory
	ErrorOutOfDeviceMemory     = vk.ErrorOutOfDeviceMemory
	ErrorInitializationFailed  = vk.ErrorInitializationFailed
	ErrorDeviceLost            = vk.ErrorDeviceLost
	ErrorMemoryMapFailed       = vk.ErrorMemoryMapFailed
	ErrorLayerNotPresent       = vk.ErrorLayerNotPresent
	ErrorExtensionNotPresent   = vk.ErrorExtensionNotPresent
	ErrorFeatureNotPresent     = vk.ErrorFeatureNotPresent
	ErrorIncompatibleDriver    = vk.ErrorIncompatibleDriver
	ErrorTooManyObjects        = vk.ErrorTooManyObjects
	ErrorFormatNotSupported    = vk.ErrorFormatNotSupported
	ErrorUnknown               = vk.ErrorUnknown
	ErrorInvalidExternalHandle = vk.ErrorInvalidExternalHandle
)
