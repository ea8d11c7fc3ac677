package slotring

import (
	"bytes"
	"context"
	"errors"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/gfxcuda/gfxcuda"
	"github.com/gfxcuda/gfxcuda/vulkan"
	"github.com/gfxcuda/gfxcuda/vulkan/vulkantest"
)

// vkDevice is a Vulkan device that exports and imports OPAQUE_FD memory
// (lavapipe on the CPU machine); the test skips where it cannot.
func vkDevice(t *testing.T) *vulkan.Device {
	d := vulkantest.Device(t)
	if pd := d.Physical(); !pd.CanExportOpaqueFD() || !pd.CanImportOpaqueFD() {
		t.Skipf("%s cannot export and import OPAQUE_FD memory", pd.Name)
	}
	return d
}

func ctx10(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return c
}

// seededRandom is n random bytes of seed.
func seededRandom(seed uint64, n int) []byte {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

// TestRingHost: a ring of host slots made and opened as the C library
// does (here in one process): the consumer reads the bytes and metadata the
// producer wrote, Next releases the frame held, Stop ends the ring for the
// consumer while the slots stay mapped, and the refusals wrap
// ErrPublishRefused.
func TestRingHost(t *testing.T) {
	d := vkDevice(t)
	if _, err := NewHost(d, Options{SlotBytes: 64, Slots: 1}); err == nil {
		t.Fatal("a ring of 1 slot was made")
	}
	r, err := NewHost(d, Options{SlotBytes: 64, Slots: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if r.Device() != nil || len(r.Slots()) != 2 || r.Slots()[0].Size() < 64 || r.Slots()[0].HostAddr() == 0 {
		t.Fatalf("slots: %d, device %v", len(r.Slots()), r.Device())
	}
	c, err := OpenHost(ctx10(t), d, r.Token())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := r.WaitConsumers(ctx10(t), 1); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Publish(ctx10(t), 0, nil, nil); !errors.Is(err, ErrPublishRefused) {
		t.Fatalf("publishing a slot not acquired: %v, want ErrPublishRefused", err)
	}
	for i := uint64(1); i <= 3; i++ {
		s, err := r.Acquire(ctx10(t))
		if err != nil {
			t.Fatal(err)
		}
		copy(r.Slots()[s].Host(), seededRandom(i, 64))
		q, err := r.Publish(ctx10(t), s, seededRandom(i+100, 8), nil)
		if err != nil || q != i {
			t.Fatalf("publish %d: %d, %v", i, q, err)
		}
		f, err := c.Next(ctx10(t), nil) // releases the frame before
		if err != nil {
			t.Fatal(err)
		}
		if f.Seq != i || !bytes.Equal(f.User, seededRandom(i+100, 8)) || !bytes.Equal(c.Slots()[f.Slot].Host()[:64], seededRandom(i, 64)) {
			t.Fatalf("frame %d: seq %d, metadata or content differ", i, f.Seq)
		}
	}
	if err := c.ReleaseHeld(); err != nil {
		t.Fatal(err)
	}
	if err := r.Stop(); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Next(ctx10(t), nil); !errors.Is(err, gfxcuda.ErrSharedRingClosed) {
		t.Fatalf("Next after Stop: %v, want gfxcuda.ErrSharedRingClosed", err)
	}
	r.Slots()[0].Host()[0] = 1 // still mapped
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestReaderVerbsHost: a Reader of host slots through gfxcuda.Reader's
// verbs: Ptr is 0 (no CUDA memory: the bytes are Slot.Host's), Release(f,
// nil) gives the frame back at once (the producer may then reuse its slot,
// with two slots and the other one published), a second Release and the
// Release of a frame not held fail, ReleaseHeld then has nothing to do.
func TestReaderVerbsHost(t *testing.T) {
	d := vkDevice(t)
	r, err := NewHost(d, Options{SlotBytes: 64, Slots: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	c, err := OpenHost(ctx10(t), d, r.Token())
	if err != nil {
		t.Fatal(err)
	}
	var rd gfxcuda.Reader = c
	defer rd.Close()
	if err := r.WaitConsumers(ctx10(t), 1); err != nil {
		t.Fatal(err)
	}
	publish := func(i uint64) {
		t.Helper()
		s, err := r.Acquire(ctx10(t))
		if err != nil {
			t.Fatal(err)
		}
		copy(r.Slots()[s].Host(), seededRandom(i, 64))
		if _, err := r.Publish(ctx10(t), s, nil, nil); err != nil {
			t.Fatal(err)
		}
	}
	seq := uint64(0)
	for range 6 {
		seq++
		publish(seq)
		f, err := rd.Next(ctx10(t), nil)
		if err != nil {
			t.Fatal(err)
		}
		if f.Seq != seq || !bytes.Equal(c.Slots()[f.Slot].Host()[:64], seededRandom(seq, 64)) {
			t.Fatalf("frame %d: seq %d, or content differs", seq, f.Seq)
		}
		if p := rd.Ptr(f); p != 0 {
			t.Fatalf("host slot: Ptr %#x, want 0", p)
		}
		if err := rd.Release(&gfxcuda.Frame{Slot: f.Slot, Seq: f.Seq}, nil); err == nil {
			t.Fatal("Release of a frame not held succeeded")
		}
		if err := rd.Release(f, nil); err != nil {
			t.Fatal(err)
		}
		if err := rd.Release(f, nil); err == nil {
			t.Fatal("a second Release succeeded")
		}
		if err := c.ReleaseHeld(); err != nil {
			t.Fatal(err)
		}
		// Both slots free again: the producer acquires both without
		// waiting, and each frame read is given back at once.
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		s1, err1 := r.Acquire(ctx)
		s2, err2 := r.Acquire(ctx)
		cancel()
		if err1 != nil || err2 != nil {
			t.Fatalf("after Release, the producer cannot acquire both slots: %v, %v", err1, err2)
		}
		for _, sl := range []int{s1, s2} {
			seq++
			if _, err := r.Publish(ctx10(t), sl, nil, nil); err != nil {
				t.Fatal(err)
			}
			if f, err = rd.Next(ctx10(t), nil); err != nil || f.Seq != seq {
				t.Fatalf("frame %d: %v", seq, err)
			}
			if err := rd.Release(f, nil); err != nil {
				t.Fatal(err)
			}
		}
	}
}
