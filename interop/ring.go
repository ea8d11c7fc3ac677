package interop

import (
	"errors"
	"fmt"

	"github.com/gfxcuda/gfxcuda/cuda"
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
type Ring struct {
	d       *Device
	slots   []Resource
	batch   int
	toCUDA  timeline // value k+1: batch k produced
	toVK    timeline // value k+1: batch k consumed
	cmds    cmdPool
	events  []*cuda.Event // consumer's completion of batch k at k % len
	touched []bool        // slot has been handed to CUDA at least once
	nProd   uint64        // batches produced
	nCons   uint64        // batches consumed
	closed  bool
}

// NewRing makes a ring over slots (shared buffers or textures of this
// Device; the ring uses them from now on until Close), handing over batch
// frames at a time. len(slots) must be a multiple of batch; 2×batch slots
// let the producer fill one batch while the consumer reads the other.
func (d *Device) NewRing(slots []Resource, batch int) (*Ring, error) {
	if batch < 1 || len(slots) < batch || len(slots)%batch != 0 {
		return nil, fmt.Errorf("interop: ring of %d slots in batches of %d: slots must be a positive multiple of the batch", len(slots), batch)
	}
	r := &Ring{d: d, slots: slots, batch: batch, touched: make([]bool, len(slots)), cmds: cmdPool{vk: d.vk}}
	var err error
	if r.toCUDA, err = newTimeline(d.vk, d.ctx); err != nil {
		return nil, err
	}
	if r.toVK, err = newTimeline(d.vk, d.ctx); err != nil {
		r.toCUDA.close()
		return nil, err
	}
	r.events = make([]*cuda.Event, 2*len(slots)/batch+1)
	for i := range r.events {
		if r.events[i], err = d.ctx.NewEvent(cuda.EventDisableTiming); err != nil {
			r.free()
			return nil, err
		}
	}
	if err := r.take(); err != nil {
		r.free()
		return nil, err
	}
	return r, nil
}

// take checks the slots and makes the ring their owner: no Device hand-offs
// until Close. Slots CUDA returned that Vulkan has not acquired yet are
// acquired by the ring's first batch that uses them.
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
	d.pending = keep
	for i, s := range r.slots {
		r.touched[i] = s.st().owner == returning
		s.st().owner = ownedByCUDA
	}
	return nil
}

// free releases the ring's semaphores and events.
func (r *Ring) free() error {
	var err error
	for _, e := range r.events {
		if e != nil {
			err = errors.Join(err, e.Close())
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

// Produce submits the next batch: record is called once per frame with the
// Commands to record into, the slot the frame goes to and the frame's
// number (0, 1, 2, ...). It returns once the batch is submitted; it blocks
// only when the host is far ahead of the GPU (a CUDA event wait).
func (r *Ring) Produce(record func(c *vulkan.Commands, slot int, frame uint64) error) error {
	if r.closed {
		return ErrClosed
	}
	k := r.nProd
	perRing := uint64(len(r.slots) / r.batch)
	if k >= r.nCons+perRing {
		return fmt.Errorf("interop: Ring.Produce: all %d slots hold frames not yet consumed; call Consume first", len(r.slots))
	}
	// Keep the host at most len(events) batches ahead of CUDA.
	if k >= uint64(len(r.events)) {
		if err := r.events[(k-uint64(len(r.events)))%uint64(len(r.events))].Synchronize(); err != nil {
			return err
		}
	}
	c, err := r.cmds.get()
	if err != nil {
		return err
	}
	first := int(k%perRing) * r.batch
	var wait []vulkan.SemaphoreValue
	if k >= perRing { // these slots were used by batch k-perRing
		wait = []vulkan.SemaphoreValue{{Semaphore: r.toVK.vk, Value: k - perRing + 1}}
	}
	for i := 0; i < r.batch; i++ {
		s := first + i
		if r.touched[s] {
			r.slots[s].acquire(c)
		}
	}
	for i := 0; i < r.batch; i++ {
		s := first + i
		if err := record(c, s, k*uint64(r.batch)+uint64(i)); err != nil {
			c.Reset()
			return err
		}
	}
	for i := 0; i < r.batch; i++ {
		s := first + i
		r.slots[s].release(c)
		r.touched[s] = true
	}
	if err := c.Submit(vulkan.SubmitOptions{Wait: wait, Signal: []vulkan.SemaphoreValue{{Semaphore: r.toCUDA.vk, Value: k + 1}}}); err != nil {
		return fmt.Errorf("interop: Ring.Produce: %w", err)
	}
	r.nProd++
	return nil
}

// Consume queues CUDA work for the oldest produced batch on stream s (nil:
// the Device's stream): consume is called once per frame with the slot and
// frame number; after the last, the stream signals that the batch's slots
// may be reused. It never blocks the host.
func (r *Ring) Consume(s *cuda.Stream, consume func(slot int, frame uint64, s *cuda.Stream) error) error {
	if r.closed {
		return ErrClosed
	}
	k := r.nCons
	if k >= r.nProd {
		return errors.New("interop: Ring.Consume: no produced batch to consume; call Produce first")
	}
	if s == nil {
		s = r.d.stream
	}
	if err := r.toCUDA.cu.Wait(s, k+1); err != nil {
		return err
	}
	perRing := uint64(len(r.slots) / r.batch)
	first := int(k%perRing) * r.batch
	for i := 0; i < r.batch; i++ {
		if err := consume(first+i, k*uint64(r.batch)+uint64(i), s); err != nil {
			return err
		}
	}
	if err := r.toVK.cu.Signal(s, k+1); err != nil {
		return err
	}
	if err := r.events[k%uint64(len(r.events))].Record(s); err != nil {
		return err
	}
	r.nCons++
	return nil
}

// ConsumeAll is Consume for every batch produced and not yet consumed, with
// one semaphore wait and one signal for all of them: the consumer adapts its
// batch to how far the producer got, so the GPU switches between the APIs
// once per call however many frames it covers. It returns the number of
// frames consumed (0 when nothing was produced).
func (r *Ring) ConsumeAll(s *cuda.Stream, consume func(slot int, frame uint64, s *cuda.Stream) error) (int, error) {
	if r.closed {
		return 0, ErrClosed
	}
	if r.nCons >= r.nProd {
		return 0, nil
	}
	if s == nil {
		s = r.d.stream
	}
	last := r.nProd
	if err := r.toCUDA.cu.Wait(s, last); err != nil {
		return 0, err
	}
	perRing := uint64(len(r.slots) / r.batch)
	n := 0
	for k := r.nCons; k < last; k++ {
		first := int(k%perRing) * r.batch
		for i := 0; i < r.batch; i++ {
			if err := consume(first+i, k*uint64(r.batch)+uint64(i), s); err != nil {
				return n, err
			}
			n++
		}
	}
	if err := r.toVK.cu.Signal(s, last); err != nil {
		return n, err
	}
	for k := r.nCons; k < last; k++ {
		if err := r.events[k%uint64(len(r.events))].Record(s); err != nil {
			return n, err
		}
	}
	r.nCons = last
	return n, nil
}

// Close waits for the ring's work to finish and frees its semaphores; the
// slots return to the Device (owned by Vulkan again after the Device's next
// submission). Idempotent.
func (r *Ring) Close() error {
	if r.closed {
		return nil
	}
	r.closed = true
	var err error
	for _, e := range r.events {
		if e != nil {
			err = errors.Join(err, e.Synchronize())
		}
	}
	// Batches produced but never consumed: let CUDA release them so that
	// Vulkan's queue can drain.
	for r.nCons < r.nProd {
		err = errors.Join(err, r.toVK.cu.Signal(r.d.stream, r.nProd))
		r.nCons = r.nProd
	}
	err = errors.Join(err, r.d.stream.Synchronize())
	err = errors.Join(err, r.cmds.close())
	r.d.mu.Lock()
	for i, s := range r.slots {
		if st := s.st(); !st.closed {
			if r.touched[i] {
				st.owner = returning
				r.d.pending = append(r.d.pending, s)
			} else {
				st.owner = ownedByVulkan
			}
		}
	}
	r.d.mu.Unlock()
	return errors.Join(err, r.free())
}
