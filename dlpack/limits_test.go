package dlpack

import (
	"errors"
	"testing"

	"github.com/gfxcuda/gfxcuda/format"
)

// TestValidateSpan: descriptions whose sizes overflow int64 arithmetic
// (they wrapped into valid-looking extents and byte strides, issue #31)
// are invalid; large but possible ones, and empty ones, are not.
func TestValidateSpan(t *testing.T) {
	f32 := format.DType{Code: format.DLFloat, Bits: 32, Lanes: 1}
	for _, bad := range []Tensor{
		{Data: 1, DType: f32, Shape: []int64{1 << 40, 1 << 40, 1 << 40}},
		{Data: 1, DType: f32, Shape: []int64{1 << 61}},
		{Data: 1, DType: f32, Shape: []int64{4, 4}, Strides: []int64{1 << 62, 1}},
		{Data: 1, DType: f32, Shape: []int64{4, 4}, Strides: []int64{-(1 << 62), 1}},
		{Data: 1, DType: f32, Shape: []int64{4, 4}, Strides: []int64{-1 << 63, 1}},
		{Data: 1, DType: f32, Shape: []int64{3, 3}, Strides: []int64{1 << 59, 1 << 59}},
		{Data: 1, DType: f32, Shape: []int64{4}, ByteOffset: 1 << 63},
	} {
		if err := bad.Validate(); !errors.Is(err, ErrInvalid) {
			t.Errorf("Validate(%+v) = %v, want ErrInvalid", bad, err)
		}
	}
	for _, good := range []Tensor{
		{Data: 1, DType: f32, Shape: []int64{1 << 20, 1 << 20}},
		{Data: 1, DType: f32, Shape: []int64{0, 1 << 62, 1 << 62}},
		{Data: 1, DType: f32, Shape: []int64{1, 4}, Strides: []int64{1 << 62, 1}},
		{Data: 1, DType: f32, Shape: []int64{4, 4}, Strides: []int64{-4, 1}, ByteOffset: 48},
	} {
		if err := good.Validate(); err != nil {
			t.Errorf("Validate(%+v) = %v, want nil", good, err)
		}
	}
}
