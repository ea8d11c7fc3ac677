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
// to *errors and keeping the smallest bad index in *first (which starts at
// 0xffffffff: none). Used to verify every frame in stress tests.
extern "C" __global__ void gfx_check_hash(const uint32_t *p, uint64_t n, uint32_t seed, unsigned long long *errors,
		uint32_t *first) {
	unsigned long long bad = 0;
	for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < n; i += (uint64_t)gridDim.x * blockDim.x) {
		if (p[i] != hash32((uint32_t)i ^ seed)) {
			bad++;
			atomicMin(first, (uint32_t)i);
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

#include <cuda_fp16.h>

// gfx_tex_to_tensor converts views of RGBA textures into one tensor in a
// single launch (used by package tensorpass/cudaconv; the Go reference is
// package tensorpass/tensor). View z = blockIdx.z reads surface s<z> (layer
// l<z> when bit z of layered is set); one thread per texel. fmt: 0 RGBA8,
// 1 BGRA8, 2 RGBA16F, 3 RGBA32F (UNORM read as [0, 1], red first).
// Each channel c < channels becomes (v - m<c>) * k<c> and is stored as
// dtype 0 float32, 1 float16 (round to nearest even), 2 uint8 (clamped to
// [0, 1], times 255, rounded), NCHW (planar) or NHWC, at element
// base + z·width·height·channels of dst; flip writes row y as row height-1-y.
extern "C" __global__ void gfx_tex_to_tensor(
		cudaSurfaceObject_t s0, cudaSurfaceObject_t s1, cudaSurfaceObject_t s2, cudaSurfaceObject_t s3,
		cudaSurfaceObject_t s4, cudaSurfaceObject_t s5, cudaSurfaceObject_t s6, cudaSurfaceObject_t s7,
		uint32_t l0, uint32_t l1, uint32_t l2, uint32_t l3, uint32_t l4, uint32_t l5, uint32_t l6, uint32_t l7,
		uint32_t layered, uint32_t width, uint32_t height, uint32_t fmt,
		void *dst, uint64_t base, uint32_t dtype, uint32_t planar, uint32_t channels, uint32_t flip,
		float m0, float m1, float m2, float m3, float k0, float k1, float k2, float k3) {
	uint32_t x = blockIdx.x * blockDim.x + threadIdx.x;
	uint32_t y = blockIdx.y * blockDim.y + threadIdx.y;
	uint32_t z = blockIdx.z;
	if (x >= width || y >= height || z >= 8) return;
	const cudaSurfaceObject_t ss[8] = {s0, s1, s2, s3, s4, s5, s6, s7};
	const uint32_t ls[8] = {l0, l1, l2, l3, l4, l5, l6, l7};
	cudaSurfaceObject_t s = ss[z];
	uint32_t layer = ls[z];
	bool lay = (layered >> z) & 1u;
	float v[4];
	switch (fmt) {
	case 0:
	case 1: {
		uchar4 p = lay ? surf2DLayeredread<uchar4>(s, x * 4, y, layer) : surf2Dread<uchar4>(s, x * 4, y);
		v[0] = p.x / 255.0f; v[1] = p.y / 255.0f; v[2] = p.z / 255.0f; v[3] = p.w / 255.0f;
		if (fmt == 1) { float t = v[0]; v[0] = v[2]; v[2] = t; }
		break;
	}
	case 2: {
		ushort4 p = lay ? surf2DLayeredread<ushort4>(s, x * 8, y, layer) : surf2Dread<ushort4>(s, x * 8, y);
		v[0] = __half2float(__ushort_as_half(p.x)); v[1] = __half2float(__ushort_as_half(p.y));
		v[2] = __half2float(__ushort_as_half(p.z)); v[3] = __half2float(__ushort_as_half(p.w));
		break;
	}
	default: {
		float4 p = lay ? surf2DLayeredread<float4>(s, x * 16, y, layer) : surf2Dread<float4>(s, x * 16, y);
		v[0] = p.x; v[1] = p.y; v[2] = p.z; v[3] = p.w;
		break;
	}
	}
	const float m[4] = {m0, m1, m2, m3};
	const float k[4] = {k0, k1, k2, k3};
	uint64_t plane = (uint64_t)width * height;
	uint64_t oy = flip ? height - 1 - y : y;
	uint64_t pix = oy * width + x;
	uint64_t vb = base + (uint64_t)z * plane * channels;
#pragma unroll
	for (uint32_t c = 0; c < 4; c++) {
		if (c >= channels) break;
		uint64_t i = planar ? vb + c * plane + pix : vb + pix * channels + c;
		float r = __fmul_rn(__fsub_rn(v[c], m[c]), k[c]);
		switch (dtype) {
		case 0: ((float *)dst)[i] = r; break;
		case 1: ((__half *)dst)[i] = __float2half_rn(r); break;
		default: ((uint8_t *)dst)[i] = (uint8_t)__float2uint_rn(__saturatef(r) * 255.0f); break;
		}
	}
}
