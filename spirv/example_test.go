package spirv_test

import (
	"fmt"

	"github.com/gfxcuda/gfxcuda/shader"
	"github.com/gfxcuda/gfxcuda/spirv"
)

// Reflect reads a SPIR-V binary (here compiled by package shader; any
// compiler's output works) and lists its entry points, workgroup sizes and
// resources, in pure Go.
func ExampleReflect() {
	m, err := shader.Compile([]byte(`#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 3) buffer Data { float v[]; };
void main() { v[gl_GlobalInvocationID.x] *= 2.0; }
`), shader.Options{Language: shader.GLSL, Filename: "double.comp"})
	if err != nil {
		fmt.Println(err)
		return
	}
	r, err := spirv.Reflect(m.SPIRV)
	if err != nil {
		fmt.Println(err)
		return
	}
	ep := r.EntryPoints[0]
	fmt.Println(ep.Name, ep.LocalSize)
	for _, res := range r.Resources {
		fmt.Println("set", res.Set, "binding", res.Binding)
	}
	// Output:
	// main [64 1 1]
	// set 0 binding 3
}
