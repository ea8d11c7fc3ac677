package gfxcuda

import (
	"errors"
	"testing"

	"github.com/gfxcuda/gfxcuda/vulkan"
)

// The link's hand-offs (handoff_link.go) on the CPU: real Vulkan
// (lavapipe), fake CUDA.

func retOf(d *Device, b *Buffer) uint64 {
	d.mu.Lock()
	defer d.mu.Unlock()
	return b.s.ret
}

// TestHandToCUDAStates: a failed record changes nothing; a hand-off with
// a record is one submission; slots returned by CUDA and untouched by
// Vulkan go back to CUDA with no submission; a Vulkan acquire, or a CUDA
// wait that could not be queued, makes the next hand-off submit again.
func TestHandToCUDAStates(t *testing.T) {
	d, f := fakeDevice(t)
	f.auto(t)
	a, b := fakeBuffer(t, d, 256), fakeBuffer(t, d, 256)
	bufs := []*Buffer{a, b}
	s, err := f.newStream()
	if err != nil {
		t.Fatal(err)
	}
	value := func() uint64 {
		d.mu.Lock()
		defer d.mu.Unlock()
		return d.toCUDA.value
	}

	// A record that fails: nothing submitted, nothing changed hands.
	pool := d.cmds.Len()
	v0 := value()
	boom := errors.New("injected record failure")
	if _, err := d.handToCUDA(s, func(*vulkan.Commands) error { return boom }, bufs); !errors.Is(err, boom) {
		t.Fatalf("handToCUDA with a failing record: %v", err)
	}
	wantOwner(t, d, a, ownedByVulkan, false)
	if value() != v0 || d.cmds.Len() > pool+1 {
		t.Fatalf("a failed record submitted (value %d → %d) or kept its batch (pool %d → %d)", v0, value(), pool, d.cmds.Len())
	}

	// With a record: one submission, the slots CUDA's.
	acc, err := d.handToCUDA(s, func(c *vulkan.Commands) error { c.FillBuffer(a.Vulkan(), 0, 0, 7); return nil }, bufs)
	if err != nil {
		t.Fatal(err)
	}
	if value() != v0+1 {
		t.Fatalf("%d submissions, want 1", value()-v0)
	}
	wantOwner(t, d, a, ownedByCUDA, false)
	if _, err := d.ToCUDA(nil, a); !errors.Is(err, ErrHeldByCUDA) {
		t.Fatalf("ToCUDA of a handed slot: %v", err)
	}
	if err := acc.Done(); err != nil {
		t.Fatal(err)
	}
	wantOwner(t, d, b, returning, true)
	if retOf(d, a) == 0 {
		t.Fatal("Done left no return value")
	}

	// Back to CUDA with nothing recorded: no submission, off the pending list.
	for i := 0; i < 3; i++ {
		acc, err = d.handToCUDA(s, nil, bufs)
		if err != nil {
			t.Fatal(err)
		}
		if value() != v0+1 {
			t.Fatalf("a hand-off of slots returned by CUDA submitted to Vulkan")
		}
		wantOwner(t, d, a, ownedByCUDA, false)
		if err := acc.Done(); err != nil {
			t.Fatal(err)
		}
	}
	f.run()

	// Vulkan acquires them (and sees what the first hand-off's record
	// wrote): the next hand-off releases them in one submission.
	got := make([]byte, 4)
	if err := a.Vulkan().Readback(0, got); err != nil {
		t.Fatal(err)
	}
	if got[0] != 7 {
		t.Fatalf("read %v, want the 7s recorded in the hand-off", got)
	}
	wantOwner(t, d, a, ownedByVulkan, false)
	if retOf(d, a) != 0 {
		t.Fatal("a slot Vulkan acquired kept its return value")
	}
	acc, err = d.handToCUDA(s, nil, []*Buffer{a})
	if err != nil {
		t.Fatal(err)
	}
	if value() != v0+2 {
		t.Fatalf("releasing a slot Vulkan holds: %d submissions, want 1", value()-v0-1)
	}
	if err := acc.Done(); err != nil {
		t.Fatal(err)
	}

	// A CUDA wait that cannot be queued after the release: the slots stay
	// Vulkan's, with no known return, so the next hand-off submits.
	if err := d.Run(func(*vulkan.Commands) error { return nil }); err != nil {
		t.Fatal(err)
	}
	f.mu.Lock()
	f.failWait = errors.New("injected: cuWaitExternalSemaphoresAsync failed")
	f.mu.Unlock()
	if _, err := d.handToCUDA(s, nil, bufs); err == nil {
		t.Fatal("handToCUDA with a failing CUDA wait succeeded")
	}
	wantOwner(t, d, a, returning, true)
	if retOf(d, a) != 0 {
		t.Fatal("a slot CUDA never waited for has a return value")
	}
	v1 := value()
	acc, err = d.handToCUDA(s, nil, bufs)
	if err != nil {
		t.Fatal(err)
	}
	if value() != v1+1 {
		t.Fatal("a slot Vulkan released but CUDA never took was handed over with no submission")
	}
	if err := acc.Done(); err != nil {
		t.Fatal(err)
	}
	if err := d.Run(func(*vulkan.Commands) error { return nil }); err != nil {
		t.Fatal(err)
	}
	wantOwner(t, d, b, ownedByVulkan, false)
}
