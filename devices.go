package gfxcuda

import (
	"github.com/gfxcuda/gfxcuda/cuda"
	"github.com/gfxcuda/gfxcuda/gpus"
	"github.com/gfxcuda/gfxcuda/vulkan"
)

// Device discovery and pairing are package gpus's; the face re-exports its
// names, so that Open's callers need not import it.

// UUID is a GPU's 16-byte UUID.
type UUID = gpus.UUID

// DevicePair links a Vulkan physical device and a CUDA device with equal
// UUIDs (gpus.Pair).
type DevicePair = gpus.Pair

// DeviceReport is what DiscoverDevices found: every device in both APIs,
// the pairs, and why an API is unavailable when it is (gpus.Report).
type DeviceReport = gpus.Report

// PeerPath says whether CUDA device From can map the memory of device To
// (gpus.PeerPath).
type PeerPath = gpus.PeerPath

// NVIDIAVersions are the versions of the NVIDIA driver's parts
// (gpus.NVIDIAVersions).
type NVIDIAVersions = gpus.NVIDIAVersions

// MatchDevices pairs Vulkan and CUDA devices by UUID, never by position
// (gpus.Match).
func MatchDevices(vulkanUUIDs, cudaUUIDs []UUID) []DevicePair {
	return gpus.Match(vulkanUUIDs, cudaUUIDs)
}

// DiscoverDevices enumerates both APIs (gpus.Discover). It does not fail:
// what cannot be found is recorded in the report's error fields.
func DiscoverDevices() *DeviceReport { return gpus.Discover() }

// PairDevices is MatchDevices for the device descriptions of the two
// packages (gpus.PairDevices).
func PairDevices(vk []*vulkan.PhysicalDevice, cu []cuda.DeviceInfo) []DevicePair {
	return gpus.PairDevices(vk, cu)
}
