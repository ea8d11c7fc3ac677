// builtin_struct: entry-point builtins declared as members of a struct
// parameter (global_invocation_id, local_invocation_index, workgroup_id),
// beside a builtin declared as a plain parameter (num_workgroups), and the
// struct passed on by value to a helper function.

struct Ids {
    @builtin(global_invocation_id) gid: vec3<u32>,
    @builtin(local_invocation_index) index: u32,
    @builtin(workgroup_id) group: vec3<u32>,
}

@group(0) @binding(0) var<storage, read_write> results: array<vec4<u32>>;

fn describe(ids: Ids, groups: vec3<u32>) -> vec4<u32> {
    return vec4<u32>(ids.gid.x + ids.gid.y * 100u, ids.index, ids.group.x * 10u + ids.group.y, groups.x * groups.y);
}

@compute @workgroup_size(8, 4)
fn main(ids: Ids, @builtin(num_workgroups) groups: vec3<u32>) {
    let width = groups.x * 8u;
    results[ids.gid.y * width + ids.gid.x] = describe(ids, groups);
}
