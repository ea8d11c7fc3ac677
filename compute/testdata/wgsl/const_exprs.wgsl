// const_exprs: const declarations at module and function scope, abstract
// int and float arithmetic beyond i32 and f32 (evaluated exactly at shader
// creation), const vectors, matrices and arrays (indexed at run time),
// const-evaluated builtins, const_assert at module and function scope, and
// array sizes given by consts.

const N = 8;                        // AbstractInt
const BIG = 1 << 40;                // beyond i32
const SMALL = BIG >> 38;            // 4
const MAXU = 4294967296 - 1;        // 4294967295 as a u32
const NEG: i32 = -(N * N) / 3;      // -21: truncating division
const MASK = ~0u >> 28u;            // 15u
const THIRD = 1.0 / 3.0;            // AbstractFloat
const DIFF = ((1.0 + 1e-10) - 1.0) * 1e10; // 1.000000082740371: 0 in f32
const BIGF = 16777217.0 * 2.0 - 33554433.0; // 1.0: 0 in f32
const ROOT = sqrt(16.0) + abs(-3.0) + max(2.0, 0.5); // 9.0
const V = vec3(1, 2, 3) * 2;        // vec3 of AbstractInt
const M = mat2x2(1.0, 2.0, 3.0, 4.0);
const LUT = array<u32, 4>(3u, 1u, 4u, 1u);
const SEL = select(10, 20, N > 4);  // 20
const COUNT: u32 = u32(SMALL) * 2u; // 8u

const_assert N == 8;
const_assert SMALL * 2 == N;
const_assert ROOT == 9.0;
const_assert DIFF > 1.0 && BIGF == 1.0;
const_assert V.z == 6 && V.x + V.y == 6;
const_assert MAXU > BIG / 1024;

@group(0) @binding(0) var<storage, read> inputs: array<u32>;
// 8 results per element.
@group(0) @binding(1) var<storage, read_write> results: array<u32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    const LOCAL = N * 3 + SMALL;    // 28
    const_assert LOCAL == 28;
    let i = gid.x;
    let v = inputs[i];
    var buf: array<u32, COUNT>;
    for (var k = 0u; k < COUNT; k++) {
        buf[k] = v + k * u32(LOCAL);
    }
    let o = i * 8u;
    results[o + 0u] = buf[v % COUNT] + LUT[v & 3u];
    results[o + 1u] = u32(MAXU) ^ v;
    results[o + 2u] = bitcast<u32>(NEG * i32(v & 0xffu));
    results[o + 3u] = (v & MASK) + u32(SEL);
    results[o + 4u] = bitcast<u32>(f32(v & 0xffffu) * THIRD);
    results[o + 5u] = bitcast<u32>(f32(DIFF));
    let m = M * vec2<f32>(f32(v & 7u), 1.0);
    results[o + 6u] = u32(m.x) * 100u + u32(m.y);
    results[o + 7u] = u32(V[v % 3u]) + u32(BIG / (1 << 36)) + u32(BIGF * ROOT) * 1000u / 9u;
}
