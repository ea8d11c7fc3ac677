// Types and entry points of the CUDA driver API that gfxcuda uses.
//
// Declared here from NVIDIA's public driver API documentation so that gfxcuda
// builds without the CUDA toolkit or cuda.h. Sizes and field offsets are
// asserted in cu_test.go. All entry points are resolved at run time through
// cuGetProcAddress, which picks the ABI version matching GFX_CU_API_VERSION.
#ifndef GFX_CU_H
#define GFX_CU_H

#include <stddef.h>
#include <stdint.h>

#define GFX_CU_API_VERSION 12000

// Returned by a wrapper whose entry point the driver does not provide.
#define GFX_CU_MISSING_ENTRY 0x7fff0001
// Returned by every wrapper before gfx_cu_load succeeded.
#define GFX_CU_NOT_LOADED 0x7fff0002

typedef int CUresult;
typedef int CUdevice;
typedef unsigned long long CUdeviceptr;
typedef struct CUctx_st *CUcontext;
typedef struct CUstream_st *CUstream;
typedef struct CUevent_st *CUevent;
typedef struct CUarray_st *CUarray;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUextMemory_st *CUexternalMemory;
typedef struct CUextSemaphore_st *CUexternalSemaphore;
typedef struct CUmipmappedArray_st *CUmipmappedArray;
// A resource registered with cuGraphicsGL* (cudaGL.h). GL object names and
// targets (GLuint, GLenum) are passed as unsigned int, their C type.
typedef struct CUgraphicsResource_st *CUgraphicsResource;
typedef unsigned long long CUmemGenericAllocationHandle;
typedef unsigned long long CUsurfObject;
typedef unsigned long long CUtexObject;
typedef uint64_t cuuint64_t;

typedef struct { char bytes[16]; } CUuuid;

typedef enum {
	CU_MEMORYTYPE_HOST = 1,
	CU_MEMORYTYPE_DEVICE = 2,
	CU_MEMORYTYPE_ARRAY = 3,
	CU_MEMORYTYPE_UNIFIED = 4
} CUmemorytype;

typedef struct {
	size_t srcXInBytes;
	size_t srcY;
	CUmemorytype srcMemoryType;
	const void *srcHost;
	CUdeviceptr srcDevice;
	CUarray srcArray;
	size_t srcPitch;
	size_t dstXInBytes;
	size_t dstY;
	CUmemorytype dstMemoryType;
	void *dstHost;
	CUdeviceptr dstDevice;
	CUarray dstArray;
	size_t dstPitch;
	size_t WidthInBytes;
	size_t Height;
} CUDA_MEMCPY2D;

typedef enum { CU_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD = 1 } CUexternalMemoryHandleType;
#define CUDA_EXTERNAL_MEMORY_DEDICATED 0x1

typedef struct {
	CUexternalMemoryHandleType type;
	union {
		int fd;
		struct { void *handle; const void *name; } win32;
		const void *nvSciBufObject;
	} handle;
	unsigned long long size;
	unsigned int flags;
	unsigned int reserved[16];
} CUDA_EXTERNAL_MEMORY_HANDLE_DESC;

typedef struct {
	unsigned long long offset;
	unsigned long long size;
	unsigned int flags;
	unsigned int reserved[16];
} CUDA_EXTERNAL_MEMORY_BUFFER_DESC;

typedef enum {
	CU_AD_FORMAT_UNSIGNED_INT8 = 0x01,
	CU_AD_FORMAT_UNSIGNED_INT16 = 0x02,
	CU_AD_FORMAT_UNSIGNED_INT32 = 0x03,
	CU_AD_FORMAT_SIGNED_INT8 = 0x08,
	CU_AD_FORMAT_SIGNED_INT16 = 0x09,
	CU_AD_FORMAT_SIGNED_INT32 = 0x0a,
	CU_AD_FORMAT_HALF = 0x10,
	CU_AD_FORMAT_FLOAT = 0x20
} CUarray_format;

typedef struct {
	size_t Width;
	size_t Height;
	size_t Depth;
	CUarray_format Format;
	unsigned int NumChannels;
	unsigned int Flags;
} CUDA_ARRAY3D_DESCRIPTOR;

typedef struct {
	unsigned long long offset;
	CUDA_ARRAY3D_DESCRIPTOR arrayDesc;
	unsigned int numLevels;
	unsigned int reserved[16];
} CUDA_EXTERNAL_MEMORY_MIPMAPPED_ARRAY_DESC;

typedef enum {
	CU_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD = 1,
	CU_EXTERNAL_SEMAPHORE_HANDLE_TYPE_TIMELINE_SEMAPHORE_FD = 9
} CUexternalSemaphoreHandleType;

typedef struct {
	CUexternalSemaphoreHandleType type;
	union {
		int fd;
		struct { void *handle; const void *name; } win32;
		const void *nvSciSyncObj;
	} handle;
	unsigned int flags;
	unsigned int reserved[16];
} CUDA_EXTERNAL_SEMAPHORE_HANDLE_DESC;

typedef struct {
	struct {
		struct { unsigned long long value; } fence;
		union { void *fence; unsigned long long reserved; } nvSciSync;
		struct { unsigned long long key; } keyedMutex;
		unsigned int reserved[12];
	} params;
	unsigned int flags;
	unsigned int reserved[16];
} CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS;

typedef struct {
	struct {
		struct { unsigned long long value; } fence;
		union { void *fence; unsigned long long reserved; } nvSciSync;
		struct { unsigned long long key; unsigned int timeoutMs; } keyedMutex;
		unsigned int reserved[10];
	} params;
	unsigned int flags;
	unsigned int reserved[16];
} CUDA_EXTERNAL_SEMAPHORE_WAIT_PARAMS;

typedef struct { char reserved[64]; } CUipcMemHandle;

typedef struct { int type; int id; } CUmemLocation;

typedef struct {
	int type;                 // CU_MEM_ALLOCATION_TYPE_PINNED = 1
	int requestedHandleTypes; // CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR = 1
	CUmemLocation location;   // CU_MEM_LOCATION_TYPE_DEVICE = 1
	void *win32HandleMetaData;
	struct {
		unsigned char compressionType;
		unsigned char gpuDirectRDMACapable;
		unsigned short usage;
		unsigned char reserved[4];
	} allocFlags;
} CUmemAllocationProp;

typedef struct { CUmemLocation location; int flags; } CUmemAccessDesc;

typedef enum {
	CU_RESOURCE_TYPE_ARRAY = 0,
	CU_RESOURCE_TYPE_MIPMAPPED_ARRAY = 1,
	CU_RESOURCE_TYPE_LINEAR = 2,
	CU_RESOURCE_TYPE_PITCH2D = 3
} CUresourcetype;

typedef struct {
	CUresourcetype resType;
	union {
		struct { CUarray hArray; } array;
		struct { CUmipmappedArray hMipmappedArray; } mipmap;
		struct { CUdeviceptr devPtr; CUarray_format format; unsigned int numChannels; size_t sizeInBytes; } linear;
		struct { CUdeviceptr devPtr; CUarray_format format; unsigned int numChannels; size_t width; size_t height; size_t pitchInBytes; } pitch2D;
		struct { int reserved[32]; } reserved;
	} res;
	unsigned int flags;
} CUDA_RESOURCE_DESC;

typedef struct {
	size_t srcXInBytes, srcY, srcZ, srcLOD;
	CUmemorytype srcMemoryType;
	const void *srcHost;
	CUdeviceptr srcDevice;
	CUarray srcArray;
	void *reserved0;
	size_t srcPitch, srcHeight;
	size_t dstXInBytes, dstY, dstZ, dstLOD;
	CUmemorytype dstMemoryType;
	void *dstHost;
	CUdeviceptr dstDevice;
	CUarray dstArray;
	void *reserved1;
	size_t dstPitch, dstHeight;
	size_t WidthInBytes, Height, Depth;
} CUDA_MEMCPY3D;

// CUDA_MEMCPY3D_PEER is CUDA_MEMCPY3D with the contexts of both sides in
// place of its reserved pointers.
typedef struct {
	size_t srcXInBytes, srcY, srcZ, srcLOD;
	CUmemorytype srcMemoryType;
	const void *srcHost;
	CUdeviceptr srcDevice;
	CUarray srcArray;
	CUcontext srcContext;
	size_t srcPitch, srcHeight;
	size_t dstXInBytes, dstY, dstZ, dstLOD;
	CUmemorytype dstMemoryType;
	void *dstHost;
	CUdeviceptr dstDevice;
	CUarray dstArray;
	CUcontext dstContext;
	size_t dstPitch, dstHeight;
	size_t WidthInBytes, Height, Depth;
} CUDA_MEMCPY3D_PEER;

// X-macro list of entry points: X(name, parameters, arguments).
// GFX_CU_NOCTX entries need no current context; GFX_CU_CTX entries get a
// leading CUcontext parameter and run with that context current on the
// calling thread: when another context (or none) is current, the wrapper
// makes ctx current for the call and restores the caller's context before
// it returns, so no context is left current behind the caller's back.
#define GFX_CU_NOCTX(X) \
	X(cuInit, (unsigned int flags), (flags)) \
	X(cuDriverGetVersion, (int *v), (v)) \
	X(cuGetErrorName, (CUresult e, const char **s), (e, s)) \
	X(cuGetErrorString, (CUresult e, const char **s), (e, s)) \
	X(cuDeviceGetCount, (int *n), (n)) \
	X(cuDeviceGet, (CUdevice *d, int ordinal), (d, ordinal)) \
	X(cuDeviceGetName, (char *name, int len, CUdevice d), (name, len, d)) \
	X(cuDeviceGetUuid, (CUuuid *u, CUdevice d), (u, d)) \
	X(cuDeviceGetPCIBusId, (char *id, int len, CUdevice d), (id, len, d)) \
	X(cuDeviceTotalMem, (size_t *bytes, CUdevice d), (bytes, d)) \
	X(cuDeviceGetAttribute, (int *v, int attr, CUdevice d), (v, attr, d)) \
	X(cuDeviceCanAccessPeer, (int *can, CUdevice d, CUdevice peer), (can, d, peer)) \
	X(cuDevicePrimaryCtxRetain, (CUcontext *c, CUdevice d), (c, d)) \
	X(cuDevicePrimaryCtxRelease, (CUdevice d), (d)) \
	X(cuDevicePrimaryCtxGetState, (CUdevice d, unsigned int *flags, int *active), (d, flags, active)) \
	X(cuCtxGetCurrent, (CUcontext *c), (c)) \
	X(cuCtxSetCurrent, (CUcontext c), (c)) \
	X(cuCtxCreate, (CUcontext *c, unsigned int flags, CUdevice d), (c, flags, d)) \
	X(cuCtxDestroy, (CUcontext c), (c)) \
	X(cuEventSynchronize, (CUevent e), (e)) \
	X(cuEventQuery, (CUevent e), (e)) \
	X(cuEventElapsedTime, (float *ms, CUevent start, CUevent end), (ms, start, end)) \
	X(cuStreamSynchronize, (CUstream s), (s)) \
	X(cuStreamQuery, (CUstream s), (s))

#define GFX_CU_CTX(X) \
	X(cuMemGetInfo, (size_t *free, size_t *total), (free, total)) \
	X(cuStreamCreate, (CUstream *s, unsigned int flags), (s, flags)) \
	X(cuStreamDestroy, (CUstream s), (s)) \
	X(cuStreamWaitEvent, (CUstream s, CUevent e, unsigned int flags), (s, e, flags)) \
	X(cuEventCreate, (CUevent *e, unsigned int flags), (e, flags)) \
	X(cuEventDestroy, (CUevent e), (e)) \
	X(cuEventRecord, (CUevent e, CUstream s), (e, s)) \
	X(cuMemAlloc, (CUdeviceptr *p, size_t n), (p, n)) \
	X(cuMemAllocPitch, (CUdeviceptr *p, size_t *pitch, size_t width, size_t height, unsigned int elem), (p, pitch, width, height, elem)) \
	X(cuMemFree, (CUdeviceptr p), (p)) \
	X(cuMemHostAlloc, (void **p, size_t n, unsigned int flags), (p, n, flags)) \
	X(cuMemFreeHost, (void *p), (p)) \
	X(cuMemcpyHtoD, (CUdeviceptr dst, const void *src, size_t n), (dst, src, n)) \
	X(cuMemcpyDtoH, (void *dst, CUdeviceptr src, size_t n), (dst, src, n)) \
	X(cuMemcpyDtoD, (CUdeviceptr dst, CUdeviceptr src, size_t n), (dst, src, n)) \
	X(cuMemcpyHtoDAsync, (CUdeviceptr dst, const void *src, size_t n, CUstream s), (dst, src, n, s)) \
	X(cuMemcpyDtoHAsync, (void *dst, CUdeviceptr src, size_t n, CUstream s), (dst, src, n, s)) \
	X(cuMemcpyDtoDAsync, (CUdeviceptr dst, CUdeviceptr src, size_t n, CUstream s), (dst, src, n, s)) \
	X(cuMemcpyPeerAsync, (CUdeviceptr dst, CUcontext dstCtx, CUdeviceptr src, CUcontext srcCtx, size_t n, CUstream s), (dst, dstCtx, src, srcCtx, n, s)) \
	X(cuCtxEnablePeerAccess, (CUcontext peer, unsigned int flags), (peer, flags)) \
	X(cuMemcpy2D, (const CUDA_MEMCPY2D *c), (c)) \
	X(cuMemcpy2DAsync, (const CUDA_MEMCPY2D *c, CUstream s), (c, s)) \
	X(cuMemsetD8, (CUdeviceptr p, unsigned char v, size_t n), (p, v, n)) \
	X(cuMemsetD32, (CUdeviceptr p, unsigned int v, size_t n), (p, v, n)) \
	X(cuMemsetD8Async, (CUdeviceptr p, unsigned char v, size_t n, CUstream s), (p, v, n, s)) \
	X(cuMemsetD32Async, (CUdeviceptr p, unsigned int v, size_t n, CUstream s), (p, v, n, s)) \
	X(cuImportExternalMemory, (CUexternalMemory *m, const CUDA_EXTERNAL_MEMORY_HANDLE_DESC *d), (m, d)) \
	X(cuExternalMemoryGetMappedBuffer, (CUdeviceptr *p, CUexternalMemory m, const CUDA_EXTERNAL_MEMORY_BUFFER_DESC *d), (p, m, d)) \
	X(cuExternalMemoryGetMappedMipmappedArray, (CUmipmappedArray *a, CUexternalMemory m, const CUDA_EXTERNAL_MEMORY_MIPMAPPED_ARRAY_DESC *d), (a, m, d)) \
	X(cuDestroyExternalMemory, (CUexternalMemory m), (m)) \
	X(cuMipmappedArrayGetLevel, (CUarray *a, CUmipmappedArray m, unsigned int level), (a, m, level)) \
	X(cuMipmappedArrayDestroy, (CUmipmappedArray m), (m)) \
	X(cuArray3DCreate, (CUarray *a, const CUDA_ARRAY3D_DESCRIPTOR *d), (a, d)) \
	X(cuArray3DGetDescriptor, (CUDA_ARRAY3D_DESCRIPTOR *d, CUarray a), (d, a)) \
	X(cuArrayDestroy, (CUarray a), (a)) \
	X(cuImportExternalSemaphore, (CUexternalSemaphore *s, const CUDA_EXTERNAL_SEMAPHORE_HANDLE_DESC *d), (s, d)) \
	X(cuSignalExternalSemaphoresAsync, (const CUexternalSemaphore *s, const CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS *p, unsigned int n, CUstream st), (s, p, n, st)) \
	X(cuWaitExternalSemaphoresAsync, (const CUexternalSemaphore *s, const CUDA_EXTERNAL_SEMAPHORE_WAIT_PARAMS *p, unsigned int n, CUstream st), (s, p, n, st)) \
	X(cuDestroyExternalSemaphore, (CUexternalSemaphore s), (s)) \
	X(cuMemGetAllocationGranularity, (size_t *g, const CUmemAllocationProp *p, int option), (g, p, option)) \
	X(cuMemCreate, (CUmemGenericAllocationHandle *h, size_t n, const CUmemAllocationProp *p, unsigned long long flags), (h, n, p, flags)) \
	X(cuMemRelease, (CUmemGenericAllocationHandle h), (h)) \
	X(cuMemExportToShareableHandle, (void *out, CUmemGenericAllocationHandle h, int type, unsigned long long flags), (out, h, type, flags)) \
	X(cuMemImportFromShareableHandle, (CUmemGenericAllocationHandle *h, void *os, int type), (h, os, type)) \
	X(cuMemAddressReserve, (CUdeviceptr *p, size_t n, size_t align, CUdeviceptr addr, unsigned long long flags), (p, n, align, addr, flags)) \
	X(cuMemAddressFree, (CUdeviceptr p, size_t n), (p, n)) \
	X(cuMemMap, (CUdeviceptr p, size_t n, size_t off, CUmemGenericAllocationHandle h, unsigned long long flags), (p, n, off, h, flags)) \
	X(cuMemUnmap, (CUdeviceptr p, size_t n), (p, n)) \
	X(cuMemSetAccess, (CUdeviceptr p, size_t n, const CUmemAccessDesc *d, size_t count), (p, n, d, count)) \
	X(cuModuleLoadData, (CUmodule *m, const void *image), (m, image)) \
	X(cuModuleLoadDataEx, (CUmodule *m, const void *image, unsigned int n, int *opts, void **vals), (m, image, n, opts, vals)) \
	X(cuModuleUnload, (CUmodule m), (m)) \
	X(cuModuleGetFunction, (CUfunction *f, CUmodule m, const char *name), (f, m, name)) \
	X(cuFuncGetAttribute, (int *v, int attr, CUfunction f), (v, attr, f)) \
	X(cuLaunchKernel, (CUfunction f, unsigned int gx, unsigned int gy, unsigned int gz, unsigned int bx, unsigned int by, unsigned int bz, unsigned int shmem, CUstream s, void **params, void **extra), (f, gx, gy, gz, bx, by, bz, shmem, s, params, extra)) \
	X(cuSurfObjectCreate, (CUsurfObject *o, const CUDA_RESOURCE_DESC *d), (o, d)) \
	X(cuSurfObjectDestroy, (CUsurfObject o), (o)) \
	X(cuMemcpy3D, (const CUDA_MEMCPY3D *c), (c)) \
	X(cuMemcpy3DAsync, (const CUDA_MEMCPY3D *c, CUstream s), (c, s)) \
	X(cuMemcpy3DPeerAsync, (const CUDA_MEMCPY3D_PEER *c, CUstream s), (c, s)) \
	X(cuStreamWaitValue32, (CUstream s, CUdeviceptr addr, unsigned int value, unsigned int flags), (s, addr, value, flags)) \
	X(cuStreamWriteValue32, (CUstream s, CUdeviceptr addr, unsigned int value, unsigned int flags), (s, addr, value, flags)) \
	X(cuIpcGetMemHandle, (CUipcMemHandle *h, CUdeviceptr p), (h, p)) \
	X(cuIpcOpenMemHandle, (CUdeviceptr *p, CUipcMemHandle h, unsigned int flags), (p, h, flags)) \
	X(cuIpcCloseMemHandle, (CUdeviceptr p), (p)) \
	X(cuPointerGetAttribute, (void *data, int attr, CUdeviceptr p), (data, attr, p)) \
	X(cuGraphicsGLRegisterBuffer, (CUgraphicsResource *res, unsigned int buffer, unsigned int flags), (res, buffer, flags)) \
	X(cuGraphicsGLRegisterImage, (CUgraphicsResource *res, unsigned int image, unsigned int target, unsigned int flags), (res, image, target, flags)) \
	X(cuGraphicsMapResources, (unsigned int count, CUgraphicsResource *res, CUstream s), (count, res, s)) \
	X(cuGraphicsUnmapResources, (unsigned int count, CUgraphicsResource *res, CUstream s), (count, res, s)) \
	X(cuGraphicsResourceGetMappedPointer, (CUdeviceptr *p, size_t *size, CUgraphicsResource res), (p, size, res)) \
	X(cuGraphicsSubResourceGetMappedArray, (CUarray *a, CUgraphicsResource res, unsigned int arrayIndex, unsigned int mipLevel), (a, res, arrayIndex, mipLevel)) \
	X(cuGraphicsUnregisterResource, (CUgraphicsResource res), (res))

#define GFX_CU_EXPAND(...) __VA_ARGS__
#define GFX_CU_DECL_NOCTX(name, params, args) CUresult gfx_##name params;
#define GFX_CU_DECL_CTX(name, params, args) CUresult gfx_##name(CUcontext ctx, GFX_CU_EXPAND params);
GFX_CU_NOCTX(GFX_CU_DECL_NOCTX)
GFX_CU_CTX(GFX_CU_DECL_CTX)
// cuCtxSynchronize takes no arguments, so it is written out by hand.
CUresult gfx_cuCtxSynchronize(CUcontext ctx);
// cuStreamSynchronize and cuStreamQuery with ctx current, for the special
// stream handles that name a stream of the current context.
CUresult gfx_cuStreamSynchronize_in(CUcontext ctx, CUstream s);
CUresult gfx_cuStreamQuery_in(CUcontext ctx, CUstream s);
// gfx_cu_name returns the name of the i-th entry point gfx_cu_load
// resolves, or NULL past the last.
const char *gfx_cu_name(int i);

// gfx_cu_abi_version returns the CUDA version gfx_cu_load requests name at
// when asked for version: version itself, except for the few entry points
// whose ABI at GFX_CU_API_VERSION differs from the one declared here.
int gfx_cu_abi_version(const char *name, int version);

// gfx_cu_load resolves every entry point through cuGetProcAddress
// (gpa2: the 5-argument cuGetProcAddress_v2 of CUDA 12; gpa1: the 4-argument
// original; either may be NULL). It returns the number of entry points that
// could not be resolved, or -1 if neither resolver was given.
int gfx_cu_load(void *gpa2, void *gpa1, int version);
// gfx_cu_call_init and gfx_cu_call_version call cuInit and cuDriverGetVersion
// through pointers found with dlsym, before anything else is resolved.
CUresult gfx_cu_call_init(void *fn, unsigned int flags);
CUresult gfx_cu_call_version(void *fn, int *v);
// gfx_cu_missing writes the names of unresolved entry points to buf.
void gfx_cu_missing(char *buf, int len);

#endif
