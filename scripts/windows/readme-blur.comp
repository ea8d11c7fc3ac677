#version 450
// README's `gfxcuda run blur.comp --threads 256,256 --srv 0:in.png --sampler 0:linear:clamp
// --uav 1:tex2d:rgba8_unorm:256x256 --out 1=out.png --batch 100`: a 3x3 box blur.
layout(local_size_x = 16, local_size_y = 16) in;
layout(binding = 0) uniform sampler2D src;
layout(binding = 1, rgba8) uniform writeonly image2D dst;
void main() {
	ivec2 p = ivec2(gl_GlobalInvocationID.xy);
	vec2 size = vec2(textureSize(src, 0));
	vec4 s = vec4(0);
	for (int dy = -1; dy <= 1; dy++)
		for (int dx = -1; dx <= 1; dx++)
			s += texture(src, (vec2(p) + 0.5 + vec2(dx, dy)) / size);
	imageStore(dst, p, s / 9.0);
}
