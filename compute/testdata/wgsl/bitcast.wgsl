// bitcast: bitcast between u32, i32 and f32 scalars and vectors (the bit
// pattern is kept), arithmetic on the results, and u32 <-> i32 value
// conversions, which also keep the bits.

@group(0) @binding(0) var<storage, read> inputs: array<vec2<u32>>;
// 8 results per element.
@group(0) @binding(1) var<storage, read_write> results: array<u32>;
@group(0) @binding(2) var<storage, read_write> floats: array<f32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    let w = inputs[i];
    let f = bitcast<f32>(w.x);
    let o = i * 8u;
    results[o] = bitcast<u32>(f);
    results[o + 1u] = bitcast<u32>(f * 2.0);
    let vf = bitcast<vec2<f32>>(w);
    results[o + 2u] = bitcast<u32>(vf.y + vf.x);
    let vi = bitcast<vec2<i32>>(w);
    results[o + 3u] = bitcast<u32>(vi.x >> 7u);
    results[o + 4u] = bitcast<u32>(bitcast<i32>(f) + 1);
    results[o + 5u] = u32(i32(w.y));
    let back = bitcast<vec4<u32>>(vec4<f32>(vf, -vf));
    results[o + 6u] = back.z ^ back.w;
    results[o + 7u] = bitcast<u32>(bitcast<vec3<i32>>(w.xyx).z - bitcast<i32>(w.y));
    floats[i] = bitcast<f32>(w.y);
}
