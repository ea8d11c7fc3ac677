// Package format is gfxcuda's one table of texel formats: for each format,
// its Vulkan format, how CUDA sees it (array element format and channel
// count), its size, and the element type that DLPack and
// __cuda_array_interface__ report to PyTorch, CuPy and Numba. Beyond the
// formats gfxcuda shares, it knows the name and texel block of every
// VkFormat (VkName, Block, Aspects), generated from the Khronos header by
// go generate (vkformats.go, see internal/vkgen); package vulkan uses it.
//
// The set covers what Gfx2Cuda and compushady offer: R, RG and RGBA in 8-,
// 16- and 32-bit UNORM, SNORM, UINT, SINT and FLOAT variants (as the
// hardware defines them), BGRA8, sRGB variants, 10:10:10:2 and 11:11:10
// packed formats, and three-channel 32-bit formats (which CUDA arrays cannot
// hold: they are shared as buffers only).
package format

import (
	"fmt"
	"sort"
	"strings"
)

// Format identifies a texel format by its Vulkan value (VkFormat).
type Format uint32

// Kind is how a channel's bits are interpreted.
type Kind uint8

// Channel kinds.
const (
	UNorm Kind = iota // unsigned, read as [0, 1]
	SNorm             // signed, read as [-1, 1]
	UInt
	SInt
	Float
	SRGB   // UNORM with the sRGB transfer function
	Packed // several channels packed in one 32-bit word
)

func (k Kind) String() string {
	return [...]string{"unorm", "snorm", "uint", "sint", "float", "srgb", "packed"}[k]
}

// CUDAFormat is a CUDA array element format (CUarray_format).
type CUDAFormat int

// CUDA array element formats.
const (
	CUDAUint8   CUDAFormat = 0x01
	CUDAUint16  CUDAFormat = 0x02
	CUDAUint32  CUDAFormat = 0x03
	CUDAInt8    CUDAFormat = 0x08
	CUDAInt16   CUDAFormat = 0x09
	CUDAInt32   CUDAFormat = 0x0a
	CUDAHalf    CUDAFormat = 0x10
	CUDAFloat32 CUDAFormat = 0x20
)

// DLPack type codes (DLDataTypeCode).
const (
	DLInt   = 0
	DLUInt  = 1
	DLFloat = 2
)

// DType is an element type as DLPack describes it.
type DType struct {
	Code  uint8 // DLInt, DLUInt or DLFloat
	Bits  uint8 // 8, 16 or 32
	Lanes uint16
}

// The element types of gfxcuda's formats and tensors, one lane each.
var (
	Int8    = DType{DLInt, 8, 1}
	Int16   = DType{DLInt, 16, 1}
	Int32   = DType{DLInt, 32, 1}
	Uint8   = DType{DLUInt, 8, 1}
	Uint16  = DType{DLUInt, 16, 1}
	Uint32  = DType{DLUInt, 32, 1}
	Float16 = DType{DLFloat, 16, 1}
	Float32 = DType{DLFloat, 32, 1}
)

// Size returns the size of one element in bytes: Bits/8 × Lanes.
func (d DType) Size() int {
	lanes := int(d.Lanes)
	if lanes == 0 {
		lanes = 1
	}
	return int(d.Bits) / 8 * lanes
}

// String returns the NumPy name of the type, such as "float32" or "uint8",
// with "x4" appended for 4 lanes; "DType{code,bits,lanes}" for a code
// DLPack defines but gfxcuda does not use.
func (d DType) String() string {
	var s string
	switch {
	case d.Bits == 0:
		return fmt.Sprintf("DType{%d,%d,%d}", d.Code, d.Bits, d.Lanes)
	case d.Code == DLInt:
		s = "int"
	case d.Code == DLUInt:
		s = "uint"
	case d.Code == DLFloat:
		s = "float"
	default:
		return fmt.Sprintf("DType{%d,%d,%d}", d.Code, d.Bits, d.Lanes)
	}
	s += fmt.Sprint(d.Bits)
	if d.Lanes > 1 {
		s += fmt.Sprintf("x%d", d.Lanes)
	}
	return s
}

// TypeStr is the dtype in NumPy's array-interface form ("|u1", "<f4", ...),
// as __cuda_array_interface__ wants it.
func (d DType) TypeStr() string {
	if d.Code > DLFloat {
		return fmt.Sprintf("|V%d", d.Size()) // NumPy's opaque type of that size
	}
	c := [...]string{"i", "u", "f"}[d.Code]
	if d.Bits == 8 {
		return "|" + c + "1"
	}
	return fmt.Sprintf("<%s%d", c, d.Bits/8)
}

// Info describes one format.
type Info struct {
	Format        Format
	Name          string // gfxcuda's name, e.g. "rgba8_unorm"
	VkName        string // e.g. "VK_FORMAT_R8G8B8A8_UNORM"
	Channels      int    // logical channels (3 for rgb32)
	BytesPerTexel int
	Kind          Kind
	// How CUDA holds the texel in an array: CUDAChannels elements of
	// CUDAFormat. Packed formats are one 32-bit word; CUDAChannels is 0 for
	// formats a CUDA array cannot hold (three-channel formats).
	CUDAFormat   CUDAFormat
	CUDAChannels int
	// DType is the element type of a tensor over the texels: a texel is
	// DTypeLanes elements of DType (tensors get a trailing dimension of that
	// length when it is more than 1).
	DType      DType
	DTypeLanes int
	BGR        bool // channels stored blue first
}

// CUDAArrayCapable reports whether a CUDA array can hold the format.
func (in Info) CUDAArrayCapable() bool { return in.CUDAChannels > 0 }

var table = []Info{}

func add(f Format, name, vk string, ch int, kind Kind, cf CUDAFormat, cch int, dt DType, lanes int) {
	size := 0
	switch cf {
	case CUDAUint8, CUDAInt8:
		size = 1
	case CUDAUint16, CUDAInt16, CUDAHalf:
		size = 2
	default:
		size = 4
	}
	n := cch
	if n == 0 {
		n = ch
	}
	table = append(table, Info{Format: f, Name: name, VkName: vk, Channels: ch, BytesPerTexel: size * n, Kind: kind,
		CUDAFormat: cf, CUDAChannels: cch, DType: dt, DTypeLanes: lanes, BGR: strings.HasPrefix(name, "bgra")})
}

// Formats, by their Vulkan values.
const (
	R8UNorm      Format = 9
	R8SNorm      Format = 10
	R8UInt       Format = 13
	R8SInt       Format = 14
	R8SRGB       Format = 15
	RG8UNorm     Format = 16
	RG8SNorm     Format = 17
	RG8UInt      Format = 20
	RG8SInt      Format = 21
	RG8SRGB      Format = 22
	RGBA8UNorm   Format = 37
	RGBA8SNorm   Format = 38
	RGBA8UInt    Format = 41
	RGBA8SInt    Format = 42
	RGBA8SRGB    Format = 43
	BGRA8UNorm   Format = 44
	BGRA8SRGB    Format = 50
	RGB10A2UNorm Format = 64 // VK_FORMAT_A2B10G10R10_UNORM_PACK32: R in the low bits, like DXGI's R10G10B10A2
	RGB10A2UInt  Format = 68
	R16UNorm     Format = 70
	R16SNorm     Format = 71
	R16UInt      Format = 74
	R16SInt      Format = 75
	R16Float     Format = 76
	RG16UNorm    Format = 77
	RG16SNorm    Format = 78
	RG16UInt     Format = 81
	RG16SInt     Format = 82
	RG16Float    Format = 83
	RGBA16UNorm  Format = 91
	RGBA16SNorm  Format = 92
	RGBA16UInt   Format = 95
	RGBA16SInt   Format = 96
	RGBA16Float  Format = 97
	R32UInt      Format = 98
	R32SInt      Format = 99
	R32Float     Format = 100
	RG32UInt     Format = 101
	RG32SInt     Format = 102
	RG32Float    Format = 103
	RGB32UInt    Format = 104
	RGB32SInt    Format = 105
	RGB32Float   Format = 106
	RGBA32UInt   Format = 107
	RGBA32SInt   Format = 108
	RGBA32Float  Format = 109
	RG11B10Float Format = 122 // VK_FORMAT_B10G11R11_UFLOAT_PACK32
)

func init() {
	u8, i8 := Uint8, Int8
	u16, i16, f16 := Uint16, Int16, Float16
	u32, i32, f32 := Uint32, Int32, Float32
	for _, n := range []struct {
		ch     int
		prefix string
		vk     string
	}{{1, "r", "R"}, {2, "rg", "R_G_"}, {4, "rgba", "R_G_B_A_"}} {
		vk := func(bits, suffix string) string {
			if n.ch == 1 {
				return "VK_FORMAT_R" + bits + "_" + suffix
			}
			s := ""
			for _, c := range n.prefix {
				s += strings.ToUpper(string(c)) + bits
			}
			return "VK_FORMAT_" + s + "_" + suffix
		}
		base := map[int]Format{1: 0, 2: 7, 4: 28}[n.ch] // offsets from the R8 values
		b16 := map[int]Format{1: 70, 2: 77, 4: 91}[n.ch]
		b32 := map[int]Format{1: 98, 2: 101, 4: 107}[n.ch]
		add(9+base, n.prefix+"8_unorm", vk("8", "UNORM"), n.ch, UNorm, CUDAUint8, n.ch, u8, n.ch)
		add(10+base, n.prefix+"8_snorm", vk("8", "SNORM"), n.ch, SNorm, CUDAInt8, n.ch, i8, n.ch)
		add(13+base, n.prefix+"8_uint", vk("8", "UINT"), n.ch, UInt, CUDAUint8, n.ch, u8, n.ch)
		add(14+base, n.prefix+"8_sint", vk("8", "SINT"), n.ch, SInt, CUDAInt8, n.ch, i8, n.ch)
		add(15+base, n.prefix+"8_srgb", vk("8", "SRGB"), n.ch, SRGB, CUDAUint8, n.ch, u8, n.ch)
		add(b16, n.prefix+"16_unorm", vk("16", "UNORM"), n.ch, UNorm, CUDAUint16, n.ch, u16, n.ch)
		add(b16+1, n.prefix+"16_snorm", vk("16", "SNORM"), n.ch, SNorm, CUDAInt16, n.ch, i16, n.ch)
		add(b16+4, n.prefix+"16_uint", vk("16", "UINT"), n.ch, UInt, CUDAUint16, n.ch, u16, n.ch)
		add(b16+5, n.prefix+"16_sint", vk("16", "SINT"), n.ch, SInt, CUDAInt16, n.ch, i16, n.ch)
		add(b16+6, n.prefix+"16_float", vk("16", "SFLOAT"), n.ch, Float, CUDAHalf, n.ch, f16, n.ch)
		add(b32, n.prefix+"32_uint", vk("32", "UINT"), n.ch, UInt, CUDAUint32, n.ch, u32, n.ch)
		add(b32+1, n.prefix+"32_sint", vk("32", "SINT"), n.ch, SInt, CUDAInt32, n.ch, i32, n.ch)
		add(b32+2, n.prefix+"32_float", vk("32", "SFLOAT"), n.ch, Float, CUDAFloat32, n.ch, f32, n.ch)
	}
	add(BGRA8UNorm, "bgra8_unorm", "VK_FORMAT_B8G8R8A8_UNORM", 4, UNorm, CUDAUint8, 4, u8, 4)
	add(BGRA8SRGB, "bgra8_srgb", "VK_FORMAT_B8G8R8A8_SRGB", 4, SRGB, CUDAUint8, 4, u8, 4)
	add(RGB10A2UNorm, "rgb10a2_unorm", "VK_FORMAT_A2B10G10R10_UNORM_PACK32", 4, Packed, CUDAUint32, 1, u32, 1)
	add(RGB10A2UInt, "rgb10a2_uint", "VK_FORMAT_A2B10G10R10_UINT_PACK32", 4, Packed, CUDAUint32, 1, u32, 1)
	add(RG11B10Float, "rg11b10_float", "VK_FORMAT_B10G11R11_UFLOAT_PACK32", 3, Packed, CUDAUint32, 1, u32, 1)
	add(RGB32UInt, "rgb32_uint", "VK_FORMAT_R32G32B32_UINT", 3, UInt, CUDAUint32, 0, u32, 3)
	add(RGB32SInt, "rgb32_sint", "VK_FORMAT_R32G32B32_SINT", 3, SInt, CUDAInt32, 0, i32, 3)
	add(RGB32Float, "rgb32_float", "VK_FORMAT_R32G32B32_SFLOAT", 3, Float, CUDAFloat32, 0, f32, 3)
	sort.Slice(table, func(i, j int) bool { return table[i].Format < table[j].Format })
	for i := range table {
		byFormat[table[i].Format] = &table[i]
		byName[table[i].Name] = &table[i]
	}
}

var (
	byFormat = map[Format]*Info{}
	byName   = map[string]*Info{}
)

// All returns every format in the table, ordered by Vulkan value.
func All() []Info { return append([]Info(nil), table...) }

// Lookup returns the description of f.
func Lookup(f Format) (Info, bool) {
	in, ok := byFormat[f]
	if !ok {
		return Info{}, false
	}
	return *in, true
}

// Info returns the description of f; the zero Info if f is not in the table.
func (f Format) Info() Info { in, _ := Lookup(f); return in }

// String returns the format's name, e.g. "rgba8_unorm"; for a VkFormat
// outside the table its Vulkan name, e.g. "VK_FORMAT_BC7_UNORM_BLOCK";
// otherwise "Format(N)".
func (f Format) String() string {
	if in, ok := byFormat[f]; ok {
		return in.Name
	}
	if n := f.VkName(); n != "" {
		return n
	}
	return fmt.Sprintf("Format(%d)", uint32(f))
}

// Parse finds a format by gfxcuda name ("rgba8_unorm"), Vulkan name
// ("VK_FORMAT_R8G8B8A8_UNORM" or "R8G8B8A8_UNORM"), case-insensitively.
func Parse(s string) (Format, error) {
	k := strings.ToLower(strings.TrimSpace(s))
	if in, ok := byName[k]; ok {
		return in.Format, nil
	}
	vk := strings.ToUpper(k)
	if !strings.HasPrefix(vk, "VK_FORMAT_") {
		vk = "VK_FORMAT_" + vk
	}
	for i := range table {
		if table[i].VkName == vk {
			return table[i].Format, nil
		}
	}
	return 0, fmt.Errorf("format: unknown format %q (known: %s)", s, strings.Join(Names(), ", "))
}

// Names lists every format's name.
func Names() []string {
	out := make([]string, len(table))
	for i, in := range table {
		out[i] = in.Name
	}
	return out
}

// Nearest returns the formats most like f, best first, among those for
// which ok returns true: same kind and channel size first, then more
// channels of the same kind, then anything of the same texel size. Used to
// suggest a replacement when a device cannot share f.
func Nearest(f Format, ok func(Format) bool) []Format {
	src, found := byFormat[f]
	if !found {
		return nil
	}
	type cand struct {
		f     Format
		score int
	}
	var cs []cand
	for _, in := range table {
		if in.Format == f || !ok(in.Format) {
			continue
		}
		score := 0
		if in.Kind == src.Kind {
			score += 100
		}
		if in.DType == src.DType {
			score += 50
		}
		if in.Channels >= src.Channels {
			score += 20 - (in.Channels - src.Channels)
		}
		if in.BytesPerTexel == src.BytesPerTexel {
			score += 10
		}
		if in.CUDAArrayCapable() {
			score += 5
		}
		cs = append(cs, cand{in.Format, score})
	}
	sort.SliceStable(cs, func(i, j int) bool { return cs[i].score > cs[j].score })
	out := make([]Format, len(cs))
	for i, c := range cs {
		out[i] = c.f
	}
	return out
}

// ForDType picks the format for channels elements of dtype per texel, as
// Gfx2Cuda does for tensors: 8-bit unsigned → UNORM, 8-bit signed → SNORM,
// 16/32-bit integers → UINT/SINT, floats → FLOAT. Three channels fail
// (textures have 1, 2 or 4); the error suggests 4.
func ForDType(dt DType, channels int) (Format, error) {
	kind := map[uint8]Kind{DLInt: SInt, DLUInt: UInt, DLFloat: Float}[dt.Code]
	if dt.Bits == 8 {
		kind = map[uint8]Kind{DLInt: SNorm, DLUInt: UNorm}[dt.Code]
	}
	for _, in := range table {
		if in.Channels == channels && in.DType == dt && in.Kind == kind && !in.BGR && in.CUDAArrayCapable() {
			return in.Format, nil
		}
	}
	return 0, fmt.Errorf("format: no texture format for %d channels of %s (textures have 1, 2 or 4 channels of 8/16/32-bit integers or 16/32-bit floats; pad 3 channels to 4)", channels, dt.TypeStr())
}
