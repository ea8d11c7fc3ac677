// quantize_f16: quantizeToF16 of f32 scalars and vectors within f16's
// finite range (normal f16 values; rounding to a neighbouring f16), the
// vec2 case being unpack2x16float(pack2x16float(e)).

@group(0) @binding(0) var<storage, read> inputs: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read_write> results: array<vec4<f32>>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    let v = inputs[i];
    results[i * 2u] = vec4<f32>(quantizeToF16(v.x), quantizeToF16(v.yzw));
    let q2 = quantizeToF16(v.xy);
    let u2 = unpack2x16float(pack2x16float(v.zw));
    results[i * 2u + 1u] = vec4<f32>(q2, u2);
}
