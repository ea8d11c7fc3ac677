package wgsl_test

import (
	"encoding/binary"
	"errors"
	"math"
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
