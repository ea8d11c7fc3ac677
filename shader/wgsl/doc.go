// Package wgsl compiles WGSL compute shaders (the WebGPU Shading Language,
// https://www.w3.org/TR/WGSL/) to GLSL 4.50 for Vulkan, which package
// shader then compiles to SPIR-V with glslang. It is pure Go.
//
// Translate runs three stages: parse (lex.go, parse.go) builds the syntax
// tree of package internal/ast; check (check.go, checkexpr.go, builtins.go,
// consteval.go, types.go) resolves names, types every expression with the
// specification's rules (abstract numerics, conversion ranks and
// concretization, the load rule, references and pointers), evaluates
// const-expressions and applies the validation rules; the writer (glsl.go,
// glslbuiltins.go, glslnames.go) prints the checked program as GLSL.
//
// # Why GLSL through glslang
//
// glslang (shaderc) is already linked into package shader and exercised by
// its HLSL and GLSL paths; the SPIR-V it produces is what package spirv's
// reflection and the Vulkan drivers gfxcuda runs on are tested with, and
// its optimizer comes with it. Emitting GLSL keeps the translation a
// type-directed printer: every construct maps to GLSL text chosen from the
// checked types, and the few WGSL semantics GLSL lacks are filled in by
// small helper functions emitted only when used. #line directives map the
// GLSL back to WGSL lines, so that any glslang diagnostic points at the
// WGSL source (the checker reports WGSL errors itself, with line, column
// and the specification's rule).
//
// # What is supported
//
// Everything a compute shader can contain:
//
//   - Types: bool, i32, u32, f32, f16 (after `enable f16;`), AbstractInt
//     and AbstractFloat with conversion ranks and concretization; vectors,
//     matrices and their predeclared aliases (vec3f, mat4x4h, ...); fixed
//     and runtime-sized arrays; arrays sized by override-expressions in
//     var<workgroup>; structures with @align and @size; atomic<i32|u32>;
//     ptr<AS, T, AM> with & and *, pointer_composite_access (p.m, p[i]);
//     alias declarations; sampled, multisampled, depth and storage textures
//     (read, write, read_write) and samplers.
//   - Declarations: var in every address space (function, private,
//     workgroup, uniform, storage read and read_write, handle), let, const
//     (with full const evaluation: operators on scalars, vectors, matrices,
//     arrays and structures, conversions, bitcast and the numeric, bit and
//     packing built-ins), override (@id, defaults, override-expressions,
//     including in @workgroup_size and workgroup array sizes),
//     const_assert.
//   - Statements: every one (assignment, compound assignment, ++/--, phony
//     assignment, if, switch with `case x, default:`, loop with continuing
//     and break if, for, while, break, continue, return, calls).
//   - Built-in functions allowed in compute shaders: numeric, bit,
//     packing (including the packed 4x8 integer dot products), select, all,
//     any, arrayLength, bitcast, frexp and modf (with their result
//     structures), atomics including atomicCompareExchangeWeak, the
//     barriers and workgroupUniformLoad, the texture built-ins valid in
//     compute shaders (textureDimensions, textureGather,
//     textureGatherCompare, textureLoad, textureNumLayers, textureNumLevels,
//     textureNumSamples, textureSampleLevel, textureSampleGrad,
//     textureSampleCompareLevel, textureSampleBaseClampToEdge,
//     textureStore) and, after `enable subgroups;`, the subgroup built-in
//     values and the subgroup arithmetic, ballot, broadcast, shuffle and
//     vote functions.
//   - Entry points: @compute with @workgroup_size; built-in inputs as
//     parameters or as members of structure parameters
//     (global_invocation_id, local_invocation_id, local_invocation_index,
//     workgroup_id, num_workgroups, subgroup_invocation_id, subgroup_size).
//     The entry point is Options.EntryPoint, else the only @compute
//     function, else the one named main. Functions and globals the entry
//     point does not use are left out; @vertex and @fragment functions are
//     checked but not translated.
//
// # How WGSL maps to GLSL
//
// The entry function becomes main; its built-in parameters become locals
// initialized from gl_GlobalInvocationID and friends. var<storage> is a
// buffer block (readonly for read access) and var<uniform> a uniform
// block, at layout(set = group, binding = binding). A buffer whose store
// type is a structure has the structure's members as block members, each
// with its WGSL offset (layout(offset = N)), and the variable's name as
// instance name; any other store type (array<u32>, vec4f) is the block's
// only member, named like the variable: `data[i]` is `data.data[i]`. Block
// types are named _wB_<variable>; Result.Names maps them back to the WGSL
// structure name (or the variable name). Structures nested in buffers
// carry explicit padding members (_wpadN) wherever @align or @size moves a
// member from its GLSL position, so that layouts agree byte for byte.
// Storage buffers use std430, which is WGSL's layout; uniform buffers use
// std140, which equals WGSL's layout for every type the uniform address
// space admits, except matrices whose column stride is 8 (mat2x2<f32>,
// mat3x2<f32>, mat4x2<f32>, f16 matrices) and padding after a nested
// structure or array: those blocks are declared std430, which needs
// GL_EXT_scalar_block_layout in glslang and the device feature
// uniformBufferStandardLayout (Result.Features says so). The
// uniform_buffer_standard_layout language extension is not supported:
// uniform buffers must obey the uniform layout constraints.
//
// Textures are texture2D, utexture2DArray, texture2DMS and so on (depth
// textures are float textures), samplers sampler and samplerShadow,
// combined at each use (textureLod(sampler2D(t, s), ...)); textureLoad,
// textureDimensions and the queries use GL_EXT_samplerless_texture_functions,
// so no descriptor is added. Storage textures are images with their format
// and readonly/writeonly qualifiers.
//
// override declarations are specialization constants:
// layout(constant_id = ID) const T name = default. The ID is @id, else the
// lowest ID no @id takes, in declaration order over the whole module.
// Only the overrides the entry point statically uses are declared and
// listed in Result.Overrides (those its functions name, and through
// @workgroup_size, workgroup array sizes and initializers); as in WebGPU,
// another entry point's overrides need no value. An override without an
// initializer gets the zero value in GLSL (1 for integers, which keeps
// array sizes valid); the pipeline must supply a value. An override whose
// initializer depends
// on other overrides has no specialization constant of its own: GLSL
// cannot make a non-integer expression of specialization constants
// specializable, so its initializer is inlined where it is used and it
// always takes the value computed from the others (Override.Specializable
// is false). @workgroup_size arguments that name an override become
// local_size_x_id with the default as local_size_x; other
// override-expressions there take their value with the defaults.
//
// Function parameters of type ptr<function, T> or ptr<private, T> are
// GLSL inout parameters. The copy-in/copy-out is exact for WGSL: the alias
// analysis rules forbid reaching the pointed-to memory another way during
// the call. Pointer parameters into storage, uniform and workgroup memory
// (the unrestricted_pointer_parameters language extension) cannot be
// copies, since other invocations and atomics see that memory: such a
// function is specialized per call, each copy (named <fn>_ws, _ws_1, ...)
// using the memory view the call passes, with its non-constant indices as
// extra parameters. A let-declared pointer is replaced by the memory view
// it names, its indices stored in temporaries where the let is, so that
// later uses see the location computed then.
//
// Identifiers that GLSL reserves (keywords, reserved words, built-in types
// and function names such as input, texture, sample, main when not the
// entry point, anything with "__" or a gl_ prefix, and names starting
// with _w, the translator's own prefix) are renamed to _wr_<name>; locals
// that shadow are renamed with a _N suffix. Result.Names maps every
// renamed GLSL identifier (and the block type names) to the WGSL name, so
// that package shader can restore the WGSL names in the SPIR-V.
//
// # Polyfills
//
// WGSL semantics GLSL lacks are emitted as helper functions or inline
// code, only when used:
//
//   - Integer / and % never trap: a zero divisor (and i32 MIN / -1) divides
//     by 1 instead, so e / 0 is e and e % 0 is 0; i32 % is the truncated
//     remainder (GLSL leaves % of negative operands undefined). Division by
//     a constant other than 0 and -1 uses GLSL's operator.
//   - Float % is e1 - e2 * trunc(e1 / e2) (GLSL's mod floors).
//   - Shifts by a non-constant amount mask it: a << (b & 31u).
//   - Float to integer conversions saturate (clamp to the range that f32
//     can represent, then convert); f16 to u32 clamps at zero.
//   - Zero values: function variables, private variables and workgroup
//     variables are zero-initialized (workgroup memory by the workgroup's
//     invocations at the start of main, followed by a barrier; large
//     arrays by loops).
//   - countLeadingZeros, countTrailingZeros, firstLeadingBit and
//     firstTrailingBit through findMSB/findLSB; extractBits and insertBits
//     clamp offset and count as WGSL specifies; dot of integer vectors,
//     dot4U8Packed, dot4I8Packed, pack4xI8/U8 (and Clamp), unpack4xI8/U8,
//     quantizeToF16 (rounding the f32's bits to f16 precision, ties to
//     even, with integer operations: NVIDIA's driver folds
//     unpackHalf2x16(packHalf2x16(x)) into x; f16 subnormals are kept,
//     beyond f16's finite range the result is infinity, NaN stays NaN),
//     unpack2x16float in a module that also calls pack2x16float (moving
//     the f16 bits into an f32's with integer operations, for the same
//     reason; elsewhere it is unpackHalf2x16), frexp and modf (returning
//     the predeclared result structures), bitcast between f16 pairs and
//     32-bit words (packFloat2x16), round (roundEven), saturate (clamp),
//     select (mix with a bool vector, else ?:), abs of u32 (identity),
//     textureSampleBaseClampToEdge.
//   - atomicLoad and atomicStore are relaxed atomics with the device or
//     workgroup scope (GL_KHR_memory_scope_semantics); atomicSub adds the
//     negation; atomicCompareExchangeWeak is atomicCompSwap with the
//     comparison and result kept in private temporaries to build the
//     __atomic_compare_exchange_result structure.
//   - workgroupBarrier is barrier() (OpControlBarrier Workgroup,
//     AcquireRelease|WorkgroupMemory, as WGSL specifies); storageBarrier and
//     textureBarrier are controlBarrier with the buffer and image storage
//     semantics; workgroupUniformLoad(p) is (barrier(), t = *p, barrier(),
//     t).
//   - A phony assignment of a resource (`_ = &buf;`) references it without
//     effect, so that it stays in the pipeline's interface.
//   - loop { ... continuing { ... break if c; } }: GLSL has no continuing
//     block, so it is written after the body and before every continue of
//     the loop (a continue inside a switch first leaves the switch through a
//     flag when a break if must end the loop).
//
// # Not implemented
//
//   - The uniformity analysis (section "Uniformity"): programs that call
//     barriers or workgroupUniformLoad in non-uniform control flow are not
//     rejected; diagnostic directives and attributes are accepted and
//     ignored.
//   - The alias analysis rules (section "Alias Analysis") are not checked.
//   - Out-of-bounds accesses are not clamped: they behave as the device
//     does (Vulkan's robustBufferAccess, where enabled).
//   - The language extension uniform_buffer_standard_layout, and
//     texture_external, texel buffers, buffer views, immediate data, and
//     the vertex and fragment stages.
//   - textureSampleCompareLevel on texture_depth_cube_array.
//   - Pipeline-creation errors of override-expressions (for example a
//     division by zero given the overrides' values) are not detected: the
//     values are not known at translation time.
//   - Runtime expressions use GLSL's evaluation: select evaluates only the
//     chosen operand, and the operands of bool & and | are both evaluated
//     as WGSL requires.
package wgsl
