#include "nccl.h"

static ncclResult_t (*p_getVersion)(int *);
static ncclResult_t (*p_getUniqueId)(ncclUniqueId *);
// ncclUniqueId is passed by value, as nccl.h declares it.
static ncclResult_t (*p_commInitRank)(ncclComm_t *, int, ncclUniqueId, int);
static ncclResult_t (*p_commDestroy)(ncclComm_t);
static ncclResult_t (*p_commAbort)(ncclComm_t);
static ncclResult_t (*p_commGetAsyncError)(ncclComm_t, ncclResult_t *);
static ncclResult_t (*p_send)(const void *, size_t, int, int, ncclComm_t, gfx_stream_t);
static ncclResult_t (*p_recv)(void *, size_t, int, int, ncclComm_t, gfx_stream_t);
static ncclResult_t (*p_groupStart)(void);
static ncclResult_t (*p_groupEnd)(void);
static const char *(*p_getErrorString)(ncclResult_t);
static int loaded;

int gfx_nccl_load(void *getVersion, void *getUniqueId, void *commInitRank, void *commDestroy,
	void *commAbort, void *commGetAsyncError, void *send, void *recv, void *groupStart,
	void *groupEnd, void *getErrorString) {
	p_getVersion = getVersion;
	p_getUniqueId = getUniqueId;
	p_commInitRank = commInitRank;
	p_commDestroy = commDestroy;
	p_commAbort = commAbort;
	p_commGetAsyncError = commGetAsyncError;
	p_send = send;
	p_recv = recv;
	p_groupStart = groupStart;
	p_groupEnd = groupEnd;
	p_getErrorString = getErrorString;
	loaded = 1;
	return 0;
}

#define CHECK_LOADED if (!loaded) return GFX_NCCL_NOT_LOADED

ncclResult_t gfx_ncclGetVersion(int *version) { CHECK_LOADED; return p_getVersion(version); }

ncclResult_t gfx_nccl_call_version(void *fn, int *version) {
	return ((ncclResult_t (*)(int *))fn)(version);
}
ncclResult_t gfx_ncclGetUniqueId(ncclUniqueId *id) { CHECK_LOADED; return p_getUniqueId(id); }

ncclResult_t gfx_ncclCommInitRank(uintptr_t *comm, int nranks, const ncclUniqueId *id, int rank) {
	ncclComm_t c = NULL;
	ncclResult_t r;
	CHECK_LOADED;
	r = p_commInitRank(&c, nranks, *id, rank);
	*comm = (uintptr_t)c;
	return r;
}

ncclResult_t gfx_ncclCommDestroy(uintptr_t comm) { CHECK_LOADED; return p_commDestroy((ncclComm_t)comm); }
ncclResult_t gfx_ncclCommAbort(uintptr_t comm) { CHECK_LOADED; return p_commAbort((ncclComm_t)comm); }

ncclResult_t gfx_ncclCommGetAsyncError(uintptr_t comm, ncclResult_t *err) {
	CHECK_LOADED;
	return p_commGetAsyncError((ncclComm_t)comm, err);
}

ncclResult_t gfx_ncclSend(uint64_t buf, size_t count, int peer, uintptr_t comm, uintptr_t stream) {
	CHECK_LOADED;
	return p_send((const void *)(uintptr_t)buf, count, GFX_NCCL_INT8, peer, (ncclComm_t)comm, (gfx_stream_t)stream);
}

ncclResult_t gfx_ncclRecv(uint64_t buf, size_t count, int peer, uintptr_t comm, uintptr_t stream) {
	CHECK_LOADED;
	return p_recv((void *)(uintptr_t)buf, count, GFX_NCCL_INT8, peer, (ncclComm_t)comm, (gfx_stream_t)stream);
}

ncclResult_t gfx_ncclGroupStart(void) { CHECK_LOADED; return p_groupStart(); }
ncclResult_t gfx_ncclGroupEnd(void) { CHECK_LOADED; return p_groupEnd(); }

const char *gfx_ncclGetErrorString(ncclResult_t r) {
	if (!loaded || !p_getErrorString) return NULL;
	return p_getErrorString(r);
}
