// The tensor pass: gen.go compiles it into shaders_gen.go (go generate ./tensorpass).
// Each invocation converts 4 consecutive texels of a row (so that 8- and
// 16-bit outputs are written as whole 32-bit words).
// DTYPE: 0 float32, 1 float16, 2 uint8; PLANAR: 1 NCHW, 0 NHWC; CH: channels (3u or 4u).
#version 450
layout(local_size_x = 64, local_size_y = 4) in;
layout(set = 0, binding = 0, rgba8) uniform readonly image2D src;
layout(std430, set = 0, binding = 1) writeonly buffer Dst { uint words[]; };
layout(push_constant) uniform PC { uint width; uint height; } pc;

#if DTYPE == 0
#define PUT(i, v) words[i] = floatBitsToUint(v)
#endif

void main() {
	uint x0 = gl_GlobalInvocationID.x * 4u;
	uint y = gl_GlobalInvocationID.y;
	if (x0 >= pc.width || y >= pc.height) return;
	vec4 t[4];
	for (uint k = 0u; k < 4u; k++)
		t[k] = x0 + k < pc.width ? imageLoad(src, ivec2(x0 + k, y)) : vec4(0);
	uint pix = y * pc.width + x0;
	uint plane = pc.width * pc.height;
	uint n = min(4u, pc.width - x0);
#if DTYPE == 0
	for (uint k = 0u; k < n; k++)
		for (uint c = 0u; c < CH; c++)
#if PLANAR
			PUT(c * plane + pix + k, t[k][c]);
#else
			PUT((pix + k) * CH + c, t[k][c]);
#endif
#elif DTYPE == 1
#if PLANAR
	// Widths are a multiple of 4 here, so 4 texels are 2 words per plane.
	for (uint c = 0u; c < CH; c++) {
		words[(c * plane + pix) / 2u] = packHalf2x16(vec2(t[0][c], t[1][c]));
		words[(c * plane + pix) / 2u + 1u] = packHalf2x16(vec2(t[2][c], t[3][c]));
	}
#else
	// 4 texels × CH halves = 2·CH words.
	float v[16];
	for (uint k = 0u; k < 4u; k++)
		for (uint c = 0u; c < CH; c++)
			v[k * CH + c] = t[k][c];
	for (uint w = 0u; w < 2u * CH; w++)
		words[(pix * CH) / 2u + w] = packHalf2x16(vec2(v[2u * w], v[2u * w + 1u]));
#endif
#else
#if PLANAR
	for (uint c = 0u; c < CH; c++)
		words[(c * plane + pix) / 4u] = packUnorm4x8(vec4(t[0][c], t[1][c], t[2][c], t[3][c]));
#else
	float v[16];
	for (uint k = 0u; k < 4u; k++)
		for (uint c = 0u; c < CH; c++)
			v[k * CH + c] = t[k][c];
	for (uint w = 0u; w < CH; w++)
		words[(pix * CH) / 4u + w] = packUnorm4x8(vec4(v[4u * w], v[4u * w + 1u], v[4u * w + 2u], v[4u * w + 3u]));
#endif
#endif
}
