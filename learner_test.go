package gfxcuda

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gfxcuda/gfxcuda/cuda"
	"github.com/gfxcuda/gfxcuda/format"
	"github.com/gfxcuda/gfxcuda/vulkan"
)

// Learner mode (RingOptions.HostObserved) on the CPU: real Vulkan
// (lavapipe, with validation), fake CUDA whose streams and events run only
// when the test says (fake_test.go).

// writes records which frames the producer recorded into which slots.
type writes struct {
	mu     sync.Mutex
	slots  []int
	frames []uint64
}

func (w *writes) recorder(r **Ring) func(c *vulkan.Commands, slot int, frame uint64) error {
	return func(c *vulkan.Commands, slot int, frame uint64) error {
		w.mu.Lock()
		w.slots = append(w.slots, slot)
		w.frames = append(w.frames, frame)
		w.mu.Unlock()
		return fill(c, *r, slot, frame)
	}
}

func (w *writes) count() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.frames)
}

func learnerRing(t *testing.T, d *Device, slots, batch int) *Ring {
	t.Helper()
	r, err := d.NewRingWith(ringBuffers(t, d, slots), RingOptions{Batch: batch, HostObserved: true})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// waitBatches waits on the host until a learner-mode ring's first n
// batches have finished on Vulkan (the serial of batch n-1).
func waitBatches(r *Ring, n uint64, timeout time.Duration) error {
	r.mu.Lock()
	s := r.learner.pos[(n-1)%r.perRing].serial
	r.mu.Unlock()
	return r.d.vk.WaitCompleted(s, timeout)
}

func ctxFor(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// The producer never records into slots the learner holds, nor into slots
// it released until its stream has passed them; skipped batches are free
// at once; no CUDA work is needed for the producer's batches to finish.
func TestLearnerProducerNeverOverwritesHeldSlots(t *testing.T) {
	d, f := fakeDevice(t)
	var r *Ring
	r = learnerRing(t, d, 2, 1)
	var w writes
	rec := w.recorder(&r)
	ls, _ := f.newStream() // the learner's stream: runs only when the test says
	for range 2 {
		if err := r.Produce(ctxFor(t, 5*time.Second), rec); err != nil {
			t.Fatal(err)
		}
	}
	// No CUDA stream has run: the batches finish on Vulkan alone.
	if err := waitBatches(r, 2, 20*time.Second); err != nil {
		t.Fatalf("the producer's batches did not finish without CUDA: %v", err)
	}
	b, err := r.Next(ctxFor(t, 5*time.Second), ls)
	if err != nil {
		t.Fatal(err)
	}
	if b.Index != 1 || b.Skipped != 1 || b.Slot(0) != 1 || b.Frame(0) != 1 || b.Frames() != 1 || b.Stream() != ls {
		t.Fatalf("Next: batch %d (skipped %d, slot %d, frame %d), want the newest, batch 1 in slot 1, skipping 1", b.Index, b.Skipped, b.Slot(0), b.Frame(0))
	}
	// The learner queues work reading batch 1 on its stream (not run yet).
	if err := f.queue(ls, fakeOp{what: "learner reads batch 1", run: func() {}}); err != nil {
		t.Fatal(err)
	}
	// Batch 0 was skipped: its slot is free with nothing run on CUDA.
	if err := r.Produce(ctxFor(t, 5*time.Second), rec); err != nil {
		t.Fatalf("Produce into the skipped batch's slot: %v", err)
	}
	// Slot 1 is the learner's.
	n := w.count()
	if err := r.Produce(ctxFor(t, 100*time.Millisecond), rec); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Produce into the slot the learner holds: %v, want context.DeadlineExceeded", err)
	}
	if w.count() != n {
		t.Fatal("the producer recorded into the slot the learner holds")
	}
	// Next releases batch 1 with an event on the learner's stream, whose
	// work has not run: the slot stays the learner's.
	if b, err = r.Next(ctxFor(t, 20*time.Second), ls); err != nil {
		t.Fatal(err)
	}
	if b.Index != 2 || b.Skipped != 0 {
		t.Fatalf("Next: batch %d, skipped %d; want 2, 0", b.Index, b.Skipped)
	}
	err = r.Produce(ctxFor(t, 100*time.Millisecond), rec)
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "waiting for the learner's stream to pass the batch in slots 1–1") {
		t.Fatalf("Produce into a slot the learner's stream still reads: %v, want context.DeadlineExceeded", err)
	}
	if w.count() != n {
		t.Fatal("the producer recorded into a slot the learner's stream still reads")
	}
	f.run(ls) // the learner's stream passes batch 1
	if err := r.Produce(ctxFor(t, 5*time.Second), rec); err != nil {
		t.Fatalf("Produce after the learner's stream passed the slot: %v", err)
	}
	w.mu.Lock()
	if want := []uint64{0, 1, 2, 3}; len(w.frames) != 4 || w.frames[3] != 3 || w.slots[3] != 1 || w.slots[2] != 0 {
		t.Errorf("frames %v in slots %v, want %v in 0 1 0 1", w.frames, w.slots, want)
	}
	w.mu.Unlock()
	if got := r.Skipped(); got != 1 {
		t.Errorf("Skipped() = %d, want 1", got)
	}
	f.auto(t)
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
}

// Next returns the newest batch Vulkan has finished, not the newest
// submitted one, and waits on the host (bounded by its context) when none
// is newer than the last.
func TestLearnerNextReturnsNewestComplete(t *testing.T) {
	d, f := fakeDevice(t)
	slots := ringBuffers(t, d, 3)
	// The third slot comes back from CUDA through the Device; CUDA's
	// signal has not run, so the batch using it cannot finish yet.
	acc, err := d.ToCUDA(nil, slots[2])
	if err != nil {
		t.Fatal(err)
	}
	if err := acc.Done(); err != nil {
		t.Fatal(err)
	}
	var r *Ring
	if r, err = d.NewRingWith(slots, RingOptions{HostObserved: true}); err != nil {
		t.Fatal(err)
	}
	var w writes
	rec := w.recorder(&r)
	for range 3 {
		if err := r.Produce(ctxFor(t, 5*time.Second), rec); err != nil {
			t.Fatal(err)
		}
	}
	if err := waitBatches(r, 2, 20*time.Second); err != nil {
		t.Fatal(err)
	}
	if err := waitBatches(r, 3, 100*time.Millisecond); !errors.Is(err, vulkan.ErrTimeout) {
		t.Fatalf("batch 2 finished before CUDA returned its slot (%v)", err)
	}
	ls, _ := f.newStream()
	b, err := r.Next(ctxFor(t, 5*time.Second), ls)
	if err != nil {
		t.Fatal(err)
	}
	if b.Index != 1 || b.Skipped != 1 {
		t.Fatalf("Next: batch %d skipping %d, want the newest complete batch 1, skipping 1", b.Index, b.Skipped)
	}
	if _, err := r.Next(ctxFor(t, 100*time.Millisecond), ls); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Next with batch 2 unfinished: %v, want context.DeadlineExceeded", err)
	}
	f.run(d.Stream()) // the Device's CUDA signal: batch 2 can finish
	if b, err = r.Next(ctxFor(t, 20*time.Second), ls); err != nil {
		t.Fatal(err)
	}
	if b.Index != 2 || b.Skipped != 0 || b.Slot(0) != 2 {
		t.Fatalf("Next: batch %d skipping %d in slot %d, want batch 2 skipping 0 in slot 2", b.Index, b.Skipped, b.Slot(0))
	}
	if r.Consumed() != 3 || r.Skipped() != 1 || r.Produced() != 3 {
		t.Fatalf("produced %d, consumed %d, skipped %d; want 3, 3, 1", r.Produced(), r.Consumed(), r.Skipped())
	}
	f.auto(t)
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
}

// Contexts bound every host wait; Close wakes a waiting Next and waits for
// the learner's stream to pass what it holds and what it released.
func TestLearnerContextAndClose(t *testing.T) {
	d, f := fakeDevice(t)
	var r *Ring
	r = learnerRing(t, d, 4, 2)
	var w writes
	rec := w.recorder(&r)
	ls, _ := f.newStream()
	if _, err := r.Next(ctxFor(t, 50*time.Millisecond), ls); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Next on an empty ring: %v, want context.DeadlineExceeded", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := r.Next(ctx, ls); !errors.Is(err, context.Canceled) {
		t.Fatalf("Next with a cancelled context: %v, want context.Canceled", err)
	}
	for range 2 {
		if err := r.Produce(ctxFor(t, 5*time.Second), rec); err != nil {
			t.Fatal(err)
		}
	}
	if err := waitBatches(r, 2, 20*time.Second); err != nil {
		t.Fatal(err)
	}
	b1, err := r.Next(ctxFor(t, 5*time.Second), ls)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Produce(ctxFor(t, 5*time.Second), rec); err != nil { // into the skipped batch 0's slots
		t.Fatal(err)
	}
	b2, err := r.Next(ctxFor(t, 20*time.Second), ls) // releases batch 1: its event has not run
	if err != nil {
		t.Fatal(err)
	}
	if b1.Index != 1 || b2.Index != 2 || b2.Frame(1) != 5 || b2.Slot(1) != 1 {
		t.Fatalf("batches %d and %d (frame %d in slot %d), want 1 and 2 (frame 5 in slot 1)", b1.Index, b2.Index, b2.Frame(1), b2.Slot(1))
	}
	if err := b1.Done(); err != nil { // idempotent
		t.Fatal(err)
	}
	// The learner queues work that reads batch 2 on its stream: Close must
	// wait for it.
	if err := f.queue(ls, fakeOp{what: "learner reads batch 2", run: func() {}}); err != nil {
		t.Fatal(err)
	}
	// A Next waiting for a batch returns ErrClosed when the ring closes.
	nextErr := make(chan error, 1)
	go func() {
		_, err := r.Next(context.Background(), ls)
		nextErr <- err
	}()
	time.Sleep(50 * time.Millisecond)
	closed := make(chan error, 1)
	go func() { closed <- r.Close() }()
	if err := <-nextErr; !errors.Is(err, ErrClosed) {
		t.Fatalf("Next waiting while the ring closed: %v, want ErrClosed", err)
	}
	select {
	case err := <-closed:
		t.Fatalf("Close returned (%v) before the learner's stream passed the batches it holds", err)
	case <-time.After(150 * time.Millisecond):
	}
	f.run(ls)
	if err := <-closed; err != nil {
		t.Fatal(err)
	}
	if err := b2.Done(); err != nil {
		t.Fatalf("Done after Close: %v", err)
	}
	if _, err := r.Next(ctxFor(t, time.Second), ls); !errors.Is(err, ErrClosed) {
		t.Fatalf("Next after Close: %v, want ErrClosed", err)
	}
	if err := r.Produce(ctxFor(t, time.Second), rec); !errors.Is(err, ErrClosed) {
		t.Fatalf("Produce after Close: %v, want ErrClosed", err)
	}
	for i := range 4 {
		wantOwner(t, d, r.Slot(i), returning, true)
	}
	f.auto(t)
}

// learnerTaken is a learner ring on a fake device with two batches
// produced and complete, the newer taken by Next on a learner stream of
// its own (takeSecondBatch).
type learnerTaken struct {
	f   *fakeCUDA
	r   *Ring
	w   *writes
	rec func(c *vulkan.Commands, slot int, frame uint64) error
	ls  *cuda.Stream
	b   *Batch
}

// takeSecondBatch makes a learner ring of slots slots in batches of
// batch, produces two batches, waits for them and takes the newer.
func takeSecondBatch(t *testing.T, slots, batch int) *learnerTaken {
	t.Helper()
	d, f := fakeDevice(t)
	lt := &learnerTaken{f: f, w: &writes{}}
	lt.r = learnerRing(t, d, slots, batch)
	lt.rec = lt.w.recorder(&lt.r)
	lt.ls, _ = f.newStream()
	for range 2 {
		if err := lt.r.Produce(ctxFor(t, 5*time.Second), lt.rec); err != nil {
			t.Fatal(err)
		}
	}
	if err := waitBatches(lt.r, 2, 20*time.Second); err != nil {
		t.Fatal(err)
	}
	var err error
	if lt.b, err = lt.r.Next(ctxFor(t, 5*time.Second), lt.ls); err != nil {
		t.Fatal(err)
	}
	return lt
}

// A Produce waiting on the host for the learner's stream to pass a batch
// the learner released returns ErrClosed when the ring closes, without
// recording, and Close then waits for the learner's stream.
func TestLearnerCloseWhileProducerWaitsForRelease(t *testing.T) {
	lt := takeSecondBatch(t, 2, 1) // batch 1; batch 0 skipped
	r, f, w, rec, ls, b := lt.r, lt.f, lt.w, lt.rec, lt.ls, lt.b
	if err := r.Produce(ctxFor(t, 5*time.Second), rec); err != nil { // batch 2, into batch 0's slot
		t.Fatal(err)
	}
	// The learner's stream is busy: batch 1's release waits behind it.
	if err := f.queue(ls, fakeOp{what: "learner reads batch 1", run: func() {}}); err != nil {
		t.Fatal(err)
	}
	if err := b.Done(); err != nil {
		t.Fatal(err)
	}
	n := w.count()
	prodErr := make(chan error, 1)
	go func() { prodErr <- r.Produce(context.Background(), rec) }() // batch 3, into batch 1's slot
	select {
	case err := <-prodErr:
		t.Fatalf("Produce into the slot the learner's stream still reads returned %v", err)
	case <-time.After(50 * time.Millisecond):
	}
	closed := make(chan error, 1)
	go func() { closed <- r.Close() }()
	if err := <-prodErr; !errors.Is(err, ErrClosed) {
		t.Fatalf("Produce waiting for the learner's release while the ring closed: %v, want ErrClosed", err)
	}
	if w.count() != n {
		t.Fatal("the producer recorded after the ring closed")
	}
	select {
	case err := <-closed:
		t.Fatalf("Close returned (%v) before the learner's stream passed the batch it released", err)
	case <-time.After(50 * time.Millisecond):
	}
	f.run(ls)
	if err := <-closed; err != nil {
		t.Fatal(err)
	}
}

// A producer and a learner on different goroutines (run with -race): the
// learner sees batches in increasing order, every batch is returned or
// counted as skipped, and the producer never records into a batch's slots
// before the learner's stream has read them.
func TestLearnerGoroutines(t *testing.T) {
	d, f := fakeDevice(t)
	f.auto(t)
	var r *Ring
	r = learnerRing(t, d, 6, 2)
	ls, _ := f.newStream()
	const batches = 200
	var mu sync.Mutex
	taken := map[uint64]bool{} // batches Next returned
	read := map[uint64]bool{}  // batches the learner's stream has read
	var wg sync.WaitGroup
	var perr, lerr error
	wg.Add(2)
	go func() {
		defer wg.Done()
		for range batches {
			perr = r.Produce(ctxFor(t, 20*time.Second), func(c *vulkan.Commands, slot int, frame uint64) error {
				k := frame / 2
				if k >= 3 {
					mu.Lock()
					bad := taken[k-3] && !read[k-3]
					mu.Unlock()
					if bad {
						t.Errorf("frame %d recorded into slot %d before the learner's stream read batch %d there", frame, slot, k-3)
					}
				}
				return fill(c, r, slot, frame)
			})
			if perr != nil {
				return
			}
		}
	}()
	returned, skipped := 0, 0
	go func() {
		defer wg.Done()
		last := int64(-1)
		for r.Consumed() < batches {
			b, err := r.Next(ctxFor(t, 20*time.Second), ls)
			if err != nil {
				lerr = err
				return
			}
			if int64(b.Index) <= last || b.Skipped != b.Index-uint64(last+1) {
				t.Errorf("batch %d skipping %d after batch %d", b.Index, b.Skipped, last)
			}
			last = int64(b.Index)
			returned++
			skipped += int(b.Skipped)
			k := b.Index
			mu.Lock()
			taken[k] = true
			mu.Unlock()
			// The learner's work on the batch: runs when the fake stream
			// gets to it.
			if err := f.queue(ls, fakeOp{what: "learner step", run: func() {
				time.Sleep(50 * time.Microsecond)
				mu.Lock()
				read[k] = true
				mu.Unlock()
			}}); err != nil {
				lerr = err
				return
			}
		}
	}()
	wg.Wait()
	if perr != nil || lerr != nil {
		t.Fatal(perr, lerr)
	}
	if returned+skipped != batches || uint64(skipped) != r.Skipped() || returned == 0 {
		t.Fatalf("%d batches returned + %d skipped (Skipped() = %d), want %d in all", returned, skipped, r.Skipped(), batches)
	}
	t.Logf("%d batches returned, %d skipped", returned, skipped)
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
}

// What a learner-mode ring accepts, and its tensor views.
func TestLearnerOptionsAndViews(t *testing.T) {
	d, f := fakeDevice(t)
	f.auto(t)
	if _, err := d.NewRingWith(ringBuffers(t, d, 2), RingOptions{Batch: 2, HostObserved: true}); err == nil {
		t.Error("a learner-mode ring of one batch of slots: no error")
	}
	tex := []Resource{fakeTexture(t, d, 4, 4), fakeTexture(t, d, 4, 4)}
	if _, err := d.NewRingWith(tex, RingOptions{HostObserved: true}); err == nil || !strings.Contains(err.Error(), "Buffers") {
		t.Errorf("a learner-mode ring of textures: %v, want an error saying slots must be Buffers", err)
	}
	if _, err := d.NewRingWith(ringBuffers(t, d, 2), RingOptions{HostObserved: true, Shape: []int64{8, 9}, DType: format.Float32}); err == nil {
		t.Error("a learner-mode ring whose tensors do not fit its 256-byte slots: no error")
	}
	if _, err := d.NewRingWith(ringBuffers(t, d, 2), RingOptions{Shape: []int64{8}}); err == nil {
		t.Error("a shape without learner mode: no error")
	}
	// A refused ring leaves its slots free for the next one.
	slots := ringBuffers(t, d, 2)
	if _, err := d.NewRingWith(slots, RingOptions{HostObserved: true, Shape: []int64{100}, DType: format.Float32}); err == nil {
		t.Fatal("no error for 400 bytes in 256-byte slots")
	}
	r, err := d.NewRingWith(slots, RingOptions{HostObserved: true, Shape: []int64{2, 4, 8}, DType: format.Float16})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Consume(nil, func(int, uint64, *cuda.Stream) error { return nil }); !errors.Is(err, errLearnerMode) {
		t.Errorf("Consume on a learner-mode ring: %v", err)
	}
	if _, err := r.ConsumeAll(nil, func(int, uint64, *cuda.Stream) error { return nil }); !errors.Is(err, errLearnerMode) {
		t.Errorf("ConsumeAll on a learner-mode ring: %v", err)
	}
	if err := r.Produce(ctxFor(t, 5*time.Second), func(c *vulkan.Commands, slot int, frame uint64) error { return fill(c, r, slot, frame) }); err != nil {
		t.Fatal(err)
	}
	b, err := r.Next(ctxFor(t, 20*time.Second), nil)
	if err != nil {
		t.Fatal(err)
	}
	v := b.Tensor(0)
	if v.Ptr != slots[0].(*Buffer).Ptr() || len(v.Shape) != 3 || v.Shape[2] != 8 || v.DType != format.Float16 || v.Bytes() != 128 || b.Stream() != d.Stream() {
		t.Errorf("tensor view %+v (%d bytes), want slot 0's [2 4 8] float16 (128 bytes) on the Device's stream", v, v.Bytes())
	}
	classic, err := d.NewRing(ringBuffers(t, d, 2), 1)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := classic.Next(ctxFor(t, time.Second), nil); err == nil {
		t.Error("Next on a ring not in learner mode: no error")
	}
	// Device.Close closes the ring with the batch still held.
}

// Done on a learner stream with nothing queued frees the batch's slots at
// once, recording no event (which would bring CUDA onto the GPU for
// nothing); with work queued, the slots wait for it.
func TestLearnerIdleStreamReleasesAtOnce(t *testing.T) {
	lt := takeSecondBatch(t, 4, 2)
	r, f, rec, ls, b := lt.r, lt.f, lt.rec, lt.ls, lt.b
	if err := b.Done(); err != nil {
		t.Fatal(err)
	}
	if !f.idle(ls) {
		t.Fatal("Done on an idle learner stream queued work on it")
	}
	r.mu.Lock()
	st := r.learner.pos[b.Index%r.perRing].state
	r.mu.Unlock()
	if st != posFree {
		t.Fatalf("slots of a batch released by an idle stream: state %v, want free", st)
	}
	// Work queued: the release waits for it, and Produce into those slots
	// waits for the stream.
	for range 1 {
		if err := r.Produce(ctxFor(t, 5*time.Second), rec); err != nil {
			t.Fatal(err)
		}
	}
	if err := waitBatches(r, 3, 20*time.Second); err != nil {
		t.Fatal(err)
	}
	b2, err := r.Next(ctxFor(t, 5*time.Second), ls)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.queue(ls, fakeOp{what: "learner reads", run: func() {}}); err != nil {
		t.Fatal(err)
	}
	if err := b2.Done(); err != nil {
		t.Fatal(err)
	}
	r.mu.Lock()
	st = r.learner.pos[b2.Index%r.perRing].state
	r.mu.Unlock()
	if st != posReleasing {
		t.Fatalf("slots of a batch released by a busy stream: state %v, want releasing", st)
	}
	f.auto(t)
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
}
