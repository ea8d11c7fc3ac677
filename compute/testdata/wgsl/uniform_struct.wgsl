// uniform_struct: a uniform buffer holding a struct with vec3 (and an f32
// in its padding), mat4x4, mat3x3, array<vec4<f32>, 4>, u32 and vec2 members
// at their WGSL offsets, read by every invocation.

struct Params {
    origin: vec3<f32>,              // 0
    scale: f32,                     // 12
    xform: mat4x4<f32>,             // 16
    m3: mat3x3<f32>,                // 80
    colors: array<vec4<f32>, 4>,    // 128
    count: u32,                     // 192
    dir: vec2<f32>,                 // 200; size 208
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> points: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read_write> outp: array<vec4<f32>>;
// The members as read, in order: 3 + 1 + 16 + 9 + 16 + 1 + 2 floats.
@group(0) @binding(3) var<storage, read_write> echo: array<f32, 48>;

@compute @workgroup_size(32)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    let p = points[i].xyz * params.scale + params.origin;
    let c = params.colors[i % 4u];
    let t = params.xform * vec4<f32>(p, 1.0);
    outp[i * 2u] = t + c * f32(params.count);
    outp[i * 2u + 1u] = vec4<f32>(params.m3 * p, dot(params.dir, p.xy));
    if (i == 0u) {
        echo[0] = params.origin.x;
        echo[1] = params.origin.y;
        echo[2] = params.origin.z;
        echo[3] = params.scale;
        for (var c = 0u; c < 4u; c++) {
            for (var r = 0u; r < 4u; r++) {
                echo[4u + c * 4u + r] = params.xform[c][r];
                echo[29u + c * 4u + r] = params.colors[c][r];
            }
        }
        for (var c = 0u; c < 3u; c++) {
            for (var r = 0u; r < 3u; r++) {
                echo[20u + c * 3u + r] = params.m3[c][r];
            }
        }
        echo[45] = f32(params.count);
        echo[46] = params.dir.x;
        echo[47] = params.dir.y;
    }
}
