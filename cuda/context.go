package cuda

import (
	"fmt"
	"runtime"
	"sync"

	"github.com/gfxcuda/gfxcuda/internal/cu"
)

// Context is a retained reference to a device's primary context: the
// context that the CUDA runtime, PyTorch, CuPy and Numba use, so pointers
// allocated through it are valid in those libraries too.
//
// Objects created from a Context (memory, streams, events) keep it alive:
// Close marks the Context closed at once, but the primary context is
// released only when the last of them is closed too, and when the last call
// in progress through the Context has returned, so Close calls may come in
// any order and at any time. A Context is safe for concurrent use.
//
// No call leaves the context current on the calling thread: each driver
// call makes it current for its own duration and restores whatever context
// the thread had before (see Do for code that needs it current).
type Context struct {
	dev Device
	h   cu.Context

	mu     sync.Mutex
	refs   int  // 1 for the Context itself + 1 per live child + 1 per call in progress
	closed bool // Close was called
}

// PrimaryContext retains the device's primary context. Close releases it.
func (d Device) PrimaryContext() (*Context, error) {
	h, r := cu.DevicePrimaryCtxRetain(d.h)
	if err := check("cuDevicePrimaryCtxRetain", r); err != nil {
		return nil, err
	}
	return &Context{dev: d, h: h, refs: 1}, nil
}

// Device returns the context's device.
func (c *Context) Device() Device { return c.dev }

// Handle returns the raw CUcontext. It is borrowed: valid while the Context
// (or an object made from it) is open; never destroy or release it, and do
// not leave it current on a thread gfxcuda does not own.
func (c *Context) Handle() uintptr { return c.h.Handle() }

// acquire takes a reference for a new child object or for one call in
// progress; it fails once the context is closed.
func (c *Context) acquire() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return ErrClosed
	}
	c.refs++
	return nil
}

// release drops a reference and releases the primary context with the last.
func (c *Context) release() error {
	c.mu.Lock()
	c.refs--
	last := c.refs == 0
	c.mu.Unlock()
	if last {
		return check("cuDevicePrimaryCtxRelease", cu.DevicePrimaryCtxRelease(c.dev.h))
	}
	return nil
}

// leave ends a call's reference taken with acquire, adding the release's
// error to the call's.
func (c *Context) leave(err *error) {
	if rerr := c.release(); *err == nil {
		*err = rerr
	}
}

// Close releases this reference to the primary context. It is idempotent.
// Objects still open, and calls in progress, keep the primary context alive
// until they are closed or return.
func (c *Context) Close() error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil
	}
	c.closed = true
	c.mu.Unlock()
	return c.release()
}

// Do runs f on a locked OS thread with the context current, for code that
// calls other CUDA libraries (through cgo) that expect a current context.
// The thread's previous context is restored and the thread unlocked
// afterwards (a thread the caller had locked stays locked).
func (c *Context) Do(f func() error) (err error) {
	if err := c.acquire(); err != nil {
		return err
	}
	defer c.leave(&err)
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	prev, r := cu.CtxGetCurrent()
	if err := check("cuCtxGetCurrent", r); err != nil {
		return err
	}
	if err := check("cuCtxSetCurrent", cu.CtxSetCurrent(c.h)); err != nil {
		return err
	}
	defer func() {
		if rerr := check("cuCtxSetCurrent", cu.CtxSetCurrent(prev)); err == nil {
			err = rerr
		}
	}()
	return f()
}

// IsCurrent reports whether the context is current on the calling OS
// thread. It is only meaningful inside Do or with the thread locked.
func (c *Context) IsCurrent() bool {
	cur, r := cu.CtxGetCurrent()
	return r == cu.Success && cur == c.h
}

// Synchronize waits until all work in the context has finished. It blocks
// the calling thread with no timeout (the driver offers no way to interrupt
// it); to wait with a deadline, record an Event on the streams concerned
// and use Event.Wait.
func (c *Context) Synchronize() (err error) {
	if err := c.acquire(); err != nil {
		return err
	}
	defer c.leave(&err)
	return check("cuCtxSynchronize", cu.CtxSynchronize(c.h))
}

// MemInfo returns the device's free and total memory in bytes.
func (c *Context) MemInfo() (free, total uint64, err error) {
	if err := c.acquire(); err != nil {
		return 0, 0, err
	}
	defer c.leave(&err)
	free, total, r := cu.MemGetInfo(c.h)
	return free, total, check("cuMemGetInfo", r)
}

func (c *Context) String() string {
	if name, err := c.dev.Name(); err == nil && name != "" {
		return fmt.Sprintf("CUDA device %d (%s)", c.dev.ordinal, name)
	}
	return fmt.Sprintf("CUDA device %d", c.dev.ordinal)
}
