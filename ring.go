package gfxcuda

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/gfxcuda/gfxcuda/cuda"
	"github.com/gfxcuda/gfxcuda/format"
	"github.com/gfxcuda/gfxcuda/vulkan"
)

// Ring streams frames from Vulkan (the producer) to CUDA (the consumer)
// through a fixed set of shared slots, handing them over in batches of B
// frames: one Vulkan submission and one semaphore wait per batch, not per
// frame. On one GPU the two APIs run in separate contexts that the GPU
// time-slices, so every hand-off is a context switch; batching is what makes
// a ring fast (see BENCHMARKS.md). With B = 1 it is a classic frame ring.
//
// Each batch's Vulkan submission waits (on the GPU) until CUDA has finished
// the batch that last used its slots, acquires them back from
// VK_QUEUE_FAMILY_EXTERNAL, records the producer's commands for every frame,
// releases the slots to CUDA and signals the batch's number. CUDA's stream
// waits for that number, runs the consumer's work for every frame and
// signals back. The host never waits on a semaphore; it only throttles
// itself on CUDA events so that it stays a bounded number of batches ahead.
//
// A producer and a consumer may run on different goroutines (one Produce
// and one Consume or ConsumeAll at a time; further calls wait their turn).
// Produce blocks while every slot holds a frame not yet consumed, until a
// Consume or the context ends. The ring belongs to its Device, which closes
// it when it closes.
//
// A ring made with RingOptions.HostObserved (learner mode) keeps CUDA off
// the GPU until the learner has work: see NewRingWith and Next.
type Ring struct {
	d       *Device
	slots   []Resource
	batch   int
	perRing uint64 // batches the slots hold
	// overwrite (RingOptions.Overwrite): buffer slots are not acquired
	// back from CUDA.
	overwrite bool
	toCUDA    timeline // value k+1: batch k produced (none in learner mode)
	toVK      timeline // value k+1: batch k consumed; signalled on d.stream only
	events    []event  // consumer's completion of batch k at k % len
	touched   []bool   // slot has been handed to CUDA at least once
	// devWait is the Device's CUDA→Vulkan value that the first batch using
	// a slot that CUDA had returned to the Device must wait for; fromDev
	// marks those slots until that batch.
	devWait uint64
	fromDev []bool
	// The producer's scratch for recording transfers, and the number of
	// slot acquires recorded (prodMu).
	back     []Resource
	xfer     transfers
	acquires uint64

	prodMu, consMu sync.Mutex // one producer, one consumer at a time

	mu      sync.Mutex // guards the fields below
	nProd   uint64     // batches produced
	nCons   uint64     // batches consumed
	closed  bool
	changed chan struct{} // closed when nCons or nProd grows, or the ring closes

	learner *learner // learner mode (RingOptions.HostObserved); nil otherwise
}

// RingOptions configure NewRingWith.
type RingOptions struct {
	// Batch is the number of frames handed over per synchronization
	// (default 1). The number of slots must be a multiple of it.
	Batch int
	// HostObserved selects learner mode: CUDA has no part in the ring
	// until the learner asks for a batch. The host observes the producer's
	// completion through the serial of its submission, which the Vulkan
	// device's own timeline reaches (vulkan.Device.Completed: a counter
	// read, no wait; the ring signals no semaphore), Next returns the newest
	// complete batch with no GPU wait at all, and the learner's release is
	// a CUDA event on its stream that the producer polls (cuEventQuery)
	// before it reuses the slots. Slots must be Buffers; use Next instead
	// of Consume. Needs at least two batches of slots (one the learner
	// holds, one the producer fills); more let the producer run ahead.
	HostObserved bool
	// Shape and DType describe the tensor each slot holds, for the views
	// Next returns (learner mode only); default: the slot's bytes, [size]
	// uint8. Shape's elements × DType's size must fit in every slot.
	Shape []int64
	DType format.DType
	// Overwrite promises that the producer writes every byte of each
	// Buffer slot that the consumer reads (the tensor of Shape in
	// learner mode) every time it is given the slot, and never reads
	// what the slot held before: each frame replaces the last. The ring
	// then takes buffer slots back from CUDA without an acquire (a
	// queue-family ownership transfer, which costs the GPU ≈3 µs a
	// batch on an H200, 4% of a 64×64 × 1,024-view step: BENCHMARKS.md),
	// as Vulkan allows for contents that need not survive; bytes the
	// producer does not write are undefined in CUDA. Texture slots are
	// acquired as without it.
	Overwrite bool
}

// NewRing makes a ring over slots (shared buffers or textures of this
// Device; the ring uses them from now on until Close), handing over batch
// frames at a time. len(slots) must be a multiple of batch; 2×batch slots
// let the producer fill one batch while the consumer reads the other.
func (d *Device) NewRing(slots []Resource, batch int) (*Ring, error) {
	return d.NewRingWith(slots, RingOptions{Batch: batch})
}

// NewRingWith makes a ring over slots with options: NewRing's ring, or
// with o.HostObserved a learner-mode ring (see Next).
func (d *Device) NewRingWith(slots []Resource, o RingOptions) (*Ring, error) {
	batch := o.Batch
	if batch == 0 {
		batch = 1
	}
	if batch < 1 || len(slots) < batch || len(slots)%batch != 0 {
		return nil, fmt.Errorf("interop: ring of %d slots in batches of %d: slots must be a positive multiple of the batch", len(slots), batch)
	}
	slots = slices.Clone(slots)
	r := &Ring{d: d, slots: slots, batch: batch, perRing: uint64(len(slots) / batch), overwrite: o.Overwrite,
		touched: make([]bool, len(slots)), fromDev: make([]bool, len(slots)), changed: make(chan struct{})}
	if o.HostObserved {
		if err := r.newLearner(o); err != nil {
			return nil, errors.Join(err, r.free())
		}
		if err := r.take(); err != nil {
			return nil, errors.Join(err, r.free())
		}
		return r, nil
	}
	if o.Shape != nil || o.DType != (format.DType{}) {
		return nil, errors.New("interop: RingOptions.Shape and DType describe learner-mode tensors: set HostObserved")
	}
	var err error
	if r.toCUDA, err = newTimeline(d.vk, d.cs); err != nil {
		return nil, err
	}
	if r.toVK, err = newTimeline(d.vk, d.cs); err != nil {
		return nil, errors.Join(err, r.toCUDA.close())
	}
	r.events = make([]event, 2*len(slots)/batch+1)
	for i := range r.events {
		if r.events[i], err = d.cs.newEvent(); err != nil {
			return nil, errors.Join(err, r.free())
		}
	}
	if err := r.take(); err != nil {
		return nil, errors.Join(err, r.free())
	}
	return r, nil
}

// take checks the slots and makes the ring their owner: no Device hand-offs
// until Close. Slots CUDA returned that Vulkan has not acquired yet are
// acquired by the ring's first batch that uses them, which waits for
// CUDA's signal.
func (r *Ring) take() error {
	d := r.d
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.live(); err != nil {
		return err
	}
	seen := map[Resource]bool{}
	for _, s := range r.slots {
		st := s.st()
		switch {
		case st.d != d:
			return errors.New("interop: ring slot belongs to another Device")
		case st.closed:
			return ErrClosed
		case st.holder != nil:
			return fmt.Errorf("interop: ring slot is already %s: %w", st.holder.slotNoun(), ErrHeldByCUDA)
		case st.owner == ownedByCUDA:
			return fmt.Errorf("interop: ring slot: %w", ErrHeldByCUDA)
		case seen[s]:
			return errors.New("interop: a resource appears twice among the ring's slots")
		}
		seen[s] = true
	}
	keep := d.pending[:0]
	for _, p := range d.pending {
		if !seen[p] {
			keep = append(keep, p)
		}
	}
	clear(d.pending[len(keep):])
	d.pending = keep
	for i, s := range r.slots {
		st := s.st()
		if st.owner == returning {
			r.touched[i], r.fromDev[i] = true, true
			// Every return is signalled at or below the latest value.
			r.devWait = d.toVK.value
		}
		st.owner, st.holder = ownedByCUDA, r
	}
	d.rings[r] = struct{}{}
	return nil
}

// slotNoun and refusesOtherVulkanWork make a Ring the slotHolder of its
// slots: its batches are the Device's, so the guard refuses other
// Vulkan work on them.
func (r *Ring) slotNoun() string             { return "a ring's slot" }
func (r *Ring) refusesOtherVulkanWork() bool { return true }

// free releases the ring's semaphores and events.
func (r *Ring) free() error {
	var err error
	for _, e := range r.events {
		if e != nil {
			err = errors.Join(err, e.close())
		}
	}
	if r.learner != nil {
		for _, p := range r.learner.pos {
			if p.ev != nil {
				err = errors.Join(err, p.ev.close())
			}
		}
	}
	err = errors.Join(err, r.toVK.close())
	return errors.Join(err, r.toCUDA.close())
}

// Slots returns the number of slots; Batch the frames per hand-off.
func (r *Ring) Slots() int { return len(r.slots) }

// Batch returns the number of frames handed over per synchronization.
func (r *Ring) Batch() int { return r.batch }

// Slot returns slot i's resource.
func (r *Ring) Slot(i int) Resource { return r.slots[i] }

// Produced returns the number of batches produced so far.
func (r *Ring) Produced() uint64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.nProd
}

// Consumed returns the number of batches consumed so far; in learner mode,
// the batches Next returned or skipped.
func (r *Ring) Consumed() uint64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.nCons
}

// waitEvent waits on the host for e, giving up when ctx ends: with a ctx
// that never ends, in the driver (cuEventSynchronize); otherwise polling
// (cuda.Poll).
func waitEvent(ctx context.Context, e event) error {
	if ctx.Done() == nil {
		return e.synchronize()
	}
	return cuda.Poll(ctx, "the consumer's event", e.done)
}

// Produce submits the next batch: record is called once per frame with the
// Commands to record into, the slot the frame goes to and the frame's
// number (0, 1, 2, ...). It returns once the batch is submitted. While every
// slot holds a frame not yet consumed, it waits for a Consume (on another
// goroutine) or for ctx to end (the error then wraps ctx.Err()); it also
// blocks when the host is far ahead of the GPU (a CUDA event wait). If
// record fails, nothing is submitted and the ring is unchanged.
//
// In learner mode (RingOptions.HostObserved), the batch waits for nothing
// CUDA does on the GPU: before reusing slots, Produce waits on the host
// until the learner has taken or skipped the batch that last used them and
// its stream has passed them (a CUDA event, polled), bounded by ctx.
func (r *Ring) Produce(ctx context.Context, record func(c *vulkan.Commands, slot int, frame uint64) error) error {
	r.prodMu.Lock()
	defer r.prodMu.Unlock()
	if r.learner != nil {
		return r.produceLearner(ctx, record)
	}
	r.mu.Lock()
	for !r.closed && r.nProd >= r.nCons+r.perRing {
		ch := r.changed
		r.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return fmt.Errorf("interop: Ring.Produce: all %d slots hold frames not yet consumed: %w", len(r.slots), ctx.Err())
		}
		r.mu.Lock()
	}
	closed, k := r.closed, r.nProd
	r.mu.Unlock()
	if closed {
		return ErrClosed
	}
	// Keep the host at most len(events) batches ahead of CUDA. Batch
	// k-len(events) was consumed: k < nCons + perRing.
	if n := uint64(len(r.events)); k >= n {
		if err := waitEvent(ctx, r.events[(k-n)%n]); err != nil {
			return fmt.Errorf("interop: Ring.Produce: %w", err)
		}
	}
	var wait []vulkan.SemaphoreValue
	if k >= r.perRing { // these slots were used by batch k-perRing
		wait = append(wait, vulkan.SemaphoreValue{Semaphore: r.toVK.vk, Value: k - r.perRing + 1})
	}
	if _, err := r.submit(k, wait, record); err != nil {
		return err
	}
	r.mu.Lock()
	r.nProd++
	r.mu.Unlock()
	return nil
}

// submit records and submits batch k: the acquire of its slots (not of
// buffers with RingOptions.Overwrite: they are taken back as a new buffer
// is, old contents undefined, which Vulkan allows without a queue-family
// transfer; the semaphore wait or the host's observation of the
// learner's release orders the writes after CUDA's reads), the
// producer's commands, their release to CUDA and the signal of value k+1
// (none in learner mode, whose host watches the submission's serial,
// returned), waiting for wait (and for the Device's CUDA signal where
// slots came from the Device). Called with prodMu held.
func (r *Ring) submit(k uint64, wait []vulkan.SemaphoreValue, record func(c *vulkan.Commands, slot int, frame uint64) error) (uint64, error) {
	c, err := r.d.cmds.Get()
	if err != nil {
		return 0, err
	}
	first := int(k%r.perRing) * r.batch
	slots := r.slots[first : first+r.batch]
	devWait := false
	back := r.back[:0]
	for i, s := range slots {
		if _, buf := s.(*Buffer); r.touched[first+i] && !(buf && r.overwrite) {
			back = append(back, s)
		}
		devWait = devWait || r.fromDev[first+i]
	}
	r.xfer.record(c, false, back...)
	r.acquires += uint64(len(back))
	clear(back)
	r.back = back[:0]
	if devWait { // CUDA's last use through the Device may still run
		wait = append(wait, vulkan.SemaphoreValue{Semaphore: r.d.toVK.vk, Value: r.devWait})
	}
	for i := 0; i < r.batch; i++ {
		s := first + i
		if err := record(c, s, k*uint64(r.batch)+uint64(i)); err != nil {
			r.d.cmds.Put(c)
			return 0, err
		}
	}
	r.xfer.record(c, true, slots...)
	o := vulkan.SubmitOptions{Wait: wait}
	if r.learner == nil {
		o.Signal = []vulkan.SemaphoreValue{{Semaphore: r.toCUDA.vk, Value: k + 1}}
	}
	serial, err := r.d.submitPooled(c, o)
	if err != nil {
		return 0, fmt.Errorf("interop: Ring.Produce: %w", err)
	}
	for i := 0; i < r.batch; i++ {
		r.touched[first+i], r.fromDev[first+i] = true, false
	}
	return serial, nil
}

// notify wakes whoever waits for the ring to change. Called with r.mu held.
func (r *Ring) notify() {
	close(r.changed)
	r.changed = make(chan struct{})
}

// Consume queues CUDA work for the oldest produced batch on stream s (nil:
// the Device's stream): consume is called once per frame with the slot and
// frame number; after the last, once the work queued on s has finished, the
// slots may be reused. The signal that says so is queued on the Device's
// stream, after an event on s, so that batches consumed on several streams
// release their slots in order. It never blocks the host.
func (r *Ring) Consume(s *cuda.Stream, consume func(slot int, frame uint64, s *cuda.Stream) error) error {
	if r.learner != nil {
		return errLearnerMode
	}
	r.consMu.Lock()
	defer r.consMu.Unlock()
	r.mu.Lock()
	closed, k, nProd := r.closed, r.nCons, r.nProd
	r.mu.Unlock()
	switch {
	case closed:
		return ErrClosed
	case k >= nProd:
		return errors.New("interop: Ring.Consume: no produced batch to consume; call Produce first")
	}
	_, err := r.consume(s, k, k+1, consume)
	return err
}

// ConsumeAll is Consume for every batch produced and not yet consumed, with
// one semaphore wait and one signal for all of them: the consumer adapts its
// batch to how far the producer got, so the GPU switches between the APIs
// once per call however many frames it covers. It returns the number of
// frames consumed (0 when nothing was produced).
func (r *Ring) ConsumeAll(s *cuda.Stream, consume func(slot int, frame uint64, s *cuda.Stream) error) (int, error) {
	if r.learner != nil {
		return 0, errLearnerMode
	}
	r.consMu.Lock()
	defer r.consMu.Unlock()
	r.mu.Lock()
	closed, k, nProd := r.closed, r.nCons, r.nProd
	r.mu.Unlock()
	switch {
	case closed:
		return 0, ErrClosed
	case k >= nProd:
		return 0, nil
	}
	return r.consume(s, k, nProd, consume)
}

// consume consumes batches [from, to). Called with consMu held.
func (r *Ring) consume(s *cuda.Stream, from, to uint64, consume func(slot int, frame uint64, s *cuda.Stream) error) (int, error) {
	d := r.d
	if s == nil {
		s = d.stream
	}
	if err := r.toCUDA.cu.wait(s, to); err != nil {
		return 0, fmt.Errorf("interop: Ring.Consume: %w", err)
	}
	n := 0
	for k := from; k < to; k++ {
		first := int(k%r.perRing) * r.batch
		for i := 0; i < r.batch; i++ {
			if err := consume(first+i, k*uint64(r.batch)+uint64(i), s); err != nil {
				// Nothing signalled: the batch stays unconsumed; Close
				// releases it.
				return n, err
			}
			n++
		}
	}
	if err := order(d.cs, s, d.stream); err != nil {
		return n, fmt.Errorf("interop: Ring.Consume: %w", err)
	}
	if err := r.toVK.cu.signal(d.stream, to); err != nil {
		return n, fmt.Errorf("interop: Ring.Consume: CUDA signal: %w", err)
	}
	var err error
	for k := from; k < to; k++ {
		err = errors.Join(err, r.events[k%uint64(len(r.events))].record(d.stream))
	}
	r.mu.Lock()
	r.nCons = to
	r.notify()
	r.mu.Unlock()
	return n, err
}

// Close waits for the ring's work to finish and frees its semaphores; the
// slots return to the Device (owned by Vulkan again after the Device's next
// submission). A Produce waiting for a free slot returns ErrClosed. The
// Device's Close closes its rings. Idempotent.
//
// In learner mode, a Next waiting for a batch returns ErrClosed, and Close
// waits on the host until the learner's stream has passed the batch it
// holds (as if its Done had been called now) and the batches it released.
func (r *Ring) Close() error {
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return nil
	}
	r.closed = true
	r.notify()
	r.mu.Unlock()
	// Let a Produce and a Consume in progress finish.
	r.prodMu.Lock()
	defer r.prodMu.Unlock()
	r.consMu.Lock()
	defer r.consMu.Unlock()
	d := r.d
	var err error
	if r.learner != nil {
		// Nothing of CUDA's waits for the ring: only the learner's
		// stream, which must pass the slots before they go back.
		err = r.closeLearner()
	} else {
		// Batches produced but never consumed: let CUDA release them so
		// that Vulkan's queue can drain.
		if r.nCons < r.nProd {
			err = r.toVK.cu.signal(d.stream, r.nProd)
			r.nCons = r.nProd
		}
		err = errors.Join(err, hostWait(d.cs, d.stream))
	}
	// The slots' last Vulkan use (the release) must finish before the
	// semaphores go: the Vulkan semaphore's Close waits for its batches.
	d.mu.Lock()
	for i, s := range r.slots {
		st := s.st()
		st.holder = nil
		if st.closed {
			continue
		}
		if r.touched[i] {
			st.owner, st.ret = returning, 0 // the ring's semaphores ordered it, not the Device's
			if r.fromDev[i] && r.devWait > 0 {
				// Never used by the ring: still waiting for the Device's
				// CUDA signal, which the Device's next submission waits for.
				d.vkWaited = min(d.vkWaited, r.devWait-1)
			}
			d.pending = append(d.pending, s)
		} else {
			st.owner = ownedByVulkan
		}
	}
	delete(d.rings, r)
	d.mu.Unlock()
	return errors.Join(err, r.free())
}
