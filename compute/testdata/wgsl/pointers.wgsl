// pointers: ptr<function, T> and ptr<private, T> parameters (to scalars,
// vectors, arrays and structs), let-bound pointers to array elements,
// vectors (components changed through them) and storage buffer elements
// (let p = &a[i]), dereferencing, and pointer composite access (p[i], p.x).

struct Acc {
    sum: u32,
    last: vec2<u32>,
}

@group(0) @binding(0) var<storage, read> inputs: array<u32>;
// 6 results per element.
@group(0) @binding(1) var<storage, read_write> results: array<u32>;

var<private> mine: u32;

fn add_to(p: ptr<function, u32>, by: u32) {
    *p = *p + by;
}

fn set_private(p: ptr<private, u32>, v: u32) {
    *p = v ^ 0x5a5a5a5au;
}

fn swap(a: ptr<function, vec2<u32>>, b: ptr<function, vec2<u32>>) {
    let t = *a;
    *a = *b;
    *b = t;
}

fn fill(arr: ptr<function, array<u32, 8>>, seed: u32) {
    for (var k = 0u; k < 8u; k++) {
        (*arr)[k] = seed * k + 1u;
    }
}

fn accumulate(acc: ptr<function, Acc>, v: u32) {
    (*acc).sum += v;
    acc.last = vec2<u32>(acc.last.y, v);   // pointer composite access
}

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    let v = inputs[i];
    var x = v;
    add_to(&x, 17u);
    add_to(&x, x);
    var arr: array<u32, 8>;
    fill(&arr, v);
    let p = &arr[v & 7u];
    *p = *p * 3u;
    var pa = vec2<u32>(v, 1u);
    var pb = vec2<u32>(2u, v >> 1u);
    swap(&pa, &pb);
    let pv = &pa;
    (*pv).y += 1000u;
    pv.x += 1u;
    var acc = Acc(0u, vec2<u32>(0u));
    for (var k = 0u; k < 4u; k++) {
        accumulate(&acc, v + k);
    }
    let pp = &arr;
    set_private(&mine, pp[v & 7u]);
    let o = i * 6u;
    let out = &results[o];
    *out = x;
    results[o + 1u] = arr[v & 7u] + arr[(v + 1u) & 7u];
    results[o + 2u] = pa.x * 65536u + pa.y;
    results[o + 3u] = pb.x ^ pb.y;
    results[o + 4u] = acc.sum + acc.last.x * 3u + acc.last.y * 5u;
    results[o + 5u] = mine;
}
