#version 450
layout(set = 0, binding = 0) uniform Camera { mat4 viewProj; } cam;
layout(location = 0) in vec3 pos;
void main() { gl_Position = cam.viewProj * vec4(pos, 1.0); }
