// frexp_modf: frexp and modf, whose results are structs (fract and exp;
// fract and whole), on f32 scalars and vectors, including zero, negative
// values and integers.

@group(0) @binding(0) var<storage, read> inputs: array<vec2<f32>>;
// 8 results per element: frexp(x) fract, exp; modf(x) fract, whole;
// frexp(vec2) fract.y, exp.y; modf(vec2) fract.y, whole.y.
@group(0) @binding(1) var<storage, read_write> results: array<u32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    let v = inputs[i];
    let f = frexp(v.x);
    let m = modf(v.x);
    let fv = frexp(v);
    let mv = modf(v);
    let o = i * 8u;
    results[o] = bitcast<u32>(f.fract);
    results[o + 1u] = bitcast<u32>(f.exp);
    results[o + 2u] = bitcast<u32>(m.fract);
    results[o + 3u] = bitcast<u32>(m.whole);
    results[o + 4u] = bitcast<u32>(fv.fract.y);
    results[o + 5u] = bitcast<u32>(fv.exp.y);
    results[o + 6u] = bitcast<u32>(mv.fract.y);
    results[o + 7u] = bitcast<u32>(modf(v.y).whole + mv.whole.y - m.whole);
}
