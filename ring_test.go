package gfxcuda

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/gfxcuda/gfxcuda/cuda"
	"github.com/gfxcuda/gfxcuda/vulkan"
)

// The Ring's ownership state machine, on the CPU: real Vulkan (lavapipe,
// with validation), fake CUDA (fake_test.go).

func fill(c *vulkan.Commands, r *Ring, slot int, frame uint64) error {
	c.FillBuffer(r.Slot(slot).(*Buffer).Vulkan(), 0, 0, uint32(frame))
	return c.Err()
}

func ringBuffers(t *testing.T, d *Device, n int) []Resource {
	slots := make([]Resource, n)
	for i := range slots {
		slots[i] = fakeBuffer(t, d, 256)
	}
	return slots
}

// Slots that CUDA returned to the Device, not yet acquired by Vulkan: the
// ring's first batch on them must wait for CUDA's signal.
func TestRingFirstBatchWaitsForReturnedSlots(t *testing.T) {
	d, f := fakeDevice(t)
	slots := ringBuffers(t, d, 2)
	acc, err := d.ToCUDA(nil, slots...)
	if err != nil {
		t.Fatal(err)
	}
	if err := acc.Done(); err != nil { // CUDA's signal is queued, not run
		t.Fatal(err)
	}
	r, err := d.NewRing(slots, 1)
	if err != nil {
		t.Fatal(err)
	}
	var rec func(c *vulkan.Commands, slot int, frame uint64) error
	rec = func(c *vulkan.Commands, slot int, frame uint64) error { return fill(c, r, slot, frame) }
	if err := r.Produce(context.Background(), rec); err != nil {
		t.Fatal(err)
	}
	if err := r.toCUDA.vk.Wait(1, 300*time.Millisecond); !errors.Is(err, vulkan.ErrTimeout) {
		t.Fatalf("the ring's first batch ran before CUDA returned its slot (wait: %v)", err)
	}
	f.auto(t)
	if err := r.toCUDA.vk.Wait(1, 20*time.Second); err != nil {
		t.Fatalf("the first batch did not run after CUDA's signal: %v", err)
	}
	if err := r.Consume(nil, func(int, uint64, *cuda.Stream) error { return nil }); err != nil {
		t.Fatal(err)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
}

// Batches consumed on two streams release their slots in order: the
// second stream finishing first must not signal the first batch's slots
// free.
func TestRingConsumeSignalsInOrder(t *testing.T) {
	d, f := fakeDevice(t)
	r, err := d.NewRing(ringBuffers(t, d, 2), 1)
	if err != nil {
		t.Fatal(err)
	}
	rec := func(c *vulkan.Commands, slot int, frame uint64) error { return fill(c, r, slot, frame) }
	for range 2 {
		if err := r.Produce(context.Background(), rec); err != nil {
			t.Fatal(err)
		}
	}
	a, _ := f.newStream()
	b, _ := f.newStream()
	nop := func(int, uint64, *cuda.Stream) error { return nil }
	if err := r.Consume(a, nop); err != nil {
		t.Fatal(err)
	}
	if err := r.Consume(b, nop); err != nil {
		t.Fatal(err)
	}
	f.run(b, d.Stream()) // stream a has not run: batch 0 is still being consumed
	if v, err := r.toVK.vk.Value(); err != nil || v != 0 {
		t.Fatalf("consumed-batches semaphore at %d (%v) while batch 0 is still being consumed, want 0", v, err)
	}
	f.run()
	if v, err := r.toVK.vk.Value(); err != nil || v != 2 {
		t.Fatalf("consumed-batches semaphore at %d (%v) after both streams ran, want 2", v, err)
	}
	f.auto(t)
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
}

// Produce on a full ring waits for a Consume or for its context.
func TestRingProduceBlocksWhenFull(t *testing.T) {
	d, f := fakeDevice(t)
	f.auto(t)
	r, err := d.NewRing(ringBuffers(t, d, 2), 1)
	if err != nil {
		t.Fatal(err)
	}
	rec := func(c *vulkan.Commands, slot int, frame uint64) error { return fill(c, r, slot, frame) }
	for range 2 {
		if err := r.Produce(context.Background(), rec); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if err := r.Produce(ctx, rec); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Produce on a full ring: %v, want context.DeadlineExceeded", err)
	}
	done := make(chan error, 1)
	go func() { done <- r.Produce(context.Background(), rec) }()
	select {
	case err := <-done:
		t.Fatalf("Produce on a full ring returned %v without a Consume", err)
	case <-time.After(100 * time.Millisecond):
	}
	if err := r.Consume(nil, func(int, uint64, *cuda.Stream) error { return nil }); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if got := r.Produced(); got != 3 {
		t.Fatalf("%d batches produced, want 3", got)
	}
	// A Produce waiting when the ring closes returns ErrClosed.
	go func() { done <- r.Produce(context.Background(), rec) }()
	time.Sleep(50 * time.Millisecond)
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if err := <-done; !errors.Is(err, ErrClosed) {
		t.Fatalf("Produce waiting while the ring closed: %v, want ErrClosed", err)
	}
}

// A producer and a consumer on different goroutines (run with -race).
func TestRingProducerConsumerGoroutines(t *testing.T) {
	d, f := fakeDevice(t)
	f.auto(t)
	r, err := d.NewRing(ringBuffers(t, d, 4), 2)
	if err != nil {
		t.Fatal(err)
	}
	const batches = 100
	var wg sync.WaitGroup
	var perr, cerr error
	var frames []uint64
	wg.Add(2)
	go func() {
		defer wg.Done()
		for range batches {
			if perr = r.Produce(context.Background(), func(c *vulkan.Commands, slot int, frame uint64) error {
				return fill(c, r, slot, frame)
			}); perr != nil {
				return
			}
		}
	}()
	go func() {
		defer wg.Done()
		for len(frames) < 2*batches && cerr == nil {
			var n int
			n, cerr = r.ConsumeAll(nil, func(slot int, frame uint64, _ *cuda.Stream) error {
				if want := int(frame % 4); slot != want {
					t.Errorf("frame %d in slot %d, want %d", frame, slot, want)
				}
				frames = append(frames, frame)
				return nil
			})
			if n == 0 {
				time.Sleep(100 * time.Microsecond)
			}
		}
	}()
	wg.Wait()
	if perr != nil || cerr != nil {
		t.Fatal(perr, cerr)
	}
	for i, fr := range frames {
		if fr != uint64(i) {
			t.Fatalf("frame %d consumed as number %d", i, fr)
		}
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
}

// The Device owns its rings: Device.Close closes them (their semaphores and
// events do not outlive it), and slots cannot be handed off or closed while
// a ring holds them.
func TestDeviceClosesItsRings(t *testing.T) {
	d, f := fakeDevice(t)
	f.auto(t)
	slots := ringBuffers(t, d, 2)
	r, err := d.NewRing(slots, 1)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.ToCUDA(nil, slots[0]); !errors.Is(err, ErrHeldByCUDA) {
		t.Fatalf("ToCUDA of a ring's slot: %v, want ErrHeldByCUDA", err)
	}
	if err := slots[1].(*Buffer).Close(); !errors.Is(err, ErrHeldByCUDA) {
		t.Fatalf("Close of a ring's slot: %v, want ErrHeldByCUDA", err)
	}
	if _, err := d.NewRing(slots[:1], 1); !errors.Is(err, ErrHeldByCUDA) {
		t.Fatalf("a second ring on a slot: %v, want ErrHeldByCUDA", err)
	}
	rec := func(c *vulkan.Commands, slot int, frame uint64) error { return fill(c, r, slot, frame) }
	if err := r.Produce(context.Background(), rec); err != nil {
		t.Fatal(err)
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	if err := r.Produce(context.Background(), rec); !errors.Is(err, ErrClosed) {
		t.Fatalf("Produce after Device.Close: %v, want ErrClosed", err)
	}
	if r.toVK.vk != nil || r.toCUDA.vk != nil {
		t.Fatal("the ring's semaphores outlive Device.Close")
	}
	if err := r.Close(); err != nil {
		t.Fatalf("Ring.Close after Device.Close: %v", err)
	}
}

// After Close, the slots go back to the Device: a hand-off acquires them.
func TestRingCloseReturnsSlots(t *testing.T) {
	d, f := fakeDevice(t)
	f.auto(t)
	slots := ringBuffers(t, d, 2)
	r, err := d.NewRing(slots, 1)
	if err != nil {
		t.Fatal(err)
	}
	rec := func(c *vulkan.Commands, slot int, frame uint64) error { return fill(c, r, slot, frame) }
	if err := r.Produce(context.Background(), rec); err != nil {
		t.Fatal(err)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	wantOwner(t, d, slots[0], returning, true)
	wantOwner(t, d, slots[1], ownedByVulkan, false)
	data := random(256)
	if err := slots[0].(*Buffer).Vulkan().Upload(0, data); err != nil {
		t.Fatal(err)
	}
	got := poisoned(256)
	if err := slots[0].(*Buffer).Vulkan().Readback(0, got); err != nil {
		t.Fatal(err)
	}
	for i := range data {
		if got[i] != data[i] {
			t.Fatalf("byte %d: %#x, want %#x", i, got[i], data[i])
		}
	}
	wantOwner(t, d, slots[0], ownedByVulkan, false)
}

// RingOptions.Overwrite: buffer slots come back from CUDA without an
// acquire, in both modes, texture slots still with one; without it every
// slot used before is acquired. The slots' frames are produced and
// consumed as usual, and the validation layer sees nothing wrong
// (fakeDevice's clean-up).
func TestRingOverwriteSkipsAcquire(t *testing.T) {
	for _, c := range []struct {
		learner, overwrite bool
		want               uint64 // acquires over the 8 batches
	}{
		{false, false, 8 - 4}, // 4 slots (3 buffers, 1 texture), each acquired after its first use
		{false, true, 2 - 1},  // only the texture (frames 3 and 7), after its first use
		{true, false, 8 - 2},  // 2 buffer slots (learner mode needs buffers)
		{true, true, 0},
	} {
		t.Run(fmt.Sprintf("learner=%v/overwrite=%v", c.learner, c.overwrite), func(t *testing.T) {
			d, f := fakeDevice(t)
			f.auto(t)
			slots := ringBuffers(t, d, 2)
			if !c.learner {
				slots = append(slots, fakeBuffer(t, d, 256), fakeTexture(t, d, 4, 4))
			}
			r, err := d.NewRingWith(slots, RingOptions{HostObserved: c.learner, Overwrite: c.overwrite})
			if err != nil {
				t.Fatal(err)
			}
			src, err := d.Vulkan().NewBuffer(vulkan.BufferOptions{Size: 64})
			if err != nil {
				t.Fatal(err)
			}
			defer src.Close()
			var frames []uint64
			rec := func(cm *vulkan.Commands, slot int, frame uint64) error {
				frames = append(frames, frame)
				if tex, ok := r.Slot(slot).(*Texture); ok {
					if tex.Vulkan().Layout() == vulkan.LayoutUndefined {
						cm.TransitionImage(tex.Vulkan(), vulkan.LayoutGeneral)
					}
					cm.CopyBufferToImage(tex.Vulkan(), src, vulkan.BufferImageCopy{})
					return cm.Err()
				}
				return fill(cm, r, slot, frame)
			}
			ctx := ctxFor(t, 20*time.Second)
			ls, _ := f.newStream()
			for range 8 {
				if err := r.Produce(ctx, rec); err != nil {
					t.Fatal(err)
				}
				if c.learner {
					_, err = r.Next(ctx, ls)
				} else {
					err = r.Consume(nil, func(int, uint64, *cuda.Stream) error { return nil })
				}
				if err != nil {
					t.Fatal(err)
				}
			}
			if len(frames) != 8 || frames[7] != 7 {
				t.Fatalf("frames recorded %v, want 0 to 7", frames)
			}
			if r.acquires != c.want {
				t.Errorf("%d slot acquires recorded over 8 batches, want %d", r.acquires, c.want)
			}
			if err := r.Close(); err != nil {
				t.Fatal(err)
			}
		})
	}
}
