// scalar_arith: i32, u32 and f32 scalar arithmetic (+ - * / % and unary
// minus) on random operands, with integer division and remainder by zero
// and i32 MIN / -1, whose results WGSL defines (e1 / 0 == e1, e1 % 0 == 0,
// MIN / -1 == MIN, MIN % -1 == 0), wrapping integer overflow, and the f32
// remainder, which truncates (x - y * trunc(x / y)) where GLSL's mod floors.

@group(0) @binding(0) var<storage, read> ia: array<i32>;
@group(0) @binding(1) var<storage, read> ib: array<i32>;
@group(0) @binding(2) var<storage, read> ua: array<u32>;
@group(0) @binding(3) var<storage, read> ub: array<u32>;
@group(0) @binding(4) var<storage, read> fa: array<f32>;
@group(0) @binding(5) var<storage, read> fb: array<f32>;
// 16 results per element: 0-5 i32, 6-10 u32, 11-15 f32 bit patterns.
@group(0) @binding(6) var<storage, read_write> results: array<u32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    let a = ia[i];
    let b = ib[i];
    let o = i * 16u;
    results[o + 0u] = bitcast<u32>(a + b);
    results[o + 1u] = bitcast<u32>(a - b);
    results[o + 2u] = bitcast<u32>(a * b);
    results[o + 3u] = bitcast<u32>(a / b);
    results[o + 4u] = bitcast<u32>(a % b);
    results[o + 5u] = bitcast<u32>(-a);
    let x = ua[i];
    let y = ub[i];
    results[o + 6u] = x / y;
    results[o + 7u] = x % y;
    results[o + 8u] = x * y;
    results[o + 9u] = x - y;
    results[o + 10u] = x + y * 3u;
    let f = fa[i];
    let g = fb[i];
    results[o + 11u] = bitcast<u32>(f + g);
    results[o + 12u] = bitcast<u32>(f - g);
    results[o + 13u] = bitcast<u32>(f * g);
    results[o + 14u] = bitcast<u32>(f / g);
    results[o + 15u] = bitcast<u32>(f % g);
}
