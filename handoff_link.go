package gfxcuda

import (
	"fmt"
	"slices"

	"github.com/gfxcuda/gfxcuda/cuda"
	"github.com/gfxcuda/gfxcuda/vulkan"
)

// The link's hand-offs (link_nccl.go): ToCUDA for a batch of a link's
// slots, in at most one Vulkan submission and with no host wait.
//
// ToCUDA's submission acquires everything CUDA returned to the Device and
// waits for the Device's latest CUDA→Vulkan value, so a link that used
// ToCUDA and Done per batch had every batch's Vulkan work wait on the GPU
// for all of CUDA's earlier work, and the sender added a submission and a
// host wait for its rendering (Device.RunTimeout) before the hand-off.
// handToCUDA instead:
//
//   - records the caller's Vulkan work (the sender's rendering) into the
//     hand-off's own batch, between the acquire of the slots and their
//     release to CUDA, like a Ring's producer: one submission, no host
//     wait;
//   - acquires only the given slots, and waits for the CUDA→Vulkan value
//     of their own last return (state.ret, set by Done), not the latest:
//     the render into slot s waits for the sends that last read s, not
//     for every send queued so far;
//   - submits nothing at all when every slot is returning from CUDA and
//     there is no Vulkan work to record: CUDA used the slots last and
//     Vulkan has not acquired them since, so there is nothing to release,
//     and CUDA's own order suffices: the stream waits for the CUDA→Vulkan
//     value that CUDA signalled (on the Device's stream) after the slots'
//     last Access.
//
// The caller's record runs without the Device's lock: the slots are marked
// CUDA's (and taken off the pending list) before it runs, so no other
// hand-off or guard touches them meanwhile, and restored if it fails.

// handToCUDA hands slots (Buffers of d, distinct) to CUDA on stream after
// the Vulkan work record records (nil: none). It returns the Access whose
// Done gives them back; on error nothing changed hands.
func (d *Device) handToCUDA(stream *cuda.Stream, record func(*vulkan.Commands) error, slots []*Buffer) (*Access, error) {
	res := make([]Resource, len(slots))
	for i, b := range slots {
		res[i] = b
	}
	if stream == nil {
		stream = d.stream
	}
	d.mu.Lock()
	if err := d.live(); err != nil {
		d.mu.Unlock()
		return nil, err
	}
	if err := d.checkToCUDA(res); err != nil {
		d.mu.Unlock()
		return nil, err
	}
	for _, b := range slots {
		if _, err := b.vulkanLocked(); err != nil { // a lazy import, due now
			d.mu.Unlock()
			return nil, fmt.Errorf("interop: ToCUDA: %w", err)
		}
	}
	if ret, ok := returnedAt(res); ok && record == nil {
		defer d.mu.Unlock()
		// CUDA waits for its own signal of the slots' last return: the
		// Device's stream reached it after the work of their last Access.
		if err := d.toVK.cu.wait(stream, ret); err != nil {
			return nil, fmt.Errorf("interop: ToCUDA: CUDA wait: %w (the resources stay with the Device)", err)
		}
		d.pending = slices.DeleteFunc(d.pending, func(r Resource) bool { return slices.Contains(res, r) })
		return d.newAccessLocked(res, stream, d.toCUDA.value), nil
	}
	// Reserve the slots: CUDA's for everyone else from now on.
	was := make([]owner, len(res))
	rets := make([]uint64, len(res))
	var w uint64 // the CUDA→Vulkan value the acquire waits for
	for i, r := range res {
		st := r.st()
		was[i], rets[i] = st.owner, st.ret
		if st.owner == returning {
			if st.ret == 0 {
				// Not known: every return so far is signalled at or
				// below the latest value.
				w = max(w, d.toVK.value)
			}
			w = max(w, st.ret)
		}
		st.owner = ownedByCUDA
	}
	var wait []vulkan.SemaphoreValue
	if w > 0 {
		wait = []vulkan.SemaphoreValue{{Semaphore: d.toVK.vk, Value: w}}
	}
	d.pending = slices.DeleteFunc(d.pending, func(r Resource) bool { return slices.Contains(res, r) })
	d.mu.Unlock()
	restore := func() { // called with d.mu held
		for i, r := range res {
			st := r.st()
			if st.closed {
				continue
			}
			st.owner, st.ret = was[i], rets[i]
			if was[i] == returning {
				d.pending = append(d.pending, r)
			}
		}
	}
	fail := func(err error) (*Access, error) {
		d.mu.Lock()
		restore()
		d.mu.Unlock()
		return nil, err
	}

	c, err := d.cmds.Get()
	if err != nil {
		return fail(err)
	}
	var back []Resource
	for i, r := range res {
		if was[i] == returning {
			back = append(back, r)
		}
	}
	var t transfers
	t.record(c, false, back...)
	if record != nil {
		if err := record(c); err != nil {
			d.cmds.Put(c) // discarded, never submitted
			return fail(err)
		}
	}
	t.record(c, true, res...)

	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.live(); err != nil {
		d.cmds.Put(c)
		restore()
		return nil, err
	}
	v := d.toCUDA.value + 1
	if _, err := d.submitPooled(c, vulkan.SubmitOptions{Wait: wait, Signal: []vulkan.SemaphoreValue{{Semaphore: d.toCUDA.vk, Value: v}}}); err != nil {
		restore()
		return nil, fmt.Errorf("interop: ToCUDA: submitting the release: %w", err)
	}
	d.toCUDA.value = v
	if err := d.toCUDA.cu.wait(stream, v); err != nil {
		// Released but CUDA will not wait: back to Vulkan, whose queue
		// orders the release before the acquire (as in ToCUDA).
		for _, r := range res {
			if st := r.st(); !st.closed {
				st.owner, st.ret = returning, 0
				d.pending = append(d.pending, r)
			}
		}
		return nil, fmt.Errorf("interop: ToCUDA: CUDA wait: %w (the resources stay Vulkan's)", err)
	}
	return d.newAccessLocked(res, stream, v), nil
}

// returnedAt reports whether every resource of rs is returning from CUDA
// with its return's CUDA→Vulkan value known, and the highest of those
// values. Called with d.mu held.
func returnedAt(rs []Resource) (uint64, bool) {
	var v uint64
	for _, r := range rs {
		st := r.st()
		if st.owner != returning || st.ret == 0 {
			return 0, false
		}
		v = max(v, st.ret)
	}
	return v, len(rs) > 0
}
