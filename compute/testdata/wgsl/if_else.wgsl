// if_else: if / else if / else chains, nested ifs, conditions with side
// effects and short-circuit operators, early returns from functions and
// from the entry point.

@group(0) @binding(0) var<storage, read> inputs: array<i32>;
// 3 results per element.
@group(0) @binding(1) var<storage, read_write> results: array<i32>;

fn classify(x: i32) -> i32 {
    if (x < -1000) {
        return 1;
    } else if (x < 0) {
        if ((x & 1) == 0) {
            return 2;
        }
        return 3;
    } else if (x == 0) {
        return 4;
    } else if (x < 1000 && (x % 7) == 3) {
        return 5;
    } else if x < 1000 {            // no parentheses
        return 6;
    } else {
        if (x > 100000) {
            if (x > 1000000) { return 7; } else { return 8; }
        }
    }
    return 9;
}

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    let x = inputs[i];
    let o = i * 3u;
    results[o] = classify(x);
    var y = 0;
    if (x > 0) {
        y = 1;
    } else {
        y = -1;
    }
    if ((x & 3) == 1) { y *= 10; } else if ((x & 3) == 2) { y *= 100; }
    results[o + 1u] = y;
    results[o + 2u] = -5;
    if (x % 3 == 0) {
        return;                     // the result stays -5
    }
    results[o + 2u] = classify(x / 2) + 10;
}
