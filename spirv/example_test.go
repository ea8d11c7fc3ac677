package spirv_test

import (
	"errors"
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

// Instructions walks a module's instructions; DecodeString reads the
// literal strings among their operands and EncodeString writes them. A
// malformed instruction stops the walk with an error wrapping ErrInvalid,
// after the instructions before it.
func ExampleInstructions() {
	name := spirv.EncodeString("main")
	words := []uint32{0x07230203, 0x00010300, 0, 2, 0} // the header: magic, version 1.3, generator, id bound, schema
	words = append(words, 2<<16|spirv.OpCapability, 1) // OpCapability Shader
	words = append(words, uint32(2+len(name))<<16|spirv.OpName, 1)
	words = append(words, name...) // OpName %1 "main"

	show := func(pos int, op uint32, operands []uint32) bool {
		switch op {
		case spirv.OpCapability:
			fmt.Println(pos, "OpCapability", operands[0])
		case spirv.OpName:
			s, _ := spirv.DecodeString(operands[1:])
			fmt.Printf("%d OpName %%%d %q\n", pos, operands[0], s)
		}
		return true
	}
	fmt.Println(spirv.Instructions(words, show))
	err := spirv.Instructions(words[:len(words)-1], show) // OpName cut short
	fmt.Println(errors.Is(err, spirv.ErrInvalid), err)
	// Output:
	// 5 OpCapability 1
	// 7 OpName %1 "main"
	// <nil>
	// 5 OpCapability 1
	// true invalid SPIR-V: instruction at word 7 runs past the end
}
