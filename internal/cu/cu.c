#include <stdio.h>
#include <string.h>
#include "cu.h"

typedef CUresult (*gpa2_fn)(const char *, void **, int, cuuint64_t, int *);
typedef CUresult (*gpa1_fn)(const char *, void **, int, cuuint64_t);

// CU_GET_PROC_ADDRESS_LEGACY_STREAM: entry points use the legacy default stream.
#define GFX_CU_GPA_LEGACY_STREAM 1

#define GFX_CU_PTR(name, params, args) static CUresult (*p_##name) params;
GFX_CU_NOCTX(GFX_CU_PTR)
GFX_CU_CTX(GFX_CU_PTR)
static CUresult (*p_cuCtxSynchronize)(void);

static int loaded;
static char missing[4096];

// enter makes ctx current on this thread for one driver call, remembering
// the caller's current context in *prev (and whether it was replaced in
// *swapped); leave puts the caller's context back. So no call leaves a
// context current on a thread it does not own: a program using CUDA on the
// same thread (PyTorch on another GPU, say) keeps its own context.
static CUresult enter(CUcontext ctx, CUcontext *prev, int *swapped) {
	CUresult r;
	*prev = NULL;
	*swapped = 0;
	if (ctx == NULL) return 0;
	r = p_cuCtxGetCurrent(prev);
	if (r != 0) return r;
	if (*prev == ctx) return 0;
	r = p_cuCtxSetCurrent(ctx);
	if (r != 0) return r;
	*swapped = 1;
	return 0;
}

// leave restores the context enter replaced; r is the call's result, which
// a failed restore replaces only when the call itself succeeded.
static CUresult leave(CUresult r, CUcontext prev, int swapped) {
	CUresult r2;
	if (!swapped) return r;
	r2 = p_cuCtxSetCurrent(prev);
	return r != 0 ? r : r2;
}

#define GFX_CU_WRAP_NOCTX(name, params, args) \
	CUresult gfx_##name params { \
		if (!loaded) return GFX_CU_NOT_LOADED; \
		if (!p_##name) return GFX_CU_MISSING_ENTRY; \
		return p_##name args; \
	}
#define GFX_CU_WRAP_CTX(name, params, args) \
	CUresult gfx_##name(CUcontext ctx, GFX_CU_EXPAND params) { \
		CUresult r; \
		CUcontext prev; \
		int swapped; \
		if (!loaded) return GFX_CU_NOT_LOADED; \
		if (!p_##name) return GFX_CU_MISSING_ENTRY; \
		if ((r = enter(ctx, &prev, &swapped)) != 0) return r; \
		return leave(p_##name args, prev, swapped); \
	}
GFX_CU_NOCTX(GFX_CU_WRAP_NOCTX)
GFX_CU_CTX(GFX_CU_WRAP_CTX)

CUresult gfx_cuCtxSynchronize(CUcontext ctx) {
	CUresult r;
	CUcontext prev;
	int swapped;
	if (!loaded) return GFX_CU_NOT_LOADED;
	if (!p_cuCtxSynchronize) return GFX_CU_MISSING_ENTRY;
	if ((r = enter(ctx, &prev, &swapped)) != 0) return r;
	return leave(p_cuCtxSynchronize(), prev, swapped);
}

// The stream's context must be current when the stream is one of the
// special handles (NULL, CU_STREAM_LEGACY, CU_STREAM_PER_THREAD), which
// name a stream of whichever context is current.
CUresult gfx_cuStreamSynchronize_in(CUcontext ctx, CUstream s) {
	CUresult r;
	CUcontext prev;
	int swapped;
	if (!loaded) return GFX_CU_NOT_LOADED;
	if (!p_cuStreamSynchronize) return GFX_CU_MISSING_ENTRY;
	if ((r = enter(ctx, &prev, &swapped)) != 0) return r;
	return leave(p_cuStreamSynchronize(s), prev, swapped);
}

CUresult gfx_cuStreamQuery_in(CUcontext ctx, CUstream s) {
	CUresult r;
	CUcontext prev;
	int swapped;
	if (!loaded) return GFX_CU_NOT_LOADED;
	if (!p_cuStreamQuery) return GFX_CU_MISSING_ENTRY;
	if ((r = enter(ctx, &prev, &swapped)) != 0) return r;
	return leave(p_cuStreamQuery(s), prev, swapped);
}

// The names of every entry point resolved, NULL-terminated, for the test
// that checks each is in CUDA 12.0's driver API.
#define GFX_CU_NAME(name, params, args) #name,
static const char *const names[] = {
	GFX_CU_NOCTX(GFX_CU_NAME)
	GFX_CU_CTX(GFX_CU_NAME)
	"cuCtxSynchronize",
	NULL,
};

const char *gfx_cu_name(int i) {
	if (i < 0 || i >= (int)(sizeof names / sizeof names[0])) return NULL;
	return names[i];
}

// Entry points requested at an older version than the rest, because the
// ABI cuGetProcAddress returns for them at GFX_CU_API_VERSION is not the one
// cu.h declares: at 12000, "cuCtxCreate" is cuCtxCreate_v3 of CUDA 11.4
// (an execution-affinity array and its length before the flags), while cu.h
// declares cuda.h's cuCtxCreate (_v2, CUDA 3.2: flags, device). Calling the
// one through the other's signature passes garbage as the device.
static const struct { const char *name; int version; } pinned[] = {
	{"cuCtxCreate", 3020},
};

int gfx_cu_abi_version(const char *name, int version) {
	size_t i;
	for (i = 0; i < sizeof pinned / sizeof pinned[0]; i++)
		if (strcmp(pinned[i].name, name) == 0) return pinned[i].version;
	return version;
}

static int resolve(void *gpa2, void *gpa1, int version, const char *name, void **out) {
	int status = 0;
	CUresult r;
	*out = NULL;
	version = gfx_cu_abi_version(name, version);
	if (gpa2) r = ((gpa2_fn)gpa2)(name, out, version, GFX_CU_GPA_LEGACY_STREAM, &status);
	else r = ((gpa1_fn)gpa1)(name, out, version, GFX_CU_GPA_LEGACY_STREAM);
	if (r != 0 || *out == NULL) {
		size_t n = strlen(missing);
		*out = NULL;
		snprintf(missing + n, sizeof missing - n, "%s%s", n ? " " : "", name);
		return 1;
	}
	return 0;
}

int gfx_cu_load(void *gpa2, void *gpa1, int version) {
	int bad = 0;
	if (!gpa2 && !gpa1) return -1;
	if (loaded) return 0;
	missing[0] = 0;
#define GFX_CU_RESOLVE(name, params, args) bad += resolve(gpa2, gpa1, version, #name, (void **)&p_##name);
	GFX_CU_NOCTX(GFX_CU_RESOLVE)
	GFX_CU_CTX(GFX_CU_RESOLVE)
	bad += resolve(gpa2, gpa1, version, "cuCtxSynchronize", (void **)&p_cuCtxSynchronize);
	// Without these the wrappers cannot work at all.
	if (!p_cuInit || !p_cuCtxGetCurrent || !p_cuCtxSetCurrent) return bad ? bad : 1;
	loaded = 1;
	return bad;
}

void gfx_cu_missing(char *buf, int len) {
	snprintf(buf, len, "%s", missing);
}

CUresult gfx_cu_call_init(void *fn, unsigned int flags) {
	return ((CUresult (*)(unsigned int))fn)(flags);
}

CUresult gfx_cu_call_version(void *fn, int *v) {
	return ((CUresult (*)(int *))fn)(v);
}
