// The parts of libgfxcuda written in C: the thread-local last error, the
// version string, gfxcuda_free and the PyCapsule destructor for DLPack
// capsules. See gfxcuda.h for the documentation of each function.
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "capi.h"

static __thread char *gfx_last_error;

void gfx_set_error(const char *msg, size_t n) {
	free(gfx_last_error);
	gfx_last_error = NULL;
	if (msg == NULL) return;
	gfx_last_error = malloc(n + 1);
	if (gfx_last_error == NULL) return;
	memcpy(gfx_last_error, msg, n);
	gfx_last_error[n] = 0;
}

const char *gfxcuda_last_error(void) { return gfx_last_error ? gfx_last_error : ""; }

const char *gfxcuda_version(void) { return GFXCUDA_VERSION_STRING; }

void gfxcuda_free(void *p) { free(p); }

// PyCapsule_IsValid and PyCapsule_GetPointer, handed over by the Python
// package (the library does not link libpython).
typedef int (*gfx_is_valid_fn)(void *, const char *);
typedef void *(*gfx_get_pointer_fn)(void *, const char *);
static gfx_is_valid_fn gfx_py_is_valid;
static gfx_get_pointer_fn gfx_py_get_pointer;

void gfxcuda_set_python_capsule_api(void *is_valid, void *get_pointer) {
	gfx_py_is_valid = (gfx_is_valid_fn)is_valid;
	gfx_py_get_pointer = (gfx_get_pointer_fn)get_pointer;
}

typedef struct { uint32_t major, minor; } gfx_ver;
typedef struct gfx_mt { char t[48]; void *ctx; void (*deleter)(struct gfx_mt *); } gfx_mt;
typedef struct gfx_mtv { gfx_ver v; void *ctx; void (*deleter)(struct gfx_mtv *); } gfx_mtv;

void gfxcuda_dlpack_capsule_destructor(void *capsule) {
	if (gfx_py_is_valid == NULL || gfx_py_get_pointer == NULL) return;
	// A consumed capsule has been renamed "used_dltensor*": nothing to do.
	if (gfx_py_is_valid(capsule, "dltensor_versioned")) {
		gfx_mtv *m = gfx_py_get_pointer(capsule, "dltensor_versioned");
		if (m && m->deleter) m->deleter(m);
	} else if (gfx_py_is_valid(capsule, "dltensor")) {
		gfx_mt *m = gfx_py_get_pointer(capsule, "dltensor");
		if (m && m->deleter) m->deleter(m);
	}
}
