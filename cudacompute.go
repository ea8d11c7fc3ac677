// Compute on a Device (formerly package compute/cudacompute) runs compute
// shaders on the Vulkan side of a Device, whose buffers and textures CUDA
// reads and writes without copies. It is the bridge between package
// compute, which links no CUDA, and the Device.

package gfxcuda

import (
	"errors"
	"fmt"

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

// NewCompute returns a compute.Device of its own on d, which the caller
// closes (before d): its kernels and copies run on d's Vulkan device and
// submit through d, like Compute's. It is compute.NewSubmitting(d.Vulkan(),
// d), what the C library's gfxcuda_shared_compute_device returns.
func (d *Device) NewCompute() *compute.Device {
	return compute.NewSubmitting(d.Vulkan(), d)
}

// ErrOtherDevice is wrapped by the errors of ComputeTexture and
// ComputeBuffer given a compute.Device on another Vulkan device.
var ErrOtherDevice = errors.New("gfxcuda: a compute device of another device")

// ComputeTexture returns a new compute view of t on cd, a compute.Device
// on t's Vulkan device (d.Compute(), or one of compute.NewSubmitting),
// that the caller owns: closing it leaves t open (ComputeResource is the
// view kernels bind, kept with t). An opened texture is imported into
// Vulkan first; errors importing it wrap ErrUnsupported, a compute device
// of another device ErrOtherDevice.
func (t *Texture) ComputeTexture(cd *compute.Device) (*compute.Texture, error) {
	d := t.s.d
	d.mu.Lock()
	defer d.mu.Unlock()
	return t.newViewLocked(cd)
}

// ComputeBuffer returns a new compute view of b on cd that the caller
// owns, as ComputeTexture does for textures.
func (b *Buffer) ComputeBuffer(cd *compute.Device) (*compute.Buffer, error) {
	d := b.s.d
	d.mu.Lock()
	defer d.mu.Unlock()
	return b.newViewLocked(cd)
}

// newViewLocked makes a view of t on cd. Called with d.mu held.
func (t *Texture) newViewLocked(cd *compute.Device) (*compute.Texture, error) {
	if err := viewable(&t.s, cd); err != nil {
		return nil, err
	}
	img, err := t.vulkanLocked()
	if err != nil {
		return nil, unsupported(err)
	}
	return cd.WrapTexture(img)
}

// newViewLocked makes a view of b on cd. Called with d.mu held.
func (b *Buffer) newViewLocked(cd *compute.Device) (*compute.Buffer, error) {
	if err := viewable(&b.s, cd); err != nil {
		return nil, err
	}
	vb, err := b.vulkanLocked()
	if err != nil {
		return nil, unsupported(err)
	}
	return cd.WrapBuffer(vb), nil
}

// unsupported wraps err as ErrUnsupported unless it is already.
func unsupported(err error) error {
	if errors.Is(err, ErrUnsupported) {
		return err
	}
	return fmt.Errorf("%w: %w", ErrUnsupported, err)
}

// viewable checks that a resource of s can have a view on cd. Called with
// d.mu held.
func viewable(s *state, cd *compute.Device) error {
	switch {
	case cd == nil:
		return fmt.Errorf("gfxcuda: a compute view on a nil compute.Device")
	case s.closed || s.d.closed:
		return ErrClosed
	case cd.Vulkan() != s.d.vk:
		return fmt.Errorf("gfxcuda: the resource belongs to another Device than the compute.Device; bind it on its Device's Compute() (%w)", ErrOtherDevice)
	}
	return nil
}

// ComputeResource returns the buffer's view on cd, a compute device of the
// buffer's Device (its Compute(), or compute.NewSubmitting over its Vulkan
// device): what kernels bind when b is their argument. The view is made
// once (importing an opened buffer into Vulkan then) and lives as long as
// b; it is a raw buffer (Arg.As binds it as a texel buffer of a format).
func (b *Buffer) ComputeResource(cd *compute.Device) (compute.Resource, error) {
	d := b.s.d
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := viewable(&b.s, cd); err != nil {
		return nil, err
	}
	return b.view.get(cd, func() (compute.Resource, error) { return b.newViewLocked(cd) })
}

// ComputeResource returns the texture's view on cd, a compute device of
// the texture's Device: what kernels bind when t is their argument (a
// storage or sampled image, as the shader declares it). The view is made
// once (importing an opened texture into Vulkan then) and lives as long as
// t.
func (t *Texture) ComputeResource(cd *compute.Device) (compute.Resource, error) {
	d := t.s.d
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := viewable(&t.s, cd); err != nil {
		return nil, err
	}
	return t.view.get(cd, func() (compute.Resource, error) { return t.newViewLocked(cd) })
}
