package format

import (
	"bytes"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/gfxcuda/gfxcuda/format/internal/vkgen"
)

// TestVulkanValues checks every entry's value against the Vulkan names
// generated from the Khronos header, so a typo in a value cannot slip
// through, and its texel size against the header's texel block.
func TestVulkanValues(t *testing.T) {
	for _, in := range All() {
		if got := in.Format.VkName(); got != in.VkName {
			t.Errorf("%s: value %d is %s in Vulkan, table says %s", in.Name, in.Format, got, in.VkName)
		}
		if size, w, h := in.Format.Block(); int(size) != in.BytesPerTexel || w != 1 || h != 1 {
			t.Errorf("%s: Vulkan block %d bytes %dx%d, table says %d bytes per texel", in.Name, size, w, h, in.BytesPerTexel)
		}
		if in.Format.Aspects() != 1 {
			t.Errorf("%s: aspects %d, want color", in.Name, in.Format.Aspects())
		}
	}
	// Every header name appears once; a few blocks the specification gives.
	seen := map[string]bool{}
	for _, f := range VkFormats() {
		n := f.VkName()
		if seen[n] || !strings.HasPrefix(n, "VK_FORMAT_") {
			t.Errorf("format %d: name %q", f, n)
		}
		seen[n] = true
	}
	for _, c := range []struct {
		f                   Format
		size, w, h, aspects uint32
		name                string
	}{
		{0, 0, 1, 1, 0, "VK_FORMAT_UNDEFINED"},
		{124, 2, 1, 1, 2, "VK_FORMAT_D16_UNORM"},
		{129, 4, 1, 1, 6, "VK_FORMAT_D24_UNORM_S8_UINT"},
		{130, 5, 1, 1, 6, "VK_FORMAT_D32_SFLOAT_S8_UINT"},
		{127, 1, 1, 1, 4, "VK_FORMAT_S8_UINT"},
		{131, 8, 4, 4, 1, "VK_FORMAT_BC1_RGB_UNORM_BLOCK"},
		{145, 16, 4, 4, 1, "VK_FORMAT_BC7_UNORM_BLOCK"},
		{177, 16, 10, 8, 1, "VK_FORMAT_ASTC_10x8_UNORM_BLOCK"},
		{1000156003, 0, 1, 1, 0, "VK_FORMAT_G8_B8R8_2PLANE_420_UNORM"},
		{1000156009, 8, 1, 1, 1, "VK_FORMAT_R10X6G10X6B10X6A10X6_UNORM_4PACK16"},
		{0x7fff0000, 0, 1, 1, 0, ""},
	} {
		s, w, h := c.f.Block()
		if [4]uint32{s, w, h, c.f.Aspects()} != [4]uint32{c.size, c.w, c.h, c.aspects} || c.f.VkName() != c.name {
			t.Errorf("%d: %q %d bytes %dx%d aspects %d; want %q %d bytes %dx%d aspects %d",
				c.f, c.f.VkName(), s, w, h, c.f.Aspects(), c.name, c.size, c.w, c.h, c.aspects)
		}
	}
	if Format(145).String() != "VK_FORMAT_BC7_UNORM_BLOCK" || Format(0x7fff0000).String() != "Format(2147418112)" {
		t.Errorf("String of formats outside the table: %q, %q", Format(145), Format(0x7fff0000))
	}
	if Format(0).IsVulkan() || !RGBA8UNorm.IsVulkan() || Format(0x7fff0000).IsVulkan() {
		t.Error("IsVulkan")
	}
}

// TestGeneratedUpToDate regenerates vkformats.go from the installed
// Khronos header and checks that it matches the committed file: run
// go generate ./format after changing the generator or the header.
func TestGeneratedUpToDate(t *testing.T) {
	header, err := os.ReadFile(vkgen.DefaultHeader)
	if err != nil {
		t.Skipf("no Vulkan header to regenerate from (Debian: libvulkan-dev): %v", err)
	}
	m := regexp.MustCompile(`(?m)^#define VK_HEADER_VERSION (\d+)`).FindSubmatch(header)
	if m == nil {
		t.Fatalf("%s has no VK_HEADER_VERSION", vkgen.DefaultHeader)
	}
	if v, _ := strconv.Atoi(string(m[1])); v != vkHeaderVersion {
		t.Skipf("the installed header is version %d, vkformats.go comes from version %d", v, vkHeaderVersion)
	}
	want, err := vkgen.Generate(header)
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("vkformats.go")
	if os.IsNotExist(err) {
		t.Skip("vkformats.go is not here (a test binary copied without its package's sources)")
	}
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("vkformats.go is not what the generator makes from %s: run go generate ./format", vkgen.DefaultHeader)
	}
}

func TestTableConsistency(t *testing.T) {
	all := All()
	if len(all) < 47 {
		t.Fatalf("only %d formats", len(all))
	}
	for _, in := range all {
		elem := map[CUDAFormat]int{CUDAUint8: 1, CUDAInt8: 1, CUDAUint16: 2, CUDAInt16: 2, CUDAHalf: 2, CUDAUint32: 4, CUDAInt32: 4, CUDAFloat32: 4}[in.CUDAFormat]
		if in.CUDAChannels > 0 && elem*in.CUDAChannels != in.BytesPerTexel {
			t.Errorf("%s: CUDA %d×%d bytes != %d bytes per texel", in.Name, in.CUDAChannels, elem, in.BytesPerTexel)
		}
		if int(in.DType.Bits)/8*in.DTypeLanes != in.BytesPerTexel {
			t.Errorf("%s: dtype %+v × %d lanes != %d bytes", in.Name, in.DType, in.DTypeLanes, in.BytesPerTexel)
		}
		if in.CUDAChannels == 3 || in.CUDAChannels > 4 {
			t.Errorf("%s: CUDA arrays have 1, 2 or 4 channels, not %d", in.Name, in.CUDAChannels)
		}
		f, err := Parse(in.Name)
		if err != nil || f != in.Format {
			t.Errorf("Parse(%q) = %v, %v", in.Name, f, err)
		}
		if f, err := Parse(in.VkName); err != nil || f != in.Format {
			t.Errorf("Parse(%q) = %v, %v", in.VkName, f, err)
		}
		if in.Format.String() != in.Name {
			t.Errorf("String() = %q, want %q", in.Format.String(), in.Name)
		}
	}
	// What Gfx2Cuda and compushady offer must be here.
	for _, name := range []string{"r8_unorm", "rg8_unorm", "rgba8_unorm", "rgba8_srgb", "bgra8_unorm", "bgra8_srgb",
		"r16_float", "rgba16_float", "r32_float", "rg32_float", "rgb32_float", "rgba32_float", "rgba32_uint", "rgba32_sint",
		"rgba16_unorm", "rgba16_snorm", "rgba8_snorm", "rgba8_uint", "rgba8_sint", "rgb10a2_unorm", "rg11b10_float", "r32_uint", "r16_sint"} {
		if _, err := Parse(name); err != nil {
			t.Errorf("missing %s", name)
		}
	}
	if _, err := Parse("rgba64_bogus"); err == nil {
		t.Error("Parse accepted a bogus name")
	}
}

func TestDTypes(t *testing.T) {
	cases := map[Format]string{RGBA8UNorm: "|u1", RGBA16Float: "<f2", R32Float: "<f4", RG16SInt: "<i2", RGBA8SNorm: "|i1", RGB10A2UNorm: "<u4"}
	for f, want := range cases {
		if got := f.Info().DType.TypeStr(); got != want {
			t.Errorf("%s: typestr %s, want %s", f, got, want)
		}
	}
	if in := RGBA8UNorm.Info(); in.DTypeLanes != 4 || in.CUDAChannels != 4 || in.CUDAFormat != CUDAUint8 {
		t.Errorf("rgba8: %+v", in)
	}
}

func TestNearest(t *testing.T) {
	// Pretend only 4-channel formats can be shared: rgb32_float's nearest is rgba32_float.
	only4 := func(f Format) bool { return f.Info().Channels == 4 && f.Info().CUDAArrayCapable() }
	n := Nearest(RGB32Float, only4)
	if len(n) == 0 || n[0] != RGBA32Float {
		t.Errorf("nearest to rgb32_float = %v", n)
	}
	if n := Nearest(R8SRGB, func(f Format) bool { return f == RGBA8SRGB || f == R8UNorm }); n[0] != RGBA8SRGB {
		t.Errorf("nearest to r8_srgb = %v", n)
	}
}

func TestForDType(t *testing.T) {
	cases := []struct {
		dt   DType
		ch   int
		want Format
	}{
		{DType{DLUInt, 8, 1}, 4, RGBA8UNorm}, {DType{DLInt, 8, 1}, 1, R8SNorm}, {DType{DLFloat, 32, 1}, 4, RGBA32Float},
		{DType{DLFloat, 16, 1}, 2, RG16Float}, {DType{DLUInt, 16, 1}, 1, R16UInt}, {DType{DLInt, 32, 1}, 4, RGBA32SInt},
	}
	for _, c := range cases {
		if got, err := ForDType(c.dt, c.ch); err != nil || got != c.want {
			t.Errorf("ForDType(%s, %d) = %v, %v; want %v", c.dt.TypeStr(), c.ch, got, err, c.want)
		}
	}
	if _, err := ForDType(DType{DLFloat, 32, 1}, 3); err == nil {
		t.Error("3 channels accepted")
	}
}

func TestDType(t *testing.T) {
	for _, c := range []struct {
		d        DType
		name, ts string
		size     int
	}{
		{Uint8, "uint8", "|u1", 1},
		{Int8, "int8", "|i1", 1},
		{Float16, "float16", "<f2", 2},
		{Float32, "float32", "<f4", 4},
		{Int32, "int32", "<i4", 4},
		{Uint16, "uint16", "<u2", 2},
		{DType{DLUInt, 8, 4}, "uint8x4", "|u1", 4},
		{DType{}, "DType{0,0,0}", "<i0", 0},
		{DType{5, 32, 1}, "DType{5,32,1}", "|V4", 4},
	} {
		if got := c.d.String(); got != c.name {
			t.Errorf("%#v.String() = %q, want %q", c.d, got, c.name)
		}
		if got := c.d.TypeStr(); got != c.ts {
			t.Errorf("%#v.TypeStr() = %q, want %q", c.d, got, c.ts)
		}
		if got := c.d.Size(); got != c.size {
			t.Errorf("%#v.Size() = %d, want %d", c.d, got, c.size)
		}
	}
	// Every format's element type is one of the named ones.
	named := map[DType]bool{Int8: true, Int16: true, Int32: true, Uint8: true, Uint16: true, Uint32: true, Float16: true, Float32: true}
	for _, in := range All() {
		if !named[in.DType] {
			t.Errorf("%s: element type %v has no name", in.Name, in.DType)
		}
	}
}
