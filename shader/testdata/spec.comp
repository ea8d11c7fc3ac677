#version 450
// Workgroup size from specialization constants (local_size_*_id).
layout(local_size_x_id = 3, local_size_y = 4, local_size_z_id = 7) in;
layout(constant_id = 3) const int SX = 64;
layout(constant_id = 7) const int SZ = 2;
layout(std430, binding = 0) buffer Out { uint v[]; } outp;
void main() { outp.v[gl_GlobalInvocationID.x] = gl_WorkGroupSize.x; }
