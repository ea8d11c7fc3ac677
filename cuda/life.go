package cuda

import "sync"

// life guards the driver handles of one object against destruction while a
// call uses them. Every method that hands a handle to the driver acquires a
// use first and releases it when the driver call has returned; Close shuts
// the object: later acquires fail with ErrClosed, Close waits until the uses
// in progress have been released, then destroys the handles, once. Later
// and concurrent Close calls wait for that destruction and return nil.
//
// acquire never blocks, so a method may hold uses of several objects at once
// (an event and a stream, say) without deadlock; the one rule is that a
// goroutine must not close an object while it holds a use of it. The zero
// value is an open object.
type life struct {
	mu      sync.Mutex
	closing bool
	active  int
	idle    chan struct{} // closed when active drops to 0 while closing
	done    chan struct{} // closed when destroy has returned
}

// acquire takes a use, or returns ErrClosed once the object is closing.
func (l *life) acquire() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closing {
		return ErrClosed
	}
	l.active++
	return nil
}

// release ends a use taken by acquire.
func (l *life) release() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.active--
	if l.active < 0 {
		// A release without its acquire is a bug in this package; keep the
		// count sane rather than panic in a caller's process.
		l.active = 0
	}
	if l.active == 0 && l.idle != nil {
		close(l.idle)
		l.idle = nil
	}
}

// closed reports whether shut has been called.
func (l *life) closed() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.closing
}

// shut closes the object: the first call makes acquire fail from then on,
// waits until every use has been released and returns destroy's error.
// Later and concurrent calls wait until destroy has returned and return nil.
func (l *life) shut(destroy func() error) error {
	l.mu.Lock()
	if l.closing {
		done := l.done
		l.mu.Unlock()
		<-done
		return nil
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
	return destroy()
}
