// vectors_swizzles: vector arithmetic with scalars and vectors, swizzles
// read (xyzw and rgba, repeated and reordered components, swizzles of
// expressions and of swizzles), single components written by name and by
// runtime index, constructors from mixed parts, and vector comparisons.

@group(0) @binding(0) var<storage, read> a: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read> b: array<vec4<i32>>;
// 6 vec4<f32> results per element, then 2 vec4<i32>.
@group(0) @binding(2) var<storage, read_write> fout: array<vec4<f32>>;
@group(0) @binding(3) var<storage, read_write> iout: array<vec4<i32>>;

@compute @workgroup_size(32)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    let v = a[i];
    let w = b[i];
    let o = i * 6u;
    fout[o + 0u] = v.wzyx;
    fout[o + 1u] = vec4<f32>(v.xx, v.bg) * 2.0 + 1.0;
    fout[o + 2u] = vec4<f32>((v + v.yzwx).zx, v.y, 3.0);
    var m = v;
    m.y = v.x * v.w;
    m[u32(w.x) & 3u] = -1.5;
    m.a += 0.25;
    fout[o + 3u] = m;
    fout[o + 4u] = vec4<f32>(v.xyz.zyx.yx, vec2<f32>(v.w).x, f32(w.y));
    let c = v.xyz - v.yzx;
    fout[o + 5u] = vec4<f32>(c / 4.0, v.x - v.w);
    let lt = v < vec4<f32>(0.0);
    let sel = select(vec4<i32>(1), vec4<i32>(-1), lt);
    iout[i * 2u] = w.zwxy * 3 - sel + vec4<i32>(w.xy, 7, -7);
    var e = vec3<i32>(w.x, w.y, w.z);
    e[u32(w.w) % 3u] = i32(i);
    iout[i * 2u + 1u] = vec4<i32>(e, i32(all(e.xy == w.xy)) + 2 * i32(any(w.zw != w.wz)));
}
