// dot4_packed: dot4U8Packed and dot4I8Packed, the dot products of four
// 8-bit lanes packed in u32 (unsigned, and signed with sign extension).

@group(0) @binding(0) var<storage, read> inputs: array<vec2<u32>>;
@group(0) @binding(1) var<storage, read_write> results: array<vec2<u32>>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    let v = inputs[i];
    results[i] = vec2<u32>(dot4U8Packed(v.x, v.y), bitcast<u32>(dot4I8Packed(v.x, v.y)));
}
