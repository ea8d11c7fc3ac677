package gfxcuda

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/gfxcuda/gfxcuda/cuda"
)

// Reader is the one way Go reads frames in CUDA, whatever ring carries
// them: CUDAConsumer (a ring of another process, on its GPU), PeerConsumer
// (a ring of another GPU of the host, the kind a PeerMode), slotring.Reader
// (a slotring.Ring of another process), Ring.Reader (a learner-mode Ring
// in this process) and LinkReceiver.Reader (a link from another GPU or
// host, the transport a LinkOptions field). Each kind's extras stay on its
// concrete type (Array, Take/Drop, Mode, the batches of Ring and
// LinkReceiver).
//
//   - Next waits on the host, bounded by ctx, for the next frame and
//     orders stream s (on the GPU; the host does not wait for it) after the
//     frame's production: work queued on s after Next reads the frame.
//   - Ptr is the frame's memory in s's context (0 when a slot is not a
//     buffer, e.g. a texture: see the concrete type).
//   - Release gives the frame back to its producer once the work queued on
//     s so far is done. Release frames in the order Next returned them.
//   - Close ends the reader; frames still held are given up. Idempotent.
//
// A Reader is for one goroutine at a time. What a nil stream means, how
// many frames may be held at once, and what the end of a ring returns are
// the kind's (see each type).
type Reader interface {
	Next(ctx context.Context, s *cuda.Stream) (*Frame, error)
	Ptr(f *Frame) cuda.DevicePtr
	Release(f *Frame, s *cuda.Stream) error
	Close() error
}

var (
	_ Reader = (*CUDAConsumer)(nil)
	_ Reader = (*PeerConsumer)(nil)
	_ Reader = (*batchReader)(nil)
)

// ErrFramesHeld is returned by the Next of a reader over batches (Ring's,
// LinkReceiver's) whose frames are all handed out while some are not yet
// released: the next batch comes once they are.
var ErrFramesHeld = errors.New("gfxcuda: release the frames of the batch before the next")

// batch is one batch a batchReader hands out frame by frame.
type batch struct {
	slots   []int
	seq     uint64       // Seq of its first frame
	dropped uint64       // frames skipped right before it
	on      *cuda.Stream // where its frames are ready
	wait    bool         // another stream must wait for on before reading them
	done    func() error // gives the batch back after the work queued on on
}

// batchReader is the Reader over a source of batches: Ring (learner mode)
// and LinkReceiver.
type batchReader struct {
	mu     sync.Mutex
	what   string
	cs     cudaSide
	next   func(ctx context.Context, s *cuda.Stream) (*batch, error)
	ptr    func(slot int) cuda.DevicePtr
	slots  int
	cur    *batch
	handed int      // frames of cur handed out
	held   []*Frame // handed out, not released
	closed bool
}

// Next hands out the current batch's next frame, or gets the next batch
// once every frame of the current one was released.
func (r *batchReader) Next(ctx context.Context, s *cuda.Stream) (*Frame, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return nil, fmt.Errorf("gfxcuda: %s.Next: %w", r.what, ErrClosed)
	}
	if r.cur != nil && r.handed == len(r.cur.slots) {
		if len(r.held) > 0 {
			return nil, fmt.Errorf("%w (%s: %d held)", ErrFramesHeld, r.what, len(r.held))
		}
		if err := r.finish(); err != nil {
			return nil, err
		}
	}
	if r.cur == nil {
		b, err := r.next(ctx, s)
		if err != nil {
			return nil, err
		}
		r.cur, r.handed = b, 0
	}
	b := r.cur
	if b.wait && s != nil && s != b.on {
		if err := order(r.cs, b.on, s); err != nil {
			return nil, fmt.Errorf("gfxcuda: %s.Next: ordering the stream after the batch: %w", r.what, err)
		}
	}
	f := &Frame{Slot: b.slots[r.handed], Seq: b.seq + uint64(r.handed)}
	if r.handed == 0 {
		f.Dropped = b.dropped
	}
	r.handed++
	r.held = append(r.held, f)
	return f, nil
}

// Ptr is the device pointer of frame f's slot (0 for no slot).
func (r *batchReader) Ptr(f *Frame) cuda.DevicePtr {
	if f == nil || f.Slot < 0 || f.Slot >= r.slots {
		return 0
	}
	return r.ptr(f.Slot)
}

// Release ends the use of frame f after the work queued on s (nil: the
// batch's stream); the batch goes back once all its frames are released.
func (r *batchReader) Release(f *Frame, s *cuda.Stream) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return fmt.Errorf("gfxcuda: %s.Release: %w", r.what, ErrClosed)
	}
	i := slices.Index(r.held, f)
	if i < 0 {
		return fmt.Errorf("gfxcuda: %s.Release of a frame not held (released already, or not from this reader)", r.what)
	}
	if s != nil && s != r.cur.on {
		if err := order(r.cs, s, r.cur.on); err != nil {
			return fmt.Errorf("gfxcuda: %s.Release: %w", r.what, err)
		}
	}
	r.held = slices.Delete(r.held, i, i+1)
	if r.handed == len(r.cur.slots) && len(r.held) == 0 {
		return r.finish()
	}
	return nil
}

// finish gives the current batch back; on failure it is kept, and the
// next Next or Close tries again.
func (r *batchReader) finish() error {
	if err := r.cur.done(); err != nil {
		return fmt.Errorf("gfxcuda: %s: giving the batch back: %w", r.what, err)
	}
	r.cur = nil
	return nil
}

// Close gives back the batch held, if any, and ends the reader (not the
// ring or the link, which their own Close ends). Idempotent.
func (r *batchReader) Close() error {
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

// Reader returns a Reader over a learner-mode ring (RingOptions.HostObserved)
// that hands out the frames of the batches Next returns one by one: Seq is
// the frame's number + 1, Dropped the frames of the batches skipped before
// it, Ptr its slot buffer's memory. A frame is ready for any stream at
// Next (a nil stream is the learner's, the Device's stream); the batch goes
// back to the producer (Batch.Done) once each of its frames is released,
// after the work queued on the release streams; Next refuses to go past a
// batch with frames still held (ErrFramesHeld). Close ends the reader, not
// the ring. On a ring not in learner mode, Next fails.
func (r *Ring) Reader() Reader {
	return &batchReader{what: "Ring.Reader", cs: r.d.cs, slots: len(r.slots),
		next: func(ctx context.Context, s *cuda.Stream) (*batch, error) {
			b, err := r.Next(ctx, s)
			if err != nil {
				return nil, err
			}
			out := &batch{seq: b.Frame(0) + 1, dropped: b.Skipped * uint64(r.batch), on: b.Stream(), done: b.Done}
			for i := range b.Frames() {
				out.slots = append(out.slots, b.Slot(i))
			}
			return out, nil
		},
		ptr: func(slot int) cuda.DevicePtr {
			if b, ok := r.slots[slot].(*Buffer); ok {
				return b.Ptr()
			}
			return 0
		}}
}
