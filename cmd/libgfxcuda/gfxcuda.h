/*
 * gfxcuda.h: the C API of libgfxcuda, gfxcuda's zero-copy GPU interop
 * library (Vulkan compute, Vulkan <-> CUDA sharing, DLPack).
 *
 * Conventions
 *  - Every function but gfxcuda_last_error, gfxcuda_version, gfxcuda_free,
 *    gfxcuda_set_python_capsule_api and gfxcuda_dlpack_capsule_destructor
 *    returns a gfxcuda_status: GFXCUDA_OK (0) or an error code. On error,
 *    gfxcuda_last_error() returns a message for the calling thread that says
 *    what went wrong and how to fix it; outputs are left unspecified.
 *  - Objects are opaque 64-bit handles (integers into a table, never
 *    pointers); 0 is never a handle. gfxcuda_release drops a reference. An
 *    object keeps what it was made from alive: a buffer its device, a compute
 *    pipeline its resources, a DLPack tensor its memory. Releasing a handle
 *    twice returns GFXCUDA_ERR_BAD_HANDLE; it never crashes.
 *  - Memory the library returns (JSON strings, SPIR-V) is malloc'd; free it
 *    with gfxcuda_free.
 *  - Every function may be called from any thread, several at once. The
 *    library leaves no CUDA context current and no thread locked.
 *  - Do not call the library in a child process created by fork() after the
 *    library was loaded: neither the Go runtime inside it nor CUDA survive
 *    fork. Start such processes with spawn/exec (Python: multiprocessing
 *    start method "spawn" or "forkserver").
 */
#ifndef GFXCUDA_H
#define GFXCUDA_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Status codes. */
typedef enum {
	GFXCUDA_OK = 0,
	GFXCUDA_ERR_INVALID = 1,         /* a bad argument: null pointer, unknown format, zero size */
	GFXCUDA_ERR_RANGE = 2,           /* an offset, size or region outside a resource */
	GFXCUDA_ERR_BAD_HANDLE = 3,      /* not a live handle (released already, never made) */
	GFXCUDA_ERR_UNSUPPORTED = 4,     /* the device or this build cannot do it */
	GFXCUDA_ERR_NOT_IMPLEMENTED = 5, /* not in this build yet (the message says what is coming) */
	GFXCUDA_ERR_NO_DEVICE = 6,       /* no such Vulkan or CUDA device */
	GFXCUDA_ERR_NO_CUDA = 7,         /* no usable NVIDIA CUDA driver */
	GFXCUDA_ERR_COMPILE = 8,         /* a shader did not compile; the message has file:line diagnostics */
	GFXCUDA_ERR_FAILED = 9,          /* the GPU or driver failed */
	GFXCUDA_ERR_INTERNAL = 10        /* a bug in gfxcuda; the message has a stack trace to report */
} gfxcuda_status;

/* Heaps of gfxcuda_buffer_new. */
enum { GFXCUDA_HEAP_DEFAULT = 0, GFXCUDA_HEAP_UPLOAD = 1, GFXCUDA_HEAP_READBACK = 2 };

/* Kinds reported by gfxcuda_resource_info. */
enum {
	GFXCUDA_KIND_DEVICE = 1, GFXCUDA_KIND_BUFFER = 2, GFXCUDA_KIND_TEXTURE = 3, GFXCUDA_KIND_SAMPLER = 4,
	GFXCUDA_KIND_COMPUTE = 5, GFXCUDA_KIND_CUDA_MEMORY = 6, GFXCUDA_KIND_SHARED_DEVICE = 7,
	GFXCUDA_KIND_SHARED_BUFFER = 8, GFXCUDA_KIND_SHARED_TEXTURE = 9, GFXCUDA_KIND_IMPORTED_TENSOR = 10
};

/* Shader languages of gfxcuda_shader_compile. */
enum { GFXCUDA_HLSL = 0, GFXCUDA_GLSL = 1 };

/* Directions of gfxcuda_cuda_memcpy. */
enum { GFXCUDA_COPY_HTOD = 0, GFXCUDA_COPY_DTOH = 1, GFXCUDA_COPY_DTOD = 2 };

/* What gfxcuda_resource_info reports; fields a kind lacks are 0
 * (cuda_device: -1). */
typedef struct {
	uint64_t size, row_pitch;     /* bytes; row_pitch: tightly packed texture rows */
	uint32_t kind, heap, format, stride;
	uint32_t width, height, depth, slices;
	uint64_t device_ptr;          /* CUDA memory and shared buffers */
	int32_t cuda_device;
	uint32_t bytes_per_texel;
} gfxcuda_resource_info_t;

/* A copy between resources, as compushady's Resource.copy_to takes it.
 * Zero sizes mean "the rest". */
typedef struct {
	uint64_t size, src_offset, dst_offset;
	uint32_t width, height, depth;
	uint32_t src_x, src_y, src_z, dst_x, dst_y, dst_z;
	uint32_t src_slice, dst_slice;
} gfxcuda_copy_region_t;

/* A tensor description (DLPack's DLTensor with its flags). strides are in
 * elements; NULL means C-contiguous. */
typedef struct {
	uint64_t data, byte_offset;
	int32_t device_type, device_id; /* DLPack: 1 CPU, 2 CUDA */
	uint8_t code, bits;             /* DLPack: 0 int, 1 uint, 2 float */
	uint16_t lanes;
	int32_t ndim;
	int64_t *shape;
	int64_t *strides;
	uint64_t flags;                 /* DLPACK_FLAG_BITMASK_READ_ONLY (1), _IS_COPIED (2) */
} gfxcuda_tensor_t;

/* ---- General ---- */

/* The calling thread's last error message ("" when none). Valid until the
 * thread's next call into the library. */
const char *gfxcuda_last_error(void);
/* The library's version, "MAJOR.MINOR.PATCH". */
const char *gfxcuda_version(void);
/* Frees memory the library returned. NULL is ignored. */
void gfxcuda_free(void *p);
/* Drops a reference to a handle; the object is destroyed with its last
 * reference (its dependents hold references too). */
int gfxcuda_release(uint64_t handle);
/* Adds a reference to a handle. */
int gfxcuda_retain(uint64_t handle);
/* The number of live handles, for leak checks. */
int gfxcuda_live_handles(uint64_t *n);
/* Describes any handle. */
int gfxcuda_resource_info(uint64_t handle, gfxcuda_resource_info_t *out);

/* ---- Vulkan compute (compushady's model) ---- */

/* A JSON array of the texel formats (value: the VkFormat, name, vk_name,
 * bytes_per_texel, channels, dl_code, dl_bits, lanes, cuda_array). */
int gfxcuda_formats_json(char **json, size_t *len);

/* A JSON array describing the devices that run compute shaders (index,
 * name, dedicated_video_memory, shared_system_memory, vendor_id, device_id,
 * is_hardware, is_discrete, uuid, driver, best). Free *json. */
int gfxcuda_devices_json(char **json, size_t *len);
/* Opens device index (-1: $GFXCUDA_DEVICE, else the best device). */
int gfxcuda_device_open(int index, uint64_t *device);
/* The JSON object (as in gfxcuda_devices_json) of an open device. */
int gfxcuda_device_info_json(uint64_t device, char **json, size_t *len);
/* Creates a buffer of size bytes on heap; stride > 0 makes a structured
 * buffer, format (a VkFormat value from the format table) a typed buffer. */
int gfxcuda_buffer_new(uint64_t device, uint64_t size, int heap, uint32_t stride, uint32_t format, uint64_t *buffer);
/* Writes n bytes from data at byte offset of the buffer; returns when done. */
int gfxcuda_buffer_upload(uint64_t buffer, uint64_t offset, const void *data, uint64_t n);
/* Reads n bytes from byte offset of the buffer into dst, after the work
 * submitted before that uses it. */
int gfxcuda_buffer_readback(uint64_t buffer, uint64_t offset, void *dst, uint64_t n);
/* Writes height rows of row_bytes bytes, packed in data (n bytes), pitch
 * bytes apart in the buffer. */
int gfxcuda_buffer_upload2d(uint64_t buffer, const void *data, uint64_t n, uint64_t pitch, uint64_t row_bytes, uint32_t height);
/* Reads height rows of row_bytes, pitch bytes apart, packed into dst (n bytes). */
int gfxcuda_buffer_readback2d(uint64_t buffer, void *dst, uint64_t n, uint64_t pitch, uint64_t row_bytes, uint32_t height);
/* Creates a texture of dimension dim (1, 2 or 3), width x height x depth
 * texels, slices array layers (1 for plain textures), format a VkFormat. */
int gfxcuda_texture_new(uint64_t device, int dim, uint32_t width, uint32_t height, uint32_t depth, uint32_t slices, uint32_t format, uint64_t *texture);
/* Creates a sampler: address modes 0 wrap, 1 mirror, 2 clamp, 3 border
 * (the same for u, v, w in this build); filters 0 point, 1 linear (the same
 * for min and mag in this build). */
int gfxcuda_sampler_new(uint64_t device, int address_u, int address_v, int address_w, int filter_min, int filter_mag, uint64_t *sampler);
/* Copies between buffers and textures (region may be NULL: everything) and
 * returns when the copy is done. GFXCUDA_ERR_RANGE when it does not fit. */
int gfxcuda_copy(uint64_t src, uint64_t dst, const gfxcuda_copy_region_t *region);
/* Compiles an HLSL or GLSL compute shader (n bytes at source) to SPIR-V;
 * entry NULL means "main". Free *spirv. GFXCUDA_ERR_COMPILE on errors. */
int gfxcuda_shader_compile(const char *source, size_t n, int language, const char *entry, void **spirv, size_t *len);
/* Creates a compute pipeline of a SPIR-V module with its resources bound as
 * compushady binds them: cbv[i] at register b<i>, srv[i] at t<i>, uav[i] at
 * u<i>, samplers[i] at s<i>. In this build registers of different classes
 * with the same number share a binding: such lists return
 * GFXCUDA_ERR_NOT_IMPLEMENTED. */
int gfxcuda_compute_new(uint64_t device, const void *spirv, size_t n,
	const uint64_t *cbv, size_t ncbv, const uint64_t *srv, size_t nsrv,
	const uint64_t *uav, size_t nuav, const uint64_t *samplers, size_t nsamplers, uint64_t *compute);
/* Dispatches x*y*z workgroups with npush bytes of push constants and waits
 * for them. */
int gfxcuda_compute_dispatch(uint64_t compute, uint32_t x, uint32_t y, uint32_t z, const void *push, size_t npush);

/* ---- CUDA memory ---- */

/* The number of CUDA devices (GFXCUDA_ERR_NO_CUDA without a driver). */
int gfxcuda_cuda_device_count(int *n);
/* Allocates size bytes on CUDA device ordinal (primary context). */
int gfxcuda_cuda_alloc(int device, uint64_t size, uint64_t *memory);
/* Wraps size bytes of CUDA memory at ptr on device without owning them:
 * DLPack tensors can be exported over it; whoever owns the memory must keep
 * it alive while they are. */
int gfxcuda_cuda_wrap(int device, uint64_t ptr, uint64_t size, uint64_t *memory);
/* Copies n bytes synchronously (host addresses as integers). */
int gfxcuda_cuda_memcpy(int device, uint64_t dst, uint64_t src, uint64_t n, int direction);

/* ---- Vulkan <-> CUDA sharing ---- */

/* Opens CUDA device ordinal for sharing with Vulkan (the same GPU by UUID). */
int gfxcuda_shared_open(int device, uint64_t *shared_device);
/* A Vulkan buffer CUDA sees at resource_info's device_ptr. */
int gfxcuda_shared_buffer_new(uint64_t shared_device, uint64_t size, uint64_t *buffer);
/* A 2D texture (layers > 1: an array) shared between Vulkan and CUDA. */
int gfxcuda_shared_texture_new(uint64_t shared_device, uint32_t format, uint32_t width, uint32_t height, uint32_t layers, uint64_t *texture);
/* Gfx2Cuda's texture(tensor): a texture shaped like the CUDA image at ptr
 * (rows pitch bytes apart, 0: packed; channels elements of DLPack code/bits
 * per texel), holding a copy of it. */
int gfxcuda_shared_texture_from_cuda(uint64_t shared_device, uint64_t ptr, uint64_t pitch, uint32_t width, uint32_t height,
	uint32_t channels, int code, int bits, uint64_t *texture);
/* Copies the texture to (to_cuda != 0) or from CUDA memory at ptr, rows
 * pitch bytes apart (0: packed). The copy comes after the caller's earlier
 * CUDA work and is complete on return, so later work on any stream sees
 * it. stream (a CUstream, 0 for none) is accepted; in this build the copy
 * is synchronous on it too. */
int gfxcuda_shared_texture_copy(uint64_t texture, uint64_t ptr, uint64_t pitch, int to_cuda, uint64_t stream);
/* A token another process opens with gfxcuda_shared_texture_open_ipc.
 * GFXCUDA_ERR_NOT_IMPLEMENTED in this build. */
int gfxcuda_shared_texture_ipc_handle(uint64_t texture, void **token, size_t *len);
/* Opens a texture another process shared. GFXCUDA_ERR_NOT_IMPLEMENTED in this build. */
int gfxcuda_shared_texture_open_ipc(uint64_t shared_device, const void *token, size_t len, uint64_t *texture);

/* ---- DLPack ---- */

/* Exports the tensor *desc over the memory of owner (CUDA memory or a
 * shared buffer; the tensor must lie inside it) as a DLManagedTensorVersioned
 * (versioned != 0, DLPack 1.x, desc->flags its flags) or a legacy
 * DLManagedTensor. The owner stays alive until the tensor's deleter runs;
 * the deleter frees the struct and runs exactly once. */
int gfxcuda_dlpack_export(uint64_t owner, const gfxcuda_tensor_t *desc, int versioned, void **managed);
/* Takes a managed tensor another library produced: *desc describes it
 * (shape and strides valid until the handle is released) and releasing
 * *handle calls its deleter once. On error the deleter has been called. */
int gfxcuda_dlpack_import(void *managed, int versioned, uint64_t *handle, gfxcuda_tensor_t *desc);
/* The number of exported tensors whose deleter has not run. */
int gfxcuda_dlpack_live(uint64_t *n);
/* Python embedding: PyCapsule_IsValid and PyCapsule_GetPointer, so that
 * gfxcuda_dlpack_capsule_destructor can be a capsule's destructor. */
void gfxcuda_set_python_capsule_api(void *is_valid, void *get_pointer);
/* A PyCapsule destructor for "dltensor" / "dltensor_versioned" capsules:
 * calls the tensor's deleter when no consumer renamed the capsule "used_*". */
void gfxcuda_dlpack_capsule_destructor(void *capsule);

#ifdef __cplusplus
}
#endif
#endif
