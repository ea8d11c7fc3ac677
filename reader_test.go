//go:build linux

package gfxcuda

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gfxcuda/gfxcuda/bench/testpattern"
	"github.com/gfxcuda/gfxcuda/cuda"
	"github.com/gfxcuda/gfxcuda/link"
	"github.com/gfxcuda/gfxcuda/vulkan"
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

// readAll runs n frames through rd with the Reader's verbs alone: produce
// makes frame i (0-based) and returns its expected bytes; each frame is
// read on stream s from Ptr into pinned host memory poisoned first, every
// byte compared, then released on s.
func readAll(t *testing.T, rd Reader, s *cuda.Stream, host *cuda.HostMemory, n int, produce func(i int) ([]byte, error)) {
	t.Helper()
	ctx := ctx10(t)
	for i := range n {
		want, err := produce(i)
		if err != nil {
			t.Fatalf("producing frame %d: %v", i, err)
		}
		got := host.Bytes()[:len(want)]
		f, err := readFrame(ctx, rd, s, s, func(f *Frame, p cuda.DevicePtr) error {
			copy(got, poisonedBytes(len(got)))
			return s.CopyDtoH(got, p)
		})
		if err != nil {
			t.Fatalf("frame %d: %v", i, err)
		}
		if err := s.Wait(ctx); err != nil {
			t.Fatal(err)
		}
		if f.Seq != uint64(i)+1 {
			t.Fatalf("frame %d has Seq %d", i, f.Seq)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("frame %d: bytes differ from what was produced", i)
		}
	}
	for range 2 {
		if err := rd.Close(); err != nil {
			t.Fatalf("Close: %v", err)
		}
	}
}

// TestGPUReaders runs every Reader of this package through the same verbs
// (Next, Ptr, Release, Close) on the GPU, each frame's bytes random, read
// back by CUDA and compared in full: CUDAConsumer and PeerConsumer (both
// modes) over a Producer in this process, Ring.Reader over a learner-mode
// ring, LinkReceiver.Reader over an NCCL loopback (skipped without NCCL).
// slotring's Reader has its own (slotring_gpu_test.go).
func TestGPUReaders(t *testing.T) {
	const frames = 24
	t.Run("shared", func(t *testing.T) {
		vd := vkDevice(t)
		needCUDAOn(t, vd)
		const w, h = 256, 128
		dev, err := cuda.DeviceByUUID(cuda.UUID(vd.Physical().DeviceUUID))
		if err != nil {
			t.Fatal(err)
		}
		cx, err := dev.PrimaryContext()
		if err != nil {
			t.Fatal(err)
		}
		defer cx.Close()
		s, err := cx.NewStream(cuda.StreamNonBlocking)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		host, err := cx.AllocHost(w * h * 4)
		if err != nil {
			t.Fatal(err)
		}
		defer host.Close()
		for _, kind := range []string{"CUDAConsumer", "PeerCopy", "PeerAccess"} {
			t.Run(kind, func(t *testing.T) {
				p, record := peerBufferProducer(t, vd, 2, 1, w, h)
				defer p.Close()
				var rd Reader
				var err error
				switch kind {
				case "CUDAConsumer":
					rd, err = OpenCUDAConsumer(ctx10(t), cx, p.Token())
				case "PeerCopy":
					rd, err = OpenPeerConsumer(ctx10(t), cx, p.Token(), PeerOptions{Mode: PeerCopy})
				default:
					rd, err = OpenPeerConsumer(ctx10(t), cx, p.Token(), PeerOptions{Mode: PeerAccess})
				}
				if err != nil {
					t.Fatal(err)
				}
				readAll(t, rd, s, host, frames, func(i int) ([]byte, error) {
					// The pattern is random-seeded per frame (the
					// producer's record returns it).
					var want []byte
					_, err := p.Produce(ctx10(t), func(c *vulkan.Commands, slot int, seq uint64) ([]byte, error) {
						u, err := record(c, slot, seq)
						want = expectedPattern(w, h, seq)
						return u, err
					})
					return want, err
				})
			})
		}
	})
	t.Run("Ring", func(t *testing.T) {
		d := openDevice(t)
		const size = 1 << 16
		var slots []Resource
		for range 4 {
			b, err := d.NewBuffer(size)
			if err != nil {
				t.Fatal(err)
			}
			slots = append(slots, b)
		}
		r, err := d.NewRingWith(slots, RingOptions{Batch: 1, HostObserved: true})
		if err != nil {
			t.Fatal(err)
		}
		defer closeT(t, r)
		s, err := d.CUDA().NewStream(cuda.StreamNonBlocking)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		readAll(t, r.Reader(), s, pinned(t, d, size), frames, func(i int) ([]byte, error) {
			v := rng.Uint32()
			err := r.Produce(ctx10(t), func(c *vulkan.Commands, slot int, frame uint64) error {
				c.FillBuffer(r.Slot(slot).(*Buffer).Vulkan(), 0, 0, v)
				return c.Err()
			})
			return bytes.Repeat(binary.LittleEndian.AppendUint32(nil, v), size/4), err
		})
	})
	t.Run("Link", func(t *testing.T) {
		d := needNCCLDevice(t)
		const size = 1 << 16
		snd, rcv, err := d.NewLinkLoopback(ctx10(t), LinkOptions{Shape: LinkShape{FrameSize: size}, Slots: 4})
		if err != nil {
			t.Fatal(err)
		}
		defer closeT(t, rcv)
		defer closeT(t, snd)
		s, err := d.CUDA().NewStream(cuda.StreamNonBlocking)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		for i := range rcv.Slots() {
			if err := rcv.Slot(i).Map(s, func(p cuda.DevicePtr, s *cuda.Stream) error { return s.Memset32(p, 0xcdcdcdcd, size/4) }); err != nil {
				t.Fatal(err)
			}
		}
		readAll(t, rcv.Reader(), s, pinned(t, d, size), frames, func(i int) ([]byte, error) {
			v := rng.Uint32()
			_, err := snd.Send(ctx10(t), 1, func(c *vulkan.Commands, first uint64, ss []int) error {
				c.FillBuffer(snd.Slot(ss[0]).Vulkan(), 0, 0, v)
				return c.Err()
			})
			return bytes.Repeat(binary.LittleEndian.AppendUint32(nil, v), size/4), err
		})
	})
}

// expectedPattern is the test pattern of frame seq, w×h RGBA8 texels
// (what checkPattern checks).
func expectedPattern(w, h int, seq uint64) []byte {
	seed := testpattern.Seed(seq)
	b := make([]byte, 0, w*h*4)
	for i := range w * h {
		b = binary.LittleEndian.AppendUint32(b, testpattern.Texel(uint32(i), seed))
	}
	return b
}

// TestLinkUnknownTransport: a transport this build does not have is
// refused by every constructor of a link before anything is made (NCCL
// is not loaded, the fake Device's CUDA side is not called), "" and
// LinkNCCL name the default; the deprecated NCCL names are the same
// types and calls.
func TestLinkUnknownTransport(t *testing.T) {
	d, _ := fakeDevice(t)
	c1, c2 := socketPairT(t)
	defer c1.Close()
	defer c2.Close()
	o := LinkOptions{Shape: linkShape, Transport: "carrier-pigeon"}
	if _, err := d.NewLinkSender(context.Background(), c1, o); err == nil || !strings.Contains(err.Error(), "unknown transport") {
		t.Fatalf("NewLinkSender: %v", err)
	}
	if _, err := d.NewNCCLSender(context.Background(), c1, o); err == nil || !strings.Contains(err.Error(), "unknown transport") {
		t.Fatalf("NewNCCLSender: %v", err)
	}
	if _, _, err := d.NewLinkLoopback(context.Background(), o); err == nil || !strings.Contains(err.Error(), "unknown transport") {
		t.Fatalf("NewLinkLoopback: %v", err)
	}
	if _, err := d.NewLinkToken(o); err == nil || !strings.Contains(err.Error(), "unknown transport") {
		t.Fatalf("NewLinkToken: %v", err)
	}
	if _, err := d.NewLinkReceiver(context.Background(), c1, LinkAccept{Transport: "carrier-pigeon"}); err == nil || !strings.Contains(err.Error(), "unknown transport") {
		t.Fatalf("NewLinkReceiver: %v", err)
	}
	for _, tr := range []LinkTransport{"", LinkNCCL} {
		if got, err := link.CheckTransport(tr); got != LinkNCCL || err != nil {
			t.Errorf("CheckTransport(%q): %q, %v", tr, got, err)
		}
	}
	var _ *LinkSender = (*NCCLSender)(nil)
	var _ *LinkReceiver = (*NCCLReceiver)(nil)
}
