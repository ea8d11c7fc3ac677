// Compute on a Device (formerly package compute/cudacompute) runs compute
// shaders on the Vulkan side of a Device, whose buffers and textures CUDA
// reads and writes without copies. It is the bridge between package
// compute, which links no CUDA, and the Device.

package gfxcuda

import (
	"github.com/gfxcuda/gfxcuda/compute"
)

// Compute returns the compute.Device that runs compute work on the Vulkan
// side of d: every batch is submitted through d.Submit, so that buffers and
// textures CUDA hands back (Access.Done) are acquired before the work that
// uses them. d's shared *Buffer and *Texture bind to its kernels directly
// (they are compute.Resources: see ComputeResource); Device.Compile is the
// shortcut for d.Compute().Compile. The first call makes it; later
// calls return the same one. d.Close closes it (closing it earlier is
// allowed and leaves d open). For a compute.Device of one's own, with its
// own lifetime, call compute.NewSubmitting(d.Vulkan(), d).
func (d *Device) Compute() *compute.Device {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.compute == nil {
		d.compute = compute.NewSubmitting(d.Vulkan(), d)
	}
	return d.compute
}
