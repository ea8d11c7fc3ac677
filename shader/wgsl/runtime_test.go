package wgsl_test

import (
	"encoding/binary"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/gfxcuda/gfxcuda/compute"
	"github.com/gfxcuda/gfxcuda/shader"
	"github.com/gfxcuda/gfxcuda/shader/wgsl"
	"github.com/gfxcuda/gfxcuda/vulkan"
)

// TestRuntimeSemantics runs translated shaders on a Vulkan device
// (lavapipe in CI) to check the semantics the translation has to build:
// continuing blocks and continue, let pointers, integer division and
// shifts, saturating conversions, workgroup zero-initialization and
// uniform layouts. It skips without Vulkan.
func TestRuntimeSemantics(t *testing.T) {
	d, err := compute.Open(compute.Options{})
	if err != nil {
		if errors.Is(err, vulkan.ErrNoLoader) || errors.Is(err, vulkan.ErrNoDevice) {
			t.Skipf("Vulkan unavailable: %v", err)
		}
		t.Fatal(err)
	}
	defer d.Close()

	const src = `
struct Inner { @size(12) a: u32, @align(16) b: vec2<u32> }   // b at 16, size 32
struct Params {
    x: u32,
    @align(16) inner: Inner,        // 16
    @size(20) y: i32,               // 48
    tail: vec4<u32>,                // 80
}
@group(0) @binding(0) var<storage, read> inputs: array<i32>;
@group(0) @binding(1) var<storage, read_write> results: array<u32>;
@group(0) @binding(2) var<uniform> params: Params;
override blocks: u32 = 3;
var<workgroup> scratch: array<u32, blocks * 100u>;
var<workgroup> wcount: atomic<u32>;

fn put(i: u32, v: u32) { results[i] = v; }
fn addTo(p: ptr<storage, u32, read_write>, v: u32) { *p += v; }
fn incw(c: ptr<workgroup, atomic<u32>>) { atomicAdd(c, 1u); }

@compute @workgroup_size(4)
fn main(@builtin(local_invocation_index) li: u32) {
    let zero = inputs[0];       // 0
    let one = inputs[1];        // 1
    let mone = inputs[2];       // -1
    let imin = inputs[3];       // i32 min
    let seven = inputs[4];      // 7
    incw(&wcount);
    workgroupBarrier();
    if li != 0u {
        scratch[li] = 5u;
        return;
    }
    // 0..6: integer division and remainder.
    put(0u, bitcast<u32>(seven / zero));
    put(1u, bitcast<u32>(seven % zero));
    put(2u, bitcast<u32>(imin / mone));
    put(3u, bitcast<u32>(imin % mone));
    put(4u, bitcast<u32>(-seven / (one + one)));
    put(5u, bitcast<u32>(-seven % (one + one + one)));
    put(6u, u32(seven) / u32(zero) + u32(seven) % u32(zero));
    // 7, 8: shifts by a runtime amount are masked.
    put(7u, 1u << u32(seven + 26));
    put(8u, bitcast<u32>(imin >> u32(seven + 24)));
    // 9..11: saturating conversions, float remainder.
    put(9u, bitcast<u32>(i32(f32(imin) * -2.0)));
    put(10u, u32(f32(mone) * 5.0));
    put(11u, bitcast<u32>(f32(-seven) % 2.0));
    // 12: loop, continue inside a switch, continuing and break if.
    var k = 0;
    var acc = 0u;
    loop {
        let step = select(2, 1, k < 3);
        switch k {
            case 2: { acc += 100u; continue; }
            default: { acc += u32(k); }
        }
        if k == 5 { acc += 1000u; continue; }
        continuing {
            k += step;
            acc += 10u;
            break if k > 7;
        }
    }
    put(12u, acc);
    // 13: let pointer fixes its index when declared.
    var arr = array<u32, 4>(1u, 2u, 3u, 4u);
    var i = one;
    let p = &arr[i];
    i = 3;
    *p = 20u;
    arr[i] += 40u;
    put(13u, arr[0] + arr[1] * 10u + arr[2] * 100u + arr[3] * 1000u);
    // 14: for with continue and a compound update.
    var s = 0u;
    for (var j = 0u; j < 10u; j += 2u) {
        if j == 4u { continue; }
        s += j;
    }
    put(14u, s);
    // 15: extractBits/insertBits clamping, firstLeadingBit of negatives.
    put(15u, bitcast<u32>(extractBits(imin, u32(seven + 24), 8u)) ^ insertBits(0u, 0xffu, u32(seven) * 4u, 8u));
    put(16u, bitcast<u32>(firstLeadingBit(mone) + firstLeadingBit(imin)));
    // 17: workgroup memory starts zeroed (override-sized array).
    put(17u, scratch[250] + scratch[0]);
    // 18..21: uniform layout with @align and @size.
    put(18u, params.x);
    put(19u, params.inner.a * 100u + params.inner.b.y);
    put(20u, bitcast<u32>(params.y));
    put(21u, params.tail.w);
    let whole = params;
    put(22u, whole.inner.b.x + whole.tail.x);
    // 23, 24: pointer parameters into storage and workgroup memory.
    addTo(&results[23], 5u);
    let r = &results[u32(one) + 22u];
    addTo(r, 6u);
    put(24u, atomicLoad(&wcount));
}`
	r, err := wgsl.Translate([]byte(src), wgsl.Options{Filename: "semantics.wgsl"})
	if err != nil {
		t.Fatal(err)
	}
	k, err := d.Compile([]byte(r.GLSL), shader.Options{Language: shader.GLSL, NoCache: true})
	if err != nil {
		t.Fatalf("%v\n%s", err, numbered(r.GLSL))
	}
	defer k.Close()

	le := binary.LittleEndian
	in := make([]byte, 4*8)
	for i, v := range []int32{0, 1, -1, math.MinInt32, 7} {
		le.PutUint32(in[4*i:], uint32(v))
	}
	par := make([]byte, 96)
	le.PutUint32(par[0:], 11)
	le.PutUint32(par[16:], 3)  // inner.a
	le.PutUint32(par[32:], 44) // inner.b.x
	le.PutUint32(par[36:], 9)  // inner.b.y
	le.PutUint32(par[48:], uint32(0xfffffff0))
	le.PutUint32(par[80:], 5)
	le.PutUint32(par[92:], 77)
	buf := func(data []byte) *compute.Buffer {
		b, err := d.Buffer(uint64(len(data)), compute.HeapUpload)
		if err != nil {
			t.Fatal(err)
		}
		if err := b.Upload(data); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { b.Close() })
		return b
	}
	out := buf(make([]byte, 4*32))
	if err := k.Dispatch(1, 1, 1, compute.Named("inputs", buf(in)), compute.Named("results", out), compute.Named("params", buf(par))); err != nil {
		t.Fatal(err)
	}
	raw, err := out.Readback()
	if err != nil {
		t.Fatal(err)
	}
	got := make([]uint32, 25)
	for i := range got {
		got[i] = le.Uint32(raw[4*i:])
	}
	i32 := func(v int32) uint32 { return uint32(v) }
	// The loop: k = 0 (acc +0, +10), 1 (+1, +10), 2 (+100 in the switch,
	// continue: +10), 3 (+3, +10), 5 (+5, +1000, continue: +10), 7 (+7,
	// +10; k = 9 > 7 ends it).
	loopAcc := uint32(0 + 10 + 1 + 10 + 100 + 10 + 3 + 10 + 5 + 1000 + 10 + 7 + 10)
	want := []uint32{
		7, 0, i32(math.MinInt32), 0, i32(-3), i32(-1), 7,
		1 << 1, i32(math.MinInt32 >> 31),
		i32(2147483520), 0, math.Float32bits(-1),
		loopAcc,
		1 + 20*10 + 3*100 + 44*1000,
		0 + 2 + 6 + 8,
		0x0fffffff, // extractBits: bit 31 only, sign-extended; insertBits: 4 bits at 28
		i32(-1 + 30),
		0,
		11, 309, 0xfffffff0, 77, 44 + 5,
		11, 4,
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("result %d = %d (%#x), want %d (%#x)", i, got[i], got[i], want[i], want[i])
		}
	}
	if t.Failed() {
		t.Logf("GLSL:\n%s", numbered(r.GLSL))
	}
}

// TestRuntimeQuantizeToF16 checks quantizeToF16 on the device against a
// Go reference (round to nearest f16, ties to even; f16 subnormals kept;
// infinity beyond f16's finite range; NaN stays NaN), in its scalar and
// vector forms. The GLSL must not be unpackHalf2x16(packHalf2x16(x)),
// which NVIDIA's driver folds into x (lavapipe does not, so only the text
// can tell).
func TestRuntimeQuantizeToF16(t *testing.T) {
	const src = `
@group(0) @binding(0) var<storage, read> inputs: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read_write> results: array<vec4<f32>>;
@compute @workgroup_size(1)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    let v = inputs[i];
    results[3u * i] = vec4<f32>(quantizeToF16(v.x), quantizeToF16(v.y), quantizeToF16(v.z), quantizeToF16(v.w));
    results[3u * i + 1u] = quantizeToF16(v);
    results[3u * i + 2u] = vec4<f32>(quantizeToF16(v.xy), quantizeToF16(v.zwx).xy);
}`
	r, err := wgsl.Translate([]byte(src), wgsl.Options{Filename: "quantize.wgsl"})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(r.GLSL, "packHalf2x16") {
		t.Errorf("quantizeToF16 goes through packHalf2x16, which NVIDIA folds away:\n%s", r.GLSL)
	}
	d, err := compute.Open(compute.Options{})
	if err != nil {
		if errors.Is(err, vulkan.ErrNoLoader) || errors.Is(err, vulkan.ErrNoDevice) {
			t.Skipf("Vulkan unavailable: %v", err)
		}
		t.Fatal(err)
	}
	defer d.Close()
	k, err := d.Compile([]byte(r.GLSL), shader.Options{Language: shader.GLSL, NoCache: true})
	if err != nil {
		t.Fatalf("%v\n%s", err, numbered(r.GLSL))
	}
	defer k.Close()

	f16 := func(h uint16) float32 { // an f16 value as f32
		e, m := int(h>>10)&31, float64(h&0x3ff)
		v := math.Ldexp(m, -24)
		if e > 0 {
			v = math.Ldexp(1024+m, e-25)
		}
		if h&0x8000 != 0 {
			v = -v
		}
		return float32(v)
	}
	ref := func(x float32) float32 {
		f := float64(x)
		if f == 0 || math.IsNaN(f) || math.IsInf(f, 0) {
			return x
		}
		a := math.Abs(f)
		exp := math.Ilogb(a)
		if exp < -14 {
			exp = -14
		}
		q := math.Ldexp(1, exp-10)
		r := math.RoundToEven(a/q) * q
		if r > 65504 {
			r = math.Inf(1)
		}
		return float32(math.Copysign(r, f))
	}
	in := []float32{
		0, float32(math.Copysign(0, -1)), 1, -1,
		f16(0x3c01), f16(0x3c01) + f16(0x1401)/2, // 1 + ulp, and halfway above it (ties to even: up)
		1 + f16(0x1400)/2, -(1 + f16(0x1400)/2), // halfway between 1 and 1+ulp: to even, 1
		-16.734362, -10892.0, 3.14159265, 1e-3,
		65504, 65519, 65520, -65520, // largest f16; below and at the overflow threshold
		1e6, -3e38, float32(math.Inf(1)), float32(math.Inf(-1)),
		float32(math.NaN()), math.Float32frombits(0x7f800001), math.Float32frombits(0xffc00000), 1.5,
		f16(0x0400), f16(0x03ff), f16(0x0001), -f16(0x0001), // smallest normal, largest and smallest subnormal
		f16(0x0001) / 2, f16(0x0001) * 1.5, f16(0x0003) * 0.5, f16(0x0001) * 0.49, // subnormal ties to even, and below
		f16(0x0400) - f16(0x0001)/4, f16(0x0400) - f16(0x0001)*0.75, 6.1e-5, -6.1e-5,
		1e-10, -1e-10, 2.5e-8, 2.99e-8, // below f16's smallest subnormal: 0 or 2^-24
	}
	for len(in)%4 != 0 {
		in = append(in, 0)
	}
	le := binary.LittleEndian
	inb := make([]byte, 4*len(in))
	for i, v := range in {
		le.PutUint32(inb[4*i:], math.Float32bits(v))
	}
	buf := func(data []byte) *compute.Buffer {
		b, err := d.Buffer(uint64(len(data)), compute.HeapUpload)
		if err != nil {
			t.Fatal(err)
		}
		if err := b.Upload(data); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { b.Close() })
		return b
	}
	n := len(in) / 4
	out := buf(make([]byte, 3*len(inb)))
	if err := k.Dispatch(uint32(n), 1, 1, compute.Named("inputs", buf(inb)), compute.Named("results", out)); err != nil {
		t.Fatal(err)
	}
	raw, err := out.Readback()
	if err != nil {
		t.Fatal(err)
	}
	forms := []string{"scalar", "vec4", "vec2/vec3"}
	for i := range n {
		for f := range 3 {
			for c := range 4 {
				x := in[4*i+c]
				got := math.Float32frombits(le.Uint32(raw[4*(12*i+4*f+c):]))
				want := ref(x)
				if math.IsNaN(float64(want)) {
					if !math.IsNaN(float64(got)) {
						t.Errorf("%s quantizeToF16(%g [%#08x]) = %g, want NaN", forms[f], x, math.Float32bits(x), got)
					}
					continue
				}
				if got != want {
					t.Errorf("%s quantizeToF16(%g [%#08x]) = %g [%#08x], want %g [%#08x]", forms[f], x, math.Float32bits(x), got, math.Float32bits(got), want, math.Float32bits(want))
				}
			}
		}
	}
	if t.Failed() {
		t.Logf("GLSL:\n%s", numbered(r.GLSL))
	}
}

// TestRuntimeUnpack2x16float checks unpack2x16float on every f16 bit
// pattern in a module that also calls pack2x16float, where it is written
// with integer operations (NVIDIA's driver folds
// unpackHalf2x16(packHalf2x16(v)) into v), and the round trip
// unpack2x16float(pack2x16float(v)) against quantizeToF16. A module
// without pack2x16float keeps GLSL's unpackHalf2x16.
func TestRuntimeUnpack2x16float(t *testing.T) {
	const src = `
@group(0) @binding(0) var<storage, read> words: array<u32>;
@group(0) @binding(1) var<storage, read_write> halves: array<vec2<f32>>;
@group(0) @binding(2) var<storage, read_write> trips: array<vec4<f32>>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    let h = unpack2x16float(words[i]);
    halves[i] = h;
    // Values between f16 neighbours: the round trip must round them.
    let v = h * 1.0001;
    trips[i] = vec4<f32>(unpack2x16float(pack2x16float(v)), quantizeToF16(v));
}`
	r, err := wgsl.Translate([]byte(src), wgsl.Options{Filename: "unpack.wgsl"})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(r.GLSL, "unpackHalf2x16") {
		t.Errorf("unpack2x16float is unpackHalf2x16 in a module that calls pack2x16float:\n%s", r.GLSL)
	}
	plain, err := wgsl.Translate([]byte(`@group(0) @binding(0) var<storage, read_write> b: array<vec2<f32>>;
@compute @workgroup_size(1) fn main() { b[0] = unpack2x16float(bitcast<u32>(b[1].x)); }`), wgsl.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(plain.GLSL, "unpackHalf2x16(") || strings.Contains(plain.GLSL, "_wunpack2x16float") {
		t.Errorf("without pack2x16float, unpack2x16float should be unpackHalf2x16:\n%s", plain.GLSL)
	}
	d, err := compute.Open(compute.Options{})
	if err != nil {
		if errors.Is(err, vulkan.ErrNoLoader) || errors.Is(err, vulkan.ErrNoDevice) {
			t.Skipf("Vulkan unavailable: %v", err)
		}
		t.Fatal(err)
	}
	defer d.Close()
	k, err := d.Compile([]byte(r.GLSL), shader.Options{Language: shader.GLSL, NoCache: true})
	if err != nil {
		t.Fatalf("%v\n%s", err, numbered(r.GLSL))
	}
	defer k.Close()

	const n = 1 << 15 // every f16 pattern, two a word
	le := binary.LittleEndian
	in := make([]byte, 4*n)
	for i := range n {
		le.PutUint32(in[4*i:], uint32(2*i)|uint32(2*i+1)<<16)
	}
	buf := func(data []byte) *compute.Buffer {
		b, err := d.Buffer(uint64(len(data)), compute.HeapUpload)
		if err != nil {
			t.Fatal(err)
		}
		if err := b.Upload(data); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { b.Close() })
		return b
	}
	halves, trips := buf(make([]byte, 8*n)), buf(make([]byte, 16*n))
	if err := k.Dispatch(n/64, 1, 1, compute.Named("words", buf(in)), compute.Named("halves", halves), compute.Named("trips", trips)); err != nil {
		t.Fatal(err)
	}
	hr, err := halves.Readback()
	if err != nil {
		t.Fatal(err)
	}
	tr, err := trips.Readback()
	if err != nil {
		t.Fatal(err)
	}
	f16 := func(h uint16) float64 {
		e, m := int(h>>10)&31, float64(h&0x3ff)
		var v float64
		switch e {
		case 0:
			v = math.Ldexp(m, -24)
		case 31:
			v = math.Inf(1)
			if m != 0 {
				v = math.NaN()
			}
		default:
			v = math.Ldexp(1024+m, e-25)
		}
		if h&0x8000 != 0 {
			v = -v
		}
		return v
	}
	bad := 0
	for h := range 1 << 16 {
		got := math.Float32frombits(le.Uint32(hr[4*h:]))
		want := f16(uint16(h))
		ok := float64(got) == want && math.Signbit(float64(got)) == math.Signbit(want)
		if math.IsNaN(want) {
			ok = math.IsNaN(float64(got))
		}
		if !ok {
			if bad++; bad <= 10 {
				t.Errorf("unpack2x16float(%#04x) = %g [%#08x], want %g", h, got, math.Float32bits(got), want)
			}
		}
		// The round trip rounds to an f16 neighbour (the driver's
		// packHalf2x16 may round either way); quantizeToF16 to the
		// nearest, ties to even.
		if math.IsNaN(want) || math.IsInf(want, 0) || math.Abs(want)*1.0001 >= 65504 {
			continue
		}
		v := float64(float32(float64(float32(want)) * float64(float32(1.0001))))
		exp := max(math.Ilogb(math.Abs(v)), -14)
		if v == 0 {
			exp = -14
		}
		ulp := math.Ldexp(1, exp-10)
		lo, hi := math.Floor(v/ulp)*ulp, math.Ceil(v/ulp)*ulp
		nearest := math.RoundToEven(v/ulp) * ulp
		trip := float64(math.Float32frombits(le.Uint32(tr[16*(h/2)+4*(h%2):])))
		q := float64(math.Float32frombits(le.Uint32(tr[16*(h/2)+8+4*(h%2):])))
		if trip != lo && trip != hi || q != nearest {
			if bad++; bad <= 10 {
				t.Errorf("v = %g: unpack2x16float(pack2x16float(v)) = %g, quantizeToF16(v) = %g; f16 neighbours %g and %g", v, trip, q, lo, hi)
			}
		}
	}
	if t.Failed() {
		t.Logf("GLSL:\n%s", numbered(r.GLSL))
	}
}
