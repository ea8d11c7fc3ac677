// Package shader compiles HLSL and GLSL to SPIR-V in process, reflects the
// result with package spirv, and caches compiled modules on disk.
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
// # Cache
//
// Compiled modules are stored in a content-addressed cache: the key is the
// SHA-256 of the source, language, stage, entry point, sorted defines,
// optimisation flag, include directories and compiler version. Entries live
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
