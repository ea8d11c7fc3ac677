package format

//go:generate go run gen.go

// vkFormat is a row of vkFormats: a VkFormat's name and texel block.
type vkFormat struct {
	name          string
	size          uint8 // bytes per texel block; 0: not computed
	width, height uint8 // texel block extent in texels
	aspect        uint8 // VkImageAspectFlags
}

// VkName returns the Vulkan name of f, such as "VK_FORMAT_R8G8B8A8_UNORM",
// for every VkFormat of Vulkan 1.3 and its registered extensions (formats
// outside gfxcuda's table included), or "" for a value the header does not
// define.
func (f Format) VkName() string { return vkFormats[f].name }

// IsVulkan reports whether f is a VkFormat the header defines, other than
// VK_FORMAT_UNDEFINED.
func (f Format) IsVulkan() bool {
	_, ok := vkFormats[f]
	return ok && f != 0
}

// Block returns f's texel block: its size in bytes and its width and height
// in texels (1×1 for uncompressed formats, 4×4 for BC and ETC2, up to 12×12
// for ASTC). size is 0 for formats whose layout in buffers gfxcuda does not
// compute: multi-planar and 4:2:2 formats, PVRTC, VK_FORMAT_UNDEFINED and
// values the header does not define.
func (f Format) Block() (size, width, height uint32) {
	v, ok := vkFormats[f]
	if !ok || v.width == 0 {
		return uint32(v.size), 1, 1
	}
	return uint32(v.size), uint32(v.width), uint32(v.height)
}

// Aspects returns the VkImageAspectFlags of a whole image of format f:
// depth (2) and/or stencil (4) for depth/stencil formats, color (1)
// otherwise, 0 for formats Block gives no size.
func (f Format) Aspects() uint32 { return uint32(vkFormats[f].aspect) }

// VkFormats returns every VkFormat value the header defines, in no
// particular order.
func VkFormats() []Format {
	out := make([]Format, 0, len(vkFormats))
	for f := range vkFormats {
		out = append(out, f)
	}
	return out
}
