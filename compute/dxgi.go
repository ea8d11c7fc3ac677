package compute

import "github.com/gfxcuda/gfxcuda/format"

// dxgiFormats maps the DXGI_FORMAT numbers compushady's formats module
// uses (compushady.formats.R8G8B8A8_UNORM is 28) to gfxcuda's formats.
// compushady's depth formats (D32_FLOAT, D24_UNORM_S8_UINT, D16_UNORM) are
// for its rasterizer and have no entry.
var dxgiFormats = map[int]format.Format{
	2: format.RGBA32Float, 3: format.RGBA32UInt, 4: format.RGBA32SInt,
	6: format.RGB32Float, 7: format.RGB32UInt, 8: format.RGB32SInt,
	10: format.RGBA16Float, 11: format.RGBA16UNorm, 12: format.RGBA16UInt, 13: format.RGBA16SNorm, 14: format.RGBA16SInt,
	16: format.RG32Float, 17: format.RG32UInt, 18: format.RG32SInt,
	24: format.RGB10A2UNorm, 25: format.RGB10A2UInt,
	28: format.RGBA8UNorm, 29: format.RGBA8SRGB, 30: format.RGBA8UInt, 31: format.RGBA8SNorm, 32: format.RGBA8SInt,
	34: format.RG16Float, 35: format.RG16UNorm, 36: format.RG16UInt, 37: format.RG16SNorm, 38: format.RG16SInt,
	41: format.R32Float, 42: format.R32UInt, 43: format.R32SInt,
	49: format.RG8UNorm, 50: format.RG8UInt, 51: format.RG8SNorm, 52: format.RG8SInt,
	54: format.R16Float, 55: format.R16UNorm, 57: format.R16UInt, 58: format.R16SNorm, 59: format.R16SInt,
	61: format.R8UNorm, 62: format.R8UInt, 63: format.R8SNorm, 64: format.R8SInt,
	87: format.BGRA8UNorm, 91: format.BGRA8SRGB,
}

// FormatFromDXGI returns the format of a DXGI_FORMAT number, as
// compushady's formats module gives them (R8G8B8A8_UNORM = 28), for
// front ends that take compushady's constants.
func FormatFromDXGI(n int) (format.Format, bool) {
	f, ok := dxgiFormats[n]
	return f, ok
}

// DXGIFormats lists the DXGI_FORMAT numbers FormatFromDXGI knows: every
// color format compushady accepts.
func DXGIFormats() []int {
	out := make([]int, 0, len(dxgiFormats))
	for n := range dxgiFormats {
		out = append(out, n)
	}
	return out
}
