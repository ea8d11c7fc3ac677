// phony: phony assignments `_ = e`: the expression is evaluated (a call's
// side effects happen) and its value dropped; `_ = buffer` makes a
// resource statically used so that it stays in the pipeline's interface
// though nothing reads it.

@group(0) @binding(0) var<storage, read> inputs: array<u32>;
@group(0) @binding(1) var<storage, read_write> results: array<u32>;
@group(0) @binding(2) var<storage, read> kept: array<u32>;
@group(0) @binding(3) var<uniform> kept_uniform: vec4<u32>;

var<private> effects: u32;

fn effect(x: u32) -> u32 {
    effects = effects * 10u + x;
    return x * 2u;
}

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    _ = &kept;
    _ = &kept_uniform;
    let i = gid.x;
    let v = inputs[i];
    _ = effect(v % 7u);
    _ = v * 3u;
    _ = effect((v >> 8u) % 5u) + effect(4u);
    var unused = 0u;
    _ = unused;
    results[i] = effects;
}
