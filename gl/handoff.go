package gl

import (
	"context"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/gfxcuda/gfxcuda/cuda"
	"github.com/gfxcuda/gfxcuda/internal/egl"
	"github.com/gfxcuda/gfxcuda/vulkan"
)

// handoffTimeout bounds the host waits of a hand-off where GL has no
// timeline semaphores, and the wait for pending signals when a shared
// object closes.
const handoffTimeout = time.Minute

// handoffHost makes every hand-off wait on the host (glFinish, the
// stream), as where GL has no timeline semaphores: GFXCUDA_GL_HANDOFF=host,
// for measuring one way against the other (gpu, the default, uses
// semaphores where GL has them).
var handoffHost = os.Getenv("GFXCUDA_GL_HANDOFF") == "host"

// handoff orders CUDA's and GL's work on one shared object. GL sees
// another API's writes to imported memory only through a semaphore wait
// that names the object (glWaitSemaphoreEXT): a host wait alone leaves GL
// free to serve reads from what it last knew of the object. Where GL has
// timeline semaphores (NVIDIA), two shared timeline semaphores (the ring's
// pair: GL signals one, CUDA the other) order the hand-offs on the GPU.
type handoff struct {
	c   *Context
	dev *vulkan.Device
	mu  sync.Mutex
	rs  *ringSems // made at the first hand-off
}

// gpu reports whether hand-offs go through semaphores, making them at the
// first call. Call with h.mu held.
func (h *handoff) gpu() (bool, error) {
	if h.c.cuda == nil {
		return false, ErrNoCUDA
	}
	if !h.c.Info().TimelineSemaphore || handoffHost {
		return false, nil
	}
	if h.rs == nil {
		rs, err := h.c.newRingSems(h.dev)
		if err != nil {
			return false, err
		}
		h.rs = rs
	}
	return true, nil
}

// stream returns s, or the legacy default stream wrapped (and a func that
// closes the wrapper) when s is nil.
func (h *handoff) stream(s *cuda.Stream) (*cuda.Stream, func(), error) {
	if s != nil {
		return s, func() {}, nil
	}
	ls, err := cuda.WrapStream(h.c.cuda, cuda.LegacyDefaultStream)
	if err != nil {
		return nil, nil, err
	}
	return ls, func() { ls.Close() }, nil
}

// toGL makes GL's later commands see what CUDA's work queued on s so far
// wrote to bufs and texs.
func (h *handoff) toGL(s *cuda.Stream, bufs []*Buffer, texs []*Texture) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	gpu, err := h.gpu()
	if err != nil {
		return err
	}
	s, done, err := h.stream(s)
	if err != nil {
		return err
	}
	defer done()
	if !gpu {
		ctx, cancel := context.WithTimeout(context.Background(), handoffTimeout)
		defer cancel()
		return s.Wait(ctx)
	}
	v := h.rs.cuValue + 1
	if err := h.rs.cuCUDA.Signal(s, v); err != nil {
		return err
	}
	h.rs.cuValue = v
	bs, ts, ls := names(bufs, texs)
	return h.c.do(func(e *egl.Context) error {
		if err := e.SetTimelineValue(h.rs.glCUDA, v); err != nil {
			return err
		}
		if err := e.WaitSemaphore(h.rs.glCUDA, bs, ts, ls); err != nil {
			return err
		}
		h.c.waited = true
		return nil
	})
}

// toCUDA makes CUDA's work queued on s from now on see what GL's commands
// so far wrote to bufs and texs.
func (h *handoff) toCUDA(s *cuda.Stream, bufs []*Buffer, texs []*Texture) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	gpu, err := h.gpu()
	if err != nil {
		return err
	}
	if !gpu {
		return h.c.Finish()
	}
	s, done, err := h.stream(s)
	if err != nil {
		return err
	}
	defer done()
	v := h.rs.glValue + 1
	bs, ts, ls := names(bufs, texs)
	if err := h.c.do(func(e *egl.Context) error {
		if err := e.SetTimelineValue(h.rs.glGL, v); err != nil {
			return err
		}
		return e.SignalSemaphore(h.rs.glGL, bs, ts, ls)
	}); err != nil {
		return err
	}
	h.rs.glValue = v
	return h.rs.cuGL.Wait(s, v)
}

// close waits for pending signals and frees the semaphores.
func (h *handoff) close() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.rs == nil {
		return nil
	}
	err := h.rs.close(h.c, handoffTimeout)
	h.rs = nil
	return err
}

// CUDAToGL hands the buffer from CUDA to GL: GL commands issued afterwards
// see everything CUDA's work queued on s so far (nil s: the legacy default
// stream) wrote to it. Where GL has GL_NV_timeline_semaphore (NVIDIA), GL
// waits on the GPU for a semaphore CUDA signals on s, and the host does not
// wait; elsewhere the host waits for s. Call it between CUDA writing the
// buffer and GL reading it: GL may otherwise read what it last knew of the
// buffer, even after CUDA's work has finished. GL's GPU commands queue
// behind the wait; host reads through Buffer.Readback wait for GL to pass
// it (glFinish), while a caller's own glGetBufferSubData or glMapBuffer
// must call Context.Finish first.
func (sb *SharedBuffer) CUDAToGL(s *cuda.Stream) error {
	if err := sb.h.toGL(s, []*Buffer{sb.GL}, nil); err != nil {
		return fmt.Errorf("gl: SharedBuffer.CUDAToGL: %w", err)
	}
	return nil
}

// GLToCUDA hands the buffer from GL to CUDA: CUDA work queued on s (nil:
// the legacy default stream) after the call sees everything GL's commands
// so far wrote to it. With GL_NV_timeline_semaphore, GL signals a semaphore
// that s waits for on the GPU; elsewhere the host waits for GL
// (Context.Finish).
func (sb *SharedBuffer) GLToCUDA(s *cuda.Stream) error {
	if err := sb.h.toCUDA(s, []*Buffer{sb.GL}, nil); err != nil {
		return fmt.Errorf("gl: SharedBuffer.GLToCUDA: %w", err)
	}
	return nil
}

// CUDAToGL hands the texture from CUDA to GL (in the GENERAL layout), as
// SharedBuffer.CUDAToGL does a buffer.
func (st *SharedTexture) CUDAToGL(s *cuda.Stream) error {
	if err := st.h.toGL(s, nil, []*Texture{st.GL}); err != nil {
		return fmt.Errorf("gl: SharedTexture.CUDAToGL: %w", err)
	}
	return nil
}

// GLToCUDA hands the texture from GL to CUDA, as SharedBuffer.GLToCUDA
// does a buffer.
func (st *SharedTexture) GLToCUDA(s *cuda.Stream) error {
	if err := st.h.toCUDA(s, nil, []*Texture{st.GL}); err != nil {
		return fmt.Errorf("gl: SharedTexture.GLToCUDA: %w", err)
	}
	return nil
}
