package gl

import (
	"fmt"
	"sync"

	"github.com/gfxcuda/gfxcuda/internal/egl"
)

// Semaphore is a binary semaphore imported into GL (GL_EXT_semaphore_fd),
// e.g. one exported by Vulkan, for GPU-side ordering between GL and the
// exporter without host waits.
type Semaphore struct {
	c      *Context
	s      egl.Semaphore
	mu     sync.Mutex
	closed bool
}

// SemaphoresSupported reports whether the driver imports semaphores
// (GL_EXT_semaphore_fd). Mesa's llvmpipe does not: order GL's work with
// host waits there (Context.Finish, or a Ring's fences).
func (c *Context) SemaphoresSupported() bool { return c.Info().SemaphoreFD }

// ImportSemaphoreFD imports an OPAQUE_FD binary semaphore. On success GL
// owns fd; on failure fd is closed: the caller never closes it. Without
// GL_EXT_semaphore_fd the error wraps ErrUnsupported.
func (c *Context) ImportSemaphoreFD(fd int) (*Semaphore, error) {
	if !c.SemaphoresSupported() {
		closeFD(fd)
		return nil, fmt.Errorf("%w: the GL context (%s) lacks GL_EXT_semaphore_fd; order GL's work with "+
			"Context.Finish or a Ring's fences", ErrUnsupported, c.Info().Renderer)
	}
	var s egl.Semaphore
	err := c.doFD(fd, func(e *egl.Context) (err error) {
		s, err = e.ImportSemaphoreFD(fd)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("gl: ImportSemaphoreFD: %w", err)
	}
	sem := &Semaphore{c: c, s: s}
	return sem, c.addOrDelete(sem)
}

func names(bufs []*Buffer, texs []*Texture) ([]egl.Buffer, []egl.Texture, []uint32) {
	bs := make([]egl.Buffer, len(bufs))
	for i, b := range bufs {
		bs[i] = egl.Buffer(b.name)
	}
	ts := make([]egl.Texture, len(texs))
	ls := make([]uint32, len(texs))
	for i, t := range texs {
		ts[i] = egl.Texture(t.name)
		ls[i] = egl.LayoutGeneral
	}
	return bs, ts, ls
}

// Signal queues a signal of the semaphore after GL's commands so far,
// handing bufs and texs (in the GENERAL layout) to the waiter, and flushes.
func (s *Semaphore) Signal(bufs []*Buffer, texs []*Texture) error {
	bs, ts, ls := names(bufs, texs)
	return s.c.do(func(e *egl.Context) error { return e.SignalSemaphore(s.s, bs, ts, ls) })
}

// Wait makes GL's later commands wait on the GPU for the semaphore; texs
// arrive in the GENERAL layout.
func (s *Semaphore) Wait(bufs []*Buffer, texs []*Texture) error {
	bs, ts, ls := names(bufs, texs)
	return s.c.do(func(e *egl.Context) error {
		if err := e.WaitSemaphore(s.s, bs, ts, ls); err != nil {
			return err
		}
		s.c.waited = true
		return nil
	})
}

// Close deletes the semaphore. Idempotent.
func (s *Semaphore) Close() error {
	s.c.remove(s)
	return s.close()
}

func (s *Semaphore) close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	return s.c.e.Do(func() error { return s.c.e.DeleteSemaphore(s.s) })
}
