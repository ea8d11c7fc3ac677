// Package dlpack hands GPU and host memory to array libraries (PyTorch,
// CuPy, Numba, JAX) without copies, and takes theirs: DLPack managed
// tensors, the versioned DLManagedTensorVersioned of DLPack 1.x and the
// legacy DLManagedTensor, and __cuda_array_interface__ (version 3)
// descriptions.
//
// An exported managed tensor is one block of C memory (the struct, its shape
// and its strides); its manager_ctx is an integer handle into this package's
// table, never a Go pointer. The consumer calls the tensor's deleter when it
// is done; the deleter runs the release function given to Export exactly
// once and frees the block. Until then the memory's owner stays alive, so a
// tensor outlives the Go or Python object it came from.
package dlpack

/*
#include <stdlib.h>
#include <string.h>
#include "dlpack.h"

static size_t gfx_off_mctx(void) { return offsetof(gfx_DLManagedTensor, manager_ctx); }
static size_t gfx_off_del(void) { return offsetof(gfx_DLManagedTensor, deleter); }
static size_t gfx_off_vmctx(void) { return offsetof(gfx_DLManagedTensorVersioned, manager_ctx); }
static size_t gfx_off_vdel(void) { return offsetof(gfx_DLManagedTensorVersioned, deleter); }
static size_t gfx_off_vflags(void) { return offsetof(gfx_DLManagedTensorVersioned, flags); }
static size_t gfx_off_vtensor(void) { return offsetof(gfx_DLManagedTensorVersioned, dl_tensor); }
static size_t gfx_off_shape(void) { return offsetof(gfx_DLTensor, shape); }
static size_t gfx_off_boff(void) { return offsetof(gfx_DLTensor, byte_offset); }
static size_t gfx_off_xalloc(void) { return offsetof(gfx_DLPackExchangeAPI, managed_tensor_allocator); }
static size_t gfx_off_xfrom(void) { return offsetof(gfx_DLPackExchangeAPI, managed_tensor_from_py_object_no_sync); }
static size_t gfx_off_xto(void) { return offsetof(gfx_DLPackExchangeAPI, managed_tensor_to_py_object_no_sync); }
static size_t gfx_off_xdl(void) { return offsetof(gfx_DLPackExchangeAPI, dltensor_from_py_object_no_sync); }
static size_t gfx_off_xstream(void) { return offsetof(gfx_DLPackExchangeAPI, current_work_stream); }
// gfx_dlpack_build_h builds a managed tensor of d whose manager_ctx is the
// handle h into this package's table (the integer becomes a pointer on the
// C side: handles and device addresses are not Go pointers).
static void *gfx_dlpack_build_h(const gfx_dlpack_desc *d, int versioned, uintptr_t h) {
	return gfx_dlpack_build(d, versioned, (void *)h, gfx_dlpack_delete, gfx_dlpack_delete_versioned);
}
*/
import "C"

import (
	"errors"
	"fmt"
	"sync"
	"unsafe"

	"github.com/gfxcuda/gfxcuda/format"
)

// DeviceType is a DLPack device type (DLDeviceType).
type DeviceType int32

// Device types.
const (
	CPU      DeviceType = 1 // host memory
	CUDA     DeviceType = 2 // CUDA device memory
	CUDAHost DeviceType = 3 // pinned host memory
	Vulkan   DeviceType = 7 // Vulkan buffers
)

func (t DeviceType) String() string {
	switch t {
	case CPU:
		return "cpu"
	case CUDA:
		return "cuda"
	case CUDAHost:
		return "cuda_host"
	case Vulkan:
		return "vulkan"
	}
	return fmt.Sprintf("DeviceType(%d)", int32(t))
}

// Device is where a tensor's memory is: a type and an ordinal.
type Device struct {
	Type DeviceType
	ID   int32
}

// Flags of a versioned managed tensor.
const (
	FlagReadOnly          uint64 = 1 << 0 // the consumer must not write
	FlagIsCopied          uint64 = 1 << 1 // the producer made a copy for this tensor
	FlagSubbyteTypePadded uint64 = 1 << 2 // sub-byte elements padded to bytes
)

// Version is the DLPack version this package writes into versioned tensors.
var Version = [2]uint32{C.GFX_DLPACK_MAJOR, C.GFX_DLPACK_MINOR}

// Tensor describes an n-dimensional array in memory.
type Tensor struct {
	// Data is the base address; the first element is at Data + ByteOffset.
	Data       uintptr
	ByteOffset uint64
	Device     Device
	DType      format.DType
	Shape      []int64
	// Strides are in elements, not bytes; nil means C-contiguous.
	Strides []int64
	// ReadOnly and IsCopied become the versioned tensor's flags.
	ReadOnly bool
	IsCopied bool
}

// ErrInvalid is wrapped by the errors describing a malformed tensor.
var ErrInvalid = errors.New("dlpack: invalid tensor")

// Elements is the number of elements (1 for a 0-dimensional tensor).
func (t Tensor) Elements() int64 {
	n := int64(1)
	for _, s := range t.Shape {
		n *= s
	}
	return n
}

// ItemSize is the size of one element in bytes.
func (t Tensor) ItemSize() int { return int(t.DType.Bits) / 8 * int(max(t.DType.Lanes, 1)) }

// Contiguous reports whether the tensor is C-contiguous.
func (t Tensor) Contiguous() bool {
	if t.Strides == nil {
		return true
	}
	want := int64(1)
	for i := len(t.Shape) - 1; i >= 0; i-- {
		if t.Shape[i] != 1 && t.Strides[i] != want {
			return false
		}
		want *= t.Shape[i]
	}
	return true
}

// Validate checks the tensor's description.
func (t Tensor) Validate() error {
	switch {
	case t.Data == 0 && t.Elements() != 0:
		return fmt.Errorf("%w: null data pointer", ErrInvalid)
	case t.DType.Bits == 0 || t.DType.Bits%8 != 0:
		return fmt.Errorf("%w: element of %d bits (whole bytes only)", ErrInvalid, t.DType.Bits)
	case t.DType.Code > format.DLFloat && t.DType.Code != 6:
		return fmt.Errorf("%w: dtype code %d", ErrInvalid, t.DType.Code)
	case t.Strides != nil && len(t.Strides) != len(t.Shape):
		return fmt.Errorf("%w: %d strides for %d dimensions", ErrInvalid, len(t.Strides), len(t.Shape))
	case len(t.Shape) > 32:
		return fmt.Errorf("%w: %d dimensions (32 at most)", ErrInvalid, len(t.Shape))
	}
	for i, s := range t.Shape {
		if s < 0 {
			return fmt.Errorf("%w: dimension %d is %d", ErrInvalid, i, s)
		}
	}
	return t.checkSpan()
}

// table maps manager_ctx handles to the release functions of live exports.
var table = struct {
	sync.Mutex
	next uintptr
	m    map[uintptr]func()
}{m: map[uintptr]func(){}}

// Live is the number of exported tensors whose deleter has not run yet.
func Live() int {
	table.Lock()
	defer table.Unlock()
	return len(table.m)
}

//export gfxDLPackRelease
func gfxDLPackRelease(h C.uintptr_t) {
	table.Lock()
	f, ok := table.m[uintptr(h)]
	delete(table.m, uintptr(h))
	table.Unlock()
	if ok && f != nil {
		f()
	}
}

// ElementStrides returns the tensor's strides in elements: a copy of
// Strides, or the C-contiguous strides when Strides is nil.
func (t Tensor) ElementStrides() []int64 {
	if t.Strides != nil {
		return append([]int64{}, t.Strides...)
	}
	out := make([]int64, len(t.Shape))
	acc := int64(1)
	for i := len(t.Shape) - 1; i >= 0; i-- {
		out[i] = acc
		acc *= t.Shape[i]
	}
	return out
}

// Flags returns the versioned tensor's flags of t (ReadOnly, IsCopied).
func (t Tensor) Flags() uint64 {
	var fl uint64
	if t.ReadOnly {
		fl |= FlagReadOnly
	}
	if t.IsCopied {
		fl |= FlagIsCopied
	}
	return fl
}

// DescSize is the size in bytes of a gfx_dlpack_desc (dlpack.h), the C
// description Describe writes.
const DescSize = C.sizeof_gfx_dlpack_desc

// Describe checks t (Validate) and writes its DLPack description, every
// field computed here, to the gfx_dlpack_desc (dlpack.h) at dst: DescSize
// bytes of C memory, or of Go memory C does not keep. It is what
// gfx_dlpack_build makes managed tensors of, in C without entering Go
// (libgfxcuda's exporters), as Export does. On error dst is left as it
// was.
func Describe(t Tensor, dst unsafe.Pointer) error {
	if dst == nil {
		return fmt.Errorf("%w: null description", ErrInvalid)
	}
	if err := t.Validate(); err != nil {
		return err
	}
	describe(t, (*C.gfx_dlpack_desc)(dst))
	return nil
}

// describe fills d with the description of t (valid).
func describe(t Tensor, d *C.gfx_dlpack_desc) {
	*d = C.gfx_dlpack_desc{data: C.uint64_t(t.Data), byte_offset: C.uint64_t(t.ByteOffset), flags: C.uint64_t(t.Flags()),
		ndim: C.int32_t(len(t.Shape))}
	d.device.device_type, d.device.device_id = C.int32_t(t.Device.Type), C.int32_t(t.Device.ID)
	d.dtype.code, d.dtype.bits, d.dtype.lanes = C.uint8_t(t.DType.Code), C.uint8_t(t.DType.Bits), C.uint16_t(max(t.DType.Lanes, 1))
	for i, s := range t.Shape {
		d.shape[i] = C.int64_t(s)
	}
	for i, s := range t.ElementStrides() {
		d.strides[i] = C.int64_t(s)
	}
}

// Export makes a managed tensor of t in C memory and returns its address:
// a DLManagedTensorVersioned when versioned, else a legacy DLManagedTensor.
// It is built from t's description (Describe) by gfx_dlpack_build, the
// builder libgfxcuda's C exporters use too. release (may be nil) runs
// exactly once, when the consumer calls the tensor's deleter; it must not
// block for long. On error release does not run.
func Export(t Tensor, versioned bool, release func()) (unsafe.Pointer, error) {
	var d C.gfx_dlpack_desc
	if err := Describe(t, unsafe.Pointer(&d)); err != nil {
		return nil, err
	}
	table.Lock()
	table.next++
	h := table.next
	table.m[h] = release
	table.Unlock()
	v := C.int(0)
	if versioned {
		v = 1
	}
	p := C.gfx_dlpack_build_h(&d, v, C.uintptr_t(h))
	if p == nil {
		table.Lock()
		delete(table.m, h)
		table.Unlock()
		return nil, fmt.Errorf("dlpack: out of host memory for a %d-dimensional tensor header", len(t.Shape))
	}
	return p, nil
}

// CallDeleter calls the deleter of the managed tensor at p (versioned or
// legacy), as a consumer does when it is done. p is invalid afterwards.
func CallDeleter(p unsafe.Pointer, versioned bool) {
	v := C.int(0)
	if versioned {
		v = 1
	}
	C.gfx_dlpack_call_deleter(p, v)
}

// Managed is a managed tensor another library produced, imported with
// Import. Close calls its deleter, once.
type Managed struct {
	p         unsafe.Pointer
	versioned bool
	tensor    Tensor
	version   [2]uint32
	mu        sync.Mutex
	closed    bool
}

// Import reads the managed tensor at p: a DLManagedTensorVersioned when
// versioned, else a legacy DLManagedTensor. The Managed owns it from then
// on: Close calls its deleter (also when Import fails).
func Import(p unsafe.Pointer, versioned bool) (*Managed, error) {
	if p == nil {
		return nil, fmt.Errorf("%w: null managed tensor", ErrInvalid)
	}
	m := &Managed{p: p, versioned: versioned}
	var dl *C.gfx_DLTensor
	if versioned {
		v := (*C.gfx_DLManagedTensorVersioned)(p)
		m.version = [2]uint32{uint32(v.version.major), uint32(v.version.minor)}
		if m.version[0] != 1 {
			CallDeleter(p, true)
			return nil, fmt.Errorf("%w: DLPack version %d.%d; this library reads 1.x", ErrInvalid, m.version[0], m.version[1])
		}
		fl := uint64(v.flags)
		m.tensor.ReadOnly, m.tensor.IsCopied = fl&FlagReadOnly != 0, fl&FlagIsCopied != 0
		dl = &v.dl_tensor
	} else {
		dl = &(*C.gfx_DLManagedTensor)(p).dl_tensor
	}
	t := &m.tensor
	t.Data = uintptr(dl.data)
	t.ByteOffset = uint64(dl.byte_offset)
	t.Device = Device{DeviceType(dl.device.device_type), int32(dl.device.device_id)}
	t.DType = format.DType{Code: uint8(dl.dtype.code), Bits: uint8(dl.dtype.bits), Lanes: uint16(dl.dtype.lanes)}
	nd := int(dl.ndim)
	if nd < 0 || nd > 32 || (nd > 0 && dl.shape == nil) {
		CallDeleter(p, versioned)
		return nil, fmt.Errorf("%w: %d dimensions", ErrInvalid, nd)
	}
	if nd > 0 {
		t.Shape = append([]int64(nil), unsafe.Slice((*int64)(unsafe.Pointer(dl.shape)), nd)...)
		if dl.strides != nil {
			t.Strides = append([]int64(nil), unsafe.Slice((*int64)(unsafe.Pointer(dl.strides)), nd)...)
		}
	} else {
		t.Shape = []int64{}
	}
	if err := t.Validate(); err != nil {
		CallDeleter(p, versioned)
		return nil, err
	}
	return m, nil
}

// Tensor describes the imported tensor. Its memory stays valid until Close.
func (m *Managed) Tensor() Tensor { return m.tensor }

// Versioned reports whether the tensor was a DLManagedTensorVersioned, and
// Version its DLPack version (zero for legacy tensors).
func (m *Managed) Versioned() bool { return m.versioned }

// Version is the imported tensor's DLPack version (zero for legacy ones).
func (m *Managed) Version() [2]uint32 { return m.version }

// Close calls the tensor's deleter. Idempotent.
func (m *Managed) Close() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return nil
	}
	m.closed = true
	CallDeleter(m.p, m.versioned)
	m.p = nil
	return nil
}

// layout returns the C offsets and sizes tests check against the DLPack
// specification.
func layout() map[string]uintptr {
	return map[string]uintptr{
		"DLTensor":                           C.sizeof_gfx_DLTensor,
		"DLTensor.shape":                     uintptr(C.gfx_off_shape()),
		"DLTensor.byte_offset":               uintptr(C.gfx_off_boff()),
		"DLManagedTensor":                    C.sizeof_gfx_DLManagedTensor,
		"DLManagedTensor.manager_ctx":        uintptr(C.gfx_off_mctx()),
		"DLManagedTensor.deleter":            uintptr(C.gfx_off_del()),
		"DLManagedTensorVersioned":           C.sizeof_gfx_DLManagedTensorVersioned,
		"DLManagedTensorVersioned.manager":   uintptr(C.gfx_off_vmctx()),
		"DLManagedTensorVersioned.deleter":   uintptr(C.gfx_off_vdel()),
		"DLManagedTensorVersioned.flags":     uintptr(C.gfx_off_vflags()),
		"DLManagedTensorVersioned.dl_tensor": uintptr(C.gfx_off_vtensor()),
		"DLPackExchangeAPIHeader":            C.sizeof_gfx_DLPackExchangeAPIHeader,
		"DLPackExchangeAPI":                  C.sizeof_gfx_DLPackExchangeAPI,
		"DLPackExchangeAPI.allocator":        uintptr(C.gfx_off_xalloc()),
		"DLPackExchangeAPI.from_py":          uintptr(C.gfx_off_xfrom()),
		"DLPackExchangeAPI.to_py":            uintptr(C.gfx_off_xto()),
		"DLPackExchangeAPI.dltensor_from_py": uintptr(C.gfx_off_xdl()),
		"DLPackExchangeAPI.work_stream":      uintptr(C.gfx_off_xstream()),
	}
}
