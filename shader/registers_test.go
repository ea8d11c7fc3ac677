package shader

import (
	"testing"
)

// TestHLSLRegisterShifts: each register class has its own binding range, so
// t0 and u0 (the most common compushady pair) are two resources.
func TestHLSLRegisterShifts(t *testing.T) {
	m := mustCompileFile(t, "testdata/all.hlsl", Options{NoCache: true})
	want := map[string][2]uint32{ // name: set, binding
		"particles": {0, 2048}, "inputs": {0, 1025}, "raw": {0, 1026}, "rawOut": {0, 2051},
		"Params": {0, 4}, "tb": {0, 1029}, "rwtb": {0, 2054}, "t1d": {0, 1031}, "t2d": {0, 1032},
		"t3d": {0, 1033}, "outImg": {0, 2058}, "samp": {0, 3083}, "t2da": {1, 1036},
		"texs": {2, 1027}, // [[vk::binding(3, 2)]] on a t resource: glslang shifts it too
	}
	if len(m.Resources) != len(want) {
		t.Errorf("%d resources, want %d", len(m.Resources), len(want))
	}
	for name, sb := range want {
		r := m.Resource(name)
		if r == nil {
			t.Errorf("no resource %s", name)
			continue
		}
		if r.Set != sb[0] || r.Binding != sb[1] {
			t.Errorf("%s at set %d binding %d, want %d %d", name, r.Set, r.Binding, sb[0], sb[1])
		}
	}
	if !ShiftedRegisters(m) {
		t.Error("ShiftedRegisters() = false")
	}

	src := []byte(`StructuredBuffer<float> a : register(t0);
RWStructuredBuffer<float> o : register(u0);
cbuffer C : register(b0) { float k; };
[numthreads(64,1,1)] void main(uint3 id : SV_DispatchThreadID) { o[id.x] = a[id.x] * k; }`)
	m = mustCompile(t, src, Options{Language: HLSL, NoCache: true})
	if len(m.Resources) != 3 {
		t.Fatalf("%d resources, want 3: %+v", len(m.Resources), m.Resources)
	}
	for _, c := range []struct {
		name string
		cl   RegisterClass
	}{{"a", ClassSRV}, {"o", ClassUAV}, {"C", ClassCBV}} {
		r := m.Resource(c.name)
		b, _ := RegisterBinding(c.cl, 0)
		if r == nil || r.Binding != b {
			t.Errorf("%s: %+v, want binding %d", c.name, r, b)
		}
		if cl, n, ok := RegisterOf(b); !ok || cl != c.cl || n != 0 {
			t.Errorf("RegisterOf(%d) = %v %d %v", b, cl, n, ok)
		}
	}
	flat := mustCompile(t, src, Options{Language: HLSL, NoCache: true, FlatRegisters: true})
	if ShiftedRegisters(flat) || flat.Resource("a").Binding != 0 || flat.Resource("o").Binding != 0 {
		t.Errorf("FlatRegisters: a at %d, o at %d, want both 0", flat.Resource("a").Binding, flat.Resource("o").Binding)
	}
	glsl := mustCompileFile(t, "testdata/all.comp", Options{NoCache: true})
	if ShiftedRegisters(glsl) {
		t.Error("GLSL bindings were shifted")
	}
	if _, err := RegisterBinding('x', 0); err == nil {
		t.Error("RegisterBinding('x') succeeded")
	}
	if _, err := RegisterBinding(ClassUAV, 1024); err == nil {
		t.Error("RegisterBinding(u1024) succeeded")
	}
}

func mustCompile(t *testing.T, src []byte, opts Options) *Module {
	t.Helper()
	m, err := Compile(src, opts)
	if err != nil {
		t.Fatalf("Compile: %v", err)
	}
	return m
}
