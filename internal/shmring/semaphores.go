package shmring

import (
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/gfxcuda/gfxcuda/internal/sharenet"
)

// Semaphore is a timeline semaphore a GPU ring's producer shares with its
// consumers: what Semaphores needs of one (*vulkan.Semaphore has it).
type Semaphore interface {
	// ExportFD exports the semaphore as a new descriptor the caller owns.
	ExportFD() (int, error)
	// Wait waits until the semaphore reaches v, at most timeout.
	Wait(v uint64, timeout time.Duration) error
	// Signal sets the semaphore to v from the host.
	Signal(v uint64) error
	// Close destroys the semaphore.
	Close() error
}

// ComparableSemaphore is a Semaphore whose values compare (a pointer type):
// Semaphores merges the waits on one semaphore.
type ComparableSemaphore interface {
	Semaphore
	comparable
}

// SemaphoreWait is a semaphore value a write waits for.
type SemaphoreWait[S ComparableSemaphore] struct {
	Semaphore S
	Value     uint64
}

// Semaphores are a GPU ring producer's semaphores: "frame ready" (the
// producer's queue signals it with the last sequence number of each batch)
// and one "slot free" semaphore per attached consumer (the consumer signals
// the sequence number of each frame it releases, after its work on it).
// The producer creates all of them, exportable; each consumer gets the
// descriptors of the first and of its own with the ring's control block.
// It is the Ring's GPU (Ring.UseGPU): the Ring tells it of consumers
// coming and going and of slots to write again, and the producer asks it
// what a batch's submission waits for (Waits). Safe for concurrent use.
type Semaphores[S ComparableSemaphore] struct {
	ready S
	make  func() (S, error)

	mu      sync.Mutex
	free    [MaxConsumers]S
	has     [MaxConsumers]bool
	waits   [][]SemaphoreWait[S] // per slot: what its next write waits for
	retired []S
	closed  bool
}

// NewSemaphores returns the semaphores of a ring of slots slots: ready is
// "frame ready", and mk makes an exportable "slot free" semaphore for each
// consumer that attaches. They are closed with Close.
func NewSemaphores[S ComparableSemaphore](slots int, ready S, mk func() (S, error)) *Semaphores[S] {
	return &Semaphores[S]{ready: ready, make: mk, waits: make([][]SemaphoreWait[S], slots)}
}

// Ready is the "frame ready" semaphore.
func (g *Semaphores[S]) Ready() S { return g.ready }

// Attach makes consumer idx's "slot free" semaphore and returns the
// descriptors to send it: "frame ready", then its own.
func (g *Semaphores[S]) Attach(idx int) ([]int, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		return nil, ErrClosed
	}
	s, err := g.make()
	if err != nil {
		return nil, fmt.Errorf("share: a consumer's semaphore: %w", err)
	}
	rfd, err := g.ready.ExportFD()
	if err != nil {
		s.Close()
		return nil, err
	}
	ffd, err := s.ExportFD()
	if err != nil {
		sharenet.CloseAll([]int{rfd})
		s.Close()
		return nil, err
	}
	g.free[idx], g.has[idx] = s, true
	return []int{rfd, ffd}, nil
}

// Detach retires consumer idx's semaphore (it closed or died).
func (g *Semaphores[S]) Detach(idx int, next uint64) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.detachLocked(idx, next)
}

// detachLocked retires consumer idx's semaphore, first signalling it (from the
// host) past every value a submitted batch may wait for, so that a
// consumer that died between its release and its GPU signal cannot stall
// the producer's queue.
//
// next is the ring's next sequence number. Every value a batch waits for
// on this semaphore is a frame the consumer took, below next; so is every
// value the consumer signals, and nothing in this process signals the
// semaphore on a queue: a host signal of next is above the current value
// and above every pending signal (VUID-VkSemaphoreSignalInfo-value-03258
// and -03259), unless a misbehaving consumer signalled next or more, which
// the zero-timeout wait detects (then no signal is needed). The current
// value is deliberately not read with vkGetSemaphoreCounterValue: the
// validation layer records such a read on an exported semaphore as a host
// signal that, with our own waits still unretired in its queue model, it
// keeps as "pending" and then reports the host signal above it.
func (g *Semaphores[S]) detachLocked(idx int, next uint64) {
	if !g.has[idx] {
		return
	}
	s := g.free[idx]
	var zero S
	g.free[idx], g.has[idx] = zero, false
	if next == 0 {
		next = 1
	}
	if s.Wait(next, 0) != nil { // not there yet (or unreadable): signal
		s.Signal(next) // best effort: nothing more can be done for a dead peer
	}
	g.retired = append(g.retired, s)
	if len(g.retired) > 8 { // they are signalled: closing waits only for batches already runnable
		for _, r := range g.retired {
			r.Close()
		}
		g.retired = g.retired[:0]
	}
}

// Reuse records, for the next write of slot, a wait for each consumer in
// mask (those that released the slot's frame seq with a GPU signal).
func (g *Semaphores[S]) Reuse(slot int, mask uint32, seq uint64) {
	g.mu.Lock()
	defer g.mu.Unlock()
	for i := 0; i < MaxConsumers; i++ {
		if mask&(1<<i) != 0 && g.has[i] {
			g.waits[slot] = append(g.waits[slot], SemaphoreWait[S]{g.free[i], seq})
		}
	}
}

// Waits is what writing the acquired slots waits for: each consumer's
// "slot free" semaphore at the highest value any of the slots needs.
func (g *Semaphores[S]) Waits(slots []int) []SemaphoreWait[S] {
	g.mu.Lock()
	defer g.mu.Unlock()
	var waits []SemaphoreWait[S]
	for _, s := range slots {
		for _, w := range g.waits[s] {
			merged := false
			for i := range waits {
				if waits[i].Semaphore == w.Semaphore {
					waits[i].Value = max(waits[i].Value, w.Value)
					merged = true
				}
			}
			if !merged {
				waits = append(waits, w)
			}
		}
	}
	return waits
}

// Submitted forgets the slots' waits: a submission now waits for them.
func (g *Semaphores[S]) Submitted(slots []int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, s := range slots {
		g.waits[s] = g.waits[s][:0]
	}
}

// DetachAll detaches every consumer (signalling past any wait, so that the
// queue drains).
func (g *Semaphores[S]) DetachAll(next uint64) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.detachAllLocked(next)
}

func (g *Semaphores[S]) detachAllLocked(next uint64) {
	for i := range g.free {
		g.detachLocked(i, next)
	}
}

// Close destroys every semaphore. With release, it first signals each
// consumer's past any wait (so that the queue drains); without, the
// producer's queue no longer waits for them and they are left alone: a
// live consumer may still have "slot free" signals in flight, which a host
// signal must not overtake. Idempotent.
func (g *Semaphores[S]) Close(next uint64, release bool) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		return nil
	}
	g.closed = true
	if release {
		g.detachAllLocked(next)
	}
	var zero S
	for i := range g.free {
		if g.has[i] {
			g.retired = append(g.retired, g.free[i])
			g.free[i], g.has[i] = zero, false
		}
	}
	var err error
	for _, r := range append(g.retired, g.ready) {
		err = errors.Join(err, r.Close())
	}
	g.retired = nil
	return err
}
