package vulkan

import (
	"fmt"
	"strings"

	gfxformat "github.com/gfxcuda/gfxcuda/format"
	"github.com/gfxcuda/gfxcuda/internal/vk"
)

// vkFormat is a VkFormat value, with what this package knows of it.
type vkFormat uint32

// Formats the tests and examples use.
const (
	fmtUndefined          vkFormat = 0
	fmtR8Unorm            vkFormat = 9
	fmtR8G8B8Unorm        vkFormat = 23
	fmtR8G8B8Srgb         vkFormat = 29
	fmtR8G8B8A8Unorm      vkFormat = 37
	fmtR8G8B8A8Srgb       vkFormat = 43
	fmtB8G8R8A8Unorm      vkFormat = 44
	fmtR16G16B16A16Sfloat vkFormat = 97
	fmtR32Uint            vkFormat = 98
	fmtR32Sfloat          vkFormat = 100
	fmtR32G32B32Sfloat    vkFormat = 106
	fmtR32G32B32A32Sfloat vkFormat = 109
	fmtD16Unorm           vkFormat = 124
	fmtD32Sfloat          vkFormat = 126
	fmtD24UnormS8Uint     vkFormat = 129
	fmtBC1RGBAUnorm       vkFormat = 133
	fmtBC7Unorm           vkFormat = 145
	fmtASTC10x8Unorm      vkFormat = 177
)

// FormatName returns the Vulkan name of a VkFormat value, such as
// "VK_FORMAT_R8G8B8A8_UNORM", or "VkFormat(N)" for a value this package
// does not know. It knows every format of Vulkan 1.3 and its registered
// extensions (from package format's table, generated from the header).
func FormatName(format uint32) string { return vkFormat(format).String() }

// FormatBlock returns the texel block of a VkFormat: its size in bytes and
// its width and height in texels (1×1 for uncompressed formats, 4×4 for BC
// and ETC2, up to 12×12 for ASTC). size is 0 for formats whose layout in
// buffers this package does not compute: multi-planar and 4:2:2 formats,
// PVRTC, VK_FORMAT_UNDEFINED and unknown values.
func FormatBlock(format uint32) (size, width, height uint32) {
	return gfxformat.Format(format).Block()
}

// String returns the Vulkan name, or "VkFormat(N)".
func (f vkFormat) String() string {
	if n := gfxformat.Format(f).VkName(); n != "" {
		return n
	}
	return fmt.Sprintf("VkFormat(%d)", uint32(f))
}

// known reports whether f is a VkFormat this package knows, other than
// VK_FORMAT_UNDEFINED.
func (f vkFormat) known() bool { return gfxformat.Format(f).IsVulkan() }

func (f vkFormat) blockSize() uint32 { s, _, _ := gfxformat.Format(f).Block(); return s }

func (f vkFormat) blockExtent() (width, height uint32) {
	_, w, h := gfxformat.Format(f).Block()
	return w, h
}

// aspect returns the VkImageAspectFlags of f's whole image.
func (f vkFormat) aspect() uint32 {
	if a := gfxformat.Format(f).Aspects(); a != 0 {
		return a
	}
	return vk.ImageAspectColor
}

// ImageUsage is a set of VkImageUsageFlags bits.
type ImageUsage uint32

// Image usage bits.
const (
	ImageTransferSrc            ImageUsage = vk.ImageUsageTransferSrc
	ImageTransferDst            ImageUsage = vk.ImageUsageTransferDst
	ImageSampled                ImageUsage = vk.ImageUsageSampled
	ImageStorage                ImageUsage = vk.ImageUsageStorage
	ImageColorAttachment        ImageUsage = vk.ImageUsageColorAttachment
	ImageDepthStencilAttachment ImageUsage = vk.ImageUsageDepthStencilAttachment
)

// String lists the set bits, such as "SAMPLED|STORAGE", or "0".
func (u ImageUsage) String() string {
	return flagString(uint32(u), []flagName{
		{uint32(ImageTransferSrc), "TRANSFER_SRC"},
		{uint32(ImageTransferDst), "TRANSFER_DST"},
		{uint32(ImageSampled), "SAMPLED"},
		{uint32(ImageStorage), "STORAGE"},
		{uint32(ImageColorAttachment), "COLOR_ATTACHMENT"},
		{uint32(ImageDepthStencilAttachment), "DEPTH_STENCIL_ATTACHMENT"},
	})
}

type flagName struct {
	bit  uint32
	name string
}

// flagString names the set bits of f, then any unknown bits in hex.
func flagString(f uint32, names []flagName) string {
	var parts []string
	rest := f
	for _, n := range names {
		if f&n.bit != 0 {
			parts = append(parts, n.name)
			rest &^= n.bit
		}
	}
	if rest != 0 {
		parts = append(parts, fmt.Sprintf("0x%x", rest))
	}
	if len(parts) == 0 {
		return "0"
	}
	return strings.Join(parts, "|")
}
