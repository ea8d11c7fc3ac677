// CUDA kernels that gfxcuda itself uses. The PTX next to this file is
// generated from it; regenerate with scripts/gen-ptx.sh on a machine with
// nvcc (the GPU machine has it). Only extern "C" kernels, so names are not
// mangled. PTX is JIT-compiled by the driver: no toolkit is needed to run.
#include <stdint.h>

// hash32 is a well-mixed integer hash (lowbias32), used to make test data
// that is reproducible on the host and not compressible by the GPU.
__device__ __host__ static inline uint32_t hash32(uint32_t x) {
	x ^= x >> 16;
	x *= 0x7feb352dU;
	x ^= x >> 15;
	x *= 0x846ca68bU;
	x ^= x >> 16;
	return x;
}

// gfx_fill_hash writes p[i] = hash32(i ^ seed) for i < n.
extern "C" __global__ void gfx_fill_hash(uint32_t *p, uint64_t n, uint32_t seed) {
	for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < n; i += (uint64_t)gridDim.x * blockDim.x)
		p[i] = hash32((uint32_t)i ^ seed);
}

// gfx_xor_u32 does p[i] ^= key for i < n, in place.
extern "C" __global__ void gfx_xor_u32(uint32_t *p, uint64_t n, uint32_t key) {
	for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < n; i += (uint64_t)gridDim.x * blockDim.x)
		p[i] ^= key;
}

// gfx_surf_xor does texel ^= key (per 32-bit word) for every texel of a 2D or
// layered 2D surface, in place. bpp is the bytes per texel (1, 2, 4, 8, 16).
extern "C" __global__ void gfx_surf_xor(cudaSurfaceObject_t s, uint32_t width, uint32_t height, uint32_t layers,
		uint32_t bpp, uint32_t key) {
	uint32_t x = blockIdx.x * blockDim.x + threadIdx.x;
	uint32_t y = blockIdx.y * blockDim.y + threadIdx.y;
	if (x >= width || y >= height) return;
	for (uint32_t l = 0; l < (layers ? layers : 1); l++) {
		switch (bpp) {
		case 1: {
			uint8_t v = layers ? surf2DLayeredread<uint8_t>(s, x, y, l) : surf2Dread<uint8_t>(s, x, y);
			v ^= (uint8_t)key;
			if (layers) surf2DLayeredwrite(v, s, x, y, l); else surf2Dwrite(v, s, x, y);
			break;
		}
		case 2: {
			uint16_t v = layers ? surf2DLayeredread<uint16_t>(s, x * 2, y, l) : surf2Dread<uint16_t>(s, x * 2, y);
			v ^= (uint16_t)key;
			if (layers) surf2DLayeredwrite(v, s, x * 2, y, l); else surf2Dwrite(v, s, x * 2, y);
			break;
		}
		case 4: {
			uint32_t v = layers ? surf2DLayeredread<uint32_t>(s, x * 4, y, l) : surf2Dread<uint32_t>(s, x * 4, y);
			v ^= key;
			if (layers) surf2DLayeredwrite(v, s, x * 4, y, l); else surf2Dwrite(v, s, x * 4, y);
			break;
		}
		case 8: {
			uint2 v = layers ? surf2DLayeredread<uint2>(s, x * 8, y, l) : surf2Dread<uint2>(s, x * 8, y);
			v.x ^= key; v.y ^= key;
			if (layers) surf2DLayeredwrite(v, s, x * 8, y, l); else surf2Dwrite(v, s, x * 8, y);
			break;
		}
		case 16: {
			uint4 v = layers ? surf2DLayeredread<uint4>(s, x * 16, y, l) : surf2Dread<uint4>(s, x * 16, y);
			v.x ^= key; v.y ^= key; v.z ^= key; v.w ^= key;
			if (layers) surf2DLayeredwrite(v, s, x * 16, y, l); else surf2Dwrite(v, s, x * 16, y);
			break;
		}
		}
	}
}

// gfx_rgba8_to_f32 converts an RGBA8 image (rows pitch bytes apart) into a
// float32 tensor, scaled to [0, 1]: NCHW (planar, nchw != 0) or NHWC.
extern "C" __global__ void gfx_rgba8_to_f32(const uint8_t *src, uint64_t pitch, uint32_t width, uint32_t height,
		float *dst, uint32_t nchw) {
	uint32_t x = blockIdx.x * blockDim.x + threadIdx.x;
	uint32_t y = blockIdx.y * blockDim.y + threadIdx.y;
	if (x >= width || y >= height) return;
	uchar4 p = *(const uchar4 *)(src + y * pitch + x * 4);
	const float k = 1.0f / 255.0f;
	uint64_t plane = (uint64_t)width * height, i = (uint64_t)y * width + x;
	if (nchw) {
		dst[i] = p.x * k; dst[plane + i] = p.y * k; dst[2 * plane + i] = p.z * k; dst[3 * plane + i] = p.w * k;
	} else {
		float4 f = make_float4(p.x * k, p.y * k, p.z * k, p.w * k);
		*(float4 *)(dst + 4 * i) = f;
	}
}

// gfx_check_hash counts the words of p that differ from what gfx_fill_hash
// (or a Vulkan shader using the same hash) wrote with seed, adding the count
// to *errors and recording the first bad index in *first (if *first is
// still 0xffffffff). Used to verify every frame in stress tests.
extern "C" __global__ void gfx_check_hash(const uint32_t *p, uint64_t n, uint32_t seed, unsigned long long *errors,
		uint32_t *first) {
	unsigned long long bad = 0;
	for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < n; i += (uint64_t)gridDim.x * blockDim.x) {
		if (p[i] != hash32((uint32_t)i ^ seed)) {
			bad++;
			atomicCAS(first, 0xffffffffu, (uint32_t)i);
		}
	}
	if (bad) atomicAdd(errors, bad);
}

// gfx_surf_linear copies one layer of a 2D (or layered 2D) surface to
// pitched linear memory (to_surface == 0) or back (to_surface != 0), one
// texel per thread: faster than the copy engine's array copies, which
// untile at a fraction of memory bandwidth. bpp is 1, 2, 4, 8 or 16.
extern "C" __global__ void gfx_surf_linear(cudaSurfaceObject_t s, uint32_t width, uint32_t height, uint32_t layer,
		uint32_t layered, uint32_t bpp, uint8_t *lin, uint64_t pitch, uint32_t to_surface) {
	uint32_t x = blockIdx.x * blockDim.x + threadIdx.x;
	uint32_t y = blockIdx.y * blockDim.y + threadIdx.y;
	if (x >= width || y >= height) return;
	uint8_t *p = lin + y * pitch + (uint64_t)x * bpp;
#define GFX_COPY(T) do { \
		if (to_surface) { \
			T v = *(const T *)p; \
			if (layered) surf2DLayeredwrite(v, s, x * bpp, y, layer); else surf2Dwrite(v, s, x * bpp, y); \
		} else { \
			*(T *)p = layered ? surf2DLayeredread<T>(s, x * bpp, y, layer) : surf2Dread<T>(s, x * bpp, y); \
		} \
	} while (0)
	switch (bpp) {
	case 1: GFX_COPY(uint8_t); break;
	case 2: GFX_COPY(uint16_t); break;
	case 4: GFX_COPY(uint32_t); break;
	case 8: GFX_COPY(uint2); break;
	case 16: GFX_COPY(uint4); break;
	}
#undef GFX_COPY
}
