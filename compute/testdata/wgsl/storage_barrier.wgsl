// storage_barrier: invocations of a workgroup write a storage buffer, then
// after storageBarrier() read what other invocations of the same workgroup
// wrote there, in two rounds.

@group(0) @binding(0) var<storage, read> inputs: array<u32>;
@group(0) @binding(1) var<storage, read_write> scratch: array<u32>;
@group(0) @binding(2) var<storage, read_write> results: array<u32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>,
        @builtin(local_invocation_index) li: u32,
        @builtin(workgroup_id) wg: vec3<u32>) {
    let base = wg.x * 64u;
    scratch[gid.x] = inputs[gid.x] * 2u;
    storageBarrier();
    let a = scratch[base + (li + 1u) % 64u];
    let b = scratch[base + 63u - li];
    storageBarrier();
    scratch[gid.x] = a ^ b;
    storageBarrier();
    results[gid.x] = scratch[base + (li + 5u) % 64u] + a;
}
