// matrices: mat4x4 * vec4, vec4 * mat4x4, mat * mat, transpose, determinant
// of 2x2, 3x3 and 4x4 matrices, column and element access, and mat2x2 and
// mat3x3 read from and written to a storage buffer in their WGSL layout
// (mat2x2<f32>: 8-byte columns, 16 bytes; mat3x3<f32>: columns 16 bytes
// apart, 48 bytes).

struct Mats {
    m2: mat2x2<f32>,   // offset 0
    m3: mat3x3<f32>,   // offset 16
    m4: mat4x4<f32>,   // offset 64
    v: vec4<f32>,      // offset 128; size 144
}

struct Out {
    m4v: vec4<f32>,    // 0
    vm4: vec4<f32>,    // 16
    t4: mat4x4<f32>,   // 32
    m3m3: mat3x3<f32>, // 96
    m2m2: mat2x2<f32>, // 144
    m2v: vec2<f32>,    // 160
    det2: f32,         // 168
    det3: f32,         // 172
    det4: f32,         // 176
    e: f32,            // 180
    col: vec3<f32>,    // 192
    sum: f32,          // 204; size 208
}

@group(0) @binding(0) var<storage, read> mats: array<Mats>;
@group(0) @binding(1) var<storage, read_write> outs: array<Out>;

@compute @workgroup_size(16)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    let m = mats[i];
    var o: Out;
    o.m4v = m.m4 * m.v;
    o.vm4 = m.v * m.m4;
    o.t4 = transpose(m.m4);
    o.m3m3 = m.m3 * transpose(m.m3);
    o.m2m2 = m.m2 * mat2x2<f32>(1.0, 2.0, 3.0, 4.0) + m.m2 * 0.5;
    o.m2v = m.m2 * m.v.xy;
    o.det2 = determinant(m.m2);
    o.det3 = determinant(m.m3);
    o.det4 = determinant(m.m4);
    o.e = m.m3[2][1] + mats[i].m4[3].y;
    o.col = m.m3[1] - m.m4[0].xyz;
    o.sum = m.m2[1].x + m.m2[0][1];
    outs[i] = o;
}
