package gfxcuda

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/gfxcuda/gfxcuda/cuda"
)

// readFrame is one step of a Reader's verbs: Next on s, a check of the
// frame (queued on s, reading at Ptr), Release on rel. It returns the
// frame.
func readFrame(ctx context.Context, rd Reader, s, rel *cuda.Stream, check func(f *Frame, p cuda.DevicePtr) error) (*Frame, error) {
	f, err := rd.Next(ctx, s)
	if err != nil {
		return nil, err
	}
	p := rd.Ptr(f)
	if p == 0 {
		return nil, fmt.Errorf("frame %d: Ptr 0", f.Seq)
	}
	if err := check(f, p); err != nil {
		return nil, err
	}
	return f, rd.Release(f, rel)
}

// TestLinkReaderCPU: LinkReceiver.Reader over the fake link pair (real
// Vulkan renders each frame, fake CUDA streams and communicator move it):
// every frame comes once, in order, Seq its number + 1, at Ptr its slot,
// with every texel right when read on the stream Next was given (even a
// stream other than the batch's, which Next orders after it); the batch
// goes back only when all its frames are released (Next refuses to go on
// before: ErrFramesHeld); after the sender's close Next returns
// ErrLinkClosed; Close is idempotent. The fake stands in for CUDA to test
// the reader's bookkeeping and ordering only.
func TestLinkReaderCPU(t *testing.T) {
	const slots, batch, frames = 4, 2, 40
	p := newFakeLinkPair(t, slots)
	p.auto(t)
	ctx := ctx10(t)
	other, err := p.f.newStream()
	if err != nil {
		t.Fatal(err)
	}
	errc := make(chan error, 1)
	go func() {
		for n := 0; n < frames; n += batch {
			if _, err := p.send(ctx, batch); err != nil {
				errc <- err
				return
			}
		}
		errc <- p.snd.Close()
	}()
	rd := p.rcv.Reader()
	size := p.rcv.ends.size
	// check reads frame f's slot on stream s (a fake CUDA operation after
	// the work queued there) and waits for the result.
	check := func(s *cuda.Stream) func(f *Frame, ptr cuda.DevicePtr) error {
		return func(f *Frame, ptr cuda.DevicePtr) error {
			if want := p.rcv.Slot(f.Slot).Ptr(); ptr != want {
				return fmt.Errorf("frame %d: Ptr %#x, want slot %d's %#x", f.Seq, ptr, f.Slot, want)
			}
			done := make(chan error, 1)
			if err := p.f.queue(s, fakeOp{what: "check", run: func() {
				vb := p.rcv.Slot(f.Slot).vk
				m, err := vb.Map()
				if err == nil {
					err = vb.Invalidate(0, size)
				}
				if err == nil {
					if bad := checkPattern(m[:size], f.Seq-1); bad != 0 {
						err = fmt.Errorf("frame %d (slot %d): %d of %d texels wrong", f.Seq-1, f.Slot, bad, size/4)
					}
				}
				done <- err
			}}); err != nil {
				return err
			}
			select {
			case err := <-done:
				return err
			case <-time.After(20 * time.Second):
				return errors.New("the check never ran")
			}
		}
	}
	for n := uint64(0); n < frames; n += batch {
		// Both frames of the batch held: Next refuses to go on.
		f0, err := rd.Next(ctx, p.checkStr)
		if err != nil {
			t.Fatalf("frame %d: %v", n, err)
		}
		f1, err := rd.Next(ctx, other) // ordered after the batch's stream
		if err != nil {
			t.Fatalf("frame %d: %v", n+1, err)
		}
		if f0.Seq != n+1 || f1.Seq != n+2 {
			t.Fatalf("frames of seq %d and %d, want %d and %d", f0.Seq, f1.Seq, n+1, n+2)
		}
		if _, err := rd.Next(ctx, p.checkStr); !errors.Is(err, ErrFramesHeld) {
			t.Fatalf("Next with the batch's frames held: %v, want ErrFramesHeld", err)
		}
		if err := check(other)(f1, rd.Ptr(f1)); err != nil {
			t.Fatal(err)
		}
		if err := check(p.checkStr)(f0, rd.Ptr(f0)); err != nil {
			t.Fatal(err)
		}
		if err := rd.Release(f1, other); err != nil {
			t.Fatal(err)
		}
		if err := rd.Release(f1, other); err == nil {
			t.Fatal("a second Release of a frame succeeded")
		}
		if err := rd.Release(f0, p.checkStr); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := rd.Next(ctx, p.checkStr); !errors.Is(err, ErrLinkClosed) {
		t.Fatalf("Next after the sender's last frame: %v, want ErrLinkClosed", err)
	}
	if err := <-errc; err != nil {
		t.Fatalf("sender: %v", err)
	}
	for range 2 {
		if err := rd.Close(); err != nil {
			t.Fatalf("reader Close: %v", err)
		}
	}
	if _, err := rd.Next(ctx, p.checkStr); !errors.Is(err, ErrClosed) {
		t.Fatalf("Next after Close: %v, want ErrClosed", err)
	}
	if err := p.rcv.Close(); err != nil {
		t.Fatalf("receiver Close: %v", err)
	}
}
