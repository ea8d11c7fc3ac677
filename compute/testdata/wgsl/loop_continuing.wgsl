// loop_continuing: loop with a continuing block ending in break if, where
// the body uses continue (which must run the continuing block — a loop that
// skipped it would never advance), the continuing block uses a let declared
// in the body, and nested loops break out of the inner loop only.

@group(0) @binding(0) var<storage, read> inputs: array<u32>;
// 4 results per element.
@group(0) @binding(1) var<storage, read_write> results: array<u32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    let v = inputs[i];
    let n = (v & 31u) + 1u;
    var k = 0u;
    var sum = 0u;
    var skipped = 0u;
    loop {
        let step = (k & 1u) + 1u;
        if (k % 3u == 0u) {
            skipped += 1u;
            continue;
        }
        sum += k * v;
        continuing {
            k += step;
            break if k >= n;
        }
    }
    let o = i * 4u;
    results[o] = sum;
    results[o + 1u] = skipped * 1000u + k;
    // Nested: the inner break leaves the inner loop only.
    var outer = 0u;
    var total = 0u;
    loop {
        var inner = 0u;
        loop {
            if (inner == outer) {
                break;
            }
            total += inner ^ v;
            inner++;
            continuing {
                break if inner > 6u;
            }
        }
        outer++;
        if (outer > (v >> 28u) + 2u) {
            break;
        }
    }
    results[o + 2u] = total;
    results[o + 3u] = outer;
}
