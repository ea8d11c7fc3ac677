// matmul_tiled: C = A * B for a 64x48 A and a 48x80 B (row-major f32),
// computed in 8x8 tiles staged through workgroup memory with
// workgroupBarrier between the loads and the multiply-adds.

const TILE = 8u;

struct Dims {
    m: u32,     // rows of A and C
    k: u32,     // columns of A, rows of B
    n: u32,     // columns of B and C
}

@group(0) @binding(0) var<uniform> dims: Dims;
@group(0) @binding(1) var<storage, read> a: array<f32>;
@group(0) @binding(2) var<storage, read> b: array<f32>;
@group(0) @binding(3) var<storage, read_write> c: array<f32>;

var<workgroup> ta: array<array<f32, TILE>, TILE>;
var<workgroup> tb: array<array<f32, TILE>, TILE>;

@compute @workgroup_size(TILE, TILE)
fn main(@builtin(global_invocation_id) gid: vec3<u32>,
        @builtin(local_invocation_id) lid: vec3<u32>) {
    let row = gid.y;
    let col = gid.x;
    var acc = 0.0;
    for (var t = 0u; t < dims.k / TILE; t++) {
        ta[lid.y][lid.x] = a[row * dims.k + t * TILE + lid.x];
        tb[lid.y][lid.x] = b[(t * TILE + lid.y) * dims.n + col];
        workgroupBarrier();
        for (var j = 0u; j < TILE; j++) {
            acc += ta[lid.y][j] * tb[j][lid.x];
        }
        workgroupBarrier();
    }
    c[row * dims.n + col] = acc;
}
