package compute

import (
	"strings"
	"testing"

	"github.com/gfxcuda/gfxcuda/format"
)

// TestBindListsHLSL: entry i of a list binds register i of its class;
// entries of registers the shader lacks are left out, a mismatch names
// its entry.
func TestBindListsHLSL(t *testing.T) {
	d := openTest(t)
	k := compile(t, d, "lists.hlsl", `
StructuredBuffer<uint> src : register(t1);
RWStructuredBuffer<uint> dst : register(u0);
[numthreads(4, 1, 1)]
void main(uint3 id : SV_DispatchThreadID) { dst[id.x] = src[id.x] + 1; }`)
	defer k.Close()
	unused := newBuffer(t, d, HeapDefault, make([]byte, 16))
	defer unused.Close()
	src, err := d.StructuredBuffer(4, 4, HeapDefault)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	if err := src.Upload(u32bytes([]uint32{1, 2, 3, 4})); err != nil {
		t.Fatal(err)
	}
	dst, err := d.StructuredBuffer(4, 4, HeapDefault)
	if err != nil {
		t.Fatal(err)
	}
	defer dst.Close()
	args, err := k.BindLists(Lists{{unused}, {unused, src}, {dst}})
	if err != nil {
		t.Fatal(err)
	}
	if len(args) != 2 {
		t.Errorf("%d arguments, want 2 (src and dst)", len(args))
	}
	if err := k.Dispatch(1, 1, 1, args...); err != nil {
		t.Fatal(err)
	}
	if got := u32s(readback(t, dst)); got[0] != 2 || got[3] != 5 {
		t.Errorf("dst = %v, want [2 3 4 5]", got)
	}
	if _, err := k.BindLists(Lists{nil, {src}, {dst}, {src}}); err == nil || !strings.Contains(err.Error(), "samplers[0]") {
		t.Errorf("a buffer in the samplers list: %v, want an error naming samplers[0]", err)
	}
}

// TestBindListsGLSL: a GLSL module whose bindings do not match the
// registers is bound by class ordinal, as compushady binds GLSL.
func TestBindListsGLSL(t *testing.T) {
	d := openTest(t)
	k := compile(t, d, "lists.comp", `#version 450
layout(local_size_x = 4) in;
layout(std430, binding = 0) readonly buffer Src { uint src[]; };
layout(std430, binding = 1) buffer Dst { uint dst[]; };
void main() { dst[gl_GlobalInvocationID.x] = src[gl_GlobalInvocationID.x] * 2u; }`)
	defer k.Close()
	src := newBuffer(t, d, HeapDefault, u32bytes([]uint32{1, 2, 3, 4}))
	defer src.Close()
	dst := newBuffer(t, d, HeapDefault, make([]byte, 16))
	defer dst.Close()
	// uav[0] is binding 1 here: the shader's first read-write resource.
	args, err := k.BindLists(Lists{nil, {src}, {dst}})
	if err != nil {
		t.Fatal(err)
	}
	if err := k.Dispatch(1, 1, 1, args...); err != nil {
		t.Fatal(err)
	}
	if got := u32s(readback(t, dst)); got[0] != 2 || got[3] != 8 {
		t.Errorf("dst = %v, want [2 4 6 8]", got)
	}
}

// TestBindlessLists: NewBindless binds the lists by register range, Bind
// replaces an entry, and the limits of max_bindless hold.
func TestBindlessLists(t *testing.T) {
	d := openTest(t)
	if !d.BindlessSupported() {
		t.Skipf("%s lacks descriptor indexing (TestBindlessKernel checks the error)", d)
	}
	m := compileModule(t, `
Buffer<uint> inputs[] : register(t0);
RWBuffer<uint> outputs[] : register(u0);
[numthreads(1, 1, 1)]
void main(uint3 tid : SV_DispatchThreadID) { outputs[0][tid.x] = inputs[tid.x][0] + 10; }`)
	k, err := d.KernelWith(m, KernelOptions{Bindless: 4})
	if err != nil {
		t.Fatal(err)
	}
	defer k.Close()
	var in []Resource
	for i := range 2 {
		b, err := d.TypedBuffer(format.R32UInt, 1, HeapDefault)
		if err != nil {
			t.Fatal(err)
		}
		defer b.Close()
		if err := b.Upload(u32bytes([]uint32{uint32(i + 1)})); err != nil {
			t.Fatal(err)
		}
		in = append(in, b)
	}
	out, err := d.TypedBuffer(format.R32UInt, 2, HeapDefault)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	bl, err := k.NewBindless(4, Lists{nil, in, {out}})
	if err != nil {
		t.Fatal(err)
	}
	seven, err := d.TypedBuffer(format.R32UInt, 1, HeapDefault)
	if err != nil {
		t.Fatal(err)
	}
	defer seven.Close()
	if err := seven.Upload(u32bytes([]uint32{7})); err != nil {
		t.Fatal(err)
	}
	if err := bl.Bind(1, 1, seven); err != nil { // replaces srv[1]
		t.Fatal(err)
	}
	if err := k.Dispatch(2, 1, 1, bl.Args()...); err != nil {
		t.Fatal(err)
	}
	if got := u32s(readback(t, out)); got[0] != 11 || got[1] != 17 {
		t.Errorf("out = %v, want [11 17]", got)
	}
	if err := bl.Bind(1, 4, seven); err == nil {
		t.Error("Bind at index 4 of max_bindless 4 succeeded")
	}
	if _, err := k.NewBindless(1, Lists{nil, in}); err == nil {
		t.Error("2 srv for max_bindless 1 accepted")
	}
}

// TestUnbound: resources the lists leave unbound are named by list entry
// and register (not by the shifted binding, 2048 for u0), with how many
// entries the list had; GLSL's by their ordinal in binding order.
func TestUnbound(t *testing.T) {
	d := openTest(t)
	k := compile(t, d, "unbound.hlsl", `
StructuredBuffer<uint> src : register(t1);
RWStructuredBuffer<uint> dst : register(u0);
[numthreads(4, 1, 1)]
void main(uint3 id : SV_DispatchThreadID) { dst[id.x] = src[id.x] + 1; }`)
	defer k.Close()
	src := newBuffer(t, d, HeapDefault, make([]byte, 16))
	defer src.Close()
	args, err := k.BindLists(Lists{nil, {src, src}})
	if err != nil {
		t.Fatal(err)
	}
	msg := k.Unbound(args, [4]int{0, 2, 0, 0})
	for _, want := range []string{"uav[0]", "register u0", "dst", "Compute(uav=...) was given 0 resources"} {
		if !strings.Contains(msg, want) {
			t.Errorf("Unbound = %q, want it to name %q", msg, want)
		}
	}
	if strings.Contains(msg, "2048") || strings.Contains(msg, "srv") {
		t.Errorf("Unbound = %q: names the shifted binding or the bound srv", msg)
	}
	if err := k.Dispatch(1, 1, 1, args...); err == nil {
		t.Error("a dispatch with dst unbound did not fail")
	}
	dst := newBuffer(t, d, HeapDefault, make([]byte, 16))
	defer dst.Close()
	if args, err = k.BindLists(Lists{nil, {src, src}, {dst}}); err != nil {
		t.Fatal(err)
	}
	if msg := k.Unbound(args, [4]int{0, 2, 1, 0}); msg != "" {
		t.Errorf("everything bound: Unbound = %q, want \"\"", msg)
	}

	g := compile(t, d, "unbound.comp", `#version 450
layout(local_size_x = 4) in;
layout(std430, binding = 0) buffer A { uint a[]; };
layout(std430, binding = 3) buffer B { uint b[]; };
void main() { a[gl_GlobalInvocationID.x] = b[gl_GlobalInvocationID.x]; }`)
	defer g.Close()
	if args, err = g.BindLists(Lists{nil, nil, {dst}}); err != nil {
		t.Fatal(err)
	}
	msg = g.Unbound(args, [4]int{0, 0, 1, 0})
	for _, want := range []string{"uav[1]", "binding 3", "2nd uav resource", "was given 1 resource;"} {
		if !strings.Contains(msg, want) {
			t.Errorf("GLSL: Unbound = %q, want it to name %q", msg, want)
		}
	}
}
