// arrays: fixed-size arrays in function scope and in the private address
// space, indexed with runtime values, arrays of arrays, const arrays indexed
// at run time, value semantics (assigning an array copies it), and arrays
// passed to and returned from functions.

@group(0) @binding(0) var<storage, read> inputs: array<u32>;
// 8 results per element.
@group(0) @binding(1) var<storage, read_write> results: array<u32>;

var<private> table: array<u32, 8> = array<u32, 8>(3u, 1u, 4u, 1u, 5u, 9u, 2u, 6u);
var<private> zeros: array<u32, 5>;

const primes = array<u32, 6>(2u, 3u, 5u, 7u, 11u, 13u);

fn reversed(x: array<u32, 4>) -> array<u32, 4> {
    return array<u32, 4>(x[3], x[2], x[1], x[0]);
}

fn total(x: array<u32, 4>) -> u32 {
    var s = 0u;
    for (var k = 0u; k < 4u; k++) {
        s = s * 31u + x[k];
    }
    return s;
}

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    let v = inputs[i];
    var a: array<u32, 16>;
    for (var k = 0u; k < 16u; k++) {
        a[k] = v * (k + 1u);
    }
    let j = v % 16u;
    let o = i * 8u;
    results[o + 0u] = a[j] + a[(j + 5u) & 15u];
    var b = a;          // a copy
    b[j] = 7u;
    results[o + 1u] = a[j] - b[j];
    table[v & 7u] += v;
    results[o + 2u] = table[(v >> 3u) & 7u] + table[v & 7u];
    results[o + 3u] = primes[v % 6u] * zeros[v % 5u] + primes[(v >> 4u) % 6u];
    var grid: array<array<u32, 4>, 4>;
    for (var y = 0u; y < 4u; y++) {
        for (var x = 0u; x < 4u; x++) {
            grid[y][x] = (v >> (y * 8u + x)) & 0xffu;
        }
    }
    let row = grid[(v >> 2u) & 3u];
    results[o + 4u] = total(row);
    results[o + 5u] = total(reversed(row));
    let q = grid[v & 3u][(v >> 6u) & 3u];
    results[o + 6u] = q;
    let arr = array(v, v + 1u, v + 2u);  // element type inferred
    results[o + 7u] = arr[v % 3u] + u32(arrayLength(&inputs) == 0u);
}
