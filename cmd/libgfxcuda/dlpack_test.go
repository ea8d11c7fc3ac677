package main

import (
	"math/rand/v2"
	"reflect"
	"testing"
	"unsafe"

	"github.com/gfxcuda/gfxcuda/dlpack"
	"github.com/gfxcuda/gfxcuda/format"
	"github.com/gfxcuda/gfxcuda/tensor"
)

// managed is every field of a managed tensor as it lies in C memory
// (DLPack 1.x's layout, dlpack/dlpack_test.go's TestLayout), the shape and
// strides arrays read through their pointers, and where those point: in
// the tensor's own block, right after the struct (the one builder's block).
type managed struct {
	Version            [2]uint32
	Flags              uint64
	Data               uintptr
	DeviceType, Device int32
	NDim               int32
	Code, Bits         uint8
	Lanes              uint16
	Shape, Strides     []int64
	ByteOffset         uint64
	DimsInBlock        bool
	HasCtx, HasDeleter bool
}

func readManaged(p unsafe.Pointer, versioned bool) managed {
	var m managed
	at := func(off uintptr) unsafe.Pointer { return unsafe.Add(p, off) }
	dl, head := uintptr(0), uintptr(64)
	if versioned {
		m.Version = *(*[2]uint32)(at(0))
		m.HasCtx, m.HasDeleter = *(*uintptr)(at(8)) != 0, *(*uintptr)(at(16)) != 0
		m.Flags = *(*uint64)(at(24))
		dl, head = 32, 80
	} else {
		m.HasCtx, m.HasDeleter = *(*uintptr)(at(48)) != 0, *(*uintptr)(at(56)) != 0
	}
	m.Data = *(*uintptr)(at(dl))
	m.DeviceType, m.Device = *(*int32)(at(dl + 8)), *(*int32)(at(dl + 12))
	m.NDim = *(*int32)(at(dl + 16))
	m.Code, m.Bits, m.Lanes = *(*uint8)(at(dl + 20)), *(*uint8)(at(dl + 21)), *(*uint16)(at(dl + 22))
	shape, strides := *(*unsafe.Pointer)(at(dl + 24)), *(*unsafe.Pointer)(at(dl + 32))
	m.ByteOffset = *(*uint64)(at(dl + 40))
	nd := uintptr(m.NDim)
	m.DimsInBlock = shape == nil && strides == nil && nd == 0 || shape == at(head) && strides == at(head+8*nd)
	if nd > 0 {
		if shape != nil {
			m.Shape = append([]int64{}, unsafe.Slice((*int64)(shape), nd)...)
		}
		if strides != nil {
			m.Strides = append([]int64{}, unsafe.Slice((*int64)(strides), nd)...)
		}
	}
	return m
}

// wantManaged is what a managed tensor of t must hold, computed here
// independently of package dlpack.
func wantManaged(t dlpack.Tensor, versioned bool) managed {
	m := managed{Data: t.Data, DeviceType: int32(t.Device.Type), Device: t.Device.ID, NDim: int32(len(t.Shape)),
		Code: t.DType.Code, Bits: t.DType.Bits, Lanes: max(t.DType.Lanes, 1), ByteOffset: t.ByteOffset,
		DimsInBlock: true, HasCtx: true, HasDeleter: true}
	if versioned {
		m.Version = [2]uint32{1, 1}
		if t.ReadOnly {
			m.Flags |= 1
		}
		if t.IsCopied {
			m.Flags |= 2
		}
	}
	if len(t.Shape) > 0 {
		m.Shape = append([]int64{}, t.Shape...)
		m.Strides = append([]int64{}, t.Strides...)
		if t.Strides == nil {
			m.Strides = make([]int64, len(t.Shape))
			acc := int64(1)
			for i := len(t.Shape) - 1; i >= 0; i-- {
				m.Strides[i] = acc
				acc *= t.Shape[i]
			}
		}
	}
	return m
}

// hostOwner is a handle over a fake range of host memory (an imported
// CPU tensor of 2**40 bytes at base; nothing reads or writes it).
func hostOwner(t *testing.T, base uintptr) uint64 {
	t.Helper()
	p, err := dlpack.Export(dlpack.Tensor{Data: base, Device: dlpack.Device{Type: dlpack.CPU},
		DType: format.DType{Code: format.DLUInt, Bits: 8, Lanes: 1}, Shape: []int64{1 << 40}}, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	h, st := cDLPackImport(p, false)
	if st != stOK {
		t.Fatalf("gfxcuda_dlpack_import: status %d: %s", st, goLastError())
	}
	return h
}

// randomIn is a random tensor description inside [base, base + 2**40):
// 0 to 5 dimensions (some empty), strides nil or random (negative ones
// too), 1 to 4 lanes, random flags.
func randomIn(r *rand.Rand, base uintptr) dlpack.Tensor {
	nd := r.IntN(6)
	t := dlpack.Tensor{Data: base, Device: dlpack.Device{Type: dlpack.CPU},
		DType:    format.DType{Code: uint8(r.IntN(3)), Bits: []uint8{8, 16, 32, 64}[r.IntN(4)], Lanes: uint16(1 + r.IntN(4)*r.IntN(2))},
		ReadOnly: r.IntN(2) == 0, IsCopied: r.IntN(2) == 0, Shape: make([]int64, nd)}
	for i := range t.Shape {
		t.Shape[i] = r.Int64N(40)
		if r.IntN(8) != 0 {
			t.Shape[i]++
		}
	}
	if r.IntN(2) == 0 {
		t.Strides = make([]int64, nd)
		for i := range t.Strides {
			t.Strides[i] = r.Int64N(2001) - 1000
		}
	}
	lo, _ := t.Extent()
	t.ByteOffset = uint64(r.Int64N(4096))
	if lo < 0 {
		t.ByteOffset += uint64(-lo)
	}
	return t
}

// TestOneBuilder: gfxcuda_dlpack_export (package dlpack's Export, in Go)
// and the C exporters (capi.c, no Go after the first check) build the same
// managed tensor of a description, field for field, versioned and legacy,
// each as an independent computation of the fields says; every deleter
// releases what it held.
func TestOneBuilder(t *testing.T) {
	const base = uintptr(0x7f0000000000)
	owner := hostOwner(t, base)
	liveBefore := cDLPackLive()
	e, st := cExporterNew(owner)
	if st != stOK {
		t.Fatalf("gfxcuda_dlpack_exporter_new: status %d: %s", st, goLastError())
	}
	r := rand.New(rand.NewPCG(3, 4))
	first := randomIn(r, base)
	for i := range 400 {
		versioned := r.IntN(2) == 0
		desc := randomIn(r, base)
		if i%3 == 0 {
			desc = first // the exporter's checked description: built without Go
		}
		want := wantManaged(desc, versioned)
		pg, st := cDLPackExport(owner, desc, versioned)
		if st != stOK {
			t.Fatalf("%d: gfxcuda_dlpack_export(%+v): status %d: %s", i, desc, st, goLastError())
		}
		pc, st := cExporterExport(e, desc, versioned)
		if st != stOK {
			t.Fatalf("%d: gfxcuda_dlpack_exporter_export(%+v): status %d: %s", i, desc, st, goLastError())
		}
		if got := readManaged(pg, versioned); !reflect.DeepEqual(got, want) {
			t.Errorf("%d: Go's export of %+v (versioned %v):\n got %+v\nwant %+v", i, desc, versioned, got, want)
		}
		if got := readManaged(pc, versioned); !reflect.DeepEqual(got, want) {
			t.Errorf("%d: the C exporter's export of %+v (versioned %v):\n got %+v\nwant %+v", i, desc, versioned, got, want)
		}
		if n := cDLPackLive(); n != liveBefore+2 {
			t.Fatalf("%d: %d tensors live, want %d", i, n, liveBefore+2)
		}
		cCallDeleter(pg, versioned)
		cCallDeleter(pc, versioned)
		if t.Failed() {
			break
		}
	}
	if n := cDLPackLive(); n != liveBefore {
		t.Fatalf("%d tensors live after their deleters ran, want %d", n, liveBefore)
	}
	// Refused descriptions build nothing, by either path: outside the
	// owner's memory, on another device.
	one := dlpack.Tensor{Data: base, Device: dlpack.Device{Type: dlpack.CPU}, DType: format.DType{Code: format.DLFloat, Bits: 32, Lanes: 1},
		Shape: []int64{2, 3}}
	out := one
	out.Data = base - 4096
	other := one
	other.Device = dlpack.Device{Type: dlpack.CUDA}
	for _, bad := range []dlpack.Tensor{out, other} {
		if _, st := cDLPackExport(owner, bad, true); st == stOK {
			t.Errorf("gfxcuda_dlpack_export took %+v", bad)
		}
		if _, st := cExporterExport(e, bad, true); st == stOK {
			t.Errorf("gfxcuda_dlpack_exporter_export took %+v", bad)
		}
	}
	if n := cDLPackLive(); n != liveBefore {
		t.Fatalf("%d tensors live after refused exports, want %d", n, liveBefore)
	}
	if st := cExporterDrop(e); st != stOK {
		t.Fatalf("gfxcuda_dlpack_exporter_drop: status %d", st)
	}
	if err := release(owner); err != nil {
		t.Fatal(err)
	}
	if live(owner) {
		t.Fatal("the owner outlived its exporter and tensors")
	}
}

// wantInfo is gfxcuda_tensor_info's answer for t, computed here by brute
// force: every element's address visited.
func wantInfo(t dlpack.Tensor) tensorInfo {
	nd := len(t.Shape)
	is := int64(t.DType.Bits) / 8 * int64(max(t.DType.Lanes, 1))
	w := tensorInfo{ItemSize: uint64(is), Strides: make([]int64, nd)}
	acc := int64(1)
	for i := nd - 1; i >= 0; i-- {
		w.Strides[i] = acc
		acc *= t.Shape[i]
	}
	w.Elements, w.NBytes = uint64(acc), uint64(acc*is)
	w.Contiguous = true
	if t.Strides != nil {
		for i := range t.Shape {
			w.Contiguous = w.Contiguous && (t.Shape[i] == 1 || t.Strides[i] == w.Strides[i])
		}
		copy(w.Strides, t.Strides)
	}
	off := int64(t.ByteOffset)
	if acc == 0 {
		w.Lo, w.Hi, w.Dense = off, off, true
		return w
	}
	seen := map[int64]int{}
	lo, hi := int64(1)<<62, -int64(1)<<62
	idx := make([]int64, nd)
	for {
		var e int64
		for i := range idx {
			e += idx[i] * w.Strides[i]
		}
		seen[e]++
		lo, hi = min(lo, e), max(hi, e)
		i := nd - 1
		for ; i >= 0; i-- {
			if idx[i]++; idx[i] < t.Shape[i] {
				break
			}
			idx[i] = 0
		}
		if i < 0 {
			break
		}
	}
	w.Lo, w.Hi = off+lo*is, off+hi*is+is
	w.Dense = int64(len(seen)) == acc && hi-lo+1 == acc
	return w
}

// TestTensorInfo: gfxcuda_tensor_info on random descriptions (empty ones,
// broadcasts, negative and overlapping strides, lanes, data 0) says what a
// brute-force walk over the elements says; refused descriptions are
// GFXCUDA_ERR_INVALID.
func TestTensorInfo(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for i := range 2000 {
		d := randomIn(r, uintptr(r.Uint64N(2))*0x7f0000000000)
		for j := range d.Shape {
			d.Shape[j] = min(d.Shape[j], 6) // brute force stays cheap
		}
		if d.Strides != nil {
			for j := range d.Strides {
				d.Strides[j] = d.Strides[j]%50 + []int64{0, 1, -1}[r.IntN(3)]*r.Int64N(2)*1000
			}
		}
		got, st := cTensorInfo(d)
		if st != stOK {
			t.Fatalf("%d: gfxcuda_tensor_info(%+v): status %d: %s", i, d, st, goLastError())
		}
		if want := wantInfo(d); !reflect.DeepEqual(got, want) {
			t.Fatalf("%d: gfxcuda_tensor_info(%+v):\n got %+v\nwant %+v", i, d, got, want)
		}
	}
	f32 := format.DType{Code: format.DLFloat, Bits: 32, Lanes: 1}
	for _, bad := range []dlpack.Tensor{
		{DType: f32, Shape: []int64{-1}},
		{DType: format.DType{Code: format.DLFloat, Bits: 12, Lanes: 1}, Shape: []int64{2}},
		{DType: f32, Shape: make([]int64, 33)},
		{DType: f32, Shape: []int64{1 << 31, 1 << 31}},
		{DType: f32, Shape: []int64{2, 2}, Strides: []int64{1 << 61, 1}},
	} {
		if _, st := cTensorInfo(bad); st != stInvalid {
			t.Errorf("gfxcuda_tensor_info(%+v): status %d, want %d", bad, st, stInvalid)
		}
	}
}

// TestLayoutShape: the shapes gfxcuda_texture_tensor_shape and
// gfxcuda_gl_tensor_shape report, on random layouts and sizes: N first
// (none for n 0), channels first when planar, bytes n views' worth.
func TestLayoutShape(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	for range 500 {
		l := tensor.Layout{Planar: r.IntN(2) == 0, Channels: []int{0, 3, 4}[r.IntN(3)], DType: tensor.DTypes[r.IntN(len(tensor.DTypes))]}
		n, w, h := r.IntN(5), uint32(1+r.IntN(4000)), uint32(1+r.IntN(4000))
		c := int64(max(l.Channels, 1))
		if l.Channels == 0 {
			c = 4
		}
		per := uint64(r.Int64N(1 << 40))
		want := []int64{int64(h), int64(w), c}
		if l.Planar {
			want = []int64{c, int64(h), int64(w)}
		}
		if n > 0 {
			want = append([]int64{int64(n)}, want...)
		}
		dims, size := layoutShape(l, n, w, h, per)
		if !reflect.DeepEqual(dims, want) || size != per*uint64(max(n, 1)) {
			t.Fatalf("layoutShape(%v, n %d, %dx%d, %d per view) = %v, %d; want %v, %d", l, n, w, h, per, dims, size, want, per*uint64(max(n, 1)))
		}
	}
}
