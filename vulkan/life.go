package vulkan

import (
	"sync/atomic"

	"github.com/gfxcuda/gfxcuda/internal/lifetime"
)

// life guards the Vulkan handles of one object against destruction while
// they are in use (see lifetime.Life).
type life struct{ lifetime.Life }

// acquire reports whether the object is open, and if so keeps it open until
// the matching release.
func (l *life) acquire() bool { return l.Acquire() }

func (l *life) release() { l.Release() }

// isClosing reports whether shut has been called.
func (l *life) isClosing() bool { return l.Closing() }

// shut closes the object: the first call makes acquire fail from then on,
// waits until every acquisition has been released, and runs destroy. Later
// and concurrent calls wait until destroy has returned. It reports whether
// this call ran destroy.
func (l *life) shut(destroy func()) bool { return l.Shut(destroy) }

// resource is what every object a command batch can use embeds: its life,
// and the device submission serial of the last batch that used it, which
// Close waits for before destroying the object's handles.
type resource struct {
	life    life
	lastUse atomic.Uint64
	guard   atomic.Pointer[guardFunc] // see guardFunc
	// alias, for resources placed in a Memory, is the Memory's lastUse:
	// what uses any of its resources uses them all.
	alias *atomic.Uint64
}

// used returns the serial of the last batch that used the resource or,
// for a placed resource, any resource of its Memory.
func (r *resource) used() uint64 {
	v := r.lastUse.Load()
	if r.alias != nil {
		v = max(v, r.alias.Load())
	}
	return v
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
	orderMemory // after the buffers and images placed in it
)
