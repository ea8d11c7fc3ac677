// workgroup_uniform_load: workgroupUniformLoad reads a workgroup variable
// (written by one invocation) as a uniform value — with its barrier — so
// that a loop whose bound it gives may contain workgroupBarrier.

@group(0) @binding(0) var<storage, read> counts: array<u32>;     // per workgroup
@group(0) @binding(1) var<storage, read> inputs: array<u32>;
@group(0) @binding(2) var<storage, read_write> results: array<u32>;

var<workgroup> n: u32;
var<workgroup> acc: array<u32, 32>;

@compute @workgroup_size(32)
fn main(@builtin(global_invocation_id) gid: vec3<u32>,
        @builtin(local_invocation_index) li: u32,
        @builtin(workgroup_id) wg: vec3<u32>) {
    if (li == 0u) {
        n = counts[wg.x];
    }
    let rounds = workgroupUniformLoad(&n);
    acc[li] = inputs[gid.x];
    for (var r = 0u; r < rounds; r++) {
        workgroupBarrier();
        let left = acc[(li + 31u) % 32u];
        workgroupBarrier();
        acc[li] = acc[li] * 3u + left;
    }
    workgroupBarrier();
    results[gid.x] = acc[li] + rounds * 1000000u;
}
