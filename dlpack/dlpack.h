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

void gfx_dlpack_delete(gfx_DLManagedTensor *m);
void gfx_dlpack_delete_versioned(gfx_DLManagedTensorVersioned *m);
void gfx_dlpack_call_deleter(void *m, int versioned);
void *gfx_dlpack_deleter_ptr(int versioned);
#endif
