package dlpack

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/gfxcuda/gfxcuda/format"
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

// ArrayInterface is a __cuda_array_interface__ version 3 description, or
// for host memory NumPy's __array_interface__ version 3 (the same fields
// but the stream).
type ArrayInterface struct {
	Shape    []int64
	TypeStr  string
	Data     uintptr
	ReadOnly bool
	// Strides in bytes; nil for a tensor described without strides
	// (C-contiguous).
	Strides []int64
	// Stream is the stream the producer's pending work is on, or NoStream.
	Stream int64
	// Host: NumPy's __array_interface__ (host memory), which has no stream.
	Host bool
}

// CUDAArrayInterface describes t (CUDA memory) as __cuda_array_interface__
// version 3, with its pending work on stream (NoStream when none). Strides
// appear (in bytes) when t has strides.
func (t Tensor) CUDAArrayInterface(stream int64) (ArrayInterface, error) {
	if t.Device.Type != CUDA {
		return ArrayInterface{}, fmt.Errorf("dlpack: __cuda_array_interface__ describes CUDA memory, not %s memory", t.Device.Type)
	}
	if stream < 0 {
		return ArrayInterface{}, fmt.Errorf("dlpack: stream %d", stream)
	}
	return t.arrayInterface(stream)
}

// HostArrayInterface describes t (host memory: CPU or pinned) as NumPy's
// __array_interface__ version 3.
func (t Tensor) HostArrayInterface() (ArrayInterface, error) {
	if t.Device.Type != CPU && t.Device.Type != CUDAHost {
		return ArrayInterface{}, fmt.Errorf("dlpack: __array_interface__ describes host memory, not %s memory", t.Device.Type)
	}
	a, err := t.arrayInterface(NoStream)
	a.Host = true
	return a, err
}

// ArrayInterface is CUDAArrayInterface for CUDA memory and
// HostArrayInterface (stream must be NoStream) for host memory.
func (t Tensor) ArrayInterface(stream int64) (ArrayInterface, error) {
	if t.Device.Type == CUDA {
		return t.CUDAArrayInterface(stream)
	}
	if stream != NoStream {
		return ArrayInterface{}, fmt.Errorf("dlpack: stream %d for %s memory (host memory has no stream)", stream, t.Device.Type)
	}
	return t.HostArrayInterface()
}

func (t Tensor) arrayInterface(stream int64) (ArrayInterface, error) {
	if err := t.Validate(); err != nil {
		return ArrayInterface{}, err
	}
	if t.DType.Lanes > 1 {
		return ArrayInterface{}, fmt.Errorf("dlpack: the array interfaces have no vector elements (%d lanes)", t.DType.Lanes)
	}
	a := ArrayInterface{Shape: append([]int64{}, t.Shape...), TypeStr: t.DType.TypeStr(),
		Data: t.Data + uintptr(t.ByteOffset), ReadOnly: t.ReadOnly, Stream: stream}
	if t.Strides != nil {
		a.Strides = make([]int64, len(t.Strides))
		for i, s := range t.Strides {
			a.Strides[i] = s * int64(t.ItemSize())
		}
	}
	return a, nil
}

// Map returns the dictionary Python's __cuda_array_interface__ (or for
// host memory __array_interface__) holds, with JSON-friendly values (shape
// and strides as lists, data as [ptr, read_only], stream nil for NoStream;
// no stream for host memory).
func (a ArrayInterface) Map() map[string]any {
	m := map[string]any{
		"shape":   a.Shape,
		"typestr": a.TypeStr,
		"data":    []any{uint64(a.Data), a.ReadOnly},
		"version": 3,
		"strides": nil,
	}
	if a.Strides != nil {
		m["strides"] = a.Strides
	}
	if !a.Host {
		m["stream"] = nil
		if a.Stream != NoStream {
			m["stream"] = a.Stream
		}
	}
	return m
}

// JSON is Map as JSON.
func (a ArrayInterface) JSON() string {
	b, _ := json.Marshal(a.Map())
	return string(b)
}

// ParseTypeStr reads an element type as the array interfaces and NumPy
// name it: a type string ("<f4", "|u1", "=i2", "f4"; little-endian or no
// byte order) or a NumPy name ("float32", "uint8", "int16"). Signed and
// unsigned integers of 1, 2, 4 or 8 bytes and floats of 2, 4 or 8, one lane.
func ParseTypeStr(s string) (format.DType, error) {
	name := strings.TrimLeft(s, "<|=")
	var code, bytes int
	var err error
	if i := strings.IndexAny(name, "0123456789"); i == 1 {
		code = strings.IndexByte("iuf", name[0])
		bytes, err = strconv.Atoi(name[1:])
	} else if i > 1 {
		c, ok := map[string]int{"int": format.DLInt, "uint": format.DLUInt, "float": format.DLFloat}[name[:i]]
		if code = c; !ok {
			code = -1
		}
		var bits int
		bits, err = strconv.Atoi(name[i:])
		bytes = bits / 8
		if bits%8 != 0 {
			bytes = 0
		}
	} else {
		code = -1
	}
	if err != nil || code < 0 || bytes <= 0 || bytes > 8 || bytes&(bytes-1) != 0 || (code == format.DLFloat && bytes == 1) {
		return format.DType{}, fmt.Errorf("dlpack: dtype %q; use signed or unsigned integers or floats (\"float32\", \"<f4\", \"uint8\", ...)", s)
	}
	return format.DType{Code: uint8(code), Bits: uint8(8 * bytes), Lanes: 1}, nil
}
