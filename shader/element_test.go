package shader

import "testing"

func TestArrayElement(t *testing.T) {
	m, err := Compile([]byte(`
struct Mixed { uint a; float b; };
StructuredBuffer<float4> f4 : register(t0);
RWStructuredBuffer<Mixed> mixed : register(u1);
ByteAddressBuffer raw : register(t2);
RWStructuredBuffer<int> ints : register(u3);
cbuffer C : register(b4) { float k; };
[numthreads(1, 1, 1)]
void main() { mixed[0].b = f4[0].x + asfloat(raw.Load(0)) + k; ints[0] = 1; }`), Options{Filename: "e.hlsl", NoCache: true, FlatRegisters: true})
	if err != nil {
		t.Fatal(err)
	}
	g, err := Compile([]byte(`#version 450
layout(local_size_x = 1) in;
layout(std430, binding = 0) buffer B { uint header; vec3 v[]; };
void main() { v[0] = vec3(header); }`), Options{Filename: "e.comp", NoCache: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		m       *Module
		binding uint32
		want    Element
		packed  bool
	}{
		{m, 0, Element{Scalar: ScalarFloat, Bits: 32, Count: 4, Stride: 16}, true},
		{m, 1, Element{Scalar: ScalarUnknown, Bits: 0, Count: 0, Stride: 8}, false},
		{m, 2, Element{Scalar: ScalarUint, Bits: 32, Count: 1, Stride: 4}, true},
		{m, 3, Element{Scalar: ScalarInt, Bits: 32, Count: 1, Stride: 4}, true},
		{g, 0, Element{Scalar: ScalarFloat, Bits: 32, Count: 3, Stride: 16}, false},
	} {
		e, ok := c.m.ArrayElement(0, c.binding)
		if !ok || e != c.want || e.Packed() != c.packed {
			t.Errorf("binding %d: %+v, %v (packed %v), want %+v (packed %v)", c.binding, e, ok, e.Packed(), c.want, c.packed)
		}
	}
	if _, ok := m.ArrayElement(0, 4); ok {
		t.Error("a cbuffer has no runtime array")
	}
	if _, ok := m.ArrayElement(0, 9); ok {
		t.Error("an unused binding has an element")
	}
}
