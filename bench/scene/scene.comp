#version 450
layout(local_size_x = 8, local_size_y = 8) in;
#ifdef ATLAS_BUFFER
// The atlas in a buffer: RGBA8 texels, row after row, tilecols * width a row.
layout(std430, set = 0, binding = 0) writeonly buffer Atlas { uint texels[]; };
#else
layout(set = 0, binding = 0, rgba8) uniform writeonly image2D img;
#endif
layout(push_constant) uniform PC { float time; float camera; float timestep; float camstep; uint width; uint height; uint tilecols; uint envbase; } pc;

// The environment being drawn: its scene time and camera angle (main sets them).
float T;
float CAM;

const float TAU = 6.2831853;

float hitSphere(vec3 ro, vec3 rd, vec4 s) {
	vec3 oc = ro - s.xyz;
	float b = dot(oc, rd);
	float c = dot(oc, oc) - s.w * s.w;
	float h = b * b - c;
	if (h < 0.0) return -1.0;
	float t = -b - sqrt(h);
	return t > 1e-3 ? t : -1.0;
}

vec4 sphere(int i) {
	float a = TAU * (T / 4.0 + float(i) / 3.0);
	float r = 1.7;
	float bounce = abs(sin(TAU * T / 2.0 + float(i) * 2.1));
	float rad = 0.55 + 0.15 * float(i);
	return vec4(r * cos(a), rad + 0.9 * bounce, r * sin(a), rad);
}

vec3 sphereColor(int i) {
	return i == 0 ? vec3(0.95, 0.25, 0.2) : i == 1 ? vec3(0.2, 0.75, 0.3) : vec3(0.25, 0.4, 0.95);
}

// trace returns the nearest hit: t (or -1), the object (0-2 spheres, 3 floor).
float trace(vec3 ro, vec3 rd, out int obj) {
	float best = 1e9;
	obj = -1;
	for (int i = 0; i < 3; i++) {
		float t = hitSphere(ro, rd, sphere(i));
		if (t > 0.0 && t < best) { best = t; obj = i; }
	}
	if (rd.y < -1e-4) {
		float t = -ro.y / rd.y;
		if (t > 0.0 && t < best) { best = t; obj = 3; }
	}
	return obj < 0 ? -1.0 : best;
}

vec3 sky(vec3 rd) {
	return mix(vec3(0.85, 0.9, 1.0), vec3(0.25, 0.45, 0.85), clamp(rd.y * 1.5, 0.0, 1.0));
}

void main() {
	uvec2 p = gl_GlobalInvocationID.xy;
	if (p.x >= pc.width || p.y >= pc.height) return;
	uint z = gl_WorkGroupID.z;
	uint env = pc.envbase + z;
	T = pc.time + float(env) * pc.timestep;
	CAM = pc.camera + float(env) * pc.camstep;
	vec2 uv = (vec2(p) + 0.5) / vec2(pc.width, pc.height) * 2.0 - 1.0;
	uv.x *= float(pc.width) / float(pc.height);
	uv.y = -uv.y;
	float ca = CAM + TAU * T / 16.0;
	vec3 eye = vec3(5.5 * sin(ca), 2.2, 5.5 * cos(ca));
	vec3 fw = normalize(vec3(0.0, 0.7, 0.0) - eye);
	vec3 rt = normalize(cross(fw, vec3(0.0, 1.0, 0.0)));
	vec3 up = cross(rt, fw);
	vec3 rd = normalize(fw * 1.6 + uv.x * rt + uv.y * up);
	vec3 sun = normalize(vec3(0.5, 0.9, 0.3));

	vec3 col = vec3(0.0);
	vec3 weight = vec3(1.0);
	vec3 ro = eye;
	for (int bounce = 0; bounce < 2; bounce++) {
		int obj;
		float t = trace(ro, rd, obj);
		if (t < 0.0) { col += weight * sky(rd); weight = vec3(0.0); break; }
		vec3 pos = ro + t * rd;
		vec3 n, base;
		float refl;
		if (obj == 3) {
			n = vec3(0.0, 1.0, 0.0);
			float check = mod(floor(pos.x) + floor(pos.z), 2.0);
			base = mix(vec3(0.85, 0.8, 0.7), vec3(0.15, 0.17, 0.22), check);
			refl = 0.15;
		} else {
			n = normalize(pos - sphere(obj).xyz);
			base = sphereColor(obj);
			refl = 0.2;
		}
		int sh;
		float lit = trace(pos + n * 2e-3, sun, sh) > 0.0 ? 0.0 : 1.0;
		float diff = max(dot(n, sun), 0.0) * lit;
		float spec = pow(max(dot(reflect(rd, n), sun), 0.0), 40.0) * lit;
		vec3 c = base * (0.22 + 0.85 * diff) + vec3(spec);
		float fog = exp(-0.0015 * t * t);
		c = mix(sky(rd), c, fog);
		col += weight * (1.0 - refl) * c;
		weight *= refl;
		ro = pos + n * 2e-3;
		rd = reflect(rd, n);
	}
	col += weight * sky(rd);
	vec4 texel = vec4(pow(clamp(col, 0.0, 1.0), vec3(1.0 / 2.2)), 1.0);
	ivec2 at = ivec2(p) + ivec2(int((z % pc.tilecols) * pc.width), int((z / pc.tilecols) * pc.height));
#ifdef ATLAS_BUFFER
	texels[uint(at.y) * pc.tilecols * pc.width + uint(at.x)] = packUnorm4x8(texel);
#else
	imageStore(img, at, texel);
#endif
}
