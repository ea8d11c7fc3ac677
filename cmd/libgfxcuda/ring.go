package main

/*
#include <stdlib.h>
#include "capi.h"
*/
import "C"

import (
	"context"
	"errors"
	"sync"
	"time"
	"unsafe"

	"github.com/gfxcuda/gfxcuda"
	"github.com/gfxcuda/gfxcuda/compute"
	"github.com/gfxcuda/gfxcuda/cuda"
	"github.com/gfxcuda/gfxcuda/vulkan"
)

// Frame rings between processes (gfxcuda's sharing between processes): a producer's ring of
// slots, and a consumer's view of another process's ring. Slots are
// host-visible Vulkan buffers (made on a compute device: the CPU reaches
// them) or shared Vulkan/CUDA buffers (made on a shared device: CUDA
// reaches them); either is a table entry that DLPack exports.

// hostSlot is a host-visible Vulkan buffer, mapped.
type hostSlot struct {
	b   *vulkan.Buffer
	mem []byte // the persistent mapping (C memory, not Go's)
}

func (h *hostSlot) ptr() uint64 { return uint64(uintptr(unsafe.Pointer(&h.mem[0]))) }

func newHostSlot(b *vulkan.Buffer) (*hostSlot, error) {
	m, err := b.Map()
	if err != nil {
		b.Close()
		return nil, &statusError{stUnsupported, err}
	}
	if len(m) == 0 {
		b.Close()
		return nil, errorf(stUnsupported, "gfxcuda: an empty mapping")
	}
	return &hostSlot{b: b, mem: m}, nil
}

// ring is the producer's side.
type ring struct {
	r     *gfxcuda.SharedRing
	ex    *gfxcuda.Shared
	slots []*gfxcuda.Shared
	objs  []any // *hostSlot or *sharedBuffer, by slot
	sd    *sharedDevice
}

func (r *ring) close() error {
	err := r.r.Close()
	r.ex.Close()
	for _, s := range r.slots {
		s.Close()
	}
	return err
}

// storeSlots puts slot objects in the table (one reference each) and
// returns their handles.
func storeSlots(objs []any, closers []func() error) ([]uint64, error) {
	hs := make([]uint64, 0, len(objs))
	for i, o := range objs {
		var h C.uint64_t
		if err := store(&h, o, closers[i]); err != nil {
			for _, x := range hs {
				release(x)
			}
			for _, c := range closers[i+1:] {
				c()
			}
			return nil, err
		}
		hs = append(hs, uint64(h))
	}
	return hs, nil
}

// storeOwned stores obj depending on the slot handles, then drops the
// slots' own references so that obj owns them.
func storeOwned(out *C.uint64_t, obj any, close func() error, slots []uint64, deps ...uint64) error {
	err := store(out, obj, close, append(append([]uint64{}, slots...), deps...)...)
	for _, h := range slots {
		release(h)
	}
	return err
}

//export gfxcuda_ring_new
func gfxcuda_ring_new(dev C.uint64_t, slotBytes C.uint64_t, nslots C.uint32_t, dropOldest C.int, out *C.uint64_t) C.int {
	return call(func() error { return ringNew(dev, slotBytes, nslots, dropOldest, gfxcuda.ExportOptions{}, out) })
}

//export gfxcuda_ring_new_with
func gfxcuda_ring_new_with(dev C.uint64_t, slotBytes C.uint64_t, nslots C.uint32_t, dropOldest C.int,
	dir, rendezvous *C.char, uids *C.uint32_t, nu C.size_t, gids *C.uint32_t, ng C.size_t, out *C.uint64_t) C.int {
	return call(func() error {
		o, err := exportOptions(dir, rendezvous, uids, nu, gids, ng)
		if err != nil {
			return err
		}
		return ringNew(dev, slotBytes, nslots, dropOldest, o, out)
	})
}

// ringNew makes a ring whose slots and token are exported with eo.
func ringNew(dev C.uint64_t, slotBytes C.uint64_t, nslots C.uint32_t, dropOldest C.int, eo gfxcuda.ExportOptions, out *C.uint64_t) error {
	{
		if out == nil || slotBytes == 0 || nslots < 2 || nslots > 64 {
			return errorf(stInvalid, "gfxcuda_ring_new: give slots of at least 1 byte, 2 to 64 slots and an output")
		}
		handles.Lock()
		e, ok := handles.m[uint64(dev)]
		handles.Unlock()
		if !ok {
			return errorf(stBadHandle, "gfxcuda: %d is not a live handle", dev)
		}
		var objs []any
		var closers []func() error
		var exs []*gfxcuda.Shared
		fail := func(err error) error {
			for _, x := range exs {
				x.Close()
			}
			for _, c := range closers {
				c()
			}
			return err
		}
		var sd *sharedDevice
		for i := 0; i < int(nslots); i++ {
			var ex *gfxcuda.Shared
			var err error
			switch d := e.obj.(type) {
			case *compute.Device:
				var b *vulkan.Buffer
				b, err = d.Vulkan().NewBuffer(vulkan.BufferOptions{Size: uint64(slotBytes), Heap: vulkan.HeapReadback, Exportable: true})
				if err != nil {
					return fail(&statusError{stUnsupported, err})
				}
				var hs *hostSlot
				if hs, err = newHostSlot(b); err != nil {
					return fail(err)
				}
				objs, closers = append(objs, hs), append(closers, b.Close)
				ex, err = gfxcuda.ExportVulkan(d.Vulkan(), b, eo)
			case *sharedDevice:
				sd = d
				nb, err2 := d.d.NewBuffer(uint64(slotBytes))
				if err2 != nil {
					return fail(err2)
				}
				sb := &sharedBuffer{b: nb, sd: d, ordinal: d.ordinal}
				objs, closers = append(objs, sb), append(closers, sb.close)
				ex, err = gfxcuda.Export(nb, eo)
			default:
				return errorf(stInvalid, "gfxcuda: handle %d is a %s; a ring is made on a compute device (host-visible slots) or a shared device (CUDA slots)", dev, kindName(e.obj))
			}
			if err != nil {
				return fail(&statusError{stUnsupported, err})
			}
			exs = append(exs, ex)
		}
		r, err := gfxcuda.NewSharedRing(gfxcuda.SharedRingOptions{Slots: exs, DropOldest: dropOldest != 0, Export: eo})
		if err != nil {
			return fail(err)
		}
		rex, err := gfxcuda.Export(r)
		if err != nil {
			r.Close()
			return fail(err)
		}
		hs, err := storeSlots(objs, closers)
		if err != nil {
			rex.Close()
			r.Close()
			for _, x := range exs {
				x.Close()
			}
			return err
		}
		rg := &ring{r: r, ex: rex, slots: exs, objs: objs, sd: sd}
		return storeOwned(out, rg, rg.close, hs, uint64(dev))
	}
}

// timeUntil is the time left to deadline d (at least 0).
func timeUntil(d time.Time) time.Duration { return max(time.Until(d), 0) }

// gfxcuda_ring_slot returns the handle of slot i of a ring or ring reader (retained:
// the caller releases it).
//
//export gfxcuda_ring_slot
func gfxcuda_ring_slot(h C.uint64_t, i C.uint32_t, out *C.uint64_t) C.int {
	return call(func() error {
		if out == nil {
			return errorf(stInvalid, "gfxcuda_ring_slot: null output")
		}
		handles.Lock()
		e, ok := handles.m[uint64(h)]
		handles.Unlock()
		if !ok {
			return errorf(stBadHandle, "gfxcuda: %d is not a live handle", h)
		}
		var n int
		switch e.obj.(type) {
		case *ring, *ringReader:
			n = len(e.deps)
			if _, isRing := e.obj.(*ring); isRing {
				n-- // the device
			}
		default:
			return errorf(stInvalid, "gfxcuda: handle %d is a %s, not a ring", h, kindName(e.obj))
		}
		if int(i) >= n {
			return errorf(stRange, "gfxcuda: slot %d of a ring of %d", i, n)
		}
		s := e.deps[i]
		if err := retain(s); err != nil {
			return err
		}
		*out = C.uint64_t(s)
		return nil
	})
}

//export gfxcuda_ring_wait_consumers
func gfxcuda_ring_wait_consumers(h C.uint64_t, n C.int, timeoutMS C.int64_t) C.int {
	return call(func() error {
		r, err := get[*ring](uint64(h), "ring")
		if err != nil {
			return err
		}
		ctx, cancel := timeoutCtx(timeoutMS)
		defer cancel()
		return shareStatus(r.r.WaitConsumers(ctx, int(n)))
	})
}

//export gfxcuda_ring_acquire
func gfxcuda_ring_acquire(h C.uint64_t, timeoutMS C.int64_t, slot *C.uint32_t) C.int {
	return call(func() error {
		r, err := get[*ring](uint64(h), "ring")
		if err != nil {
			return err
		}
		if slot == nil {
			return errorf(stInvalid, "gfxcuda_ring_acquire: null output")
		}
		ctx, cancel := timeoutCtx(timeoutMS)
		defer cancel()
		s, err := r.r.Acquire(ctx)
		if err != nil {
			return shareStatus(err)
		}
		*slot = C.uint32_t(s)
		return nil
	})
}

//export gfxcuda_ring_publish
func gfxcuda_ring_publish(h C.uint64_t, slot C.uint32_t, user unsafe.Pointer, n C.size_t, stream C.uint64_t, timeoutMS C.int64_t, seq *C.uint64_t) C.int {
	return call(func() error {
		r, err := get[*ring](uint64(h), "ring")
		if err != nil {
			return err
		}
		if seq == nil || int(slot) >= len(r.objs) {
			return errorf(stInvalid, "gfxcuda_ring_publish: slot %d of %d, or null output", slot, len(r.objs))
		}
		u, err := hostBytes(user, uint64(n))
		if err != nil {
			return err
		}
		switch o := r.objs[slot].(type) {
		case *hostSlot:
			if err := o.b.Flush(0, o.b.Size()); err != nil {
				return err
			}
		case *sharedBuffer:
			// The frame is complete at publication: wait for the
			// producer's CUDA work on its stream.
			s, done, err := r.sd.stream(uint64(stream))
			if err != nil {
				return err
			}
			ctx, cancel := timeoutCtx(timeoutMS)
			err = s.Wait(ctx)
			cancel()
			done()
			if err != nil {
				return shareStatus(err)
			}
		}
		q, err := r.r.Publish(int(slot), append([]byte(nil), u...), 0)
		if err != nil {
			return &statusError{stInvalid, err}
		}
		*seq = C.uint64_t(q)
		return nil
	})
}

// ringReader is a consumer of another process's ring.
type ringReader struct {
	c    *gfxcuda.Consumer
	objs []any
	sd   *sharedDevice // CUDA slots; nil: host slots
	csem *cuda.ExternalSemaphore
	vsem *vulkan.Semaphore

	mu   sync.Mutex
	held *gfxcuda.Frame
}

func (r *ringReader) close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	err := r.c.Close() // releases a held frame
	r.held = nil
	if r.csem != nil {
		err = errors.Join(err, r.csem.Close())
	}
	if r.vsem != nil {
		err = errors.Join(err, r.vsem.Close())
	}
	return err
}

//export gfxcuda_ring_open
func gfxcuda_ring_open(dev C.uint64_t, token unsafe.Pointer, n C.size_t, out *C.uint64_t) C.int {
	return call(func() error {
		if out == nil {
			return errorf(stInvalid, "gfxcuda_ring_open: null output")
		}
		tok, err := tokenOf(token, n)
		if err != nil {
			return err
		}
		handles.Lock()
		e, ok := handles.m[uint64(dev)]
		handles.Unlock()
		if !ok {
			return errorf(stBadHandle, "gfxcuda: %d is not a live handle", dev)
		}
		ctx, cancel := context.WithTimeout(context.Background(), openTimeout)
		defer cancel()
		c, err := gfxcuda.OpenSharedRing(ctx, tok)
		if err != nil {
			return shareStatus(err)
		}
		rr := &ringReader{c: c}
		var objs []any
		var closers []func() error
		fail := func(err error) error {
			for _, cl := range closers {
				cl()
			}
			rr.close()
			return shareStatus(err)
		}
		for _, st := range c.Slots() {
			switch d := e.obj.(type) {
			case *compute.Device:
				b, err := gfxcuda.OpenVulkanBuffer(ctx, d.Vulkan(), st)
				if err != nil {
					return fail(err)
				}
				hs, err := newHostSlot(b)
				if err != nil {
					return fail(err)
				}
				objs, closers = append(objs, hs), append(closers, b.Close)
			case *sharedDevice:
				rr.sd = d
				b, err := d.d.OpenBuffer(ctx, st)
				if err != nil {
					return fail(err)
				}
				sb := &sharedBuffer{b: b, sd: d, ordinal: d.ordinal}
				objs, closers = append(objs, sb), append(closers, sb.close)
			default:
				c.Close()
				return errorf(stInvalid, "gfxcuda: handle %d is a %s; open a ring on a compute device (host slots) or a shared device (CUDA slots)", dev, kindName(e.obj))
			}
		}
		if st := c.Semaphore(); st != "" {
			switch d := e.obj.(type) {
			case *compute.Device:
				rr.vsem, err = gfxcuda.OpenVulkanSemaphore(ctx, d.Vulkan(), st)
			case *sharedDevice:
				rr.csem, err = gfxcuda.OpenCUDASemaphore(ctx, d.d.CUDA(), st)
			}
			if err != nil {
				return fail(err)
			}
		}
		rr.objs = objs
		hs, err := storeSlots(objs, closers)
		if err != nil {
			rr.close()
			return err
		}
		return storeOwned(out, rr, rr.close, hs)
	})
}

//export gfxcuda_ring_next
func gfxcuda_ring_next(h C.uint64_t, timeoutMS C.int64_t, stream C.uint64_t, slot *C.uint32_t, seq, dropped *C.uint64_t,
	user unsafe.Pointer, userCap C.size_t, userLen *C.size_t) C.int {
	return call(func() error {
		r, err := get[*ringReader](uint64(h), "ring reader")
		if err != nil {
			return err
		}
		if slot == nil || seq == nil || dropped == nil || userLen == nil {
			return errorf(stInvalid, "gfxcuda_ring_next: null output")
		}
		r.mu.Lock()
		defer r.mu.Unlock()
		if r.held != nil {
			if err := r.c.Release(r.held); err != nil {
				return err
			}
			r.held = nil
		}
		ctx, cancel := timeoutCtx(timeoutMS)
		defer cancel()
		f, err := r.c.Next(ctx)
		if err != nil {
			return shareStatus(err)
		}
		if f.Slot < 0 || f.Slot >= len(r.objs) {
			r.c.Release(f)
			return errorf(stInternal, "gfxcuda: the ring gave slot %d of %d", f.Slot, len(r.objs))
		}
		// Make the frame's content visible: the producer's semaphore
		// value on the caller's stream (CUDA) or the host (host slots).
		if f.Wait > 0 {
			switch {
			case r.csem != nil:
				s, done, err := r.sd.stream(uint64(stream))
				if err == nil {
					err = r.csem.Wait(s, f.Wait)
					done()
				}
				if err != nil {
					r.c.Release(f)
					return err
				}
			case r.vsem != nil:
				d, _ := ctx.Deadline()
				if err := r.vsem.Wait(f.Wait, timeUntil(d)); err != nil {
					r.c.Release(f)
					return err
				}
			}
		}
		if hs, ok := r.objs[f.Slot].(*hostSlot); ok {
			if err := hs.b.Invalidate(0, hs.b.Size()); err != nil {
				r.c.Release(f)
				return err
			}
		}
		r.held = f
		*slot, *seq, *dropped = C.uint32_t(f.Slot), C.uint64_t(f.Seq), C.uint64_t(f.Dropped)
		*userLen = C.size_t(len(f.User))
		if user != nil && userCap > 0 {
			copy(unsafe.Slice((*byte)(user), int(userCap)), f.User)
		}
		return nil
	})
}

//export gfxcuda_ring_release
func gfxcuda_ring_release(h C.uint64_t) C.int {
	return call(func() error {
		r, err := get[*ringReader](uint64(h), "ring reader")
		if err != nil {
			return err
		}
		r.mu.Lock()
		defer r.mu.Unlock()
		if r.held == nil {
			return nil
		}
		f := r.held
		r.held = nil
		return r.c.Release(f)
	})
}
