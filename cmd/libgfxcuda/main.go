// Command libgfxcuda is gfxcuda's C library: built with
// -buildmode=c-shared (make lib) it becomes libgfxcuda.so, and gfxcuda.h
// (in this directory) documents every function. Python's gfxcuda package
// reaches gfxcuda through it with ctypes.
//
// Conventions: every function returns a status (GFXCUDA_OK or an error
// code); on error gfxcuda_last_error returns a message for the calling
// thread. Objects are opaque 64-bit handles, integers into a table, never
// pointers; gfxcuda_release drops one. Objects keep what they were made
// from alive (a buffer its device, a DLPack tensor its memory). Every
// function is safe to call from several threads at once.
//
// gfxcuda.h is the one declaration of the C ABI: Python's ctypes
// declarations (python/gfxcuda/_abi.py) are generated from it.
package main

//go:generate go run ../internal/abigen -header gfxcuda.h -out ../../python/gfxcuda/_abi.py

/*
#include <stdlib.h>
#include "capi.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"runtime/debug"
	"sync"
	"unsafe"

	"github.com/gfxcuda/gfxcuda/cuda"
	"github.com/gfxcuda/gfxcuda/shader"
)

func main() {}

// Status codes (gfxcuda_status in gfxcuda.h).
const (
	stOK             = 0
	stInvalid        = 1
	stRange          = 2
	stBadHandle      = 3
	stUnsupported    = 4
	stNotImplemented = 5
	stNoDevice       = 6
	stNoCUDA         = 7
	stCompile        = 8
	stFailed         = 9
	stInternal       = 10
	stClosed         = 11
	stTimeout        = 12
)

// statusError carries a status code.
type statusError struct {
	code int
	err  error
}

func (e *statusError) Error() string { return e.err.Error() }
func (e *statusError) Unwrap() error { return e.err }

func errorf(code int, f string, args ...any) error {
	return &statusError{code, fmt.Errorf(f, args...)}
}

// statusOf maps an error to a status code.
func statusOf(err error) int {
	var se *statusError
	var ce *shader.CompileError
	switch {
	case errors.As(err, &se):
		return se.code
	case errors.As(err, &ce):
		return stCompile
	case errors.Is(err, cuda.ErrNoDriver):
		return stNoCUDA
	}
	return stFailed
}

// call runs f, records its error as the thread's last error and returns
// its status; a panic becomes GFXCUDA_ERR_INTERNAL.
func call(f func() error) (st C.int) {
	defer func() {
		if r := recover(); r != nil {
			msg := fmt.Sprintf("gfxcuda: internal error (please report): %v\n%s", r, debug.Stack())
			setError(msg)
			st = stInternal
		}
	}()
	err := f()
	if err == nil {
		return stOK
	}
	setError(messageOf(err))
	return C.int(statusOf(err))
}

// messageOf is err's message for gfxcuda_last_error: a missing or unusable
// CUDA driver also says how to fix it, as `gfxcuda devices` and `gfxcuda
// doctor` do (the Python package's NoCUDAError carries this message).
func messageOf(err error) string {
	msg := err.Error()
	var nd *cuda.NoDriverError
	if errors.As(err, &nd) || errors.Is(err, cuda.ErrNoDriver) {
		if nd != nil && nd.Fix != "" {
			msg += "; fix: " + nd.Fix
		}
		msg += " (gfxcuda's CUDA functions need an NVIDIA GPU and driver; `gfxcuda doctor` checks the setup and says what is missing)"
	}
	return msg
}

func setError(msg string) {
	cs := C.CString(msg)
	C.gfx_set_error(cs, C.size_t(len(msg)))
	C.free(unsafe.Pointer(cs))
}

// entry is an object in the handle table. refs counts the caller's
// reference and those of dependents (resources of a device, DLPack tensors
// of a memory); the object is closed when the last goes.
type entry struct {
	obj   any
	refs  int
	close func() error
	deps  []uint64 // handles this one retains
	// pooled: a small buffer whose close returns it to bufferPool
	// (fast.go); gfxcuda_buffer_recycle_n keeps such a buffer for its
	// caller when the caller's reference is its last.
	pooled bool
}

var handles = struct {
	sync.Mutex
	next uint64
	m    map[uint64]*entry
}{m: map[uint64]*entry{}}

// store adds obj to the table with one reference, retaining deps, and
// writes its handle to out; close runs when the last reference goes, then
// deps are released. When a dep is gone already, obj is closed and an
// error returned.
func store(out *C.uint64_t, obj any, close func() error, deps ...uint64) error {
	h, err := add(obj, close, deps...)
	if err != nil {
		return err
	}
	*out = C.uint64_t(h)
	return nil
}

// add is store returning the handle. deps is copied: callers may pass a
// slice over C memory that is valid only during the call (gfxcuda_to_cuda's
// handle list).
func add(obj any, close func() error, deps ...uint64) (uint64, error) {
	deps = append([]uint64(nil), deps...)
	handles.Lock()
	for _, d := range deps {
		if _, ok := handles.m[d]; !ok {
			handles.Unlock()
			if close != nil {
				close()
			}
			return 0, errorf(stBadHandle, "gfxcuda: handle %d was released while in use", d)
		}
	}
	for _, d := range deps {
		handles.m[d].refs++
	}
	handles.next++
	h := handles.next
	handles.m[h] = &entry{obj: obj, refs: 1, close: close, deps: deps}
	handles.Unlock()
	return h, nil
}

// get returns the object of handle h as a T.
func get[T any](h uint64, what string) (T, error) {
	handles.Lock()
	e, ok := handles.m[uint64(h)]
	handles.Unlock()
	var zero T
	if !ok {
		return zero, errorf(stBadHandle, "gfxcuda: %d is not a live handle (released already, or never made)", h)
	}
	t, ok := e.obj.(T)
	if !ok {
		return zero, errorf(stInvalid, "gfxcuda: handle %d is a %s, not a %s", h, kindName(e.obj), what)
	}
	return t, nil
}

func retain(h uint64) error {
	handles.Lock()
	defer handles.Unlock()
	e, ok := handles.m[h]
	if !ok {
		return errorf(stBadHandle, "gfxcuda: %d is not a live handle", h)
	}
	e.refs++
	return nil
}

func release(h uint64) error {
	first := h
	var errs []error
	for pending := []uint64{h}; len(pending) > 0; {
		h := pending[0]
		pending = pending[1:]
		handles.Lock()
		e, ok := handles.m[h]
		if !ok {
			handles.Unlock()
			if h == first {
				return errorf(stBadHandle, "gfxcuda: %d is not a live handle (released twice?)", h)
			}
			// A dependency gone early is a bookkeeping bug; report it,
			// but still release the other dependencies.
			errs = append(errs, errorf(stInternal, "gfxcuda: internal error (please report): handle %d retained handle %d, which is gone", first, h))
			continue
		}
		e.refs--
		last := e.refs == 0
		if last {
			delete(handles.m, h)
		}
		handles.Unlock()
		if last {
			if e.close != nil {
				if err := e.close(); err != nil {
					errs = append(errs, err)
				}
			}
			pending = append(pending, e.deps...)
		}
	}
	return errors.Join(errs...)
}

//export gfxcuda_release
func gfxcuda_release(h C.uint64_t) C.int {
	return call(func() error { return release(uint64(h)) })
}

//export gfxcuda_retain
func gfxcuda_retain(h C.uint64_t) C.int {
	return call(func() error { return retain(uint64(h)) })
}

//export gfxcuda_live_handles
func gfxcuda_live_handles(n *C.uint64_t) C.int {
	return call(func() error {
		if n == nil {
			return errorf(stInvalid, "gfxcuda_live_handles: null output")
		}
		handles.Lock()
		*n = C.uint64_t(len(handles.m))
		handles.Unlock()
		return nil
	})
}

// cBytes copies b into malloc'd memory the caller frees with gfxcuda_free.
func cBytes(b []byte, out *unsafe.Pointer, n *C.size_t) error {
	if out == nil || n == nil {
		return errorf(stInvalid, "null output pointer")
	}
	p := C.malloc(C.size_t(max(len(b), 1)))
	if p == nil {
		return errorf(stFailed, "out of host memory")
	}
	copy(unsafe.Slice((*byte)(p), len(b)), b)
	*out, *n = p, C.size_t(len(b))
	return nil
}

// hostBytes views C memory as a byte slice (nil for n == 0).
func hostBytes(p unsafe.Pointer, n uint64) ([]byte, error) {
	if n == 0 {
		return nil, nil
	}
	if p == nil {
		return nil, errorf(stInvalid, "null data pointer for %d bytes", n)
	}
	return unsafe.Slice((*byte)(p), n), nil
}
