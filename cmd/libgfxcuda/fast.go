package main

// fast.go: one-call variants of hot entry points for the Python binding,
// whose every ctypes call and out-parameter costs more than the work of a
// small call (python/bench/compushady_side.py measures them against
// compushady's), and the pool of small buffers behind Buffer().

/*
#include "capi.h"
*/
import "C"

import (
	"fmt"
	"sync"
	"unsafe"
)

// gfxcuda_buffer_create is gfxcuda_buffer_new returning the handle (> 0),
// or minus the status on error. A small buffer comes from the pool of
// released ones of the same device, size, heap, stride and format when it
// has one, and returns to it when its last reference goes.
//
//export gfxcuda_buffer_create
func gfxcuda_buffer_create(dev C.uint64_t, size C.uint64_t, heap C.int, stride C.uint32_t, f C.uint32_t) C.int64_t {
	k := poolKey{uint64(dev), uint64(size), int32(heap), uint32(stride), uint32(f)}
	pool := k.size > 0 && k.size <= poolMaxSize
	if pool {
		if h := fromPool(k); h != 0 {
			return C.int64_t(h)
		}
	}
	var h C.uint64_t
	if st := gfxcuda_buffer_new(dev, size, heap, stride, f, &h); st != stOK {
		return -C.int64_t(st)
	}
	if pool {
		handles.Lock()
		if e := handles.m[uint64(h)]; e != nil && len(e.deps) == 1 && e.deps[0] == k.dev {
			if _, ok := e.obj.(*buffer); ok {
				e.close = poolClose(k, e, e.close)
				e.pooled = true
			}
		}
		handles.Unlock()
	}
	return C.int64_t(h)
}

// gfxcuda_buffer_create_int is gfxcuda_buffer_create with C int arguments,
// and gfxcuda_release_int gfxcuda_release: for a foreign-function layer
// that passes an int as it is but converts a uint64 or uint32 argument
// through an object of its own (Python's ctypes: 5 such conversions cost
// more than the call they feed). A negative argument is
// GFXCUDA_ERROR_INVALID_ARGUMENT; handles and sizes of 2**31 and up go
// through the uint64 functions.
//
//export gfxcuda_buffer_create_int
func gfxcuda_buffer_create_int(dev, size, heap, stride, f C.int) C.int64_t {
	if dev < 0 || size < 0 || stride < 0 || f < 0 {
		setError(fmt.Sprintf("gfxcuda: gfxcuda_buffer_create_int(device %d, size %d, heap %d, stride %d, format %d): "+
			"a negative argument; pass values from 0 to 2**31 - 1 (gfxcuda_buffer_create takes larger ones)", dev, size, heap, stride, f))
		return -C.int64_t(stInvalid)
	}
	return gfxcuda_buffer_create(C.uint64_t(dev), C.uint64_t(size), heap, C.uint32_t(stride), C.uint32_t(f))
}

//export gfxcuda_release_int
func gfxcuda_release_int(h C.int) C.int {
	if h < 0 {
		setError(fmt.Sprintf("gfxcuda: gfxcuda_release_int(%d): a negative handle; handles are 1 and up", h))
		return stInvalid
	}
	return gfxcuda_release(C.uint64_t(h))
}

// gfxcuda_buffer_create_n makes up to n buffers as gfxcuda_buffer_create
// does and writes their handles to out[0..n): returns how many it made
// (n, or fewer when one failed: minus that status when none was made; the
// message as for any error). gfxcuda_release_n releases n handles as
// gfxcuda_release does, every one even when some fail: returns the first
// failure's status (0 when none failed). One call for many buffers: the
// Python binding makes small buffers ahead in batches and releases
// dropped ones in batches, where a call each would cost more than the
// buffer.
//
//export gfxcuda_buffer_create_n
func gfxcuda_buffer_create_n(dev, size C.uint64_t, heap C.int, stride, f C.uint32_t, out *C.int64_t, n C.int) C.int64_t {
	if out == nil || n <= 0 || n > 1<<20 {
		setError(fmt.Sprintf("gfxcuda: gfxcuda_buffer_create_n(out %p, n %d): pass an array of n handles, n from 1 to 2**20", out, n))
		return -C.int64_t(stInvalid)
	}
	dst := unsafe.Slice(out, int(n))
	for i := range dst {
		h := gfxcuda_buffer_create(dev, size, heap, stride, f)
		if h < 0 {
			if i == 0 {
				return h
			}
			return C.int64_t(i)
		}
		dst[i] = h
	}
	return C.int64_t(n)
}

// gfxcuda_buffer_recycle_n takes n handles of buffers their caller is done
// with: a small buffer made by gfxcuda_buffer_create (or _n) whose handle
// holds its only reference (no pipeline, export or view uses it) stays
// live under its handle, for the caller to use again as a new buffer of
// the same device, size, heap, stride and format (its bytes undefined, as
// a new buffer's are); every other handle is released and its slot set to
// 0. Returns how many were kept, or minus the status of the first release
// that failed (every handle is still done). A binding that wraps each
// buffer in an object of its own (Python) thus reuses the buffers of
// dropped objects with one call per batch and nothing else per buffer.
//
//export gfxcuda_buffer_recycle_n
func gfxcuda_buffer_recycle_n(hs *C.int64_t, n C.int) C.int64_t {
	if n == 0 {
		return 0
	}
	if hs == nil || n < 0 || n > 1<<20 {
		setError(fmt.Sprintf("gfxcuda: gfxcuda_buffer_recycle_n(handles %p, n %d): pass an array of n handles, n from 0 to 2**20", hs, n))
		return -C.int64_t(stInvalid)
	}
	s := unsafe.Slice(hs, int(n))
	kept := 0
	var drop []C.int64_t
	handles.Lock()
	for i, h := range s {
		if e := handles.m[uint64(h)]; h > 0 && e != nil && e.pooled && e.refs == 1 {
			kept++
		} else {
			drop = append(drop, h) // released below, without the lock
			s[i] = 0
		}
	}
	handles.Unlock()
	if st := releaseEach("gfxcuda_buffer_recycle_n", drop); st != stOK {
		return -C.int64_t(st)
	}
	return C.int64_t(kept)
}

// releaseEach releases every handle of hs as gfxcuda_release does, even
// when some fail, and returns the first failure's status (a handle below 1
// is an invalid argument, named with where).
func releaseEach(where string, hs []C.int64_t) C.int {
	first := C.int(stOK)
	for _, h := range hs {
		var st C.int
		if h <= 0 {
			setError(fmt.Sprintf("gfxcuda: %s: handle %d; handles are 1 and up", where, h))
			st = stInvalid
		} else {
			st = gfxcuda_release(C.uint64_t(h))
		}
		if st != stOK && first == stOK {
			first = st
		}
	}
	return first
}

//export gfxcuda_release_n
func gfxcuda_release_n(hs *C.int64_t, n C.int) C.int {
	if n == 0 {
		return stOK
	}
	if hs == nil || n < 0 || n > 1<<20 {
		setError(fmt.Sprintf("gfxcuda: gfxcuda_release_n(handles %p, n %d): pass an array of n handles, n from 0 to 2**20", hs, n))
		return stInvalid
	}
	return releaseEach("gfxcuda_release_n", unsafe.Slice(hs, int(n)))
}

// The pool of small buffers. A buffer enters it when the last reference
// to its handle goes (nothing uses it then: every call that submits work
// waits for it, and what keeps using a buffer, a pipeline, an export,
// holds a reference); it leaves it as a new handle, its table entry
// reused. Its bytes are what they were, as a new buffer's are undefined.
// A pooled buffer stays a child of its device: the device's Close frees
// it, and entries of a device whose handle is gone are dropped when the
// pool is full.
type poolKey struct {
	dev, size      uint64
	heap           int32
	stride, format uint32
}

var bufferPool = struct {
	sync.Mutex
	m     map[poolKey][]*entry
	count int
	bytes uint64
}{m: map[poolKey][]*entry{}}

const (
	poolMaxSize  = 64 << 10 // larger buffers cost little more to make than to track
	poolMaxCount = 256
	poolMaxBytes = 4 << 20
)

// fromPool hands out a pooled buffer of k as a new handle, or returns 0
// when the pool has none or the device handle is gone (then
// gfxcuda_buffer_new reports it).
func fromPool(k poolKey) uint64 {
	bufferPool.Lock()
	l := bufferPool.m[k]
	if len(l) == 0 {
		bufferPool.Unlock()
		return 0
	}
	e := l[len(l)-1]
	l[len(l)-1] = nil
	bufferPool.m[k] = l[:len(l)-1]
	bufferPool.count--
	bufferPool.bytes -= k.size
	bufferPool.Unlock()
	handles.Lock()
	d, ok := handles.m[k.dev]
	if !ok { // the device is closing: it frees the buffer
		handles.Unlock()
		return 0
	}
	d.refs++
	e.refs = 1
	handles.next++
	h := handles.next
	handles.m[h] = e
	handles.Unlock()
	return h
}

// poolClose is the close function of a pooled buffer's table entry e:
// back into the pool, or close when the pool is full. (The device is
// live: the entry holds its reference until close returns.)
func poolClose(k poolKey, e *entry, close func() error) func() error {
	return func() error {
		bufferPool.Lock()
		if bufferPool.count >= poolMaxCount || bufferPool.bytes+k.size > poolMaxBytes {
			dropStale()
		}
		if bufferPool.count < poolMaxCount && bufferPool.bytes+k.size <= poolMaxBytes {
			bufferPool.m[k] = append(bufferPool.m[k], e)
			bufferPool.count++
			bufferPool.bytes += k.size
			bufferPool.Unlock()
			return nil
		}
		bufferPool.Unlock()
		return close()
	}
}

// handleLive reports whether handle h is in the table.
func handleLive(h uint64) bool {
	handles.Lock()
	_, ok := handles.m[h]
	handles.Unlock()
	return ok
}

// dropStale forgets the pooled buffers of devices whose handle is gone
// (their device frees them). bufferPool is locked.
func dropStale() {
	for k, l := range bufferPool.m {
		if len(l) == 0 || !handleLive(k.dev) {
			bufferPool.count -= len(l)
			bufferPool.bytes -= uint64(len(l)) * k.size
			delete(bufferPool.m, k)
		}
	}
}
