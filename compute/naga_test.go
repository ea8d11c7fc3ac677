package compute

import (
	"math"
	"testing"

	"github.com/gfxcuda/gfxcuda/format"
	"github.com/gfxcuda/gfxcuda/shader"
)

// compileNaga compiles GLSL as compushady's naga accepts it
// (shader.Options.NagaGLSL), after checking that glslang alone rejects it.
func compileNaga(t *testing.T, d *Device, name, src string) *Kernel {
	t.Helper()
	if _, err := d.Compile([]byte(src), shader.Options{Filename: name, NoCache: true}); err == nil {
		t.Fatalf("%s compiles without NagaGLSL", name)
	}
	k, err := d.Compile([]byte(src), shader.Options{Filename: name, NagaGLSL: true})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return k
}

// TestNagaLooseUniform samples a texture of random values and scales them
// by a uniform declared outside a block, which NagaGLSL makes a uniform
// buffer whose first 4 bytes hold it.
func TestNagaLooseUniform(t *testing.T) {
	d := openTest(t)
	k := compileNaga(t, d, "scale.comp", `#version 450
layout(local_size_x = 8, local_size_y = 4) in;
layout(set = 0, binding = 0) uniform sampler pointSampler;
layout(set = 0, binding = 1) uniform texture2D values;
layout(set = 0, binding = 2, r32f) uniform writeonly image2D scaled;
// The factor, outside a block as naga allows:
layout(set = 0, binding = 3) uniform float factor;

void main() {
	ivec2 p = ivec2(gl_GlobalInvocationID.xy);
	vec2 uv = (vec2(p) + 0.5) / vec2(textureSize(sampler2D(values, pointSampler), 0));
	imageStore(scaled, p, textureLod(sampler2D(values, pointSampler), uv, 0.0) * factor);
}
`)
	const w, h = 32, 16
	r := newRand(21)
	in := make([]float32, w*h)
	for i := range in {
		in[i] = (r.Float32()*2 - 1) * 1000
	}
	factor := 0.5 + 3.5*r.Float32()
	src, err := d.Texture2D(w, h, format.R32Float)
	if err != nil {
		t.Fatal(err)
	}
	if err := src.Upload(f32bytes(in)); err != nil {
		t.Fatal(err)
	}
	dst, err := d.Texture2D(w, h, format.R32Float)
	if err != nil {
		t.Fatal(err)
	}
	if err := dst.Upload(poison(4 * w * h)); err != nil {
		t.Fatal(err)
	}
	// The factor, then random bytes the shader must not read.
	cb := newBuffer(t, d, HeapUpload, append(f32bytes([]float32{factor}), randomBytes(r, 60)...))
	s, err := d.Sampler(FilterPoint, AddressClamp)
	if err != nil {
		t.Fatal(err)
	}
	if err := k.Dispatch(w/8, h/4, 1, At(0, s), At(1, src), At(2, dst), At(3, cb)); err != nil {
		t.Fatal(err)
	}
	out, err := dst.Readback()
	if err != nil {
		t.Fatal(err)
	}
	got := f32s(out)
	for i, v := range in {
		if want := v * factor; math.Float32bits(got[i]) != math.Float32bits(want) {
			t.Fatalf("texel (%d, %d): got %v, want %v × %v = %v", i%w, i/w, got[i], v, factor, want)
		}
	}
}

// TestNagaImageFormat reads, scales and writes an image1D declared r32ui,
// which naga (and NagaGLSL) makes a uimage1D, with an unsigned uniform
// outside a block added.
func TestNagaImageFormat(t *testing.T) {
	d := openTest(t)
	k := compileNaga(t, d, "triple.comp", `#version 450
layout(set = 0, binding = 0, r32ui) uniform image1D counts;
layout(set = 0, binding = 1) uniform uint offset; /* a uint this time */

layout (local_size_x = 64) in;
void main() {
	int i = int(gl_GlobalInvocationID.x);
	imageStore(counts, i, imageLoad(counts, i) * 3 + offset);
}
`)
	for _, r := range k.Resources() {
		if r.Kind == shader.StorageImage && (r.SampledType != shader.ScalarUint || r.Format != shader.FormatR32ui) {
			t.Errorf("image %+v, want an r32ui image of uint", r)
		}
	}
	const n = 256
	r := newRand(22)
	in := make([]uint32, n)
	for i := range in {
		in[i] = r.Uint32()
	}
	offset := r.Uint32()
	img, err := d.Texture1D(n, format.R32UInt)
	if err != nil {
		t.Fatal(err)
	}
	if err := img.Upload(u32bytes(in)); err != nil {
		t.Fatal(err)
	}
	cb := newBuffer(t, d, HeapUpload, append(u32bytes([]uint32{offset}), poison(12)...))
	if err := k.Dispatch(n/64, 1, 1, At(0, img), At(1, cb)); err != nil {
		t.Fatal(err)
	}
	out, err := img.Readback()
	if err != nil {
		t.Fatal(err)
	}
	got := u32s(out)
	for i, v := range in {
		if want := v*3 + offset; got[i] != want {
			t.Fatalf("counts[%d]: got %#x, want %#x × 3 + %#x = %#x", i, got[i], v, offset, want)
		}
	}
}
