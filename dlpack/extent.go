package dlpack

import (
	"errors"
	"fmt"
)

// Extent returns the bytes [lo, hi) the tensor's elements span, counted
// from Data: ByteOffset plus the reach of every dimension's stride, which
// may be negative. An empty tensor spans [ByteOffset, ByteOffset).
func (t Tensor) Extent() (lo, hi int64) {
	if t.Elements() == 0 {
		return int64(t.ByteOffset), int64(t.ByteOffset)
	}
	acc := int64(1)
	for i := len(t.Shape) - 1; i >= 0; i-- {
		s := acc
		if t.Strides != nil {
			s = t.Strides[i]
		}
		if span := (t.Shape[i] - 1) * s; span < 0 {
			lo += span
		} else {
			hi += span
		}
		acc *= t.Shape[i]
	}
	is := int64(t.ItemSize())
	return int64(t.ByteOffset) + lo*is, int64(t.ByteOffset) + hi*is + is
}

// ErrOutside is wrapped by Within's error: the tensor reaches outside the
// memory it is made from.
var ErrOutside = errors.New("dlpack: tensor outside its memory")

// Within checks that t is valid and that its elements lie inside the size
// bytes at ptr, on device dev: what an exporter checks before describing
// memory it owns.
func (t Tensor) Within(ptr, size uint64, dev Device) error {
	if err := t.Validate(); err != nil {
		return err
	}
	if t.Device != dev {
		return fmt.Errorf("%w: the memory is on %s device %d, the tensor says %s:%d", ErrInvalid, dev.Type, dev.ID, t.Device.Type, t.Device.ID)
	}
	if t.Elements() == 0 {
		return nil
	}
	lo, hi := t.Extent()
	// off+lo and off+hi are the elements' bytes relative to ptr; addresses
	// fit in int64 (user space).
	off := int64(t.Data) - int64(ptr)
	if off+lo < 0 || off+hi > int64(min(size, 1<<62)) {
		return fmt.Errorf("%w: the tensor spans bytes [%d, %d) from %#x, outside the %d bytes at %#x it is made from", ErrOutside, lo, hi, t.Data, size, ptr)
	}
	return nil
}

// Dense reports whether the tensor's elements cover the bytes of its
// Extent exactly once: no gaps between them and no two at one place. A
// C-contiguous tensor is dense, and so is any permutation of its
// dimensions (a transpose); a slice with a step, or a broadcast (stride
// 0), is not. Empty tensors and tensors of one element are dense.
func (t Tensor) Dense() bool {
	if t.Strides == nil || t.Elements() <= 1 {
		return true
	}
	type dim struct{ n, s int64 }
	var ds []dim
	for i, n := range t.Shape {
		if n == 1 {
			continue // any stride: never stepped
		}
		s := t.Strides[i]
		if s < 0 {
			s = -s
		}
		ds = append(ds, dim{n, s})
	}
	// Insertion sort by stride (at most 32 dimensions).
	for i := 1; i < len(ds); i++ {
		for j := i; j > 0 && ds[j].s < ds[j-1].s; j-- {
			ds[j], ds[j-1] = ds[j-1], ds[j]
		}
	}
	want := int64(1)
	for _, d := range ds {
		if d.s != want {
			return false
		}
		want *= d.n
	}
	return true
}
