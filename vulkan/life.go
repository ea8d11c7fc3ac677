package vulkan

import (
	"sync"
	"sync/atomic"
)

// life guards the Vulkan handles of one object against destruction while
// they are in use. Methods that use the handles acquire it and release it
// when done; shut marks the object closing, so that later acquires fail,
// waits for the acquisitions in progress, then destroys the handles once.
//
// acquire never blocks, so methods may nest acquisitions of any objects
// without deadlock; the one rule is that a goroutine must not shut an
// object while holding an acquisition of it. The zero value is ready.
type life struct {
	mu      sync.Mutex
	closing bool
	active  int
	idle    chan struct{} // closed when active drops to 0 while closing
	done    chan struct{} // closed when destroy has returned
}

// acquire reports whether the object is open, and if so keeps it open until
// the matching release.
func (l *life) acquire() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closing {
		return false
	}
	l.active++
	return true
}

func (l *life) release() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.active--
	if l.active == 0 && l.idle != nil {
		close(l.idle)
		l.idle = nil
	}
}

// isClosing reports whether shut has been called.
func (l *life) isClosing() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.closing
}

// shut closes the object: the first call makes acquire fail from then on,
// waits until every acquisition has been released, and runs destroy. Later
// and concurrent calls wait until destroy has returned. It reports whether
// this call ran destroy.
func (l *life) shut(destroy func()) bool {
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

// resource is what every object a command batch can use embeds: its life,
// and the device submission serial of the last batch that used it, which
// Close waits for before destroying the object's handles.
type resource struct {
	life    life
	lastUse atomic.Uint64
	guard   atomic.Pointer[Guard] // see SetGuard
}

// child is an object a Device owns and destroys when it closes.
type child interface {
	// closeOrder says when Device.Close destroys the object: lower first.
	closeOrder() int
	// destroy closes the object as its Close method does, except that it
	// must not wait on the device's life (the device is closing).
	destroy()
}

// Close orders of the kinds of children.
const (
	orderCommands = iota // they wait for their own work first
	orderPipeline
	orderSemaphore
	orderSampler
	orderImage
	orderBuffer
)
