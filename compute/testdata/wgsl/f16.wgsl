// f16: the f16 type behind `enable f16;`: f16 storage buffers (scalar and
// vec4<f16>), h-suffixed literals, f16 arithmetic and builtins,
// conversions to and from f32, and a struct of f16 members in storage
// (f16 is 2 bytes aligned to 2, vec2<f16> 4 aligned to 4).

enable f16;

struct Half {
    a: f16,             // 0
    b: vec2<f16>,       // 4
    c: f32,             // 8; size 12
}

@group(0) @binding(0) var<storage, read> xs: array<f16>;
@group(0) @binding(1) var<storage, read> vs: array<vec4<f16>>;
@group(0) @binding(2) var<storage, read_write> hout: array<f16>;
@group(0) @binding(3) var<storage, read_write> fout: array<f32>;
@group(0) @binding(4) var<storage, read_write> halves: array<Half>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    let x = xs[i];
    let v = vs[i];
    hout[i * 4u] = x * 1.5h + v.x;
    hout[i * 4u + 1u] = max(x, v.y) - min(v.z, -2.0h);
    hout[i * 4u + 2u] = f16(f32(x) * 0.25);
    hout[i * 4u + 3u] = abs(v.w) * v.x;
    fout[i * 2u] = f32(x);
    fout[i * 2u + 1u] = dot(vec4<f32>(v), vec4<f32>(1.0, 2.0, 3.0, 4.0));
    var h = halves[i];
    h.a = h.a + h.b.x;
    h.b = h.b.yx * 2.0h;
    h.c = f32(h.a) + h.c;
    halves[i] = h;
}
