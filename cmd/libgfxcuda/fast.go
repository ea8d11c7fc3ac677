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
