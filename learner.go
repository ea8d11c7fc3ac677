package gfxcuda

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/gfxcuda/gfxcuda/cuda"
	"github.com/gfxcuda/gfxcuda/format"
	"github.com/gfxcuda/gfxcuda/vulkan"
)

// Learner mode (RingOptions.HostObserved): the producer's completion is
// observed on the host through the Vulkan device's own timeline (the
// serial every submission signals: Device.Completed), the learner's
// release through a CUDA event, so CUDA needs the GPU only for the
// learner's own work. In the default mode every batch costs a CUDA
// semaphore wait and signal on the GPU, which on one GPU is a context switch
// per batch (BENCHMARKS.md).

var errLearnerMode = errors.New("interop: the ring is in learner mode (RingOptions.HostObserved): use Ring.Next, not Consume")

// posState is what a batch position (a batch's worth of slots) holds in
// learner mode.
type posState int

const (
	posFree      posState = iota // nothing, or a batch nobody needs any more
	posProduced                  // a batch submitted, not yet taken or skipped
	posHeld                      // the batch Next returned, until its Done
	posReleasing                 // Done recorded ev on the learner's stream
)

type position struct {
	state  posState
	serial uint64 // the Vulkan submission of the batch it holds (Commands.Serial)
	ev     event  // recorded on the learner's stream when it releases the batch
}

// learner is a learner-mode ring's own state; pos and nSkip are guarded by
// Ring.mu, held by Ring.consMu.
type learner struct {
	shape []int64
	dtype format.DType
	pos   []position
	held  *Batch
	nSkip uint64 // batches skipped
}

// newLearner checks o and sets up learner mode: one event per batch
// position. The ring needs no semaphore of its own: the host observes the
// batches' completion through the serials the Vulkan device's timeline
// reaches (a signal of one more semaphore per batch costs the GPU ≈0.7 µs,
// 2% of a 64×64 × 256-view step on an H200: BENCHMARKS.md).
func (r *Ring) newLearner(o RingOptions) error {
	if r.perRing < 2 {
		return fmt.Errorf("interop: learner-mode ring of %d slots in batches of %d: needs at least 2 batches of slots (one the learner holds, one the producer fills)", len(r.slots), r.batch)
	}
	l := &learner{shape: append([]int64(nil), o.Shape...), dtype: o.DType, pos: make([]position, r.perRing)}
	if l.dtype == (format.DType{}) {
		l.dtype = format.Uint8
	}
	if l.dtype.Bits == 0 || l.dtype.Bits%8 != 0 {
		return fmt.Errorf("interop: learner-mode ring: dtype %v has no byte size", l.dtype)
	}
	elems := int64(1)
	for _, n := range l.shape {
		if n < 0 || n > 1<<40 {
			return fmt.Errorf("interop: learner-mode ring: shape %v", l.shape)
		}
		elems *= n
		if elems > 1<<48 {
			return fmt.Errorf("interop: learner-mode ring: shape %v is too large", l.shape)
		}
	}
	for i, s := range r.slots {
		b, ok := s.(*Buffer)
		if !ok {
			return fmt.Errorf("interop: learner-mode ring slot %d is a %T: the slots must be Buffers (Next returns device pointers)", i, s)
		}
		if o.Shape == nil {
			if int(b.size)%l.dtype.Size() != 0 {
				return fmt.Errorf("interop: learner-mode ring slot %d: %d bytes is no whole number of %v", i, b.size, l.dtype)
			}
			continue
		}
		if need := uint64(elems) * uint64(l.dtype.Size()); need > b.size {
			return fmt.Errorf("interop: learner-mode ring slot %d: a %v tensor of %v needs %d bytes, the buffer has %d", i, l.dtype, l.shape, need, b.size)
		}
	}
	if _, err := r.d.vk.Completed(); err != nil {
		return fmt.Errorf("interop: learner-mode ring: %w", err)
	}
	r.learner = l
	for i := range l.pos {
		var err error
		if l.pos[i].ev, err = r.d.cs.newEvent(); err != nil {
			return err
		}
	}
	return nil
}

// produceLearner is Produce in learner mode. Called with prodMu held.
func (r *Ring) produceLearner(ctx context.Context, record func(c *vulkan.Commands, slot int, frame uint64) error) error {
	r.mu.Lock()
	k := r.nProd
	r.mu.Unlock()
	if err := r.waitFree(ctx, k); err != nil {
		return err
	}
	// The slots' last reader finished (host-observed), and Vulkan's queue
	// orders their release before this batch's acquire: no wait.
	serial, err := r.submit(k, nil, record)
	if err != nil {
		return err
	}
	r.mu.Lock()
	r.nProd++
	p := &r.learner.pos[k%r.perRing]
	p.state, p.serial = posProduced, serial
	r.notify()
	r.mu.Unlock()
	return nil
}

// waitFree waits on the host until batch k's position is free: the batch
// that used it before was skipped, or taken and passed by the learner's
// stream (its event, polled with cuda.Poll, which yields between queries
// for the first millisecond: a learner whose stream has nothing queued
// before the release passes it within microseconds, and at 30 µs steps
// the 8 queued steps last 240 µs, less than one sleep of a Go timer may).
func (r *Ring) waitFree(ctx context.Context, k uint64) error {
	p := &r.learner.pos[k%r.perRing]
	slots := func() string {
		return fmt.Sprintf("slots %d–%d", int(k%r.perRing)*r.batch, int(k%r.perRing+1)*r.batch-1)
	}
	for {
		r.mu.Lock()
		closed, st, ch := r.closed, p.state, r.changed
		r.mu.Unlock()
		if closed {
			return ErrClosed
		}
		switch st {
		case posFree:
			return nil
		case posReleasing:
			released := func() (bool, error) {
				r.mu.Lock()
				closed := r.closed
				r.mu.Unlock()
				if closed {
					return false, ErrClosed
				}
				ok, err := p.ev.done()
				if err != nil {
					return false, fmt.Errorf("querying the learner's release: %w", err)
				}
				return ok, nil
			}
			// Mostly the learner's stream has passed the batch already:
			// one query, and the wait's description is made only for a
			// wait.
			ok, err := released()
			if !ok && err == nil {
				err = cuda.Poll(ctx, "the learner's stream to pass the batch in "+slots(), released)
			}
			if errors.Is(err, ErrClosed) {
				return err
			}
			if err != nil {
				return fmt.Errorf("interop: Ring.Produce: %w", err)
			}
			r.mu.Lock()
			if p.state == posReleasing {
				p.state = posFree
			}
			r.mu.Unlock()
			continue
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return fmt.Errorf("interop: Ring.Produce: the learner has not taken or skipped the batch in %s: %w", slots(), ctx.Err())
		}
	}
}

// Batch is a batch of frames Ring.Next returned to the learner: the newest
// the producer had completed. Its slots are the learner's until Done (or
// the next Next, which calls it): the producer does not reuse them before
// the learner's stream has passed that point.
type Batch struct {
	// Index is the batch's number (0, 1, 2, ...); its frames are numbered
	// Index×B to Index×B + B - 1.
	Index uint64
	// Skipped is the number of batches the learner skipped right before
	// this one (produced and complete, but older than this one).
	Skipped uint64
	r       *Ring
	stream  *cuda.Stream
	done    bool
}

// TensorView is a CUDA tensor in a ring's slot: what DLPack or
// __cuda_array_interface__ describe (contiguous, row-major). The memory is
// ready when the view is returned: no stream needs to wait.
type TensorView struct {
	Ptr   cuda.DevicePtr
	Shape []int64
	DType format.DType
}

// Bytes returns the size of the tensor in bytes.
func (t TensorView) Bytes() uint64 {
	n := uint64(t.DType.Size())
	for _, s := range t.Shape {
		n *= uint64(s)
	}
	return n
}

// Frames returns the number of frames in the batch (the ring's batch size).
func (b *Batch) Frames() int { return b.r.batch }

// Frame returns the number of the batch's frame i.
func (b *Batch) Frame(i int) uint64 { return b.Index*uint64(b.r.batch) + uint64(i) }

// Slot returns the ring slot of the batch's frame i.
func (b *Batch) Slot(i int) int { return int(b.Index%b.r.perRing)*b.r.batch + i }

// Tensor returns the tensor in the slot of the batch's frame i.
func (b *Batch) Tensor(i int) TensorView {
	l := b.r.learner
	buf := b.r.slots[b.Slot(i)].(*Buffer)
	shape := l.shape
	if shape == nil {
		shape = []int64{int64(buf.size) / int64(l.dtype.Size())}
	}
	return TensorView{Ptr: buf.ptr, Shape: append([]int64(nil), shape...), DType: l.dtype}
}

// Stream returns the stream given to Next: the learner's.
func (b *Batch) Stream() *cuda.Stream { return b.stream }

// Done gives the batch's slots back: once the work queued on the
// learner's stream so far has finished (a CUDA event; nothing waits for it
// on the GPU), the producer may reuse them. Queue every use of the batch's
// tensors before Done. Next calls it for the previous batch. It does not
// block. Idempotent; after Close, it does nothing (Close waited for the
// stream).
func (b *Batch) Done() error {
	r := b.r
	r.consMu.Lock()
	defer r.consMu.Unlock()
	return r.release(b)
}

// release is Done, called with consMu held.
func (r *Ring) release(b *Batch) error {
	if b.done {
		return nil
	}
	p := &r.learner.pos[b.Index%r.perRing]
	// A learner stream with nothing queued has passed the batch already:
	// the slots are free now, and no event goes to the GPU (recording one
	// would bring CUDA's context onto the GPU for nothing, costing the
	// producer a context switch).
	idle, err := r.d.cs.streamIdle(b.stream)
	if err != nil {
		return fmt.Errorf("interop: Batch.Done: querying the learner's stream: %w", err)
	}
	next := posFree
	if !idle {
		if err := p.ev.record(b.stream); err != nil {
			return fmt.Errorf("interop: Batch.Done: recording the learner's release: %w", err)
		}
		next = posReleasing
	}
	r.mu.Lock()
	p.state = next
	r.notify()
	r.mu.Unlock()
	b.done = true
	if r.learner.held == b {
		r.learner.held = nil
	}
	return nil
}

// Next is the learner's step in learner mode (RingOptions.HostObserved):
// it releases the batch returned before (Batch.Done), and returns the
// newest batch the producer has completed, as observed on the host through
// the Vulkan device's timeline (its submission's serial). The batch's
// memory is then ready for the learner's stream s (nil: the Device's
// stream) with no GPU wait, and its buffers were released to CUDA by the
// producer's submission. Older complete batches not yet returned are
// skipped (Batch.Skipped, Ring.Skipped) and freed at once. When no batch
// newer than the last one is complete, Next waits on the host, until one
// is or ctx ends (the error then wraps ctx.Err()), or the ring closes
// (ErrClosed).
//
// Use the batch's tensors only on s (or on streams ordered before Done on
// s), and not after the next Next or Done. One learner at a time.
func (r *Ring) Next(ctx context.Context, s *cuda.Stream) (*Batch, error) {
	if r.learner == nil {
		return nil, errors.New("interop: Ring.Next needs a learner-mode ring (RingOptions.HostObserved); use Consume")
	}
	r.consMu.Lock()
	defer r.consMu.Unlock()
	l := r.learner
	if s == nil {
		s = r.d.stream
	}
	if l.held != nil {
		if err := r.release(l.held); err != nil {
			return nil, err
		}
	}
	for {
		r.mu.Lock()
		closed, next, nProd, ch := r.closed, r.nCons, r.nProd, r.changed
		r.mu.Unlock()
		if closed {
			return nil, ErrClosed
		}
		if next >= nProd { // nothing produced since
			select {
			case <-ch:
				continue
			case <-ctx.Done():
				return nil, fmt.Errorf("interop: Ring.Next: no new batch produced: %w", ctx.Err())
			}
		}
		v, err := r.d.vk.Completed()
		if err != nil {
			return nil, fmt.Errorf("interop: Ring.Next: %w", err)
		}
		// The newest complete batch: serials grow with the batches, and
		// a serial reached means every one before it is.
		r.mu.Lock()
		first := l.pos[next%r.perRing].serial
		for newest := nProd - 1; newest+1 > next; newest-- {
			if l.pos[newest%r.perRing].serial > v {
				continue
			}
			// Batches next .. newest are complete: newest is the
			// learner's, the older ones skipped and free.
			for k := next; k < newest; k++ {
				l.pos[k%r.perRing].state = posFree
			}
			l.pos[newest%r.perRing].state = posHeld
			r.nCons = newest + 1
			l.nSkip += newest - next
			r.notify()
			r.mu.Unlock()
			b := &Batch{Index: newest, Skipped: newest - next, r: r, stream: s}
			l.held = b
			return b, nil
		}
		r.mu.Unlock()
		// Batch next is submitted, not finished: wait for the Vulkan
		// queue to pass its serial (CUDA has no part in it), in short
		// slices so that ctx and Close are seen.
		slice := 2 * time.Millisecond
		if dl, ok := ctx.Deadline(); ok {
			slice = min(slice, max(time.Until(dl), 0))
		}
		err = r.d.vk.WaitCompleted(first, slice)
		if cerr := ctx.Err(); cerr != nil {
			return nil, fmt.Errorf("interop: Ring.Next: batch %d not finished by Vulkan: %w", next, cerr)
		}
		if err != nil && !errors.Is(err, vulkan.ErrTimeout) {
			return nil, fmt.Errorf("interop: Ring.Next: %w", err)
		}
	}
}

// Skipped returns the number of batches a learner-mode ring's Next
// skipped (complete, but older than the batch it returned).
func (r *Ring) Skipped() uint64 {
	if r.learner == nil {
		return 0
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.learner.nSkip
}

// closeLearner waits on the host for the learner's stream to pass the
// batch it holds and those it released. Called by Close with prodMu and
// consMu held.
func (r *Ring) closeLearner() error {
	var err error
	if b := r.learner.held; b != nil {
		if rerr := r.release(b); rerr != nil {
			// No event: wait for all of CUDA's work instead.
			err = errors.Join(rerr, r.d.cs.syncContext())
			b.done = true
			r.learner.held = nil
		}
	}
	for i := range r.learner.pos {
		p := &r.learner.pos[i]
		r.mu.Lock()
		st := p.state
		r.mu.Unlock()
		if st == posReleasing {
			err = errors.Join(err, p.ev.synchronize())
		}
		r.mu.Lock()
		p.state = posFree
		r.mu.Unlock()
	}
	return err
}
