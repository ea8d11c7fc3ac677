// DLPack structures as the DLPack 1.x specification lays them out
// (dmlc/dlpack dlpack.h), declared here from the specification.
#ifndef GFXCUDA_DLPACK_H
#define GFXCUDA_DLPACK_H
#include <stdint.h>
#include <stddef.h>

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

void gfx_dlpack_delete(gfx_DLManagedTensor *m);
void gfx_dlpack_delete_versioned(gfx_DLManagedTensorVersioned *m);
void gfx_dlpack_call_deleter(void *m, int versioned);
void *gfx_dlpack_deleter_ptr(int versioned);
#endif
