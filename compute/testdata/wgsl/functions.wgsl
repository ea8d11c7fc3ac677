// functions: user functions with nested calls, struct and vector results,
// early returns, parameters shadowed by locals in inner blocks, functions
// and variables whose names are GLSL keywords or reserved there (input,
// output, sample, buffer, uniform, texture, float, int, ivec2, sampler2D,
// centroid, a__b, gl_Foo), and user functions shadowing builtins (dot, mix).

struct Stats {
    lo: u32,
    hi: u32,
    mid: vec2<u32>,
}

@group(0) @binding(0) var<storage, read> input: array<u32>;
// 8 results per element.
@group(0) @binding(1) var<storage, read_write> output: array<u32>;

fn sq(x: u32) -> u32 { return x * x; }
fn cube(x: u32) -> u32 { return sq(x) * x; }
fn poly(x: u32) -> u32 { return cube(x) + sq(x + 1u) + 1u; }

fn stats(a: u32, b: u32) -> Stats {
    if (a < b) {
        return Stats(a, b, vec2<u32>(a + b, b - a));
    }
    return Stats(b, a, vec2<u32>(a + b, a - b));
}

fn swap2(v: vec2<u32>) -> vec2<u32> { return v.yx; }

fn sample(buffer: u32, uniform: u32) -> u32 {
    var texture = buffer ^ uniform;
    {
        let buffer = texture * 3u;  // shadows the parameter
        texture += buffer;
    }
    return texture + buffer;
}

fn float(int: u32) -> u32 { return int + 1u; }
fn ivec2(centroid: u32) -> u32 { return centroid * 2u; }
fn sampler2D(a__b: u32, gl_Foo: u32) -> u32 { return a__b - gl_Foo; }

fn dot(a: u32, b: u32) -> u32 { return a * 1000u + b; }    // shadows the builtin
fn mix(a: u32) -> u32 { return a + 5u; }

fn collatz_steps(start: u32) -> u32 {
    var x = start;
    for (var n = 0u; n < 64u; n++) {
        if (x <= 1u) {
            return n;
        }
        if ((x & 1u) == 0u) {
            x = x / 2u;
        } else {
            x = 3u * x + 1u;
        }
    }
    return 999u;
}

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    let v = input[i];
    let s = stats(v & 0xffffu, v >> 16u);
    let o = i * 8u;
    output[o] = poly(v & 0x3ffu);
    output[o + 1u] = s.lo * 3u + s.hi;
    output[o + 2u] = dot(swap2(s.mid).x, stats(s.hi, s.lo).mid.y);
    output[o + 3u] = sample(v, v >> 3u);
    output[o + 4u] = float(ivec2(v)) + sampler2D(v, v >> 1u);
    output[o + 5u] = mix(collatz_steps((v & 0xfffu) + 1u));
    output[o + 6u] = poly(poly(v & 15u) & 0xffu);
    let input = v + 1u;                 // a local shadowing the buffer
    output[o + 7u] = input * 2u;
}
