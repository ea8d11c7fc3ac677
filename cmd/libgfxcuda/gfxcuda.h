/*
 * gfxcuda.h: the C API of libgfxcuda, gfxcuda's zero-copy GPU interop
 * library (Vulkan compute, Vulkan <-> CUDA sharing, DLPack).
 *
 * Conventions
 *  - Every function but gfxcuda_last_error, gfxcuda_version, gfxcuda_free,
 *    gfxcuda_set_python_capsule_api, gfxcuda_dlpack_capsule_destructor and
 *    gfxcuda_cli_main (an exit status) returns a gfxcuda_status: GFXCUDA_OK (0) or an error code. On error,
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
#include <sys/types.h> /* ssize_t */

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
	GFXCUDA_ERR_INTERNAL = 10,       /* a bug in gfxcuda; the message has a stack trace to report */
	GFXCUDA_ERR_CLOSED = 11,         /* a ring's producer closed it and every frame was read */
	GFXCUDA_ERR_TIMEOUT = 12         /* a wait with a timeout ran out of time */
} gfxcuda_status;

/* Heaps of gfxcuda_buffer_new. */
enum { GFXCUDA_HEAP_DEFAULT = 0, GFXCUDA_HEAP_UPLOAD = 1, GFXCUDA_HEAP_READBACK = 2 };

/* Kinds reported by gfxcuda_resource_info. */
enum {
	GFXCUDA_KIND_DEVICE = 1, GFXCUDA_KIND_BUFFER = 2, GFXCUDA_KIND_TEXTURE = 3, GFXCUDA_KIND_SAMPLER = 4,
	GFXCUDA_KIND_COMPUTE = 5, GFXCUDA_KIND_CUDA_MEMORY = 6, GFXCUDA_KIND_SHARED_DEVICE = 7,
	GFXCUDA_KIND_SHARED_BUFFER = 8, GFXCUDA_KIND_SHARED_TEXTURE = 9, GFXCUDA_KIND_IMPORTED_TENSOR = 10,
	GFXCUDA_KIND_HOST_MEMORY = 11, /* a host-visible ring slot: device_ptr is a host address */
	GFXCUDA_KIND_RING = 12, GFXCUDA_KIND_RING_READER = 13, /* slices: slot count, size: slot bytes */
	GFXCUDA_KIND_HANDOFF = 14, GFXCUDA_KIND_SEMAPHORE = 15
};

/* Streams: wherever a function takes a uint64_t stream, 0 and 1 mean the
 * legacy default stream of the device's primary context (what PyTorch uses
 * unless told otherwise), 2 the per-thread default stream, anything else a
 * CUstream of that context (torch.cuda.current_stream().cuda_stream, CuPy's
 * stream.ptr). Work is queued on it; no host wait unless said. */

/* Shader languages of gfxcuda_shader_compile. */
enum { GFXCUDA_HLSL = 0, GFXCUDA_GLSL = 1, GFXCUDA_WGSL = 2 };

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

/* What gfxcuda_tensor_info computes of a tensor description: the library's
 * own arithmetic (Go's package dlpack: the same its exports and checks
 * use), so that bindings need not compute it again. */
typedef struct {
	uint64_t elements;   /* the product of shape (1 for 0 dimensions) */
	uint64_t itemsize;   /* bytes per element: bits / 8 * lanes */
	uint64_t nbytes;     /* elements * itemsize */
	int64_t lo, hi;      /* the bytes [lo, hi) the elements span, from data (byte_offset and negative strides included); [byte_offset, byte_offset) when empty */
	int32_t contiguous;  /* 1: C-contiguous (strides NULL, or equal to the C-contiguous ones where a dimension is not 1) */
	int32_t dense;       /* 1: the elements cover [lo, hi) exactly once (contiguous, or a permutation of a contiguous tensor) */
	int32_t ndim;        /* the entries of strides used */
	int32_t reserved;
	int64_t strides[32]; /* elements: desc->strides, or the C-contiguous strides when it is NULL */
} gfxcuda_tensor_info_t;

/* An array interface: the fields of Python's __cuda_array_interface__
 * (version 3, CUDA memory) or of NumPy's __array_interface__ (version 3,
 * host memory; host != 0), as gfxcuda_array_interface fills them. */
typedef struct {
	char typestr[8];        /* NumPy's type string, NUL-terminated: "<f4", "|u1" */
	uint64_t data;          /* the first element: desc->data + desc->byte_offset */
	int32_t read_only;      /* data's second member */
	int32_t version;        /* 3 */
	int32_t ndim;           /* the entries of shape and strides used */
	int32_t has_strides;    /* 0: "strides" is None (C-contiguous) */
	int32_t host, reserved; /* host: __array_interface__, which has no "stream" */
	int64_t stream;         /* 0: "stream" is None (nothing pending); 1 legacy, 2 per-thread default, else a cudaStream_t */
	int64_t shape[32];
	int64_t strides[32];    /* bytes */
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
 * for depth (depth and depth-stencil formats: float32 depth in [0, 1]). */
typedef struct {
	uint32_t width, height, samples, internal_format, format, name, target, renderbuffer;
} gfxcuda_gl_source_info_t;

/* Defined before this header is included, GFXCUDA_TYPES_ONLY declares the
 * types and constants above but not the functions below: libgfxcuda's own
 * C does (cgo declares the functions it exports itself, without const). */
#ifndef GFXCUDA_TYPES_ONLY

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
/* gfxcuda_buffer_new in one call: returns the buffer's handle (> 0), or
 * minus the status on error (the message as for any error). A buffer of at
 * most 64 KiB comes from, and goes back to when its last reference goes, a
 * pool of released buffers of the same device, size, heap, stride and
 * format: its bytes are undefined, as a new buffer's are. */
int64_t gfxcuda_buffer_create(uint64_t device, uint64_t size, int heap, uint32_t stride, uint32_t format);
/* gfxcuda_buffer_create with int arguments, each 0 or more (a negative one
 * is GFXCUDA_ERROR_INVALID_ARGUMENT), for foreign-function layers that pass
 * an int as it is but convert wider integers through objects (Python's
 * ctypes). gfxcuda_release_int is gfxcuda_release of a handle below 2**31. */
int64_t gfxcuda_buffer_create_int(int device, int size, int heap, int stride, int format);
int gfxcuda_release_int(int handle);
/* gfxcuda_buffer_create_n makes up to n buffers (n from 1 to 2**20) as
 * gfxcuda_buffer_create does, writing their handles to handles[0..n):
 * returns how many it made (fewer than n when one failed; minus the status
 * when none was). For bindings that make small buffers ahead in batches
 * (a call per buffer costs more than the buffer). */
int64_t gfxcuda_buffer_create_n(uint64_t device, uint64_t size, int heap, uint32_t stride, uint32_t format,
                                int64_t *handles, int n);
/* Releases n handles as gfxcuda_release does, every one even when some
 * fail; returns the first failure's status (0 when none failed). */
int gfxcuda_release_n(const int64_t *handles, int n);
/* gfxcuda_buffer_recycle_n takes n handles of buffers the caller is done
 * with. A small buffer made by gfxcuda_buffer_create (or _n) whose handle
 * holds its only reference (no pipeline, export or view uses it) stays
 * live under its handle, for the caller to use again as a new buffer of
 * the same device, size, heap, stride and format (bytes undefined, as a
 * new buffer's); every other handle is released and its slot set to 0.
 * Returns how many were kept, or minus the status of the first release
 * that failed (every handle is still done). */
int64_t gfxcuda_buffer_recycle_n(int64_t *handles, int n);
/* Writes n bytes from data at byte offset of the buffer; returns when done. */
int gfxcuda_buffer_upload(uint64_t buffer, uint64_t offset, const void *data, uint64_t n);
/* Reads n bytes from byte offset of the buffer into dst, after the work
 * submitted before that uses it. */
int gfxcuda_buffer_readback(uint64_t buffer, uint64_t offset, void *dst, uint64_t n);
/* Writes data (n bytes) into rows pitch bytes apart in the buffer, by
 * compushady's upload2d rule: row y (y < height) gets the next
 * min(row_bytes, bytes left) bytes of data at byte pitch*y; data shorter
 * than height rows fills the first rows and part of the last, data longer
 * is cut, and what the rows do not cover is left as it was. At most the
 * buffer's size is taken from data in all (only overlapping rows, pitch <
 * row_bytes, reach that). GFXCUDA_ERR_RANGE, writing nothing, when a row
 * would end past the end of the buffer. */
int gfxcuda_buffer_upload2d(uint64_t buffer, const void *data, uint64_t n, uint64_t pitch, uint64_t row_bytes, uint32_t height);
/* Writes data (n bytes) from the start of the buffer in chunks of stride
 * bytes, each followed by the filler_len bytes at filler (compushady's
 * upload_chunked): n / stride whole chunks, a partial last chunk is not
 * written. GFXCUDA_ERR_RANGE when n + (n / stride) * filler_len exceeds the
 * buffer's size; GFXCUDA_ERR_INVALID for a stride of 0. */
int gfxcuda_buffer_upload_chunked(uint64_t buffer, const void *data, uint64_t n, uint64_t stride, const void *filler, uint64_t filler_len);
/* Reads height rows of row_bytes, pitch bytes apart, packed into dst (n =
 * height * row_bytes bytes). The buffer must hold pitch * (height - 1) +
 * row_bytes bytes, and at least pitch bytes (compushady's readback2d). */
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
/* Compiles an HLSL, GLSL or WGSL compute shader (n bytes at source) to
 * SPIR-V; entry NULL means "main" (WGSL: the only @compute function, or the
 * one called main). Free *spirv. GFXCUDA_ERR_COMPILE on errors, whose
 * message gives shader.hlsl, shader.comp or shader.wgsl, the line (WGSL: and
 * column) of each. GLSL also accepts what compushady's compiler (naga)
 * accepts: uniforms of non-opaque types outside blocks, image formats of
 * another sampled type (shader.Options.NagaGLSL). WGSL's SPIR-V keeps the
 * @group/@binding numbers and names its entry point after the @compute
 * function; gfxcuda_compute_new binds it as GLSL. */
int gfxcuda_shader_compile(const char *source, size_t n, int language, const char *entry, void **spirv, size_t *len);
/* Creates a compute pipeline of a SPIR-V module with its resources bound as
 * compushady binds them: cbv[i] at register b<i>, srv[i] at t<i>, uav[i] at
 * u<i>, samplers[i] at s<i> (each class has its own bindings). GLSL: entry i
 * binds that class's resource at binding i, or, when that leaves the
 * shader's resources unbound, the class's i-th resource in binding order
 * (compushady's GLSL rule). Entries the shader does not use are allowed. */
int gfxcuda_compute_new(uint64_t device, const void *spirv, size_t n,
	const uint64_t *cbv, size_t ncbv, const uint64_t *srv, size_t nsrv,
	const uint64_t *uav, size_t nuav, const uint64_t *samplers, size_t nsamplers, uint64_t *compute);
/* gfxcuda_compute_new with specialization constants set (WGSL override
 * declarations, GLSL layout(constant_id = N) const): names[i] (the
 * constant's name, or its SpecId in decimal) takes values[i], converted to
 * the constant's type (bool: 0 or 1; integers: whole and in range; floats
 * rounded). A workgroup size made of constants follows. GFXCUDA_ERR_INVALID
 * for a name the shader has no constant for, a value its type cannot
 * hold, or a WGSL override without a default left unset. */
int gfxcuda_compute_new_constants(uint64_t device, const void *spirv, size_t n,
	const uint64_t *cbv, size_t ncbv, const uint64_t *srv, size_t nsrv,
	const uint64_t *uav, size_t nuav, const uint64_t *samplers, size_t nsamplers,
	const char *const *names, const double *values, size_t nconstants, uint64_t *compute);
/* Dispatches x*y*z workgroups with npush bytes of push constants and waits
 * for them. GFXCUDA_ERR_INVALID when the lists given to gfxcuda_compute_new
 * left a resource of the shader unbound; the message names the list entry
 * (uav[0], register u0) and how many entries the list had. */
int gfxcuda_compute_dispatch(uint64_t compute, uint32_t x, uint32_t y, uint32_t z, const void *push, size_t npush);

/* ---- Heaps, sparse resources, bindless pipelines (compushady's) ---- */

/* Allocates size bytes on heap_type (GFXCUDA_HEAP_*) for buffers and
 * textures to be placed in (compushady's Heap). */
int gfxcuda_heap_new(uint64_t device, int heap_type, uint64_t size, uint64_t *heap);
/* gfxcuda_buffer_new placed at byte offset of heap (0: its own memory), or
 * sparse (sparse != 0, heap 0): no memory until gfxcuda_bind_tile. A heap
 * of another type, a misaligned offset or one that leaves too few bytes is
 * GFXCUDA_ERR_INVALID; a sparse buffer on a device without sparse binding
 * GFXCUDA_ERR_UNSUPPORTED, naming the feature. */
int gfxcuda_buffer_new_placed(uint64_t device, uint64_t size, int heap_type, uint32_t stride, uint32_t format,
	uint64_t heap, uint64_t offset, int sparse, uint64_t *buffer);
/* gfxcuda_texture_new placed in a HEAP_DEFAULT heap at offset, or sparse. */
int gfxcuda_texture_new_placed(uint64_t device, int dim, uint32_t width, uint32_t height, uint32_t depth,
	uint32_t slices, uint32_t format, uint64_t heap, uint64_t offset, int sparse, uint64_t *texture);
/* The tiles of a sparse resource: tiles[0..2] a tile's width, height and
 * depth (bytes for a buffer: width), tiles[3..5] the number of tiles along
 * x, y, z, tiles[6] a tile's bytes of memory. All zero when not sparse. */
int gfxcuda_resource_tiles(uint64_t resource, uint64_t tiles[7]);
/* Binds tile (x, y, z) of array slice of a sparse resource to heap at
 * offset (heap 0 unbinds it), after the work submitted before; returns
 * when it is bound. */
int gfxcuda_bind_tile(uint64_t resource, uint32_t x, uint32_t y, uint32_t z, uint64_t heap, uint64_t offset, uint32_t slice);
/* A bindless pipeline: runtime-sized descriptor arrays get max_bindless
 * elements, every array is partially bound; the lists bind entries 0, 1, ...
 * (entry i of a class is the resource whose register range holds i, at
 * element i minus its first register). Needs descriptor indexing
 * (GFXCUDA_ERR_UNSUPPORTED otherwise). */
int gfxcuda_compute_new_bindless(uint64_t device, const void *spirv, size_t n,
	const uint64_t *cbv, size_t ncbv, const uint64_t *srv, size_t nsrv,
	const uint64_t *uav, size_t nuav, const uint64_t *samplers, size_t nsamplers,
	uint32_t max_bindless, uint64_t *compute);
/* Binds resource as entry index of class (0 cbv, 1 srv, 2 uav, 3 samplers)
 * of a bindless pipeline. The caller keeps the resource alive while the
 * pipeline may use it. */
int gfxcuda_compute_bind(uint64_t compute, int cls, uint32_t index, uint64_t resource);

/* ---- CUDA memory ---- */

/* The number of CUDA devices (GFXCUDA_ERR_NO_CUDA without a driver). */
int gfxcuda_cuda_device_count(int *n);
/* Allocates size bytes on CUDA device ordinal (primary context). */
int gfxcuda_cuda_alloc(int device, uint64_t size, uint64_t *memory);
/* As gfxcuda_cuda_alloc, from the device's cache of memory made and
 * dropped every frame (conversions' outputs): released, the memory goes
 * back to the cache, and is handed out again only once the work queued on
 * stream (where it is written; 0: none), on the streams named with
 * gfxcuda_cuda_note_stream and on the legacy default stream has finished
 * (event queries; no host wait). Saves cuMemAlloc and cuMemFree (which
 * waits for the device): hundreds of microseconds per frame-sized block. */
int gfxcuda_cuda_alloc_cached(int device, uint64_t size, uint64_t stream, uint64_t *memory);
/* Names another stream (a cudaStream_t: a DLPack consumer's) that uses
 * cached memory: its reuse waits for that stream's work queued until the
 * memory is released. Nothing to do for other memory or the default
 * streams. */
int gfxcuda_cuda_note_stream(uint64_t memory, uint64_t stream);
/* The counters of device's cache of per-frame memory (the one
 * gfxcuda_cuda_alloc_cached hands out from), into stats[0..5]: hits
 * (blocks handed out again), misses (cuMemAlloc), busy (idle blocks
 * skipped: a stream still used them), freed (blocks released past the
 * limit with no idle block to make room), evicted (idle blocks freed to
 * make room for newer ones), idle bytes. All zero before the first cached
 * allocation on device. */
int gfxcuda_cuda_cache_stats(int device, uint64_t stats[6]);
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
/* gfxcuda_shared_texture_new with view_format_count (at most 16) other
 * VkFormats Vulkan may read or write the texels as (colour formats of the
 * format's texel size; a mutable image with that format list). An RGBA8
 * atlas with R32_UINT (98) among them converts its tiles (uint8, no mean
 * or std) from texel words, faster than from a plain image. Such a texture
 * is not shared with other processes. */
int gfxcuda_shared_texture_new_views(uint64_t shared_device, uint32_t format, uint32_t width, uint32_t height, uint32_t layers,
	const uint32_t *view_formats, uint32_t view_format_count, uint64_t *texture);
/* Gfx2Cuda's texture(tensor): a texture shaped like the CUDA image at ptr
 * (rows pitch bytes apart, 0: packed; channels elements of DLPack code/bits
 * per texel), holding a copy of it. */
int gfxcuda_shared_texture_from_cuda(uint64_t shared_device, uint64_t ptr, uint64_t pitch, uint32_t width, uint32_t height,
	uint32_t channels, int code, int bits, uint64_t *texture);
/* Queues on stream a copy of the texture to (to_cuda != 0) or from CUDA
 * memory at ptr, rows pitch bytes apart (0: packed), with the texture's
 * hand-off to CUDA and back around it: it runs after the work queued on the
 * stream before and later work on the stream sees it. No host wait. During
 * a gfxcuda_to_cuda hand-off of the texture, a copy on another stream is
 * ordered after and before the hand-off's stream with events. */
int gfxcuda_shared_texture_copy(uint64_t texture, uint64_t ptr, uint64_t pitch, int to_cuda, uint64_t stream);
/* A token (printable bytes) another process of the same user opens with
 * gfxcuda_shared_texture_open_ipc; valid while the texture lives. Free
 * *token. Same as gfxcuda_share_token. */
int gfxcuda_shared_texture_ipc_handle(uint64_t texture, void **token, size_t *len);
/* Opens a texture another process shared (its token, len bytes). */
int gfxcuda_shared_texture_open_ipc(uint64_t shared_device, const void *token, size_t len, uint64_t *texture);
/* The token of a shared buffer, shared texture or ring (exported on first
 * call; withdrawn when the object goes). Free *token. */
int gfxcuda_share_token(uint64_t handle, void **token, size_t *len);
/* How tokens can be opened from other containers (docs/sharing.md,
 * "Containers"). handle 0: the defaults of every export this process makes
 * from now on (and where its openers also look for exporters' sockets:
 * dir); a shared buffer's or texture's handle: its token's, before
 * gfxcuda_share_token first makes it. dir: the filesystem socket's
 * directory (NULL: $GFXCUDA_SHARE_DIR, else /dev/shm/gfxcuda);
 * rendezvous: "abstract", "fs", "pidfd", comma-separated, or "auto", "all"
 * (NULL: auto); allow_uids[n_uids] and allow_gids[n_gids]: the other users
 * and groups that may open (NULL, 0: none; the exporter's uid always may). */
int gfxcuda_share_options(uint64_t handle, const char *dir, const char *rendezvous,
                          const uint32_t *allow_uids, size_t n_uids, const uint32_t *allow_gids, size_t n_gids);
/* Opens a buffer another process shared (its token, len bytes). */
int gfxcuda_shared_buffer_open_ipc(uint64_t shared_device, const void *token, size_t len, uint64_t *buffer);

/* ---- Foreign renderers: file descriptors, semaphores, hand-offs ---- */

/* Imports size bytes of a renderer's exported Vulkan memory (an OPAQUE_FD;
 * alloc_size: the exporter's allocation size, dedicated: a dedicated
 * allocation) as a shared buffer. Takes ownership of fd when it is open
 * (closed on failure). */
int gfxcuda_shared_buffer_import_fd(uint64_t shared_device, int fd, uint64_t size, uint64_t alloc_size, int dedicated, uint64_t *buffer);
/* Imports a renderer's exported 2D image (OPAQUE_FD, dedicated allocation
 * of alloc_size bytes; format a VkFormat, usage its VkImageUsageFlags or 0
 * for gfxcuda's default) as a shared texture. The renderer must leave it in
 * the GENERAL layout. Takes ownership of fd. */
int gfxcuda_shared_texture_import_fd(uint64_t shared_device, int fd, uint32_t format, uint32_t width, uint32_t height,
	uint32_t layers, uint32_t usage, uint64_t alloc_size, uint64_t *texture);
/* gfxcuda_shared_texture_import_fd of an image the renderer made mutable
 * with a format list: view_formats (view_format_count, at most 16) are
 * that list's formats other than format, as the renderer gave them. */
int gfxcuda_shared_texture_import_fd_views(uint64_t shared_device, int fd, uint32_t format, uint32_t width, uint32_t height,
	uint32_t layers, uint32_t usage, uint64_t alloc_size, const uint32_t *view_formats, uint32_t view_format_count, uint64_t *texture);
/* Exports a shared buffer's or texture's memory, or an exportable Vulkan
 * semaphore, as a new OPAQUE_FD the caller owns, with what an importer
 * needs (alloc_size, dedicated, usage; 0 for semaphores). */
int gfxcuda_shared_export_fd(uint64_t handle, int *fd, uint64_t *alloc_size, int *dedicated, uint32_t *usage);
/* Imports a Vulkan semaphore's OPAQUE_FD into CUDA (timeline != 0: a
 * timeline semaphore). Takes ownership of fd. */
int gfxcuda_cuda_semaphore_import_fd(uint64_t shared_device, int fd, int timeline, uint64_t *semaphore);
/* Makes later work on stream wait until the semaphore reaches value. */
int gfxcuda_cuda_semaphore_wait(uint64_t semaphore, uint64_t value, uint64_t stream);
/* Sets the semaphore to value once the work queued on stream has finished. */
int gfxcuda_cuda_semaphore_signal(uint64_t semaphore, uint64_t value, uint64_t stream);
/* A Vulkan timeline semaphore on a compute or shared device (a renderer's
 * side; exportable needs VK_KHR_external_semaphore_fd, which lavapipe lacks). */
int gfxcuda_vk_semaphore_new(uint64_t device, uint64_t initial, int exportable, uint64_t *semaphore);
/* Sets a Vulkan timeline semaphore to value from the host. */
int gfxcuda_vk_semaphore_signal(uint64_t semaphore, uint64_t value);
/* Waits on the host until the semaphore reaches value (timeout_ms < 0: no
 * limit); GFXCUDA_ERR_TIMEOUT when the time runs out. */
int gfxcuda_vk_semaphore_wait(uint64_t semaphore, uint64_t value, int64_t timeout_ms);
/* The current value of a Vulkan timeline semaphore. */
int gfxcuda_vk_semaphore_value(uint64_t semaphore, uint64_t *value);
/* Hands n shared buffers/textures (of one shared device) from Vulkan to
 * CUDA on stream: the stream waits, on the GPU, for the Vulkan work before.
 * Until gfxcuda_to_vulkan (or the hand-off's release), CUDA owns them. */
int gfxcuda_to_cuda(const uint64_t *resources, size_t n, uint64_t stream, uint64_t *handoff);
/* Ends a hand-off: once the work queued on its stream has finished, the
 * resources go back to Vulkan. No host wait. Idempotent. */
int gfxcuda_to_vulkan(uint64_t handoff);
/* Makes later work on stream waiter wait for the work queued on stream
 * signaler so far (an event; no host wait). */
int gfxcuda_cuda_stream_wait(uint64_t shared_device, uint64_t waiter, uint64_t signaler);

/* ---- PyTorch's own tensors in Vulkan (docs/torch-memory.md) ---- */

/* PyTorch's pluggable allocator (torch.cuda.memory.CUDAPluggableAllocator(
 * path, "gfxcuda_torch_alloc", "gfxcuda_torch_free")): a new segment of at
 * least size bytes of the device's pool, allocated with cuMemCreate (POSIX
 * descriptor handles, the device's granularity), mapped read-write for the
 * device; NULL on failure, with the reason as gfxcuda_last_error. The
 * caller's current context is left as it was. stream is unused (a
 * cudaStream_t). */
void *gfxcuda_torch_alloc(ssize_t size, int device, void *stream);
/* Drops the pool's reference to the segment at ptr (an address
 * gfxcuda_torch_alloc returned): it is unmapped now, after the context's
 * queued work (as cudaFree), or when the last shared buffer over it is
 * released. Errors become gfxcuda_last_error. */
void gfxcuda_torch_free(void *ptr, ssize_t size, int device, void *stream);
/* The device's pool: segments not freed, their bytes, and segments freed
 * that shared buffers still hold (all 0 before its first allocation). */
int gfxcuda_torch_pool_stats(int device, uint64_t *segments, uint64_t *bytes, uint64_t *held);
/* A shared buffer over the bytes of a tensor (its description: data,
 * shape, strides in elements, dtype; CUDA device = the shared device's)
 * that lies in the device's pool, with no copy: the segment is imported
 * into Vulkan once, the buffer placed at the tensor's offset (which must
 * meet the device's storage-buffer alignment). The tensor must be dense
 * (contiguous or a permutation of a contiguous tensor). Vulkan work on the
 * buffer waits for the work queued on stream so far (no host wait). The
 * buffer keeps the segment mapped until released. INVALID, with the
 * remedy, for memory outside the pool, a misaligned offset or gaps. */
int gfxcuda_torch_buffer(uint64_t shared_device, const gfxcuda_tensor_t *tensor, uint64_t stream, uint64_t *buffer);
/* Orders the Vulkan work on shared buffers and textures (of one shared
 * device) submitted from now on after the CUDA work queued on stream so
 * far, which wrote them, without a host wait: what gfxcuda_to_vulkan does
 * at the end of a hand-off, for memory CUDA wrote without one. Resources
 * CUDA holds (gfxcuda_to_cuda) are refused. */
int gfxcuda_after_cuda(const uint64_t *resources, size_t n, uint64_t stream);

/* ---- Rings of frames between processes ---- */

/* A producer's ring of slots slot_bytes each, shared with consumers in
 * other processes (its token: gfxcuda_share_token). On a compute device the
 * slots are host-visible Vulkan buffers (write them through
 * gfxcuda_ring_slot's host address); on a shared device, shared buffers
 * CUDA writes. drop_oldest: overwrite the oldest frame no consumer holds
 * instead of waiting for every consumer. */
int gfxcuda_ring_new(uint64_t device, uint64_t slot_bytes, uint32_t slots, int drop_oldest, uint64_t *ring);
/* gfxcuda_ring_new with the options of its token and slots' tokens, as
 * gfxcuda_share_options takes them (NULL, 0: the defaults). */
int gfxcuda_ring_new_with(uint64_t device, uint64_t slot_bytes, uint32_t slots, int drop_oldest,
                          const char *dir, const char *rendezvous, const uint32_t *allow_uids, size_t n_uids,
                          const uint32_t *allow_gids, size_t n_gids, uint64_t *ring);
/* The handle of slot i of a ring or ring reader (a new reference: release
 * it): host memory or a shared buffer, which gfxcuda_dlpack_export takes. */
int gfxcuda_ring_slot(uint64_t ring, uint32_t i, uint64_t *slot);
/* Waits until n consumers are attached (timeout_ms < 0: no limit). */
int gfxcuda_ring_wait_consumers(uint64_t ring, int n, int64_t timeout_ms);
/* A slot the producer may write. */
int gfxcuda_ring_acquire(uint64_t ring, int64_t timeout_ms, uint32_t *slot);
/* Publishes the frame in slot with n bytes of user metadata; for CUDA
 * slots, first waits (host, up to timeout_ms) for the work queued on
 * stream, so the frame is complete. *seq: its sequence number. */
int gfxcuda_ring_publish(uint64_t ring, uint32_t slot, const void *user, size_t n, uint64_t stream, int64_t timeout_ms, uint64_t *seq);
/* Attaches to another process's ring (its token) as a consumer: on a
 * compute device the slots are opened host-visible, on a shared device as
 * shared buffers. */
int gfxcuda_ring_open(uint64_t device, const void *token, size_t len, uint64_t *reader);
/* Releases the frame held, waits for the next one and holds its slot until
 * gfxcuda_ring_release: *slot, *seq, *dropped (frames missed before it),
 * its metadata (up to user_cap bytes into user; *user_len its length).
 * When the producer's frame has a semaphore value, stream (CUDA slots) or
 * the host waits for it. GFXCUDA_ERR_CLOSED after the last frame. */
int gfxcuda_ring_next(uint64_t reader, int64_t timeout_ms, uint64_t stream, uint32_t *slot, uint64_t *seq, uint64_t *dropped,
	void *user, size_t user_cap, size_t *user_len);
/* Gives the held frame's slot back to the producer. */
int gfxcuda_ring_release(uint64_t reader);
/* Attaches to another process's ring of buffer slots (its token) as a
 * consumer whose frames are used on the CUDA GPU device: an ordinal ("1")
 * or a UUID as nvidia-smi -L prints it ("GPU-5c3e…"), which may differ
 * from the producer's GPU (both must be visible to this process). mode 0:
 * each frame is copied to a frame buffer of that GPU (over the peer path
 * between the GPUs where there is one: pulled by this GPU from slots the
 * ring allocated with CUDA, as gfxcuda_ring_new does for slots of at least
 * CUDA's allocation granularity (2 MiB on current GPUs) when rounding up to
 * it wastes at most a quarter, pushed by the producer's GPU from the
 * others; ordered before the work on the stream gfxcuda_ring_next is
 * given, after the producer's semaphore) and the slot goes back to the
 * producer after the copy; mode
 * 1: the frame is read in place through peer access (GFXCUDA_ERR_UNSUPPORTED
 * where the topology cannot). gfxcuda_ring_next's *slot is then the index
 * of the frame buffer (gfxcuda_ring_slot: CUDA memory of that GPU) holding
 * the frame; gfxcuda_ring_release ends its use after the work queued so
 * far on the stream next was given. The consumer stays attached until the
 * last slot handle is released. */
int gfxcuda_ring_open_peer(const char *device, const void *token, size_t len, int mode, uint64_t *reader);

/* *direct = 1 when a reader of gfxcuda_ring_open_peer gets its frames
 * without their passing through host memory: mode 1, both ends on one GPU,
 * or mode 0 where the GPUs have a peer path (NVLink, PCIe peer to peer)
 * and the frames are copied over it; 0 when the driver stages each copy
 * through host memory. */
int gfxcuda_ring_peer_direct(uint64_t reader, int *direct);

/* ---- DLPack ---- */

/* Exports the tensor *desc over the memory of owner (CUDA memory, a
 * shared buffer or a host ring slot; the tensor must lie inside it) as a DLManagedTensorVersioned
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
/* Computes *out of the tensor description *desc, which is checked as
 * gfxcuda_dlpack_export checks it but for memory: no owner, and data is
 * not read (it may be 0). GFXCUDA_ERR_INVALID for a description
 * gfxcuda_dlpack_export refuses as such: more than 32 dimensions, a
 * negative one, elements of bits that are not whole bytes, strides not one
 * per dimension, sizes or strides that reach beyond 2**62 bytes. */
int gfxcuda_tensor_info(const gfxcuda_tensor_t *desc, gfxcuda_tensor_info_t *out);
/* The array interface of the tensor *desc over owner's memory (the
 * checks of gfxcuda_dlpack_export), with the producer's pending work on
 * stream (0: none): __cuda_array_interface__ for CUDA memory,
 * __array_interface__ for host memory (stream must be 0). "strides" appears
 * (in bytes) when desc has strides. Python's properties of both names are
 * these fields. */
int gfxcuda_array_interface(uint64_t owner, const gfxcuda_tensor_t *desc, int64_t stream, gfxcuda_array_interface_t *out);
/* The DLPack code and bits of an element type named as NumPy names it: a
 * type string ("<f4", "|u1") or a name ("float32", "uint8"); signed and
 * unsigned integers and floats of 1, 2, 4 or 8 bytes. */
int gfxcuda_dtype_parse(const char *name, uint8_t *code, uint8_t *bits);
/* A DLPack exporter over owner's memory (what gfxcuda_dlpack_export takes):
 * it holds a reference on owner, so exports through it run in C without
 * entering the Go runtime (a malloc and two atomic operations; the hot
 * path of Python's __dlpack__). *exporter is an opaque pointer, valid until
 * gfxcuda_dlpack_exporter_drop; owner is released once the exporter is
 * dropped and every tensor exported through it deleted. */
int gfxcuda_dlpack_exporter_new(uint64_t owner, void **exporter);
/* gfxcuda_dlpack_export through an exporter: the same checks (the tensor
 * lies inside the memory, on its device; made once per description: the
 * exporter remembers the first one it accepted) and the same managed
 * tensors; the deleter runs exactly once, from any thread. */
int gfxcuda_dlpack_exporter_export(void *exporter, const gfxcuda_tensor_t *desc, int versioned, void **managed);
/* Drops the caller's reference on an exporter (once per exporter). */
int gfxcuda_dlpack_exporter_drop(void *exporter);
/* Python embedding: PyCapsule_IsValid and PyCapsule_GetPointer, so that
 * gfxcuda_dlpack_capsule_destructor can be a capsule's destructor. */
void gfxcuda_set_python_capsule_api(void *is_valid, void *get_pointer);
/* A PyCapsule destructor for "dltensor" / "dltensor_versioned" capsules:
 * calls the tensor's deleter when no consumer renamed the capsule "used_*". */
void gfxcuda_dlpack_capsule_destructor(void *capsule);

/* ---- DLPack 1.3's C exchange API (__dlpack_c_exchange_api__) ---- */

/* The address of gfxcuda's static DLPackExchangeAPI (DLPack 1.3, dlpack.h's
 * layout; header version 1.3, prev_api NULL) in *api, for Python to wrap in
 * a PyCapsule named "dlpack_exchange_api" and set on its array types.
 * to_py_object (a PyObject*, may be NULL; the caller keeps it alive for
 * good) is the callable managed_tensor_to_py_object_no_sync calls with a
 * managed tensor's address as an int. The functions of the table:
 *   managed_tensor_from_py_object_no_sync(obj, &m): what obj.__dlpack__()
 *     returns (a DLManagedTensorVersioned; its deleter releases the memory),
 *     without stream ordering;
 *   dltensor_from_py_object_no_sync(obj, &t): a DLTensor view (no
 *     allocation; shape and strides valid while obj is);
 *   managed_tensor_to_py_object_no_sync(m, &obj): a gfxcuda.CudaBuffer over
 *     another library's CUDA tensor m (taken over);
 *   managed_tensor_allocator(proto, &m, ctx, set_error): a new C-contiguous
 *     CUDA (kDLCUDA) or host (kDLCPU) tensor; no Python, no GIL needed;
 *   current_work_stream(type, id, &s): NULL (gfxcuda has no stream context).
 * obj must carry a binding (attribute _gfxcuda_dlpack: a "gfxcuda.dlpack_binding"
 * capsule, which Python makes with gfxcuda_dlpack_binding_new), else
 * TypeError; errors set a Python exception and return -1 (the allocator
 * calls set_error instead). The *_py_object functions need the GIL.
 * The CPython functions used are looked up in the process (dlsym) on the
 * first call: GFXCUDA_ERR_UNSUPPORTED when they are not there. */
int gfxcuda_dlpack_exchange_api(void *to_py_object, void **api);
/* A binding for the exchange API: the tensor *desc over exporter's memory
 * (checked as gfxcuda_dlpack_exporter_export checks it), holding a
 * reference on exporter. *binding is what a "gfxcuda.dlpack_binding"
 * capsule holds; gfxcuda_dlpack_binding_capsule_destructor frees it. */
int gfxcuda_dlpack_binding_new(void *exporter, const gfxcuda_tensor_t *desc, void **binding);
/* The PyCapsule destructor of "gfxcuda.dlpack_binding" capsules: drops the
 * binding's exporter reference and frees it. */
void gfxcuda_dlpack_binding_capsule_destructor(void *capsule);
/* How many times each function of the exchange API ran, in out[0..n-1]:
 * allocator, managed tensor from object, managed tensor to object, DLTensor
 * from object, current work stream (further entries 0). Tests and
 * benchmarks read it to see which path a consumer took. */
int gfxcuda_dlpack_exchange_calls(uint64_t *out, size_t n);

/* ---- compushady's copy and dispatch rules; compute on a shared device ---- */

/* Copies between a buffer and a texture or between two textures, one array
 * slice (src_slice, dst_slice) at a time, with regions in either texture
 * (2D into a 3D texture's dst_z too). A nonzero region->size must cover the
 * texels copied. GFXCUDA_ERR_RANGE when the copy does not fit. */
int gfxcuda_copy_ex(uint64_t src, uint64_t dst, const gfxcuda_copy_region_t *region);
/* Dispatches with the workgroup counts (3 uint32) read by the GPU from
 * buffer args at offset (a multiple of 4), and waits. */
int gfxcuda_compute_dispatch_indirect(uint64_t compute, uint64_t args, uint64_t offset, const void *push, size_t npush);
/* A compute device (use it as gfxcuda_device_open's) that runs on the Vulkan
 * side of a shared device: its work is ordered after CUDA's hand-backs. */
int gfxcuda_shared_compute_device(uint64_t shared_device, uint64_t *device);
/* A texture or buffer handle of a compute device (from
 * gfxcuda_shared_compute_device) over a shared texture's or buffer's memory:
 * bind it in gfxcuda_compute_new and copy it with gfxcuda_copy_ex; CUDA sees
 * the same memory (hand it over with gfxcuda_to_cuda). */
int gfxcuda_shared_compute_view(uint64_t device, uint64_t resource, uint64_t *view);

/* Converts a shared texture (layer 0) into a tensor of layout in a shared
 * buffer from byte offset (a multiple of 4), with converter 0 (a CUDA
 * kernel) or 1 (a Vulkan compute pass; widths a multiple of 4), and orders
 * stream after the conversion: work queued on it afterwards sees the tensor.
 * The hand-offs are made inside; the host does not wait. GFXCUDA_ERR_INVALID
 * for a layout, source or destination the conversion cannot take, or a
 * resource CUDA holds (gfxcuda_to_cuda). */
int gfxcuda_texture_to_tensor(uint64_t texture, uint64_t buffer, const gfxcuda_tensor_layout_t *layout, uint64_t offset,
                              int converter, uint64_t stream);
/* gfxcuda_texture_to_tensor of an atlas: the texture is cols x rows tiles
 * of equal size, of which the first n (row by row, from the texture's first
 * row and column) are views; the tensor is n views of the tile size, in one
 * dispatch. Converter 1 (Vulkan) only for now: converter 0 is
 * GFXCUDA_ERR_UNSUPPORTED. GFXCUDA_ERR_INVALID for tiles that do not divide
 * the texture, n out of 1..cols*rows, or a buffer too small for n views. */
int gfxcuda_texture_tiles_to_tensor(uint64_t texture, uint64_t buffer, const gfxcuda_tensor_layout_t *layout,
                                    uint64_t offset, int cols, int rows, int n, int converter, uint64_t stream);
/* The shape of the tensor gfxcuda_texture_to_tensor writes of texture
 * under layout (cols, rows and n all 0), or gfxcuda_texture_tiles_to_tensor
 * of cols x rows tiles and n views: shape[0..4) gets (n, C, H, W) when
 * layout is planar, else (n, H, W, C) (n 1 for the whole texture; H and W
 * a view's, a tile's for tiles), *nbytes the tensor's bytes.
 * GFXCUDA_ERR_INVALID for a layout the conversion refuses, or tiles that
 * do not divide the texture or n not from 1 to cols x rows. */
int gfxcuda_texture_tensor_shape(uint64_t texture, const gfxcuda_tensor_layout_t *layout, int cols, int rows, int n,
                                 int64_t *shape, uint64_t *nbytes);

/* ---- The caller's own OpenGL renderer (docs/opengl.md) ----
 * Call these on the thread where the renderer's GL context (EGL; GL 4.5 or
 * ARB_direct_state_access) is current. Nothing of the renderer's changes:
 * no binding, no object. */

/* Adopts the GL context current on the calling thread (the renderer's own;
 * never destroyed by gfxcuda): GFXCUDA_ERROR_INVALID_ARGUMENT, naming
 * what to do, when none is. Release it on the same thread. */
int gfxcuda_gl_adopt(uint64_t *context);
/* An object of the adopted context to copy frames from: kind 1, texture
 * name (2D, rectangle, array (layer 0) or multisampled 2D); 2, renderbuffer
 * name; 3, what attachment (GL_COLOR_ATTACHMENT0 + i) of framebuffer name
 * holds (-1: the framebuffer bound for reading). Size and format are asked
 * from GL: color formats with 8-bit, 16-bit float or 32-bit float channels
 * (RGBA8, RGB8, SRGB8_ALPHA8, RGB10_A2, RGBA16F, RGBA32F, ...). Errors name
 * the object: not an object of that kind, no storage, an unsupported
 * format or target, no context current. */
int gfxcuda_gl_source(uint64_t context, int kind, int64_t name, uint32_t attachment, uint64_t *source);
/* Describes a GL source. */
int gfxcuda_gl_source_info(uint64_t source, gfxcuda_gl_source_info_t *info);
/* Copies the source's current contents (multisampled ones resolved) into
 * a texture of compute device device, made on the first call and reused,
 * and writes a new handle of it to texture: bind it in gfxcuda_compute_new,
 * copy it with gfxcuda_copy_ex. Needs GL_EXT_memory_object_fd (NVIDIA,
 * Mesa); no CUDA involved. Vulkan work that used the texture must have
 * finished before the next call. */
int gfxcuda_gl_compute_view(uint64_t source, uint64_t device, uint64_t *texture);
/* Copies the source's current contents into CUDA memory at dst (dst_size
 * bytes) as a tensor of layout (as gfxcuda_texture_to_tensor: NCHW or
 * NHWC, float32, float16 or uint8, mean/std, flip_y), queued on stream (0:
 * the legacy default stream) of shared device device. A depth source gives
 * float32 depth in [0, 1], one value per pixel (width x height x 4 bytes):
 * its layout must ask for float32 with no mean or std; only flip_y counts.
 * The first call makes the source's CUDA view (a texture in memory GL and
 * CUDA share); later ones copy and convert only (the face's
 * gfxcuda.GraphicsToTensors). Use one stream per source. */
int gfxcuda_gl_to_tensor(uint64_t source, uint64_t device, const gfxcuda_tensor_layout_t *layout, uint64_t dst,
                         uint64_t dst_size, uint64_t stream);
/* gfxcuda_gl_to_tensor of n sources (1 to 65536, distinct, of one context,
 * size and format) into one tensor of n frames at dst (N first: NCHW or
 * NHWC), with one GL-to-CUDA synchronization for them all: for renderers
 * that draw several cameras or environments per step. */
int gfxcuda_gl_to_tensors(const uint64_t *sources, int n, uint64_t device, const gfxcuda_tensor_layout_t *layout,
                          uint64_t dst, uint64_t dst_size, uint64_t stream);
/* gfxcuda_gl_to_tensors converted by GL itself, into memory of shared
 * device device that GL and CUDA share, and complete when this returns
 * (GL's compute shaders write it; the call waits for GL on the host): CUDA
 * runs no work for it, not even a stream's wait, so the first CUDA work
 * that reads it is the caller's. size is the tensor's bytes
 * (gfxcuda_gl_tensor_shape's nbytes). Writes to out a handle of CUDA
 * memory (gfxcuda_resource_info: its device pointer and size; DLPack
 * exports it) from the device's pool: note the streams that read it with
 * gfxcuda_cuda_note_stream; released, it is reused once they and the
 * legacy default stream have passed it. Colour sources only:
 * GFXCUDA_ERR_UNSUPPORTED for depth, for a GL without
 * GL_EXT_memory_object_fd, or when GFXCUDA_GL_WRITE=0 turns it off (then
 * use gfxcuda_gl_to_tensors). */
int gfxcuda_gl_write_tensors(const uint64_t *sources, int n, uint64_t device, const gfxcuda_tensor_layout_t *layout,
                             uint64_t size, uint64_t *out);
/* gfxcuda_gl_write_tensors' tensor as a DLPack managed tensor, for a
 * consumer that takes one (torch.from_dlpack of a "dltensor" capsule): the
 * frames of n sources converted by GL and complete when this returns, with
 * the N dimension when batch is not 0 (n 1 and batch 0: one frame, (C, H,
 * W) or (H, W, C)). stream is the CUDA stream (raw handle; 0, 1 and 2 add
 * nothing) that reads it besides the legacy default one: when the
 * tensor's deleter runs, its memory goes back to the pool and is reused
 * once they have passed it. *managed is a DLManagedTensorVersioned when
 * versioned, else a legacy DLManagedTensor; its deleter may run on any
 * thread, and until it does the tensor holds a reference on device (its
 * memory outlives gfxcuda_release of the device). Errors as
 * gfxcuda_gl_write_tensors'. */
int gfxcuda_gl_write_dlpack(const uint64_t *sources, int n, int batch, uint64_t device,
                            const gfxcuda_tensor_layout_t *layout, uint64_t stream, int versioned, void **managed);
/* gfxcuda_gl_write_dlpack of one source whose frame is an atlas: cols x
 * rows tiles of equal size, row by row from its first row and column (a
 * tiled renderer's views of many environments); GL writes its first n
 * tiles (1 to cols * rows) into one tensor of shape (n, C, H, W) or (n, H,
 * W, C) of a tile's size (flip_y flips each tile), in one dispatch where
 * the layout allows (float32 any; uint8 and float16 RGBA interleaved, or
 * any when a tile's width is a multiple of 4), else tile by tile.
 * GFXCUDA_ERR_INVALID for tiles that do not divide the frame or n out of
 * range; other errors as gfxcuda_gl_write_dlpack's. */
int gfxcuda_gl_write_tiles_dlpack(uint64_t source, uint64_t device, const gfxcuda_tensor_layout_t *layout, int cols,
                                  int rows, int n, uint64_t stream, int versioned, void **managed);
/* The shape of the tensor gfxcuda_gl_to_tensors writes of n sources like
 * source (the same size and kind) under layout: (N, C, H, W) when layout is
 * planar, else (N, H, W, C), in shape[0..4) and *ndim 4; n 0 is one source
 * without the N dimension, as gfxcuda_gl_to_tensor's tensor is read
 * ((C, H, W) or (H, W, C), *ndim 3). C is layout's channels, 1 for a depth
 * source (float32). *nbytes gets the tensor's bytes (the dst_size it needs).
 * GFXCUDA_ERR_INVALID for a layout the conversion refuses or n outside 0 to
 * 65536. */
int gfxcuda_gl_tensor_shape(uint64_t source, const gfxcuda_tensor_layout_t *layout, int n, int64_t *shape, int32_t *ndim,
                            uint64_t *nbytes);
/* Writes the CUDA ordinal of the GPU the adopted context runs on (its GL
 * device UUID matched against CUDA's devices): the device to pass to
 * gfxcuda_gl_to_tensor's shared device. GFXCUDA_ERROR_INVALID_ARGUMENT
 * naming both GPUs when CUDA does not see it; GFXCUDA_ERROR_NO_CUDA without
 * a driver. */
int gfxcuda_gl_cuda_device(uint64_t context, int *ordinal);
/* Writes the index among EGL's devices (eglQueryDevicesEXT's order, what
 * MUJOCO_EGL_DEVICE_ID takes) of CUDA device cuda_ordinal's GPU, matched by
 * UUID (else EGL_NV_device_cuda): where to make a renderer's context so
 * that its frames are on the GPU CUDA uses. */
int gfxcuda_gl_egl_device_index(int cuda_ordinal, int *index);

/* ---- The command line ---- */

/* Runs gfxcuda's command line, the gfxcuda binary's commands (devices,
 * doctor, run, bench, demo, share, open, version), in this process: argv[1]
 * to argv[argc-1] are its arguments ({"gfxcuda", "devices", "--json"});
 * argv[0], the program's name, is not read. It writes to file descriptors
 * 1 and 2 (flush the caller's own buffers of stdout and stderr first) and
 * returns the exit status the binary would exit with: 0 done, 1 failed, 2 a
 * usage error (said on stderr), 130 or 143 for share and open ended by
 * SIGINT or SIGTERM before their --frames; it never exits the process.
 * Python's `gfxcuda` command and `python -m gfxcuda` are this function.
 * It enters the Go runtime and takes over SIGINT and SIGTERM while it runs:
 * both have their default action (they end the process, as they end the
 * binary; an ignored one stays ignored), except that share and open catch
 * them, end at the first with their summary and at a second at once. The
 * caller's handlers (Python's KeyboardInterrupt) are put back as they were
 * before it returns. Calls from several threads run one at a time. */
int gfxcuda_cli_main(int argc, char **argv);
/* Sets the command that runs gfxcuda_cli_main in a new process: some
 * commands run hidden commands of their own in other processes (gfxcuda
 * bench opens shared memory there), as argv[0] with argv[1..argc-1] and
 * then the hidden command's arguments. The default (argc 0) runs this
 * process's executable with the hidden command's arguments alone, which is
 * right for a program whose main passes its arguments to gfxcuda_cli_main.
 * Python sets {sys.executable, "-m", "gfxcuda"}. The strings are copied. */
int gfxcuda_cli_set_command(int argc, char **argv);

#endif /* GFXCUDA_TYPES_ONLY */

#ifdef __cplusplus
}
#endif
#endif
