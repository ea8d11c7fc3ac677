package vk

import "errors"

// LoaderName is the file name of the Vulkan loader opened by Load.
const LoaderName = "vulkan-1.dll"

// ErrNoLoader is wrapped by Load's error when the Vulkan loader cannot be
// opened or is not a Vulkan loader.
var ErrNoLoader = errors.New("no Vulkan loader: vulkan-1.dll could not be loaded " +
	"(install a GPU driver, which brings the Vulkan loader, or the Vulkan Runtime from LunarG)")
