package cu

/*
#include <stdlib.h>
#include <string.h>
#include "cu.h"

// launch copies each argument into one C block (so no Go memory is handed to
// the driver), builds the pointer array cuLaunchKernel wants, and launches.
static CUresult gfx_launch(CUcontext ctx, CUfunction f, unsigned int gx, unsigned int gy, unsigned int gz,
		unsigned int bx, unsigned int by, unsigned int bz, unsigned int shmem, CUstream s,
		const void *args, const size_t *offsets, int n) {
	void *ptrs[64];
	int i;
	if (n > 64) return 1; // CUDA_ERROR_INVALID_VALUE
	for (i = 0; i < n; i++) ptrs[i] = (char *)args + offsets[i];
	return gfx_cuLaunchKernel(ctx, f, gx, gy, gz, bx, by, bz, shmem, s, n ? ptrs : NULL, NULL);
}

static CUresult gfx_import_mem_fd(CUcontext ctx, CUexternalMemory *m, int fd, unsigned long long size, unsigned int flags) {
	CUDA_EXTERNAL_MEMORY_HANDLE_DESC d;
	memset(&d, 0, sizeof d);
	d.type = CU_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD;
	d.handle.fd = fd;
	d.size = size;
	d.flags = flags;
	return gfx_cuImportExternalMemory(ctx, m, &d);
}

static CUresult gfx_mapped_buffer(CUcontext ctx, CUdeviceptr *p, CUexternalMemory m, unsigned long long off, unsigned long long size) {
	CUDA_EXTERNAL_MEMORY_BUFFER_DESC d;
	memset(&d, 0, sizeof d);
	d.offset = off;
	d.size = size;
	return gfx_cuExternalMemoryGetMappedBuffer(ctx, p, m, &d);
}

static CUresult gfx_mapped_array(CUcontext ctx, CUmipmappedArray *a, CUexternalMemory m, unsigned long long off,
		size_t w, size_t h, size_t depth, int format, unsigned int channels, unsigned int flags, unsigned int levels) {
	CUDA_EXTERNAL_MEMORY_MIPMAPPED_ARRAY_DESC d;
	memset(&d, 0, sizeof d);
	d.offset = off;
	d.arrayDesc.Width = w;
	d.arrayDesc.Height = h;
	d.arrayDesc.Depth = depth;
	d.arrayDesc.Format = (CUarray_format)format;
	d.arrayDesc.NumChannels = channels;
	d.arrayDesc.Flags = flags;
	d.numLevels = levels;
	return gfx_cuExternalMemoryGetMappedMipmappedArray(ctx, a, m, &d);
}

static CUresult gfx_array_create(CUcontext ctx, CUarray *a, size_t w, size_t h, size_t depth, int format, unsigned int channels, unsigned int flags) {
	CUDA_ARRAY3D_DESCRIPTOR d;
	memset(&d, 0, sizeof d);
	d.Width = w;
	d.Height = h;
	d.Depth = depth;
	d.Format = (CUarray_format)format;
	d.NumChannels = channels;
	d.Flags = flags;
	return gfx_cuArray3DCreate(ctx, a, &d);
}

static CUresult gfx_import_sem_fd(CUcontext ctx, CUexternalSemaphore *s, int fd, int type) {
	CUDA_EXTERNAL_SEMAPHORE_HANDLE_DESC d;
	memset(&d, 0, sizeof d);
	d.type = (CUexternalSemaphoreHandleType)type;
	d.handle.fd = fd;
	return gfx_cuImportExternalSemaphore(ctx, s, &d);
}

static CUresult gfx_signal_sem(CUcontext ctx, CUexternalSemaphore s, unsigned long long value, CUstream st) {
	CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS p;
	memset(&p, 0, sizeof p);
	p.params.fence.value = value;
	return gfx_cuSignalExternalSemaphoresAsync(ctx, &s, &p, 1, st);
}

static CUresult gfx_wait_sem(CUcontext ctx, CUexternalSemaphore s, unsigned long long value, CUstream st) {
	CUDA_EXTERNAL_SEMAPHORE_WAIT_PARAMS p;
	memset(&p, 0, sizeof p);
	p.params.fence.value = value;
	return gfx_cuWaitExternalSemaphoresAsync(ctx, &s, &p, 1, st);
}

static void gfx_alloc_prop(CUmemAllocationProp *p, int dev, int posixFD) {
	memset(p, 0, sizeof *p);
	p->type = 1;                           // CU_MEM_ALLOCATION_TYPE_PINNED
	p->requestedHandleTypes = posixFD ? 1 : 0; // CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR
	p->location.type = 1;                  // CU_MEM_LOCATION_TYPE_DEVICE
	p->location.id = dev;
}

static CUresult gfx_granularity(CUcontext ctx, size_t *g, int dev, int posixFD, int recommended) {
	CUmemAllocationProp p;
	gfx_alloc_prop(&p, dev, posixFD);
	return gfx_cuMemGetAllocationGranularity(ctx, g, &p, recommended);
}

static CUresult gfx_mem_create(CUcontext ctx, CUmemGenericAllocationHandle *h, size_t n, int dev, int posixFD) {
	CUmemAllocationProp p;
	gfx_alloc_prop(&p, dev, posixFD);
	return gfx_cuMemCreate(ctx, h, n, &p, 0);
}

static CUresult gfx_export_fd(CUcontext ctx, int *fd, CUmemGenericAllocationHandle h) {
	return gfx_cuMemExportToShareableHandle(ctx, fd, h, 1, 0);
}

static CUresult gfx_import_fd(CUcontext ctx, CUmemGenericAllocationHandle *h, int fd) {
	return gfx_cuMemImportFromShareableHandle(ctx, h, (void *)(uintptr_t)fd, 1);
}

static CUresult gfx_set_access(CUcontext ctx, CUdeviceptr p, size_t n, int dev) {
	CUmemAccessDesc d;
	memset(&d, 0, sizeof d);
	d.location.type = 1; // CU_MEM_LOCATION_TYPE_DEVICE
	d.location.id = dev;
	d.flags = 3;         // CU_MEM_ACCESS_FLAGS_PROT_READWRITE
	return gfx_cuMemSetAccess(ctx, p, n, &d, 1);
}

static CUresult gfx_surf_create(CUcontext ctx, CUsurfObject *o, CUarray a) {
	CUDA_RESOURCE_DESC d;
	memset(&d, 0, sizeof d);
	d.resType = CU_RESOURCE_TYPE_ARRAY;
	d.res.array.hArray = a;
	return gfx_cuSurfObjectCreate(ctx, o, &d);
}

static CUresult gfx_ipc_get(CUcontext ctx, void *out64, CUdeviceptr p) {
	return gfx_cuIpcGetMemHandle(ctx, (CUipcMemHandle *)out64, p);
}

static CUresult gfx_ipc_open(CUcontext ctx, CUdeviceptr *p, const void *in64, unsigned int flags) {
	CUipcMemHandle h;
	memcpy(&h, in64, sizeof h);
	return gfx_cuIpcOpenMemHandle(ctx, p, h, flags);
}
*/
import "C"

import (
	"unsafe"
)

// More handles.
type (
	ExternalMemory    struct{ h C.CUexternalMemory }
	ExternalSemaphore struct{ h C.CUexternalSemaphore }
	MipmappedArray    struct{ h C.CUmipmappedArray }
	Array             struct{ h C.CUarray }
	Module            struct{ h C.CUmodule }
	Function          struct{ h C.CUfunction }
	MemHandle         uint64 // CUmemGenericAllocationHandle
	SurfObject        uint64 // CUsurfObject
)

// IsNil reports whether the handle is NULL.
func (a Array) IsNil() bool { return a.h == nil }

// Constants used with the functions below (values from cuda.h).
const (
	ExternalMemoryDedicated = C.CUDA_EXTERNAL_MEMORY_DEDICATED
	SemaphoreOpaqueFD       = C.CU_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD
	SemaphoreTimelineFD     = C.CU_EXTERNAL_SEMAPHORE_HANDLE_TYPE_TIMELINE_SEMAPHORE_FD
	Array3DLayered          = 0x01
	Array3DSurfaceLDST      = 0x02
	Array3DColorAttachment  = 0x20
	IPCHandleSize           = 64
)

// ImportExternalMemoryFD is cuImportExternalMemory for an OPAQUE_FD handle.
// On success the driver owns fd.
func ImportExternalMemoryFD(c Context, fd int, size uint64, flags uint32) (ExternalMemory, Result) {
	var m C.CUexternalMemory
	r := Result(C.gfx_import_mem_fd(c.h, &m, C.int(fd), C.ulonglong(size), C.uint(flags)))
	return ExternalMemory{m}, r
}

// ExternalMemoryGetMappedBuffer is cuExternalMemoryGetMappedBuffer.
func ExternalMemoryGetMappedBuffer(c Context, m ExternalMemory, offset, size uint64) (DevicePtr, Result) {
	var p C.CUdeviceptr
	r := Result(C.gfx_mapped_buffer(c.h, &p, m.h, C.ulonglong(offset), C.ulonglong(size)))
	return DevicePtr(p), r
}

// ArrayDesc is CUDA_ARRAY3D_DESCRIPTOR.
type ArrayDesc struct {
	Width, Height, Depth uint64
	Format               int
	Channels             uint32
	Flags                uint32
}

// ExternalMemoryGetMappedMipmappedArray is cuExternalMemoryGetMappedMipmappedArray.
func ExternalMemoryGetMappedMipmappedArray(c Context, m ExternalMemory, offset uint64, d ArrayDesc, levels uint32) (MipmappedArray, Result) {
	var a C.CUmipmappedArray
	r := Result(C.gfx_mapped_array(c.h, &a, m.h, C.ulonglong(offset), C.size_t(d.Width), C.size_t(d.Height), C.size_t(d.Depth),
		C.int(d.Format), C.uint(d.Channels), C.uint(d.Flags), C.uint(levels)))
	return MipmappedArray{a}, r
}

// DestroyExternalMemory is cuDestroyExternalMemory.
func DestroyExternalMemory(c Context, m ExternalMemory) Result {
	return Result(C.gfx_cuDestroyExternalMemory(c.h, m.h))
}

// MipmappedArrayGetLevel is cuMipmappedArrayGetLevel.
func MipmappedArrayGetLevel(c Context, m MipmappedArray, level uint32) (Array, Result) {
	var a C.CUarray
	r := Result(C.gfx_cuMipmappedArrayGetLevel(c.h, &a, m.h, C.uint(level)))
	return Array{a}, r
}

// MipmappedArrayDestroy is cuMipmappedArrayDestroy.
func MipmappedArrayDestroy(c Context, m MipmappedArray) Result {
	return Result(C.gfx_cuMipmappedArrayDestroy(c.h, m.h))
}

// Array3DCreate is cuArray3DCreate.
func Array3DCreate(c Context, d ArrayDesc) (Array, Result) {
	var a C.CUarray
	r := Result(C.gfx_array_create(c.h, &a, C.size_t(d.Width), C.size_t(d.Height), C.size_t(d.Depth), C.int(d.Format), C.uint(d.Channels), C.uint(d.Flags)))
	return Array{a}, r
}

// Array3DGetDescriptor is cuArray3DGetDescriptor.
func Array3DGetDescriptor(c Context, a Array) (ArrayDesc, Result) {
	var d C.CUDA_ARRAY3D_DESCRIPTOR
	r := Result(C.gfx_cuArray3DGetDescriptor(c.h, &d, a.h))
	return ArrayDesc{uint64(d.Width), uint64(d.Height), uint64(d.Depth), int(d.Format), uint32(d.NumChannels), uint32(d.Flags)}, r
}

// ArrayDestroy is cuArrayDestroy.
func ArrayDestroy(c Context, a Array) Result { return Result(C.gfx_cuArrayDestroy(c.h, a.h)) }

// ImportExternalSemaphoreFD is cuImportExternalSemaphore for an fd handle
// (SemaphoreOpaqueFD or SemaphoreTimelineFD). On success the driver owns fd.
func ImportExternalSemaphoreFD(c Context, fd int, typ int) (ExternalSemaphore, Result) {
	var s C.CUexternalSemaphore
	r := Result(C.gfx_import_sem_fd(c.h, &s, C.int(fd), C.int(typ)))
	return ExternalSemaphore{s}, r
}

// SignalExternalSemaphore is cuSignalExternalSemaphoresAsync for one
// semaphore (value is used by timeline semaphores).
func SignalExternalSemaphore(c Context, s ExternalSemaphore, value uint64, st Stream) Result {
	return Result(C.gfx_signal_sem(c.h, s.h, C.ulonglong(value), st.h))
}

// WaitExternalSemaphore is cuWaitExternalSemaphoresAsync for one semaphore.
func WaitExternalSemaphore(c Context, s ExternalSemaphore, value uint64, st Stream) Result {
	return Result(C.gfx_wait_sem(c.h, s.h, C.ulonglong(value), st.h))
}

// DestroyExternalSemaphore is cuDestroyExternalSemaphore.
func DestroyExternalSemaphore(c Context, s ExternalSemaphore) Result {
	return Result(C.gfx_cuDestroyExternalSemaphore(c.h, s.h))
}

// MemGetAllocationGranularity is cuMemGetAllocationGranularity for pinned
// device memory on device dev, optionally exportable as a POSIX fd.
func MemGetAllocationGranularity(c Context, dev Device, posixFD, recommended bool) (uint64, Result) {
	var g C.size_t
	r := Result(C.gfx_granularity(c.h, &g, C.int(dev), cbool(posixFD), cbool(recommended)))
	return uint64(g), r
}

func cbool(b bool) C.int {
	if b {
		return 1
	}
	return 0
}

// MemCreate is cuMemCreate of pinned device memory on dev.
func MemCreate(c Context, n uint64, dev Device, posixFD bool) (MemHandle, Result) {
	var h C.CUmemGenericAllocationHandle
	r := Result(C.gfx_mem_create(c.h, &h, C.size_t(n), C.int(dev), cbool(posixFD)))
	return MemHandle(h), r
}

// MemRelease is cuMemRelease.
func MemRelease(c Context, h MemHandle) Result {
	return Result(C.gfx_cuMemRelease(c.h, C.CUmemGenericAllocationHandle(h)))
}

// MemExportToFD is cuMemExportToShareableHandle with a POSIX fd. The
// caller owns the returned fd.
func MemExportToFD(c Context, h MemHandle) (int, Result) {
	var fd C.int
	r := Result(C.gfx_export_fd(c.h, &fd, C.CUmemGenericAllocationHandle(h)))
	return int(fd), r
}

// MemImportFromFD is cuMemImportFromShareableHandle with a POSIX fd. The
// caller keeps ownership of fd.
func MemImportFromFD(c Context, fd int) (MemHandle, Result) {
	var h C.CUmemGenericAllocationHandle
	r := Result(C.gfx_import_fd(c.h, &h, C.int(fd)))
	return MemHandle(h), r
}

// MemAddressReserve is cuMemAddressReserve.
func MemAddressReserve(c Context, n, align uint64) (DevicePtr, Result) {
	var p C.CUdeviceptr
	r := Result(C.gfx_cuMemAddressReserve(c.h, &p, C.size_t(n), C.size_t(align), 0, 0))
	return DevicePtr(p), r
}

// MemAddressFree is cuMemAddressFree.
func MemAddressFree(c Context, p DevicePtr, n uint64) Result {
	return Result(C.gfx_cuMemAddressFree(c.h, C.CUdeviceptr(p), C.size_t(n)))
}

// MemMap is cuMemMap.
func MemMap(c Context, p DevicePtr, n, offset uint64, h MemHandle) Result {
	return Result(C.gfx_cuMemMap(c.h, C.CUdeviceptr(p), C.size_t(n), C.size_t(offset), C.CUmemGenericAllocationHandle(h), 0))
}

// MemUnmap is cuMemUnmap.
func MemUnmap(c Context, p DevicePtr, n uint64) Result {
	return Result(C.gfx_cuMemUnmap(c.h, C.CUdeviceptr(p), C.size_t(n)))
}

// MemSetAccessRW is cuMemSetAccess granting device dev read/write access.
func MemSetAccessRW(c Context, p DevicePtr, n uint64, dev Device) Result {
	return Result(C.gfx_set_access(c.h, C.CUdeviceptr(p), C.size_t(n), C.int(dev)))
}

// ModuleLoadData is cuModuleLoadData; image is PTX text (NUL-terminated
// here) or a cubin. The image is copied to C memory for the call.
func ModuleLoadData(c Context, image []byte) (Module, Result) {
	buf := C.CBytes(append(append([]byte(nil), image...), 0))
	defer C.free(buf)
	var m C.CUmodule
	r := Result(C.gfx_cuModuleLoadData(c.h, &m, buf))
	return Module{m}, r
}

// ModuleUnload is cuModuleUnload.
func ModuleUnload(c Context, m Module) Result { return Result(C.gfx_cuModuleUnload(c.h, m.h)) }

// ModuleGetFunction is cuModuleGetFunction.
func ModuleGetFunction(c Context, m Module, name string) (Function, Result) {
	cn := C.CString(name)
	defer C.free(unsafe.Pointer(cn))
	var f C.CUfunction
	r := Result(C.gfx_cuModuleGetFunction(c.h, &f, m.h, cn))
	return Function{f}, r
}

// FuncGetAttribute is cuFuncGetAttribute.
func FuncGetAttribute(c Context, f Function, attr int) (int, Result) {
	var v C.int
	r := Result(C.gfx_cuFuncGetAttribute(c.h, &v, C.int(attr), f.h))
	return int(v), r
}

// LaunchKernel is cuLaunchKernel. args holds the arguments' bytes laid out
// back to back at offsets (each argument aligned by the caller).
func LaunchKernel(c Context, f Function, grid, block [3]uint32, shmem uint32, s Stream, args []byte, offsets []uint64) Result {
	var argp unsafe.Pointer
	if len(args) > 0 {
		argp = C.CBytes(args)
		defer C.free(argp)
	}
	offs := make([]C.size_t, len(offsets)+1) // +1: never empty
	for i, o := range offsets {
		offs[i] = C.size_t(o)
	}
	return Result(C.gfx_launch(c.h, f.h, C.uint(grid[0]), C.uint(grid[1]), C.uint(grid[2]),
		C.uint(block[0]), C.uint(block[1]), C.uint(block[2]), C.uint(shmem), s.h, argp, &offs[0], C.int(len(offsets))))
}

// SurfObjectCreate is cuSurfObjectCreate over a CUDA array.
func SurfObjectCreate(c Context, a Array) (SurfObject, Result) {
	var o C.CUsurfObject
	r := Result(C.gfx_surf_create(c.h, &o, a.h))
	return SurfObject(o), r
}

// SurfObjectDestroy is cuSurfObjectDestroy.
func SurfObjectDestroy(c Context, o SurfObject) Result {
	return Result(C.gfx_cuSurfObjectDestroy(c.h, C.CUsurfObject(o)))
}

// Memcpy3D describes a copy between device memory, host memory and arrays
// (CUDA_MEMCPY3D); Z selects the first layer of a layered array.
type Memcpy3D struct {
	SrcX, SrcY, SrcZ    uint64
	SrcType             int
	SrcHost             unsafe.Pointer
	SrcDevice           DevicePtr
	SrcArray            Array
	SrcPitch, SrcHeight uint64
	DstX, DstY, DstZ    uint64
	DstType             int
	DstHost             unsafe.Pointer
	DstDevice           DevicePtr
	DstArray            Array
	DstPitch, DstHeight uint64
	WidthInBytes        uint64
	Height, Depth       uint64
}

func (m *Memcpy3D) c() *C.CUDA_MEMCPY3D {
	p := (*C.CUDA_MEMCPY3D)(C.calloc(1, C.sizeof_CUDA_MEMCPY3D))
	p.srcXInBytes, p.srcY, p.srcZ = C.size_t(m.SrcX), C.size_t(m.SrcY), C.size_t(m.SrcZ)
	p.srcMemoryType = C.CUmemorytype(m.SrcType)
	p.srcHost, p.srcDevice, p.srcArray = m.SrcHost, C.CUdeviceptr(m.SrcDevice), m.SrcArray.h
	p.srcPitch, p.srcHeight = C.size_t(m.SrcPitch), C.size_t(m.SrcHeight)
	p.dstXInBytes, p.dstY, p.dstZ = C.size_t(m.DstX), C.size_t(m.DstY), C.size_t(m.DstZ)
	p.dstMemoryType = C.CUmemorytype(m.DstType)
	p.dstHost, p.dstDevice, p.dstArray = m.DstHost, C.CUdeviceptr(m.DstDevice), m.DstArray.h
	p.dstPitch, p.dstHeight = C.size_t(m.DstPitch), C.size_t(m.DstHeight)
	p.WidthInBytes, p.Height, p.Depth = C.size_t(m.WidthInBytes), C.size_t(m.Height), C.size_t(m.Depth)
	return p
}

// MemcpyThreeD is cuMemcpy3D.
func MemcpyThreeD(c Context, m *Memcpy3D) Result {
	p := m.c()
	defer C.free(unsafe.Pointer(p))
	return Result(C.gfx_cuMemcpy3D(c.h, p))
}

// MemcpyThreeDAsync is cuMemcpy3DAsync.
func MemcpyThreeDAsync(c Context, m *Memcpy3D, s Stream) Result {
	p := m.c()
	defer C.free(unsafe.Pointer(p))
	return Result(C.gfx_cuMemcpy3DAsync(c.h, p, s.h))
}

// MemcpyThreeDPeerAsync is cuMemcpy3DPeerAsync: m between memory or
// arrays of src's context and of dst's, queued on s (a stream of c).
func MemcpyThreeDPeerAsync(c Context, m *Memcpy3D, src, dst Context, s Stream) Result {
	// CUDA_MEMCPY3D_PEER is CUDA_MEMCPY3D with the contexts where its
	// reserved pointers are (cuda.h; TestLayout checks the offsets).
	p := m.c()
	defer C.free(unsafe.Pointer(p))
	q := (*C.CUDA_MEMCPY3D_PEER)(unsafe.Pointer(p))
	q.srcContext, q.dstContext = src.h, dst.h
	return Result(C.gfx_cuMemcpy3DPeerAsync(c.h, q, s.h))
}

// StreamWaitValue32 is cuStreamWaitValue32.
func StreamWaitValue32(c Context, s Stream, addr DevicePtr, value, flags uint32) Result {
	return Result(C.gfx_cuStreamWaitValue32(c.h, s.h, C.CUdeviceptr(addr), C.uint(value), C.uint(flags)))
}

// StreamWriteValue32 is cuStreamWriteValue32.
func StreamWriteValue32(c Context, s Stream, addr DevicePtr, value, flags uint32) Result {
	return Result(C.gfx_cuStreamWriteValue32(c.h, s.h, C.CUdeviceptr(addr), C.uint(value), C.uint(flags)))
}

// IpcGetMemHandle is cuIpcGetMemHandle.
func IpcGetMemHandle(c Context, p DevicePtr) ([IPCHandleSize]byte, Result) {
	var h [IPCHandleSize]byte
	buf := C.malloc(IPCHandleSize)
	defer C.free(buf)
	r := Result(C.gfx_ipc_get(c.h, buf, C.CUdeviceptr(p)))
	copy(h[:], unsafe.Slice((*byte)(buf), IPCHandleSize))
	return h, r
}

// IpcOpenMemHandle is cuIpcOpenMemHandle with
// CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS.
func IpcOpenMemHandle(c Context, h [IPCHandleSize]byte) (DevicePtr, Result) {
	var p C.CUdeviceptr
	buf := C.CBytes(h[:])
	defer C.free(buf)
	r := Result(C.gfx_ipc_open(c.h, &p, buf, 1))
	return DevicePtr(p), r
}

// IpcCloseMemHandle is cuIpcCloseMemHandle.
func IpcCloseMemHandle(c Context, p DevicePtr) Result {
	return Result(C.gfx_cuIpcCloseMemHandle(c.h, C.CUdeviceptr(p)))
}

// Handle returns the raw CUarray value.
func (a Array) Handle() uintptr { return uintptr(unsafe.Pointer(a.h)) }

// Handle returns the raw CUexternalMemory value.
func (m ExternalMemory) Handle() uintptr { return uintptr(unsafe.Pointer(m.h)) }

// Handle returns the raw CUexternalSemaphore value.
func (s ExternalSemaphore) Handle() uintptr { return uintptr(unsafe.Pointer(s.h)) }

// Handle returns the raw CUmodule value.
func (m Module) Handle() uintptr { return uintptr(unsafe.Pointer(m.h)) }
