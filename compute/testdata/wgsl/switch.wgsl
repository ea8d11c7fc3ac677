// switch: switch statements on u32 and i32 with multiple selectors per
// case, default inside a case list, case selectors given by const
// expressions, the optional colon, break inside a case, and a switch inside
// a loop whose cases continue the loop (continue goes to the loop, break
// only leaves the switch).

@group(0) @binding(0) var<storage, read> inputs: array<u32>;
// 4 results per element.
@group(0) @binding(1) var<storage, read_write> results: array<u32>;

const BASE = 40u;

fn pick(x: u32) -> u32 {
    var r = 0u;
    switch x {
        case 0u, 1u: {
            r = 10u;
        }
        case 2u, default, 9u: {
            r = 20u;
        }
        case 3u {
            r = 30u;
        }
        case 4u, 5u, 6u, {
            r = x * 3u;
            if (x == 5u) {
                break;
            }
            r += 1u;
        }
        case BASE + 1u, BASE * 2u: {
            r = 77u;
        }
    }
    return r;
}

fn signed_pick(x: i32) -> i32 {
    switch (x) {
        case -1: { return 100; }
        case -2, -3: { return 200; }
        case 0x7fffffff: { return 300; }
        case default: { return x; }
    }
}

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    let v = inputs[i];
    let o = i * 4u;
    results[o] = pick(v % 12u) + pick(v % 97u) * 1000u;
    results[o + 1u] = bitcast<u32>(signed_pick(bitcast<i32>(v) % 5));
    var count = 0u;
    var k = 0u;
    loop {
        if (k >= 16u) { break; }
        k++;
        switch ((v >> k) & 3u) {
            case 0u: {
                continue;           // the loop's next iteration
            }
            case 1u: {
                break;              // leaves the switch only
            }
            case 2u: {
                count += 100u;
            }
            default: {
                count += 1u;
                continue;
            }
        }
        count += 10000u;
    }
    results[o + 2u] = count;
    var acc = 0u;
    for (var j = 0u; j < 8u; j++) {
        switch (j + v) % 4u {
            case 0u, 2u: { acc += j; }
            default: { if (j == 6u) { break; } acc += 100u; }
        }
    }
    results[o + 3u] = acc;
}
