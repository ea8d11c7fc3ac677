// Package spirv reflects SPIR-V modules in pure Go: no cgo, no compiler.
//
// Reflect parses a SPIR-V binary: entry points with their execution model
// and workgroup size (LocalSize, LocalSizeId or the WorkgroupSize
// built-in); every variable decorated with a descriptor set or binding that
// an entry point statically uses, with its kind, image properties, and
// buffer layout (block size, trailing array stride, members); and the push
// constant block's size. Resources are found by name with Module.Resource
// and by set and binding with Module.ResourceAt; Module.ArrayElement
// describes the element type of a buffer's runtime-sized array.
// Module.SpecConstants lists the scalar specialization constants (name,
// SpecId, type, default), and LocalSizeWith gives the workgroup size once
// some are set. Rewrite renames entry points and debug names.
//
// For code that reads or patches instructions itself, Decode checks a
// binary's header and returns its words, Instructions walks them (with the
// opcodes OpName, OpCapability and the other Op constants), and DecodeString
// and EncodeString read and write the literal strings among their operands.
//
// Package vulkan builds compute pipelines from a reflected Module. Package
// shader compiles HLSL, GLSL and WGSL into one (with glslang, through cgo) and
// re-exports these types under the same names, so a program that only
// loads precompiled SPIR-V links neither.
package spirv
