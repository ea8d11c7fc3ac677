// struct_layout: structs in a storage buffer laid out by WGSL's rules with
// @align and @size (a vec3 followed by a scalar in its padding, members
// moved by @align, enlarged by @size, a nested struct with @size, an array
// member with @align, a mat2x3), which the host writes and reads at the
// offsets WGSL gives. Each element is read, transformed and written back.

struct Inner {
    a: vec3<f32>,           // 0
    @size(8) b: f32,        // 12..20; size 32 (align 16)
}

struct S {
    x: f32,                         // 0
    @align(16) y: vec2<f32>,        // 16
    z: u32,                         // 24
    @size(20) w: i32,               // 28..48
    inner: Inner,                   // 48..80
    v3: vec3<u32>,                  // 80..92
    tail: u32,                      // 92
    @align(32) arr: array<vec2<f32>, 3>, // 96..120
    m: mat2x3<f32>,                 // 128..160
    @size(8) last: f32,             // 160..168; size 192 (align 32)
}

@group(0) @binding(0) var<storage, read> src: array<S>;
@group(0) @binding(1) var<storage, read_write> dst: array<S>;

@compute @workgroup_size(8)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    let s = src[i];
    var d: S;
    d.x = s.x + 1.0;
    d.y = s.y.yx;
    d.z = s.z ^ 0xffu;
    d.w = -s.w;
    d.inner.a = s.inner.a * s.inner.b;
    d.inner.b = s.inner.b + s.last;
    d.v3 = s.v3.zxy;
    d.tail = s.tail + s.v3.x;
    for (var k = 0; k < 3; k++) {
        d.arr[k] = s.arr[2 - k] * 2.0;
    }
    d.m = s.m * 2.0;
    d.last = s.x * s.last;
    dst[i] = d;
}
