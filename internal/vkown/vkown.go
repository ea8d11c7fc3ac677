// Package vkown hands package vulkan's queue-family ownership transfers and
// resource guards to the layers that share Vulkan objects with another API
// (CUDA, OpenGL, another process), and to nobody else.
//
// A transfer to or from VK_QUEUE_FAMILY_EXTERNAL decides which API may touch
// an object's memory, and a guard decides whether Vulkan work on it may go
// ahead. Both belong to the hand-off state machine of the layer that shares
// the object (package gfxcuda's ToCUDA and Run, gl's ReleaseToGL and
// AcquireFromGL, the producers and consumers of sharing between processes):
// a transfer recorded behind that machine's back would leave it believing
// that Vulkan owns what it no longer does, or the reverse, and the next
// hand-off would corrupt the data or fail validation. So package vulkan
// exports neither: it registers them here, in an init function, and the
// sharing layers take them with Get. Users who need a raw transfer get it
// through those layers' hand-offs.
//
// No package under internal/ may import a public package of the module, so
// this one cannot name vulkan's types: Hooks is generic over them, and Get
// checks, once, that its caller asks for the instantiation package vulkan
// registered.
package vkown

import "fmt"

// Hooks are package vulkan's ownership transfers and guard setters, for
// Commands C (*vulkan.Commands), buffers B (*vulkan.Buffer), images I
// (*vulkan.Image) and image layouts L (vulkan.ImageLayout).
type Hooks[C, B, I, L any] struct {
	// ReleaseBuffers records, in one barrier command, the release of the
	// whole of each of bs from the device's queue family to
	// VK_QUEUE_FAMILY_EXTERNAL, after every earlier write.
	ReleaseBuffers func(c C, bs ...B)
	// AcquireBuffers records, in one barrier command, the acquisition of
	// each of bs from VK_QUEUE_FAMILY_EXTERNAL, before every later command.
	AcquireBuffers func(c C, bs ...B)
	// ReleaseImages records, in one barrier command, the release of
	// distinct images to VK_QUEUE_FAMILY_EXTERNAL, moving each from its
	// remembered layout to layout, the one the external user sees
	// (normally GENERAL).
	ReleaseImages func(c C, layout L, imgs ...I)
	// AcquireImages records the acquisition of distinct images from
	// VK_QUEUE_FAMILY_EXTERNAL: the external user left them in layout, and
	// they move to newLayout (which may equal layout). An image this device
	// has not laid out yet (an imported one) keeps its content.
	AcquireImages func(c C, layout, newLayout L, imgs ...I)
	// SetBufferGuard sets (or, with nil, clears) a buffer's guard: a
	// function package vulkan calls before Vulkan work on the buffer, with
	// the batch about to be submitted (nil for a host transfer), and that
	// refuses the work by returning an error. It may submit work of its own
	// first (with another Commands), which runs before the guarded work.
	SetBufferGuard func(b B, guard func(c C) error)
	// SetImageGuard is SetBufferGuard for an image.
	SetImageGuard func(img I, guard func(c C) error)
}

// hooks is what package vulkan registered: a Hooks of its types.
var hooks any

// Register records package vulkan's hooks. Only package vulkan calls it,
// from an init function, so that every package importing vulkan finds them
// registered.
func Register[C, B, I, L any](h Hooks[C, B, I, L]) { hooks = h }

// Get returns package vulkan's hooks, for a caller that imports vulkan
// (whose init function has then registered them before the caller's
// package variables are initialized), typically as a package variable:
//
//	var own = vkown.Get[*vulkan.Commands, *vulkan.Buffer, *vulkan.Image, vulkan.ImageLayout]()
//
// Type arguments other than vulkan's are a programming error that the
// first test of the calling package reports: Get panics.
func Get[C, B, I, L any]() Hooks[C, B, I, L] {
	h, ok := hooks.(Hooks[C, B, I, L])
	if !ok {
		panic(fmt.Sprintf("vkown: Get of %T, but package vulkan registered %T", h, hooks))
	}
	return h
}
