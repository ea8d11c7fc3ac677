// Package lifetime guards the driver handles of one object against
// destruction while a call uses them; packages vulkan and cuda embed it in
// every object that hands handles to a driver.
package lifetime

import (
	"errors"
	"sync"
)

// ErrClosed is the error of a use of an object after its Close. It is
// gfxcuda.ErrClosed: the face and the packages below it that keep its
// objects' rules (tensorconv's converters, cudapool's segments) return
// this one value, so that errors.Is(err, gfxcuda.ErrClosed) holds for all.
var ErrClosed = errors.New("interop: use of closed object")

// Life counts the calls in progress on one object. Every method that hands
// the object's handles to a driver acquires a use first and releases it
// when the driver call has returned; Shut closes the object: later
// acquires fail, Shut waits until the uses in progress have been released,
// then destroys the handles, once. Later and concurrent Shut calls wait for
// that destruction.
//
// Acquire never blocks, so a method may hold uses of several objects at once
// without deadlock; the one rule is that a goroutine must not shut an object
// while it holds a use of it. The zero value is an open object.
type Life struct {
	mu      sync.Mutex
	closing bool
	active  int
	idle    chan struct{} // closed when active drops to 0 while closing
	done    chan struct{} // closed when destroy has returned
}

// Acquire reports whether the object is open, and if so keeps it open until
// the matching Release.
func (l *Life) Acquire() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closing {
		return false
	}
	l.active++
	return true
}

// Release ends a use taken by Acquire.
func (l *Life) Release() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.active--
	if l.active < 0 {
		// A Release without its Acquire is a bug in the caller's package;
		// keep the count sane rather than panic in a user's process.
		l.active = 0
	}
	if l.active == 0 && l.idle != nil {
		close(l.idle)
		l.idle = nil
	}
}

// Closing reports whether Shut has been called.
func (l *Life) Closing() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.closing
}

// Shut closes the object: the first call makes Acquire fail from then on,
// waits until every use has been released, and runs destroy. Later and
// concurrent calls wait until destroy has returned. It reports whether this
// call ran destroy.
func (l *Life) Shut(destroy func()) bool {
	l.mu.Lock()
	if l.closing {
		done := l.done
		l.mu.Unlock()
		<-done
		return false
	}
	l.closing = true
	l.done = make(chan struct{})
	var idle chan struct{}
	if l.active > 0 {
		idle = make(chan struct{})
		l.idle = idle
	}
	l.mu.Unlock()
	if idle != nil {
		<-idle
	}
	defer close(l.done)
	destroy()
	return true
}
