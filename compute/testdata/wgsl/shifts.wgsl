// shifts: << and >> on u32, i32 and vectors by runtime amounts from 0 to
// 255: WGSL shifts by the amount modulo the bit width (32), and >> on i32
// is arithmetic (sign-filling), on u32 logical.

@group(0) @binding(0) var<storage, read> values: array<u32>;
@group(0) @binding(1) var<storage, read> amounts: array<u32>;
// 8 results per element.
@group(0) @binding(2) var<storage, read_write> results: array<u32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    let v = values[i];
    let s = amounts[i];
    let sv = bitcast<i32>(v);
    let o = i * 8u;
    results[o + 0u] = v << s;
    results[o + 1u] = v >> s;
    results[o + 2u] = bitcast<u32>(sv << s);
    results[o + 3u] = bitcast<u32>(sv >> s);
    // Vectors: component-wise, each with its own amount.
    let vs = vec2<u32>(s, s + 7u);
    let w = vec2<u32>(v, ~v) >> vs;
    results[o + 4u] = w.x;
    results[o + 5u] = w.y;
    let z = vec2<i32>(sv, -sv) << vs;
    results[o + 6u] = bitcast<u32>(z.y);
    // A shift by a small constant, then by the runtime amount.
    results[o + 7u] = bitcast<u32>((sv >> 3u) >> (s + 32u));
}
