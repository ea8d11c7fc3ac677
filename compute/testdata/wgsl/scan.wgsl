// scan: an inclusive prefix sum (Hillis-Steele) of 256 u32 per workgroup in
// workgroup memory, double-buffered with workgroupBarrier between steps;
// each workgroup also writes its total.

const N = 256u;

@group(0) @binding(0) var<storage, read> inputs: array<u32>;
@group(0) @binding(1) var<storage, read_write> sums: array<u32>;
@group(0) @binding(2) var<storage, read_write> totals: array<u32>;

var<workgroup> buf: array<array<u32, N>, 2>;

@compute @workgroup_size(N)
fn main(@builtin(global_invocation_id) gid: vec3<u32>,
        @builtin(local_invocation_index) li: u32,
        @builtin(workgroup_id) wg: vec3<u32>) {
    buf[0][li] = inputs[gid.x];
    workgroupBarrier();
    var cur = 0u;
    for (var off = 1u; off < N; off <<= 1u) {
        var v = buf[cur][li];
        if (li >= off) {
            v += buf[cur][li - off];
        }
        buf[1u - cur][li] = v;
        cur = 1u - cur;
        workgroupBarrier();
    }
    sums[gid.x] = buf[cur][li];
    if (li == N - 1u) {
        totals[wg.x] = buf[cur][li];
    }
}
