//go:build linux

package gfxcuda

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/gfxcuda/gfxcuda/cuda"
)

// fakePeer stands in for the GPU side of a PeerConsumer (peerOps) in the
// CPU tests of its bookkeeping: it hands out numbered frames and logs the
// calls the bookkeeping makes, in order.
type fakePeer struct {
	seq     uint64
	log     []string
	failOn  string // a call that fails ("copy", "release", "done", "next")
	closed  int
	nextErr error
}

func (f *fakePeer) fail(call string) error {
	if f.failOn == call {
		return fmt.Errorf("fake %s failure", call)
	}
	return nil
}

func (f *fakePeer) next(ctx context.Context, s *cuda.Stream) (*Frame, error) {
	if f.nextErr != nil {
		return nil, f.nextErr
	}
	if err := f.fail("next"); err != nil {
		return nil, err
	}
	f.seq++
	f.log = append(f.log, fmt.Sprintf("next %d", f.seq))
	return &Frame{Seq: f.seq, Slot: int(f.seq % 3)}, nil
}

func (f *fakePeer) copyInto(buf int, fr *Frame, s *cuda.Stream) error {
	f.log = append(f.log, fmt.Sprintf("copy %d->buf%d", fr.Seq, buf))
	return f.fail("copy")
}

func (f *fakePeer) releaseAfter(fr *Frame, s *cuda.Stream) error {
	f.log = append(f.log, fmt.Sprintf("release %d", fr.Seq))
	return f.fail("release")
}

func (f *fakePeer) doneWith(buf int, s *cuda.Stream) error {
	f.log = append(f.log, fmt.Sprintf("done buf%d", buf))
	return f.fail("done")
}

func (f *fakePeer) ptr(buf int, fr *Frame) cuda.DevicePtr {
	if buf < 0 {
		return cuda.DevicePtr(0x1000 + fr.Slot)
	}
	return cuda.DevicePtr(0x100 + buf)
}

func (f *fakePeer) size() uint64 { return 64 }
func (f *fakePeer) direct() bool { return true }
func (f *fakePeer) buffers() []cuda.DevicePtr {
	return []cuda.DevicePtr{0x100, 0x101}
}
func (f *fakePeer) close() error { f.closed++; return nil }

func (f *fakePeer) take() string {
	s := strings.Join(f.log, "; ")
	f.log = nil
	return s
}

// aStream is a placeholder stream for the fake (it is never used).
var aStream = new(cuda.Stream)

// TestPeerCopyBookkeeping: in PeerCopy mode the slot goes back to the
// producer right after the copy, each frame takes a free frame buffer, a
// Next with every buffer held fails without taking a frame, buffers are
// reused once released, and bad releases are refused.
func TestPeerCopyBookkeeping(t *testing.T) {
	fk := &fakePeer{}
	pc := newPeerConsumer(fk, PeerCopy, 2)
	ctx := context.Background()
	f1, err := pc.Next(ctx, aStream)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := fk.take(), "next 1; copy 1->buf0; release 1"; got != want {
		t.Errorf("first Next: %q, want %q", got, want)
	}
	f2, err := pc.Next(ctx, aStream)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := fk.take(), "next 2; copy 2->buf1; release 2"; got != want {
		t.Errorf("second Next: %q, want %q", got, want)
	}
	if pc.Ptr(f1) != 0x100 || pc.Ptr(f2) != 0x101 || pc.Ptr(&Frame{}) != 0 {
		t.Errorf("Ptr: %#x %#x %#x", pc.Ptr(f1), pc.Ptr(f2), pc.Ptr(&Frame{}))
	}
	if _, err := pc.Next(ctx, aStream); !errors.Is(err, ErrPeerBuffersHeld) {
		t.Errorf("Next with every buffer held: %v, want ErrPeerBuffersHeld", err)
	}
	if got := fk.take(); got != "" {
		t.Errorf("a refused Next took a frame: %q", got)
	}
	// Out of order is fine in copy mode: the slots went back already.
	if err := pc.Release(f2, aStream); err != nil {
		t.Fatal(err)
	}
	if got, want := fk.take(), "done buf1"; got != want {
		t.Errorf("Release: %q, want %q", got, want)
	}
	if err := pc.Release(f2, aStream); err == nil {
		t.Error("a second Release of a frame succeeded")
	}
	if pc.Ptr(f2) != 0 {
		t.Error("Ptr of a released frame is not 0")
	}
	f3, err := pc.Next(ctx, aStream)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := fk.take(), "next 3; copy 3->buf1; release 3"; got != want {
		t.Errorf("Next after a release: %q, want %q (the released buffer reused)", got, want)
	}
	if pc.Held() != 2 {
		t.Errorf("Held = %d, want 2", pc.Held())
	}
	if err := pc.Release(f1, nil); err == nil {
		t.Error("Release with a nil stream succeeded")
	}
	for _, f := range []*Frame{f1, f3} {
		if err := pc.Release(f, aStream); err != nil {
			t.Fatal(err)
		}
	}
	if err := pc.Close(); err != nil {
		t.Fatal(err)
	}
	if err := pc.Close(); err != nil || fk.closed != 1 {
		t.Errorf("second Close: %v, the GPU side closed %d times", err, fk.closed)
	}
	if _, err := pc.Next(ctx, aStream); !errors.Is(err, ErrClosed) {
		t.Errorf("Next after Close: %v", err)
	}
	if err := pc.Release(f1, aStream); !errors.Is(err, ErrClosed) {
		t.Errorf("Release after Close: %v", err)
	}
}

// TestPeerCopyFailures: a failed copy gives the slot back and keeps the
// buffer free; a failed Next of the ring (the producer's death) is passed
// on and costs no buffer.
func TestPeerCopyFailures(t *testing.T) {
	fk := &fakePeer{failOn: "copy"}
	pc := newPeerConsumer(fk, PeerCopy, 1)
	defer pc.Close()
	ctx := context.Background()
	if _, err := pc.Next(ctx, aStream); err == nil || !strings.Contains(err.Error(), "fake copy failure") {
		t.Fatalf("Next with a failing copy: %v", err)
	}
	if got, want := fk.take(), "next 1; copy 1->buf0; release 1"; got != want {
		t.Errorf("failed copy: %q, want %q (the slot given back)", got, want)
	}
	fk.failOn = ""
	fk.nextErr = ErrProducerGone
	if _, err := pc.Next(ctx, aStream); !errors.Is(err, ErrProducerGone) {
		t.Errorf("Next after the producer's death: %v", err)
	}
	fk.nextErr = nil
	f, err := pc.Next(ctx, aStream)
	if err != nil {
		t.Fatalf("Next after failures (the one buffer must be free): %v", err)
	}
	fk.failOn = "done"
	if err := pc.Release(f, aStream); err == nil {
		t.Error("a failing release succeeded")
	}
	if pc.Held() != 1 {
		t.Errorf("a failed Release dropped the frame: %d held", pc.Held())
	}
	if _, err := pc.Next(ctx, nil); err == nil {
		t.Error("Next with a nil stream succeeded")
	}
}

// TestPeerAccessBookkeeping: in PeerAccess mode Next copies nothing, the
// frame is the slot itself, and the slot goes back at Release.
func TestPeerAccessBookkeeping(t *testing.T) {
	fk := &fakePeer{}
	pc := newPeerConsumer(fk, PeerAccess, 3)
	defer pc.Close()
	ctx := context.Background()
	var fs []*Frame
	for i := 0; i < 5; i++ { // no frame buffers: the ring's slots bound what is held
		f, err := pc.Next(ctx, aStream)
		if err != nil {
			t.Fatal(err)
		}
		fs = append(fs, f)
	}
	if got, want := fk.take(), "next 1; next 2; next 3; next 4; next 5"; got != want {
		t.Errorf("Nexts: %q, want %q", got, want)
	}
	if pc.Ptr(fs[0]) != cuda.DevicePtr(0x1000+fs[0].Slot) {
		t.Errorf("Ptr = %#x, want the slot's", pc.Ptr(fs[0]))
	}
	for _, f := range fs {
		if err := pc.Release(f, aStream); err != nil {
			t.Fatal(err)
		}
	}
	if got, want := fk.take(), "release 1; release 2; release 3; release 4; release 5"; got != want {
		t.Errorf("Releases: %q, want %q", got, want)
	}
}

// TestPeerDeviceNotVisible: the producer's GPU missing from this process
// gives ErrResourceOnOtherGPU, naming the GPU and CUDA_VISIBLE_DEVICES.
func TestPeerDeviceNotVisible(t *testing.T) {
	a, b := cuda.UUID{1, 2, 3}, cuda.UUID{4, 5, 6}
	if i, err := peerDevice(b, []cuda.UUID{a, b}); err != nil || i != 1 {
		t.Errorf("peerDevice of a visible GPU: %d, %v", i, err)
	}
	t.Setenv("CUDA_VISIBLE_DEVICES", "1")
	_, err := peerDevice(b, []cuda.UUID{a})
	if !errors.Is(err, ErrResourceOnOtherGPU) {
		t.Fatalf("peerDevice of an unseen GPU: %v, want ErrResourceOnOtherGPU", err)
	}
	for _, s := range []string{b.String(), "CUDA_VISIBLE_DEVICES=1", "1 CUDA GPUs visible"} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("the error %q does not say %q", err, s)
		}
	}
}

// TestOpenPeerConsumerArguments: what OpenPeerConsumer refuses before it
// needs CUDA.
func TestOpenPeerConsumerArguments(t *testing.T) {
	ctx := context.Background()
	if _, err := OpenPeerConsumer(ctx, nil, "gfxshare1.x", PeerOptions{}); err == nil || !strings.Contains(err.Error(), "nil CUDA context") {
		t.Errorf("nil context: %v", err)
	}
	c := new(cuda.Context) // never used: the checks below come first
	if _, err := OpenPeerConsumer(ctx, c, "gfxshare1.x", PeerOptions{Mode: 7}); err == nil || !strings.Contains(err.Error(), "unknown mode") {
		t.Errorf("bad mode: %v", err)
	}
	if _, err := OpenPeerConsumer(ctx, c, "not a token", PeerOptions{}); err == nil {
		t.Error("a bad token was accepted")
	}
	sh := memfdExport(t, 1, 64)
	if _, err := OpenPeerConsumer(ctx, c, sh.Token(), PeerOptions{}); !errors.Is(err, ErrWrongKind) {
		t.Errorf("a buffer's token: %v, want ErrWrongKind", err)
	}
	if PeerCopy.String() != "copy" || PeerAccess.String() != "access" {
		t.Error("PeerMode names")
	}
}

// TestPeerTake: Take releases the frame of the previous Take (on the
// stream it was given) before taking the next; Drop releases it; a frame
// released meanwhile by Release is not released again.
func TestPeerTake(t *testing.T) {
	fk := &fakePeer{}
	pc := newPeerConsumer(fk, PeerCopy, 2)
	defer pc.Close()
	ctx := context.Background()
	f1, err := pc.Take(ctx, aStream)
	if err != nil {
		t.Fatal(err)
	}
	if pc.Index(f1) != 0 || len(pc.Buffers()) != 2 {
		t.Errorf("Index %d, %d buffers", pc.Index(f1), len(pc.Buffers()))
	}
	f2, err := pc.Take(ctx, aStream)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := fk.take(), "next 1; copy 1->buf0; release 1; done buf0; next 2; copy 2->buf0; release 2"; got != want {
		t.Errorf("two Takes: %q, want %q", got, want)
	}
	if pc.Held() != 1 || pc.Index(f1) != -1 {
		t.Errorf("after two Takes: %d held, Index of the first %d", pc.Held(), pc.Index(f1))
	}
	if err := pc.Release(f2, aStream); err != nil {
		t.Fatal(err)
	}
	fk.take()
	if err := pc.Drop(); err != nil {
		t.Fatal(err)
	}
	if got := fk.take(); got != "" {
		t.Errorf("Drop of a frame released already: %q", got)
	}
	if _, err := pc.Take(ctx, aStream); err != nil {
		t.Fatal(err)
	}
	if err := pc.Drop(); err != nil || pc.Held() != 0 {
		t.Errorf("Drop: %v, %d held", err, pc.Held())
	}
	if err := pc.Drop(); err != nil {
		t.Errorf("second Drop: %v", err)
	}
}
