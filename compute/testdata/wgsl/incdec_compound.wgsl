// incdec_compound: ++ and -- and every compound assignment (+= -= *= /= %=
// &= |= ^= <<= >>=) on scalars, vector components (by name and by runtime
// index), matrix elements, array elements, struct members and through
// pointers; integer /= and %= by zero follow WGSL's rules; the left-hand
// side's index expression is evaluated once.

struct Counters {
    hits: u32,
    v: vec3<i32>,
}

@group(0) @binding(0) var<storage, read> inputs: array<vec4<i32>>;
// 4 vec4<i32> results per element.
@group(0) @binding(1) var<storage, read_write> results: array<vec4<i32>>;

var<private> calls: u32;

fn next_index() -> u32 {
    calls++;
    return calls & 3u;
}

fn bump(p: ptr<function, array<i32, 4>>, j: u32) {
    (*p)[j & 3u] *= 3;
    (*p)[(j + 1u) & 3u]++;
    p[(j + 2u) & 3u] -= 7;      // pointer composite access
}

@compute @workgroup_size(32)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    let w = inputs[i];
    var a = w.x;
    a++;
    a += w.y;
    a -= 3;
    a *= w.z | 1;
    a /= w.w;                   // w.w may be zero: a stays
    var b = w.y;
    b %= w.z;                   // w.z may be zero: b becomes 0
    b--;
    var u = bitcast<u32>(w.x);
    u &= 0xff00ff0fu;
    u |= 0x10u;
    u ^= bitcast<u32>(w.y);
    u <<= bitcast<u32>(w.z) & 63u;  // masked to 5 bits
    u >>= 3u;
    var v = w;
    v.x += 5;
    v.y++;
    v[u32(w.w) & 3u] -= 11;
    v *= 2;
    v.z--;
    var m = mat2x2<f32>(1.0, 2.0, 3.0, 4.0);
    m[1][0] += f32(w.x & 15);
    m[0] *= 2.0;
    var arr = array<i32, 4>(w.x, w.y, w.z, w.w);
    bump(&arr, u32(w.x));
    arr[next_index()] += 1000;  // next_index() runs once
    var c = Counters(0u, vec3<i32>(0));
    c.hits += 3u;
    c.v.y -= 2;
    c.v[u32(w.y) % 3u] += 9;
    let o = i * 4u;
    results[o] = vec4<i32>(a, b, bitcast<i32>(u), i32(calls));
    results[o + 1u] = v;
    results[o + 2u] = vec4<i32>(arr[0], arr[1], arr[2], arr[3]);
    results[o + 3u] = vec4<i32>(i32(m[1][0] * 10.0 + m[0][1]), i32(c.hits), c.v.x * 100 + c.v.y, c.v.z);
}
