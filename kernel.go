// Compute on the face: kernels compiled for the Device's Vulkan side, bound
// to its shared buffers and textures directly. The names here are package
// compute's and shader's, re-exported so that a program that renders,
// hands off and converts imports the face alone.

package gfxcuda

import (
	"github.com/gfxcuda/gfxcuda/compute"
	"github.com/gfxcuda/gfxcuda/shader"
)

// Kernel is a compiled compute shader on a Device's Vulkan side (see
// compute.Kernel): Dispatch runs it and waits; (*Device).Compute().NewBatch
// records many dispatches at once.
type Kernel = compute.Kernel

// Arg is one argument of a dispatch: a resource bound to a slot, or the
// push constants (see compute.Arg). Make them with At, SRV, UAV, CBV,
// Named, Push and PushValues.
type Arg = compute.Arg

// ShaderOptions say how a kernel's source is compiled (see shader.Options).
type ShaderOptions = shader.Options

// Shader languages, for ShaderOptions.Language (0 finds the language from
// the file name or the source; see shader.Language).
const (
	GLSL  = shader.GLSL
	HLSL  = shader.HLSL
	WGSL  = shader.WGSL
	SPIRV = shader.SPIRV
)

// Compile compiles a GLSL, HLSL or WGSL compute shader (or checks a SPIR-V
// binary) into a kernel on d's Vulkan side, as compute.Device.Compile does
// on d.Compute(): its dispatches are submitted after the resources CUDA
// has handed back, and refused (ErrHeldByCUDA) on resources CUDA holds.
// The kernel's arguments may be d's shared *Buffer and *Texture directly.
// Close the kernel when done with it.
func (d *Device) Compile(src []byte, o ShaderOptions) (*Kernel, error) {
	return d.Compute().Compile(src, o)
}

// At binds r at slot: a GLSL layout(binding), or an HLSL register number
// used by one register class only (see compute.At). r is a shared *Buffer
// or *Texture of the Device, or a resource of package compute.
func At(slot int, r compute.Resource) Arg { return compute.At(slot, r) }

// SRV binds r to HLSL register t<register>, a read-only resource (see
// compute.SRV).
func SRV(register int, r compute.Resource) Arg { return compute.SRV(register, r) }

// UAV binds r to HLSL register u<register>, a read-write resource (see
// compute.UAV).
func UAV(register int, r compute.Resource) Arg { return compute.UAV(register, r) }

// CBV binds buffer r to HLSL register b<register>, a constant buffer (see
// compute.CBV).
func CBV(register int, r compute.Resource) Arg { return compute.CBV(register, r) }

// Named binds r to the shader variable (or block type) called name (see
// compute.Named).
func Named(name string, r compute.Resource) Arg { return compute.Named(name, r) }

// Push passes data as the push constants, laid out as the shader declares
// them (see compute.Push).
func Push(data []byte) Arg { return compute.Push(data) }

// PushValues passes values, encoded little-endian one after the other, as
// the push constants (see compute.PushValues).
func PushValues(values ...any) Arg { return compute.PushValues(values...) }
