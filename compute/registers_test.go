package compute

import (
	"strings"
	"testing"

	"github.com/gfxcuda/gfxcuda/format"
)

// TestRegisterClasses: b0, t0, u0 and s0 in one HLSL shader are four
// resources, bound by class; the most common compushady shader runs.
func TestRegisterClasses(t *testing.T) {
	d := openTest(t)
	rng := newRand(9)

	// The compushady pair: t0 in, u0 out.
	k := compile(t, d, "pair.hlsl", `StructuredBuffer<float> a : register(t0);
RWStructuredBuffer<float> o : register(u0);
[numthreads(64, 1, 1)]
void main(uint3 id : SV_DispatchThreadID) { o[id.x] = a[id.x] * 3 + 1; }`)
	if n := len(k.Resources()); n != 2 {
		t.Fatalf("%d resources, want 2 (t0 and u0 apart): %+v", n, k.Resources())
	}
	const n = 1024
	in := make([]float32, n)
	for i := range in {
		in[i] = float32(rng.IntN(1<<16)) / 16
	}
	a := newBuffer(t, d, HeapDefault, f32bytes(in))
	o := newBuffer(t, d, HeapDefault, poison(4*n))
	if err := k.Dispatch(n/64, 1, 1, SRV(0, a), UAV(0, o)); err != nil {
		t.Fatal(err)
	}
	for i, v := range f32s(readback(t, o)) {
		if v != in[i]*3+1 {
			t.Fatalf("o[%d] = %v, want %v", i, v, in[i]*3+1)
		}
	}
	// By name too; At(0) is ambiguous and says what to write instead.
	if err := o.Upload(poison(4 * n)); err != nil {
		t.Fatal(err)
	}
	if err := k.Dispatch(n/64, 1, 1, Named("a", a), Named("o", o)); err != nil {
		t.Fatal(err)
	}
	if got := f32s(readback(t, o)); got[n-1] != in[n-1]*3+1 {
		t.Fatalf("by name: o[%d] = %v", n-1, got[n-1])
	}
	err := k.Dispatch(n/64, 1, 1, At(0, a), UAV(0, o))
	for _, w := range []string{"At(0) is ambiguous", "t0 is a (compute.SRV(0, buf))", "u0 is o (compute.UAV(0, buf))"} {
		if err == nil || !strings.Contains(err.Error(), w) {
			t.Errorf("At(0): error %v lacks %q", err, w)
		}
	}
	err = k.Dispatch(n/64, 1, 1, UAV(0, a), UAV(0, o))
	if err == nil || !strings.Contains(err.Error(), "bound twice") {
		t.Errorf("UAV(0) twice: %v", err)
	}
	err = k.Dispatch(n/64, 1, 1, SRV(0, a), UAV(1, o))
	for _, w := range []string{"UAV(1)", "no register u1", "o (u0, read-write buffer)"} {
		if err == nil || !strings.Contains(err.Error(), w) {
			t.Errorf("UAV(1): error %v lacks %q", err, w)
		}
	}

	// All four classes at register 0, plus a space.
	k4 := compile(t, d, "four.hlsl", `cbuffer P : register(b0) { float scale; float3 pad; };
Texture2D<float4> tex : register(t0);
RWStructuredBuffer<float4> o : register(u0);
SamplerState smp : register(s0);
StructuredBuffer<float4> bias : register(t0, space1);
[numthreads(4, 4, 1)]
void main(uint3 id : SV_DispatchThreadID) {
	float2 uv = (float2(id.xy) + 0.5) / 4;
	o[id.y * 4 + id.x] = tex.SampleLevel(smp, uv, 0) * scale + bias[0];
}`)
	if n := len(k4.Resources()); n != 5 {
		t.Fatalf("%d resources, want 5", n)
	}
	pix := randomBytes(rng, 4*4*4)
	tex, err := d.Texture2D(4, 4, format.RGBA8UNorm)
	if err != nil {
		t.Fatal(err)
	}
	defer tex.Close()
	if err := tex.Upload(pix); err != nil {
		t.Fatal(err)
	}
	smp, err := d.Sampler(FilterPoint, AddressClamp)
	if err != nil {
		t.Fatal(err)
	}
	defer smp.Close()
	cb := newBuffer(t, d, HeapUpload, f32bytes([]float32{2, 0, 0, 0}))
	bias := newBuffer(t, d, HeapDefault, f32bytes([]float32{0.5, 1, 1.5, 2}))
	out := newBuffer(t, d, HeapReadback, poison(16*16))
	if err := k4.Dispatch(1, 1, 1, CBV(0, cb), SRV(0, tex), UAV(0, out), SamplerAt(0, smp), SRV(0, bias).Space(1)); err != nil {
		t.Fatal(err)
	}
	got := f32s(readback(t, out))
	bv := []float32{0.5, 1, 1.5, 2}
	for i := range 16 * 4 {
		want := float32(pix[i])/255*2 + bv[i%4]
		if d := got[i] - want; d > 1e-4 || d < -1e-4 {
			t.Fatalf("o[%d] = %v, want %v", i, got[i], want)
		}
	}
	// Wrong class: the message names the resource and the call to use.
	err = k4.Dispatch(1, 1, 1, CBV(0, cb), UAV(0, tex), UAV(0, out), SamplerAt(0, smp), SRV(0, bias).Space(1))
	if err == nil || !strings.Contains(err.Error(), "bound twice") {
		t.Errorf("UAV(0) twice: %v", err)
	}
	err = k4.Dispatch(1, 1, 1, CBV(0, cb), SRV(0, tex), UAV(0, out), SamplerAt(0, smp), SRV(0, bias))
	if err == nil || !strings.Contains(err.Error(), "bound twice") {
		t.Errorf("SRV(0) twice: %v", err)
	}
	err = k4.Dispatch(1, 1, 1, CBV(0, cb), SRV(0, tex), UAV(0, out), SamplerAt(0, smp), SRV(3, bias).Space(1))
	if err == nil || !strings.Contains(err.Error(), "register t3 in space 1") {
		t.Errorf("SRV(3).Space(1): %v", err)
	}

	// GLSL keeps its binding numbers; classes must fit the kinds.
	g := compile(t, d, "pair.comp", `#version 450
layout(local_size_x = 64) in;
layout(std430, binding = 0) readonly buffer A { float a[]; };
layout(std430, binding = 1) buffer O { float o[]; };
void main() { o[gl_GlobalInvocationID.x] = a[gl_GlobalInvocationID.x] + 2; }`)
	if err := o.Upload(poison(4 * n)); err != nil {
		t.Fatal(err)
	}
	if err := g.Dispatch(n/64, 1, 1, SRV(0, a), UAV(1, o)); err != nil {
		t.Fatal(err)
	}
	if got := f32s(readback(t, o)); got[7] != in[7]+2 {
		t.Errorf("GLSL: o[7] = %v, want %v", got[7], in[7]+2)
	}
	err = g.Dispatch(n/64, 1, 1, UAV(0, a), UAV(1, o))
	for _, w := range []string{"UAV(0)", "read-only buffer", "compute.SRV(0, buf)"} {
		if err == nil || !strings.Contains(err.Error(), w) {
			t.Errorf("GLSL UAV(0): error %v lacks %q", err, w)
		}
	}
}
