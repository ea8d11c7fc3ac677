// pack_unpack: the data packing builtins pack4x8snorm, pack4x8unorm,
// pack2x16snorm, pack2x16unorm, pack2x16float, pack4xI8, pack4xU8,
// pack4xI8Clamp, pack4xU8Clamp and their unpack counterparts
// (unpack4x8snorm ... unpack4xU8), on values in and out of range.

struct In {
    f: vec4<f32>,       // [-1.5, 1.5]
    h: vec2<f32>,       // in f16's finite range
    i: vec4<i32>,       // [-300, 300]
    bits: u32,
}

struct Out {
    packed: array<u32, 9>,
    u4x8s: vec4<f32>,       // offset 48
    u4x8u: vec4<f32>,
    u2x16s: vec2<f32>,
    u2x16u: vec2<f32>,
    u2x16f: vec2<f32>,
    ui8: vec4<i32>,         // offset 112
    uu8: vec4<u32>,         // size 144
}

@group(0) @binding(0) var<storage, read> inputs: array<In>;
@group(0) @binding(1) var<storage, read_write> outs: array<Out>;

@compute @workgroup_size(32)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let idx = gid.x;
    let v = inputs[idx];
    var o: Out;
    o.packed[0] = pack4x8snorm(v.f);
    o.packed[1] = pack4x8unorm(v.f);
    o.packed[2] = pack2x16snorm(v.f.xy);
    o.packed[3] = pack2x16unorm(v.f.zw);
    o.packed[4] = pack2x16float(v.h);
    o.packed[5] = pack4xI8(v.i);
    o.packed[6] = pack4xU8(bitcast<vec4<u32>>(v.i));
    o.packed[7] = pack4xI8Clamp(v.i);
    o.packed[8] = pack4xU8Clamp(bitcast<vec4<u32>>(v.i));
    let b = v.bits;
    o.u4x8s = unpack4x8snorm(b);
    o.u4x8u = unpack4x8unorm(b);
    o.u2x16s = unpack2x16snorm(b);
    o.u2x16u = unpack2x16unorm(b);
    o.u2x16f = unpack2x16float(b & 0x7bff7bffu);   // no infinities or NaNs
    o.ui8 = unpack4xI8(b);
    o.uu8 = unpack4xU8(b);
    outs[idx] = o;
}
