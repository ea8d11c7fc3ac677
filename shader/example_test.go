package shader_test

import (
	"errors"
	"fmt"
	"log"

	"github.com/gfxcuda/gfxcuda/shader"
)

const scaleHLSL = `
struct Params { float scale; uint count; };
[[vk::push_constant]] ConstantBuffer<Params> params;

StructuredBuffer<float4>   input  : register(t0);
RWStructuredBuffer<float4> output : register(u1);
RWTexture2D<float4>        image  : register(u2);

[numthreads(64, 1, 1)]
void main(uint3 id : SV_DispatchThreadID) {
	if (id.x < params.count) {
		output[id.x] = input[id.x] * params.scale;
		image[uint2(id.x, 0)] = output[id.x];
	}
}
`

// Compile an HLSL compute shader and list what it needs bound. Each HLSL
// register class has its own binding range: t0 is binding 1024, u1 2049.
func ExampleCompile() {
	m, err := shader.Compile([]byte(scaleHLSL), shader.Options{Filename: "scale.hlsl"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("workgroup size:", m.LocalSize())
	for _, r := range m.Resources {
		fmt.Printf("set %d binding %d: %-6s %s", r.Set, r.Binding, r.Name, r.Kind)
		switch {
		case r.Kind.IsBuffer():
			fmt.Printf(" stride=%d read-only=%v", r.Stride, r.ReadOnly)
		case r.Kind.IsImage():
			fmt.Printf(" %s %s", r.Dim, r.Format)
		}
		fmt.Println()
	}
	fmt.Println("push constants:", m.PushConstants.Size, "bytes")
	// Output:
	// workgroup size: [64 1 1]
	// set 0 binding 1024: input  StorageBuffer stride=16 read-only=true
	// set 0 binding 2049: output StorageBuffer stride=16 read-only=false
	// set 0 binding 2050: image  StorageImage 2D Rgba32f
	// push constants: 8 bytes
}

// Compile errors carry the file and line of each diagnostic.
func ExampleCompileError() {
	src := "RWStructuredBuffer<float> buf;\n\n[numthreads(64, 1, 1)]\nvoid main() {\n    buf[0] = missing;\n}\n"
	_, err := shader.Compile([]byte(src), shader.Options{Filename: "bad.hlsl"})
	var ce *shader.CompileError
	if errors.As(err, &ce) {
		d := ce.Errors()[0]
		fmt.Printf("%s:%d: %s\n", d.File, d.Line, d.Message)
	}
	// Output:
	// bad.hlsl:5: 'missing' : unknown variable
}

// Resources can be looked up by name or by binding.
func ExampleModule_Resource() {
	src := `#version 450
layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 0, binding = 0, rgba8) uniform writeonly image2D dst;
layout(set = 0, binding = 1) uniform sampler2D src;
layout(std140, set = 1, binding = 0) uniform Frame { mat4 transform; vec2 size; } frame;
void main() {
	vec2 uv = vec2(gl_GlobalInvocationID.xy) / frame.size;
	imageStore(dst, ivec2(gl_GlobalInvocationID.xy), texture(src, (frame.transform * vec4(uv, 0, 1)).xy));
}`
	m, err := shader.Compile([]byte(src), shader.Options{Language: shader.GLSL})
	if err != nil {
		log.Fatal(err)
	}
	f := m.Resource("frame")
	fmt.Println(f.Kind, f.Set, f.Binding, f.Size, "bytes")
	for _, mb := range f.Members {
		fmt.Printf("  %s at %d\n", mb.Name, mb.Offset)
	}
	fmt.Println(m.ResourceAt(0, 1).Kind, m.ResourceAt(0, 0).Format)
	// Output:
	// UniformBuffer 1 0 72 bytes
	//   transform at 0
	//   size at 64
	// CombinedImageSampler Rgba8
}
