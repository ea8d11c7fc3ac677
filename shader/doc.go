// Package shader compiles HLSL, GLSL and WGSL to SPIR-V in process, reflects
// the result with package spirv, and caches compiled modules on disk.
//
// # Compiling
//
// Compile and CompileFile run shaderc (glslang and the SPIRV-Tools
// optimiser), linked statically into the program: binaries need no shader
// compiler installed where they run. Output targets Vulkan 1.1, that is
// SPIR-V 1.3; glslang's HLSL front end fails to optimise for the Vulkan 1.2
// environment. A compute shader compiles in a few milliseconds; the first
// compilation of each language in a process takes 20 to 70 ms longer while
// glslang builds its built-in symbol tables. A cache hit takes about 50 µs.
//
// Errors the compiler reports come back as a *CompileError, whose
// Diagnostics carry the file, line and message of each.
//
// A SPIR-V binary (recognised by its magic number) may be passed to Compile
// too; its header and instruction stream are checked and it is reflected.
//
// # HLSL on Vulkan
//
// glslang maps HLSL resources to Vulkan descriptors as follows.
//
//   - A register's number becomes the binding and its space the descriptor
//     set, whatever its class: register(t1) and register(u1) both land on
//     binding 1 of set 0, so give each resource a distinct number, or use
//     [[vk::binding(binding, set)]]. Resources without a register get a free
//     binding.
//
//   - StructuredBuffer, RWStructuredBuffer, ByteAddressBuffer and
//     RWByteAddressBuffer become storage buffers, in the SPIR-V 1.0 form
//     (Uniform storage class, BufferBlock decoration); Buffer<T> and
//     RWBuffer<T> become uniform and storage texel buffers; Texture* are
//     sampled images used with separate SamplerStates; RWTexture* are
//     storage images.
//
// Push constants must be declared as a ConstantBuffer with the
// vk::push_constant attribute:
//
//	struct PC { float2 offset; uint flags; };
//	[[vk::push_constant]] ConstantBuffer<PC> pc;
//
// A plain global struct (PC pc;) is no push constant block: glslang
// silently makes it a member of the "$Global" uniform buffer at binding 0.
//
// # WGSL
//
// WGSL compute shaders (Language WGSL, a .wgsl file, or a source with an
// @compute attribute) are checked and translated to GLSL by package
// shader/wgsl, in Go, then compiled as GLSL; see that package for what of
// WGSL it accepts. Errors come back as a *CompileError whose diagnostics give
// the WGSL file, line and column and end with the specification's name of
// the rule broken, in brackets. The module's entry point is the @compute
// function's name (Options.EntryPoint picks one of several), and
// reflection reports the WGSL names of variables, structs and members.
// @group(G) @binding(B) is descriptor set G, binding B, as written.
//
// override declarations become specialization constants
// (Module.SpecConstants, by name, with their SpecId: the @id(N) when given);
// compute.KernelOptions.Constants sets them, and a workgroup size made of
// overrides follows (Module.LocalSizeWith). An override declared without
// a default is marked SpecConstant.Required, and a kernel must set it. A
// uniform buffer whose WGSL layout std140 cannot express (a mat2x2<f32>)
// needs the uniformBufferStandardLayout device feature: Module.Features
// names it, and package vulkan checks it. Defines, IncludeDirs, NagaGLSL and
// FlatRegisters do not apply.
//
// # naga GLSL
//
// compushady compiles GLSL with naga, whose front end accepts two constructs
// that glslang, compiling GLSL for Vulkan, rejects. Options.NagaGLSL
// rewrites them before compiling (the C library, and so Python's
// gfxcuda.shaders.glsl.compile, turns it on):
//
//   - A uniform of a non-opaque type outside a block, which naga makes a
//     uniform buffer holding the value, becomes an anonymous uniform block at
//     the same set and binding whose only member keeps the name, so that
//     references still resolve (the first pair of lines below). The block is
//     std140, glslang's default for uniform blocks: the value lies at offset
//     0, as in naga's buffer; arrays have a 16-byte stride. Reflection lists
//     the resource under the block's name. With layout(push_constant) the
//     uniform becomes a push constant block instead. As in naga, a loose
//     uniform needs layout(binding = N); one without, several names in one
//     declaration, and an initializer are errors, which the compiler's
//     diagnostic explains.
//
//   - A storage image whose format qualifier is of another sampled type than
//     its type takes its type from the format, as naga does (the second
//     pair): r32ui and the other unsigned formats make a uimage, r32i and
//     the other signed ones an iimage, float and normalised ones an image.
//     imageLoad then returns a uvec4 (or ivec4); GLSL converts int operands
//     to uint implicitly, so imageLoad(img, i) * 3 compiles.
//
// For example:
//
//	layout(set = 0, binding = 3) uniform float multiplier;
//	layout(set = 0, binding = 3) uniform _gfxcuda_loose_multiplier { float multiplier; };
//
//	layout(set = 0, binding = 0, r32ui) uniform image1D counts;
//	layout(set = 0, binding = 0, r32ui) uniform uimage1D counts;
//
// The rewrite works on tokens, skipping comments, strings and preprocessor
// directives, and looks only at file-scope declarations as written, before
// preprocessing: one whose uniform keyword, type or name comes from a macro,
// or that #if splits, is left alone (macros in layout values are fine).
// It inserts and replaces text within lines only, so diagnostics keep the
// user's line numbers, and a source without these constructs is compiled
// byte for byte. Included files are rewritten too.
//
// # Cache
//
// Compiled modules are stored in a content-addressed cache: the key is the
// SHA-256 of the source, language, stage, entry point, sorted defines,
// optimisation flag, include directories and compiler version. For WGSL the
// source hashed is the GLSL it translates to, with the WGSL entry point and
// names, so that a change of the translator changes the key. Entries live
// in $GFXCUDA_CACHE_DIR, else os.UserCacheDir()/gfxcuda/shaders, one file
// per key, written to a temporary file and renamed into place, and carry a
// checksum: an entry that fails to decode is ignored and rewritten. Entries
// record the files the source included and are not used once one of those
// changes. Options.NoCache, or GFXCUDA_SHADER_CACHE=off in the environment,
// turns the cache off. Module.Cached tells whether a module came from it.
//
// # Reflection
//
// Compile reflects what it compiles with package spirv, which is pure Go
// and links no compiler; Module, Resource and the other reflection types
// here are package spirv's, under the same names. A program that loads
// precompiled SPIR-V and needs no compiler should import spirv (and
// vulkan) only: importing shader links glslang and SPIRV-Tools, about 10 MB.
package shader
