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
// released only when the last of them is closed too, so Close calls may come
// in any order. A Context is safe for concurrent use.
type Context struct {
	dev Device
	h   cu.Context

	mu     sync.Mutex
	refs   int  // 1 for the Context itself + 1 per live child
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

// acquire takes a reference for a new child object; it fails once the
// context is closed.
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

// live returns ErrClosed after Close.
func (c *Context) live() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return ErrClosed
	}
	return nil
}

// Close releases this reference to the primary context. It is idempotent.
// Objects still open keep the primary context alive until they are closed.
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
// The thread's previous context is restored afterwards.
func (c *Context) Do(f func() error) error {
	if err := c.live(); err != nil {
		return err
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	prev, r := cu.CtxGetCurrent()
	if err := check("cuCtxGetCurrent", r); err != nil {
		return err
	}
	if err := check("cuCtxSetCurrent", cu.CtxSetCurrent(c.h)); err != nil {
		return err
	}
	defer cu.CtxSetCurrent(prev)
	return f()
}

// IsCurrent reports whether the context is current on the calling OS
// thread. It is only meaningful inside Do or with the thread locked.
func (c *Context) IsCurrent() bool {
	cur, r := cu.CtxGetCurrent()
	return r == cu.Success && cur == c.h
}

// Synchronize waits until all work in the context has finished.
func (c *Context) Synchronize() error {
	if err := c.live(); err != nil {
		return err
	}
	return check("cuCtxSynchronize", cu.CtxSynchronize(c.h))
}

// MemInfo returns the device's free and total memory in bytes.
func (c *Context) MemInfo() (free, total uint64, err error) {
	if err := c.live(); err != nil {
		return 0, 0, err
	}
	free, total, r := cu.MemGetInfo(c.h)
	return free, total, check("cuMemGetInfo", r)
}

func (c *Context) String() string { return fmt.Sprintf("cuda.Context(device %d)", c.dev.ordinal) }
