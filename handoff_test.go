package gfxcuda

import (
	"errors"
	"testing"
	"time"

	"github.com/gfxcuda/gfxcuda/vulkan"
)

// These tests run the hand-off state machine on the CPU: real Vulkan
// (lavapipe, with validation), fake CUDA (fake_test.go).

func wantOwner(t *testing.T, d *Device, r Resource, want owner, wantPending bool) {
	t.Helper()
	o, p := ownerOf(d, r)
	if o != want || p != wantPending {
		t.Fatalf("owner %v (pending %v), want %v (pending %v)", o, p, want, wantPending)
	}
}

func TestHandOffStatesCPU(t *testing.T) {
	d, f := fakeDevice(t)
	b := fakeBuffer(t, d, 4096)
	tex := fakeTexture(t, d, 16, 8)
	acc, err := d.ToCUDA(nil, b, tex)
	if err != nil {
		t.Fatal(err)
	}
	wantOwner(t, d, b, ownedByCUDA, false)
	if _, err := d.ToCUDA(nil, b); !errors.Is(err, ErrHeldByCUDA) {
		t.Fatalf("second ToCUDA: %v, want ErrHeldByCUDA", err)
	}
	if err := acc.Done(); err != nil {
		t.Fatal(err)
	}
	if err := acc.Done(); err != nil {
		t.Fatalf("second Done: %v", err)
	}
	wantOwner(t, d, tex, returning, true)
	f.auto(t)
	if err := d.Run(func(c *vulkan.Commands) error { c.FillBuffer(b.Vulkan(), 0, 0, 7); return nil }); err != nil {
		t.Fatal(err)
	}
	wantOwner(t, d, b, ownedByVulkan, false)
	wantOwner(t, d, tex, ownedByVulkan, false)
	// Many round trips, on two streams.
	s2, err := f.newStream()
	if err != nil {
		t.Fatal(err)
	}
	for i := range 50 {
		s := d.Stream()
		if i%2 == 1 {
			s = s2
		}
		if err := b.Map(s, func(_ cudaPtr, _ cudaStream) error { return nil }); err != nil {
			t.Fatal(err)
		}
	}
	if err := d.Run(func(*vulkan.Commands) error { return nil }); err != nil {
		t.Fatal(err)
	}
	wantOwner(t, d, b, ownedByVulkan, false)
}

// A failed submission of the release must change nothing: what was
// returning stays returning, and the failed batch goes back to the pool.
func TestToCUDAFailedSubmitChangesNothing(t *testing.T) {
	d, f := fakeDevice(t)
	f.auto(t)
	ok := fakeBuffer(t, d, 256)
	broken := fakeBuffer(t, d, 256)
	acc, err := d.ToCUDA(nil, ok)
	if err != nil {
		t.Fatal(err)
	}
	if err := acc.Done(); err != nil {
		t.Fatal(err)
	}
	// Closing the Vulkan buffer behind interop's back makes recording the
	// release fail, so the submission fails.
	if err := broken.Vulkan().Close(); err != nil {
		t.Fatal(err)
	}
	var size int
	for i := range 20 {
		if _, err := d.ToCUDA(nil, broken); !errors.Is(err, vulkan.ErrClosed) {
			t.Fatalf("ToCUDA of a buffer whose Vulkan side is closed: %v, want vulkan.ErrClosed", err)
		}
		wantOwner(t, d, ok, returning, true)
		wantOwner(t, d, broken, ownedByVulkan, false)
		if i == 0 {
			size = d.cmds.Len()
		} else if n := d.cmds.Len(); n != size {
			t.Fatalf("the command pool grew from %d to %d batches after %d failed submissions", size, n, i+1)
		}
	}
	acc, err = d.ToCUDA(nil, ok)
	if err != nil {
		t.Fatalf("ToCUDA after failures: %v", err)
	}
	if err := acc.Done(); err != nil {
		t.Fatal(err)
	}
	if err := d.Run(func(*vulkan.Commands) error { return nil }); err != nil {
		t.Fatal(err)
	}
	wantOwner(t, d, ok, ownedByVulkan, false)
	d.mu.Lock()
	delete(d.kids, broken) // its Vulkan side is gone
	d.mu.Unlock()
}

// A CUDA wait that cannot be queued after a good submission must leave the
// resources to Vulkan, not to a CUDA that has no Access to return them.
func TestToCUDAFailedWaitReturnsResources(t *testing.T) {
	d, f := fakeDevice(t)
	f.auto(t)
	b := fakeBuffer(t, d, 256)
	f.mu.Lock()
	f.failWait = errors.New("injected: cuWaitExternalSemaphoresAsync failed")
	f.mu.Unlock()
	if _, err := d.ToCUDA(nil, b); err == nil {
		t.Fatal("ToCUDA with a failing CUDA wait succeeded")
	}
	if o, _ := ownerOf(d, b); o == ownedByCUDA {
		t.Fatal("the buffer is held by CUDA with no Access to return it")
	}
	acc, err := d.ToCUDA(nil, b)
	if err != nil {
		t.Fatalf("ToCUDA after the failure: %v", err)
	}
	if err := acc.Done(); err != nil {
		t.Fatal(err)
	}
	if err := d.Run(func(*vulkan.Commands) error { return nil }); err != nil {
		t.Fatal(err)
	}
	wantOwner(t, d, b, ownedByVulkan, false)
}

// Vulkan work through the vulkan package on a resource CUDA holds is
// refused; on one CUDA returned, it waits for CUDA's signal.
func TestVulkanLayerWhileCUDAHolds(t *testing.T) {
	d, f := fakeDevice(t)
	b := fakeBuffer(t, d, 1024)
	data := random(1024)
	if err := b.Vulkan().Upload(0, data); err != nil {
		t.Fatal(err)
	}
	acc, err := d.ToCUDA(nil, b)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Vulkan().Upload(0, data); !errors.Is(err, ErrHeldByCUDA) {
		t.Fatalf("Upload while CUDA holds the buffer: %v, want ErrHeldByCUDA", err)
	}
	got := poisoned(1024)
	if err := b.Vulkan().Readback(0, got); !errors.Is(err, ErrHeldByCUDA) {
		t.Fatalf("Readback while CUDA holds the buffer: %v, want ErrHeldByCUDA", err)
	}
	err = d.Vulkan().Run(func(c *vulkan.Commands) error { c.FillBuffer(b.Vulkan(), 0, 0, 1); return nil })
	if !errors.Is(err, ErrHeldByCUDA) {
		t.Fatalf("vulkan.Device.Run on the buffer while CUDA holds it: %v, want ErrHeldByCUDA", err)
	}
	if err := acc.Done(); err != nil {
		t.Fatal(err)
	}
	// CUDA has not run yet: a Readback must wait for its signal.
	res := make(chan error, 1)
	go func() { res <- b.Vulkan().Readback(0, got) }()
	select {
	case err := <-res:
		t.Fatalf("Readback returned (%v) before CUDA signalled that it was done with the buffer", err)
	case <-time.After(300 * time.Millisecond):
	}
	f.auto(t)
	select {
	case err := <-res:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("Readback did not return after CUDA signalled")
	}
	for i := range data {
		if got[i] != data[i] {
			t.Fatalf("byte %d: %#x, want %#x", i, got[i], data[i])
		}
	}
	wantOwner(t, d, b, ownedByVulkan, false)
}

// Closing a buffer waits for CUDA's work without the Device's lock: other
// hand-offs go on meanwhile.
func TestCloseDoesNotStallHandOffs(t *testing.T) {
	d, f := fakeDevice(t)
	a := fakeBuffer(t, d, 256)
	b := fakeBuffer(t, d, 256)
	acc, err := d.ToCUDA(nil, a)
	if err != nil {
		t.Fatal(err)
	}
	if err := acc.Done(); err != nil {
		t.Fatal(err)
	}
	closed := make(chan error, 1)
	go func() { closed <- a.Close() }() // waits for the fake stream, which does not run yet
	time.Sleep(50 * time.Millisecond)
	handed := make(chan error, 1)
	go func() {
		acc, err := d.ToCUDA(nil, b)
		if err == nil {
			err = acc.Done()
		}
		handed <- err
	}()
	select {
	case err := <-handed:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		f.auto(t)
		t.Fatal("ToCUDA stalled while another buffer was closing")
	}
	select {
	case err := <-closed:
		t.Fatalf("Close returned (%v) before CUDA's work on the Device's stream finished", err)
	default:
	}
	f.auto(t)
	if err := <-closed; err != nil {
		t.Fatal(err)
	}
}

// ToCUDA and NewRing copy the slices they are given.
func TestSlicesAreCopied(t *testing.T) {
	d, f := fakeDevice(t)
	f.auto(t)
	a, b, c := fakeBuffer(t, d, 256), fakeBuffer(t, d, 256), fakeBuffer(t, d, 256)
	res := []Resource{a}
	acc, err := d.ToCUDA(nil, res...)
	if err != nil {
		t.Fatal(err)
	}
	res[0] = b
	if err := acc.Done(); err != nil {
		t.Fatal(err)
	}
	wantOwner(t, d, a, returning, true)
	wantOwner(t, d, b, ownedByVulkan, false)
	slots := []Resource{a, b}
	r, err := d.NewRing(slots, 1)
	if err != nil {
		t.Fatal(err)
	}
	slots[0] = c
	if r.Slot(0) != a {
		t.Fatal("the ring's slot 0 changed with the caller's slice")
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
}
