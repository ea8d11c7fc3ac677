package vulkan

import "fmt"

// Guard is called before Vulkan work on a buffer or image that another API
// (CUDA, through package interop) may be using: by Commands.Submit, with
// the batch, for every guarded object the batch uses, and by
// Buffer.Upload and Buffer.Readback, with nil. It returns an error to
// refuse the work (the batch stays recorded, and may be submitted later),
// or nil once the work may go ahead; it may submit work of its own first
// (with another Commands), which runs before the guarded work.
type Guard func(c *Commands) error

// SetGuard sets (or, with nil, clears) the buffer's guard. It is for
// layers that share the buffer with another API.
func (b *Buffer) SetGuard(g Guard) { b.setGuard(g) }

// SetGuard sets (or, with nil, clears) the image's guard.
func (i *Image) SetGuard(g Guard) { i.setGuard(g) }

func (r *resource) setGuard(g Guard) {
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
