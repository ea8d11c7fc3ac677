package cuda

import (
	"errors"
	"fmt"

	"github.com/gfxcuda/gfxcuda/internal/cu"
)

// ExternalSemaphore is a Vulkan (or OpenGL) semaphore imported into CUDA.
// Streams wait on it and signal it without blocking the host. It is safe for
// concurrent use; Close waits for calls in progress on it to return.
type ExternalSemaphore struct {
	ctx      *Context
	life     life
	h        cu.ExternalSemaphore
	timeline bool
}

// ImportSemaphoreFD imports a semaphore exported as an OPAQUE_FD. timeline
// selects a timeline semaphore (VK_SEMAPHORE_TYPE_TIMELINE). Ownership of fd
// passes to this call: on success the driver owns it, on failure it is
// closed.
func (c *Context) ImportSemaphoreFD(fd int, timeline bool) (*ExternalSemaphore, error) {
	if err := fdsRefused(); err != nil {
		return nil, err
	}
	if err := c.acquire(); err != nil {
		closeFD(fd)
		return nil, err
	}
	typ := cu.SemaphoreOpaqueFD
	if timeline {
		typ = cu.SemaphoreTimelineFD
	}
	h, r := cu.ImportExternalSemaphoreFD(c.h, fd, typ)
	if err := check("cuImportExternalSemaphore", r); err != nil {
		closeFD(fd)
		return nil, errors.Join(fmt.Errorf("importing semaphore fd %d: %w", fd, err), c.release())
	}
	return &ExternalSemaphore{ctx: c, h: h, timeline: timeline}, nil
}

// Timeline reports whether this is a timeline semaphore.
func (e *ExternalSemaphore) Timeline() bool { return e.timeline }

// Handle returns the raw CUexternalSemaphore. It is borrowed: valid until
// Close; never destroy it.
func (e *ExternalSemaphore) Handle() uintptr { return e.h.Handle() }

// Wait makes later work on s wait until the semaphore reaches value (for a
// binary semaphore, until it is signalled; value is ignored).
func (e *ExternalSemaphore) Wait(s *Stream, value uint64) error {
	if err := e.life.acquire(); err != nil {
		return err
	}
	defer e.life.release()
	sh, err := s.use()
	if err != nil {
		return err
	}
	defer s.done()
	return check("cuWaitExternalSemaphoresAsync", cu.WaitExternalSemaphore(e.ctx.h, e.h, value, sh))
}

// Signal sets the semaphore to value once the work queued on s before it has
// finished.
func (e *ExternalSemaphore) Signal(s *Stream, value uint64) error {
	if err := e.life.acquire(); err != nil {
		return err
	}
	defer e.life.release()
	sh, err := s.use()
	if err != nil {
		return err
	}
	defer s.done()
	return check("cuSignalExternalSemaphoresAsync", cu.SignalExternalSemaphore(e.ctx.h, e.h, value, sh))
}

// Close destroys the import once calls in progress have returned.
// Idempotent.
func (e *ExternalSemaphore) Close() error {
	return e.life.shut(func() error {
		err := check("cuDestroyExternalSemaphore", cu.DestroyExternalSemaphore(e.ctx.h, e.h))
		return errors.Join(err, e.ctx.release())
	})
}
