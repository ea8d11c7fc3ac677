//go:build linux

package vk

import "errors"

// LoaderName is the file name of the Vulkan loader opened by Load.
const LoaderName = "libvulkan.so.1"

// ErrNoLoader is wrapped by Load's error when the Vulkan loader cannot be
// opened or is not a Vulkan loader.
var ErrNoLoader = errors.New("no Vulkan loader: libvulkan.so.1 could not be loaded " +
	"(install a Vulkan loader, e.g. apt install libvulkan1)")
