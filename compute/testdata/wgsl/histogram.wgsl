// histogram: a 256-bin histogram of bytes: each workgroup counts into a
// workgroup histogram with atomicAdd (zero-initialized workgroup memory),
// then adds its bins to the global histogram in storage with atomicAdd.

@group(0) @binding(0) var<storage, read> words: array<u32>;     // 4 bytes each
@group(0) @binding(1) var<storage, read_write> bins: array<atomic<u32>, 256>;

var<workgroup> local_bins: array<atomic<u32>, 256>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>,
        @builtin(local_invocation_index) li: u32) {
    let w = words[gid.x];
    for (var k = 0u; k < 4u; k++) {
        atomicAdd(&local_bins[(w >> (k * 8u)) & 0xffu], 1u);
    }
    workgroupBarrier();
    for (var b = li; b < 256u; b += 64u) {
        let n = atomicLoad(&local_bins[b]);
        if (n != 0u) {
            atomicAdd(&bins[b], n);
        }
    }
}
