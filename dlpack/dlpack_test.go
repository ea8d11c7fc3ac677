package dlpack

import (
	"encoding/json"
	"errors"
	"math/rand/v2"
	"reflect"
	"sync"
	"sync/atomic"
	"testing"

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
