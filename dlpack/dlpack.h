// DLPack structures as the DLPack 1.x specification lays them out
// (dmlc/dlpack dlpack.h), declared here from the specification.
#ifndef GFXCUDA_DLPACK_H
#define GFXCUDA_DLPACK_H
#include <stdint.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

typedef struct { uint32_t major, minor; } gfx_DLPackVersion;
typedef struct { int32_t device_type; int32_t device_id; } gfx_DLDevice;
typedef struct { uint8_t code; uint8_t bits; uint16_t lanes; } gfx_DLDataType;
typedef struct {
	void *data;
	gfx_DLDevice device;
	int32_t ndim;
	gfx_DLDataType dtype;
	int64_t *shape;
	int64_t *strides;
	uint64_t byte_offset;
} gfx_DLTensor;

typedef struct gfx_DLManagedTensor {
	gfx_DLTensor dl_tensor;
	void *manager_ctx;
	void (*deleter)(struct gfx_DLManagedTensor *self);
} gfx_DLManagedTensor;

typedef struct gfx_DLManagedTensorVersioned {
	gfx_DLPackVersion version;
	void *manager_ctx;
	void (*deleter)(struct gfx_DLManagedTensorVersioned *self);
	uint64_t flags;
	gfx_DLTensor dl_tensor;
} gfx_DLManagedTensorVersioned;

// DLPack 1.3's C exchange API (__dlpack_c_exchange_api__): a table of
// function pointers a Python array type publishes, in a PyCapsule named
// "dlpack_exchange_api". PyObject* appear as void*.
typedef int (*gfx_DLPackManagedTensorAllocator)(gfx_DLTensor *prototype, gfx_DLManagedTensorVersioned **out,
	void *error_ctx, void (*set_error)(void *error_ctx, const char *kind, const char *message));
typedef int (*gfx_DLPackManagedTensorFromPyObjectNoSync)(void *py_object, gfx_DLManagedTensorVersioned **out);
typedef int (*gfx_DLPackManagedTensorToPyObjectNoSync)(gfx_DLManagedTensorVersioned *tensor, void **out_py_object);
typedef int (*gfx_DLPackDLTensorFromPyObjectNoSync)(void *py_object, gfx_DLTensor *out);
typedef int (*gfx_DLPackCurrentWorkStream)(int32_t device_type, int32_t device_id, void **out_current_stream);

typedef struct gfx_DLPackExchangeAPIHeader {
	gfx_DLPackVersion version;
	struct gfx_DLPackExchangeAPIHeader *prev_api;
} gfx_DLPackExchangeAPIHeader;

typedef struct {
	gfx_DLPackExchangeAPIHeader header;
	gfx_DLPackManagedTensorAllocator managed_tensor_allocator;
	gfx_DLPackManagedTensorFromPyObjectNoSync managed_tensor_from_py_object_no_sync;
	gfx_DLPackManagedTensorToPyObjectNoSync managed_tensor_to_py_object_no_sync;
	gfx_DLPackDLTensorFromPyObjectNoSync dltensor_from_py_object_no_sync;
	gfx_DLPackCurrentWorkStream current_work_stream;
} gfx_DLPackExchangeAPI;

// The DLPack version versioned tensors carry (package dlpack's Version).
#define GFX_DLPACK_MAJOR 1
#define GFX_DLPACK_MINOR 1

// gfx_dlpack_desc is a tensor's DLPack description with every field
// computed in Go, by package dlpack (Describe): the managed tensors
// gfx_dlpack_build makes of it and the DLTensor views gfx_dlpack_view
// fills copy it and compute nothing. strides are always written (in
// elements; the C-contiguous ones when the tensor had none), lanes is at
// least 1, flags are a versioned tensor's. No pointers: a description can be
// copied, kept in C and passed from Go.
typedef struct {
	uint64_t data, byte_offset, flags;
	gfx_DLDevice device;
	gfx_DLDataType dtype;
	int32_t ndim; // 0 to 32
	int64_t shape[32];
	int64_t strides[32];
} gfx_dlpack_desc;

// gfx_dlpack_view fills *t as a view of d: shape and strides point into d,
// valid while d is.
static inline void gfx_dlpack_view(const gfx_dlpack_desc *d, gfx_DLTensor *t) {
	t->data = (void *)(uintptr_t)d->data;
	t->device = d->device;
	t->ndim = d->ndim;
	t->dtype = d->dtype;
	t->shape = d->ndim ? (int64_t *)d->shape : NULL;
	t->strides = d->ndim ? (int64_t *)d->strides : NULL;
	t->byte_offset = d->byte_offset;
}

// gfx_dlpack_build is the one builder of the managed tensors gfxcuda
// exports, for package dlpack's Export and libgfxcuda's C exporters alike:
// a DLManagedTensorVersioned (versioned; deleter vdel) or a legacy
// DLManagedTensor (deleter del) of d, manager_ctx ctx, in one calloc'd
// block: the struct, then shape, then strides (always written: DLPack 1.2
// wants strides for ndim > 0). The deleter frees the block. NULL when out
// of memory.
static inline void *gfx_dlpack_build(const gfx_dlpack_desc *d, int versioned, void *ctx,
	void (*del)(gfx_DLManagedTensor *), void (*vdel)(gfx_DLManagedTensorVersioned *)) {
	int nd = d->ndim;
	size_t head = versioned ? sizeof(gfx_DLManagedTensorVersioned) : sizeof(gfx_DLManagedTensor);
	void *p = calloc(1, head + (size_t)(2 * nd) * 8);
	if (p == NULL) return NULL;
	int64_t *dims = (int64_t *)((char *)p + head);
	memcpy(dims, d->shape, (size_t)nd * 8);
	memcpy(dims + nd, d->strides, (size_t)nd * 8);
	gfx_DLTensor *t;
	if (versioned) {
		gfx_DLManagedTensorVersioned *m = p;
		m->version.major = GFX_DLPACK_MAJOR;
		m->version.minor = GFX_DLPACK_MINOR;
		m->manager_ctx = ctx;
		m->deleter = vdel;
		m->flags = d->flags;
		t = &m->dl_tensor;
	} else {
		gfx_DLManagedTensor *m = p;
		m->manager_ctx = ctx;
		m->deleter = del;
		t = &m->dl_tensor;
	}
	gfx_dlpack_view(d, t);
	t->shape = nd ? dims : NULL;
	t->strides = nd ? dims + nd : NULL;
	return p;
}

// gfx_dlpack_call_deleter calls the deleter of the managed tensor at p
// (versioned or legacy), as a consumer does when it is done; NULL and a
// NULL deleter are ignored.
static inline void gfx_dlpack_call_deleter(void *p, int versioned) {
	if (p == NULL) return;
	if (versioned) {
		gfx_DLManagedTensorVersioned *m = p;
		if (m->deleter) m->deleter(m);
	} else {
		gfx_DLManagedTensor *m = p;
		if (m->deleter) m->deleter(m);
	}
}

void gfx_dlpack_delete(gfx_DLManagedTensor *m);
void gfx_dlpack_delete_versioned(gfx_DLManagedTensorVersioned *m);
#endif
