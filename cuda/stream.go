package cuda

import (
	"fmt"
	"sync"
	"time"

	"github.com/gfxcuda/gfxcuda/internal/cu"
)

// Stream is a CUDA stream: work queued on it runs in order, asynchronously
// with the host.
type Stream struct {
	ctx *Context
	mu  sync.Mutex
	h   cu.Stream
	ok  bool
}

// Stream creation flags.
const (
	StreamDefault     = 0x0
	StreamNonBlocking = 0x1 // does not synchronize with the legacy default stream
)

// NewStream creates a stream. Pass StreamNonBlocking unless the stream must
// order itself with the legacy default stream.
func (c *Context) NewStream(flags uint32) (*Stream, error) {
	if err := c.acquire(); err != nil {
		return nil, err
	}
	h, r := cu.StreamCreate(c.h, flags)
	if err := check("cuStreamCreate", r); err != nil {
		c.release()
		return nil, err
	}
	return &Stream{ctx: c, h: h, ok: true}, nil
}

// handle returns the raw stream or ErrClosed.
func (s *Stream) handle() (cu.Stream, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.ok {
		return cu.Stream{}, ErrClosed
	}
	return s.h, nil
}

// Context returns the stream's context.
func (s *Stream) Context() *Context { return s.ctx }

// Close waits for the stream's queued work and destroys it. It is idempotent.
func (s *Stream) Close() error {
	s.mu.Lock()
	if !s.ok {
		s.mu.Unlock()
		return nil
	}
	s.ok = false
	h := s.h
	s.mu.Unlock()
	err := check("cuStreamSynchronize", cu.StreamSynchronize(h))
	if derr := check("cuStreamDestroy", cu.StreamDestroy(s.ctx.h, h)); err == nil {
		err = derr
	}
	if rerr := s.ctx.release(); err == nil {
		err = rerr
	}
	return err
}

// Synchronize waits until all work queued on the stream has finished.
func (s *Stream) Synchronize() error {
	h, err := s.handle()
	if err != nil {
		return err
	}
	return check("cuStreamSynchronize", cu.StreamSynchronize(h))
}

// Done reports whether all work queued on the stream has finished.
func (s *Stream) Done() (bool, error) {
	h, err := s.handle()
	if err != nil {
		return false, err
	}
	switch r := cu.StreamQuery(h); r {
	case cu.Success:
		return true, nil
	case cu.ErrNotReady:
		return false, nil
	default:
		return false, check("cuStreamQuery", r)
	}
}

// WaitEvent makes later work on the stream wait until e has completed,
// without blocking the host.
func (s *Stream) WaitEvent(e *Event) error {
	h, err := s.handle()
	if err != nil {
		return err
	}
	eh, err := e.handle()
	if err != nil {
		return err
	}
	return check("cuStreamWaitEvent", cu.StreamWaitEvent(s.ctx.h, h, eh))
}

// CopyHtoD queues a copy from pinned host memory (a slice of a HostMemory)
// to the device. It returns ErrNotPinned for other memory: the driver reads
// it after the call returns, which Go memory does not allow.
func (s *Stream) CopyHtoD(dst DevicePtr, src []byte) error {
	h, err := s.handle()
	if err != nil {
		return err
	}
	if !isPinned(src) {
		return ErrNotPinned
	}
	if len(src) == 0 {
		return nil
	}
	return check("cuMemcpyHtoDAsync", cu.MemcpyHtoDAsync(s.ctx.h, cu.DevicePtr(dst), bytesPtr(src), uint64(len(src)), h))
}

// CopyDtoH queues a copy from the device into pinned host memory (a slice
// of a HostMemory); see CopyHtoD.
func (s *Stream) CopyDtoH(dst []byte, src DevicePtr) error {
	h, err := s.handle()
	if err != nil {
		return err
	}
	if !isPinned(dst) {
		return ErrNotPinned
	}
	if len(dst) == 0 {
		return nil
	}
	return check("cuMemcpyDtoHAsync", cu.MemcpyDtoHAsync(s.ctx.h, bytesPtr(dst), cu.DevicePtr(src), uint64(len(dst)), h))
}

// CopyDtoD queues a device-to-device copy of n bytes.
func (s *Stream) CopyDtoD(dst, src DevicePtr, n uint64) error {
	h, err := s.handle()
	if err != nil {
		return err
	}
	return check("cuMemcpyDtoDAsync", cu.MemcpyDtoDAsync(s.ctx.h, cu.DevicePtr(dst), cu.DevicePtr(src), n, h))
}

// Copy2D queues a pitched 2D copy. Host sides must be pinned memory.
func (s *Stream) Copy2D(cp Copy2D) error {
	h, err := s.handle()
	if err != nil {
		return err
	}
	if (cp.Src.Host != nil && !isPinned(cp.Src.Host)) || (cp.Dst.Host != nil && !isPinned(cp.Dst.Host)) {
		return ErrNotPinned
	}
	m, err := cp.raw(nil)
	if err != nil {
		return err
	}
	return check("cuMemcpy2DAsync", cu.MemcpyTwoDAsync(s.ctx.h, m, h))
}

// Memset8 queues setting n bytes at p to v.
func (s *Stream) Memset8(p DevicePtr, v uint8, n uint64) error {
	h, err := s.handle()
	if err != nil {
		return err
	}
	return check("cuMemsetD8Async", cu.MemsetD8Async(s.ctx.h, cu.DevicePtr(p), v, n, h))
}

// Memset32 queues setting n 32-bit words at p to v.
func (s *Stream) Memset32(p DevicePtr, v uint32, n uint64) error {
	h, err := s.handle()
	if err != nil {
		return err
	}
	return check("cuMemsetD32Async", cu.MemsetD32Async(s.ctx.h, cu.DevicePtr(p), v, n, h))
}

// Event is a CUDA event: a marker in a stream that the host or other
// streams can wait for, and that can time device work.
type Event struct {
	ctx *Context
	mu  sync.Mutex
	h   cu.Event
	ok  bool
}

// Event creation flags.
const (
	EventDefault       = 0x0
	EventBlockingSync  = 0x1 // host waits sleep instead of spinning
	EventDisableTiming = 0x2 // cheaper, for synchronization only
)

// NewEvent creates an event.
func (c *Context) NewEvent(flags uint32) (*Event, error) {
	if err := c.acquire(); err != nil {
		return nil, err
	}
	h, r := cu.EventCreate(c.h, flags)
	if err := check("cuEventCreate", r); err != nil {
		c.release()
		return nil, err
	}
	return &Event{ctx: c, h: h, ok: true}, nil
}

func (e *Event) handle() (cu.Event, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if !e.ok {
		return cu.Event{}, ErrClosed
	}
	return e.h, nil
}

// Record marks the event at the current end of stream s (nil: the legacy
// default stream).
func (e *Event) Record(s *Stream) error {
	h, err := e.handle()
	if err != nil {
		return err
	}
	var sh cu.Stream
	if s != nil {
		if sh, err = s.handle(); err != nil {
			return err
		}
	}
	return check("cuEventRecord", cu.EventRecord(e.ctx.h, h, sh))
}

// Synchronize waits until the work before the recorded point has finished.
func (e *Event) Synchronize() error {
	h, err := e.handle()
	if err != nil {
		return err
	}
	return check("cuEventSynchronize", cu.EventSynchronize(h))
}

// Done reports whether the recorded point has been reached.
func (e *Event) Done() (bool, error) {
	h, err := e.handle()
	if err != nil {
		return false, err
	}
	switch r := cu.EventQuery(h); r {
	case cu.Success:
		return true, nil
	case cu.ErrNotReady:
		return false, nil
	default:
		return false, check("cuEventQuery", r)
	}
}

// Elapsed returns the device time between two recorded events (start
// before end), with the driver's resolution of about half a microsecond.
// Both must have been created without EventDisableTiming and completed.
func Elapsed(start, end *Event) (time.Duration, error) {
	sh, err := start.handle()
	if err != nil {
		return 0, err
	}
	eh, err := end.handle()
	if err != nil {
		return 0, err
	}
	ms, r := cu.EventElapsedTime(sh, eh)
	if err := check("cuEventElapsedTime", r); err != nil {
		return 0, err
	}
	return time.Duration(float64(ms) * float64(time.Millisecond)), nil
}

// Close destroys the event. It is idempotent.
func (e *Event) Close() error {
	e.mu.Lock()
	if !e.ok {
		e.mu.Unlock()
		return nil
	}
	e.ok = false
	h := e.h
	e.mu.Unlock()
	err := check("cuEventDestroy", cu.EventDestroy(e.ctx.h, h))
	if rerr := e.ctx.release(); err == nil {
		err = rerr
	}
	return err
}

func (e *Event) String() string { return fmt.Sprintf("cuda.Event(%p)", e) }
