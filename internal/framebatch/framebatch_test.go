package framebatch

import (
	"context"
	"errors"
	"testing"
)

// stream and ptr stand in for CUDA's stream and device pointer.
type stream struct{ int }
type ptr uintptr

type frame struct {
	slot         int
	seq, dropped uint64
}

// source is a Source of batches of 3 frames over 6 slots whose streams
// are placeholders (no CUDA: Order only records its calls).
type source struct {
	batches, done int
	failDone      int // Done fails this many times first
	orders        [][2]*stream
	on            *stream
}

var errDone = errors.New("done failed")
var errClosed = errors.New("closed")

func (s *source) reader() *Reader[*frame, *stream, ptr] {
	s.on = new(stream)
	return New(Source[*frame, *stream, ptr]{What: "test", Slots: 6,
		Next: func(ctx context.Context, _ *stream) (*Batch[*stream], error) {
			k := s.batches
			s.batches++
			first := 3 * (k % 2)
			return &Batch[*stream]{Slots: []int{first, first + 1, first + 2}, Seq: uint64(3*k + 1), Dropped: uint64(k), On: s.on, Wait: true,
				Done: func() error {
					if s.failDone > 0 {
						s.failDone--
						return errDone
					}
					s.done++
					return nil
				}}, nil
		},
		Ptr:   func(slot int) ptr { return ptr(0x1000 * (slot + 1)) },
		Order: func(from, to *stream) error { s.orders = append(s.orders, [2]*stream{from, to}); return nil },
		Frame: func(slot int, seq, dropped uint64) *frame { return &frame{slot, seq, dropped} },
		Slot:  func(f *frame) int { return f.slot }, Closed: errClosed})
}

// TestReader: frames come in order with Seq and the batch's Dropped on
// its first frame only; another stream is ordered after the batch at Next
// and the batch after it at Release; the batch goes back exactly once,
// after its last frame's release; Next refuses to pass a batch with frames
// held; a failed Done is retried; Close gives back a batch partly handed
// out and is idempotent; Ptr is 0 for no slot.
func TestReader(t *testing.T) {
	ctx := context.Background()
	s := &source{}
	r := s.reader()
	other := new(stream)
	var fs []*frame
	for i := range 3 {
		st := s.on
		if i == 1 {
			st = other
		}
		f, err := r.Next(ctx, st)
		if err != nil {
			t.Fatal(err)
		}
		if want := (frame{i, uint64(i + 1), 0}); *f != want {
			t.Fatalf("frame %d: %+v, want %+v", i, *f, want)
		}
		if r.Ptr(f) != ptr(0x1000*(i+1)) {
			t.Fatalf("frame %d: Ptr %#x", i, r.Ptr(f))
		}
		fs = append(fs, f)
	}
	if len(s.orders) != 1 || s.orders[0] != [2]*stream{s.on, other} {
		t.Fatalf("orders at Next: %v", s.orders)
	}
	if _, err := r.Next(ctx, s.on); !errors.Is(err, ErrFramesHeld) {
		t.Fatalf("Next with the batch held: %v, want ErrFramesHeld", err)
	}
	if err := r.Release(fs[1], other); err != nil {
		t.Fatal(err)
	}
	if len(s.orders) != 2 || s.orders[1] != [2]*stream{other, s.on} {
		t.Fatalf("orders at Release: %v", s.orders)
	}
	if err := r.Release(fs[1], nil); err == nil {
		t.Fatal("a second Release succeeded")
	}
	if err := r.Release(fs[0], nil); err != nil || s.done != 0 {
		t.Fatalf("Release: %v; %d batches given back before the last frame's release", err, s.done)
	}
	s.failDone = 1
	if err := r.Release(fs[2], nil); !errors.Is(err, errDone) {
		t.Fatalf("Release with Done failing: %v", err)
	}
	f, err := r.Next(ctx, nil) // retries Done, then the next batch
	if err != nil || s.done != 1 {
		t.Fatalf("Next after a failed Done: %v, %d given back", err, s.done)
	}
	if want := (frame{3, 4, 1}); *f != want {
		t.Fatalf("first frame of batch 1: %+v, want %+v", *f, want)
	}
	if f, err := r.Next(ctx, nil); err != nil || *f != (frame{4, 5, 0}) {
		t.Fatalf("second frame of batch 1: %+v, %v; want Dropped 0 past a batch's first frame", f, err)
	}
	if r.Ptr(nil) != 0 || r.Ptr(&frame{slot: 6}) != 0 || r.Ptr(&frame{slot: -1}) != 0 {
		t.Fatal("Ptr of no slot is not 0")
	}
	for range 2 {
		if err := r.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if s.done != 2 {
		t.Fatalf("%d batches given back after Close, want 2", s.done)
	}
	if _, err := r.Next(ctx, nil); !errors.Is(err, errClosed) {
		t.Fatalf("Next after Close: %v", err)
	}
	if err := r.Release(f, nil); !errors.Is(err, errClosed) {
		t.Fatalf("Release after Close: %v", err)
	}
}
