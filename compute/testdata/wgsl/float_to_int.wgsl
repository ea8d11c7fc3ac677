// float_to_int: f32 -> i32 and f32 -> u32 conversions, which WGSL defines to
// truncate and saturate (to [-2^31, 2147483520] and [0, 4294967040], the
// extreme values an f32 can hold), including infinities and huge values,
// through scalars and vectors; and i32/u32 -> f32 conversions. NaN gives an
// indeterminate integer, which the test does not compare.

@group(0) @binding(0) var<storage, read> floats: array<f32>;
@group(0) @binding(1) var<storage, read> ints: array<i32>;
@group(0) @binding(2) var<storage, read> uints: array<u32>;
// 6 results per element: i32(f), u32(f), vec2 i32(f), vec2 u32(f), f32(int) bits, f32(uint) bits.
@group(0) @binding(3) var<storage, read_write> results: array<u32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    let f = floats[i];
    let o = i * 6u;
    results[o + 0u] = bitcast<u32>(i32(f));
    results[o + 1u] = u32(f);
    let vf = vec2<f32>(f, -f);
    let vi = vec2<i32>(vf);
    let vu = vec2<u32>(vf);
    results[o + 2u] = bitcast<u32>(vi.y);
    results[o + 3u] = vu.y;
    results[o + 4u] = bitcast<u32>(f32(ints[i]));
    results[o + 5u] = bitcast<u32>(f32(uints[i]));
}
