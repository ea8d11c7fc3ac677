// atomics_workgroup: atomics on var<workgroup> atomic<u32> and atomic<i32>
// (atomicAdd, atomicSub, atomicMin, atomicMax, atomicAnd, atomicOr,
// atomicXor, atomicExchange, atomicCompareExchangeWeak, atomicLoad,
// atomicStore), starting from WGSL's zero-initialized workgroup memory; one
// invocation per workgroup writes the results after a barrier, then the
// workgroup leaves its atomics dirty for the next workgroup.

struct Shared {
    sum: atomic<u32>,
    sub: atomic<i32>,
    umax: atomic<u32>,
    imin: atomic<i32>,
    or_bits: atomic<u32>,
    xor_bits: atomic<u32>,
    squares: atomic<u32>,
    ticket: atomic<u32>,
}

@group(0) @binding(0) var<storage, read> inputs: array<u32>;
// 10 results per workgroup.
@group(0) @binding(1) var<storage, read_write> results: array<u32>;
// The ticket each invocation drew.
@group(0) @binding(2) var<storage, read_write> tickets: array<u32>;

var<workgroup> sh: Shared;
var<workgroup> umin: atomic<u32>;
var<workgroup> and_bits: atomic<u32>;
var<workgroup> last: atomic<u32>;

@compute @workgroup_size(128)
fn main(@builtin(global_invocation_id) gid: vec3<u32>,
        @builtin(local_invocation_index) li: u32,
        @builtin(workgroup_id) wg: vec3<u32>) {
    let v = inputs[gid.x];
    if (li == 0u) {
        atomicStore(&umin, 0xffffffffu);
        atomicStore(&and_bits, 0xffffffffu);
    }
    workgroupBarrier();
    atomicAdd(&sh.sum, v);
    atomicSub(&sh.sub, bitcast<i32>(v) >> 8u);
    atomicMax(&sh.umax, v);
    atomicMin(&sh.imin, bitcast<i32>(v));
    atomicMin(&umin, v);
    atomicOr(&sh.or_bits, v & 0x00ff00ffu);
    atomicAnd(&and_bits, v | 0x0f0f0f0fu);
    atomicXor(&sh.xor_bits, v);
    atomicExchange(&last, v);
    var done = false;
    loop {
        let cur = atomicLoad(&sh.squares);
        let r = atomicCompareExchangeWeak(&sh.squares, cur, cur + (v & 0xffffu) * 3u);
        done = r.exchanged;
        if (done) {
            break;
        }
    }
    tickets[gid.x] = atomicAdd(&sh.ticket, 1u);
    workgroupBarrier();
    if (li == 0u) {
        let o = wg.x * 10u;
        results[o] = atomicLoad(&sh.sum);
        results[o + 1u] = bitcast<u32>(atomicLoad(&sh.sub));
        results[o + 2u] = atomicLoad(&sh.umax);
        results[o + 3u] = bitcast<u32>(atomicLoad(&sh.imin));
        results[o + 4u] = atomicLoad(&umin);
        results[o + 5u] = atomicLoad(&sh.or_bits);
        results[o + 6u] = atomicLoad(&and_bits);
        results[o + 7u] = atomicLoad(&sh.xor_bits);
        results[o + 8u] = atomicLoad(&sh.squares);
        results[o + 9u] = atomicLoad(&sh.ticket) * 65536u + u32(atomicLoad(&last) != 0u);
    }
    workgroupBarrier();
    // Dirty everything for whoever runs in this memory next.
    atomicStore(&sh.sum, 0xdeadu);
    atomicStore(&sh.sub, -7);
    atomicStore(&sh.umax, 0xffffffffu);
    atomicStore(&sh.imin, -2147483647);
    atomicStore(&sh.or_bits, 0xffffffffu);
    atomicStore(&sh.xor_bits, 0x5555u);
    atomicStore(&sh.squares, 12345u);
    atomicStore(&sh.ticket, 1000u);
}
