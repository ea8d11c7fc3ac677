package cuda

import (
	"errors"
	"fmt"
	"sync"
	"syscall"

	"github.com/gfxcuda/gfxcuda/internal/cu"
)

// ExternalSemaphore is a Vulkan (or OpenGL) semaphore imported into CUDA.
// Streams wait on it and signal it without blocking the host.
type ExternalSemaphore struct {
	ctx      *Context
	mu       sync.Mutex
	h        cu.ExternalSemaphore
	ok       bool
	timeline bool
}

// ImportSemaphoreFD imports a semaphore exported as an OPAQUE_FD. timeline
// selects a timeline semaphore (VK_SEMAPHORE_TYPE_TIMELINE). Ownership of fd
// passes to this call: on success the driver owns it, on failure it is
// closed.
func (c *Context) ImportSemaphoreFD(fd int, timeline bool) (*ExternalSemaphore, error) {
	if err := c.acquire(); err != nil {
		syscall.Close(fd)
		return nil, err
	}
	typ := cu.SemaphoreOpaqueFD
	if timeline {
		typ = cu.SemaphoreTimelineFD
	}
	h, r := cu.ImportExternalSemaphoreFD(c.h, fd, typ)
	if err := check("cuImportExternalSemaphore", r); err != nil {
		syscall.Close(fd)
		c.release()
		return nil, fmt.Errorf("importing semaphore fd %d: %w", fd, err)
	}
	return &ExternalSemaphore{ctx: c, h: h, ok: true, timeline: timeline}, nil
}

// Timeline reports whether this is a timeline semaphore.
func (e *ExternalSemaphore) Timeline() bool { return e.timeline }

func (e *ExternalSemaphore) handle() (cu.ExternalSemaphore, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if !e.ok {
		return cu.ExternalSemaphore{}, ErrClosed
	}
	return e.h, nil
}

// Wait makes later work on s wait until the semaphore reaches value (for a
// binary semaphore, until it is signalled; value is ignored).
func (e *ExternalSemaphore) Wait(s *Stream, value uint64) error {
	h, err := e.handle()
	if err != nil {
		return err
	}
	sh, err := s.handle()
	if err != nil {
		return err
	}
	return check("cuWaitExternalSemaphoresAsync", cu.WaitExternalSemaphore(e.ctx.h, h, value, sh))
}

// Signal sets the semaphore to value once the work queued on s before it has
// finished.
func (e *ExternalSemaphore) Signal(s *Stream, value uint64) error {
	h, err := e.handle()
	if err != nil {
		return err
	}
	sh, err := s.handle()
	if err != nil {
		return err
	}
	return check("cuSignalExternalSemaphoresAsync", cu.SignalExternalSemaphore(e.ctx.h, h, value, sh))
}

// Close destroys the import. Idempotent.
func (e *ExternalSemaphore) Close() error {
	e.mu.Lock()
	if !e.ok {
		e.mu.Unlock()
		return nil
	}
	e.ok = false
	e.mu.Unlock()
	err := check("cuDestroyExternalSemaphore", cu.DestroyExternalSemaphore(e.ctx.h, e.h))
	return errors.Join(err, e.ctx.release())
}
