// bool_select: bool logic (!, &&, || with short-circuit evaluation, the
// non-short-circuit & and |, == and != on bools), bool vectors with any()
// and all(), select() with scalar and vector conditions, and conversions
// between bool and numbers.

@group(0) @binding(0) var<storage, read> inputs: array<u32>;
// 4 results per element: a bit mask of bool results, two select results,
// and the number of times the right operand of && / || was evaluated.
@group(0) @binding(1) var<storage, read_write> results: array<u32>;

var<private> evaluated: u32;

fn note(b: bool) -> bool {
    evaluated += 1u;
    return b;
}

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    let v = inputs[i];
    let p = (v & 1u) != 0u;
    let q = (v & 2u) != 0u;
    let r = (v & 4u) != 0u;
    let s = bool(v & 8u);
    var mask = 0u;
    mask |= u32(!p);
    mask |= u32(p && q) << 1u;
    mask |= u32(p || q) << 2u;
    mask |= u32(p & r) << 3u;
    mask |= u32(q | r) << 4u;
    mask |= u32(p == q) << 5u;
    mask |= u32(p != r) << 6u;
    mask |= u32(!(p && !q) || r) << 7u;
    let bv = vec4<bool>(p, q, r, s);
    mask |= u32(any(bv)) << 8u;
    mask |= u32(all(bv)) << 9u;
    mask |= u32(all(!bv)) << 10u;
    mask |= u32(any(bv & vec4<bool>(q, r, s, p))) << 11u;
    mask |= u32(all(bv | vec4<bool>(true, false, true, false))) << 12u;
    mask |= u32(s) << 13u;
    mask |= u32(i32(r) == 1) << 14u;
    mask |= u32(f32(q) * 2.0) << 15u;
    results[i * 4u] = mask;
    // select(false_value, true_value, condition)
    results[i * 4u + 1u] = select(v >> 8u, ~v, p);
    let sv = select(vec4<u32>(1u, 2u, 3u, 4u), vec4<u32>(10u, 20u, 30u, 40u), bv);
    let ss = select(vec2<u32>(100u, 200u), vec2<u32>(v, v + 1u), q);
    results[i * 4u + 2u] = sv.x + sv.y + sv.z + sv.w + ss.x + ss.y;
    // Short-circuit: the right operand runs only when needed.
    var hits = 0u;
    if (p && note(q)) {
        hits += 1u;
    }
    if (q || note(r)) {
        hits += 1u;
    }
    results[i * 4u + 3u] = evaluated * 16u + hits;
}
