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
	if err := c.Release(); err != nil {
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
