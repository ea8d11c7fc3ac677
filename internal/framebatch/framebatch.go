// Package framebatch hands out the frames of batches one by one: the
// gfxcuda.Reader of the face's rings that move frames in batches (a
// learner-mode Ring, a LinkReceiver). It imports no package of the module:
// the face's frame, CUDA's stream and device pointer are its type
// parameters (F, S, P).
package framebatch

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
)

// ErrFramesHeld is returned by Next when every frame of the current batch
// was handed out and some are not yet released: the next batch comes once
// they are.
var ErrFramesHeld = errors.New("gfxcuda: release the frames of the batch before the next")

// Batch is one batch of frames from a Source.
type Batch[S comparable] struct {
	Slots   []int  // its frames' slots, in order
	Seq     uint64 // the Seq of its first frame
	Dropped uint64 // frames skipped right before it
	On      S      // the stream where its frames are ready
	Wait    bool   // another stream must wait for On before reading them
	// Done gives the batch back after the work queued on On; on failure
	// the batch is kept and Done is called again later.
	Done func() error
}

// Source is what a Reader reads, and how it makes and orders frames of
// type F.
type Source[F, S comparable, P any] struct {
	What  string                                            // the reader's name in errors
	Next  func(ctx context.Context, s S) (*Batch[S], error) // the next batch, ready for s
	Ptr   func(slot int) P
	Slots int // slot numbers are 0 to Slots-1
	// Order makes later work on to wait for the work queued on from.
	Order  func(from, to S) error
	Frame  func(slot int, seq, dropped uint64) F
	Slot   func(f F) int
	Closed error // wrapped by Next and Release after Close
}

// Reader hands out the frames of its Source's batches one by one.
type Reader[F, S comparable, P any] struct {
	src    Source[F, S, P]
	mu     sync.Mutex
	cur    *Batch[S]
	handed int // frames of cur handed out
	held   []F // handed out, not released
	closed bool
}

// New returns a Reader over src.
func New[F, S comparable, P any](src Source[F, S, P]) *Reader[F, S, P] {
	return &Reader[F, S, P]{src: src}
}

// Next hands out the current batch's next frame, or gets the next batch
// once every frame of the current one was released; a stream s other than
// the batch's is ordered after it when the batch says so.
func (r *Reader[F, S, P]) Next(ctx context.Context, s S) (F, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	var zero F
	if r.closed {
		return zero, fmt.Errorf("%s.Next: %w", r.src.What, r.src.Closed)
	}
	if r.cur != nil && r.handed == len(r.cur.Slots) {
		if len(r.held) > 0 {
			return zero, fmt.Errorf("%w (%s: %d held)", ErrFramesHeld, r.src.What, len(r.held))
		}
		if err := r.finish(); err != nil {
			return zero, err
		}
	}
	if r.cur == nil {
		b, err := r.src.Next(ctx, s)
		if err != nil {
			return zero, err
		}
		r.cur, r.handed = b, 0
	}
	b := r.cur
	var none S
	if b.Wait && s != none && s != b.On {
		if err := r.src.Order(b.On, s); err != nil {
			return zero, fmt.Errorf("%s.Next: ordering the stream after the batch: %w", r.src.What, err)
		}
	}
	var dropped uint64
	if r.handed == 0 {
		dropped = b.Dropped
	}
	f := r.src.Frame(b.Slots[r.handed], b.Seq+uint64(r.handed), dropped)
	r.handed++
	r.held = append(r.held, f)
	return f, nil
}

// Ptr is the device pointer of frame f's slot (the zero P for no slot).
func (r *Reader[F, S, P]) Ptr(f F) P {
	var zero F
	var none P
	if f == zero {
		return none
	}
	if sl := r.src.Slot(f); sl >= 0 && sl < r.src.Slots {
		return r.src.Ptr(sl)
	}
	return none
}

// Release ends the use of frame f after the work queued on s (nil: the
// batch's stream, the zero S); the batch goes back once all its frames are released.
func (r *Reader[F, S, P]) Release(f F, s S) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return fmt.Errorf("%s.Release: %w", r.src.What, r.src.Closed)
	}
	i := slices.Index(r.held, f)
	if i < 0 {
		return fmt.Errorf("%s.Release of a frame not held (released already, or not from this reader)", r.src.What)
	}
	var none S
	if s != none && s != r.cur.On {
		if err := r.src.Order(s, r.cur.On); err != nil {
			return fmt.Errorf("%s.Release: %w", r.src.What, err)
		}
	}
	r.held = slices.Delete(r.held, i, i+1)
	if r.handed == len(r.cur.Slots) && len(r.held) == 0 {
		return r.finish()
	}
	return nil
}

// finish gives the current batch back; on failure it is kept, and the
// next Next or Close tries again.
func (r *Reader[F, S, P]) finish() error {
	if err := r.cur.Done(); err != nil {
		return fmt.Errorf("%s: giving the batch back: %w", r.src.What, err)
	}
	r.cur = nil
	return nil
}

// Close gives back the batch held, if any, and ends the reader (not its
// source). Idempotent.
func (r *Reader[F, S, P]) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return nil
	}
	r.closed, r.held = true, nil
	if r.cur != nil {
		return r.finish()
	}
	return nil
}
