// two_entry_points: a module with two @compute entry points of different
// workgroup sizes sharing bindings, a helper function and a private
// variable; shader.Options.EntryPoint selects one (main when not given).

@group(0) @binding(0) var<storage, read> inputs: array<u32>;
@group(0) @binding(1) var<storage, read_write> results: array<u32>;

var<private> salt: u32 = 7u;

fn mixin(x: u32) -> u32 {
    return x * 2654435761u + salt;
}

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    results[gid.x] = mixin(inputs[gid.x]);
}

@compute @workgroup_size(16, 2)
fn twice(@builtin(global_invocation_id) gid: vec3<u32>,
         @builtin(num_workgroups) nwg: vec3<u32>) {
    salt = 11u;
    let i = gid.y * nwg.x * 16u + gid.x;
    results[i] = mixin(mixin(inputs[i])) ^ 0xffffffffu;
}
