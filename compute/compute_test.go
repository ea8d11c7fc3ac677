package compute

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/gfxcuda/gfxcuda/format"
	"github.com/gfxcuda/gfxcuda/shader"
	"github.com/gfxcuda/gfxcuda/vulkan"
)

func TestDevices(t *testing.T) {
	d := openTest(t) // skips without Vulkan
	devs, err := Devices()
	if err != nil {
		t.Fatal(err)
	}
	if len(devs) == 0 {
		t.Fatal("no devices")
	}
	for _, in := range devs {
		t.Log(in, in.UUIDString(), in.Driver)
		if in.Name == "" || in.DedicatedVideoMemory+in.SharedSystemMemory == 0 {
			t.Errorf("incomplete: %+v", in)
		}
		if strings.Contains(in.Name, "llvmpipe") && (in.Hardware || in.Discrete) {
			t.Errorf("lavapipe listed as hardware: %+v", in)
		}
	}
	best := Best(devs)
	if d.Info().UUID != devs[best].UUID {
		t.Errorf("Open chose %s, Best %s", d.Info().Name, devs[best].Name)
	}
	for _, spec := range []string{"", devs[0].Name[:3], devs[0].UUIDString(), "GPU-" + devs[0].UUIDString(), "0"} {
		i, err := Select(devs, spec)
		if err != nil || i < 0 {
			t.Errorf("Select(%q): %d, %v", spec, i, err)
		}
	}
	if _, err := Select(devs, "no such device"); err == nil || !strings.Contains(err.Error(), devs[0].Name) {
		t.Errorf("Select of a bad name: %v (want the list of devices)", err)
	}
	if _, err := Select(devs, "99"); err == nil {
		t.Error("Select(99) succeeded")
	}
	t.Setenv(DeviceEnv, "no such device")
	if _, err := Open(Options{}); err == nil || !strings.Contains(err.Error(), DeviceEnv) {
		t.Errorf("Open with a bad %s: %v", DeviceEnv, err)
	}

	// Best: hardware, then discrete, then memory.
	list := []DeviceInfo{
		{Index: 0, Name: "cpu", DedicatedVideoMemory: 64 << 30},
		{Index: 1, Name: "igpu", Hardware: true, DedicatedVideoMemory: 32 << 30},
		{Index: 2, Name: "small", Hardware: true, Discrete: true, DedicatedVideoMemory: 8 << 30},
		{Index: 3, Name: "big", Hardware: true, Discrete: true, DedicatedVideoMemory: 80 << 30},
	}
	if i := Best(list); list[i].Name != "big" {
		t.Errorf("Best chose %s", list[i].Name)
	}
	if i := Best(list[:3]); list[i].Name != "small" {
		t.Errorf("Best chose %s", list[i].Name)
	}
	if i := Best(list[:2]); list[i].Name != "igpu" {
		t.Errorf("Best chose %s", list[i].Name)
	}
	if i, _ := Select(list, "GP"); list[i].Name != "igpu" {
		t.Errorf("Select(GP) chose %s", list[i].Name)
	}
}

// TestStructured runs the same transformation in HLSL and GLSL on random
// data with a poisoned output, through each heap.
func TestStructured(t *testing.T) {
	d := openTest(t)
	srcs := map[string]string{
		"saxpy.hlsl": `
struct Params { float a; uint n; };
[[vk::push_constant]] ConstantBuffer<Params> pc;
StructuredBuffer<float> x : register(t0);
StructuredBuffer<float> y : register(t1);
RWStructuredBuffer<float> outp : register(u2);
[numthreads(64, 1, 1)]
void main(uint3 id : SV_DispatchThreadID) {
	if (id.x < pc.n) outp[id.x] = pc.a * x[id.x] + y[id.x];
}`,
		"saxpy.comp": `#version 450
layout(local_size_x = 64) in;
layout(push_constant) uniform Params { float a; uint n; } pc;
layout(std430, binding = 0) readonly buffer X { float x[]; };
layout(std430, binding = 1) readonly buffer Y { float y[]; };
layout(std430, binding = 2) writeonly buffer Out { float outp[]; };
void main() {
	uint i = gl_GlobalInvocationID.x;
	if (i < pc.n) outp[i] = pc.a * x[i] + y[i];
}`,
	}
	r := newRand(2)
	const n = 1000
	for name, src := range srcs {
		k := compile(t, d, name, src)
		for _, heap := range []Heap{HeapDefault, HeapUpload, HeapReadback} {
			xs, ys := make([]float32, n), make([]float32, n)
			for i := range xs {
				xs[i], ys[i] = r.Float32()*100-50, r.Float32()*100-50
			}
			a := r.Float32() * 4
			xb := newBuffer(t, d, heap, f32bytes(xs))
			yb := newBuffer(t, d, heap, f32bytes(ys))
			ob := newBuffer(t, d, heap, poison(4*(n+24)))
			err := k.Dispatch((n+63)/64, 1, 1, At(0, xb), At(1, yb), Named("outp", ob), PushValues(a, uint32(n)))
			if err != nil {
				t.Fatalf("%s on %v: %v", name, heap, err)
			}
			got := readback(t, ob)
			for i, v := range f32s(got[:4*n]) {
				if want := a*xs[i] + ys[i]; math.Abs(float64(v-want)) > 1e-4*math.Abs(float64(want))+1e-5 {
					t.Fatalf("%s on %v: out[%d] = %v, want %v", name, heap, i, v, want)
				}
			}
			if !bytes.Equal(got[4*n:], poison(4*24)) {
				t.Errorf("%s on %v: bytes past n were written", name, heap)
			}
			for _, b := range []*Buffer{xb, yb, ob} {
				b.Close()
			}
		}
		k.Close()
	}
}

// TestByteAddressAndConstants covers ByteAddressBuffer, RWByteAddressBuffer,
// a cbuffer by name, and a structured buffer of a struct.
func TestByteAddressAndConstants(t *testing.T) {
	d := openTest(t)
	k := compile(t, d, "bytes.hlsl", `
cbuffer Params : register(b0) { uint mul; uint add; uint count; };
struct Pair { uint a; float b; };
ByteAddressBuffer src : register(t1);
RWByteAddressBuffer dst : register(u2);
RWStructuredBuffer<Pair> pairs : register(u3);
[numthreads(32, 1, 1)]
void main(uint3 id : SV_DispatchThreadID) {
	if (id.x >= count) return;
	uint v = src.Load(id.x * 4);
	dst.Store(id.x * 4, v * mul + add);
	Pair p = pairs[id.x];
	p.a ^= v;
	p.b *= 2;
	pairs[id.x] = p;
}`)
	r := newRand(3)
	const n = 333
	src := make([]uint32, n)
	pairs := make([]byte, 8*n)
	for i := range src {
		src[i] = r.Uint32()
		binary.LittleEndian.PutUint32(pairs[8*i:], r.Uint32())
		binary.LittleEndian.PutUint32(pairs[8*i+4:], math.Float32bits(float32(i)-100))
	}
	cb := newBuffer(t, d, HeapUpload, u32bytes([]uint32{0x01000193, 0x811c9dc5, n, 0}))
	sb := newBuffer(t, d, HeapDefault, u32bytes(src))
	db := newBuffer(t, d, HeapDefault, poison(4*n))
	pb, err := d.StructuredBuffer(8, n, HeapDefault)
	if err != nil {
		t.Fatal(err)
	}
	if err := pb.Upload(pairs); err != nil {
		t.Fatal(err)
	}
	if err := k.Dispatch((n+31)/32, 1, 1, Named("Params", cb), At(1, sb), At(2, db), At(3, pb)); err != nil {
		t.Fatal(err)
	}
	got, gotPairs := u32s(readback(t, db)), readback(t, pb)
	for i, v := range src {
		if want := v*0x01000193 + 0x811c9dc5; got[i] != want {
			t.Fatalf("dst[%d] = %#x, want %#x", i, got[i], want)
		}
		a := binary.LittleEndian.Uint32(pairs[8*i:]) ^ v
		b := math.Float32bits((float32(i) - 100) * 2)
		if ga, gb := binary.LittleEndian.Uint32(gotPairs[8*i:]), binary.LittleEndian.Uint32(gotPairs[8*i+4:]); ga != a || gb != b {
			t.Fatalf("pairs[%d] = %#x %#x, want %#x %#x", i, ga, gb, a, b)
		}
	}
	// A structured buffer of another stride is refused.
	p4, _ := d.StructuredBuffer(4, 2*n, HeapDefault)
	err = k.Dispatch(1, 1, 1, Named("Params", cb), At(1, sb), At(2, db), At(3, p4))
	if err == nil || !strings.Contains(err.Error(), "8 bytes") {
		t.Errorf("stride mismatch: %v", err)
	}
}

// TestTypedBuffers covers texel buffers: HLSL Buffer<T> and RWBuffer<T>
// and GLSL textureBuffer and imageBuffer, with formats that differ from
// what the shader declares.
func TestTypedBuffers(t *testing.T) {
	d := openTest(t)
	hl := compile(t, d, "typed.hlsl", `
Buffer<float4> colors : register(t0);
RWBuffer<uint> sums : register(u1);
RWBuffer<float4> halves : register(u2);
[numthreads(64, 1, 1)]
void main(uint3 id : SV_DispatchThreadID) {
	float4 c = colors[id.x];
	sums[id.x] = (uint)round(dot(c, float4(255, 255, 255, 255)));
	halves[id.x] = c * 0.5;
}`)
	gl := compile(t, d, "typed.comp", `#version 450
layout(local_size_x = 64) in;
layout(binding = 0) uniform textureBuffer colors;
layout(binding = 1, r32ui) uniform writeonly uimageBuffer sums;
layout(binding = 2, rgba8) uniform writeonly imageBuffer halves;
void main() {
	int i = int(gl_GlobalInvocationID.x);
	vec4 c = texelFetch(colors, i);
	imageStore(sums, i, uvec4(uint(round(dot(c, vec4(255.0))))));
	imageStore(halves, i, c * 0.5);
}`)
	r := newRand(4)
	const n = 256
	for _, k := range []*Kernel{hl, gl} {
		colors := randomBytes(r, 4*n)
		cb, err := d.TypedBuffer(format.RGBA8UNorm, n, HeapDefault)
		if err != nil {
			t.Fatal(err)
		}
		cb.Upload(colors)
		sb, _ := d.TypedBuffer(format.R32UInt, n, HeapDefault)
		hb, _ := d.TypedBuffer(format.RGBA8UNorm, n, HeapDefault)
		sb.Upload(poison(4 * n))
		hb.Upload(poison(4 * n))
		if err := k.Dispatch(n/64, 1, 1, At(0, cb), At(1, sb), At(2, hb)); err != nil {
			t.Fatal(err)
		}
		sums, halves := u32s(readback(t, sb)), readback(t, hb)
		for i := range n {
			var want uint32
			for c := range 4 {
				want += uint32(colors[4*i+c])
				// x/255*0.5 stored as unorm8: round(x/2), ties to even or up.
				h := float64(colors[4*i+c]) / 2
				if g := float64(halves[4*i+c]); math.Abs(g-h) > 0.5 {
					t.Fatalf("halves[%d][%d] = %v, want %v", i, c, g, h)
				}
			}
			if sums[i] != want {
				t.Fatalf("sums[%d] = %d, want %d", i, sums[i], want)
			}
		}
		// The same memory viewed as another format with As.
		raw := newBuffer(t, d, HeapDefault, colors)
		if err := k.Dispatch(n/64, 1, 1, At(0, raw).As(format.RGBA8UNorm), At(1, sb), At(2, hb)); err != nil {
			t.Fatal(err)
		}
		if got := u32s(readback(t, sb)); !slicesEqual(got, sums) {
			t.Error("As(rgba8_unorm) differs from a typed buffer")
		}
	}
}

func slicesEqual[T comparable](a, b []T) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestTextures writes 1D, 2D and 3D storage images in one dispatch, reads
// them back, then reads them in a shader as sampled images (Load) and as
// storage images.
func TestTextures(t *testing.T) {
	d := openTest(t)
	write := compile(t, d, "write.hlsl", `
RWTexture1D<uint> t1 : register(u0);
RWTexture2D<float4> t2 : register(u1);
RWTexture3D<float> t3 : register(u2);
[numthreads(4, 4, 4)]
void main(uint3 id : SV_DispatchThreadID) {
	uint h = (id.x * 73856093u) ^ (id.y * 19349663u) ^ (id.z * 83492791u);
	if (id.y == 0 && id.z == 0) t1[id.x] = h;
	if (id.z == 0) t2[id.xy] = float4(id.x, id.y, 255 - id.x, 128) / 255.0;
	t3[id] = (float)(id.x + 16 * id.y + 256 * id.z);
}`)
	read := compile(t, d, "read.comp", `#version 450
#extension GL_EXT_samplerless_texture_functions : require
layout(local_size_x = 4, local_size_y = 4, local_size_z = 4) in;
layout(binding = 0) uniform utexture1D t1;
layout(binding = 1) uniform texture2D t2;
layout(binding = 2, r32f) uniform readonly image3D t3;
layout(std430, binding = 3) writeonly buffer Out { uint o[]; };
void main() {
	uvec3 id = gl_GlobalInvocationID;
	uint i = id.x + 16u * id.y + 256u * id.z;
	uint v = uint(imageLoad(t3, ivec3(id)).x);
	if (id.y == 0u && id.z == 0u) v ^= texelFetch(t1, int(id.x), 0).x;
	if (id.z == 0u) v += packUnorm4x8(texelFetch(t2, ivec2(id.xy), 0));
	o[i] = v;
}`)
	t1, err := d.Texture1D(16, format.R32UInt)
	if err != nil {
		t.Fatal(err)
	}
	t2, err := d.Texture2D(16, 16, format.RGBA8UNorm)
	if err != nil {
		t.Fatal(err)
	}
	t3, err := d.Texture3D(16, 16, 16, format.R32Float)
	if err != nil {
		t.Fatal(err)
	}
	for _, tx := range []*Texture{t1, t2, t3} {
		if err := tx.Upload(poison(int(tx.Size()))); err != nil {
			t.Fatal(err)
		}
	}
	out := newBuffer(t, d, HeapDefault, poison(4*4096))
	b, err := d.NewBatch()
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	b.Dispatch(write, 4, 4, 4, At(0, t1), At(1, t2), At(2, t3))
	b.Dispatch(read, 4, 4, 4, At(0, t1), At(1, t2), At(2, t3), At(3, out))
	if err := b.Run(); err != nil {
		t.Fatal(err)
	}
	hash := func(x, y, z uint32) uint32 { return x*73856093 ^ y*19349663 ^ z*83492791 }
	g1, _ := t1.Readback()
	g2, _ := t2.Readback()
	g3, _ := t3.Readback()
	got := u32s(readback(t, out))
	for z := range uint32(16) {
		for y := range uint32(16) {
			for x := range uint32(16) {
				i := x + 16*y + 256*z
				want := x + 16*y + 256*z
				if v := math.Float32frombits(binary.LittleEndian.Uint32(g3[4*i:])); v != float32(want) {
					t.Fatalf("t3[%d,%d,%d] = %v, want %v", x, y, z, v, want)
				}
				if y == 0 && z == 0 {
					if v := binary.LittleEndian.Uint32(g1[4*x:]); v != hash(x, 0, 0) {
						t.Fatalf("t1[%d] = %#x", x, v)
					}
					want ^= hash(x, 0, 0)
				}
				if z == 0 {
					px := g2[4*(x+16*y):][:4]
					if !bytes.Equal(px, []byte{byte(x), byte(y), byte(255 - x), 128}) {
						t.Fatalf("t2[%d,%d] = %v", x, y, px)
					}
					want += binary.LittleEndian.Uint32(px)
				}
				if got[i] != want {
					t.Fatalf("out[%d,%d,%d] = %#x, want %#x", x, y, z, got[i], want)
				}
			}
		}
	}
}

// TestSamplers samples a 4-texel row [1, 2, 4, 8] with point and linear
// filtering and each address mode at coordinates whose results are exact.
func TestSamplers(t *testing.T) {
	d := openTest(t)
	hl := compile(t, d, "sample.hlsl", `
Texture2D<float> tex : register(t0);
SamplerState smp : register(s1);
StructuredBuffer<float> coords : register(t2);
RWStructuredBuffer<float> outp : register(u3);
[numthreads(8, 1, 1)]
void main(uint3 id : SV_DispatchThreadID) {
	outp[id.x] = tex.SampleLevel(smp, float2(coords[id.x], 0.5), 0);
}`)
	gl := compile(t, d, "sample.comp", `#version 450
layout(local_size_x = 8) in;
layout(binding = 0) uniform sampler2D tex;
layout(std430, binding = 2) readonly buffer C { float coords[]; };
layout(std430, binding = 3) writeonly buffer O { float outp[]; };
void main() {
	uint i = gl_GlobalInvocationID.x;
	outp[i] = textureLod(tex, vec2(coords[i], 0.5), 0.0).x;
}`)
	tex, err := d.Texture2D(4, 1, format.R32Float)
	if err != nil {
		t.Fatal(err)
	}
	if err := tex.Upload(f32bytes([]float32{1, 2, 4, 8})); err != nil {
		t.Fatal(err)
	}
	// Linear weights are multiples of 1/4 at these coordinates: exact.
	coords := []float32{0.3125, 0.25, 1.3125, 0.0, -0.3125, 0.5, 0.875, 1.125}
	cb := newBuffer(t, d, HeapUpload, f32bytes(coords))
	want := map[string][]float32{
		// point: texel floor(u·4), addressed.
		"point/wrap":   {2, 2, 2, 1, 4, 4, 8, 1},
		"point/mirror": {2, 2, 4, 1, 2, 4, 8, 8},
		"point/clamp":  {2, 2, 8, 1, 1, 4, 8, 8},
		// linear: between the texels whose centres surround u·4 − 0.5.
		"linear/wrap":   {1.75, 1.5, 1.75, 4.5, 5, 3, 8, 1},
		"linear/mirror": {1.75, 1.5, 5, 1, 1.75, 3, 8, 8},
		"linear/clamp":  {1.75, 1.5, 8, 1, 1, 3, 8, 8},
	}
	for _, filter := range []Filter{FilterPoint, FilterLinear} {
		for _, addr := range []AddressMode{AddressWrap, AddressMirror, AddressClamp} {
			name := map[Filter]string{FilterPoint: "point", FilterLinear: "linear"}[filter] + "/" +
				map[AddressMode]string{AddressWrap: "wrap", AddressMirror: "mirror", AddressClamp: "clamp"}[addr]
			s, err := d.Sampler(filter, addr)
			if err != nil {
				t.Fatal(err)
			}
			for _, k := range []*Kernel{hl, gl} {
				out := newBuffer(t, d, HeapReadback, poison(4*len(coords)))
				var err error
				if k == hl {
					err = k.Dispatch(1, 1, 1, At(0, tex), At(1, s), At(2, cb), At(3, out))
				} else {
					err = k.Dispatch(1, 1, 1, At(0, tex).With(s), At(2, cb), At(3, out))
				}
				if err != nil {
					t.Fatal(err)
				}
				got := f32s(readback(t, out))
				for i, w := range want[name] {
					if got[i] != w {
						t.Errorf("%s (%s): u = %v: got %v, want %v", name, k.Module().EntryPoints[0].Name, coords[i], got[i], w)
					}
				}
			}
		}
	}
}

// TestIndirect computes the workgroup count on the GPU and dispatches with
// it in the same batch.
func TestIndirect(t *testing.T) {
	d := openTest(t)
	setup := compile(t, d, "setup.hlsl", `
RWByteAddressBuffer args : register(u0);
struct PC { uint n; };
[[vk::push_constant]] ConstantBuffer<PC> pc;
[numthreads(1, 1, 1)]
void main() { args.Store3(16, uint3((pc.n + 63) / 64, 1, 1)); }`)
	fill := compile(t, d, "fill.hlsl", `
RWStructuredBuffer<uint> outp : register(u0);
[numthreads(64, 1, 1)]
void main(uint3 id : SV_DispatchThreadID, uint3 g : SV_GroupID) { outp[id.x] = g.x + 1; }`)
	args := newBuffer(t, d, HeapDefault, make([]byte, 32))
	out := newBuffer(t, d, HeapDefault, poison(4*1024))
	b, err := d.NewBatch()
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	b.Dispatch(setup, 1, 1, 1, At(0, args), PushValues(uint32(600)))
	b.DispatchIndirect(fill, args, 16, At(0, out))
	if err := b.Run(); err != nil {
		t.Fatal(err)
	}
	got := u32s(readback(t, out))
	for i, v := range got {
		want := uint32(i/64 + 1)
		if i >= 640 {
			want = 0xCDCDCDCD
		}
		if v != want {
			t.Fatalf("out[%d] = %#x, want %#x", i, v, want)
		}
	}
	// The synchronous form, with counts from the host.
	args.UploadAt(16, u32bytes([]uint32{2, 1, 1}))
	if err := fill.DispatchIndirect(args, 16, At(0, out)); err != nil {
		t.Fatal(err)
	}
	if err := fill.DispatchIndirect(args, 30, At(0, out)); !errors.Is(err, ErrRange) {
		t.Errorf("DispatchIndirect at a misaligned offset: %v, want ErrRange", err)
	}
	if err := fill.DispatchIndirect(args, args.Size()-8, At(0, out)); !errors.Is(err, ErrRange) {
		t.Errorf("DispatchIndirect 8 bytes before the end: %v, want ErrRange", err)
	}
}

// TestBatch records 1,000 dispatches that each add 1 to every element in
// one submission, and compares with 1,000 synchronous dispatches.
func TestBatch(t *testing.T) {
	d := openTest(t)
	k := compile(t, d, "inc.hlsl", `
RWStructuredBuffer<uint> v : register(u0);
[numthreads(64, 1, 1)]
void main(uint3 id : SV_DispatchThreadID) { v[id.x] += 1; }`)
	buf := newBuffer(t, d, HeapDefault, make([]byte, 4*256))
	const n = 1000
	b, err := d.NewBatch()
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	start := time.Now()
	for range n {
		b.Dispatch(k, 4, 1, 1, At(0, buf))
	}
	recorded := time.Since(start)
	if err := b.Run(); err != nil {
		t.Fatal(err)
	}
	batched := time.Since(start)
	for i, v := range u32s(readback(t, buf)) {
		if v != n {
			t.Fatalf("v[%d] = %d after %d batched dispatches", i, v, n)
		}
	}
	start = time.Now()
	for range n {
		if err := k.Dispatch(4, 1, 1, At(0, buf)); err != nil {
			t.Fatal(err)
		}
	}
	single := time.Since(start)
	for i, v := range u32s(readback(t, buf)) {
		if v != 2*n {
			t.Fatalf("v[%d] = %d after %d more dispatches", i, v, n)
		}
	}
	t.Logf("%d dispatches on %s: one batch %v (recording %v, %.1f µs/dispatch), one by one %v (%.1f µs/dispatch)",
		n, d.Info().Name, batched, recorded, float64(batched.Microseconds())/n, single, float64(single.Microseconds())/n)

	// A timeline semaphore value tells when a submitted batch has run; the
	// next batch waits for a value the host signals.
	sem, err := d.Vulkan().NewTimelineSemaphore(0, false)
	if err != nil {
		t.Fatal(err)
	}
	b2, _ := d.NewBatch()
	defer b2.Close()
	b.Reset()
	b.Dispatch(k, 4, 1, 1, At(0, buf))
	b2.Dispatch(k, 4, 1, 1, At(0, buf))
	if err := b.SubmitWith(vulkan.SubmitOptions{Wait: []vulkan.SemaphoreValue{{Semaphore: sem, Value: 1}},
		Signal: []vulkan.SemaphoreValue{{Semaphore: sem, Value: 2}}}); err != nil {
		t.Fatal(err)
	}
	if err := b2.SubmitWith(vulkan.SubmitOptions{Wait: []vulkan.SemaphoreValue{{Semaphore: sem, Value: 2}},
		Signal: []vulkan.SemaphoreValue{{Semaphore: sem, Value: 3}}}); err != nil {
		t.Fatal(err)
	}
	time.Sleep(10 * time.Millisecond)
	if b.Done() || b2.Done() {
		t.Fatal("batches ran before the value they wait for was signalled")
	}
	if err := sem.Signal(1); err != nil {
		t.Fatal(err)
	}
	if err := sem.Wait(3, 10*time.Second); err != nil {
		t.Fatal(err)
	}
	if err := b2.Wait(); err != nil {
		t.Fatal(err)
	}
	for i, v := range u32s(readback(t, buf)) {
		if v != 2*n+2 {
			t.Fatalf("v[%d] = %d after the timeline batches", i, v)
		}
	}

	// Reuse after Reset, with a chain through two buffers and copies.
	if err := b.Reset(); err != nil {
		t.Fatal(err)
	}
	other := newBuffer(t, d, HeapDefault, make([]byte, 4*256))
	for range 10 {
		b.Dispatch(k, 4, 1, 1, At(0, buf))
		b.CopyBuffer(other, buf, 0, 0, buf.Size())
		b.Dispatch(k, 4, 1, 1, At(0, other))
		b.CopyBuffer(buf, other, 0, 0, buf.Size())
	}
	if err := b.Run(); err != nil {
		t.Fatal(err)
	}
	for i, v := range u32s(readback(t, buf)) {
		if v != 2*n+22 {
			t.Fatalf("v[%d] = %d after the chain, want %d", i, v, 2*n+22)
		}
	}
}

// TestErrors checks that mistakes come back as clear errors and leave the
// device usable: after each, a good dispatch runs.
func TestErrors(t *testing.T) {
	d := openTest(t)
	k := compile(t, d, "ok.hlsl", `
cbuffer P : register(b0) { uint add; uint pad0; uint pad1; uint pad2; };
StructuredBuffer<uint> inp : register(t1);
RWStructuredBuffer<uint> outp : register(u2);
RWTexture2D<float4> img : register(u3);
[numthreads(64, 1, 1)]
void main(uint3 id : SV_DispatchThreadID) {
	outp[id.x] = inp[id.x] + add;
	if (id.x == 0) img[uint2(0, 0)] = 1;
}`)
	cb := newBuffer(t, d, HeapUpload, u32bytes([]uint32{5, 0, 0, 0}))
	in := newBuffer(t, d, HeapDefault, u32bytes(make([]uint32, 64)))
	out := newBuffer(t, d, HeapDefault, make([]byte, 256))
	img, _ := d.Texture2D(4, 4, format.RGBA8UNorm)
	img3, _ := d.Texture3D(4, 4, 4, format.RGBA8UNorm)
	small := newBuffer(t, d, HeapUpload, make([]byte, 8))
	good := func(what string) {
		t.Helper()
		if err := out.Upload(make([]byte, 256)); err != nil {
			t.Fatalf("after %s: %v", what, err)
		}
		if err := k.Dispatch(1, 1, 1, At(0, cb), At(1, in), At(2, out), At(3, img)); err != nil {
			t.Fatalf("good dispatch after %s: %v", what, err)
		}
		if got := u32s(readback(t, out)); got[63] != 5 {
			t.Fatalf("after %s: out[63] = %d", what, got[63])
		}
	}
	good("nothing")
	lim := d.Limits()
	cases := []struct {
		name string
		run  func() error
		want []string
	}{
		{"missing binding", func() error { return k.Dispatch(1, 1, 1, At(0, cb), At(1, in), At(3, img)) },
			[]string{"nothing is bound to outp", "binding 2"}},
		{"unknown slot", func() error { return k.Dispatch(1, 1, 1, At(0, cb), At(1, in), At(2, out), At(3, img), At(7, out)) },
			[]string{"At(7)", "no register numbered 7", "outp (u2, read-write buffer)"}},
		{"unknown name", func() error {
			return k.Dispatch(1, 1, 1, At(0, cb), At(1, in), At(2, out), At(3, img), Named("nope", out))
		}, []string{`"nope"`, "no resource"}},
		{"bound twice", func() error {
			return k.Dispatch(1, 1, 1, At(0, cb), At(1, in), At(2, out), Named("outp", out), At(3, img))
		},
			[]string{"bound twice"}},
		{"texture for a buffer", func() error { return k.Dispatch(1, 1, 1, At(0, cb), At(1, img), At(2, out), At(3, img)) },
			[]string{"inp", "needs a buffer"}},
		{"buffer for a texture", func() error { return k.Dispatch(1, 1, 1, At(0, cb), At(1, in), At(2, out), At(3, out)) },
			[]string{"img", "needs an image"}},
		{"3D texture for 2D", func() error { return k.Dispatch(1, 1, 1, At(0, cb), At(1, in), At(2, out), At(3, img3)) },
			[]string{"img", "2D image", "3D"}},
		{"buffer too small", func() error { return k.Dispatch(1, 1, 1, At(0, small), At(1, in), At(2, out), At(3, img)) },
			[]string{"P ", "8 bytes bound", "16 bytes"}},
		{"range outside", func() error {
			return k.Dispatch(1, 1, 1, At(0, cb), At(1, in).Bytes(0, 1024), At(2, out), At(3, img))
		}, []string{"inp", "outside"}},
		{"push without a block", func() error {
			return k.Dispatch(1, 1, 1, At(0, cb), At(1, in), At(2, out), At(3, img), Push([]byte{1, 2, 3, 4}))
		}, []string{"no push constants"}},
		{"too many groups", func() error {
			return k.Dispatch(lim.MaxComputeWorkGroupCount[0]+1, 1, 1, At(0, cb), At(1, in), At(2, out), At(3, img))
		}, []string{"maxComputeWorkGroupCount", d.Info().Name}},
		{"too many groups in z", func() error {
			return k.Dispatch(1, 1, lim.MaxComputeWorkGroupCount[2]+1, At(0, cb), At(1, in), At(2, out), At(3, img))
		}, []string{"in z exceeds"}},
	}
	for _, c := range cases {
		err := c.run()
		if err == nil {
			t.Errorf("%s: no error", c.name)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error %q lacks %q", c.name, err, w)
			}
		}
		good(c.name)
	}

	// A shader that does not compile: file and line.
	_, err := d.Compile([]byte("[numthreads(1,1,1)]\nvoid main() {\n\tundefined_thing = 1;\n}\n"), shader.Options{Filename: "broken.hlsl"})
	var ce *shader.CompileError
	if !errors.As(err, &ce) || len(ce.Diagnostics) == 0 || ce.Diagnostics[0].File != "broken.hlsl" || ce.Diagnostics[0].Line != 3 {
		t.Errorf("compile error: %v", err)
	}
	good("a compile error")

	// Registers of different classes with one number no longer collide:
	// TestRegisterClasses runs such shaders.
	// A workgroup larger than the device allows.
	_, err = d.Compile([]byte(`#version 450
layout(local_size_x = 1024, local_size_y = 1024) in;
void main() {}`), shader.Options{Filename: "huge.comp"})
	if err == nil || !strings.Contains(err.Error(), "maxComputeWorkGroup") {
		t.Errorf("huge workgroup: %v", err)
	}
	// Wrong push constant size.
	pk := compile(t, d, "push.comp", `#version 450
layout(local_size_x = 1) in;
layout(push_constant) uniform P { uint a; uint b; } pc;
layout(std430, binding = 0) buffer O { uint o[]; };
void main() { o[0] = pc.a + pc.b; }`)
	err = pk.Dispatch(1, 1, 1, At(0, out), PushValues(uint32(1)))
	if err == nil || !strings.Contains(err.Error(), "8 bytes") {
		t.Errorf("short push constants: %v", err)
	}
	if err := pk.Dispatch(1, 1, 1, At(0, out), PushValues(uint32(1), uint32(2))); err != nil {
		t.Fatal(err)
	}
	if got := u32s(readback(t, out)); got[0] != 3 {
		t.Errorf("o[0] = %d", got[0])
	}
	good("push constants")

	// Raw SPIR-V works as source too.
	spv, err := d.Compile(k.Module().SPIRV, shader.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := spv.Dispatch(1, 1, 1, At(0, cb), At(1, in), At(2, out), At(3, img)); err != nil {
		t.Fatalf("SPIR-V: %v", err)
	}

	// A failed batch reports its first error and recovers after Reset.
	b, _ := d.NewBatch()
	defer b.Close()
	b.Dispatch(k, 1, 1, 1, At(0, cb))
	b.Dispatch(k, 1, 1, 1, At(0, cb), At(1, in), At(2, out), At(3, img))
	if err := b.Run(); err == nil || !strings.Contains(err.Error(), "nothing is bound") {
		t.Errorf("batch error: %v", err)
	}
	b.Reset()
	b.Dispatch(k, 1, 1, 1, At(0, cb), At(1, in), At(2, out), At(3, img))
	if err := b.Run(); err != nil {
		t.Errorf("batch after Reset: %v", err)
	}
	_ = vulkan.ErrClosed
}

// TestCopies covers buffer and texture copies with regions and pitches, and
// the 2D upload and readback.
func TestCopies(t *testing.T) {
	d := openTest(t)
	r := newRand(5)
	const w, h = 13, 7
	tex, err := d.Texture2D(w, h, format.RGBA8UNorm)
	if err != nil {
		t.Fatal(err)
	}
	img := randomBytes(r, w*h*4)
	// Rows 64 bytes apart in a buffer, uploaded with Upload2D.
	pitched, _ := d.Buffer(64*h, HeapDefault)
	if err := pitched.Upload2D(img, 64, w*4, h); err != nil {
		t.Fatal(err)
	}
	back, err := pitched.Readback2D(64, w*4, h)
	if err != nil || !bytes.Equal(back, img) {
		t.Fatalf("Readback2D: %v", err)
	}
	b, _ := d.NewBatch()
	defer b.Close()
	b.CopyBufferToTexture(tex, pitched, Region{RowPitch: 64})
	tex2, _ := d.Texture2D(w, h, format.RGBA8UNorm)
	b.Copy(tex2, tex)
	// A 5×3 region from (4, 2) into a tight buffer at offset 8.
	sub, _ := d.Buffer(8+5*3*4, HeapReadback)
	b.CopyTextureToBuffer(sub, tex2, Region{BufferOffset: 8, X: 4, Y: 2, Width: 5, Height: 3})
	if err := b.Run(); err != nil {
		t.Fatal(err)
	}
	got, err := tex2.Readback()
	if err != nil || !bytes.Equal(got, img) {
		t.Fatalf("texture copy differs: %v", err)
	}
	s := readback(t, sub)
	for y := range 3 {
		for x := range 5 {
			want := img[4*((2+y)*w+4+x):][:4]
			if g := s[8+4*(y*5+x):][:4]; !bytes.Equal(g, want) {
				t.Fatalf("region texel (%d, %d) = %v, want %v", x, y, g, want)
			}
		}
	}
	// Buffer to buffer with Copy, and errors.
	a := newBuffer(t, d, HeapDefault, randomBytes(r, 100))
	c, _ := d.Buffer(100, HeapDefault)
	b.Reset()
	b.Copy(c, a)
	if err := b.Run(); err != nil || !bytes.Equal(readback(t, c), readback(t, a)) {
		t.Fatalf("buffer Copy: %v", err)
	}
	b.Reset()
	b.Copy(a, tex2)
	if err := b.Run(); err == nil {
		t.Error("copy of a 364-byte texture into a 100-byte buffer succeeded")
	}
	b.Reset()
	b.CopyBufferToTexture(tex, pitched, Region{RowPitch: 66})
	if err := b.Run(); err == nil || !strings.Contains(err.Error(), "multiple") {
		t.Errorf("bad row pitch: %v", err)
	}
}
