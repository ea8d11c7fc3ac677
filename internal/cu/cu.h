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

// X-macro list of entry points: X(name, parameters, arguments).
// GFX_CU_NOCTX entries need no current context; GFX_CU_CTX entries get a
// leading CUcontext parameter and run with that context current on the
// calling thread (the wrapper makes it current when it is not).
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
	X(cuDevicePrimaryCtxRetain, (CUcontext *c, CUdevice d), (c, d)) \
	X(cuDevicePrimaryCtxRelease, (CUdevice d), (d)) \
	X(cuDevicePrimaryCtxGetState, (CUdevice d, unsigned int *flags, int *active), (d, flags, active)) \
	X(cuCtxGetCurrent, (CUcontext *c), (c)) \
	X(cuCtxSetCurrent, (CUcontext c), (c)) \
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
	X(cuMemcpy2D, (const CUDA_MEMCPY2D *c), (c)) \
	X(cuMemcpy2DAsync, (const CUDA_MEMCPY2D *c, CUstream s), (c, s)) \
	X(cuMemsetD8, (CUdeviceptr p, unsigned char v, size_t n), (p, v, n)) \
	X(cuMemsetD32, (CUdeviceptr p, unsigned int v, size_t n), (p, v, n)) \
	X(cuMemsetD8Async, (CUdeviceptr p, unsigned char v, size_t n, CUstream s), (p, v, n, s)) \
	X(cuMemsetD32Async, (CUdeviceptr p, unsigned int v, size_t n, CUstream s), (p, v, n, s))

#define GFX_CU_EXPAND(...) __VA_ARGS__
#define GFX_CU_DECL_NOCTX(name, params, args) CUresult gfx_##name params;
#define GFX_CU_DECL_CTX(name, params, args) CUresult gfx_##name(CUcontext ctx, GFX_CU_EXPAND params);
GFX_CU_NOCTX(GFX_CU_DECL_NOCTX)
GFX_CU_CTX(GFX_CU_DECL_CTX)
// cuCtxSynchronize takes no arguments, so it is written out by hand.
CUresult gfx_cuCtxSynchronize(CUcontext ctx);

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
