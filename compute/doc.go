// Package compute runs compute shaders on any Vulkan GPU, in the manner of
// Python's compushady: pick a device, make buffers, textures and samplers,
// compile an HLSL, GLSL or WGSL shader in process, and dispatch it with
// resources bound by HLSL register or by name; no descriptor layouts to
// write.
//
//	dev, err := compute.Open(compute.Options{})   // the best GPU, or $GFXCUDA_DEVICE
//	a, err := dev.Buffer(4096, compute.HeapDefault)
//	o, err := dev.Buffer(4096, compute.HeapDefault)
//	k, err := dev.Compile([]byte(src), shader.Options{Filename: "k.hlsl"})
//	err = k.Dispatch(16, 1, 1, compute.SRV(0, a), compute.UAV(0, o)) // register(t0), register(u0)
//	data, err := o.Readback()
//
// # Registers
//
// As with compushady (DXC's Vulkan register shifts), each HLSL register
// class has its own binding range, so b0, t0, u0 and s0 are four resources:
// CBV(n, buf) binds register bn, SRV(n, r) tn, UAV(n, r) un and
// SamplerAt(n, s) sn; register spaces are descriptor sets (Arg.Space).
// Named binds by variable name, AtBinding by Vulkan set and binding. GLSL
// keeps its binding numbers: there SRV(1, …) binds binding 1, which must
// be a read-only resource. At(n, r) binds binding n in GLSL, and in HLSL
// the one register numbered n when only one class uses that number.
// Errors name the register and the call that binds it.
//
// Slot, BindSpec, ParseSampler and CheckBufferSize parse and check
// bindings given as text (gfxcuda run's --srv 0:a.npy), for command lines
// and other front ends.
//
// # Batches
//
// Kernel.Dispatch submits one dispatch and waits for it: simple, and right
// for scripts. A Batch records many dispatches and copies and submits them
// at once, inserting the barriers they need (a dispatch that reads what an
// earlier one wrote waits for it; independent dispatches may overlap) and
// moving textures to the layouts their uses need. Submit returns at once;
// Wait, Done, or a timeline semaphore value (SubmitWith) tell when the
// batch has run.
//
// # Resources
//
// Buffers live on a heap: HeapDefault (device memory, the fastest for
// shaders), HeapUpload and HeapReadback (host memory the GPU reaches).
// Upload and Readback (into new bytes, or ReadbackInto a slice the caller
// reuses) move bytes in and out of any of them. For HeapDefault, the
// page-aligned part of a large transfer is imported
// (VK_EXT_external_memory_host) and copied by the GPU straight from or into
// the caller's memory; the rest goes through the device's reused staging
// memory (host-cached for readback), pipelined so host copies overlap the
// DMA. Upload2D, Readback2D and UploadChunked handle rows with a pitch and
// padded elements, by compushady's rules (partial rows, data past the rows
// cut, whole chunks only). StructuredBuffer remembers an element stride, which must match
// the shader's; TypedBuffer a texel format, for Buffer<T>/RWBuffer<T>.
// Textures are 1D, 2D or 3D, 1D and 2D arrays, of any format of package
// format the device supports (FormatFromDXGI takes compushady's format
// numbers); storage use (RWTexture*) needs a format the device can store.
// UploadRegion and ReadbackRegion move boxes of texels; batches copy
// regions between buffers and textures and between textures. Samplers
// filter by point or linearly and wrap, mirror, clamp or border, per axis
// (SamplerWith).
//
// Bindings are checked against the shader's reflection before anything is
// recorded: a missing or extra binding, a resource of the wrong kind, a
// buffer smaller than the shader's block, a texture of the wrong
// dimensionality or texel type, a dispatch larger than the device allows,
// all fail with an error that names the resource and says what to change;
// the device stays usable.
//
// # With CUDA
//
// Package compute links no CUDA. gfxcuda.Device.Compute runs
// compute work on a gfxcuda.Device, whose buffers and textures CUDA sees
// without copies (wrap them with WrapBuffer and WrapTexture). Every
// submission goes through gfxcuda.Device.Submit, so that what CUDA hands
// back (Access.Done) is acquired first; hand results to CUDA with
// interop.Device.ToCUDA or Map.
package compute
