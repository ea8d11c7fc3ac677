// Types and entry points of NCCL that gfxcuda uses, declared from NCCL's
// public nccl.h (stable C ABI since NCCL 2.0) so that gfxcuda builds without
// NCCL installed. The library is opened at run time (nccl.go).
#ifndef GFX_NCCL_H
#define GFX_NCCL_H

#include <stddef.h>
#include <stdint.h>

typedef int ncclResult_t;
typedef struct ncclComm *ncclComm_t;
typedef void *gfx_stream_t; // cudaStream_t, the same handle as a CUstream

#define GFX_NCCL_UNIQUE_ID_BYTES 128
typedef struct { char internal[GFX_NCCL_UNIQUE_ID_BYTES]; } ncclUniqueId;

// ncclInt8: bytes move as 8-bit integers, no reduction is ever done.
#define GFX_NCCL_INT8 0

// Returned by a wrapper before gfx_nccl_load succeeded.
#define GFX_NCCL_NOT_LOADED 0x7fff0002

int gfx_nccl_load(void *getVersion, void *getUniqueId, void *commInitRank, void *commDestroy,
	void *commAbort, void *commGetAsyncError, void *send, void *recv, void *groupStart,
	void *groupEnd, void *getErrorString);

ncclResult_t gfx_ncclGetVersion(int *version);
ncclResult_t gfx_nccl_call_version(void *fn, int *version);
ncclResult_t gfx_ncclGetUniqueId(ncclUniqueId *id);
ncclResult_t gfx_ncclCommInitRank(uintptr_t *comm, int nranks, const ncclUniqueId *id, int rank);
ncclResult_t gfx_ncclCommDestroy(uintptr_t comm);
ncclResult_t gfx_ncclCommAbort(uintptr_t comm);
ncclResult_t gfx_ncclCommGetAsyncError(uintptr_t comm, ncclResult_t *err);
ncclResult_t gfx_ncclSend(uint64_t buf, size_t count, int peer, uintptr_t comm, uintptr_t stream);
ncclResult_t gfx_ncclRecv(uint64_t buf, size_t count, int peer, uintptr_t comm, uintptr_t stream);
ncclResult_t gfx_ncclGroupStart(void);
ncclResult_t gfx_ncclGroupEnd(void);
const char *gfx_ncclGetErrorString(ncclResult_t r);

#endif
