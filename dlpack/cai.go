package dlpack

import (
	"encoding/json"
	"fmt"
)

// Stream values of __cuda_array_interface__ and of __dlpack__'s stream
// argument with a meaning of their own.
const (
	// NoStream: the data is ready; consumers need not synchronize ("stream": None).
	NoStream int64 = 0
	// LegacyStream is CUDA's legacy default stream.
	LegacyStream int64 = 1
	// PerThreadStream is CUDA's per-thread default stream.
	PerThreadStream int64 = 2
)

// ArrayInterface is a __cuda_array_interface__ version 3 description.
type ArrayInterface struct {
	Shape    []int64
	TypeStr  string
	Data     uintptr
	ReadOnly bool
	// Strides in bytes; nil for C-contiguous arrays.
	Strides []int64
	// Stream is the stream the producer's pending work is on, or NoStream.
	Stream int64
}

// CUDAArrayInterface describes t (CUDA memory) as __cuda_array_interface__
// version 3, with its pending work on stream (NoStream when none).
func (t Tensor) CUDAArrayInterface(stream int64) (ArrayInterface, error) {
	if err := t.Validate(); err != nil {
		return ArrayInterface{}, err
	}
	if t.Device.Type != CUDA {
		return ArrayInterface{}, fmt.Errorf("dlpack: __cuda_array_interface__ describes CUDA memory, not %s memory", t.Device.Type)
	}
	if t.DType.Lanes > 1 {
		return ArrayInterface{}, fmt.Errorf("dlpack: __cuda_array_interface__ has no vector elements (%d lanes)", t.DType.Lanes)
	}
	if stream < 0 {
		return ArrayInterface{}, fmt.Errorf("dlpack: stream %d", stream)
	}
	a := ArrayInterface{Shape: append([]int64{}, t.Shape...), TypeStr: t.DType.TypeStr(),
		Data: t.Data + uintptr(t.ByteOffset), ReadOnly: t.ReadOnly, Stream: stream}
	if !t.Contiguous() {
		a.Strides = make([]int64, len(t.Strides))
		for i, s := range t.Strides {
			a.Strides[i] = s * int64(t.ItemSize())
		}
	}
	return a, nil
}

// Map returns the dictionary Python's __cuda_array_interface__ holds, with
// JSON-friendly values (shape and strides as lists, data as [ptr,
// read_only], stream nil for NoStream).
func (a ArrayInterface) Map() map[string]any {
	m := map[string]any{
		"shape":   a.Shape,
		"typestr": a.TypeStr,
		"data":    []any{uint64(a.Data), a.ReadOnly},
		"version": 3,
		"strides": nil,
		"stream":  nil,
	}
	if a.Strides != nil {
		m["strides"] = a.Strides
	}
	if a.Stream != NoStream {
		m["stream"] = a.Stream
	}
	return m
}

// JSON is Map as JSON.
func (a ArrayInterface) JSON() string {
	b, _ := json.Marshal(a.Map())
	return string(b)
}
