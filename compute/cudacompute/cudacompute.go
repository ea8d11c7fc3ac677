// Package cudacompute runs compute shaders on the Vulkan side of an
// interop.Device, whose buffers and textures CUDA reads and writes without
// copies. It is the bridge between package compute, which links no CUDA,
// and package interop.
package cudacompute

import (
	"github.com/gfxcuda/gfxcuda/compute"
	"github.com/gfxcuda/gfxcuda/interop"
)

// New runs compute work on the Vulkan side of an interop device: every
// batch is submitted through d.Submit, so that buffers and textures CUDA
// hands back (interop.Access.Done) are acquired before the work that uses
// them. Wrap its shared resources with compute.Device.WrapBuffer and
// WrapTexture (buf.Vulkan(), tex.Vulkan()). The Device borrows d: Close
// leaves it open.
func New(d *interop.Device) *compute.Device {
	return compute.NewSubmitting(d.Vulkan(), d)
}
