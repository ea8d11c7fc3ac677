#version 450
layout(local_size_x = 16, local_size_y = 16) in;
layout(set = 0, binding = 0, rgba8) uniform writeonly image2D img;
layout(push_constant) uniform PC { uint seed; uint width; uint height; } pc;
uint hash32(uint x) {
	x ^= x >> 16; x *= 0x7feb352du; x ^= x >> 15; x *= 0x846ca68bu; x ^= x >> 16;
	return x;
}
void main() {
	uvec2 p = gl_GlobalInvocationID.xy;
	if (p.x >= pc.width || p.y >= pc.height) return;
	imageStore(img, ivec2(p), unpackUnorm4x8(hash32((p.y * pc.width + p.x) ^ pc.seed)));
}
