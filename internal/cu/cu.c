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

// use makes ctx current on this thread if it is not already.
static CUresult use(CUcontext ctx) {
	CUcontext cur = NULL;
	CUresult r;
	if (ctx == NULL) return 0;
	r = p_cuCtxGetCurrent(&cur);
	if (r != 0) return r;
	if (cur == ctx) return 0;
	return p_cuCtxSetCurrent(ctx);
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
		if (!loaded) return GFX_CU_NOT_LOADED; \
		if (!p_##name) return GFX_CU_MISSING_ENTRY; \
		if ((r = use(ctx)) != 0) return r; \
		return p_##name args; \
	}
GFX_CU_NOCTX(GFX_CU_WRAP_NOCTX)
GFX_CU_CTX(GFX_CU_WRAP_CTX)

CUresult gfx_cuCtxSynchronize(CUcontext ctx) {
	CUresult r;
	if (!loaded) return GFX_CU_NOT_LOADED;
	if (!p_cuCtxSynchronize) return GFX_CU_MISSING_ENTRY;
	if ((r = use(ctx)) != 0) return r;
	return p_cuCtxSynchronize();
}

static int resolve(void *gpa2, void *gpa1, int version, const char *name, void **out) {
	int status = 0;
	CUresult r;
	*out = NULL;
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
