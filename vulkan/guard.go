package vulkan

import (
	"fmt"

	"github.com/gfxcuda/gfxcuda/internal/vkown"
)

// A guardFunc is called before Vulkan work on a buffer or image that another
// API (CUDA, through package gfxcuda) may be using: by Commands.Submit,
// with the batch, for every guarded object the batch uses, and by
// Buffer.Upload and Buffer.Readback, with nil. It returns an error to
// refuse the work (the batch stays recorded, and may be submitted later),
// or nil once the work may go ahead; it may submit work of its own first
// (with another Commands), which runs before the guarded work.
//
// Guards, like the queue-family ownership transfers (Commands'
// releaseBuffers, acquireBuffers, releaseImages, acquireImages), are not
// exported: they belong to the hand-off state machine of the layer sharing
// the object, which takes them through package internal/vkown. Users hand
// objects over, and back, with that layer's hand-offs.
type guardFunc func(c *Commands) error

func init() {
	vkown.Register(vkown.Hooks[*Commands, *Buffer, *Image, ImageLayout]{
		ReleaseBuffers: (*Commands).releaseBuffers,
		AcquireBuffers: (*Commands).acquireBuffers,
		ReleaseImages:  (*Commands).releaseImages,
		AcquireImages:  (*Commands).acquireImages,
		SetBufferGuard: func(b *Buffer, g func(*Commands) error) { b.setGuard(g) },
		SetImageGuard:  func(img *Image, g func(*Commands) error) { img.setGuard(g) },
	})
}

// setGuard sets (or, with nil, clears) r's guard.
func (r *resource) setGuard(g guardFunc) {
	if g == nil {
		r.guard.Store(nil)
		return
	}
	r.guard.Store(&g)
}

// guarded runs r's guard, if any, for work c (nil: a host transfer).
func (r *resource) guarded(what string, c *Commands) error {
	g := r.guard.Load()
	if g == nil {
		return nil
	}
	if err := (*g)(c); err != nil {
		return fmt.Errorf("vulkan: %s: %w", what, err)
	}
	return nil
}
