package dlpack

import (
	"errors"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/gfxcuda/gfxcuda/format"
)

func TestExtentWithin(t *testing.T) {
	const base = 0x10000
	f32 := format.DType{Code: format.DLFloat, Bits: 32, Lanes: 1}
	dev := Device{CUDA, 0}
	cases := []struct {
		name   string
		t      Tensor
		lo, hi int64
		// The memory [base+in, base+in+size) holds exactly the elements.
		in, size uint64
	}{
		{"C order", Tensor{Shape: []int64{2, 3}}, 0, 24, 0, 24},
		{"byte offset", Tensor{Shape: []int64{4}, ByteOffset: 8}, 8, 24, 8, 16},
		{"Fortran order", Tensor{Shape: []int64{2, 3}, Strides: []int64{1, 2}}, 0, 24, 0, 24},
		{"padded rows", Tensor{Shape: []int64{2, 3}, Strides: []int64{8, 1}}, 0, 44, 0, 44},
		{"broadcast", Tensor{Shape: []int64{5, 3}, Strides: []int64{0, 1}}, 0, 12, 0, 12},
		{"negative stride", Tensor{Shape: []int64{3}, Strides: []int64{-1}, Data: base + 8}, -8, 4, 0, 12},
		{"0-d", Tensor{Shape: []int64{}}, 0, 4, 0, 4},
	}
	for _, c := range cases {
		tt := c.t
		if tt.Data == 0 {
			tt.Data = base
		}
		tt.DType, tt.Device = f32, dev
		if lo, hi := tt.Extent(); lo != c.lo || hi != c.hi {
			t.Errorf("%s: Extent() = [%d, %d), want [%d, %d)", c.name, lo, hi, c.lo, c.hi)
		}
		if err := tt.Within(base+c.in, c.size, dev); err != nil {
			t.Errorf("%s: Within(%d bytes): %v", c.name, c.size, err)
		}
		if err := tt.Within(base+c.in, c.size-1, dev); !errors.Is(err, ErrOutside) {
			t.Errorf("%s: Within(%d bytes) = %v, want ErrOutside", c.name, c.size-1, err)
		}
		if err := tt.Within(base+c.in+1, c.size, dev); !errors.Is(err, ErrOutside) {
			t.Errorf("%s: Within from one byte on = %v, want ErrOutside", c.name, err)
		}
		if err := tt.Within(base+c.in, c.size, Device{CUDA, 1}); !errors.Is(err, ErrInvalid) || errors.Is(err, ErrOutside) {
			t.Errorf("%s: Within on another device = %v, want ErrInvalid", c.name, err)
		}
	}
	empty := Tensor{Data: 1, DType: f32, Device: dev, Shape: []int64{0, 3}, ByteOffset: 4}
	if lo, hi := empty.Extent(); lo != 4 || hi != 4 {
		t.Errorf("empty: Extent() = [%d, %d)", lo, hi)
	}
	if err := empty.Within(base, 0, dev); err != nil {
		t.Errorf("empty: %v", err)
	}
}

func TestArrayInterfaces(t *testing.T) {
	in := Tensor{Data: 0x1000, Device: Device{CUDA, 0}, DType: format.Uint16, Shape: []int64{2, 3}, Strides: []int64{3, 1}}
	a, err := in.ArrayInterface(PerThreadStream)
	if err != nil {
		t.Fatal(err)
	}
	// Strides given are strides shown, C order or not.
	want := map[string]any{"shape": []int64{2, 3}, "typestr": "<u2", "data": []any{uint64(0x1000), false},
		"version": 3, "strides": []int64{6, 2}, "stream": PerThreadStream}
	if m := a.Map(); !reflect.DeepEqual(m, want) {
		t.Errorf("CUDA: got %v, want %v", m, want)
	}
	in.Device = Device{CPU, 0}
	if _, err := in.ArrayInterface(LegacyStream); err == nil {
		t.Error("host memory with a stream")
	}
	a, err = in.ArrayInterface(NoStream)
	if err != nil {
		t.Fatal(err)
	}
	delete(want, "stream")
	if m := a.Map(); !a.Host || !reflect.DeepEqual(m, want) {
		t.Errorf("host: got %v (host %v), want %v", m, a.Host, want)
	}
	if _, err := in.CUDAArrayInterface(NoStream); err == nil {
		t.Error("host memory as __cuda_array_interface__")
	}
	in.Device = Device{Vulkan, 0}
	if _, err := in.ArrayInterface(NoStream); err == nil {
		t.Error("Vulkan memory as __array_interface__")
	}
	in.Device, in.DType.Lanes = Device{CUDA, 0}, 4
	if _, err := in.ArrayInterface(NoStream); err == nil {
		t.Error("vector elements")
	}
}

func TestParseTypeStr(t *testing.T) {
	good := map[string]format.DType{
		"<f4": format.Float32, "|u1": format.Uint8, "|i1": format.Int8, "<i2": format.Int16, "=u4": format.Uint32,
		"f2": format.Float16, "<f8": {Code: format.DLFloat, Bits: 64, Lanes: 1}, "<i8": {Code: format.DLInt, Bits: 64, Lanes: 1},
		"float32": format.Float32, "uint8": format.Uint8, "int16": format.Int16, "float16": format.Float16,
	}
	for s, want := range good {
		if got, err := ParseTypeStr(s); err != nil || got != want {
			t.Errorf("ParseTypeStr(%q) = %v, %v; want %v", s, got, err, want)
		}
		// The type string of what it read reads back the same.
		if back, err := ParseTypeStr(want.TypeStr()); err != nil || back != want {
			t.Errorf("ParseTypeStr(%q) = %v, %v; want %v", want.TypeStr(), back, err, want)
		}
	}
	for _, s := range []string{"", "<", "|b1", "<c8", ">f4", "|f1", "<f16", "<i3", "<u0", "bool", "float", "int7", "integer8", "uintx", "<fx", "complex64", "float128"} {
		if got, err := ParseTypeStr(s); err == nil {
			t.Errorf("ParseTypeStr(%q) = %v, want an error", s, got)
		}
	}
}

// TestDense compares Dense with counting, for random small shapes and
// strides: dense when every element has its own place and the places fill
// the extent.
func TestDense(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	f32 := format.DType{Code: 2, Bits: 32, Lanes: 1}
	for range 20000 {
		nd := 1 + rng.IntN(4)
		tt := Tensor{Data: 1 << 20, DType: f32, Shape: make([]int64, nd), Strides: make([]int64, nd)}
		for i := range nd {
			tt.Shape[i] = int64(rng.IntN(4))
			tt.Strides[i] = int64(rng.IntN(13) - 3)
		}
		if rng.IntN(3) == 0 { // a permuted contiguous tensor, often
			acc := int64(1)
			for _, i := range rng.Perm(nd) {
				tt.Strides[i] = acc
				acc *= max(tt.Shape[i], 1)
			}
		}
		seen := map[int64]int{}
		var walk func(d int, off int64)
		walk = func(d int, off int64) {
			if d == nd {
				seen[off]++
				return
			}
			for k := int64(0); k < tt.Shape[d]; k++ {
				walk(d+1, off+k*tt.Strides[d])
			}
		}
		walk(0, 0)
		want := true
		lo, hi := tt.Extent()
		if tt.Elements() > 1 {
			if int64(len(seen))*4 != hi-lo {
				want = false
			}
			for _, c := range seen {
				if c > 1 {
					want = false
				}
			}
		}
		if got := tt.Dense(); got != want {
			t.Fatalf("shape %v strides %v: Dense %v, want %v", tt.Shape, tt.Strides, got, want)
		}
	}
	if !(Tensor{DType: f32, Shape: []int64{4, 5}}).Dense() {
		t.Error("a tensor without strides is not dense")
	}
}
