// Package kernels holds the CUDA kernels gfxcuda uses, as PTX generated from
// kernels.cu by scripts/gen-ptx.sh. The driver JIT-compiles PTX, so no CUDA
// toolkit is needed to use them. Load PTX with cuda.Context.LoadModule
// and look a kernel up by its name below: the face loads them for its
// Devices (texture copies, the CUDA converter), bench/testpattern's
// Checker for its frame checks. The package imports nothing.
package kernels

import _ "embed"

// PTX is the generated PTX text for every kernel in kernels.cu.
//
//go:embed kernels.ptx
var PTX []byte

// Source is kernels.cu, the CUDA C the PTX is generated from.
//
//go:embed kernels.cu
var Source []byte

// The PTX directives kernels.ptx carries (scripts/gen-ptx.sh writes them).
// PTX ISA 7.0 is read by every driver from CUDA 11.0 on (a CUDA 12.0 driver
// reads up to 8.0), and sm_50 PTX is JIT-compiled for every GPU from Maxwell
// on; the kernels need nothing newer.
const (
	PTXVersion = "7.0"
	PTXTarget  = "sm_50"
)

// Kernel names (extern "C" in kernels.cu).
const (
	FillHash   = "gfx_fill_hash"    // (uint32 *p, uint64 n, uint32 seed): p[i] = Hash32(i ^ seed)
	XorU32     = "gfx_xor_u32"      // (uint32 *p, uint64 n, uint32 key): p[i] ^= key
	SurfXor    = "gfx_surf_xor"     // (surface, width, height, layers, bpp, key): texel words ^= key
	RGBA8ToF32 = "gfx_rgba8_to_f32" // (src, pitch, width, height, float *dst, nchw)
	CheckHash  = "gfx_check_hash"   // (uint32 *p, uint64 n, uint32 seed, uint64 *errors, uint32 *first)
	SurfLinear = "gfx_surf_linear"  // (surface, width, height, layer, layered, bpp, lin, pitch, toSurface)
)

// Hash32 is the host twin of the kernels' hash32 (lowbias32), for checking
// what FillHash wrote.
func Hash32(x uint32) uint32 {
	x ^= x >> 16
	x *= 0x7feb352d
	x ^= x >> 15
	x *= 0x846ca68b
	x ^= x >> 16
	return x
}
