package cuda

import "github.com/gfxcuda/gfxcuda/internal/lifetime"

// life guards the driver handles of one object against destruction while a
// call uses them (see lifetime.Life); acquire fails with ErrClosed once the
// object is closing, and shut returns destroy's error.
type life struct{ lifetime.Life }

// acquire takes a use, or returns ErrClosed once the object is closing.
func (l *life) acquire() error {
	if !l.Acquire() {
		return ErrClosed
	}
	return nil
}

// release ends a use taken by acquire.
func (l *life) release() { l.Release() }

// closed reports whether shut has been called.
func (l *life) closed() bool { return l.Closing() }

// shut closes the object once the uses in progress have been released and
// returns destroy's error; later and concurrent calls wait for it and
// return nil.
func (l *life) shut(destroy func() error) error {
	var err error
	l.Shut(func() { err = destroy() })
	return err
}
