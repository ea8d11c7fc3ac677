// workgroup_barrier: var<workgroup> arrays shared by the invocations of a
// workgroup, written, then read at other indices after workgroupBarrier();
// a workgroup variable never written must read as zero (WGSL zero-fills
// workgroup memory); each workgroup then overwrites its variables so that
// a later workgroup that reused them unzeroed would see it.

@group(0) @binding(0) var<storage, read> inputs: array<u32>;
// 3 results per invocation.
@group(0) @binding(1) var<storage, read_write> results: array<u32>;

var<workgroup> tile: array<u32, 64>;
var<workgroup> untouched: array<u32, 64>;
var<workgroup> flag: u32;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>,
        @builtin(local_invocation_index) li: u32,
        @builtin(workgroup_id) wg: vec3<u32>) {
    let zero = untouched[li] + flag;
    tile[li] = inputs[gid.x];
    workgroupBarrier();
    let mirrored = tile[63u - li];
    let next = tile[(li + 1u) % 64u];
    workgroupBarrier();
    tile[li] = mirrored + next;
    workgroupBarrier();
    let o = gid.x * 3u;
    results[o] = mirrored;
    results[o + 1u] = tile[(li + 7u) & 63u] * (wg.x + 1u);
    results[o + 2u] = zero;
    workgroupBarrier();
    untouched[li] = 0xdeadbeefu;
    flag = 0x12345678u;
}
