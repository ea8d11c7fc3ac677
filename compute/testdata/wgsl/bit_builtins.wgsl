// bit_builtins: countOneBits, countLeadingZeros, countTrailingZeros,
// firstLeadingBit (unsigned, and signed: the first bit that differs from
// the sign), firstTrailingBit, extractBits (unsigned, and signed with sign
// extension) and insertBits with offsets and counts up to 40 (WGSL clamps:
// o = min(offset, 32), c = min(count, 32 - o)), and reverseBits, on i32,
// u32 and vectors. All exact.

struct In {
    u: u32,
    s: i32,
    offset: u32,
    count: u32,
    newbits: u32,
}

@group(0) @binding(0) var<storage, read> inputs: array<In>;
@group(0) @binding(1) var<storage, read_write> results: array<array<u32, 16>>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    let v = inputs[i];
    let u = v.u;
    let s = v.s;
    var r: array<u32, 16>;
    r[0] = countOneBits(u);
    r[1] = bitcast<u32>(countOneBits(s));
    r[2] = countLeadingZeros(u);
    r[3] = countTrailingZeros(u);
    r[4] = firstLeadingBit(u);
    r[5] = bitcast<u32>(firstLeadingBit(s));
    r[6] = firstTrailingBit(u);
    r[7] = bitcast<u32>(firstTrailingBit(s));
    r[8] = extractBits(u, v.offset, v.count);
    r[9] = bitcast<u32>(extractBits(s, v.offset, v.count));
    r[10] = insertBits(u, v.newbits, v.offset, v.count);
    r[11] = bitcast<u32>(insertBits(s, bitcast<i32>(v.newbits), v.offset, v.count));
    r[12] = reverseBits(u);
    r[13] = bitcast<u32>(reverseBits(s));
    let vv = vec2<u32>(u, ~u);
    let c = countLeadingZeros(vv) + countTrailingZeros(vv) * 64u + countOneBits(vv) * 4096u;
    r[14] = c.x ^ (c.y << 16u);
    let fl = firstLeadingBit(vec2<i32>(s, ~s)) + firstTrailingBit(vec2<i32>(s >> 4u, s << 4u));
    r[15] = bitcast<u32>(fl.x * 256 + fl.y);
    results[i] = r;
}
