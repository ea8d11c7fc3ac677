package vulkan

import "github.com/gfxcuda/gfxcuda/internal/vk"

// Raw handles, for programs that bring their own Vulkan code (a renderer,
// another binding) and use gfxcuda's objects in it. Every handle is
// borrowed: it stays owned by the gfxcuda object, is valid only while that
// object is open, and must not be destroyed by the caller. Work the caller
// submits with them is not known to gfxcuda: it must synchronize it itself
// (Commands.Wait, semaphores) before closing the object or handing it to
// CUDA.

// Handle returns the VkInstance (0 when closed). Borrowed.
func (in *Instance) Handle() uintptr {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.closed || in.raw == nil {
		return 0
	}
	return in.raw.Handle()
}

// Handle returns the VkPhysicalDevice. Borrowed: valid while its Instance
// is open.
func (p *PhysicalDevice) Handle() uintptr { return vk.HandleOf(p.h) }

// Handle returns the VkDevice (0 when closed). Borrowed.
func (d *Device) Handle() uintptr {
	if d.acquire() != nil {
		return 0
	}
	defer d.life.release()
	return d.raw.Handle()
}

// QueueHandle returns the VkQueue of family QueueFamily, index 0, that
// the Device submits to (0 when closed). Borrowed. Submissions to it must
// be serialized with the Device's, which the Vulkan specification requires
// of every queue: gfxcuda holds no lock the caller can take, so submit from
// the caller's code only while no gfxcuda call on the Device is running.
func (d *Device) QueueHandle() uintptr {
	if d.acquire() != nil {
		return 0
	}
	defer d.life.release()
	return vk.HandleOf(d.queue)
}

// Handle returns the VkBuffer (0 when closed). Borrowed.
func (b *Buffer) Handle() uint64 {
	if b.acquire() != nil {
		return 0
	}
	defer b.life.release()
	return uint64(b.h)
}

// Handle returns the VkImage (0 when closed). Borrowed. The caller's
// commands must start from, and leave the image in, the layout Layout
// reports.
func (i *Image) Handle() uint64 {
	if i.acquire() != nil {
		return 0
	}
	defer i.life.release()
	return uint64(i.h)
}

// Handle returns the VkSemaphore (0 when closed). Borrowed.
func (s *Semaphore) Handle() uint64 {
	if s.acquire() != nil {
		return 0
	}
	defer s.life.release()
	return uint64(s.h)
}

// Instance returns the instance the device was created from.
func (d *Device) Instance() *Instance { return d.inst }
