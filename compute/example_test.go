package compute_test

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/gfxcuda/gfxcuda/compute"
	"github.com/gfxcuda/gfxcuda/format"
	"github.com/gfxcuda/gfxcuda/shader"
)

// Example squares numbers in an HLSL compute shader.
func Example() {
	dev, err := compute.Open(compute.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer dev.Close()

	k, err := dev.Compile([]byte(`
StructuredBuffer<float> inp : register(t0);
RWStructuredBuffer<float> outp : register(u0);
[numthreads(8, 1, 1)]
void main(uint3 id : SV_DispatchThreadID) { outp[id.x] = inp[id.x] * inp[id.x]; }`),
		shader.Options{Filename: "square.hlsl"})
	if err != nil {
		fmt.Println(err)
		return
	}
	in, _ := dev.StructuredBuffer(4, 8, compute.HeapUpload)
	out, _ := dev.StructuredBuffer(4, 8, compute.HeapReadback)
	data := make([]byte, 32)
	for i := range 8 {
		binary.LittleEndian.PutUint32(data[4*i:], math.Float32bits(float32(i)+0.5))
	}
	in.Upload(data)

	if err := k.Dispatch(1, 1, 1, compute.SRV(0, in), compute.UAV(0, out)); err != nil {
		fmt.Println(err)
		return
	}
	res, _ := out.Readback()
	for i := range 8 {
		fmt.Print(math.Float32frombits(binary.LittleEndian.Uint32(res[4*i:])), " ")
	}
	fmt.Println()
	// Output: 0.25 2.25 6.25 12.25 20.25 30.25 42.25 56.25
}

// ExampleBatch records 1,000 dispatches, each adding 1 to every element,
// and submits them at once; the batch inserts the barriers between them.
func ExampleBatch() {
	dev, err := compute.Open(compute.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer dev.Close()
	k, err := dev.Compile([]byte(`#version 450
layout(local_size_x = 64) in;
layout(binding = 0) buffer Counters { uint n[]; };
void main() { n[gl_GlobalInvocationID.x] += 1u; }`), shader.Options{Filename: "inc.comp"})
	if err != nil {
		fmt.Println(err)
		return
	}
	counters, _ := dev.Buffer(4*64, compute.HeapDefault)
	counters.Upload(make([]byte, 4*64))

	b, _ := dev.NewBatch()
	defer b.Close()
	for range 1000 {
		b.Dispatch(k, 1, 1, 1, compute.Named("n", counters))
	}
	if err := b.Run(); err != nil {
		fmt.Println(err)
		return
	}
	res, _ := counters.Readback()
	fmt.Println(b.Len(), "dispatches:", binary.LittleEndian.Uint32(res), binary.LittleEndian.Uint32(res[4*63:]))
	// Output: 1000 dispatches: 1000 1000
}

// ExampleDevice_Texture2D fills a texture in a shader and samples it with
// a linear sampler between two texels.
func ExampleDevice_Texture2D() {
	dev, err := compute.Open(compute.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer dev.Close()
	fill, err := dev.Compile([]byte(`
RWTexture2D<float> tex : register(u0);
[numthreads(4, 4, 1)]
void main(uint3 id : SV_DispatchThreadID) { tex[id.xy] = id.x * 10 + id.y; }`), shader.Options{Filename: "fill.hlsl"})
	if err != nil {
		fmt.Println(err)
		return
	}
	sample, err := dev.Compile([]byte(`
Texture2D<float> tex : register(t0);
SamplerState smp : register(s1);
RWStructuredBuffer<float> outp : register(u2);
[numthreads(1, 1, 1)]
void main() {
	outp[0] = tex.SampleLevel(smp, float2(0.25, 0.125), 0); // between texels (0, 0) and (1, 0)
	outp[1] = tex.SampleLevel(smp, float2(0.375, 0.875), 0); // inside texel (1, 3)
}`), shader.Options{Filename: "sample.hlsl"})
	if err != nil {
		fmt.Println(err)
		return
	}
	tex, _ := dev.Texture2D(4, 4, format.R32Float)
	smp, _ := dev.Sampler(compute.FilterLinear, compute.AddressClamp)
	out, _ := dev.Buffer(8, compute.HeapReadback)

	b, _ := dev.NewBatch()
	defer b.Close()
	b.Dispatch(fill, 1, 1, 1, compute.At(0, tex))
	b.Dispatch(sample, 1, 1, 1, compute.At(0, tex), compute.At(1, smp), compute.At(2, out))
	if err := b.Run(); err != nil {
		fmt.Println(err)
		return
	}
	res, _ := out.Readback()
	fmt.Println(math.Float32frombits(binary.LittleEndian.Uint32(res)), math.Float32frombits(binary.LittleEndian.Uint32(res[4:])))
	// Output: 5 13
}

// ExampleDevices lists the devices compute work can run on, best first.
func ExampleDevices() {
	devs, err := compute.Devices()
	if err != nil {
		fmt.Println(err)
		return
	}
	best := compute.Best(devs)
	fmt.Println("best:", devs[best])
	for _, d := range devs {
		fmt.Printf("%d: %s, %d MiB dedicated, %d MiB shared, vendor %#x, hardware %v, discrete %v\n",
			d.Index, d.Name, d.DedicatedVideoMemory>>20, d.SharedSystemMemory>>20, d.VendorID, d.Hardware, d.Discrete)
	}
}

// ExampleDevice_NewMemory places two buffers over the same bytes of one
// allocation (compushady's Heap): what one writes, the other reads.
func ExampleDevice_NewMemory() {
	dev, err := compute.Open(compute.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer dev.Close()

	mem, err := dev.NewMemory(64<<10, compute.HeapUpload)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer mem.Close()
	a, _ := dev.PlacedBuffer(4096, compute.HeapUpload, 0, 0, compute.Placement{Memory: mem})
	b, _ := dev.PlacedBuffer(4096, compute.HeapUpload, 0, 0, compute.Placement{Memory: mem})
	defer a.Close()
	defer b.Close()

	a.Upload([]byte("aliased"))
	got := make([]byte, 7)
	b.ReadbackInto(got)
	fmt.Println(string(got))

	// A placement that does not fit says so.
	_, err = dev.PlacedBuffer(4096, compute.HeapUpload, 0, 0, compute.Placement{Memory: mem, Offset: 64 << 10})
	fmt.Println(err != nil)
	// Output:
	// aliased
	// true
}

// ExampleDevice_KernelWith runs a WGSL shader with its override constants
// set: the factor, and the workgroup size, which Groups follows.
func ExampleDevice_KernelWith() {
	dev, err := compute.Open(compute.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer dev.Close()

	m, err := shader.Compile([]byte(`
@group(0) @binding(0) var<storage, read_write> data: array<f32>;
override factor: f32 = 1.0;
override wg: u32 = 64;

@compute @workgroup_size(wg)
fn scale(@builtin(global_invocation_id) id: vec3<u32>) {
    data[id.x] = f32(id.x) * factor;
}`), shader.Options{Filename: "scale.wgsl"})
	if err != nil {
		fmt.Println(err)
		return
	}
	k, err := dev.KernelWith(m, compute.KernelOptions{Constants: map[string]float64{"factor": 0.5, "wg": 4}})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer k.Close()
	buf, _ := dev.Buffer(32, compute.HeapDefault)
	defer buf.Close()
	x, y, z := k.Groups(8, 1, 1)
	if err := k.Dispatch(x, y, z, compute.Named("data", buf)); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(m.EntryPoints[0].Name, k.LocalSize(), x)
	res, _ := buf.Readback()
	for i := range 8 {
		fmt.Print(math.Float32frombits(binary.LittleEndian.Uint32(res[4*i:])), " ")
	}
	fmt.Println()
	// Output:
	// scale [4 1 1] 2
	// 0 0.5 1 1.5 2 2.5 3 3.5
}
