// Command computedemo is the Windows build's smoke test, built by
// `make windows` as bin/windows/computedemo.exe (and runnable on Linux as
// well): it opens a compute device (Vulkan), squares random numbers in an
// HLSL, a GLSL and a WGSL compute shader, and compares every result with the
// CPU's. It prints one line per shader and exits 1 on any mismatch or error.
package main

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"runtime"

	"github.com/gfxcuda/gfxcuda/compute"
	"github.com/gfxcuda/gfxcuda/shader"
)

const n = 4096

var kernels = []struct{ name, src string }{
	{"square.hlsl", `
StructuredBuffer<float> inp : register(t0);
RWStructuredBuffer<float> outp : register(u0);
[numthreads(64, 1, 1)]
void main(uint3 id : SV_DispatchThreadID) { outp[id.x] = inp[id.x] * inp[id.x]; }`},
	{"square.comp", `#version 450
layout(local_size_x = 64) in;
layout(binding = 0) readonly buffer In { float inp[]; };
layout(binding = 1) buffer Out { float outp[]; };
void main() { uint i = gl_GlobalInvocationID.x; outp[i] = inp[i] * inp[i]; }`},
	{"square.wgsl", `
@group(0) @binding(0) var<storage, read> inp: array<f32>;
@group(0) @binding(1) var<storage, read_write> outp: array<f32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) { outp[id.x] = inp[id.x] * inp[id.x]; }`},
}

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "computedemo:", err)
		os.Exit(1)
	}
}

func run() error {
	dev, err := compute.Open(compute.Options{})
	if err != nil {
		return err
	}
	defer dev.Close()
	fmt.Printf("computedemo (%s/%s): %s\n", runtime.GOOS, runtime.GOARCH, dev.Info().Name)
	for _, k := range kernels {
		if err := square(dev, k.name, k.src); err != nil {
			return fmt.Errorf("%s: %w", k.name, err)
		}
	}
	return nil
}

// square runs one kernel over random floats, the output poisoned first, and
// compares every element with the CPU's square.
func square(dev *compute.Device, name, src string) error {
	k, err := dev.Compile([]byte(src), shader.Options{Filename: name})
	if err != nil {
		return err
	}
	in, err := dev.StructuredBuffer(4, n, compute.HeapUpload)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := dev.StructuredBuffer(4, n, compute.HeapReadback)
	if err != nil {
		return err
	}
	defer out.Close()
	data := make([]byte, 4*n)
	want := make([]float32, n)
	for i := range n {
		v := rand.Float32()*200 - 100
		want[i] = v * v
		binary.LittleEndian.PutUint32(data[4*i:], math.Float32bits(v))
	}
	poison := make([]byte, 4*n)
	for i := range poison {
		poison[i] = 0xAB
	}
	if err := in.Upload(data); err != nil {
		return err
	}
	if err := out.Upload(poison); err != nil {
		return err
	}
	if err := k.Dispatch(n/64, 1, 1, compute.Named("inp", in), compute.Named("outp", out)); err != nil {
		return err
	}
	res, err := out.Readback()
	if err != nil {
		return err
	}
	for i := range n {
		if got := math.Float32frombits(binary.LittleEndian.Uint32(res[4*i:])); got != want[i] {
			return fmt.Errorf("element %d: %v, want %v", i, got, want[i])
		}
	}
	fmt.Printf("  %-12s %d squares: every element matches the CPU\n", name, n)
	return nil
}
