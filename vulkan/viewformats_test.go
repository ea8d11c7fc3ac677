package vulkan

import (
	"encoding/binary"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	gfxformat "github.com/gfxcuda/gfxcuda/format"
	"github.com/gfxcuda/gfxcuda/internal/vk"
)

const (
	rgba8 = uint32(gfxformat.RGBA8UNorm)
	r32ui = uint32(gfxformat.R32UInt)
)

// TestImageViewFormats: an RGBA8 image made with R32_UINT among its
// ViewFormats is read (sampled, texelFetch) and written (storage) as
// R32_UINT through Binding.ImageFormat, each texel's four bytes one
// little-endian word, on random texels of an odd size with the outputs
// poisoned first; and the mistakes are refused with what to do.
func TestImageViewFormats(t *testing.T) {
	d := computeDevice(t)
	const w, h = 37, 19
	rng := rand.New(rand.NewPCG(rand.Uint64(), 35))
	texels := make([]byte, 4*w*h)
	for i := range texels {
		texels[i] = byte(rng.Uint32())
	}

	// Options: the image's own format and repeats are dropped from the
	// list; a view keeps the texel size and stays colour.
	img, err := d.NewImage(ImageOptions{Format: rgba8, Width: w, Height: h, ViewFormats: []uint32{r32ui, rgba8, r32ui}})
	if err != nil {
		t.Fatal(err)
	}
	defer img.Close()
	if got := img.Options().ViewFormats; !slices.Equal(got, []uint32{r32ui}) {
		t.Errorf("ViewFormats = %v, want [%d]", got, r32ui)
	}
	for _, c := range []struct {
		o    ImageOptions
		want string
	}{
		{ImageOptions{Format: rgba8, ViewFormats: []uint32{uint32(gfxformat.R8UNorm)}}, "a view keeps the texel size"},
		{ImageOptions{Format: rgba8, ViewFormats: []uint32{126}}, "not an uncompressed colour format"}, // D32_SFLOAT
		{ImageOptions{Format: 126, ViewFormats: []uint32{r32ui}}, "not an uncompressed colour format"},
		// sRGB has no storage use (checked below): a view format must
		// have every use of the image that views carry.
		{ImageOptions{Format: rgba8, Usage: ImageStorage | ImageSampled, ViewFormats: []uint32{uint32(gfxformat.RGBA8SRGB)}},
			"viewed as VK_FORMAT_R8G8B8A8_SRGB, which has no"},
	} {
		if c.o.Usage&ImageStorage != 0 && d.inst.raw.FormatProperties(d.pd.h, uint32(gfxformat.RGBA8SRGB)).Optimal&vk.FormatFeatureStorageImage != 0 {
			continue // this device stores sRGB texels
		}
		if bad, err := d.NewImage(c.o); err == nil || !strings.Contains(err.Error(), c.want) {
			bad.Close()
			t.Errorf("NewImage(%v as %v) = %v, want an error saying %q", FormatName(c.o.Format), c.o.ViewFormats, err, c.want)
		}
	}
	if err := img.Upload(ImageRegion{}, texels); err != nil {
		t.Fatal(err)
	}

	// Read as R32_UINT: each texel's bytes as one word.
	read, err := d.NewComputePipeline(compileModule(t, "read.comp", `#version 450
#extension GL_EXT_samplerless_texture_functions : require
layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 0, binding = 0) uniform utexture2D src;
layout(set = 0, binding = 1) writeonly buffer Out { uint o[]; };
void main() {
	uvec2 p = gl_GlobalInvocationID.xy;
	if (p.x < 37u && p.y < 19u)
		o[p.y * 37u + p.x] = texelFetch(src, ivec2(p), 0).x;
}`))
	if err != nil {
		t.Fatal(err)
	}
	defer read.Close()
	poison := poisoned(len(texels))
	out := hostBuffer(t, d, poison)
	defer out.Close()
	view := []Binding{{Binding: 0, Image: img, ImageFormat: r32ui}, {Binding: 1, Buffer: out}}
	if err := d.Run(func(c *Commands) error { c.Dispatch(read, view, nil, 5, 3, 1); return c.Err() }); err != nil {
		t.Fatal(err)
	}
	for i, v := range contents(t, out) {
		if want := binary.LittleEndian.Uint32(texels[4*i:]); v != want {
			t.Fatalf("texel %d read as R32_UINT: %#08x, want %#08x (its bytes % x)", i, v, want, texels[4*i:4*i+4])
		}
	}

	// Written as R32_UINT: the words' bytes are the RGBA8 texels.
	write, err := d.NewComputePipeline(compileModule(t, "write.comp", `#version 450
layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 0, binding = 0, r32ui) uniform writeonly uimage2D dst;
layout(set = 0, binding = 1) readonly buffer In { uint v[]; };
void main() {
	uvec2 p = gl_GlobalInvocationID.xy;
	if (p.x < 37u && p.y < 19u)
		imageStore(dst, ivec2(p), uvec4(v[p.y * 37u + p.x]));
}`))
	if err != nil {
		t.Fatal(err)
	}
	defer write.Close()
	words := make([]byte, len(texels))
	for i := range words {
		words[i] = byte(rng.Uint32())
	}
	in := hostBuffer(t, d, words)
	defer in.Close()
	if err := img.Upload(ImageRegion{}, poison); err != nil {
		t.Fatal(err)
	}
	store := []Binding{{Binding: 0, Image: img, ImageFormat: r32ui}, {Binding: 1, Buffer: in}}
	if err := d.Run(func(c *Commands) error { c.Dispatch(write, store, nil, 5, 3, 1); return c.Err() }); err != nil {
		t.Fatal(err)
	}
	got := make([]byte, len(texels))
	if err := img.Readback(ImageRegion{}, got); err != nil {
		t.Fatal(err)
	}
	if diff := firstDiff(got, words); diff != "" {
		t.Fatalf("the image written as R32_UINT: %s", diff)
	}

	// Mistakes: the image's own format for a uint shader, a format not in
	// the list, ImageFormat on a buffer.
	plain, err := d.NewImage(ImageOptions{Format: rgba8, Width: w, Height: h})
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	for _, m := range []struct {
		b    []Binding
		want string
	}{
		{[]Binding{{Binding: 0, Image: img}, {Binding: 1, Buffer: out}}, "the shader reads uint texels but the image's format VK_FORMAT_R8G8B8A8_UNORM holds"},
		{[]Binding{{Binding: 0, Image: img, ImageFormat: uint32(gfxformat.R32Float)}, {Binding: 1, Buffer: out}}, "is not one of the image's ViewFormats (VK_FORMAT_R32_UINT)"},
		{[]Binding{{Binding: 0, Image: plain, ImageFormat: r32ui}, {Binding: 1, Buffer: out}}, "is not one of the image's ViewFormats (none); make the image with it in ImageOptions.ViewFormats"},
		{[]Binding{{Binding: 0, Image: img, ImageFormat: r32ui}, {Binding: 1, Buffer: out, ImageFormat: r32ui}}, "ImageFormat is for images"},
	} {
		err := d.Run(func(c *Commands) error { c.Dispatch(read, m.b, nil, 1, 1, 1); return c.Err() })
		if err == nil || !strings.Contains(err.Error(), m.want) {
			t.Errorf("dispatch with %v: %v, want an error containing %q", m.b, err, m.want)
		}
	}
}

// TestImageViewFormatsCycles makes, uses and closes images with a second
// view format many times: the views are destroyed with their image (the
// validation layer reports any left at the device's end).
func TestImageViewFormatsCycles(t *testing.T) {
	d := computeDevice(t)
	p, err := d.NewComputePipeline(compileModule(t, "one.comp", `#version 450
#extension GL_EXT_samplerless_texture_functions : require
layout(local_size_x = 1) in;
layout(set = 0, binding = 0) uniform utexture2D src;
layout(set = 0, binding = 1) writeonly buffer Out { uint o[]; };
void main() { o[0] = texelFetch(src, ivec2(0), 0).x; }`))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	out := hostBuffer(t, d, make([]byte, 4))
	defer out.Close()
	for i := range 300 {
		img, err := d.NewImage(ImageOptions{Format: rgba8, ViewFormats: []uint32{r32ui}})
		if err != nil {
			t.Fatal(err)
		}
		texel := binary.LittleEndian.AppendUint32(nil, uint32(i)*2654435761)
		if err := img.Upload(ImageRegion{}, texel); err != nil {
			t.Fatal(err)
		}
		err = d.Run(func(c *Commands) error {
			c.Dispatch(p, []Binding{{Binding: 0, Image: img, ImageFormat: r32ui}, {Binding: 1, Buffer: out}}, nil, 1, 1, 1)
			return c.Err()
		})
		if err != nil {
			t.Fatal(err)
		}
		if got := contents(t, out)[0]; got != uint32(i)*2654435761 {
			t.Fatalf("cycle %d: read %#x, want %#x", i, got, uint32(i)*2654435761)
		}
		img.Close()
	}
}
