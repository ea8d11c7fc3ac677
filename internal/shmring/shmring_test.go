//go:build linux

package shmring

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/gfxcuda/gfxcuda/internal/sharenet"
	"golang.org/x/sys/unix"
)

func ctx10(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func tokens(n int) []string {
	var t []string
	for i := 0; i < n; i++ {
		t = append(t, fmt.Sprintf("slot-%d", i))
	}
	return t
}

// newRing makes a ring of o (tokens filled in) closed at the test's end.
func newRing(t testing.TB, o Options) *Ring {
	t.Helper()
	if o.Tokens == nil {
		o.Tokens = tokens(o.Slots)
	}
	r, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

// attach attaches a consumer in this process, which watches the producer
// through the liveness socket as a consumer in another process would;
// it returns the reader and the descriptors Attach handed out besides the
// control block's and the liveness socket's.
func attach(t testing.TB, r *Ring) (*Reader, []int) {
	t.Helper()
	idx, fds, err := r.Attach(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fds[0])
	c, err := Open(fds[0], idx, sharenet.Watch(0, fds[len(fds)-1]))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c, fds[1 : len(fds)-1]
}

// randomUser is n random bytes.
func randomUser(rng *rand.Rand, n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(rng.Uint32())
	}
	return b
}

// TestRoundTrip: a producer and a consumer in two goroutines pass frames
// with random metadata and wait values through rings of random sizes;
// the consumer gets every frame, in order, with its metadata.
func TestRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for round := 0; round < 8; round++ {
		slots := 2 + rng.IntN(MaxSlots-1)
		userMax := 1 + rng.IntN(MaxUserBytes)
		r := newRing(t, Options{Slots: slots, UserBytes: userMax})
		c, _ := attach(t, r)
		const frames = 200
		users := make([][]byte, frames+1)
		waits := make([]uint64, frames+1)
		for i := 1; i <= frames; i++ {
			users[i] = randomUser(rng, rng.IntN(userMax+1))
			waits[i] = rng.Uint64()
		}
		errc := make(chan error, 1)
		go func() {
			for i := 1; i <= frames; i++ {
				s, err := r.Acquire(ctx10(t))
				if err != nil {
					errc <- err
					return
				}
				seq, err := r.Publish(s, users[i], waits[i])
				if err != nil || seq != uint64(i) {
					errc <- fmt.Errorf("Publish: frame %d, %v", seq, err)
					return
				}
			}
			errc <- nil
		}()
		var held []*Frame
		for i := 1; i <= frames; i++ {
			f, err := c.Next(ctx10(t))
			if err != nil {
				t.Fatalf("round %d, frame %d: %v", round, i, err)
			}
			if f.Seq != uint64(i) || f.Dropped != 0 || f.Wait != waits[i] || !bytes.Equal(f.User, users[i]) {
				t.Fatalf("round %d: frame %d: got %d, dropped %d, wait %d, user %x", round, i, f.Seq, f.Dropped, f.Wait, f.User)
			}
			if time.Since(f.Time) > time.Minute || time.Since(f.Time) < 0 {
				t.Fatalf("frame %d published at %v", i, f.Time)
			}
			// Hold a random number of frames at once.
			held = append(held, f)
			if len(held) == slots || rng.IntN(3) == 0 {
				k := 1 + rng.IntN(len(held))
				if err := c.Release(held[:k], nil); err != nil {
					t.Fatal(err)
				}
				held = append(held[:0], held[k:]...)
			}
		}
		if err := c.Release(held, nil); err != nil {
			t.Fatal(err)
		}
		if err := <-errc; err != nil {
			t.Fatal(err)
		}
		if r.NextSeq() != frames+1 {
			t.Fatalf("NextSeq %d after %d frames", r.NextSeq(), frames)
		}
	}
}

// TestBlockingWaitsForRelease: without DropOldest the producer does not
// rewrite a frame a consumer has not released, and writes the oldest
// slot once it is.
func TestBlockingWaitsForRelease(t *testing.T) {
	r := newRing(t, Options{Slots: 2})
	c, _ := attach(t, r)
	slotOf := map[uint64]int{}
	for i := 0; i < 2; i++ {
		s, err := r.Acquire(ctx10(t))
		if err != nil {
			t.Fatal(err)
		}
		seq, err := r.Publish(s, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		slotOf[seq] = s
	}
	short, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if s, err := r.Acquire(short); err == nil {
		t.Fatalf("Acquire got slot %d while both frames are unread", s)
	}
	f, err := c.Next(ctx10(t))
	if err != nil || f.Seq != 1 {
		t.Fatalf("Next: %v, %v", f, err)
	}
	short2, cancel2 := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel2()
	if s, err := r.Acquire(short2); err == nil {
		t.Fatalf("Acquire got slot %d while frame 1 is held", s)
	}
	// A release wakes a waiting producer.
	got := make(chan int, 1)
	go func() {
		s, err := r.Acquire(ctx10(t))
		if err != nil {
			s = -1
		}
		got <- s
	}()
	time.Sleep(10 * time.Millisecond)
	if err := c.Release([]*Frame{f}, nil); err != nil {
		t.Fatal(err)
	}
	if s := <-got; s != slotOf[1] {
		t.Fatalf("Acquire after the release: slot %d, want frame 1's (%d)", s, slotOf[1])
	}
}

// TestDropOldest: a producer of a drop-oldest ring never waits for a slow
// consumer, never rewrites a slot it holds, and the consumer learns how
// many frames it missed.
func TestDropOldest(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	r := newRing(t, Options{Slots: 4, DropOldest: true, UserBytes: 8})
	c, _ := attach(t, r)
	publish := func() (int, uint64) {
		s, err := r.Acquire(ctx10(t))
		if err != nil {
			t.Fatal(err)
		}
		seq, err := r.Publish(s, randomUser(rng, 8), 0)
		if err != nil {
			t.Fatal(err)
		}
		return s, seq
	}
	publish()
	f, err := c.Next(ctx10(t))
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 50; i++ {
		if s, _ := publish(); s == f.Slot {
			t.Fatalf("frame %d rewrote slot %d, held by the consumer", r.NextSeq()-1, s)
		}
	}
	g, err := c.Next(ctx10(t))
	if err != nil {
		t.Fatal(err)
	}
	// Three slots turn over: the oldest of them is three frames back.
	if want := r.NextSeq() - 3; g.Seq != want || g.Dropped != want-2 {
		t.Fatalf("after 50 frames: frame %d (want %d), dropped %d", g.Seq, want, g.Dropped)
	}
	if err := c.Release([]*Frame{f, g}, nil); err != nil {
		t.Fatal(err)
	}
}

// TestLastFramesBeforeClose: a producer that publishes its last batch
// and closes the ring while a consumer is between its scan of the slots
// and its look at the closed flag (as `gfxcuda share` may, closing right
// after its last Produce) loses none of it: the consumer gets every frame,
// then ErrClosed. The hook makes the race happen every time.
func TestLastFramesBeforeClose(t *testing.T) {
	const slots = 3
	r := newRing(t, Options{Slots: slots, UserBytes: 16})
	c, _ := attach(t, r)
	rng := rand.New(rand.NewPCG(5, 6))
	users := [][]byte{nil, randomUser(rng, 16), randomUser(rng, 16), randomUser(rng, 16)}
	// The producer's last batch: every slot acquired, none published yet.
	var batch []int
	for i := 0; i < slots; i++ {
		s, err := r.Acquire(ctx10(t))
		if err != nil {
			t.Fatal(err)
		}
		batch = append(batch, s)
	}
	var perr error
	testHookScanned = func() {
		testHookScanned = nil
		for _, s := range batch {
			if _, err := r.Publish(s, users[r.NextSeq()], 0); err != nil {
				perr = err
			}
		}
		perr = errors.Join(perr, r.Close())
	}
	defer func() { testHookScanned = nil }()
	for seq := uint64(1); seq <= slots; seq++ {
		f, err := c.Next(ctx10(t))
		if err != nil {
			t.Fatalf("frame %d of the batch published before Close: %v", seq, err)
		}
		if f.Seq != seq || !bytes.Equal(f.User, users[seq]) {
			t.Fatalf("frame %d: got sequence %d, metadata %x", seq, f.Seq, f.User)
		}
		if err := c.Release([]*Frame{f}, nil); err != nil {
			t.Fatal(err)
		}
	}
	if perr != nil {
		t.Fatal(perr)
	}
	if _, err := c.Next(ctx10(t)); !errors.Is(err, ErrClosed) {
		t.Fatalf("after the last frame: %v, want ErrClosed", err)
	}
}

// TestConsumerDies: a consumer whose liveness socket hangs up (its
// process died) is dropped, and the slots it held are the producer's
// again; one that closes is dropped too.
func TestConsumerDies(t *testing.T) {
	r := newRing(t, Options{Slots: 2})
	idx, fds, err := r.Attach(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	c, err := Open(fds[0], idx, sharenet.NoWatch())
	unix.Close(fds[0])
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c2, _ := attach(t, r)
	if n := r.Consumers(); n != 2 {
		t.Fatalf("%d consumers, want 2", n)
	}
	for i := 0; i < 2; i++ {
		s, _ := r.Acquire(ctx10(t))
		r.Publish(s, nil, 0)
	}
	if _, err := c.Next(ctx10(t)); err != nil {
		t.Fatal(err)
	}
	c2.Close()
	unix.Close(fds[1]) // the liveness socket: as if the process died
	if n := r.Consumers(); n != 0 {
		t.Fatalf("%d consumers after both left, want 0", n)
	}
	for i := 0; i < 2; i++ {
		if _, err := r.Acquire(ctx10(t)); err != nil {
			t.Fatalf("slot %d after the consumers left: %v", i, err)
		}
	}
	if _, err := c.Next(ctx10(t)); err == nil {
		t.Fatal("Next of a dropped consumer succeeded")
	}
}

// TestProducerGone: a consumer notices a producer that died (its
// liveness socket hung up) without closing the ring.
func TestProducerGone(t *testing.T) {
	r := newRing(t, Options{Slots: 2})
	idx, fds, err := r.Attach(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	defer sharenet.CloseAll(fds)
	pair, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	c, err := Open(fds[0], idx, sharenet.Watch(0, pair[0]))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if c.ProducerGone() {
		t.Fatal("ProducerGone with the producer alive")
	}
	unix.Close(pair[1])
	if _, err := c.Next(ctx10(t)); !errors.Is(err, ErrProducerGone) {
		t.Fatalf("Next: %v, want ErrProducerGone", err)
	}
	if !c.ProducerGone() {
		t.Fatal("not ProducerGone")
	}
}

// fakeGPU records what a ring tells its GPU hooks.
type fakeGPU struct {
	mu       sync.Mutex
	attached map[int]bool
	detached []int
	reused   []string
}

func (g *fakeGPU) Attach(idx int) ([]int, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.attached[idx] = true
	var p [2]int
	if err := unix.Pipe2(p[:], unix.O_CLOEXEC); err != nil {
		return nil, err
	}
	return p[:], nil
}

func (g *fakeGPU) Detach(idx int, next uint64) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.detached = append(g.detached, idx)
}

func (g *fakeGPU) Reuse(slot int, mask uint32, seq uint64) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.reused = append(g.reused, fmt.Sprintf("slot %d: consumers %b released frame %d", slot, mask, seq))
}

// TestGPURelease: releases with a GPU signal go in order, signal once
// for a run of frames, release nothing when the signal fails, and tell
// the producer's GPU hooks which consumers' signals the next write of
// each slot waits for.
func TestGPURelease(t *testing.T) {
	g := &fakeGPU{attached: map[int]bool{}}
	r := newRing(t, Options{Slots: 3, Tokens: append(tokens(3), "semaphore")})
	r.UseGPU(g)
	c0, _ := attach(t, r)
	c1, extra := attach(t, r)
	defer sharenet.CloseAll(extra)
	if len(extra) != 2 || !g.attached[0] || !g.attached[1] {
		t.Fatalf("GPU hooks' descriptors: %v, attached %v", extra, g.attached)
	}
	if !c1.GPUSync() {
		t.Fatal("the reader does not see a GPU ring")
	}
	if toks := c1.Tokens(); len(toks) != 4 || toks[3] != "semaphore" || toks[2] != "slot-2" {
		t.Fatalf("tokens %q", toks)
	}
	for i := 0; i < 3; i++ {
		s, _ := r.Acquire(ctx10(t))
		r.Publish(s, nil, uint64(10+i))
	}
	var fs []*Frame
	for i := 0; i < 3; i++ {
		f, err := c1.Next(ctx10(t))
		if err != nil {
			t.Fatal(err)
		}
		fs = append(fs, f)
	}
	if c1.Held() != 3 {
		t.Fatalf("holds %d frames", c1.Held())
	}
	if c1.Holds([]*Frame{fs[1], fs[0]}, false) {
		t.Fatal("Holds of frames out of order")
	}
	if err := c1.Release([]*Frame{fs[1], fs[0]}, nil); err == nil {
		t.Fatal("Release of frames out of order succeeded")
	}
	boom := errors.New("boom")
	if err := c1.Release(fs[:2], func(uint64) error { return boom }); !errors.Is(err, boom) || c1.Held() != 3 {
		t.Fatalf("a failed signal: %v, %d frames held", err, c1.Held())
	}
	var signalled []uint64
	sig := func(v uint64) error { signalled = append(signalled, v); return nil }
	if err := c1.Release(fs[:2], sig); err != nil || len(signalled) != 1 || signalled[0] != 2 {
		t.Fatalf("Release of frames 1 and 2: %v, signalled %v", err, signalled)
	}
	if c1.Holds([]*Frame{fs[0]}, false) {
		t.Fatal("holds a released frame")
	}
	// Signals go up: frame 3 can still go, after 2.
	if !c1.Holds(fs[2:], true) {
		t.Fatal("frame 3 cannot be released on the GPU after frame 2")
	}
	if err := c1.Release(fs[2:], nil); err != nil {
		t.Fatal(err)
	}
	// Consumer 0 has not read: blocking mode waits for it. Once it has
	// released on the host, the producer rewrites frame 1's slot waiting
	// for consumer 1's signal alone.
	for i := 0; i < 3; i++ {
		f, err := c0.Next(ctx10(t))
		if err != nil {
			t.Fatal(err)
		}
		c0.Release([]*Frame{f}, nil)
	}
	s, err := r.Acquire(ctx10(t))
	if err != nil {
		t.Fatal(err)
	}
	if s != fs[0].Slot || len(g.reused) != 1 || g.reused[0] != fmt.Sprintf("slot %d: consumers 10 released frame 1", s) {
		t.Fatalf("acquired slot %d; reuses %q", s, g.reused)
	}
	r.AnnounceReady(42)
	if c0.ReadyMax() != 42 {
		t.Fatalf("ReadyMax %d", c0.ReadyMax())
	}
	c0.Close()
	r.Consumers()
	if len(g.detached) != 1 || g.detached[0] != 0 {
		t.Fatalf("detached %v after consumer 0 closed", g.detached)
	}
}

// TestPublished: Published tells the frames a slot holds, and not those
// not yet published or being rewritten.
func TestPublished(t *testing.T) {
	r := newRing(t, Options{Slots: 3, DropOldest: true})
	c, _ := attach(t, r)
	for i := 0; i < 2; i++ {
		s, _ := r.Acquire(ctx10(t))
		r.Publish(s, nil, 0)
	}
	for seq, want := range map[uint64]bool{1: true, 2: true, 3: false, 0: false} {
		if got := c.Published(seq); got != want {
			t.Errorf("Published(%d) = %v, want %v", seq, got, want)
		}
	}
	s, _ := r.Acquire(ctx10(t))
	s2, _ := r.Acquire(ctx10(t))
	if c.Published(1) {
		t.Error("frame 1 published while its slot is rewritten")
	}
	r.Unacquire([]int{s2})
	if !c.Published(1) && !c.Published(2) {
		t.Error("Unacquire lost a frame")
	}
	r.Publish(s, nil, 0)
	if !c.Published(3) {
		t.Error("frame 3 not published")
	}
	c.Close()
	if c.Published(3) {
		t.Error("Published after Close")
	}
}

// TestLimits: what New, Attach, Publish and Open refuse.
func TestLimits(t *testing.T) {
	for _, o := range []Options{{Slots: 1}, {Slots: MaxSlots + 1}, {Slots: 2, UserBytes: MaxUserBytes + 1}, {Slots: 2, UserBytes: -1},
		{Slots: 2, Tokens: []string{"a"}}, {Slots: 2, Tokens: []string{"a", "b\nc"}}} {
		if o.Tokens == nil {
			o.Tokens = tokens(o.Slots)
		}
		if r, err := New(o); err == nil {
			r.Close()
			t.Errorf("New(%+v) succeeded", o)
		}
	}
	r := newRing(t, Options{Slots: 2, UserBytes: 4})
	var fds []int
	defer func() { sharenet.CloseAll(fds) }()
	for i := 0; i < MaxConsumers; i++ {
		_, f, err := r.Attach(os.Getpid())
		if err != nil {
			t.Fatal(err)
		}
		fds = append(fds, f...)
	}
	if _, _, err := r.Attach(os.Getpid()); !errors.Is(err, ErrFull) {
		t.Fatalf("consumer %d: %v, want ErrFull", MaxConsumers+1, err)
	}
	if _, err := r.Publish(0, nil, 0); err == nil {
		t.Error("Publish of a slot not acquired")
	}
	s, _ := r.Acquire(ctx10(t))
	if _, err := r.Publish(s, make([]byte, 5), 0); err == nil {
		t.Error("Publish of 5 bytes of metadata, at most 4")
	}
	r.Close()
	if _, _, err := r.Attach(os.Getpid()); !errors.Is(err, ErrClosed) {
		t.Fatalf("Attach to a closed ring: %v", err)
	}
	if _, err := r.Acquire(ctx10(t)); !errors.Is(err, ErrClosed) {
		t.Fatalf("Acquire on a closed ring: %v", err)
	}
	if r.NextSeq() != 0 || r.Close() != nil {
		t.Fatal("a closed ring")
	}
}

// TestOpenMalformed: control blocks with random damage in their header
// or trailer are refused or opened within bounds, never read out of them.
func TestOpenMalformed(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	r := newRing(t, Options{Slots: 3, UserBytes: 24})
	idx, fds, err := r.Attach(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	defer sharenet.CloseAll(fds)
	var st unix.Stat_t
	if err := unix.Fstat(fds[0], &st); err != nil {
		t.Fatal(err)
	}
	good := make([]byte, st.Size)
	if _, err := unix.Pread(fds[0], good, 0); err != nil {
		t.Fatal(err)
	}
	refused := 0
	for i := 0; i < 300; i++ {
		bad := append([]byte(nil), good...)
		switch i % 3 {
		case 0: // header words
			for k := 0; k < 1+rng.IntN(4); k++ {
				bad[rng.IntN(hdrSize)] = byte(rng.Uint32())
			}
		case 1: // truncated or grown
			bad = bad[:rng.IntN(len(bad)+64)%len(bad)]
		case 2: // random bytes
			bad = randomUser(rng, rng.IntN(2*len(good)))
		}
		fd, err := unix.MemfdCreate("bad", unix.MFD_CLOEXEC)
		if err != nil {
			t.Fatal(err)
		}
		unix.Write(fd, bad)
		c, err := Open(fd, rng.IntN(MaxConsumers+2)-1, sharenet.NoWatch())
		unix.Close(fd)
		if err != nil {
			refused++
			continue
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Millisecond)
		c.Next(ctx)
		c.Published(1)
		cancel()
		c.Close()
	}
	if refused < 200 {
		t.Fatalf("only %d of 300 damaged control blocks refused", refused)
	}
	c, err := Open(fds[0], idx, sharenet.NoWatch())
	if err != nil {
		t.Fatalf("the undamaged block: %v", err)
	}
	c.Close()
}

// TestGPUSignalsGoUp: a consumer's "slot free" signals must go up, so a
// GPU release of a frame older than one already released on the GPU is
// refused (a host release of it is not).
func TestGPUSignalsGoUp(t *testing.T) {
	r := newRing(t, Options{Slots: 2})
	c, _ := attach(t, r)
	for i := 0; i < 2; i++ {
		s, _ := r.Acquire(ctx10(t))
		r.Publish(s, nil, 0)
	}
	f1, _ := c.Next(ctx10(t))
	f2, _ := c.Next(ctx10(t))
	nop := func(uint64) error { return nil }
	if err := c.Release([]*Frame{f2}, nop); err != nil {
		t.Fatal(err)
	}
	if c.Holds([]*Frame{f1}, true) {
		t.Error("Holds: frame 1 could go on the GPU after frame 2")
	}
	if err := c.Release([]*Frame{f1}, nop); err == nil {
		t.Fatal("a GPU release of frame 1 after frame 2's succeeded")
	}
	if err := c.Release([]*Frame{f1}, nil); err != nil {
		t.Fatal(err)
	}
}
