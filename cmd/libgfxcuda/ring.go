package main

/*
#include <stdlib.h>
#include "capi.h"
*/
import "C"

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"unsafe"

	"github.com/gfxcuda/gfxcuda"
	"github.com/gfxcuda/gfxcuda/compute"
	"github.com/gfxcuda/gfxcuda/cuda"
	"github.com/gfxcuda/gfxcuda/slotring"
)

// Frame rings between processes: the handles of a slotring.Ring (a
// producer's ring of slots) and a slotring.Reader (a consumer of
// another process's ring). Slots are host-visible Vulkan buffers (made on a
// compute device: the CPU reaches them) or shared Vulkan/CUDA buffers (made
// on a shared device: CUDA reaches them); either is a table entry that
// DLPack exports.
//
// Handles: the ring (or reader) retains its slots (then the device); each
// slot retains a hidden core entry that closes the slotring.Ring (or reader)
// when the last slot goes. Releasing the ring stops it at once (consumers
// see it closed), while slots a caller still holds stay mapped.

// hostSlot is a host-visible Vulkan slot, mapped.
type hostSlot struct {
	s   *slotring.Slot
	mem []byte // the persistent mapping (C memory, not Go's)
}

func (h *hostSlot) ptr() uint64 { return uint64(h.s.HostAddr()) }

// ring is the producer's side.
type ring struct {
	r    *slotring.Ring
	objs []any // *hostSlot or *sharedBuffer, by slot
	sd   *sharedDevice
}

// ringCore is the hidden entry that owns a slotring.Ring or slotring.Reader.
type ringCore struct{}

// slotObjs makes the table objects of slots: host slots, or shared
// buffers of sd, which do not own their buffer (the core does).
func slotObjs(slots []*slotring.Slot, sd *sharedDevice) []any {
	objs := make([]any, len(slots))
	for i, s := range slots {
		if b := s.Buffer(); b != nil {
			objs[i] = &sharedBuffer{b: b, sd: sd, ordinal: sd.ordinal}
		} else {
			objs[i] = &hostSlot{s: s, mem: s.Host()}
		}
	}
	return objs
}

// storeRing stores a ring or reader obj (stop ends it) over its slots,
// and the core (closeAll frees everything) that the slots retain.
// A ring retains its device after its slots (gfxcuda_ring_slot counts on
// it); a reader retains its slots only.
func storeRing(out *C.uint64_t, obj any, stop, closeAll func() error, objs []any, dev uint64, ringDeps ...uint64) error {
	return storeRingCore(out, obj, stop, closeAll, objs, []uint64{dev}, ringDeps...)
}

// storeRingCore is storeRing with the handles the core retains (none for
// a peer reader, whose CUDA contexts are the library's).
func storeRingCore(out *C.uint64_t, obj any, stop, closeAll func() error, objs []any, coreDeps []uint64, ringDeps ...uint64) error {
	core, err := add(ringCore{}, closeAll, coreDeps...)
	if err != nil {
		return err
	}
	hs := make([]uint64, 0, len(objs))
	for _, o := range objs {
		var close func() error
		if sb, ok := o.(*sharedBuffer); ok {
			close = sb.close // its export and hand-off; the buffer is the core's (Close is idempotent)
		}
		h, err := add(o, close, core)
		if err != nil {
			for _, x := range hs {
				release(x)
			}
			release(core)
			return err
		}
		hs = append(hs, h)
	}
	release(core) // the slots hold it now
	err = store(out, obj, stop, append(hs, ringDeps...)...)
	for _, h := range hs {
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
	if out == nil || slotBytes == 0 || nslots < 2 || nslots > 64 {
		return errorf(stInvalid, "gfxcuda_ring_new: give slots of at least 1 byte, 2 to 64 slots and an output")
	}
	handles.Lock()
	e, ok := handles.m[uint64(dev)]
	handles.Unlock()
	if !ok {
		return errorf(stBadHandle, "gfxcuda: %d is not a live handle", dev)
	}
	o := slotring.Options{SlotBytes: uint64(slotBytes), Slots: int(nslots), DropOldest: dropOldest != 0, Export: eo}
	var r *slotring.Ring
	var sd *sharedDevice
	var err error
	switch d := e.obj.(type) {
	case *compute.Device:
		r, err = slotring.NewHost(d.Vulkan(), o)
	case *sharedDevice:
		sd = d
		r, err = slotring.New(d.d, o)
	default:
		return errorf(stInvalid, "gfxcuda: handle %d is a %s; a ring is made on a compute device (host-visible slots) or a shared device (CUDA slots)", dev, kindName(e.obj))
	}
	if err != nil {
		if errors.Is(err, gfxcuda.ErrUnsupported) {
			return &statusError{stUnsupported, err}
		}
		return err
	}
	rg := &ring{r: r, objs: slotObjs(r.Slots(), sd), sd: sd}
	return storeRing(out, rg, r.Stop, r.Close, rg.objs, uint64(dev), uint64(dev))
}

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
		var s *cuda.Stream
		if r.sd != nil {
			var done func()
			if s, done, err = r.sd.stream(uint64(stream)); err != nil {
				return err
			}
			defer done()
		}
		ctx, cancel := timeoutCtx(timeoutMS)
		defer cancel()
		q, err := r.r.Publish(ctx, int(slot), u, s)
		if errors.Is(err, slotring.ErrPublishRefused) {
			return &statusError{stInvalid, err}
		}
		if err != nil {
			return shareStatus(err)
		}
		*seq = C.uint64_t(q)
		return nil
	})
}

// ringReader is a consumer of another process's ring.
type ringReader struct {
	r    *slotring.Reader
	objs []any
	sd   *sharedDevice // CUDA slots; nil: host slots

	// A peer reader (gfxcuda_ring_open_peer) has a PeerConsumer instead of
	// r, and objs are its frame buffers (wrappedMem on the consumer's GPU).
	peer    *gfxcuda.PeerConsumer
	cx      *cuda.Context // the consumer's (contextFor's, not owned)
	smu     sync.Mutex
	streams map[uint64]*cuda.Stream // the callers' streams, wrapped once
}

// peerTake takes the next frame of a peer reader on the caller's stream
// h (0: the legacy default stream). Each handle is wrapped once and kept
// while the consumer may still release a frame on it: once a Take
// succeeds, the frame it dropped was the last one the other wrappers could
// release, so they are closed, and a caller making a stream per frame
// does not grow the reader. Takes on one reader are serialized (each
// drops the frame the last one took).
func (r *ringReader) peerTake(ctx context.Context, h uint64) (*gfxcuda.Frame, error) {
	if h == 0 {
		h = uint64(cuda.LegacyDefaultStream)
	}
	r.smu.Lock()
	defer r.smu.Unlock()
	s := r.streams[h]
	if s == nil {
		var err error
		if s, err = cuda.WrapStream(r.cx, uintptr(h)); err != nil {
			return nil, &statusError{stInvalid, fmt.Errorf("gfxcuda: stream %#x: %w", h, err)}
		}
		r.streams[h] = s
	}
	f, err := r.peer.Take(ctx, s)
	if err == nil || r.peer.Held() == 0 {
		for k, o := range r.streams {
			if o != s || err != nil {
				o.Close()
				delete(r.streams, k)
			}
		}
	}
	return f, err
}

// closePeer detaches the peer reader and frees its frame buffers (the
// core's close: when the last slot handle goes).
func (r *ringReader) closePeer() error {
	err := r.peer.Close()
	r.smu.Lock()
	defer r.smu.Unlock()
	for _, s := range r.streams {
		err = errors.Join(err, s.Close())
	}
	r.streams = nil
	return err
}

//export gfxcuda_ring_open_peer
func gfxcuda_ring_open_peer(device *C.char, token unsafe.Pointer, n C.size_t, mode C.int, out *C.uint64_t) C.int {
	return call(func() error {
		if out == nil || device == nil {
			return errorf(stInvalid, "gfxcuda_ring_open_peer: null device or output")
		}
		if mode != 0 && mode != 1 {
			return errorf(stInvalid, "gfxcuda_ring_open_peer: mode %d (0: copy each frame to the consumer's GPU, 1: read it in place through peer access)", mode)
		}
		tok, err := tokenOf(token, n)
		if err != nil {
			return err
		}
		if err := cuda.Init(); err != nil {
			return &statusError{stNoCUDA, err}
		}
		d, err := cuda.LookupDevice(C.GoString(device))
		if err != nil {
			return &statusError{stNoDevice, err}
		}
		cx, err := contextFor(d.Ordinal())
		if err != nil {
			return err
		}
		ctx, cancel := context.WithTimeout(context.Background(), openTimeout)
		defer cancel()
		pc, err := gfxcuda.OpenPeerConsumer(ctx, cx, tok, gfxcuda.PeerOptions{Mode: gfxcuda.PeerMode(mode)})
		if err != nil {
			if errors.Is(err, gfxcuda.ErrResourceOnOtherGPU) {
				return &statusError{stNoDevice, err}
			}
			return shareStatus(err)
		}
		rr := &ringReader{peer: pc, cx: cx, streams: map[uint64]*cuda.Stream{}}
		for _, p := range pc.Buffers() {
			rr.objs = append(rr.objs, &wrappedMem{uint64(p), pc.Size(), d.Ordinal()})
		}
		return storeRingCore(out, rr, pc.Drop, rr.closePeer, rr.objs, nil)
	})
}

//export gfxcuda_ring_peer_direct
func gfxcuda_ring_peer_direct(h C.uint64_t, out *C.int) C.int {
	return call(func() error {
		if out == nil {
			return errorf(stInvalid, "gfxcuda_ring_peer_direct: null output")
		}
		r, err := get[*ringReader](uint64(h), "ring reader")
		if err != nil {
			return err
		}
		if r.peer == nil {
			return errorf(stInvalid, "gfxcuda_ring_peer_direct: the reader was opened with gfxcuda_ring_open, not gfxcuda_ring_open_peer")
		}
		*out = 0
		if r.peer.Direct() {
			*out = 1
		}
		return nil
	})
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
		var r *slotring.Reader
		var sd *sharedDevice
		switch d := e.obj.(type) {
		case *compute.Device:
			r, err = slotring.OpenHost(ctx, d.Vulkan(), tok)
		case *sharedDevice:
			sd = d
			r, err = slotring.Open(ctx, d.d, tok)
		default:
			return errorf(stInvalid, "gfxcuda: handle %d is a %s; open a ring on a compute device (host slots) or a shared device (CUDA slots)", dev, kindName(e.obj))
		}
		if err != nil {
			return shareStatus(err)
		}
		rr := &ringReader{r: r, objs: slotObjs(r.Slots(), sd), sd: sd}
		return storeRing(out, rr, r.Stop, r.Close, rr.objs, uint64(dev))
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
		ctx, cancel := timeoutCtx(timeoutMS)
		defer cancel()
		var f *gfxcuda.Frame
		switch {
		case r.peer != nil:
			f, err = r.peerTake(ctx, uint64(stream))
		case r.sd != nil:
			s, done, serr := r.sd.stream(uint64(stream))
			if serr != nil {
				return serr
			}
			defer done()
			f, err = r.r.Next(ctx, s)
		default:
			f, err = r.r.Next(ctx, nil)
		}
		if err != nil {
			return shareStatus(err)
		}
		idx := f.Slot
		if r.peer != nil {
			idx = r.peer.Index(f) // its frame buffer
		}
		*slot, *seq, *dropped = C.uint32_t(idx), C.uint64_t(f.Seq), C.uint64_t(f.Dropped)
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
		if r.peer != nil {
			return r.peer.Drop()
		}
		return r.r.Release()
	})
}
