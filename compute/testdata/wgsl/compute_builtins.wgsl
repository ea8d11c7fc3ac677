// compute_builtins: global_invocation_id, local_invocation_id,
// local_invocation_index, workgroup_id and num_workgroups, all written out
// by every invocation of a 3-dimensional dispatch (3x2x2 workgroups of
// 4x2x3) at the index of its global id.

@group(0) @binding(0) var<storage, read_write> results: array<u32>;

@compute @workgroup_size(4, 2, 3)
fn main(@builtin(global_invocation_id) gid: vec3<u32>,
        @builtin(local_invocation_id) lid: vec3<u32>,
        @builtin(local_invocation_index) lidx: u32,
        @builtin(workgroup_id) wid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>) {
    let width = nwg.x * 4u;
    let height = nwg.y * 2u;
    let flat = gid.x + width * (gid.y + height * gid.z);
    let o = flat * 13u;
    results[o + 0u] = gid.x;
    results[o + 1u] = gid.y;
    results[o + 2u] = gid.z;
    results[o + 3u] = lid.x;
    results[o + 4u] = lid.y;
    results[o + 5u] = lid.z;
    results[o + 6u] = lidx;
    results[o + 7u] = wid.x;
    results[o + 8u] = wid.y;
    results[o + 9u] = wid.z;
    results[o + 10u] = nwg.x;
    results[o + 11u] = nwg.y;
    results[o + 12u] = nwg.z;
}
