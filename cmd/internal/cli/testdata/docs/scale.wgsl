// scale.wgsl of docs/compute-shaders.md: scale.hlsl in WGSL, with its
// push constants as override constants.
@group(0) @binding(0) var<storage, read_write> data: array<f32>;

override scale: f32 = 1.0;
override bias: f32 = 0.0;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    data[id.x] = data[id.x] * scale + bias;
}
