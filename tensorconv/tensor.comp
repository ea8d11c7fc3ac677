#version 450
#extension GL_EXT_samplerless_texture_functions : require
#extension GL_EXT_control_flow_attributes : require
#ifndef VIEWS
#define VIEWS 8
#endif
// VIEWS -1: tiles of an atlas held in a buffer (RGBA8 texels, row after
// row, tilecols * width texels a row), read as words: no texture unit.
// VIEWS -2: the same for uint8 tensors with no normalization (the texels'
// bytes are the tensor's elements), tiles a multiple of 16 texels wide and
// the tensor at a multiple of 16 bytes: 16 texels an invocation, read and
// written as 16-byte vectors and rearranged as integers.
// VIEWS -3: tiles of an atlas image of UNORM8 texels (RGBA8 or BGRA8) into
// uint8 tensors with no normalization, tiles a multiple of 16 texels wide
// and the tensor at a multiple of 16 bytes: 16 texels an invocation,
// each texel's bytes its fetched value times 255, written as 16-byte
// vectors: fewer instructions per texel than the general pass, which runs
// beside a renderer's dispatch at less of the renderer's cost.
// VIEWS -4: the same from an RGBA8 atlas image viewed as R32_UINT (made
// with it among its view formats): each fetch returns a texel's bytes as
// one word, a quarter of what a UNORM8 fetch returns (four floats), and
// the words are rearranged as the buffer atlas's are.
// VIEWS -5: the same with textureGather (a sampler at binding 2), four
// texels' words a fetch, each invocation taking two rows (tiles of an
// even height).
#if VIEWS == -4 || VIEWS == -5
#if VIEWS == -5
#define GATHER 1
#endif
#undef VIEWS
#define VIEWS 0
#define ATLAS_BUFFER 0
#define ATLAS_WORDS 1
#define BYTES16 1
#elif VIEWS == -2
#undef VIEWS
#define VIEWS 0
#define ATLAS_BUFFER 1
#define BYTES16 1
#elif VIEWS == -3
#undef VIEWS
#define VIEWS 0
#define ATLAS_BUFFER 0
#define BYTES16 1
#elif VIEWS == -1
#undef VIEWS
#define VIEWS 0
#define ATLAS_BUFFER 1
#define BYTES16 0
#else
#define ATLAS_BUFFER 0
#define BYTES16 0
#endif
#ifndef ATLAS_WORDS
#define ATLAS_WORDS 0
#endif
#ifndef GATHER
#define GATHER 0
#endif
// TEXEL_WORDS: the texels come as words (RGBA8, red in the low byte).
#define TEXEL_WORDS (ATLAS_BUFFER || ATLAS_WORDS)
#if BYTES16
#define STEP 16u
#else
#define STEP 4u
#endif
// BAND: rows an invocation quad converts side by side. From an image (the
// texture unit), the four invocations of a quad take the same 4 texels of
// 4 consecutive rows, so that each fetch of a quad reads a 1×4 column: on
// the H200 the texture unit read a 64×64 × 4096 atlas at 3.1 TB/s so, and
// at 0.94 TB/s with a quad's 4 texels in one row, 4 apart. From a buffer,
// one row (plain loads coalesce along the row).
#if VIEWS == 0 && ATLAS_BUFFER == 0
#define BAND 4u
#else
#define BAND 1u
#endif
#if VIEWS == 0
// Tiles: a one-dimensional grid that may be smaller than the work (the
// dispatch caps its workgroups), each invocation converting 4 texels of a
// row, then stepping through the views' rows with no division, so that
// the conversion need not fill the GPU and a renderer's dispatch recorded
// after it runs beside it.
layout(local_size_x = 256) in;
#else
layout(local_size_x = 64, local_size_y = 4) in;
#endif
// VIEWS 0: tiles. One image, an atlas of tilecols columns of width×height
// tiles; view v is tile (v % tilecols, v / tilecols), counted from the
// image's first row and column.
#if BYTES16 && ATLAS_BUFFER
layout(std430, set = 0, binding = 0) readonly buffer Atlas { uvec4 texels4[]; };
#elif ATLAS_BUFFER
layout(std430, set = 0, binding = 0) readonly buffer Atlas { uint texels[]; };
#elif ATLAS_WORDS
layout(set = 0, binding = 0) uniform utexture2D src[1];
#if GATHER
layout(set = 0, binding = 2) uniform sampler smp;
#endif
#elif VIEWS == 0
layout(set = 0, binding = 0) uniform texture2D src[1];
#else
layout(set = 0, binding = 0) uniform texture2D src[VIEWS];
#endif
#if BYTES16
layout(std430, set = 0, binding = 1) writeonly buffer Dst { uvec4 words4[]; };
#else
layout(std430, set = 0, binding = 1) writeonly buffer Dst { uint words[]; };
#endif
layout(push_constant) uniform PC { uint width; uint height; uint base; uint flip; vec4 mean; vec4 scale; uint tilecols; uint nviews; } pc;

#if BYTES16
// planes4 returns the red, green, blue and alpha bytes of four RGBA8
// texels (red first), each channel's four bytes as one word.
uvec4 planes4(uvec4 t) {
	uvec4 r = t & 0xffu, g = (t >> 8) & 0xffu, b = (t >> 16) & 0xffu, a = t >> 24;
	return uvec4(r.x | r.y << 8 | r.z << 16 | r.w << 24, g.x | g.y << 8 | g.z << 16 | g.w << 24,
		b.x | b.y << 8 | b.z << 16 | b.w << 24, a.x | a.y << 8 | a.z << 16 | a.w << 24);
}

// rgb3 returns four RGBA8 texels' red, green and blue bytes, texel after
// texel, as three words.
uvec3 rgb3(uvec4 t) {
	return uvec3((t.x & 0xffffffu) | t.y << 24, (t.y >> 8 & 0xffffu) | t.z << 16, (t.z >> 16 & 0xffu) | t.w << 8);
}

// convert16 writes the tensor elements of texels x0 to x0+15 of row y of
// view v, whose first texel is o in the atlas: uint8 elements equal to
// the texels' bytes (16 texels: 4 vectors read, CH vectors written).
#if GATHER
// convert16w is convert16's second half for the gather pass: the texels'
// words (red in the low byte) come in t0 to t3, four each.
void convert16w(uvec4 t0, uvec4 t1, uvec4 t2, uvec4 t3, uint x0, uint y, uint v) {
	uint plane = pc.width * pc.height;
#else
void convert16(uint x0, uint y, uint v, ivec2 o) {
	uint sy = pc.flip != 0u ? pc.height - 1u - y : y;
	uint plane = pc.width * pc.height;
#if ATLAS_BUFFER
	uint src = ((uint(o.y) + sy) * pc.tilecols * pc.width + uint(o.x) + x0) / 4u;
	uvec4 t0 = texels4[src], t1 = texels4[src + 1u], t2 = texels4[src + 2u], t3 = texels4[src + 3u];
#elif ATLAS_WORDS
	ivec2 q = o + ivec2(int(x0), int(sy));
	uvec4 t0, t1, t2, t3;
	[[unroll]] for (int k = 0; k < 4; k++) {
		t0[k] = texelFetch(src[0], q + ivec2(k, 0), 0).x;
		t1[k] = texelFetch(src[0], q + ivec2(4 + k, 0), 0).x;
		t2[k] = texelFetch(src[0], q + ivec2(8 + k, 0), 0).x;
		t3[k] = texelFetch(src[0], q + ivec2(12 + k, 0), 0).x;
	}
#else
	// The 16 texels' bytes: a UNORM8 texel's value is its byte / 255, and
	// value × 255 + 2^23 is a float whose low mantissa bits are that byte
	// (rounded to nearest; bits 8 to 23 zero): no float-to-integer
	// conversion, which issues at a quarter of the rate of a multiply-add.
	uvec4 e[16];
	[[unroll]] for (uint k = 0u; k < 16u; k++)
		e[k] = floatBitsToUint(texelFetch(src[0], o + ivec2(x0 + k, sy), 0) * 255.0 + 8388608.0);
#endif
#endif
#if PLANAR && !TEXEL_WORDS
	uint pix = (pc.base + v * plane * CH + y * pc.width + x0) / 16u; // channel 0's vector
	[[unroll]] for (uint c = 0u; c < CH; c++) {
		uvec4 w;
		[[unroll]] for (uint j = 0u; j < 4u; j++)
			w[j] = (e[4u * j][c] & 0xffu) | e[4u * j + 1u][c] << 8 | e[4u * j + 2u][c] << 16 | e[4u * j + 3u][c] << 24;
		words4[pix + c * (plane / 16u)] = w;
	}
#elif !TEXEL_WORDS
	// Interleaved: CH bytes a texel, texel after texel: CH vectors.
	uint pixi = (pc.base + (v * plane + y * pc.width + x0) * CH) / 16u;
	[[unroll]] for (uint w = 0u; w < CH; w++) {
		uvec4 q;
		[[unroll]] for (uint j = 0u; j < 4u; j++) {
			uint b = (4u * w + j) * 4u; // the word's first byte
			q[j] = (e[b / CH][b % CH] & 0xffu) | e[(b + 1u) / CH][(b + 1u) % CH] << 8 |
				e[(b + 2u) / CH][(b + 2u) % CH] << 16 | e[(b + 3u) / CH][(b + 3u) % CH] << 24;
		}
		words4[pixi + w] = q;
	}
#elif PLANAR
	uint pix = (pc.base + v * plane * CH + y * pc.width + x0) / 16u; // channel 0's vector
	uvec4 a = planes4(t0), b = planes4(t1), c = planes4(t2), d = planes4(t3);
	uint pv = plane / 16u;
	words4[pix] = uvec4(a.x, b.x, c.x, d.x);
	words4[pix + pv] = uvec4(a.y, b.y, c.y, d.y);
	words4[pix + 2u * pv] = uvec4(a.z, b.z, c.z, d.z);
	if (CH == 4u)
		words4[pix + 3u * pv] = uvec4(a.w, b.w, c.w, d.w);
#else
	uint pixi = (pc.base + (v * plane + y * pc.width + x0) * CH) / 16u;
	if (CH == 4u) {
		words4[pixi] = t0;
		words4[pixi + 1u] = t1;
		words4[pixi + 2u] = t2;
		words4[pixi + 3u] = t3;
	} else {
		uvec3 a = rgb3(t0), b = rgb3(t1), c = rgb3(t2), d = rgb3(t3);
		words4[pixi] = uvec4(a, b.x);
		words4[pixi + 1u] = uvec4(b.yz, c.xy);
		words4[pixi + 2u] = uvec4(c.z, d);
	}
#endif
}

#if GATHER
// convert16x2 is convert16 of rows y and y + 1 (y even, the tile's height
// even): eight gathers of 2×2 texels' words read the two atlas rows that
// those tile rows are (flipped or not).
void convert16x2(uint x0, uint y, uint v, ivec2 o) {
	uint lo = pc.flip != 0u ? pc.height - 2u - y : y; // the upper of the two rows, in the tile
	vec2 inv = 1.0 / vec2(textureSize(src[0], 0));
	ivec2 q = o + ivec2(int(x0), int(lo));
	uvec4 a[4], b[4]; // rows lo and lo + 1: texels 4j to 4j+3 in a[j], b[j]
	[[unroll]] for (int k = 0; k < 8; k++) {
		// The footprint of coordinate (X + 1, lo + 1) is texels X and
		// X + 1 of rows lo and lo + 1: w (X, lo), z (X + 1, lo),
		// x (X, lo + 1), y (X + 1, lo + 1).
		uvec4 g = textureGather(usampler2D(src[0], smp), vec2(q + ivec2(2 * k + 1, 1)) * inv, 0);
		a[k / 2][(k % 2) * 2] = g.w;
		a[k / 2][(k % 2) * 2 + 1] = g.z;
		b[k / 2][(k % 2) * 2] = g.x;
		b[k / 2][(k % 2) * 2 + 1] = g.y;
	}
	uint ya = pc.flip != 0u ? y + 1u : y; // the tile row of row lo
	convert16w(a[0], a[1], a[2], a[3], x0, ya, v);
	convert16w(b[0], b[1], b[2], b[3], x0, ya ^ 1u, v);
}
#endif
#else
// fetch returns texel p of view v; o is the view's first texel in the
// atlas (tiles) or 0.
vec4 fetch(uint v, ivec2 p, ivec2 o) {
#if ATLAS_BUFFER
	ivec2 q = p + o;
	return unpackUnorm4x8(texels[uint(q.y) * pc.tilecols * pc.width + uint(q.x)]);
#elif VIEWS == 0
	return texelFetch(src[0], p + o, 0);
#elif VIEWS == 1
	return texelFetch(src[0], p, 0);
#else
	switch (v) {
	case 0u: return texelFetch(src[0], p, 0);
	case 1u: return texelFetch(src[1], p, 0);
	case 2u: return texelFetch(src[2], p, 0);
	case 3u: return texelFetch(src[3], p, 0);
	case 4u: return texelFetch(src[4], p, 0);
	case 5u: return texelFetch(src[5], p, 0);
	case 6u: return texelFetch(src[6], p, 0);
	default: return texelFetch(src[7], p, 0);
	}
#endif
}

// convert writes the tensor elements of texels x0 to x0+3 of row y of
// view v, whose first texel is o in the atlas (tiles) or 0.
void convert(uint x0, uint y, uint v, ivec2 o) {
	int sy = int(pc.flip != 0u ? pc.height - 1u - y : y);
	vec4 t[4];
	for (uint k = 0u; k < 4u; k++)
		t[k] = x0 + k < pc.width ? (fetch(v, ivec2(x0 + k, sy), o) - pc.mean) * pc.scale : vec4(0);
	uint plane = pc.width * pc.height;
	uint pix = pc.base + v * plane * CH + y * pc.width + x0; // planar: element of channel 0
	uint pixi = pc.base + v * plane * CH + (y * pc.width + x0) * CH; // interleaved
	uint n = min(4u, pc.width - x0);
#if DTYPE == 0
	for (uint k = 0u; k < n; k++)
		for (uint c = 0u; c < CH; c++)
#if PLANAR
			words[pix + c * plane + k] = floatBitsToUint(t[k][c]);
#else
			words[pixi + k * CH + c] = floatBitsToUint(t[k][c]);
#endif
#elif DTYPE == 1
#if PLANAR
	// Widths are a multiple of 4 here, so 4 texels are 2 words per plane.
	for (uint c = 0u; c < CH; c++) {
		words[(pix + c * plane) / 2u] = packHalf2x16(vec2(t[0][c], t[1][c]));
		words[(pix + c * plane) / 2u + 1u] = packHalf2x16(vec2(t[2][c], t[3][c]));
	}
#else
	// 4 texels × CH halves = 2·CH words.
	float f[16];
	for (uint k = 0u; k < 4u; k++)
		for (uint c = 0u; c < CH; c++)
			f[k * CH + c] = t[k][c];
	for (uint w = 0u; w < 2u * CH; w++)
		words[pixi / 2u + w] = packHalf2x16(vec2(f[2u * w], f[2u * w + 1u]));
#endif
#else
#if PLANAR
	for (uint c = 0u; c < CH; c++)
		words[(pix + c * plane) / 4u] = packUnorm4x8(vec4(t[0][c], t[1][c], t[2][c], t[3][c]));
#else
	float f[16];
	for (uint k = 0u; k < 4u; k++)
		for (uint c = 0u; c < CH; c++)
			f[k * CH + c] = t[k][c];
	for (uint w = 0u; w < CH; w++)
		words[pixi / 4u + w] = packUnorm4x8(vec4(f[4u * w], f[4u * w + 1u], f[4u * w + 2u], f[4u * w + 3u]));
#endif
#endif
}

#endif

void main() {
#if VIEWS == 0
	// Unit i (BAND invocations, one row each, two with GATHER) converts
	// texels STEP·q.. of band b (rows BAND·b.., 2·BAND·b..) of view v, for
	// i, then i + stride, ...:
	// (q, b, v) and the view's tile (tx, ty) step by the stride's own
	// decomposition, with carries instead of divisions.
	uint j = gl_GlobalInvocationID.x % BAND;
	uint perRow = (pc.width + STEP - 1u) / STEP;
#if GATHER
	uint bands = (pc.height + 2u * BAND - 1u) / (2u * BAND); // two rows an invocation
#else
	uint bands = (pc.height + BAND - 1u) / BAND;
#endif
	uint perView = perRow * bands;
	uint total = perView * pc.nviews;
	uint i = gl_GlobalInvocationID.x / BAND;
	if (i >= total)
		return;
	uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x / BAND;
	uint v = i / perView, r = i - v * perView;
	uint b = r / perRow, q = r - b * perRow;
	uint tx = v % pc.tilecols, ty = v / pc.tilecols;
	uint sv = stride / perView, sr = stride - sv * perView;
	uint sb = sr / perRow, sq = sr - sb * perRow;
	uint stx = sv % pc.tilecols, sty = sv / pc.tilecols;
	for (;;) {
#if GATHER
		uint y = 2u * (b * BAND + j);
#else
		uint y = b * BAND + j;
#endif
		if (BAND == 1u || y < pc.height) {
#if GATHER
			convert16x2(q * STEP, y, v, ivec2(int(tx * pc.width), int(ty * pc.height)));
#elif BYTES16
			convert16(q * STEP, y, v, ivec2(int(tx * pc.width), int(ty * pc.height)));
#else
			convert(q * STEP, y, v, ivec2(int(tx * pc.width), int(ty * pc.height)));
#endif
		}
		if (total - i <= stride)
			break;
		i += stride;
		q += sq;
		uint c = q >= perRow ? 1u : 0u;
		q -= c * perRow;
		b += sb + c;
		c = b >= bands ? 1u : 0u;
		b -= c * bands;
		v += sv + c;
		tx += stx + c;
		ty += sty;
		c = tx >= pc.tilecols ? 1u : 0u;
		tx -= c * pc.tilecols;
		ty += c;
	}
#else
	// A workgroup converts 64 × 4 texels of 4 rows; the four invocations
	// of a quad take the same 4 texels of the 4 rows (see BAND).
	uint li = gl_LocalInvocationIndex;
	uint x0 = (gl_WorkGroupID.x * 64u + (li >> 2)) * 4u;
	uint y = gl_WorkGroupID.y * 4u + (li & 3u);
	if (x0 >= pc.width || y >= pc.height) return;
	convert(x0, y, gl_WorkGroupID.z, ivec2(0));
#endif
}
