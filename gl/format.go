package gl

import (
	"fmt"

	"github.com/gfxcuda/gfxcuda/format"
)

// GL enums of the format table.
const (
	glRed, glRG, glRGBA                   = 0x1903, 0x8227, 0x1908
	glRedInt, glRGInt, glRGBAInt          = 0x8D94, 0x8228, 0x8D99
	glByte, glUByte, glShort, glUShort    = 0x1400, 0x1401, 0x1402, 0x1403
	glInt, glUInt, glFloat, glHalf        = 0x1404, 0x1405, 0x1406, 0x140B
	glUInt2101010Rev, glUInt10F11F11F_Rev = 0x8368, 0x8C3B
	// Texture2D is GL_TEXTURE_2D.
	Texture2D = 0x0DE1
)

// glFormat is how GL stores and transfers a format: the sized internal
// format, and the format and type that move its bytes unchanged.
type glFormat struct {
	internal, format, typ uint32
}

// sized internal formats by channels (1, 2, 4) for each (bits, kind).
var sized = map[[2]int][3]uint32{
	{8, int(format.UNorm)}:  {0x8229, 0x822B, 0x8058},
	{8, int(format.SNorm)}:  {0x8F94, 0x8F95, 0x8F97},
	{8, int(format.UInt)}:   {0x8232, 0x8238, 0x8D7C},
	{8, int(format.SInt)}:   {0x8231, 0x8237, 0x8D8E},
	{16, int(format.UNorm)}: {0x822A, 0x822C, 0x805B},
	{16, int(format.SNorm)}: {0x8F98, 0x8F99, 0x8F9B},
	{16, int(format.UInt)}:  {0x8234, 0x823A, 0x8D76},
	{16, int(format.SInt)}:  {0x8233, 0x8239, 0x8D88},
	{16, int(format.Float)}: {0x822D, 0x822F, 0x881A},
	{32, int(format.UInt)}:  {0x8236, 0x823C, 0x8D70},
	{32, int(format.SInt)}:  {0x8235, 0x823B, 0x8D82},
	{32, int(format.Float)}: {0x822E, 0x8230, 0x8814},
}

// glFormatOf maps a format of package format to GL. BGRA8 is stored as
// RGBA8 (GL has no BGRA internal format): the bytes are the same, so CUDA
// and Vulkan see them unchanged; GL shaders see red and blue swapped.
func glFormatOf(f format.Format) (glFormat, error) {
	in, ok := format.Lookup(f)
	if !ok {
		return glFormat{}, fmt.Errorf("gl: unknown format %v", f)
	}
	switch f {
	case format.BGRA8UNorm:
		return glFormat{0x8058, glRGBA, glUByte}, nil
	case format.BGRA8SRGB:
		return glFormat{0x8C43, glRGBA, glUByte}, nil
	case format.RGB10A2UNorm:
		return glFormat{0x8059, glRGBA, glUInt2101010Rev}, nil
	case format.RGB10A2UInt:
		return glFormat{0x906F, glRGBAInt, glUInt2101010Rev}, nil
	case format.RG11B10Float:
		return glFormat{0x8C3A, 0x1907 /* GL_RGB */, glUInt10F11F11F_Rev}, nil
	}
	ci := map[int]int{1: 0, 2: 1, 4: 2}
	idx, ok := ci[in.Channels]
	if !ok || in.CUDAChannels == 0 {
		return glFormat{}, fmt.Errorf("gl: %s has no GL texture format here (3-channel formats are buffers only)", in.Name)
	}
	bits := in.BytesPerTexel * 8 / in.Channels
	kind := in.Kind
	if kind == format.SRGB {
		if in.Channels != 4 {
			return glFormat{}, fmt.Errorf("gl: %s: GL has sRGB only for RGBA8", in.Name)
		}
		return glFormat{0x8C43, glRGBA, glUByte}, nil
	}
	row, ok := sized[[2]int{bits, int(kind)}]
	if !ok {
		return glFormat{}, fmt.Errorf("gl: %s has no GL format", in.Name)
	}
	integer := kind == format.UInt || kind == format.SInt
	pix := [3]uint32{glRed, glRG, glRGBA}
	if integer {
		pix = [3]uint32{glRedInt, glRGInt, glRGBAInt}
	}
	signed := kind == format.SNorm || kind == format.SInt
	var typ uint32
	switch {
	case bits == 8 && signed:
		typ = glByte
	case bits == 8:
		typ = glUByte
	case bits == 16 && kind == format.Float:
		typ = glHalf
	case bits == 16 && signed:
		typ = glShort
	case bits == 16:
		typ = glUShort
	case bits == 32 && kind == format.Float:
		typ = glFloat
	case bits == 32 && signed:
		typ = glInt
	default:
		typ = glUInt
	}
	return glFormat{row[idx], pix[idx], typ}, nil
}
