// for_while: for loops (with continue, which must still run the update
// statement, break, an empty header, a compound update, nested loops) and
// while loops with break and continue.

@group(0) @binding(0) var<storage, read> inputs: array<u32>;
// 5 results per element.
@group(0) @binding(1) var<storage, read_write> results: array<u32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    let v = inputs[i];
    let n = v % 40u;
    var a = 0u;
    for (var k = 0u; k < n; k++) {
        if ((k & 3u) == 1u) {
            continue;
        }
        if (k * k > v % 1000u) {
            break;
        }
        a += k + 1u;
    }
    var b = 0u;
    for (var k = 1u; k < 1000u; k += k) {
        b = b * 3u + (v / k) % 7u;
    }
    var c = 0u;
    var k = 0u;
    for (;;) {
        k++;
        if (k > n) { break; }
        c ^= v >> (k % 32u);
    }
    var d = 0u;
    var x = v;
    while (x != 0u) {
        if ((x & 1u) == 0u) {
            x >>= 1u;
            continue;
        }
        d++;
        x >>= 1u;
        if (d >= 12u) {
            break;
        }
    }
    var e = 0u;
    for (var p = 0u; p < 6u; p++) {
        var q = 0u;
        while q < 6u {
            q++;
            if (q == p) { continue; }
            if (q > ((v >> p) & 7u)) { break; }
            e += p * 10u + q;
        }
    }
    let o = i * 5u;
    results[o] = a;
    results[o + 1u] = b;
    results[o + 2u] = c;
    results[o + 3u] = d;
    results[o + 4u] = e;
}
