// blur.comp of README.md's "Compute shaders": a 3×3 box blur of the
// texture at binding 0 (sampled) into the image at binding 1.
#version 450
layout(local_size_x = 16, local_size_y = 16) in;
layout(binding = 0) uniform sampler2D src;
layout(binding = 1, rgba8) uniform writeonly image2D dst;

void main() {
	ivec2 p = ivec2(gl_GlobalInvocationID.xy);
	vec2 size = vec2(imageSize(dst));
	vec4 sum = vec4(0);
	for (int y = -1; y <= 1; y++) {
		for (int x = -1; x <= 1; x++) {
			sum += texture(src, (vec2(p + ivec2(x, y)) + 0.5) / size);
		}
	}
	imageStore(dst, p, sum / 9.0);
}
