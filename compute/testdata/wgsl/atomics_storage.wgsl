// atomics_storage: every atomic builtin on atomic<u32> and atomic<i32> in
// a storage buffer — atomicAdd, atomicSub, atomicMin, atomicMax, atomicAnd,
// atomicOr, atomicXor, atomicExchange, atomicCompareExchangeWeak (in a
// retry loop that adds v*v), atomicLoad and atomicStore — from many
// workgroups, with the values atomicAdd and atomicExchange return.

struct Counters {
    sum: atomic<u32>,
    sub: atomic<u32>,
    umin: atomic<u32>,
    umax: atomic<u32>,
    imin: atomic<i32>,
    imax: atomic<i32>,
    and_bits: atomic<u32>,
    or_bits: atomic<u32>,
    xor_bits: atomic<u32>,
    xchg: atomic<u32>,
    squares: atomic<u32>,
    ticket: atomic<u32>,
    isum: atomic<i32>,
}

@group(0) @binding(0) var<storage, read> inputs: array<u32>;
@group(0) @binding(1) var<storage, read_write> counters: Counters;
@group(0) @binding(2) var<storage, read_write> cells: array<atomic<u32>>;
// 3 results per invocation: the ticket, the exchanged-out value, the cell read back.
@group(0) @binding(3) var<storage, read_write> results: array<u32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    let v = inputs[i];
    let sv = bitcast<i32>(v);
    atomicAdd(&counters.sum, v);
    atomicSub(&counters.sub, v);
    atomicMin(&counters.umin, v);
    atomicMax(&counters.umax, v);
    atomicMin(&counters.imin, sv);
    atomicMax(&counters.imax, sv);
    atomicAnd(&counters.and_bits, v | 0x01010101u);
    atomicOr(&counters.or_bits, v & 0x10101010u);
    atomicXor(&counters.xor_bits, v);
    atomicSub(&counters.isum, sv >> 4u);
    let old = atomicExchange(&counters.xchg, v);
    loop {
        let cur = atomicLoad(&counters.squares);
        let r = atomicCompareExchangeWeak(&counters.squares, cur, cur + v * v);
        if (r.exchanged) {
            break;
        }
    }
    let ticket = atomicAdd(&counters.ticket, 1u);
    atomicStore(&cells[i], v ^ ticket);
    let o = i * 3u;
    results[o] = ticket;
    results[o + 1u] = old;
    results[o + 2u] = atomicLoad(&cells[i]) ^ ticket;
}
