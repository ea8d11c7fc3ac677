package gfxcuda

import (
	"bytes"
	"errors"
	"testing"
)

// TestSlotRingHost: a ring of host slots made and opened as the C library
// does (here in one process): the consumer reads the bytes and metadata the
// producer wrote, Next releases the frame held, Stop ends the ring for the
// consumer while the slots stay mapped, and the refusals wrap
// ErrPublishRefused.
func TestSlotRingHost(t *testing.T) {
	d := vkDevice(t)
	if _, err := NewHostSlotRing(d, SlotRingOptions{SlotBytes: 64, Slots: 1}); err == nil {
		t.Fatal("a ring of 1 slot was made")
	}
	r, err := NewHostSlotRing(d, SlotRingOptions{SlotBytes: 64, Slots: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if r.Device() != nil || len(r.Slots()) != 2 || r.Slots()[0].Size() < 64 || r.Slots()[0].HostAddr() == 0 {
		t.Fatalf("slots: %d, device %v", len(r.Slots()), r.Device())
	}
	c, err := OpenHostSlotRing(ctx10(t), d, r.Token())
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
	if err := c.Release(); err != nil {
		t.Fatal(err)
	}
	if err := r.Stop(); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Next(ctx10(t), nil); !errors.Is(err, ErrSharedRingClosed) {
		t.Fatalf("Next after Stop: %v, want ErrSharedRingClosed", err)
	}
	r.Slots()[0].Host()[0] = 1 // still mapped
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
}
