// private_vars: module-scope var<private> variables — with and without
// initializers (uninitialized ones are zero), of scalar, vector, array and
// struct type — changed by several functions; each invocation has its own.

struct State {
    calls: u32,
    total: vec2<i32>,
}

@group(0) @binding(0) var<storage, read> inputs: array<i32>;
// 6 results per element.
@group(0) @binding(1) var<storage, read_write> results: array<i32>;

var<private> counter: u32;
var<private> weights: array<i32, 4> = array<i32, 4>(2, -3, 5, 7);
var<private> zeros: array<f32, 3>;
var<private> state: State;
var<private> bias: vec2<i32> = vec2<i32>(100, -100);

fn advance(x: i32) {
    counter += 1u;
    state.calls = counter * 10u;
    state.total += vec2<i32>(x * weights[counter % 4u], x) + bias;
    weights[counter % 4u] = x;
}

fn finish() -> i32 {
    bias = -bias;
    return state.total.x - state.total.y;
}

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    let v = inputs[i];
    for (var k = 0; k < i32(i % 5u); k++) {
        advance(v + k);
    }
    let f = finish();
    let o = i * 6u;
    results[o + 0u] = i32(counter);
    results[o + 1u] = i32(state.calls);
    results[o + 2u] = f;
    results[o + 3u] = weights[0] + weights[1] * 2 + weights[2] * 3 + weights[3] * 4;
    results[o + 4u] = bias.x;
    results[o + 5u] = i32(zeros[0] + zeros[1] + zeros[2]) + i32(state.total.y == 0);
}
