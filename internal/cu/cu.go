// Package cu is the raw binding to the CUDA driver API (libcuda.so.1).
//
// The library is opened at run time and every entry point is resolved with
// cuGetProcAddress for the ABI of CUDA 12.0 (GFX_CU_API_VERSION in cu.h), so
// versioned symbols such as cuMemAlloc_v2 resolve to the right function and
// no CUDA toolkit is needed to build. Wrappers of entry points that need a
// context take it as their first argument and make it current on the calling
// OS thread inside the same C call, restoring the thread's previous context
// before returning: Go's scheduler moving goroutines between threads cannot
// break them, no goroutine needs to lock its thread, and a caller's own
// current context (PyTorch's, say) is left as it was.
//
// This package reports raw CUresult codes; package cuda turns them into
// errors and wraps handles in types with lifetimes.
package cu

/*
#cgo linux LDFLAGS: -ldl
#include <stdlib.h>
#include "cu.h"

// Raw handles travel to and from Go as integers, never as Go pointers.
static CUstream gfx_stream_of(uintptr_t h) { return (CUstream)h; }
static CUcontext gfx_ctx_of(uintptr_t h) { return (CUcontext)h; }
*/
import "C"

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"sync"
	"unsafe"

	"github.com/gfxcuda/gfxcuda/internal/dl"
)

// Result is a CUresult.
type Result int32

// Results with a meaning of their own in this package.
const (
	Success        Result = 0
	MissingEntry   Result = C.GFX_CU_MISSING_ENTRY // the driver lacks the entry point
	NotLoaded      Result = C.GFX_CU_NOT_LOADED    // Load has not succeeded
	ErrNotReady    Result = 600
	ErrNoDevice    Result = 100
	ErrUnknown     Result = 999
	APIVersion            = C.GFX_CU_API_VERSION
	UUIDSize              = 16
	Memcpy2DSize          = C.sizeof_CUDA_MEMCPY2D
	MemoryTypeHost        = C.CU_MEMORYTYPE_HOST
	MemoryTypeDev         = C.CU_MEMORYTYPE_DEVICE
	MemoryTypeArr         = C.CU_MEMORYTYPE_ARRAY
)

// Handles. Their fields are C pointers owned by the driver, never Go memory.
type (
	Device    int32
	DevicePtr uint64
	Context   struct{ h C.CUcontext }
	Stream    struct{ h C.CUstream }
	Event     struct{ h C.CUevent }
)

// IsNil reports whether the handle is NULL.
func (c Context) IsNil() bool { return c.h == nil }

// IsNil reports whether the handle is NULL.
func (s Stream) IsNil() bool { return s.h == nil }

// IsNil reports whether the handle is NULL.
func (e Event) IsNil() bool { return e.h == nil }

// LoadError describes why the driver library could not be used.
type LoadError struct {
	Stage  string // "dlopen", "symbols", "cuInit"
	Result Result // for Stage "cuInit"
	Err    error
}

func (e *LoadError) Error() string {
	if e.Stage == "cuInit" {
		return fmt.Sprintf("cuInit failed with CUresult %d", e.Result)
	}
	return e.Stage + ": " + e.Err.Error()
}

func (e *LoadError) Unwrap() error { return e.Err }

var (
	loadOnce    sync.Once
	loadErr     error
	libName     string
	opened      *dl.Library // libcuda, once dlopen found it
	missingSyms string
)

// Load opens libcuda.so.1 (or the file named by $GFXCUDA_LIBCUDA), calls
// cuInit(0) and resolves the entry points.
// It runs once; later calls return the first result.
func Load() error {
	loadOnce.Do(func() { loadErr = load() })
	return loadErr
}

func load() error {
	names := []string{"libcuda.so.1", "libcuda.so"}
	if runtime.GOOS == "windows" {
		names = []string{"nvcuda.dll"} // the driver's, in System32
	}
	if p := os.Getenv("GFXCUDA_LIBCUDA"); p != "" {
		names = []string{p}
	}
	lib, err := dl.Open(names...)
	if err != nil {
		return &LoadError{Stage: "dlopen", Err: err}
	}
	libName, opened = lib.Name(), lib
	initFn, err := lib.Sym("cuInit")
	if err != nil {
		return &LoadError{Stage: "symbols", Err: err}
	}
	if r := Result(C.gfx_cu_call_init(initFn, 0)); r != Success {
		return &LoadError{Stage: "cuInit", Result: r, Err: errors.New("cuInit failed")}
	}
	gpa2, _ := lib.Sym("cuGetProcAddress_v2")
	gpa1, _ := lib.Sym("cuGetProcAddress")
	if gpa2 == nil && gpa1 == nil {
		return &LoadError{Stage: "symbols", Err: errors.New("libcuda has no cuGetProcAddress: the driver predates CUDA 11.3; install a newer NVIDIA driver")}
	}
	version := int32(APIVersion)
	if vfn, err := lib.Sym("cuDriverGetVersion"); err == nil {
		var v C.int
		if C.gfx_cu_call_version(vfn, &v) == 0 && int32(v) < version {
			version = int32(v)
		}
	}
	bad := C.gfx_cu_load(gpa2, gpa1, C.int(version))
	var buf [4096]C.char
	C.gfx_cu_missing(&buf[0], C.int(len(buf)))
	missingSyms = C.GoString(&buf[0])
	if bad < 0 || Result(C.gfx_cuInit(0)) == NotLoaded {
		return &LoadError{Stage: "symbols", Err: fmt.Errorf("essential entry points missing: %s", missingSyms)}
	}
	return nil
}

// Library is the file name libcuda was opened as, once Load succeeded.
func Library() string { return libName }

// LibraryFile is the file libcuda was loaded from (dl.Library.Path), once
// Load opened it, even where cuInit then failed; "" before, or when it was
// not found.
func LibraryFile() string { return opened.Path() }

// MissingEntryPoints lists the entry points the driver did not provide.
func MissingEntryPoints() string { return missingSyms }

func cstr(b []C.char) string { return C.GoString(&b[0]) }

// ErrorName returns the CUresult's enum name, e.g. "CUDA_ERROR_OUT_OF_MEMORY".
func ErrorName(r Result) (string, bool) {
	var s *C.char
	if C.gfx_cuGetErrorName(C.CUresult(r), &s) != 0 || s == nil {
		return "", false
	}
	return C.GoString(s), true
}

// ErrorString returns the driver's description of r.
func ErrorString(r Result) (string, bool) {
	var s *C.char
	if C.gfx_cuGetErrorString(C.CUresult(r), &s) != 0 || s == nil {
		return "", false
	}
	return C.GoString(s), true
}

// DriverGetVersion is cuDriverGetVersion.
func DriverGetVersion() (int, Result) {
	var v C.int
	r := Result(C.gfx_cuDriverGetVersion(&v))
	return int(v), r
}

// DeviceGetCount is cuDeviceGetCount.
func DeviceGetCount() (int, Result) {
	var n C.int
	r := Result(C.gfx_cuDeviceGetCount(&n))
	return int(n), r
}

// DeviceGet is cuDeviceGet.
func DeviceGet(ordinal int) (Device, Result) {
	var d C.CUdevice
	r := Result(C.gfx_cuDeviceGet(&d, C.int(ordinal)))
	return Device(d), r
}

// DeviceGetName is cuDeviceGetName.
func DeviceGetName(d Device) (string, Result) {
	var buf [256]C.char
	r := Result(C.gfx_cuDeviceGetName(&buf[0], C.int(len(buf)), C.CUdevice(d)))
	return cstr(buf[:]), r
}

// DeviceGetUUID is cuDeviceGetUuid (the _v2 ABI).
func DeviceGetUUID(d Device) ([16]byte, Result) {
	var u C.CUuuid
	r := Result(C.gfx_cuDeviceGetUuid(&u, C.CUdevice(d)))
	var out [16]byte
	for i := range out {
		out[i] = byte(u.bytes[i])
	}
	return out, r
}

// DeviceGetPCIBusID is cuDeviceGetPCIBusId.
func DeviceGetPCIBusID(d Device) (string, Result) {
	var buf [64]C.char
	r := Result(C.gfx_cuDeviceGetPCIBusId(&buf[0], C.int(len(buf)), C.CUdevice(d)))
	return cstr(buf[:]), r
}

// DeviceTotalMem is cuDeviceTotalMem.
func DeviceTotalMem(d Device) (uint64, Result) {
	var n C.size_t
	r := Result(C.gfx_cuDeviceTotalMem(&n, C.CUdevice(d)))
	return uint64(n), r
}

// DeviceGetAttribute is cuDeviceGetAttribute.
func DeviceGetAttribute(d Device, attr int) (int, Result) {
	var v C.int
	r := Result(C.gfx_cuDeviceGetAttribute(&v, C.int(attr), C.CUdevice(d)))
	return int(v), r
}

// DeviceCanAccessPeer is cuDeviceCanAccessPeer: whether d can map the
// memory of peer.
func DeviceCanAccessPeer(d, peer Device) (bool, Result) {
	var v C.int
	r := Result(C.gfx_cuDeviceCanAccessPeer(&v, C.CUdevice(d), C.CUdevice(peer)))
	return v != 0, r
}

// DevicePrimaryCtxRetain is cuDevicePrimaryCtxRetain.
func DevicePrimaryCtxRetain(d Device) (Context, Result) {
	var c C.CUcontext
	r := Result(C.gfx_cuDevicePrimaryCtxRetain(&c, C.CUdevice(d)))
	return Context{c}, r
}

// DevicePrimaryCtxRelease is cuDevicePrimaryCtxRelease.
func DevicePrimaryCtxRelease(d Device) Result {
	return Result(C.gfx_cuDevicePrimaryCtxRelease(C.CUdevice(d)))
}

// DevicePrimaryCtxGetState is cuDevicePrimaryCtxGetState.
func DevicePrimaryCtxGetState(d Device) (flags uint32, active bool, r Result) {
	var f C.uint
	var a C.int
	r = Result(C.gfx_cuDevicePrimaryCtxGetState(C.CUdevice(d), &f, &a))
	return uint32(f), a != 0, r
}

// CtxGetCurrent is cuCtxGetCurrent: the context current on this OS thread.
func CtxGetCurrent() (Context, Result) {
	var c C.CUcontext
	r := Result(C.gfx_cuCtxGetCurrent(&c))
	return Context{c}, r
}

// CtxSetCurrent is cuCtxSetCurrent.
func CtxSetCurrent(c Context) Result { return Result(C.gfx_cuCtxSetCurrent(c.h)) }

// CtxSynchronize is cuCtxSynchronize with c current.
func CtxSynchronize(c Context) Result { return Result(C.gfx_cuCtxSynchronize(c.h)) }

// MemGetInfo is cuMemGetInfo with c current.
func MemGetInfo(c Context) (free, total uint64, r Result) {
	var f, t C.size_t
	r = Result(C.gfx_cuMemGetInfo(c.h, &f, &t))
	return uint64(f), uint64(t), r
}

// StreamCreate is cuStreamCreate.
func StreamCreate(c Context, flags uint32) (Stream, Result) {
	var s C.CUstream
	r := Result(C.gfx_cuStreamCreate(c.h, &s, C.uint(flags)))
	return Stream{s}, r
}

// StreamDestroy is cuStreamDestroy.
func StreamDestroy(c Context, s Stream) Result { return Result(C.gfx_cuStreamDestroy(c.h, s.h)) }

// StreamSynchronize is cuStreamSynchronize.
func StreamSynchronize(s Stream) Result { return Result(C.gfx_cuStreamSynchronize(s.h)) }

// StreamQuery is cuStreamQuery.
func StreamQuery(s Stream) Result { return Result(C.gfx_cuStreamQuery(s.h)) }

// StreamSynchronizeIn is cuStreamSynchronize with c current for the call, as
// the special handles (NULL, StreamLegacy, StreamPerThread) need.
func StreamSynchronizeIn(c Context, s Stream) Result {
	return Result(C.gfx_cuStreamSynchronize_in(c.h, s.h))
}

// StreamQueryIn is cuStreamQuery with c current for the call.
func StreamQueryIn(c Context, s Stream) Result { return Result(C.gfx_cuStreamQuery_in(c.h, s.h)) }

// Special stream handles (CU_STREAM_LEGACY, CU_STREAM_PER_THREAD in
// cuda.h): the current context's legacy and per-thread default streams.
const (
	StreamLegacy    = 0x1
	StreamPerThread = 0x2
)

// StreamFromHandle wraps a raw CUstream value (a foreign stream, or 0 /
// StreamLegacy / StreamPerThread).
func StreamFromHandle(h uintptr) Stream {
	return Stream{C.gfx_stream_of(C.uintptr_t(h))}
}

// Handle returns the raw CUstream value.
func (s Stream) Handle() uintptr { return uintptr(unsafe.Pointer(s.h)) }

// Handle returns the raw CUcontext value.
func (c Context) Handle() uintptr { return uintptr(unsafe.Pointer(c.h)) }

// Handle returns the raw CUevent value.
func (e Event) Handle() uintptr { return uintptr(unsafe.Pointer(e.h)) }

// ContextFromHandle wraps a raw CUcontext value.
func ContextFromHandle(h uintptr) Context {
	return Context{C.gfx_ctx_of(C.uintptr_t(h))}
}

// CtxCreate is cuCtxCreate (the _v2 ABI, which Load requests at CUDA 3.2:
// at 12.0 cuGetProcAddress would return _v3's): a new context on d, which the
// driver makes current on the calling OS thread (used by tests that need a
// context other than the primary one).
func CtxCreate(flags uint32, d Device) (Context, Result) {
	var c C.CUcontext
	r := Result(C.gfx_cuCtxCreate(&c, C.uint(flags), C.CUdevice(d)))
	return Context{c}, r
}

// CtxDestroy is cuCtxDestroy.
func CtxDestroy(c Context) Result { return Result(C.gfx_cuCtxDestroy(c.h)) }

// EntryPoints lists every driver entry point Load resolves.
func EntryPoints() []string {
	var out []string
	for i := 0; ; i++ {
		n := C.gfx_cu_name(C.int(i))
		if n == nil {
			return out
		}
		out = append(out, C.GoString(n))
	}
}

// ABIVersion returns the CUDA version Load asks cuGetProcAddress for name
// at: APIVersion, or an older one where cu.h declares that older ABI.
func ABIVersion(name string) int {
	cs := C.CString(name)
	defer C.free(unsafe.Pointer(cs))
	return int(C.gfx_cu_abi_version(cs, C.int(APIVersion)))
}

// StreamWaitEvent is cuStreamWaitEvent.
func StreamWaitEvent(c Context, s Stream, e Event) Result {
	return Result(C.gfx_cuStreamWaitEvent(c.h, s.h, e.h, 0))
}

// EventCreate is cuEventCreate.
func EventCreate(c Context, flags uint32) (Event, Result) {
	var e C.CUevent
	r := Result(C.gfx_cuEventCreate(c.h, &e, C.uint(flags)))
	return Event{e}, r
}

// EventDestroy is cuEventDestroy.
func EventDestroy(c Context, e Event) Result { return Result(C.gfx_cuEventDestroy(c.h, e.h)) }

// EventRecord is cuEventRecord.
func EventRecord(c Context, e Event, s Stream) Result {
	return Result(C.gfx_cuEventRecord(c.h, e.h, s.h))
}

// EventSynchronize is cuEventSynchronize.
func EventSynchronize(e Event) Result { return Result(C.gfx_cuEventSynchronize(e.h)) }

// EventQuery is cuEventQuery.
func EventQuery(e Event) Result { return Result(C.gfx_cuEventQuery(e.h)) }

// EventElapsedTime is cuEventElapsedTime, in milliseconds.
func EventElapsedTime(start, end Event) (float32, Result) {
	var ms C.float
	r := Result(C.gfx_cuEventElapsedTime(&ms, start.h, end.h))
	return float32(ms), r
}

// MemAlloc is cuMemAlloc.
func MemAlloc(c Context, n uint64) (DevicePtr, Result) {
	var p C.CUdeviceptr
	r := Result(C.gfx_cuMemAlloc(c.h, &p, C.size_t(n)))
	return DevicePtr(p), r
}

// MemAllocPitch is cuMemAllocPitch.
func MemAllocPitch(c Context, width, height uint64, elem uint32) (DevicePtr, uint64, Result) {
	var p C.CUdeviceptr
	var pitch C.size_t
	r := Result(C.gfx_cuMemAllocPitch(c.h, &p, &pitch, C.size_t(width), C.size_t(height), C.uint(elem)))
	return DevicePtr(p), uint64(pitch), r
}

// MemFree is cuMemFree.
func MemFree(c Context, p DevicePtr) Result { return Result(C.gfx_cuMemFree(c.h, C.CUdeviceptr(p))) }

// MemHostAlloc is cuMemHostAlloc. The memory is C memory owned by the driver.
func MemHostAlloc(c Context, n uint64, flags uint32) (unsafe.Pointer, Result) {
	var p unsafe.Pointer
	r := Result(C.gfx_cuMemHostAlloc(c.h, &p, C.size_t(n), C.uint(flags)))
	return p, r
}

// MemFreeHost is cuMemFreeHost.
func MemFreeHost(c Context, p unsafe.Pointer) Result { return Result(C.gfx_cuMemFreeHost(c.h, p)) }

// MemcpyHtoD is cuMemcpyHtoD. src may be Go memory: the call does not keep it.
func MemcpyHtoD(c Context, dst DevicePtr, src unsafe.Pointer, n uint64) Result {
	return Result(C.gfx_cuMemcpyHtoD(c.h, C.CUdeviceptr(dst), src, C.size_t(n)))
}

// MemcpyDtoH is cuMemcpyDtoH. dst may be Go memory: the call does not keep it.
func MemcpyDtoH(c Context, dst unsafe.Pointer, src DevicePtr, n uint64) Result {
	return Result(C.gfx_cuMemcpyDtoH(c.h, dst, C.CUdeviceptr(src), C.size_t(n)))
}

// MemcpyDtoD is cuMemcpyDtoD.
func MemcpyDtoD(c Context, dst, src DevicePtr, n uint64) Result {
	return Result(C.gfx_cuMemcpyDtoD(c.h, C.CUdeviceptr(dst), C.CUdeviceptr(src), C.size_t(n)))
}

// MemcpyHtoDAsync is cuMemcpyHtoDAsync. src must be pinned C memory.
func MemcpyHtoDAsync(c Context, dst DevicePtr, src unsafe.Pointer, n uint64, s Stream) Result {
	return Result(C.gfx_cuMemcpyHtoDAsync(c.h, C.CUdeviceptr(dst), src, C.size_t(n), s.h))
}

// MemcpyDtoHAsync is cuMemcpyDtoHAsync. dst must be pinned C memory.
func MemcpyDtoHAsync(c Context, dst unsafe.Pointer, src DevicePtr, n uint64, s Stream) Result {
	return Result(C.gfx_cuMemcpyDtoHAsync(c.h, dst, C.CUdeviceptr(src), C.size_t(n), s.h))
}

// MemcpyDtoDAsync is cuMemcpyDtoDAsync.
func MemcpyDtoDAsync(c Context, dst, src DevicePtr, n uint64, s Stream) Result {
	return Result(C.gfx_cuMemcpyDtoDAsync(c.h, C.CUdeviceptr(dst), C.CUdeviceptr(src), C.size_t(n), s.h))
}

// MemcpyPeerAsync is cuMemcpyPeerAsync, queued on s with c (s's context)
// current.
func MemcpyPeerAsync(c Context, dst DevicePtr, dstCtx Context, src DevicePtr, srcCtx Context, n uint64, s Stream) Result {
	return Result(C.gfx_cuMemcpyPeerAsync(c.h, C.CUdeviceptr(dst), dstCtx.h, C.CUdeviceptr(src), srcCtx.h, C.size_t(n), s.h))
}

// PointerDevicePointer is cuPointerGetAttribute(CU_POINTER_ATTRIBUTE_DEVICE_POINTER)
// with c current: the address of the memory at p in c's device, which the
// driver gives only when that device can reach it (its own memory, or a
// peer's with peer access enabled).
func PointerDevicePointer(c Context, p DevicePtr) (DevicePtr, Result) {
	var v C.CUdeviceptr
	r := Result(C.gfx_cuPointerGetAttribute(c.h, unsafe.Pointer(&v), 3, C.CUdeviceptr(p)))
	return DevicePtr(v), r
}

// CtxEnablePeerAccess is cuCtxEnablePeerAccess with c current: c may then
// access peer's allocations.
func CtxEnablePeerAccess(c, peer Context) Result {
	return Result(C.gfx_cuCtxEnablePeerAccess(c.h, peer.h, 0))
}

// Memcpy2D describes a 2D copy (CUDA_MEMCPY2D). Host pointers must stay
// valid for the call (pinned by the caller when they are Go memory); for
// asynchronous copies they must be pinned C memory.
type Memcpy2D struct {
	SrcXInBytes, SrcY uint64
	SrcMemoryType     int
	SrcHost           unsafe.Pointer
	SrcDevice         DevicePtr
	SrcPitch          uint64
	DstXInBytes, DstY uint64
	DstMemoryType     int
	DstHost           unsafe.Pointer
	DstDevice         DevicePtr
	DstPitch          uint64
	WidthInBytes      uint64
	Height            uint64
}

func (m *Memcpy2D) c() *C.CUDA_MEMCPY2D {
	// Allocated in C memory so that it may hold Go host pointers.
	p := (*C.CUDA_MEMCPY2D)(C.calloc(1, C.sizeof_CUDA_MEMCPY2D))
	p.srcXInBytes = C.size_t(m.SrcXInBytes)
	p.srcY = C.size_t(m.SrcY)
	p.srcMemoryType = C.CUmemorytype(m.SrcMemoryType)
	p.srcHost = m.SrcHost
	p.srcDevice = C.CUdeviceptr(m.SrcDevice)
	p.srcPitch = C.size_t(m.SrcPitch)
	p.dstXInBytes = C.size_t(m.DstXInBytes)
	p.dstY = C.size_t(m.DstY)
	p.dstMemoryType = C.CUmemorytype(m.DstMemoryType)
	p.dstHost = m.DstHost
	p.dstDevice = C.CUdeviceptr(m.DstDevice)
	p.dstPitch = C.size_t(m.DstPitch)
	p.WidthInBytes = C.size_t(m.WidthInBytes)
	p.Height = C.size_t(m.Height)
	return p
}

// MemcpyTwoD is cuMemcpy2D.
func MemcpyTwoD(c Context, m *Memcpy2D) Result {
	p := m.c()
	defer C.free(unsafe.Pointer(p))
	return Result(C.gfx_cuMemcpy2D(c.h, p))
}

// MemcpyTwoDAsync is cuMemcpy2DAsync. The descriptor is consumed when the
// call returns; host memory must be pinned C memory.
func MemcpyTwoDAsync(c Context, m *Memcpy2D, s Stream) Result {
	p := m.c()
	defer C.free(unsafe.Pointer(p))
	return Result(C.gfx_cuMemcpy2DAsync(c.h, p, s.h))
}

// MemsetD8 is cuMemsetD8.
func MemsetD8(c Context, p DevicePtr, v uint8, n uint64) Result {
	return Result(C.gfx_cuMemsetD8(c.h, C.CUdeviceptr(p), C.uchar(v), C.size_t(n)))
}

// MemsetD32 is cuMemsetD32 (n counts 32-bit words).
func MemsetD32(c Context, p DevicePtr, v uint32, n uint64) Result {
	return Result(C.gfx_cuMemsetD32(c.h, C.CUdeviceptr(p), C.uint(v), C.size_t(n)))
}

// MemsetD8Async is cuMemsetD8Async.
func MemsetD8Async(c Context, p DevicePtr, v uint8, n uint64, s Stream) Result {
	return Result(C.gfx_cuMemsetD8Async(c.h, C.CUdeviceptr(p), C.uchar(v), C.size_t(n), s.h))
}

// MemsetD32Async is cuMemsetD32Async (n counts 32-bit words).
func MemsetD32Async(c Context, p DevicePtr, v uint32, n uint64, s Stream) Result {
	return Result(C.gfx_cuMemsetD32Async(c.h, C.CUdeviceptr(p), C.uint(v), C.size_t(n), s.h))
}
