package gfxcuda

import (
	"context"

	"github.com/gfxcuda/gfxcuda/cuda"
	"github.com/gfxcuda/gfxcuda/internal/framebatch"
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
//   - Ptr is the frame's memory in s's context (0 when the slot is not
//     CUDA memory: a texture, see CUDAConsumer.Array; a host slot of a
//     slotring.Reader, see its Slots).
//   - Release gives the frame back to its producer once the work queued on
//     s so far is done. Release frames in the order Next returned them.
//   - Close ends the reader; frames still held are given up. Idempotent.
//
// A Reader is for one goroutine at a time. What a nil stream means, how
// many frames may be held at once, and what the end of a ring returns are
// the kind's (see each type), as is which Frame fields are set beyond
// Slot and Seq (Time, Wait and User are the shared rings' only).
type Reader interface {
	Next(ctx context.Context, s *cuda.Stream) (*Frame, error)
	Ptr(f *Frame) cuda.DevicePtr
	Release(f *Frame, s *cuda.Stream) error
	Close() error
}

var (
	_ Reader = (*CUDAConsumer)(nil)
	_ Reader = (*PeerConsumer)(nil)
	_ Reader = (*framebatch.Reader[*Frame, *cuda.Stream, cuda.DevicePtr])(nil)
)

// ErrFramesHeld is returned by the Next of a reader over batches (Ring's,
// LinkReceiver's) whose frames are all handed out while some are not yet
// released: the next batch comes once they are.
var ErrFramesHeld = framebatch.ErrFramesHeld

// batchReader is the Reader what over batches next, of slots slots at ptr,
// on d's streams.
func batchReader(what string, d *Device, slots int, ptr func(int) cuda.DevicePtr,
	next func(ctx context.Context, s *cuda.Stream) (*framebatch.Batch[*cuda.Stream], error)) Reader {
	return framebatch.New(framebatch.Source[*Frame, *cuda.Stream, cuda.DevicePtr]{What: "gfxcuda: " + what, Next: next, Ptr: ptr, Slots: slots,
		Order: func(from, to *cuda.Stream) error { return order(d.cs, from, to) },
		Frame: func(slot int, seq, dropped uint64) *Frame { return &Frame{Slot: slot, Seq: seq, Dropped: dropped} },
		Slot:  func(f *Frame) int { return f.Slot }, Closed: ErrClosed})
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
	return batchReader("Ring.Reader", r.d, len(r.slots), func(slot int) cuda.DevicePtr {
		if b, ok := r.slots[slot].(*Buffer); ok {
			return b.Ptr()
		}
		return 0
	}, func(ctx context.Context, s *cuda.Stream) (*framebatch.Batch[*cuda.Stream], error) {
		b, err := r.Next(ctx, s)
		if err != nil {
			return nil, err
		}
		out := &framebatch.Batch[*cuda.Stream]{Seq: b.Frame(0) + 1, Dropped: b.Skipped * uint64(r.batch), On: b.Stream(), Done: b.Done}
		for i := range b.Frames() {
			out.Slots = append(out.Slots, b.Slot(i))
		}
		return out, nil
	})
}
