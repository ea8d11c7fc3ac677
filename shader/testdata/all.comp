#version 450
layout(local_size_x = 16, local_size_y = 8, local_size_z = 1) in;
struct Item { vec4 v; uint id; };
layout(std430, set = 0, binding = 0) buffer Data { uint count; Item items[]; } data;
layout(std430, set = 0, binding = 1) readonly buffer Inp { float vals[]; };
layout(std140, set = 0, binding = 2) uniform UBO { mat3 m; vec3 c; float arr[3]; } ubo;
layout(set = 1, binding = 0, rgba8) uniform writeonly image2D img;
layout(set = 1, binding = 1) uniform sampler2D tex;
layout(set = 1, binding = 2, r32f) uniform readonly image3D vol;
layout(set = 1, binding = 3) uniform texture2D sepTex;
layout(set = 1, binding = 4) uniform sampler sepSamp;
layout(set = 1, binding = 5) uniform samplerBuffer utb;
layout(set = 1, binding = 6, r32ui) uniform uimageBuffer stb;
layout(set = 2, binding = 0) uniform sampler2D texArr[3];
layout(push_constant) uniform Push { mat4 mvp; vec2 scale; uint n; } pc;
layout(set=3, binding=0) buffer Unused { float u[]; } unused;
void main() {
  uint i = gl_GlobalInvocationID.x;
  data.items[i].v = texture(tex, vec2(0.5)) * vals[i] * ubo.c.x * pc.scale.x + imageLoad(vol, ivec3(0)).x + texture(sampler2D(sepTex, sepSamp), vec2(0)) + texelFetch(utb, 0) + texture(texArr[1], vec2(0));
  imageStore(img, ivec2(i, 0), vec4(1));
  imageStore(stb, 0, uvec4(data.count));
}
