#ifndef GFXCUDA_CAPI_H
#define GFXCUDA_CAPI_H
#include <stddef.h>
#include <stdint.h>
#define GFXCUDA_VERSION_STRING "0.1.0"
void gfx_set_error(const char *msg, size_t n);
void gfxcuda_dlpack_capsule_destructor(void *capsule);
void *gfx_exporter_new(uint64_t owner);
long long gfx_exported_count(void);

typedef struct {
	uint64_t size, row_pitch;
	uint32_t kind, heap, format, stride;
	uint32_t width, height, depth, slices;
	uint64_t device_ptr;
	int32_t cuda_device;
	uint32_t bytes_per_texel;
} gfxcuda_resource_info_t;

typedef struct {
	uint64_t size, src_offset, dst_offset;
	uint32_t width, height, depth;
	uint32_t src_x, src_y, src_z, dst_x, dst_y, dst_z;
	uint32_t src_slice, dst_slice;
} gfxcuda_copy_region_t;

typedef struct {
	uint64_t data, byte_offset;
	int32_t device_type, device_id;
	uint8_t code, bits;
	uint16_t lanes;
	int32_t ndim;
	int64_t *shape;
	int64_t *strides;
	uint64_t flags;
} gfxcuda_tensor_t;

// The DLPack exporters of capi.c, for the exchange API (exchange.c).
void *gfx_exporter_build(void *exporter, const gfxcuda_tensor_t *d, int versioned);
int gfx_exporter_check(void *exporter, const gfxcuda_tensor_t *d);
void gfx_exporter_ref(void *exporter);
void gfx_exporter_drop_ref(void *exporter);

typedef struct {
	char typestr[8];
	uint64_t data;
	int32_t read_only, version, ndim, has_strides, host, reserved;
	int64_t stream;
	int64_t shape[32], strides[32];
} gfxcuda_array_interface_t;
/* A tensor layout for gfxcuda_texture_to_tensor (the face's
 * gfxcuda.TensorLayout): planar (NCHW) or not (NHWC); the element type as a
 * DLPack code and bits (float32, float16 or uint8); 3 or 4 channels (0: 4);
 * per-channel mean and std ((v - mean) / std; a std of 0 means 1); flip_y
 * writes the last row first. */
typedef struct {
	int32_t planar, dtype_code, dtype_bits, channels;
	float mean[4], std[4];
	int32_t flip_y;
} gfxcuda_tensor_layout_t;

/* What gfxcuda_gl_source_info reports of a GL source: its size, sample
 * count (0: not multisampled), GL internal format and name, the texture
 * target (GL_RENDERBUFFER for renderbuffers, then renderbuffer is 1), and
 * format, the gfxcuda format (a VkFormat value) frames are copied into:
 * R8G8B8A8_UNORM, R16G16B16A16_SFLOAT or R32G32B32A32_SFLOAT; R32_SFLOAT
 * for depth. */
typedef struct {
	uint32_t width, height, samples, internal_format, format, name, target, renderbuffer;
} gfxcuda_gl_source_info_t;

#endif
