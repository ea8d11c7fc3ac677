// The parts of libgfxcuda written in C: the thread-local last error, the
// version string, gfxcuda_free, the PyCapsule destructor for DLPack
// capsules and the DLPack exporters' export and deleters (which run without
// entering Go; what they check, Go checks). See gfxcuda.h for the documentation of each function.
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "capi.h"
#include "../../dlpack/dlpack.h"
#include "_cgo_export.h"

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

void gfxcuda_dlpack_capsule_destructor(void *capsule) {
	if (gfx_py_is_valid == NULL || gfx_py_get_pointer == NULL) return;
	// A consumed capsule has been renamed "used_dltensor*": nothing to do.
	if (gfx_py_is_valid(capsule, "dltensor_versioned")) {
		gfx_dlpack_call_deleter(gfx_py_get_pointer(capsule, "dltensor_versioned"), 1);
	} else if (gfx_py_is_valid(capsule, "dltensor")) {
		gfx_dlpack_call_deleter(gfx_py_get_pointer(capsule, "dltensor"), 0);
	}
}

// ---- DLPack exporters: exports without entering Go ----
//
// An exporter holds one reference on a memory owner (taken in Go) and
// counts the tensors exported through it; gfxcuda_dlpack_exporter_export
// builds a managed tensor in C (gfx_dlpack_build, dlpack.h: the builder
// package dlpack's Export uses) and its deleter drops the count, so an
// export and its deleter cost a malloc and two atomics. The owner is
// released (in Go) when the exporter has been dropped and the last of its
// tensors deleted. Descriptions are checked and described in Go
// (gfxExporterCheck: the checks of gfxcuda_dlpack_export, then package
// dlpack's Describe); the exporter keeps the first description Go accepted
// and what Go computed of it, and an export of the same description again
// (the Python array's, every time) does not enter Go.

enum { gfx_unchecked, gfx_filling, gfx_checked };

typedef struct gfx_exporter {
	atomic_llong refs; // 1 for the caller, 1 per live tensor
	uint64_t owner;
	atomic_int state;         // of checked: gfx_unchecked, gfx_filling (one thread writes it), gfx_checked
	gfxcuda_tensor_t checked; // shape and strides point into dims
	int64_t dims[64];
	gfx_dlpack_desc desc;     // of checked, as Go described it
} gfx_exporter;

static atomic_llong gfx_exported_live;

void *gfx_exporter_new(uint64_t owner) {
	gfx_exporter *e = malloc(sizeof *e);
	if (e == NULL) return NULL;
	atomic_init(&e->refs, 1);
	atomic_init(&e->state, gfx_unchecked);
	e->owner = owner;
	return e;
}

long long gfx_exported_count(void) { return atomic_load(&gfx_exported_live); }

static void gfx_exporter_unref(gfx_exporter *e) {
	if (atomic_fetch_sub(&e->refs, 1) == 1) {
		gfxExporterRelease(e->owner);
		free(e);
	}
}

int gfxcuda_dlpack_exporter_drop(void *exporter) {
	if (exporter == NULL) {
		static const char m[] = "gfxcuda_dlpack_exporter_drop: null exporter";
		gfx_set_error(m, sizeof m - 1);
		return 1;
	}
	gfx_exporter_unref(exporter);
	return 0;
}

static void gfx_fast_delete(gfx_DLManagedTensor *m) {
	if (m == NULL) return;
	gfx_exporter *e = m->manager_ctx;
	free(m);
	atomic_fetch_sub(&gfx_exported_live, 1);
	gfx_exporter_unref(e);
}

static void gfx_fast_delete_versioned(gfx_DLManagedTensorVersioned *m) {
	if (m == NULL) return;
	gfx_exporter *e = m->manager_ctx;
	free(m);
	atomic_fetch_sub(&gfx_exported_live, 1);
	gfx_exporter_unref(e);
}

static int gfx_fail(int status, const char *msg) {
	gfx_set_error(msg, strlen(msg));
	return status;
}

// gfx_same reports whether d is the description c (checked) to the byte.
static int gfx_same(const gfxcuda_tensor_t *d, const gfxcuda_tensor_t *c) {
	if (d->data != c->data || d->byte_offset != c->byte_offset || d->device_type != c->device_type ||
		d->device_id != c->device_id || d->code != c->code || d->bits != c->bits || d->lanes != c->lanes ||
		d->ndim != c->ndim || d->flags != c->flags || (d->strides == NULL) != (c->strides == NULL))
		return 0;
	size_t n = (size_t)c->ndim * 8;
	if (n && (d->shape == NULL || memcmp(d->shape, c->shape, n))) return 0;
	return d->strides == NULL || n == 0 || memcmp(d->strides, c->strides, n) == 0;
}

// gfx_check returns Go's description of d: the exporter's own when d is its
// checked description, else *tmp, filled by Go's check (and kept when it is
// the first description Go accepts). NULL with *status set when Go refuses
// d.
static const gfx_dlpack_desc *gfx_check(gfx_exporter *e, const gfxcuda_tensor_t *d, gfx_dlpack_desc *tmp, int *status) {
	int st = atomic_load_explicit(&e->state, memory_order_acquire);
	if (st == gfx_checked && gfx_same(d, &e->checked)) return &e->desc;
	*status = gfxExporterCheck(e->owner, (gfxcuda_tensor_t *)d, tmp);
	if (*status != 0) return NULL;
	if (st != gfx_unchecked) return tmp;
	int want = gfx_unchecked;
	if (!atomic_compare_exchange_strong(&e->state, &want, gfx_filling)) return tmp;
	int nd = d->ndim; // 0 to 32: Go checked it
	e->checked = *d;
	memcpy(e->dims, d->shape, (size_t)nd * 8);
	e->checked.shape = e->dims;
	if (d->strides) {
		memcpy(e->dims + nd, d->strides, (size_t)nd * 8);
		e->checked.strides = e->dims + nd;
	}
	e->desc = *tmp;
	atomic_store_explicit(&e->state, gfx_checked, memory_order_release);
	return &e->desc;
}

// gfx_exporter_build builds a managed tensor of d (Go's description of a
// checked tensor) over e's memory (gfx_dlpack_build). NULL when out of
// memory.
void *gfx_exporter_build(void *exporter, const gfx_dlpack_desc *d, int versioned) {
	gfx_exporter *e = exporter;
	void *p = gfx_dlpack_build(d, versioned, e, gfx_fast_delete, gfx_fast_delete_versioned);
	if (p == NULL) return NULL;
	atomic_fetch_add(&e->refs, 1);
	atomic_fetch_add(&gfx_exported_live, 1);
	return p;
}

int gfxcuda_dlpack_exporter_export(void *exporter, const gfxcuda_tensor_t *d, int versioned, void **out) {
	gfx_exporter *e = exporter;
	if (e == NULL || d == NULL || out == NULL) return gfx_fail(1, "gfxcuda_dlpack_exporter_export: null exporter, description or output");
	gfx_dlpack_desc tmp;
	int status = 0;
	const gfx_dlpack_desc *desc = gfx_check(e, d, &tmp, &status);
	if (desc == NULL) return status;
	void *p = gfx_exporter_build(e, desc, versioned);
	if (p == NULL) return gfx_fail(9, "gfxcuda: out of host memory for a DLPack tensor header");
	*out = p;
	return 0;
}

// gfx_exporter_check checks d as gfxcuda_dlpack_exporter_export does (Go
// once per description) and copies Go's description of it to *out; a
// status.
int gfx_exporter_check(void *exporter, const gfxcuda_tensor_t *d, gfx_dlpack_desc *out) {
	int status = 0;
	const gfx_dlpack_desc *desc = gfx_check(exporter, d, out, &status);
	if (desc == NULL) return status;
	if (desc != out) *out = *desc;
	return 0;
}

// gfx_exporter_ref and gfx_exporter_unref_public take and drop a
// reference on an exporter (the exchange API's bindings hold one).
void gfx_exporter_ref(void *exporter) { atomic_fetch_add(&((gfx_exporter *)exporter)->refs, 1); }
void gfx_exporter_drop_ref(void *exporter) { gfx_exporter_unref(exporter); }
