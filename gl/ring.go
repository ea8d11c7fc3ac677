package gl

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/gfxcuda/gfxcuda/cuda"
	"github.com/gfxcuda/gfxcuda/internal/egl"
	"github.com/gfxcuda/gfxcuda/vulkan"
)

// RingOptions configure NewRing.
type RingOptions struct {
	// Vulkan is the device whose memory the frames live in; it must be on
	// the GPU GL (and CUDA) run on.
	Vulkan *vulkan.Device
	// FrameBytes is the size of one frame.
	FrameBytes int
	// Batch is how many frames are handed over per synchronization
	// (default 8).
	Batch int
	// Slots is how many frames exist (default 2×Batch, at least Batch+1):
	// GL renders into some while CUDA reads others.
	Slots int
	// Timeout bounds each host wait (default 10 s).
	Timeout time.Duration
	// GPUSync orders GL and CUDA on the GPU, with two timeline semaphores
	// made by Vulkan and shared with GL (GL_NV_timeline_semaphore, the
	// NVIDIA driver) and CUDA, instead of a host wait per batch. It needs
	// the Context's CUDA context; NewRing fails with ErrUnsupported where
	// the GL driver lacks it (Mesa).
	GPUSync bool
}

// ErrRingFull is returned by Next when every slot holds a frame not yet
// consumed: call Consume.
var ErrRingFull = errors.New("gl: every ring slot holds an unconsumed frame: call Consume")

// Ring hands frames rendered by GL to CUDA (or Vulkan) in batches through
// slots of memory the three APIs share (NewSharedBuffer): GL renders each
// frame into the buffer Next returns and calls Submit; every Batch frames
// Submit fences GL's work, and Consume waits for the fences of the
// batches produced so far (one host wait per batch) and hands their frames
// to the consumer, whose CUDA work on the stream is waited for (one CUDA
// event per batch) only when GL comes back to those slots. Nothing is
// mapped or unmapped per frame.
//
// A Ring is used by one producer and one consumer; they may be the same
// goroutine (render Batch frames, Consume, repeat) or two.
type Ring struct {
	c       *Context
	o       RingOptions
	slots   []*SharedBuffer
	slotEv  []*ringEvent // per slot: the consumer's work on it, or nil
	gpu     *ringSems    // with GPUSync
	slotGPU []uint64     // per slot, with GPUSync: the cudaDone value GL waits for before writing it
	free    []*ringEvent // events not in use
	all     []*ringEvent
	names   []egl.Buffer // the slots' GL names, twice over: bufs slices it

	mu      sync.Mutex
	next    int // frames handed out by Next
	sub     int // frames submitted
	fenced  int // frames covered by fences
	done    int // frames consumed
	batches []batch
	closed  bool
}

// ringEvent is a CUDA event recorded after a batch's consumer work,
// shared by the batch's slots.
type ringEvent struct {
	ev   *cuda.Event
	refs int // slots still to wait for it
}

type batch struct {
	first, n int
	fence    egl.Sync
	value    uint64 // with GPUSync: the glDone value signalled after the batch
}

// ringSems are GPUSync's timeline semaphores: glDone (GL signals after a
// batch, CUDA waits) and cudaDone (CUDA signals after consuming, GL waits
// before writing the slots again), each in Vulkan, GL and CUDA.
type ringSems struct {
	vkGL, vkCUDA     *vulkan.Semaphore
	glGL, glCUDA     egl.Semaphore
	cuGL, cuCUDA     *cuda.ExternalSemaphore
	glValue, cuValue uint64 // last values signalled
	glWaited         uint64 // last cudaDone value GL was told to wait for
}

func (c *Context) newRingSems(dev *vulkan.Device) (*ringSems, error) {
	if !c.Info().TimelineSemaphore {
		return nil, fmt.Errorf("%w: GPUSync needs GL_NV_timeline_semaphore, which %s lacks", ErrUnsupported, c.Info().Renderer)
	}
	if c.cuda == nil {
		return nil, ErrNoCUDA
	}
	rs := &ringSems{}
	var err error
	share := func(v **vulkan.Semaphore, g *egl.Semaphore, cu **cuda.ExternalSemaphore) error {
		if *v, err = dev.NewTimelineSemaphore(0, true); err != nil {
			return err
		}
		fd, err := (*v).ExportFD()
		if err != nil {
			return err
		}
		if err := c.doFD(fd, func(e *egl.Context) (err error) {
			*g, err = e.ImportTimelineSemaphoreFD(fd)
			return err
		}); err != nil {
			return err
		}
		if fd, err = (*v).ExportFD(); err != nil {
			return err
		}
		*cu, err = c.cuda.ImportSemaphoreFD(fd, true)
		return err
	}
	if err = share(&rs.vkGL, &rs.glGL, &rs.cuGL); err == nil {
		err = share(&rs.vkCUDA, &rs.glCUDA, &rs.cuCUDA)
	}
	if err != nil {
		rs.close(c, time.Second)
		return nil, fmt.Errorf("gl: sharing timeline semaphores with CUDA: %w", err)
	}
	return rs, nil
}

// close waits (host) for the last values and frees the semaphores.
func (rs *ringSems) close(c *Context, timeout time.Duration) error {
	var first error
	if rs.vkGL != nil && rs.glValue > 0 {
		first = rs.vkGL.Wait(rs.glValue, timeout)
	}
	if rs.vkCUDA != nil && rs.cuValue > 0 {
		first = errors.Join(first, rs.vkCUDA.Wait(rs.cuValue, timeout))
	}
	c.e.Do(func() error {
		for _, s := range []egl.Semaphore{rs.glGL, rs.glCUDA} {
			if s != 0 {
				first = errors.Join(first, c.e.DeleteSemaphore(s))
			}
		}
		return nil
	})
	for _, s := range []*cuda.ExternalSemaphore{rs.cuGL, rs.cuCUDA} {
		if s != nil {
			first = errors.Join(first, s.Close())
		}
	}
	for _, s := range []*vulkan.Semaphore{rs.vkGL, rs.vkCUDA} {
		if s != nil {
			first = errors.Join(first, s.Close())
		}
	}
	return first
}

// bufs lists the GL buffers of frames [first, first+n), n ≤ Slots,
// without allocating.
func (r *Ring) bufs(first, n int) []egl.Buffer {
	i := first % r.o.Slots
	return r.names[i : i+n]
}

// NewRing makes a ring of shared buffers.
func (c *Context) NewRing(o RingOptions) (*Ring, error) {
	if o.Vulkan == nil || o.FrameBytes <= 0 {
		return nil, fmt.Errorf("gl: NewRing needs a Vulkan device and FrameBytes > 0")
	}
	if o.Batch <= 0 {
		o.Batch = 8
	}
	if o.Slots <= 0 {
		o.Slots = 2 * o.Batch
	}
	if o.Slots <= o.Batch {
		return nil, fmt.Errorf("gl: NewRing: %d slots for batches of %d: need more slots than a batch", o.Slots, o.Batch)
	}
	if o.Timeout <= 0 {
		o.Timeout = 10 * time.Second
	}
	r := &Ring{c: c, o: o, slotEv: make([]*ringEvent, o.Slots), slotGPU: make([]uint64, o.Slots)}
	if o.GPUSync {
		var err error
		if r.gpu, err = c.newRingSems(o.Vulkan); err != nil {
			return nil, err
		}
	}
	for i := 0; i < o.Slots; i++ {
		sb, err := c.NewSharedBuffer(o.Vulkan, o.FrameBytes)
		if err != nil {
			r.close()
			return nil, fmt.Errorf("gl: NewRing slot %d: %w", i, err)
		}
		r.slots = append(r.slots, sb)
	}
	for k := 0; k < 2*o.Slots; k++ {
		r.names = append(r.names, egl.Buffer(r.slots[k%o.Slots].GL.name))
	}
	return r, c.addOrDelete(r)
}

// Slots returns the ring's shared buffers, in slot order.
func (r *Ring) Slots() []*SharedBuffer { return append([]*SharedBuffer(nil), r.slots...) }

// Options returns the ring's options, defaults filled in.
func (r *Ring) Options() RingOptions { return r.o }

// Next returns the slot for the next frame (its index and GL buffer), once
// the consumer's work on it has finished. Render into the buffer, then
// call Submit. It returns ErrRingFull when the consumer is Slots frames
// behind.
func (r *Ring) Next() (int, *Buffer, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return 0, nil, ErrClosed
	}
	if r.next != r.sub {
		return 0, nil, errors.New("gl: Ring.Next called twice without Submit")
	}
	if r.next-r.done >= r.o.Slots {
		return 0, nil, ErrRingFull
	}
	i := r.next % r.o.Slots
	if u := r.slotGPU[i]; u > 0 {
		if u > r.gpu.glWaited {
			err := r.c.do(func(e *egl.Context) error {
				if err := e.SetTimelineValue(r.gpu.glCUDA, u); err != nil {
					return err
				}
				// GL waits on the GPU for CUDA's work on every slot up to u.
				return e.WaitSemaphore(r.gpu.glCUDA, r.bufs(0, r.o.Slots), nil, nil)
			})
			if err != nil {
				return 0, nil, fmt.Errorf("gl: Ring.Next: %w", err)
			}
			r.gpu.glWaited = u
		}
		r.slotGPU[i] = 0
	}
	if re := r.slotEv[i]; re != nil {
		if err := waitEvent(re.ev, r.o.Timeout); err != nil {
			return 0, nil, fmt.Errorf("gl: Ring.Next: waiting for the consumer's work on slot %d: %w", i, err)
		}
		r.slotEv[i] = nil
		if re.refs--; re.refs == 0 {
			r.free = append(r.free, re)
		}
	}
	r.next++
	return i, r.slots[i].GL, nil
}

// Submit marks the frame from Next as rendered. Every Batch frames it
// fences GL's work so far (and flushes it to the GPU).
func (r *Ring) Submit() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return ErrClosed
	}
	if r.sub == r.next {
		return errors.New("gl: Ring.Submit without Next")
	}
	r.sub++
	if r.sub-r.fenced >= r.o.Batch {
		return r.fenceLocked()
	}
	return nil
}

// fenceLocked fences the submitted frames not yet fenced.
func (r *Ring) fenceLocked() error {
	n := r.sub - r.fenced
	if n == 0 {
		return nil
	}
	var s egl.Sync
	var v uint64
	err := r.c.do(func(e *egl.Context) (err error) {
		if r.gpu != nil {
			v = r.gpu.glValue + 1
			if err := e.SetTimelineValue(r.gpu.glGL, v); err != nil {
				return err
			}
			if err := e.SignalSemaphore(r.gpu.glGL, r.bufs(r.fenced, n), nil, nil); err != nil {
				return err
			}
			r.gpu.glValue = v
			return nil
		}
		s, err = e.Fence()
		return err
	})
	if err != nil {
		return fmt.Errorf("gl: Ring: %w", err)
	}
	r.batches = append(r.batches, batch{first: r.fenced, n: n, fence: s, value: v})
	r.fenced = r.sub
	return nil
}

// Frame is one frame handed to the consumer.
type Frame struct {
	Index  int           // the frame's number, from 0
	Slot   int           // its slot
	Buffer *SharedBuffer // its memory: Buffer.CUDA.Ptr() in CUDA, Buffer.Vulkan in Vulkan
}

// Consume hands every frame submitted so far to f (a partial batch is
// fenced first), after waiting on the host for GL to finish rendering them
// (one wait, on the last fence, however many batches; with GPUSync and a
// stream: after making s wait for them on the GPU, with no host wait; with
// GPUSync and no stream: one GL fence waited on the host). f may queue CUDA
// work reading the frames on s: Consume records an event on s after f (with
// GPUSync: a semaphore signal), and GL reuses the slots only after it
// completes. With a nil s, the frames are free again when f returns
// (for consumers that finish their work inside f, e.g. with Vulkan's Run).
// It returns the number of frames consumed; with none submitted it
// returns 0 without calling f. f must not call the Ring's methods (the
// Ring is locked while it runs).
func (r *Ring) Consume(s *cuda.Stream, f func(frames []Frame) error) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return 0, ErrClosed
	}
	if err := r.fenceLocked(); err != nil {
		return 0, err
	}
	bs := r.batches
	r.batches = nil
	if len(bs) == 0 {
		return 0, nil
	}
	var err error
	switch {
	case r.gpu != nil && s != nil:
		// The CUDA stream waits on the GPU: no host wait, no GL call.
		err = r.gpu.cuGL.Wait(s, bs[len(bs)-1].value)
	case r.gpu != nil:
		// A consumer without a stream: a GL fence after the signals, waited
		// on the host (a host vkWaitSemaphores on an externally signalled
		// value took ≈ 5 ms on NVIDIA; a GL fence is GL's own).
		err = r.c.do(func(e *egl.Context) error {
			f, err := e.Fence()
			if err != nil {
				return err
			}
			return errors.Join(e.WaitSync(f, r.o.Timeout), e.DeleteSync(f))
		})
	default:
		// GL completes commands in order: the last fence covers the
		// batches before it, so one host wait however many batches.
		err = r.c.do(func(e *egl.Context) error {
			first := e.WaitSync(bs[len(bs)-1].fence, r.o.Timeout)
			for _, b := range bs {
				first = errors.Join(first, e.DeleteSync(b.fence))
			}
			return first
		})
	}
	if err != nil {
		return 0, fmt.Errorf("gl: Ring.Consume: waiting for GL's frames: %w", err)
	}
	frames := make([]Frame, 0, r.sub-r.done)
	for _, b := range bs {
		for k := b.first; k < b.first+b.n; k++ {
			frames = append(frames, Frame{Index: k, Slot: k % r.o.Slots, Buffer: r.slots[k%r.o.Slots]})
		}
	}
	ferr := f(frames)
	if s != nil && r.gpu != nil {
		v := r.gpu.cuValue + 1
		if err := r.gpu.cuCUDA.Signal(s, v); err != nil {
			return 0, errors.Join(ferr, err)
		}
		r.gpu.cuValue = v
		for _, f := range frames {
			r.slotGPU[f.Slot] = v
		}
	} else if s != nil {
		// One event after the consumer's work, shared by its slots.
		var re *ringEvent
		if n := len(r.free); n > 0 {
			re, r.free = r.free[n-1], r.free[:n-1]
		} else {
			ev, err := s.Context().NewEvent(cuda.EventDisableTiming)
			if err != nil {
				return 0, errors.Join(ferr, err)
			}
			re = &ringEvent{ev: ev}
			r.all = append(r.all, re)
		}
		if err := re.ev.Record(s); err != nil {
			r.free = append(r.free, re)
			return 0, errors.Join(ferr, err)
		}
		re.refs = len(frames)
		for _, f := range frames {
			r.slotEv[f.Slot] = re
		}
	}
	r.done += len(frames)
	return len(frames), ferr
}

// waitEvent waits on the host for ev, up to timeout (Event.Wait's
// polling); the error says how long it waited.
func waitEvent(ev *cuda.Event, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	err := ev.Wait(ctx)
	if errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("timed out after %v: %w", timeout, err)
	}
	return err
}

// Close waits for the consumer's CUDA work (up to the timeout) and frees
// the slots. Idempotent.
func (r *Ring) Close() error {
	r.c.remove(r)
	return r.close()
}

func (r *Ring) close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return nil
	}
	r.closed = true
	var first error
	for _, re := range r.all {
		first = errors.Join(first, waitEvent(re.ev, r.o.Timeout))
		first = errors.Join(first, re.ev.Close())
	}
	if r.gpu != nil {
		first = errors.Join(first, r.gpu.close(r.c, r.o.Timeout))
	}
	if len(r.batches) > 0 && r.gpu == nil {
		r.c.do(func(e *egl.Context) error {
			for _, b := range r.batches {
				e.DeleteSync(b.fence)
			}
			return nil
		})
		r.batches = nil
	}
	for _, sb := range r.slots {
		first = errors.Join(first, sb.Close())
	}
	return first
}
