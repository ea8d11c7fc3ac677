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

// ---- DLPack exporters: exports without entering Go ----
//
// An exporter holds one reference on a memory owner (taken in Go) and
// counts the tensors exported through it; gfxcuda_dlpack_exporter_export
// builds a managed tensor in C and its deleter drops the count, so an
// export and its deleter cost a malloc and two atomics. The owner is
// released (in Go) when the exporter has been dropped and the last of its
// tensors deleted. Descriptions are checked in Go (gfxExporterCheck, as
// gfxcuda_dlpack_export checks them); the exporter keeps a copy of the
// first one Go accepted, and an export of the same description again (the
// Python array's, every time) is not checked twice.

enum { gfx_unchecked, gfx_filling, gfx_checked };

typedef struct gfx_exporter {
	atomic_llong refs; // 1 for the caller, 1 per live tensor
	uint64_t owner;
	atomic_int state;        // of checked: gfx_unchecked, gfx_filling (one thread writes it), gfx_checked
	gfxcuda_tensor_t checked; // shape and strides point into dims
	int64_t dims[64];
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
		d->ndim != c->ndim || (d->strides == NULL) != (c->strides == NULL))
		return 0;
	size_t n = (size_t)c->ndim * 8;
	if (n && (d->shape == NULL || memcmp(d->shape, c->shape, n))) return 0;
	return d->strides == NULL || n == 0 || memcmp(d->strides, c->strides, n) == 0;
}

// gfx_check checks d in Go unless it is the exporter's checked description,
// and keeps the first description Go accepts.
static int gfx_check(gfx_exporter *e, const gfxcuda_tensor_t *d) {
	int st = atomic_load_explicit(&e->state, memory_order_acquire);
	if (st == gfx_checked && gfx_same(d, &e->checked)) return 0;
	int status = gfxExporterCheck(e->owner, (gfxcuda_tensor_t *)d);
	if (status != 0 || st != gfx_unchecked) return status;
	int want = gfx_unchecked;
	if (!atomic_compare_exchange_strong(&e->state, &want, gfx_filling)) return 0;
	int nd = d->ndim; // 0 to 32: Go checked it
	e->checked = *d;
	memcpy(e->dims, d->shape, (size_t)nd * 8);
	e->checked.shape = e->dims;
	if (d->strides) {
		memcpy(e->dims + nd, d->strides, (size_t)nd * 8);
		e->checked.strides = e->dims + nd;
	}
	atomic_store_explicit(&e->state, gfx_checked, memory_order_release);
	return 0;
}

// gfx_exporter_build builds a managed tensor of d (checked) over e's
// memory: one calloc'd block, the struct then shape then strides (always
// written: DLPack 1.2 wants strides for ndim > 0). NULL when out of memory.
void *gfx_exporter_build(void *exporter, const gfxcuda_tensor_t *d, int versioned) {
	gfx_exporter *e = exporter;
	int nd = d->ndim;
	int64_t acc;
	size_t head = versioned ? sizeof(gfx_DLManagedTensorVersioned) : sizeof(gfx_DLManagedTensor);
	void *p = calloc(1, head + (size_t)(2 * nd) * 8);
	if (p == NULL) return NULL;
	int64_t *dims = (int64_t *)((char *)p + head);
	acc = 1;
	for (int i = nd - 1; i >= 0; i--) {
		dims[i] = d->shape[i];
		dims[nd + i] = d->strides ? d->strides[i] : acc;
		acc *= d->shape[i];
	}
	gfx_DLTensor *t;
	if (versioned) {
		gfx_DLManagedTensorVersioned *m = p;
		m->version.major = 1;
		m->version.minor = 1;
		m->manager_ctx = e;
		m->deleter = gfx_fast_delete_versioned;
		m->flags = d->flags & 3; // read-only, is-copied
		t = &m->dl_tensor;
	} else {
		gfx_DLManagedTensor *m = p;
		m->manager_ctx = e;
		m->deleter = gfx_fast_delete;
		t = &m->dl_tensor;
	}
	t->data = (void *)(uintptr_t)d->data;
	t->device.device_type = d->device_type;
	t->device.device_id = d->device_id;
	t->ndim = nd;
	t->dtype.code = d->code;
	t->dtype.bits = d->bits;
	t->dtype.lanes = d->lanes ? d->lanes : 1;
	t->shape = nd ? dims : NULL;
	t->strides = nd ? dims + nd : NULL;
	t->byte_offset = d->byte_offset;
	atomic_fetch_add(&e->refs, 1);
	atomic_fetch_add(&gfx_exported_live, 1);
	return p;
}

int gfxcuda_dlpack_exporter_export(void *exporter, const gfxcuda_tensor_t *d, int versioned, void **out) {
	gfx_exporter *e = exporter;
	if (e == NULL || d == NULL || out == NULL) return gfx_fail(1, "gfxcuda_dlpack_exporter_export: null exporter, description or output");
	int status = gfx_check(e, d);
	if (status != 0) return status;
	void *p = gfx_exporter_build(e, d, versioned);
	if (p == NULL) return gfx_fail(9, "gfxcuda: out of host memory for a DLPack tensor header");
	*out = p;
	return 0;
}

// gfx_exporter_check checks d as gfxcuda_dlpack_exporter_export does (Go
// once per description); a status.
int gfx_exporter_check(void *exporter, const gfxcuda_tensor_t *d) { return gfx_check(exporter, d); }

// gfx_exporter_ref and gfx_exporter_unref_public take and drop a
// reference on an exporter (the exchange API's bindings hold one).
void gfx_exporter_ref(void *exporter) { atomic_fetch_add(&((gfx_exporter *)exporter)->refs, 1); }
void gfx_exporter_drop_ref(void *exporter) { gfx_exporter_unref(exporter); }
