// Package compute runs compute shaders on any Vulkan GPU, in the manner of
// Python's compushady: pick a device, make buffers, textures and samplers,
// compile an HLSL or GLSL shader in process, and dispatch it with
// resources bound by slot or by name; no descriptor layouts to write.
//
//	dev, err := compute.Open(compute.Options{})   // the best GPU, or $GFXCUDA_DEVICE
//	buf, err := dev.Buffer(4096, compute.HeapDefault)
//	k, err := dev.Compile([]byte(src), shader.Options{Filename: "double.hlsl"})
//	err = k.Dispatch(16, 1, 1, compute.At(0, buf))  // RWStructuredBuffer at register(u0)
//	data, err := buf.Readback()
//
// Slots are binding numbers: glslang gives an HLSL resource the number of
// its register whatever the register's class, so t0 and u0 collide (the
// kernel refuses to build; number them apart). Register spaces are
// descriptor sets (Arg.Space).
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
// Upload and Readback move bytes in and out of any of them, through a
// staging buffer for HeapDefault; Upload2D and Readback2D handle rows with
// a pitch. StructuredBuffer remembers an element stride, which must match
// the shader's; TypedBuffer a texel format, for Buffer<T>/RWBuffer<T>.
// Textures are 1D, 2D or 3D, of any format of package format the device
// supports; storage use (RWTexture*) needs a format the device can store.
// Samplers filter by point or linearly and wrap, mirror or clamp.
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
// Package compute links no CUDA. Package compute/cudacompute's New runs
// compute work on an interop.Device, whose buffers and textures CUDA sees
// without copies (wrap them with WrapBuffer and WrapTexture). Every
// submission goes through interop.Device.Submit, so that what CUDA hands
// back (Access.Done) is acquired first; hand results to CUDA with
// interop.Device.ToCUDA or Map.
package compute
