package cuda

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/gfxcuda/gfxcuda/internal/cu"
)

// Stream is a CUDA stream: work queued on it runs in order, asynchronously
// with the host. It is safe for concurrent use; Close waits for calls in
// progress on it to return.
type Stream struct {
	ctx     *Context
	life    life
	h       cu.Stream
	foreign bool // made by WrapStream: never synchronized or destroyed by Close
}

// Stream creation flags.
const (
	StreamDefault     = 0x0
	StreamNonBlocking = 0x1 // does not synchronize with the legacy default stream
)

// Special stream handles for WrapStream, with the values cuda.h gives them:
// the context's legacy default stream (CU_STREAM_LEGACY, also what handle 0
// means) and the calling thread's per-thread default stream
// (CU_STREAM_PER_THREAD).
const (
	LegacyDefaultStream    uintptr = 0x1
	PerThreadDefaultStream uintptr = 0x2
)

// NewStream creates a stream. Pass StreamNonBlocking unless the stream must
// order itself with the legacy default stream.
func (c *Context) NewStream(flags uint32) (*Stream, error) {
	if err := c.acquire(); err != nil {
		return nil, err
	}
	h, r := cu.StreamCreate(c.h, flags)
	if err := check("cuStreamCreate", r); err != nil {
		return nil, errors.Join(err, c.release())
	}
	return &Stream{ctx: c, h: h}, nil
}

// WrapStream wraps a stream created by someone else in context c: the
// current stream of PyTorch (torch.cuda.current_stream().cuda_stream), of
// CuPy (cupy.cuda.get_current_stream().ptr), or one of the special handles
// 0 and LegacyDefaultStream (the legacy default stream) or
// PerThreadDefaultStream. The stream must belong to c (for PyTorch and CuPy:
// the device's primary context) and stay alive until the Stream is closed;
// gfxcuda never synchronizes or destroys it: Close only stops using it.
// PerThreadDefaultStream names the stream of whichever OS thread makes the
// call, so use it only from a goroutine locked to its thread
// (runtime.LockOSThread), as a C or Python caller's thread is.
func WrapStream(c *Context, handle uintptr) (*Stream, error) {
	if c == nil {
		return nil, fmt.Errorf("cuda: WrapStream with a nil Context: %w", ErrorInvalidValue)
	}
	if err := c.acquire(); err != nil {
		return nil, err
	}
	return &Stream{ctx: c, h: cu.StreamFromHandle(handle), foreign: true}, nil
}

// Handle returns the raw CUstream (for a wrapped stream, the handle it was
// given). It is borrowed: valid until Close; never destroy it.
func (s *Stream) Handle() uintptr { return s.h.Handle() }

// Foreign reports whether the stream was made by WrapStream.
func (s *Stream) Foreign() bool { return s.foreign }

// use takes a use of the stream for one call.
func (s *Stream) use() (cu.Stream, error) {
	if err := s.life.acquire(); err != nil {
		return cu.Stream{}, err
	}
	return s.h, nil
}

func (s *Stream) done() { s.life.release() }

// Context returns the stream's context.
func (s *Stream) Context() *Context { return s.ctx }

// Close waits for calls in progress on the stream to return, then, for a
// stream made by NewStream, waits for its queued work and destroys it. A
// wrapped stream is left as it is. It is idempotent.
func (s *Stream) Close() error {
	return s.life.shut(func() error {
		var err error
		if !s.foreign {
			err = check("cuStreamSynchronize", cu.StreamSynchronizeIn(s.ctx.h, s.h))
			err = errors.Join(err, check("cuStreamDestroy", cu.StreamDestroy(s.ctx.h, s.h)))
		}
		return errors.Join(err, s.ctx.release())
	})
}

// Synchronize waits until all work queued on the stream has finished. It
// blocks the calling thread with no timeout; Wait takes a deadline.
func (s *Stream) Synchronize() error {
	h, err := s.use()
	if err != nil {
		return err
	}
	defer s.done()
	return check("cuStreamSynchronize", cu.StreamSynchronizeIn(s.ctx.h, h))
}

// Wait waits until all work queued on the stream has finished or ctx is
// done, polling (cuStreamQuery) with a backoff from a few microseconds up to
// a millisecond, so it neither spins a core nor adds much latency. It
// returns ctx.Err() (wrapped) when ctx ends first; the work goes on.
func (s *Stream) Wait(ctx context.Context) error {
	return Poll(ctx, "stream", s.Done)
}

// Done reports whether all work queued on the stream has finished.
func (s *Stream) Done() (bool, error) {
	h, err := s.use()
	if err != nil {
		return false, err
	}
	defer s.done()
	switch r := cu.StreamQueryIn(s.ctx.h, h); r {
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
	h, err := s.use()
	if err != nil {
		return err
	}
	defer s.done()
	eh, err := e.use()
	if err != nil {
		return err
	}
	defer e.done()
	return check("cuStreamWaitEvent", cu.StreamWaitEvent(s.ctx.h, h, eh))
}

// After makes later work on s wait, on the GPU, for the work queued on
// other so far (an event recorded on other, waited for on s), without
// blocking the host. Both streams belong to s's context; After of a stream
// and itself does nothing.
func (s *Stream) After(other *Stream) error {
	if other == nil {
		return errors.New("cuda: Stream.After: nil stream")
	}
	if other == s || other.Handle() == s.Handle() {
		return nil
	}
	ev, err := s.Context().NewEvent(EventDisableTiming)
	if err != nil {
		return err
	}
	defer ev.Close() // the driver keeps it until the wait resolves
	if err := ev.Record(other); err != nil {
		return err
	}
	return s.WaitEvent(ev)
}

// CopyHtoD queues a copy from pinned host memory (a slice of a HostMemory)
// to the device. It returns ErrNotPinned for other memory: the driver reads
// it after the call returns, which Go memory does not allow. The HostMemory
// must stay open until the copy has finished.
func (s *Stream) CopyHtoD(dst DevicePtr, src []byte) error {
	h, err := s.use()
	if err != nil {
		return err
	}
	defer s.done()
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
	h, err := s.use()
	if err != nil {
		return err
	}
	defer s.done()
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
	h, err := s.use()
	if err != nil {
		return err
	}
	defer s.done()
	return check("cuMemcpyDtoDAsync", cu.MemcpyDtoDAsync(s.ctx.h, cu.DevicePtr(dst), cu.DevicePtr(src), n, h))
}

// Copy2D queues a pitched 2D copy. Host sides must be pinned memory.
func (s *Stream) Copy2D(cp Copy2D) error {
	h, err := s.use()
	if err != nil {
		return err
	}
	defer s.done()
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
	h, err := s.use()
	if err != nil {
		return err
	}
	defer s.done()
	return check("cuMemsetD8Async", cu.MemsetD8Async(s.ctx.h, cu.DevicePtr(p), v, n, h))
}

// Memset32 queues setting n 32-bit words at p to v.
func (s *Stream) Memset32(p DevicePtr, v uint32, n uint64) error {
	h, err := s.use()
	if err != nil {
		return err
	}
	defer s.done()
	return check("cuMemsetD32Async", cu.MemsetD32Async(s.ctx.h, cu.DevicePtr(p), v, n, h))
}

// Event is a CUDA event: a marker in a stream that the host or other
// streams can wait for, and that can time device work. It is safe for
// concurrent use; Close waits for calls in progress on it to return.
type Event struct {
	ctx  *Context
	life life
	h    cu.Event
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
		return nil, errors.Join(err, c.release())
	}
	return &Event{ctx: c, h: h}, nil
}

func (e *Event) use() (cu.Event, error) {
	if err := e.life.acquire(); err != nil {
		return cu.Event{}, err
	}
	return e.h, nil
}

func (e *Event) done() { e.life.release() }

// Handle returns the raw CUevent. It is borrowed: valid until Close; never
// destroy it.
func (e *Event) Handle() uintptr { return e.h.Handle() }

// Record marks the event at the current end of stream s (nil: the legacy
// default stream).
func (e *Event) Record(s *Stream) error {
	h, err := e.use()
	if err != nil {
		return err
	}
	defer e.done()
	var sh cu.Stream
	if s != nil {
		if sh, err = s.use(); err != nil {
			return err
		}
		defer s.done()
	}
	return check("cuEventRecord", cu.EventRecord(e.ctx.h, h, sh))
}

// Synchronize waits until the work before the recorded point has finished.
// It blocks the calling thread with no timeout; Wait takes a deadline.
func (e *Event) Synchronize() error {
	h, err := e.use()
	if err != nil {
		return err
	}
	defer e.done()
	return check("cuEventSynchronize", cu.EventSynchronize(h))
}

// Wait waits until the work before the recorded point has finished or ctx
// is done, polling (cuEventQuery) with a backoff from a few microseconds up
// to a millisecond. It returns ctx.Err() (wrapped) when ctx ends first; the
// work goes on. The event may be closed meanwhile: Wait then returns
// ErrClosed.
func (e *Event) Wait(ctx context.Context) error {
	return Poll(ctx, "event", e.Done)
}

// Done reports whether the recorded point has been reached.
func (e *Event) Done() (bool, error) {
	h, err := e.use()
	if err != nil {
		return false, err
	}
	defer e.done()
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
	sh, err := start.use()
	if err != nil {
		return 0, err
	}
	defer start.done()
	eh, err := end.use()
	if err != nil {
		return 0, err
	}
	defer end.done()
	ms, r := cu.EventElapsedTime(sh, eh)
	if err := check("cuEventElapsedTime", r); err != nil {
		return 0, err
	}
	return time.Duration(float64(ms) * float64(time.Millisecond)), nil
}

// Close destroys the event once calls in progress on it have returned. It
// is idempotent.
func (e *Event) Close() error {
	return e.life.shut(func() error {
		err := check("cuEventDestroy", cu.EventDestroy(e.ctx.h, e.h))
		return errors.Join(err, e.ctx.release())
	})
}

func (e *Event) String() string { return fmt.Sprintf("cuda.Event(%p)", e) }
