//go:build linux

package gfxcuda

import (
	"context"
	"errors"
	"fmt"
	"github.com/gfxcuda/gfxcuda/link"
	"github.com/gfxcuda/gfxcuda/link/nccltransport"
	"net"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/gfxcuda/gfxcuda/cuda"
	"github.com/gfxcuda/gfxcuda/vulkan"
)

// The NCCL link's own code (link_ends.go: LinkSender.Send, closeLinkEnd;
// link/nccltransport's Transport; the hand-offs of handoff_link.go) on the CPU: real Vulkan
// (lavapipe, validation on) renders into the slots, CUDA is fake
// (fake_test.go: streams of host operations ordered by the real Vulkan
// semaphores), and fakeComm stands in for the NCCL communicator: its sends
// and receives are operations on the fake streams that copy the slots'
// bytes (host-visible Vulkan memory) through a queue. A send reads its slot
// when its stream gets to it, so a render that overwrote a slot before the
// send that last read it had run (a missing GPU-side wait) shows as a
// wrong frame.

// fakeWire is the queue between two fakeComms (one direction).
type fakeWire struct {
	mu      sync.Mutex
	q       [][]byte
	aborted bool
	frozen  bool // sends wait (a peer that stopped sending)
	delay   time.Duration
}

// fakeComm is an nccltransport.Comm on fake CUDA streams.
type fakeComm struct {
	f    *fakeCUDA
	mem  map[cuda.DevicePtr]*vulkan.Buffer // the slots of both ends, by their fake pointer
	wire *fakeWire
	// queued and ran count send operations, to see how many are in flight.
	mu          sync.Mutex
	queued, ran int
	maxInFlight int
}

func (c *fakeComm) Send(s *cuda.Stream, p cuda.DevicePtr, n uint64, peer int) error {
	b := c.mem[p]
	if b == nil {
		return fmt.Errorf("fake NCCL: send from unknown pointer %#x", uint64(p))
	}
	c.mu.Lock()
	c.queued++
	c.maxInFlight = max(c.maxInFlight, c.queued-c.ran)
	c.mu.Unlock()
	w := c.wire
	return c.f.queue(s, fakeOp{what: "ncclSend", ready: func() bool {
		w.mu.Lock()
		defer w.mu.Unlock()
		return !w.frozen || w.aborted
	}, run: func() {
		w.mu.Lock()
		defer w.mu.Unlock()
		c.mu.Lock()
		c.ran++
		c.mu.Unlock()
		if w.aborted {
			return
		}
		time.Sleep(w.delay)
		mem, err := b.Map()
		if err == nil {
			err = b.Invalidate(0, n)
		}
		if err != nil {
			c.f.violation("ncclSend: %v", err)
			return
		}
		w.q = append(w.q, append([]byte(nil), mem[:n]...))
	}})
}

func (c *fakeComm) Recv(s *cuda.Stream, p cuda.DevicePtr, n uint64, peer int) error {
	b := c.mem[p]
	if b == nil {
		return fmt.Errorf("fake NCCL: receive into unknown pointer %#x", uint64(p))
	}
	w := c.wire
	return c.f.queue(s, fakeOp{what: "ncclRecv", ready: func() bool {
		w.mu.Lock()
		defer w.mu.Unlock()
		return len(w.q) > 0 || w.aborted
	}, run: func() {
		w.mu.Lock()
		defer w.mu.Unlock()
		if w.aborted {
			return
		}
		data := w.q[0]
		w.q = w.q[1:]
		mem, err := b.Map()
		if err == nil {
			copy(mem[:n], data)
			err = b.Flush(0, n)
		}
		if err != nil {
			c.f.violation("ncclRecv: %v", err)
		}
	}})
}

func (c *fakeComm) Group(f func() error) error { return f() }
func (c *fakeComm) AsyncError() error {
	c.wire.mu.Lock()
	defer c.wire.mu.Unlock()
	if c.wire.aborted {
		return errors.New("fake NCCL: communicator aborted")
	}
	return nil
}
func (c *fakeComm) Abort() error {
	c.wire.mu.Lock()
	c.wire.aborted = true
	c.wire.mu.Unlock()
	return nil
}
func (c *fakeComm) CloseContext(context.Context) error { return nil }

// fakeSlotBuffer is a Buffer of d whose Vulkan side is host-visible memory
// and whose "CUDA pointer" is ptr (a key for fakeComm).
func fakeSlotBuffer(t testing.TB, d *Device, size uint64, ptr cuda.DevicePtr) *Buffer {
	t.Helper()
	vb, err := d.vk.NewBuffer(vulkan.BufferOptions{Size: size, Heap: vulkan.HeapReadback})
	if err != nil {
		t.Fatal(err)
	}
	b := &Buffer{s: state{d: d}, vk: vb, size: size, ptr: ptr}
	d.mu.Lock()
	d.adopt(b, &b.s, guardBuffer(vb))
	d.mu.Unlock()
	return b
}

// fakeLinkPair is an LinkSender and an LinkReceiver, each on its own
// fake Device (as two processes), joined over a socket pair, with
// fakeComms between them. d and f are the receiver's, ds and fs the
// sender's.
type fakeLinkPair struct {
	d, ds    *Device
	f, fs    *fakeCUDA
	snd      *LinkSender
	rcv      *LinkReceiver
	sc, rc   *fakeComm
	wire     *fakeWire
	sctrl    net.Conn
	pf       *patternFiller
	checkStr *cuda.Stream
}

func newFakeLinkPair(t *testing.T, slots int) *fakeLinkPair {
	t.Helper()
	ds, fs := fakeDevice(t)
	d, f := fakeDevice(t)
	size := linkShape.FrameSize
	if size == 0 {
		s, err := linkShape.Resolve()
		if err != nil {
			t.Fatal(err)
		}
		size = s.FrameSize
	}
	mem := map[cuda.DevicePtr]*vulkan.Buffer{}
	ends := func(base uint64, d *Device, f *fakeCUDA) *linkEnds {
		s, err := f.newStream()
		if err != nil {
			t.Fatal(err)
		}
		e := &linkEnds{d: d, stream: s, size: size}
		for i := 0; i < slots; i++ {
			p := cuda.DevicePtr(base + uint64(i)<<20)
			b := fakeSlotBuffer(t, d, size, p)
			mem[p] = b.vk
			e.slots = append(e.slots, b)
		}
		return e
	}
	se, re := ends(1<<32, ds, fs), ends(2<<32, d, f)
	w := &fakeWire{delay: 50 * time.Microsecond}
	p := &fakeLinkPair{d: d, ds: ds, f: f, fs: fs, wire: w, sc: &fakeComm{f: fs, mem: mem, wire: w}, rc: &fakeComm{f: f, mem: mem, wire: w}}
	a, b := socketPairT(t)
	p.sctrl = a
	ctx := ctx10(t)
	gpu := cuda.UUID(d.vk.Physical().DeviceUUID)
	type res struct {
		l   *link.Link
		err error
	}
	ch := make(chan res, 1)
	go func() {
		l, err := link.OpenReceiver(ctx, b, LinkAccept{Expect: &linkShape}, link.Setup{GPU: gpu,
			Join: func(context.Context, *link.TokenData) (link.Transport, error) {
				return nccltransport.New(re, p.rc, 0), nil
			}})
		ch <- res{l, err}
	}()
	o, err := link.SenderOptions(LinkOptions{Shape: linkShape, Slots: slots, Timeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	sl, err := link.OpenSender(ctx, a, o, link.Setup{GPU: gpu,
		Join: func(context.Context, *link.TokenData) (link.Transport, error) {
			return nccltransport.New(se, p.sc, 1), nil
		}})
	r := <-ch
	if err != nil || r.err != nil {
		t.Fatal(err, r.err)
	}
	p.snd = &LinkSender{d: ds, l: sl, ends: se, token: sl.Tok().Encode()}
	p.rcv = &LinkReceiver{d: d, l: r.l, ends: re}
	t.Cleanup(func() {
		// Unblock what a failed test left queued, then close.
		w.mu.Lock()
		w.frozen = false
		w.mu.Unlock()
		p.snd.Close()
		p.rcv.Close()
	})
	p.pf = newPatternFiller(t, ds.vk, slots, linkShape.Width, linkShape.Height)
	if p.checkStr, err = f.newStream(); err != nil {
		t.Fatal(err)
	}
	// Poison the receiver's slots.
	for _, b := range re.slots {
		m, err := b.vk.Map()
		if err != nil {
			t.Fatal(err)
		}
		copy(m, poisonedBytes(int(size)))
		b.vk.Flush(0, size)
	}
	return p
}

// auto runs both ends' fake CUDA.
func (p *fakeLinkPair) auto(t *testing.T) {
	p.f.auto(t)
	p.fs.auto(t)
}

// send sends frames first… in a batch of n, each rendered by Vulkan.
func (p *fakeLinkPair) send(ctx context.Context, n int) (uint64, error) {
	return p.snd.Send(ctx, n, func(c *vulkan.Commands, first uint64, ss []int) error {
		return p.pf.record(c, first, ss, func(s int) *vulkan.Buffer { return p.snd.Slot(s).Vulkan() })
	})
}

// check checks every texel of batch b's frames. With viaCUDA, the check is
// an operation on a fake CUDA stream after a hand-off of the slots that
// submits nothing to Vulkan (they return to the link from CUDA: its next
// hand-off of them submits nothing either);
// otherwise the host reads them after a Vulkan submission acquired them
// (the link's next hand-off releases them in one submission). It waits for
// the result.
func (p *fakeLinkPair) check(b LinkBatch, viaCUDA bool) error {
	wait, err := p.checkAsync(b, viaCUDA)
	if err != nil {
		return err
	}
	return wait()
}

// checkAsync is check that, via CUDA, only queues the check: wait returns
// its result.
func (p *fakeLinkPair) checkAsync(b LinkBatch, viaCUDA bool) (wait func() error, err error) {
	size := p.rcv.ends.size
	read := func() error {
		for i, s := range b.Slots {
			vb := p.rcv.Slot(s).vk
			if err := vb.Invalidate(0, size); err != nil {
				return err
			}
			m, err := vb.Map()
			if err != nil {
				return err
			}
			if bad := checkPattern(m[:size], b.First+uint64(i)); bad != 0 {
				return fmt.Errorf("frame %d (slot %d): %d of %d texels wrong", b.First+uint64(i), s, bad, size/4)
			}
		}
		return nil
	}
	if !viaCUDA {
		if err := p.d.RunTimeout(20*time.Second, func(*vulkan.Commands) error { return nil }); err != nil {
			return nil, err
		}
		err := read()
		return func() error { return err }, nil
	}
	// LinkReceiver.ToCUDA, not Device.ToCUDA (whose submission acquires
	// every returned slot): the slots, returned by the receive's Done, go
	// to the check's stream with no Vulkan submission, and come back
	// (Done) for the link's next receive into them, which then submits
	// nothing either.
	acc, err := p.rcv.ToCUDA(p.checkStr, b)
	if err != nil {
		return nil, err
	}
	done := make(chan error, 1)
	// A slow kernel: it starts 20 ms after it was queued, letting the
	// other streams run first.
	start := time.Now().Add(20 * time.Millisecond)
	if err := p.f.queue(acc.Stream(), fakeOp{what: "check", ready: func() bool { return time.Now().After(start) }, run: func() { done <- read() }}); err != nil {
		return nil, err
	}
	if err := acc.Done(); err != nil {
		return nil, err
	}
	return func() error {
		select {
		case err := <-done:
			return err
		case <-time.After(20 * time.Second):
			return errors.New("the check never ran")
		}
	}, nil
}

// TestNCCLLinkPipelinedCPU: the sender runs ahead of the fake GPU: Send
// and Receive return while nothing queued on the CUDA side has run (no
// host wait per batch, several batches in flight on both ends), the
// render into a slot waits on the GPU for the send that last read it, and
// every texel of every frame arrives. The receiver reads half its slots
// with Vulkan and half with CUDA, so both its hand-off paths run (one
// release submission; no submission at all).
func TestNCCLLinkPipelinedCPU(t *testing.T) {
	const slots, batch, frames = 16, 8, 400
	p := newFakeLinkPair(t, slots)
	ctx := ctx10(t)

	// Nothing on the CUDA side runs yet: four batches go in flight.
	var checks []func() error
	// receive queues a batch's receives, queues its check on a CUDA
	// stream, and releases it at once.
	receive := func() {
		b, err := p.rcv.Receive(ctx)
		if err != nil {
			t.Fatal(err)
		}
		wait, err := p.checkAsync(b, true)
		if err != nil {
			t.Fatal(err)
		}
		checks = append(checks, wait)
		if err := p.rcv.Release(b); err != nil {
			t.Fatal(err)
		}
	}
	for k := 0; k < 4; k++ {
		if k >= 2 {
			// Credit for batch k: the receiver takes batch k-2. The
			// render of batch k into the sender's slots must wait on the
			// GPU for batch k-2's sends, the receive of batch k into the
			// receiver's for batch k-2's check.
			receive()
		}
		t0 := time.Now()
		if _, err := p.send(ctx, batch); err != nil {
			t.Fatalf("send of batch %d with nothing run on the CUDA side: %v", k, err)
		}
		if el := time.Since(t0); el > 5*time.Second {
			t.Fatalf("send of batch %d waited %v", k, el)
		}
	}
	// The receives of batches 2 and 3 into the slots of 0 and 1 must wait
	// (on the GPU) for the checks of 0 and 1 queued on another stream.
	for k := 2; k < 4; k++ {
		receive()
	}
	p.sc.mu.Lock()
	inFlight := p.sc.queued - p.sc.ran
	p.sc.mu.Unlock()
	if inFlight != 4*batch {
		t.Fatalf("%d sends queued and not run, want %d (4 batches in flight)", inFlight, 4*batch)
	}
	// Now run the fake GPU, and stream the rest with a receiver that
	// checks every frame.
	p.auto(t)
	for k, wait := range checks {
		if err := wait(); err != nil {
			t.Fatalf("batch %d, checked while later batches were in flight: %v", k, err)
		}
	}
	errc := make(chan error, 1)
	go func() {
		for n := 4 * batch; n < frames; n += batch {
			if _, err := p.send(ctx, batch); err != nil {
				errc <- err
				return
			}
		}
		errc <- nil
	}()
	t0 := time.Now()
	got := uint64(4 * batch)
	for got < frames {
		b, err := p.rcv.Receive(ctx)
		if err != nil {
			t.Fatalf("receive after %d frames: %v", got, err)
		}
		if b.First != got {
			t.Fatalf("batch of frame %d, want %d", b.First, got)
		}
		if err := p.check(b, b.Slots[0] >= slots/2); err != nil {
			t.Fatal(err)
		}
		got += uint64(len(b.Slots))
		if err := p.rcv.Release(b); err != nil {
			t.Fatal(err)
		}
	}
	el := time.Since(t0)
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
	if err := p.snd.Close(); err != nil {
		t.Fatalf("sender Close: %v", err)
	}
	if _, err := p.rcv.Receive(ctx); !errors.Is(err, ErrLinkClosed) {
		t.Fatalf("receive after the sender closed: %v, want ErrLinkClosed", err)
	}
	if err := p.rcv.Close(); err != nil {
		t.Fatalf("receiver Close: %v", err)
	}
	p.sc.mu.Lock()
	t.Logf("%d frames of %v checked in %v (%.0f frames/s, lavapipe + fake CUDA); up to %d sends in flight",
		frames-4*batch, linkShape, el.Round(time.Millisecond), float64(frames-4*batch)/el.Seconds(), p.sc.maxInFlight)

	p.sc.mu.Unlock()
}

// TestNCCLLinkCloseInFlightCPU: the sender closes with batches whose sends
// have not run: Close waits for them, the receiver gets every frame
// (checked), then ErrLinkClosed; both Closes return no error.
func TestNCCLLinkCloseInFlightCPU(t *testing.T) {
	p := newFakeLinkPair(t, 8)
	ctx := ctx10(t)
	for k := 0; k < 2; k++ {
		if _, err := p.send(ctx, 4); err != nil {
			t.Fatal(err)
		}
	}
	closed := make(chan error, 1)
	go func() { closed <- p.snd.Close() }()
	time.Sleep(50 * time.Millisecond) // Close waits for the sends; nothing runs them yet
	select {
	case err := <-closed:
		t.Fatalf("sender Close returned (%v) before its queued sends ran", err)
	default:
	}
	p.auto(t)
	n := 0
	for {
		b, err := p.rcv.Receive(ctx)
		if errors.Is(err, ErrLinkClosed) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if err := p.check(b, n > 0); err != nil {
			t.Fatal(err)
		}
		n += len(b.Slots)
		if err := p.rcv.Release(b); err != nil {
			t.Fatal(err)
		}
	}
	if n != 8 {
		t.Fatalf("received %d frames, want 8", n)
	}
	if err := <-closed; err != nil {
		t.Fatalf("sender Close: %v", err)
	}
	if err := p.rcv.Close(); err != nil {
		t.Fatalf("receiver Close: %v", err)
	}
}

// TestNCCLLinkPeerDiesInFlightCPU: the sender's sends never come (a peer
// that stopped) and its control channel drops with two batches announced
// and their receives queued: the receiver's next Receive fails with
// ErrLinkPeerGone within seconds (its receives end with the abort), and
// its Close frees everything without waiting for the Timeout.
func TestNCCLLinkPeerDiesInFlightCPU(t *testing.T) {
	p := newFakeLinkPair(t, 8)
	p.auto(t)
	ctx := ctx10(t)
	p.wire.mu.Lock()
	p.wire.frozen = true
	p.wire.mu.Unlock()
	for k := 0; k < 2; k++ {
		if _, err := p.send(ctx, 4); err != nil {
			t.Fatal(err)
		}
		if _, err := p.rcv.Receive(ctx); err != nil {
			t.Fatal(err)
		}
	}
	// The sender's process "dies": its control channel closes without a
	// close message.
	p.sctrl.Close()
	t0 := time.Now()
	_, err := p.rcv.Receive(ctx)
	if !errors.Is(err, ErrLinkPeerGone) {
		t.Fatalf("receive after the sender died: %v, want ErrLinkPeerGone", err)
	}
	if err := p.rcv.Close(); err != nil {
		t.Fatalf("receiver Close after the peer died: %v", err)
	}
	if el := time.Since(t0); el > 5*time.Second {
		t.Fatalf("the receiver took %v to see the death and close", el)
	}
	// The dead end's own Close (its sends aborted) ends at once too.
	t0 = time.Now()
	p.snd.Close()
	if el := time.Since(t0); el > 5*time.Second {
		t.Fatalf("the sender's Close took %v", el)
	}
}

// TestLinkHandOffCostCPU measures, in one run, the per-batch work of the
// link's ends before and after handToCUDA, on lavapipe with fake CUDA
// (running): before, the sender rendered with Device.RunTimeout (a
// submission for the acquire, one for the render, a host wait) and handed
// the slots over with Device.ToCUDA (a third submission, waiting for all
// of CUDA's earlier work), the receiver used Device.ToCUDA; after, one
// submission for the sender's render and hand-off, none for the receiver.
// Both move the same frames through the fake communicator, and the last
// batch's frames are checked. CPU figures: they show the host's cost and
// the waits removed, not a GPU's throughput.
func TestLinkHandOffCostCPU(t *testing.T) {
	const slots, batch, batches = 16, 8, 40
	p := newFakeLinkPair(t, slots)
	p.auto(t)
	se, re := p.snd.ends, p.rcv.ends
	render := func(first uint64, ss []int) func(c *vulkan.Commands) error {
		return func(c *vulkan.Commands) error {
			return p.pf.record(c, first, ss, func(s int) *vulkan.Buffer { return se.slots[s].Vulkan() })
		}
	}
	res := func(e *linkEnds, ss []int) []Resource {
		r := make([]Resource, len(ss))
		for i, s := range ss {
			r[i] = e.slots[s]
		}
		return r
	}
	run := func(old bool, frame0 uint64) (float64, error) {
		t0 := time.Now()
		for k := uint64(0); k < batches; k++ {
			first := frame0 + k*batch
			ss := make([]int, batch)
			for i := range ss {
				ss[i] = int((first + uint64(i)) % slots)
			}
			var sa, ra *Access
			var err error
			if old {
				if err = p.ds.RunTimeout(20*time.Second, render(first, ss)); err == nil {
					sa, err = p.ds.ToCUDA(se.stream, res(se, ss)...)
				}
			} else {
				sa, err = se.hand(ss, render(first, ss))
			}
			if err != nil {
				return 0, err
			}
			for _, s := range ss {
				if err := p.sc.Send(sa.Stream(), se.slots[s].Ptr(), se.size, 1); err != nil {
					return 0, err
				}
			}
			if old {
				ra, err = p.d.ToCUDA(re.stream, res(re, ss)...)
			} else {
				ra, err = re.hand(ss, nil)
			}
			if err != nil {
				return 0, err
			}
			for _, s := range ss {
				if err := p.rc.Recv(ra.Stream(), re.slots[s].Ptr(), re.size, 0); err != nil {
					return 0, err
				}
			}
			if err := errors.Join(sa.Done(), ra.Done()); err != nil {
				return 0, err
			}
		}
		// Wait for the last receives, and check the last batch.
		ctx := ctx10(t)
		if err := errors.Join(se.Wait(ctx), re.Wait(ctx)); err != nil {
			return 0, err
		}
		el := time.Since(t0)
		last := LinkBatch{First: frame0 + (batches-1)*batch, Slots: make([]int, batch)}
		for i := range last.Slots {
			last.Slots[i] = int((last.First + uint64(i)) % slots)
		}
		if err := p.check(last, false); err != nil {
			return 0, err
		}
		return batches * batch / el.Seconds(), nil
	}
	var olds, news []float64
	frame := uint64(0)
	for rep := 0; rep < 3; rep++ {
		for _, old := range []bool{rep%2 == 0, rep%2 != 0} {
			fps, err := run(old, frame)
			if err != nil {
				t.Fatalf("old %v: %v", old, err)
			}
			frame += batches * batch
			if old {
				olds = append(olds, fps)
			} else {
				news = append(news, fps)
			}
		}
	}
	t.Logf("%v, %d slots, batches of %d, lavapipe + fake CUDA: before (RunTimeout + ToCUDA, ToCUDA) %.0f frames/s, after (handToCUDA) %.0f frames/s (medians of 3, alternating)",
		linkShape, slots, batch, median(olds), median(news))
}

func median(xs []float64) float64 {
	s := slices.Sorted(slices.Values(xs))
	return s[len(s)/2]
}
