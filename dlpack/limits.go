package dlpack

import (
	"fmt"
	"math/bits"
)

// MaxSpan bounds the bytes a tensor may describe: its elements, the reach
// of each stride and its byte offset, 2**62 bytes each and in all. No
// memory is that large; a description beyond it (a hostile or corrupt
// producer's shape of 2**40 × 2**40 × 2**40, a stride of 2**62 elements)
// would overflow the int64 arithmetic of Extent, Elements and the array
// interface's byte strides, and wrap into values that look valid.
const MaxSpan = 1 << 62

// checkSpan reports a description whose sizes exceed MaxSpan; Validate
// calls it once the shape is known not to be negative.
func (t Tensor) checkSpan() error {
	is := uint64(t.ItemSize())
	if t.ByteOffset > MaxSpan {
		return fmt.Errorf("%w: byte offset %d (at most 2**62)", ErrInvalid, t.ByteOffset)
	}
	empty := false
	for _, s := range t.Shape {
		empty = empty || s == 0
	}
	if empty {
		return nil // no element is ever addressed
	}
	n := is
	for i, s := range t.Shape {
		var ok bool
		if n, ok = mulSpan(n, uint64(s)); !ok {
			return fmt.Errorf("%w: shape %v of %d-byte elements spans more than 2**62 bytes (at dimension %d)", ErrInvalid, t.Shape, is, i)
		}
	}
	if t.Strides == nil {
		return nil
	}
	var reach uint64
	for i, s := range t.Strides {
		if t.Shape[i] <= 1 {
			continue // never stepped
		}
		a := uint64(s)
		if s < 0 {
			a = uint64(-s)
		}
		r, ok := mulSpan(a, is)
		if ok {
			r, ok = mulSpan(r, uint64(t.Shape[i]-1))
		}
		if reach += r; !ok || reach > MaxSpan {
			return fmt.Errorf("%w: stride %d of dimension %d (of %d %d-byte elements) reaches more than 2**62 bytes", ErrInvalid, s, i, t.Shape[i], is)
		}
	}
	return nil
}

// mulSpan returns a*b and whether it is at most MaxSpan.
func mulSpan(a, b uint64) (uint64, bool) {
	hi, lo := bits.Mul64(a, b)
	return lo, hi == 0 && lo <= MaxSpan
}
