//go:build linux

package shmring

import (
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// fakeSem is a host timeline semaphore: its value, host signals and
// closes are recorded; ExportFD hands out a pipe's end.
type fakeSem struct {
	mu      sync.Mutex
	name    string
	value   uint64
	signals []uint64
	closes  int
	badFD   bool
}

func (s *fakeSem) ExportFD() (int, error) {
	if s.badFD {
		return -1, errors.New("no export")
	}
	var p [2]int
	if err := unix.Pipe2(p[:], unix.O_CLOEXEC); err != nil {
		return -1, err
	}
	unix.Close(p[1])
	return p[0], nil
}

func (s *fakeSem) Wait(v uint64, timeout time.Duration) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.value >= v {
		return nil
	}
	return errors.New("timeout")
}

func (s *fakeSem) Signal(v uint64) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.signals = append(s.signals, v) // attempts too: a host signal not above the value is an error
	if v <= s.value {
		return fmt.Errorf("signal %d not above the value %d", v, s.value)
	}
	s.value = v
	return nil
}

func (s *fakeSem) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closes++
	return nil
}

// TestSemaphores follows a GPU ring's semaphores through a ring: each
// consumer gets "frame ready" and its own "slot free"; a slot released on
// the GPU is written again after the consumers' signals (the highest value
// per semaphore); a dead consumer's semaphore is signalled past every
// wait, unless it is there already; everything is closed once.
func TestSemaphores(t *testing.T) {
	ready := &fakeSem{name: "ready"}
	var made []*fakeSem
	g := NewSemaphores(3, ready, func() (*fakeSem, error) {
		s := &fakeSem{name: fmt.Sprint("free", len(made))}
		made = append(made, s)
		return s, nil
	})
	if g.Ready() != ready {
		t.Fatal("Ready")
	}
	r := newRing(t, Options{Slots: 3})
	r.UseGPU(g)
	c0, fds0 := attach(t, r)
	c1, fds1 := attach(t, r)
	defer unix.Close(fds0[0])
	defer unix.Close(fds0[1])
	defer unix.Close(fds1[0])
	defer unix.Close(fds1[1])
	if len(made) != 2 || len(fds0) != 2 || len(fds1) != 2 {
		t.Fatalf("%d semaphores made; descriptors %v %v", len(made), fds0, fds1)
	}
	for i := 0; i < 3; i++ {
		s, _ := r.Acquire(ctx10(t))
		r.Publish(s, nil, uint64(i+1))
	}
	// Consumer 0 releases frames 1 and 2 on the GPU, consumer 1 frame 1
	// alone, then frames 2 and 3 on the host.
	f0 := []*Frame{}
	for i := 0; i < 2; i++ {
		f, _ := c0.Next(ctx10(t))
		f0 = append(f0, f)
	}
	nop := func(uint64) error { return nil }
	if err := c0.Release(f0, nop); err != nil {
		t.Fatal(err)
	}
	var f1 []*Frame
	for i := 0; i < 3; i++ {
		f, _ := c1.Next(ctx10(t))
		f1 = append(f1, f)
	}
	if err := c1.Release(f1[:1], nop); err != nil {
		t.Fatal(err)
	}
	if err := c1.Release(f1[1:], nil); err != nil {
		t.Fatal(err)
	}
	f, _ := c0.Next(ctx10(t))
	c0.Release([]*Frame{f}, nil)
	var slots []int
	for i := 0; i < 3; i++ {
		s, err := r.Acquire(ctx10(t))
		if err != nil {
			t.Fatal(err)
		}
		slots = append(slots, s)
	}
	got := map[string]uint64{}
	for _, w := range g.Waits(slots) {
		if _, dup := got[w.Semaphore.name]; dup {
			t.Fatalf("two waits on %s", w.Semaphore.name)
		}
		got[w.Semaphore.name] = w.Value
	}
	if len(got) != 2 || got["free0"] != 2 || got["free1"] != 1 {
		t.Fatalf("the batch waits for %v, want free0 at 2, free1 at 1", got)
	}
	// In any order of the slots, the highest value per semaphore.
	for _, w := range g.Waits([]int{slots[1], slots[0]}) {
		if w.Value != got[w.Semaphore.name] {
			t.Fatalf("slots in another order: %s at %d, want %d", w.Semaphore.name, w.Value, got[w.Semaphore.name])
		}
	}
	if w := g.Waits(slots[2:]); len(w) != 0 {
		t.Fatalf("frame 3's slot, released on the host, waits for %v", w)
	}
	g.Submitted(slots)
	if w := g.Waits(slots); len(w) != 0 {
		t.Fatalf("after the submission: waits %v", w)
	}
	r.Unacquire(slots)
	// Consumer 1 reached frame 4 already: detaching it signals nothing.
	// Consumer 0 dies: its semaphore is signalled at the next frame.
	made[1].Signal(4)
	c1.Close()
	c0.Close()
	if r.Consumers() != 0 {
		t.Fatal("consumers left")
	}
	if s := made[0].signals; len(s) != 1 || s[0] != 4 {
		t.Errorf("the dead consumer's semaphore: signals %v, want [4]", s)
	}
	if s := made[1].signals; len(s) != 1 { // the test's own
		t.Errorf("a semaphore already past the waits: signals %v", s)
	}
	if err := g.Close(r.NextSeq(), true); err != nil {
		t.Fatal(err)
	}
	if err := g.Close(r.NextSeq(), true); err != nil {
		t.Fatal(err)
	}
	for _, s := range append(made, ready) {
		if s.closes != 1 {
			t.Errorf("%s closed %d times", s.name, s.closes)
		}
	}
	if _, err := g.Attach(0); !errors.Is(err, ErrClosed) {
		t.Errorf("Attach after Close: %v", err)
	}
}

// TestSemaphoresRetire: the semaphores of consumers that come and go are
// closed in batches once signalled, not kept forever; a Close without
// release signals no live consumer's semaphore; a failed export makes no
// consumer.
func TestSemaphoresRetire(t *testing.T) {
	ready := &fakeSem{name: "ready"}
	var made []*fakeSem
	g := NewSemaphores(2, ready, func() (*fakeSem, error) {
		s := &fakeSem{}
		made = append(made, s)
		return s, nil
	})
	for i := 0; i < 20; i++ {
		fds, err := g.Attach(i % MaxConsumers)
		if err != nil {
			t.Fatal(err)
		}
		for _, fd := range fds {
			unix.Close(fd)
		}
		g.Detach(i%MaxConsumers, uint64(i+1))
	}
	closed := 0
	for _, s := range made {
		closed += s.closes
		if len(s.signals) != 1 {
			t.Fatalf("a detached semaphore signalled %v", s.signals)
		}
	}
	if closed < 18 {
		t.Fatalf("%d of 20 retired semaphores closed", closed)
	}
	fds, err := g.Attach(3)
	if err != nil {
		t.Fatal(err)
	}
	for _, fd := range fds {
		unix.Close(fd)
	}
	live := made[len(made)-1]
	if err := g.Close(100, false); err != nil {
		t.Fatal(err)
	}
	if live.closes != 1 || len(live.signals) != 0 {
		t.Fatalf("a live consumer's semaphore at Close without release: closes %d, signals %v", live.closes, live.signals)
	}
	g2 := NewSemaphores(2, &fakeSem{badFD: true}, func() (*fakeSem, error) { return &fakeSem{}, nil })
	if _, err := g2.Attach(0); err == nil {
		t.Fatal("Attach with an unexportable ready semaphore succeeded")
	}
	g2.Detach(0, 5) // nothing attached: nothing to do
}
