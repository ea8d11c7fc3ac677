package dlpack

import (
	"encoding/json"
	"errors"
	"math/rand/v2"
	"reflect"
	"sync"
	"sync/atomic"
	"testing"
	"unsafe"

	"github.com/gfxcuda/gfxcuda/format"
)

// The offsets and sizes dlpack.h (DLPack 1.x; the exchange API of 1.3)
// gives on 64-bit platforms.
func TestLayout(t *testing.T) {
	want := map[string]uintptr{
		"DLTensor":                           48,
		"DLTensor.shape":                     24,
		"DLTensor.byte_offset":               40,
		"DLManagedTensor":                    64,
		"DLManagedTensor.manager_ctx":        48,
		"DLManagedTensor.deleter":            56,
		"DLManagedTensorVersioned":           80,
		"DLManagedTensorVersioned.manager":   8,
		"DLManagedTensorVersioned.deleter":   16,
		"DLManagedTensorVersioned.flags":     24,
		"DLManagedTensorVersioned.dl_tensor": 32,
		"DLPackExchangeAPIHeader":            16,
		"DLPackExchangeAPI":                  56,
		"DLPackExchangeAPI.allocator":        16,
		"DLPackExchangeAPI.from_py":          24,
		"DLPackExchangeAPI.to_py":            32,
		"DLPackExchangeAPI.dltensor_from_py": 40,
		"DLPackExchangeAPI.work_stream":      48,
	}
	if got := layout(); !reflect.DeepEqual(got, want) {
		t.Fatalf("layout %v, want %v", got, want)
	}
}

func randomTensor(r *rand.Rand) Tensor {
	nd := r.IntN(5)
	t := Tensor{Data: uintptr(r.Uint64() | 1), ByteOffset: r.Uint64N(1 << 20), Device: Device{CUDA, r.Int32N(8)},
		DType:    format.DType{Code: uint8(r.IntN(3)), Bits: []uint8{8, 16, 32, 64}[r.IntN(4)], Lanes: 1},
		ReadOnly: r.IntN(2) == 0, IsCopied: r.IntN(2) == 0, Shape: make([]int64, nd)}
	for i := range t.Shape {
		t.Shape[i] = 1 + r.Int64N(100)
	}
	if r.IntN(2) == 0 {
		t.Strides = make([]int64, nd)
		for i := range t.Strides {
			t.Strides[i] = r.Int64N(1000)
		}
	}
	return t
}

func contiguousStrides(shape []int64) []int64 {
	s := make([]int64, len(shape))
	acc := int64(1)
	for i := len(shape) - 1; i >= 0; i-- {
		s[i] = acc
		acc *= shape[i]
	}
	return s
}

// norm makes empty shapes and strides nil.
func norm(t *Tensor) {
	if len(t.Shape) == 0 {
		t.Shape, t.Strides = nil, nil
	}
}

func TestRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 500 {
		versioned := i%2 == 0
		in := randomTensor(r)
		var released atomic.Int32
		p, err := Export(in, versioned, func() { released.Add(1) })
		if err != nil {
			t.Fatal(err)
		}
		m, err := Import(p, versioned)
		if err != nil {
			t.Fatal(err)
		}
		got := m.Tensor()
		want := in
		if want.Strides == nil {
			want.Strides = contiguousStrides(want.Shape)
		}
		if !versioned {
			want.ReadOnly, want.IsCopied = false, false // legacy tensors have no flags
		}
		norm(&got)
		norm(&want)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("round trip %d (versioned %v): got %+v, want %+v", i, versioned, got, want)
		}
		if versioned && m.Version() != Version {
			t.Fatalf("version %v", m.Version())
		}
		if released.Load() != 0 {
			t.Fatal("released before the deleter ran")
		}
		m.Close()
		m.Close()
		if n := released.Load(); n != 1 {
			t.Fatalf("release ran %d times, want 1", n)
		}
	}
	if Live() != 0 {
		t.Fatalf("%d tensors still live", Live())
	}
}

// Many goroutines export and delete at once: each release runs exactly
// once, and the race detector sees no race on the handle table.
func TestConcurrentDeleters(t *testing.T) {
	const workers, each = 16, 200
	counts := make([]atomic.Int32, workers*each)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(w), 7))
			for i := range each {
				k := w*each + i
				v := r.IntN(2) == 0
				p, err := Export(randomTensor(r), v, func() { counts[k].Add(1) })
				if err != nil {
					t.Error(err)
					return
				}
				CallDeleter(p, v)
			}
		}()
	}
	wg.Wait()
	for k := range counts {
		if n := counts[k].Load(); n != 1 {
			t.Fatalf("export %d released %d times", k, n)
		}
	}
	if Live() != 0 {
		t.Fatalf("%d tensors still live", Live())
	}
}

func TestInvalid(t *testing.T) {
	f32 := format.DType{Code: format.DLFloat, Bits: 32, Lanes: 1}
	for _, bad := range []Tensor{
		{Data: 0, DType: f32, Shape: []int64{4}},
		{Data: 1, DType: format.DType{Code: 2, Bits: 12, Lanes: 1}, Shape: []int64{4}},
		{Data: 1, DType: f32, Shape: []int64{4, -1}},
		{Data: 1, DType: f32, Shape: []int64{4}, Strides: []int64{1, 1}},
	} {
		ran := false
		if _, err := Export(bad, true, func() { ran = true }); !errors.Is(err, ErrInvalid) {
			t.Errorf("Export(%+v): %v, want ErrInvalid", bad, err)
		}
		if ran {
			t.Error("release ran for a failed export")
		}
	}
	if _, err := Import(nil, true); !errors.Is(err, ErrInvalid) {
		t.Errorf("Import(nil): %v", err)
	}
}

func TestCUDAArrayInterface(t *testing.T) {
	in := Tensor{Data: 0x7f0000001000, ByteOffset: 256, Device: Device{CUDA, 0},
		DType: format.DType{Code: format.DLFloat, Bits: 32, Lanes: 1}, Shape: []int64{2, 3, 4}}
	a, err := in.CUDAArrayInterface(LegacyStream)
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal([]byte(a.JSON()), &got); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"shape": []any{2.0, 3.0, 4.0}, "typestr": "<f4", "data": []any{float64(0x7f0000001100), false},
		"version": 3.0, "strides": nil, "stream": 1.0}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	in.Strides = []int64{1, 2, 6} // Fortran order: byte strides appear
	in.ReadOnly = true
	a, err = in.CUDAArrayInterface(NoStream)
	if err != nil {
		t.Fatal(err)
	}
	if m := a.Map(); !reflect.DeepEqual(m["strides"], []int64{4, 8, 24}) || m["stream"] != nil || m["data"].([]any)[1] != true {
		t.Fatalf("got %v", m)
	}
	in.Device.Type = CPU
	if _, err := in.CUDAArrayInterface(NoStream); err == nil {
		t.Fatal("host memory described as CUDA memory")
	}
}

// TestDescribe: the C description Describe writes (dlpack.h's
// gfx_dlpack_desc, what every managed tensor is built of) holds each field
// of random tensors, strides filled in when the tensor has none, lanes at
// least 1; an invalid tensor leaves it untouched.
func TestDescribe(t *testing.T) {
	if DescSize != 552 {
		t.Fatalf("gfx_dlpack_desc is %d bytes, want 552", DescSize)
	}
	r := rand.New(rand.NewPCG(5, 6))
	buf := make([]byte, DescSize)
	p := unsafe.Pointer(&buf[0])
	at := func(off uintptr) unsafe.Pointer { return unsafe.Add(p, off) }
	for i := range 500 {
		in := randomTensor(r)
		in.DType.Lanes = uint16(r.IntN(3)) // 0 reads as 1
		if err := Describe(in, p); err != nil {
			t.Fatal(err)
		}
		nd := len(in.Shape)
		strides := in.Strides
		if strides == nil {
			strides = contiguousStrides(in.Shape)
		}
		var flags uint64
		if in.ReadOnly {
			flags |= 1
		}
		if in.IsCopied {
			flags |= 2
		}
		got := []any{*(*uint64)(at(0)), *(*uint64)(at(8)), *(*uint64)(at(16)), *(*int32)(at(24)), *(*int32)(at(28)),
			*(*uint8)(at(32)), *(*uint8)(at(33)), *(*uint16)(at(34)), *(*int32)(at(36)),
			append([]int64{}, unsafe.Slice((*int64)(at(40)), nd)...), append([]int64{}, unsafe.Slice((*int64)(at(296)), nd)...)}
		want := []any{uint64(in.Data), in.ByteOffset, flags, int32(in.Device.Type), in.Device.ID,
			in.DType.Code, in.DType.Bits, max(in.DType.Lanes, 1), int32(nd), append([]int64{}, in.Shape...), append([]int64{}, strides...)}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%d: Describe(%+v) wrote %v, want %v", i, in, got, want)
		}
	}
	clear(buf)
	if err := Describe(Tensor{DType: format.DType{Bits: 12}, Shape: []int64{1}}, p); !errors.Is(err, ErrInvalid) {
		t.Fatalf("Describe of an invalid tensor: %v", err)
	}
	for _, b := range buf {
		if b != 0 {
			t.Fatal("Describe of an invalid tensor wrote its description")
		}
	}
	if err := Describe(Tensor{}, nil); !errors.Is(err, ErrInvalid) {
		t.Fatalf("Describe to nil: %v", err)
	}
}
