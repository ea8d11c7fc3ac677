package wgsl_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/gfxcuda/gfxcuda/shader"
	"github.com/gfxcuda/gfxcuda/shader/wgsl"
	"github.com/gfxcuda/gfxcuda/spirv"
)

// translate translates src and compiles the GLSL with glslang; the test
// fails on any error. Where spirv-val is installed it validates the SPIR-V
// for Vulkan 1.1 (with the features the Result names).
func translate(t *testing.T, name, src string, opts ...wgsl.Options) (*wgsl.Result, *shader.Module) {
	t.Helper()
	o := wgsl.Options{Filename: name + ".wgsl"}
	if len(opts) > 0 {
		o = opts[0]
	}
	r, err := wgsl.Translate([]byte(src), o)
	if err != nil {
		t.Fatalf("%s: Translate: %v", name, err)
	}
	m, err := shader.Compile([]byte(r.GLSL), shader.Options{Language: shader.GLSL, NoCache: true, Filename: name + ".comp"})
	if err != nil {
		t.Fatalf("%s: glslang rejected the GLSL: %v\n%s", name, err, numbered(r.GLSL))
	}
	for _, w := range m.Warnings {
		t.Errorf("%s: glslang warning: %v\n%s", name, w, numbered(r.GLSL))
	}
	validate(t, name, r, m)
	return r, m
}

func numbered(s string) string {
	lines := strings.Split(s, "\n")
	var b strings.Builder
	for i, l := range lines {
		b.WriteString(strings.Repeat(" ", 4-len(itoa(i+1))))
		b.WriteString(itoa(i + 1))
		b.WriteString("  ")
		b.WriteString(l)
		b.WriteByte('\n')
	}
	return b.String()
}

func itoa(i int) string {
	if i == 0 {
		return "0"
	}
	var d []byte
	for ; i > 0; i /= 10 {
		d = append([]byte{byte('0' + i%10)}, d...)
	}
	return string(d)
}

func validate(t *testing.T, name string, r *wgsl.Result, m *shader.Module) {
	t.Helper()
	val, err := exec.LookPath("spirv-val")
	if err != nil {
		return
	}
	path := filepath.Join(t.TempDir(), name+".spv")
	if err := os.WriteFile(path, m.SPIRV, 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"--target-env", "vulkan1.1"}
	for _, f := range r.Features {
		if f == "uniformBufferStandardLayout" {
			args = append(args, "--uniform-buffer-standard-layout")
		}
	}
	out, err := exec.Command(val, append(args, path)...).CombinedOutput()
	if err != nil {
		t.Errorf("%s: spirv-val: %v\n%s\n%s", name, err, out, numbered(r.GLSL))
	}
}

// programs are valid WGSL compute shaders covering the language; each
// must translate and compile.
var programs = map[string]string{
	"scalars": `
@group(0) @binding(0) var<storage, read_write> out: array<u32>;
@compute @workgroup_size(1)
fn main() {
    var a = 7i; var b = -3i; var u = 9u; var v = 4u; var f = 1.5; var g = -2.25f;
    out[0] = u32(a + b) + u32(a - b) + u32(a * b) + u32(a / b) + u32(a % b);
    out[1] = (u + v) * (u - v) / v % 5u;
    out[2] = (u32(a << 3u) ^ (u >> 1u)) | (v & 6u) | ~u;
    out[3] = u32(f / g) + u32(f % g) + u32(-f) + u32(f * g);
    a += 2; a -= 1; a *= 3; a /= 2; a %= 5; a &= 7; a |= 8; a ^= 1; a <<= 2u; a >>= 1u;
    u += 1u; u /= 3u; u %= 2u; u <<= v; u >>= v;
    f += 1.0; f /= 2.0; f %= 0.75; f *= g;
    a++; a--; u++;
    let c = a < b || (u >= v && f != g);
    let d = (!c & (a == 3)) | (b <= 0);
    out[4] = select(0u, 1u, c) + select(0u, 2u, d) + u32(a) + u;
    out[5] = u32(f32(a) * f) + bitcast<u32>(f) + bitcast<u32>(a);
    let k = 1 << 30;
    let s = u >> (v + 40u);
    out[6] = u32(k) + s;
}`,
	"vectors": `
@group(0) @binding(0) var<storage, read_write> out: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read_write> outi: array<vec4<i32>>;
@compute @workgroup_size(4)
fn main(@builtin(local_invocation_id) lid: vec3<u32>) {
    var v = vec4<f32>(1.0, 2.0, 3.0, 4.0);
    let w = vec3f(0.5) * 2.0 + v.xyz;
    v.x = w.z; v.y += 1.0; v[2] = w[lid.x % 3u];
    let sw = v.wzyx + v.rgba - vec4(v.xy, v.zw);
    let iv = vec4i(1, -2, 3, -4);
    let uv = vec2u(lid.xy);
    let b = iv < vec4i(0) ;
    let e = all(b == vec4(true, false, true, false)) || any(!b);
    outi[lid.x] = iv * 2 + iv / vec4i(3) + iv % vec4i(2, 3, 4, 5) - select(iv, -iv, b) + vec4i(vec2i(uv), 1, 0);
    outi[lid.x] += vec4i(iv.x & 3, iv.y | 4, iv.z ^ 5, ~iv.w) + (iv << vec4u(1u)) + (iv >> uv.xxyy);
    out[lid.x] = sw * select(1.0, 2.0, e) / vec4(2.0) + vec4(vec3f(w), 1.0) % 0.75;
    let bv = (vec3<bool>(true, false, true) & vec3(lid.x > 0u)) | vec3(false);
    if (bv.x) { out[0].x = 0.0; }
}`,
	"matrices": `
@group(0) @binding(0) var<storage, read_write> out: array<vec4<f32>>;
@compute @workgroup_size(1)
fn main() {
    let m2 = mat2x2<f32>(1.0, 2.0, 3.0, 4.0);
    let m3 = mat3x3f(vec3(1.0, 0.0, 0.0), vec3(0.0, 2.0, 0.0), vec3(0.0, 0.0, 3.0));
    let m23 = mat2x3<f32>(vec3f(1.0), vec3f(2.0));
    let m32 = mat3x2f(1.0, 2.0, 3.0, 4.0, 5.0, 6.0);
    var m4 = mat4x4f();
    m4[1] = vec4(1.0);
    m4[2][3] = 5.0;
    let p = m23 * m32;
    let q = m32 * m23;
    let v3 = m3 * vec3f(1.0, 2.0, 3.0) + vec3f(1.0, 2.0, 3.0) * m3;
    let s = m2 * 2.0 + 0.5 * m2 - m2;
    out[0] = vec4(p[0], v3.x) + vec4(q[1].xy, s[1]);
    out[1] = vec4(determinant(m2), determinant(m3), transpose(m23)[1]);
    out[2] = m4[1] + m4[2] + vec4(transpose(m4)[3]);
    let dyn = m3[u32(out[3].x) % 3u];
    out[3] = vec4(dyn, 1.0);
}`,
	"arrays_structs": `
struct Inner { a: f32, b: vec2<u32> }
struct Outer { id: u32, inner: Inner, list: array<Inner, 3>, flags: array<bool, 2> }
@group(0) @binding(0) var<storage, read_write> out: array<u32>;
fn make(i: u32) -> Outer {
    var o: Outer;
    o.id = i;
    o.inner = Inner(1.5, vec2(i, i + 1u));
    o.list[i % 3u].b.y = 7u;
    o.flags[1] = true;
    return o;
}
@compute @workgroup_size(1)
fn main() {
    let arr = array(1u, 2u, 3u, 4u);
    var copy = arr;
    copy[1] = 9u;
    let consts = array<f32, 3>(1.0, 2.0, 3.0);
    let o = make(copy[1]);
    let z = Outer();
    var nested: array<array<u32, 3>, 2>;
    nested[1][2] = 5u;
    let idx = o.id % 4u;
    out[0] = arr[idx] + copy[idx] + u32(consts[idx % 3u]) + o.list[0].b.y + u32(o.flags[1]) + z.id + nested[1][2];
    out[1] = array<u32, 2>(o.inner.b.x, o.inner.b.y)[idx % 2u];
}`,
	"const_eval": `
const N = 4;
const HALF = N / 2;
const F = 1.0 / 3.0;
const V = vec3(1, 2, 3) * 2;
const M = mat2x2(1.0, 2.0, 3.0, 4.0);
const A = array(1, 2, 3, 4);
const S = sqrt(16.0) + pow(2.0, 3.0) + max(1, 2) + abs(-3) + clamp(7, 0, 5);
const BITS = countOneBits(0xF0u) + reverseBits(1u) + firstLeadingBit(0x10u);
const_assert N == 4;
const_assert S == 4.0 + 8.0 + 2.0 + 3.0 + 5.0;
const_assert BITS == 4u + 0x80000000u + 4u;
const_assert all(V == vec3(2, 4, 6));
const_assert A[2] == 3 && M[1][0] == 3.0;
const_assert (1 << 40) == 1099511627776;
const_assert -7 / 2 == -3 && -7 % 2 == -1;
const_assert u32(-1.5) == 0u && i32(3e9) == 2147483647 && i32(3e9f) == 2147483520;
const_assert dot(vec2(1, 2), vec2(3, 4)) == 11;
const_assert pack4x8unorm(vec4(1.0, 0.0, 0.5, 1.0)) == 0xff800000u + 0xffu;
const_assert bitcast<u32>(1.0f) == 0x3f800000u;
const_assert extractBits(-1i, 4u, 8u) == -1 && insertBits(0u, 0xffu, 4u, 4u) == 0xf0u;
@group(0) @binding(0) var<storage, read_write> out: array<f32, N>;
@compute @workgroup_size(HALF, 1, 1)
fn main(@builtin(local_invocation_index) i: u32) {
    const local = F * 3.0;
    out[i] = local + f32(V[i % 3u]) + M[i % 2u][0] + f32(A[i]) + S;
    switch i {
        case HALF, N: { out[0] = 1.0; }
        case 0u, default: { }
    }
}`,
	"control_flow": `
@group(0) @binding(0) var<storage, read_write> out: array<i32>;
@compute @workgroup_size(8)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let n = i32(gid.x);
    var acc = 0;
    if n == 0 { acc = 1; } else if n == 1 { acc = 2; } else { acc = 3; }
    for (var i = 0; i < n; i++) {
        if i == 2 { continue; }
        if i == 5 { break; }
        acc += i;
    }
    var j = 0;
    while j < 4 { j += 1; if j == 2 { continue; } acc *= 2; }
    loop {
        j -= 1;
        switch j {
            case 1: { continue; }
            case 2, 3: { acc += j; }
            default: { }
        }
        continuing {
            acc += 1;
            break if j <= 0;
        }
    }
    var k = 0;
    loop {
        if k > 3 { break; }
        k++;
        continuing { acc ^= k; }
    }
    for (;;) { break; }
    for (var a = 0u; a < 2u; a += 1u) { }
    out[gid.x] = acc;
}`,
	"functions_pointers": `
struct S { v: vec4<f32>, n: u32 }
var<private> counter: u32;
@group(0) @binding(0) var<storage, read_write> out: array<f32>;
fn bump(p: ptr<private, u32>) -> u32 { *p += 1u; return *p; }
fn scale(s: ptr<function, S>, k: f32) { (*s).v *= k; s.n += 1u; }
fn swap(a: ptr<function, f32>, b: ptr<function, f32>) { let t = *a; *a = *b; *b = t; }
fn sum(a: array<f32, 4>) -> f32 { var s = 0.0; for (var i = 0; i < 4; i++) { s += a[i]; } return s; }
@must_use fn twice(x: f32) -> f32 { return 2.0 * x; }
@compute @workgroup_size(1)
fn main() {
    var s = S(vec4(1.0), 0u);
    scale(&s, 3.0);
    var x = 1.0; var y = 2.0;
    swap(&x, &y);
    let ps = &s;
    ps.v.x = 5.0;
    (*ps).v.y = 6.0;
    var arr = array<f32, 4>(1.0, 2.0, 3.0, 4.0);
    var i = 1;
    let pa = &arr[i];
    i = 3;
    *pa = 10.0;
    let pv = &s.v;
    pv[2] = 7.0;
    _ = twice(x);
    _ = bump(&counter);
    out[0] = s.v.x + s.v.y + s.v.z + f32(s.n) + x + y + sum(arr) + twice(f32(counter));
}`,
	"pointer_params": `
struct Item { v: vec4<f32>, n: atomic<u32> }
struct Buf { count: atomic<u32>, items: array<Item> }
@group(0) @binding(0) var<storage, read_write> buf: Buf;
@group(0) @binding(1) var<uniform> u: array<vec4<f32>, 4>;
@group(0) @binding(2) var<storage, read> ro: array<u32>;
var<workgroup> wg: array<atomic<u32>, 8>;
var<workgroup> tile: array<f32, 64>;
fn bump(c: ptr<storage, atomic<u32>, read_write>) -> u32 { return atomicAdd(c, 1u); }
fn bumpw(c: ptr<workgroup, atomic<u32>>) { atomicAdd(c, 2u); }
fn scale(it: ptr<storage, Item, read_write>, k: f32) { it.v *= k; bump(&(*it).n); }
fn sum4(a: ptr<uniform, array<vec4<f32>, 4>>) -> vec4<f32> { return a[0] + a[1] + (*a)[2] + a[3]; }
fn len(a: ptr<storage, array<u32>>) -> u32 { return arrayLength(a); }
fn fill(t: ptr<workgroup, array<f32, 64>>, i: u32, x: f32) { t[i] = x; }
fn inc(p: ptr<function, f32>) { *p += 1.0; }
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) li: u32) {
    let i = bump(&buf.count);
    scale(&buf.items[i], 2.0);
    scale(&buf.items[li + 1u], 3.0);
    let p = &buf.items[li];
    scale(p, 4.0);
    bumpw(&wg[li % 8u]);
    fill(&tile, li, f32(len(&ro)));
    var arr = array<f32, 2>();
    inc(&arr[1]);
    buf.items[0].v += sum4(&u) + vec4(arr[1] + tile[li]);
}`,
	"globals_workgroup": `
const TILE = 64u;
var<private> seed: u32 = 12345u;
var<private> table: array<f32, 32>;
var<workgroup> tile: array<f32, TILE>;
var<workgroup> shared_sum: atomic<u32>;
var<workgroup> flag: bool;
@group(0) @binding(0) var<storage, read_write> data: array<f32>;
@compute @workgroup_size(TILE)
fn main(@builtin(local_invocation_index) li: u32, @builtin(workgroup_id) wg: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    tile[li] = data[li + wg.x * TILE] + table[li % 32u];
    workgroupBarrier();
    atomicAdd(&shared_sum, u32(tile[(li + 1u) % TILE]));
    if li == 0u { flag = true; }
    let total = workgroupUniformLoad(&shared_sum);
    let f = workgroupUniformLoad(&flag);
    seed = seed * 1103515245u + 12345u;
    data[li + wg.x * TILE] = f32(total) + f32(nwg.x) + select(0.0, 1.0, f) + f32(seed & 1u);
}`,
	"overrides": `
var<private> early: f32 = scale * 3.0;
@id(5) override scale: f32 = 2.0;
override wg: u32 = 32;
override enabled: bool = true;
override offset: i32;
override twice_wg = wg * 2u;
override block = 16u;
var<workgroup> buf: array<f32, block * 2u>;
@group(0) @binding(0) var<storage, read_write> data: array<f32>;
@compute @workgroup_size(wg, 1, 1)
fn main(@builtin(local_invocation_index) li: u32) {
    buf[li % (block * 2u)] = f32(li);
    workgroupBarrier();
    if enabled {
        data[li] = buf[(li + 1u) % (block * 2u)] * scale + f32(offset) + f32(twice_wg) + early;
    }
}`,
	"numeric_builtins": `
@group(0) @binding(0) var<storage, read_write> out: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read_write> outi: array<vec4<i32>>;
@compute @workgroup_size(1)
fn main() {
    let x = out[0];
    let s = x.x;
    var r = abs(x) + acos(x) + acosh(x) + asin(x) + asinh(x) + atan(x) + atanh(x) + atan2(x, x)
        + ceil(x) + clamp(x, vec4(0.0), vec4(1.0)) + cos(x) + cosh(x) + degrees(x) + exp(x) + exp2(x)
        + floor(x) + fma(x, x, x) + fract(x) + inverseSqrt(x) + log(x) + log2(x) + max(x, x) + min(x, x)
        + mix(x, x, x) + mix(x, x, 0.5) + pow(x, x) + radians(x) + round(x) + saturate(x) + sign(x) + sin(x)
        + sinh(x) + smoothstep(vec4(0.0), vec4(1.0), x) + sqrt(x) + step(x, x) + tan(x) + tanh(x) + trunc(x)
        + quantizeToF16(x) + ldexp(x, vec4i(2));
    r += vec4(cross(x.xyz, x.yzx), dot(x, x)) + vec4(length(x), distance(x, x), determinant(mat2x2f(x.xy, x.zw)), 0.0);
    r += normalize(x) + faceForward(x, x, x) + reflect(x, x) + refract(x, x, 0.5);
    let fr = frexp(x);
    let mf = modf(s);
    r += fr.fract + vec4<f32>(fr.exp) + vec4(mf.fract, mf.whole, quantizeToF16(s), ldexp(s, 3));
    out[1] = r;
    let i = outi[0];
    let u = vec4<u32>(i);
    outi[1] = abs(i) + clamp(i, vec4(-1), vec4(1)) + max(i, i) + min(i, i) + sign(i)
        + countLeadingZeros(i) + countOneBits(i) + countTrailingZeros(i) + firstLeadingBit(i) + firstTrailingBit(i)
        + reverseBits(i) + extractBits(i, 1u, 3u) + insertBits(i, i, 2u, 5u) + vec4i(dot(i, i));
    let uu = abs(u) + countLeadingZeros(u) + countOneBits(u) + countTrailingZeros(u) + firstLeadingBit(u)
        + firstTrailingBit(u) + reverseBits(u) + extractBits(u, 1u, 3u) + insertBits(u, u, 2u, 5u) + vec4(dot(u, u));
    outi[2] = vec4<i32>(uu) + vec4i(dot4I8Packed(u.x, u.y), i32(dot4U8Packed(u.z, u.w)), 0, 0);
}`,
	"packing_bitcast": `
@group(0) @binding(0) var<storage, read_write> out: array<u32>;
@group(0) @binding(1) var<storage, read_write> outf: array<vec4<f32>>;
@compute @workgroup_size(1)
fn main() {
    let v = outf[0];
    out[0] = pack4x8snorm(v) ^ pack4x8unorm(v) ^ pack2x16snorm(v.xy) ^ pack2x16unorm(v.zw) ^ pack2x16float(v.xz);
    let i = vec4<i32>(v);
    let u = vec4<u32>(v);
    out[1] = pack4xI8(i) ^ pack4xU8(u) ^ pack4xI8Clamp(i) ^ pack4xU8Clamp(u);
    outf[1] = unpack4x8snorm(out[0]) + unpack4x8unorm(out[1]) + vec4(unpack2x16snorm(out[2]), unpack2x16unorm(out[3]))
        + vec4(unpack2x16float(out[4]), 0.0, 0.0) + vec4<f32>(unpack4xI8(out[5])) + vec4<f32>(unpack4xU8(out[6]));
    out[7] = bitcast<u32>(v.x) + bitcast<u32>(i.y) + u32(bitcast<i32>(u.z)) + u32(bitcast<f32>(u.w));
    let bv = bitcast<vec4<u32>>(v) + bitcast<vec4<u32>>(i);
    out[8] = bv.x + bitcast<vec2<u32>>(vec2<i32>(1, 2)).y;
}`,
	"atomics": `
struct Counters { hits: atomic<u32>, total: atomic<i32>, pad: u32 }
@group(0) @binding(0) var<storage, read_write> c: Counters;
@group(0) @binding(1) var<storage, read_write> bins: array<atomic<u32>>;
var<workgroup> local_max: atomic<i32>;
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) li: u32) {
    let v = i32(li) - 32;
    atomicMax(&local_max, v);
    atomicMin(&local_max, -v);
    atomicAdd(&c.hits, 1u);
    atomicSub(&c.total, v);
    atomicAnd(&bins[li % 4u], 0xffu);
    atomicOr(&bins[li % 4u], 1u << (li % 8u));
    atomicXor(&bins[0], li);
    let old = atomicExchange(&bins[1], li);
    let r = atomicCompareExchangeWeak(&c.hits, old, 7u);
    var tries = 0u;
    loop {
        let cur = atomicLoad(&bins[2]);
        let res = atomicCompareExchangeWeak(&bins[2], cur, cur + 1u);
        tries++;
        if res.exchanged || tries > 10u { break; }
    }
    workgroupBarrier();
    atomicStore(&bins[3], u32(atomicLoad(&local_max)) + select(0u, 1u, r.exchanged) + r.old_value);
    storageBarrier();
    textureBarrier();
}`,
	"textures": `
@group(0) @binding(0) var t1: texture_1d<f32>;
@group(0) @binding(1) var t2: texture_2d<f32>;
@group(0) @binding(2) var t2a: texture_2d_array<i32>;
@group(0) @binding(3) var t3: texture_3d<u32>;
@group(0) @binding(4) var tc: texture_cube<f32>;
@group(0) @binding(5) var tca: texture_cube_array<f32>;
@group(0) @binding(6) var tms: texture_multisampled_2d<f32>;
@group(0) @binding(7) var td: texture_depth_2d;
@group(0) @binding(8) var tda: texture_depth_2d_array;
@group(0) @binding(9) var tdc: texture_depth_cube;
@group(0) @binding(10) var tdms: texture_depth_multisampled_2d;
@group(0) @binding(11) var tdca: texture_depth_cube_array;
@group(0) @binding(12) var s: sampler;
@group(0) @binding(13) var sc: sampler_comparison;
@group(0) @binding(14) var f2a: texture_2d_array<f32>;
@group(0) @binding(15) var f3: texture_3d<f32>;
@group(1) @binding(0) var<storage, read_write> out: array<vec4<f32>>;
@compute @workgroup_size(1)
fn main() {
    var r = vec4(0.0);
    r.x += f32(textureDimensions(t1)) + f32(textureDimensions(t1, 0));
    r += vec4(vec2<f32>(textureDimensions(t2)), vec2<f32>(textureDimensions(t2, 1u)));
    r += vec4(vec3<f32>(textureDimensions(t3)), f32(textureNumLayers(t2a)));
    r += vec4(vec2<f32>(textureDimensions(tc)), vec2<f32>(textureDimensions(tca)));
    r += vec4(f32(textureNumLevels(t2)), f32(textureNumLevels(td)), f32(textureNumSamples(tms)), f32(textureNumSamples(tdms)));
    r += vec4(f32(textureNumLayers(tda)), f32(textureNumLayers(tca)), f32(textureNumLayers(tdca)), f32(textureDimensions(tdms).x));
    r += textureLoad(t1, 0, 0) + textureLoad(t2, vec2(1, 2), 0) + vec4<f32>(textureLoad(t2a, vec2u(1u), 2, 0))
        + vec4<f32>(textureLoad(t3, vec3(0, 0, 0), 0u)) + textureLoad(tms, vec2(0), 3);
    r.x += textureLoad(td, vec2(0), 0) + textureLoad(tda, vec2(0), 1, 0) + textureLoad(tdms, vec2(0), 1);
    r += textureSampleLevel(t1, s, 0.5, 0.0) + textureSampleLevel(t2, s, vec2(0.5), 1.0) + textureSampleLevel(t2, s, vec2(0.5), 0.0, vec2(1, -1))
        + textureSampleLevel(f2a, s, vec2(0.5), 1, 0.0) + textureSampleLevel(f3, s, vec3(0.5), 0.0, vec3(1i))
        + textureSampleLevel(tc, s, vec3(0.5), 0.0) + textureSampleLevel(tca, s, vec3(0.5), 2u, 0.0);
    r.y += textureSampleLevel(td, s, vec2(0.5), 0) + textureSampleLevel(tda, s, vec2(0.5), 0, 0u) + textureSampleLevel(tdc, s, vec3(0.5), 0)
        + textureSampleLevel(tdca, s, vec3(0.5), 1, 0);
    r += textureSampleGrad(t2, s, vec2(0.5), vec2(0.1), vec2(0.1)) + textureSampleGrad(f2a, s, vec2(0.5), 0, vec2(0.1), vec2(0.1), vec2(1))
        + textureSampleGrad(tc, s, vec3(0.5), vec3(0.1), vec3(0.1));
    r.z += textureSampleCompareLevel(td, sc, vec2(0.5), 0.5) + textureSampleCompareLevel(td, sc, vec2(0.5), 0.5, vec2(1))
        + textureSampleCompareLevel(tda, sc, vec2(0.5), 1, 0.5) + textureSampleCompareLevel(tdc, sc, vec3(0.5), 0.5);
    r += textureGather(0, t2, s, vec2(0.5)) + textureGather(1u, t2, s, vec2(0.5), vec2(1)) + textureGather(2, f2a, s, vec2(0.5), 1)
        + textureGather(3, tc, s, vec3(0.5)) + textureGather(0, tca, s, vec3(0.5), 1)
        + textureGather(td, s, vec2(0.5)) + textureGather(tda, s, vec2(0.5), 0) + textureGather(tdc, s, vec3(0.5)) + textureGather(tdca, s, vec3(0.5), 0u)
        + textureGatherCompare(td, sc, vec2(0.5), 0.5) + textureGatherCompare(tda, sc, vec2(0.5), 1, 0.5)
        + textureGatherCompare(tdc, sc, vec3(0.5), 0.5) + textureGatherCompare(tdca, sc, vec3(0.5), 1, 0.5)
        + textureSampleBaseClampToEdge(t2, s, vec2(0.5));
    out[0] = r;
}`,
	"storage_textures": `
@group(0) @binding(0) var w1: texture_storage_1d<rgba8unorm, write>;
@group(0) @binding(1) var w2: texture_storage_2d<rgba32float, write>;
@group(0) @binding(2) var w2a: texture_storage_2d_array<r32uint, write>;
@group(0) @binding(3) var w3: texture_storage_3d<rgba16sint, write>;
@group(0) @binding(4) var r2: texture_storage_2d<r32float, read>;
@group(0) @binding(5) var rw2: texture_storage_2d<r32sint, read_write>;
@compute @workgroup_size(8, 8)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let d = textureDimensions(w2);
    if any(gid.xy >= d) { return; }
    let c = textureLoad(r2, gid.xy);
    textureStore(w1, gid.x, c);
    textureStore(w2, vec2<i32>(gid.xy), c * 2.0);
    textureStore(w2a, gid.xy, i32(gid.z), vec4(gid.x));
    textureStore(w3, vec3(gid), vec4(-1));
    let v = textureLoad(rw2, gid.xy);
    textureStore(rw2, gid.xy, v + vec4(1));
    _ = textureNumLayers(w2a) + textureDimensions(w1) + textureDimensions(w3).z;
}`,
	"f16": `
enable f16;
struct H { a: f16, b: vec3<f16>, m: mat2x2<f16>, c: f32 }
@group(0) @binding(0) var<storage, read_write> h: H;
@group(0) @binding(1) var<storage, read_write> hs: array<vec4h>;
@compute @workgroup_size(1)
fn main() {
    let x = h.a * 2.0h + f16(h.c);
    let v = vec4h(h.b, x);
    h.b = sqrt(abs(h.b)) + vec3(1.5h) * h.m[0].x;
    h.m = h.m * mat2x2h(1.0, 0.0, 0.0, 1.0);
    hs[0] = v + hs[1] * 0.5;
    h.c = f32(dot(v, v)) + f32(bitcast<vec2<f16>>(1u).x) + bitcast<f32>(vec2<f16>(x, 1.0h)) + f32(i32(x)) + f32(u32(x));
    let w = bitcast<vec2<u32>>(v);
    hs[2] = bitcast<vec4h>(w);
    let fr = frexp(x);
    h.a = fr.fract + f16(fr.exp);
}`,
	"shadowing": `
var<private> x: f32;
fn f(x: f32) -> f32 { let y = x; { let x = y * 2.0; return x; } }
@group(0) @binding(0) var<storage, read_write> out: array<f32>;
@compute @workgroup_size(1)
fn main() {
    var i = 0u;
    loop {
        let x = f32(i);
        { let x = x + 1.0; out[i] = x; }
        if i > 2u { break; }
        continuing { let f = x; i++; out[i] += f; }
    }
    let f = f(x);
    out[0] = f;
}`,
	"renames": `
struct input { output: u32, texture: f32, sample: vec2<f32> }
@group(0) @binding(0) var<storage, read_write> buffer: array<input>;
@group(0) @binding(1) var<uniform> in: input;
var<private> flat: u32;
var<private> gl_thing: f32;
fn texelFetch(out: u32) -> u32 { return out * 2u; }
fn main(inout: u32) -> u32 { return inout + 1u; }
fn a__b(x: u32) -> u32 { let Δx = x; return Δx; }
fn _wtaken(x: u32) -> u32 { return x; }
@compute @workgroup_size(1)
fn entry(@builtin(global_invocation_id) sample: vec3<u32>) {
    let float = texelFetch(sample.x) + main(flat) + a__b(in.output) + _wtaken(1u);
    var texture = in.texture + gl_thing;
    let centroid = buffer[0].sample;
    buffer[float].output = float;
    buffer[float].texture = texture + centroid.x;
}`,
	"entry_struct_params": `
struct In {
    @builtin(global_invocation_id) gid: vec3<u32>,
    @builtin(local_invocation_index) idx: u32,
}
@group(0) @binding(0) var<storage, read_write> out: array<u32>;
@compute @workgroup_size(16)
fn other(in: In) { out[in.gid.x] = in.idx; }
@compute @workgroup_size(32)
fn main(in: In, @builtin(workgroup_id) wg: vec3<u32>) { out[in.gid.x] = in.idx + wg.x; }`,
	"alias_and_phony": `
alias Float4 = vec4<f32>;
alias Arr = array<Float4, 2>;
@group(0) @binding(0) var<storage, read_write> data: Arr;
@group(0) @binding(1) var<storage, read> unused: array<u32>;
@group(0) @binding(2) var<uniform> params: Float4;
@group(0) @binding(3) var tex: texture_2d<f32>;
@group(0) @binding(4) var smp: sampler;
@compute @workgroup_size(1)
fn main() {
    _ = &unused;
    _ = params;
    _ = tex;
    _ = smp;
    let a: Arr = Arr(Float4(1.0), Float4(2.0));
    data = a;
    data[1] = data[0] + params;
}`,
	"uniform_layouts": `
struct Light { pos: vec3<f32>, intensity: f32 }
struct Params {
    count: u32,
    @align(16) lights: array<Light, 2>,
    scale: vec2<f32>,
    @size(16) bias: f32,
    tint: vec4<f32>,
    m3: mat3x3<f32>,
}
@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read_write> out: array<vec4<f32>>;
@compute @workgroup_size(1)
fn main() {
    let p = params;
    out[0] = vec4(p.lights[1].pos * p.lights[0].intensity, f32(p.count)) + p.tint * p.bias + vec4(p.scale, p.m3[2].xy);
}`,
	"uniform_mat2": `
struct U { m: mat2x2<f32>, v: vec2<f32> }
@group(0) @binding(0) var<uniform> u: U;
@group(0) @binding(1) var<storage, read_write> out: vec2<f32>;
@compute @workgroup_size(1)
fn main() { out = u.m * u.v; }`,
	"subgroups": `
enable subgroups;
@group(0) @binding(0) var<storage, read_write> out: array<u32>;
@compute @workgroup_size(64)
fn main(@builtin(subgroup_invocation_id) sid: u32, @builtin(subgroup_size) ssize: u32, @builtin(global_invocation_id) gid: vec3<u32>) {
    let v = subgroupAdd(sid) + subgroupMax(sid) + subgroupExclusiveAdd(1u) + subgroupBroadcastFirst(gid.x)
        + subgroupShuffle(sid, 0u) + subgroupShuffleXor(sid, 1u) + subgroupBroadcast(sid, 0u) + subgroupBallot(sid == 0u).x
        + select(0u, 1u, subgroupElect()) + select(0u, 1u, subgroupAll(true)) + subgroupAnd(sid) + ssize;
    out[gid.x] = v;
}`,
}

func TestTranslatePrograms(t *testing.T) {
	for name, src := range programs {
		t.Run(name, func(t *testing.T) {
			r, _ := translate(t, name, src)
			// Renamed identifiers live in the translator's namespace, so
			// that renaming the SPIR-V back cannot touch a WGSL name.
			for glsl := range r.Names {
				if glsl != "main" && !strings.HasPrefix(glsl, "_w") {
					t.Errorf("Names has %q -> %q, outside the _w namespace", glsl, r.Names[glsl])
				}
			}
		})
	}
}

// TestStructLayout checks the GLSL layout of a structure zoo against the
// WGSL offsets (specification, "Memory Layout"), as SPIR-V reflection
// reports them.
func TestStructLayout(t *testing.T) {
	src := `
enable f16;
struct A { x: f32, y: vec3<f32> }                  // align 16, size 32
struct B { @size(20) p: f32, @align(8) q: u32 }    // align 8, size 32: p 0, q 24
struct C { h: f16, hv: vec3<f16>, v2: vec2<f16> }  // align 8: h 0, hv 8, v2 16; size 24
struct Zoo {
    a: u32,                  // 0
    b: vec2<f32>,            // 8
    c: vec3<f32>,            // 16
    d: f32,                  // 28
    e: mat2x2<f32>,          // 32 (stride 8)
    f: mat3x2<f32>,          // 48 (stride 8, size 24)
    g: mat2x3<f32>,          // 80 (stride 16, size 32)
    h: A,                    // 112
    i: array<A, 2>,          // 144
    j: B,                    // 208
    @align(64) k: u32,       // 256
    @size(12) l: f16,        // 260
    m: C,                    // 272
    n: array<vec3<f32>, 2>,  // 304 (stride 16)
    o: array<B, 2>,          // 336
    tail: array<f32>,        // 400
}
@group(0) @binding(0) var<storage, read_write> zoo: Zoo;
@compute @workgroup_size(1)
fn main() {
    zoo.a = 1u;
    zoo.j.q = zoo.o[1].q + u32(zoo.m.v2.y) + u32(zoo.i[1].y.z) + u32(zoo.l) + zoo.k;
    let copy = zoo.o;
    zoo.o[0] = copy[1];
    zoo.tail[0] = zoo.h.x + zoo.e[1].y + zoo.f[2].x + zoo.g[1].z + zoo.n[1].z + zoo.d + zoo.c.x + zoo.b.y;
}`
	_, m := translate(t, "zoo", src)
	r := m.Resource("zoo")
	if r == nil {
		t.Fatalf("no resource zoo: %+v", m.Resources)
	}
	// Reflection sizes a structure to the end of its last member (A: 28
	// of 32, C: 20 of 24).
	want := []spirv.Member{
		{Name: "a", Offset: 0, Size: 4}, {Name: "b", Offset: 8, Size: 8}, {Name: "c", Offset: 16, Size: 12},
		{Name: "d", Offset: 28, Size: 4}, {Name: "e", Offset: 32, Size: 16}, {Name: "f", Offset: 48, Size: 24},
		{Name: "g", Offset: 80, Size: 32}, {Name: "h", Offset: 112, Size: 28}, {Name: "i", Offset: 144, Size: 64},
		{Name: "j", Offset: 208, Size: 32}, {Name: "k", Offset: 256, Size: 4}, {Name: "l", Offset: 260, Size: 2},
		{Name: "m", Offset: 272, Size: 20}, {Name: "n", Offset: 304, Size: 32}, {Name: "o", Offset: 336, Size: 64},
		{Name: "tail", Offset: 400, Size: 0},
	}
	if !reflect.DeepEqual(r.Members, want) {
		t.Errorf("members:\n got %+v\nwant %+v", r.Members, want)
	}
	if r.Stride != 4 || r.Size != 400 {
		t.Errorf("stride %d size %d, want 4 and 400", r.Stride, r.Size)
	}
}

func TestUniformLayout(t *testing.T) {
	r, m := translate(t, "uniform_layouts", programs["uniform_layouts"])
	if len(r.Features) != 0 {
		t.Errorf("features %v, want none (std140 expresses this layout)", r.Features)
	}
	u := m.Resource("params")
	want := []spirv.Member{
		{Name: "count", Offset: 0, Size: 4}, {Name: "lights", Offset: 16, Size: 32}, {Name: "scale", Offset: 48, Size: 8},
		{Name: "bias", Offset: 56, Size: 4}, {Name: "tint", Offset: 80, Size: 16}, {Name: "m3", Offset: 96, Size: 48},
	}
	if u == nil || !reflect.DeepEqual(u.Members, want) {
		t.Errorf("params members:\n got %+v\nwant %+v", u, want)
	}
	r, m = translate(t, "uniform_mat2", programs["uniform_mat2"])
	if !reflect.DeepEqual(r.Features, []string{"uniformBufferStandardLayout"}) {
		t.Errorf("features %v, want uniformBufferStandardLayout", r.Features)
	}
	u = m.Resource("u")
	if u == nil || len(u.Members) != 2 || u.Members[1].Offset != 16 || u.Members[0].Size != 16 {
		t.Errorf("u: %+v, want m at 0 (16 bytes) and v at 16", u)
	}
}

func TestReflection(t *testing.T) {
	r, m := translate(t, "overrides", programs["overrides"])
	wantOv := []wgsl.Override{
		{Name: "scale", ID: 5, Type: "f32", HasDefault: true, Default: 2, Specializable: true},
		{Name: "wg", ID: 0, Type: "u32", HasDefault: true, Default: 32, Specializable: true},
		{Name: "enabled", ID: 1, Type: "bool", HasDefault: true, Default: 1, Specializable: true},
		{Name: "offset", ID: 2, Type: "i32", Specializable: true},
		{Name: "twice_wg", ID: 3, Type: "u32", HasDefault: true, Default: 64},
		{Name: "block", ID: 4, Type: "u32", HasDefault: true, Default: 16, Specializable: true},
	}
	if !reflect.DeepEqual(r.Overrides, wantOv) {
		t.Errorf("overrides:\n got %+v\nwant %+v", r.Overrides, wantOv)
	}
	if r.WorkgroupSize != [3]uint32{32, 1, 1} {
		t.Errorf("WorkgroupSize %v", r.WorkgroupSize)
	}
	ep := m.EntryPoints[0]
	if ep.LocalSize != [3]uint32{32, 1, 1} || ep.LocalSizeSpecID != [3]int32{0, -1, -1} {
		t.Errorf("entry point %+v: want local size 32 with spec ID 0", ep)
	}

	r, m = translate(t, "renames", programs["renames"])
	if r.EntryPoint != "entry" || r.Names["main"] != "entry" {
		t.Errorf("entry point %q, names %v", r.EntryPoint, r.Names)
	}
	// Every resource's SPIR-V names map back to WGSL names.
	wgslName := func(n string) string {
		if w, ok := r.Names[n]; ok {
			return w
		}
		return n
	}
	got := map[string]string{}
	for _, res := range m.Resources {
		got[wgslName(res.Name)] = wgslName(res.TypeName)
		for _, mb := range res.Members {
			if wgslName(mb.Name) == mb.Name && strings.HasPrefix(mb.Name, "_w") {
				t.Errorf("member %s of %s has no WGSL name", mb.Name, res.Name)
			}
		}
	}
	want := map[string]string{"buffer": "buffer", "in": "input"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("resources (WGSL names: variable -> type) %v, want %v; names %v", got, want, r.Names)
	}
	for glsl, w := range r.Names {
		if strings.Contains(glsl, "__") || strings.HasPrefix(glsl, "gl_") {
			t.Errorf("GLSL name %q (for %q) is reserved in GLSL", glsl, w)
		}
	}

	_, m = translate(t, "alias_and_phony", programs["alias_and_phony"])
	var bindings []uint32
	for _, res := range m.Resources {
		bindings = append(bindings, res.Binding)
	}
	if !reflect.DeepEqual(bindings, []uint32{0, 1, 2, 3, 4}) {
		t.Errorf("bindings %v: '_ = &unused' and the other phony uses must keep every resource", bindings)
	}

	// Entry point choice: "main" among several, or the one named.
	r, m = translate(t, "entry_struct_params", programs["entry_struct_params"])
	if r.EntryPoint != "main" || m.LocalSize() != [3]uint32{32, 1, 1} {
		t.Errorf("entry %q local size %v", r.EntryPoint, m.LocalSize())
	}
	r, m = translate(t, "entry_other", programs["entry_struct_params"], wgsl.Options{EntryPoint: "other"})
	if r.EntryPoint != "other" || m.LocalSize() != [3]uint32{16, 1, 1} {
		t.Errorf("entry %q local size %v", r.EntryPoint, m.LocalSize())
	}
}

// TestLineDirectives checks that glslang's diagnostics point at WGSL lines:
// the GLSL's #line directives follow the WGSL source.
func TestLineDirectives(t *testing.T) {
	src := "@group(0) @binding(0) var<storage, read_write> res: array<u32>;\n\n" +
		"@compute @workgroup_size(1)\nfn main() {\n    let a = 1u;\n\n    res[0] = a;\n}\n"
	r, err := wgsl.Translate([]byte(src), wgsl.Options{})
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(r.GLSL, "\n")
	line := 0
	found := map[string]int{}
	for _, l := range lines {
		if strings.HasPrefix(l, "#line ") {
			line = atoi(strings.TrimPrefix(l, "#line "))
			continue
		}
		if line > 0 {
			switch {
			case strings.Contains(l, "uint a = 1u"):
				found["let"] = line
			case strings.Contains(l, "res.res[0] = a"):
				found["store"] = line
			}
			line++
		}
	}
	if found["let"] != 5 || found["store"] != 7 {
		t.Errorf("statement lines %v, want let at 5 and store at 7\n%s", found, r.GLSL)
	}
}

func atoi(s string) int {
	n := 0
	for _, c := range s {
		if c < '0' || c > '9' {
			break
		}
		n = n*10 + int(c-'0')
	}
	return n
}

func TestWGSLThroughShader(t *testing.T) {
	m, err := shader.Compile([]byte(programs["overrides"]), shader.Options{Language: shader.WGSL, NoCache: true, Filename: "o.wgsl"})
	if err != nil {
		t.Fatal(err)
	}
	if m.Resource("data") == nil {
		t.Errorf("resources %+v", m.Resources)
	}
}

func BenchmarkTranslate100(b *testing.B) {
	src, err := os.ReadFile("../testdata/bench100.wgsl")
	if err != nil {
		b.Skip(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := wgsl.Translate(src, wgsl.Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

// TestOverridesOfEntryPoint checks that only the overrides the chosen entry
// point statically uses are declared and reported (WebGPU asks values for
// those only): one module, two entry points with an override each and no
// default, reached directly, through @workgroup_size, a workgroup array's
// size, an override's initializer and a private variable's initializer.
func TestOverridesOfEntryPoint(t *testing.T) {
	src := `
override A: u32;             // a's workgroup size
override B: f32;             // b's, used in b's body
override N: u32;             // a's workgroup array size, through M
override M = N * 2u;
override K: i32;             // a private variable's initializer
override unusedAll: u32;     // no entry point
override base: f32 = 1.0;
override scaled = base * 2.0; // b, through a helper
@group(0) @binding(0) var<storage, read_write> res: array<f32>;
@group(0) @binding(1) var<storage, read_write> other: array<f32>;
var<workgroup> tile: array<f32, M>;
var<private> k: i32 = K;

@compute @workgroup_size(A)
fn a(@builtin(local_invocation_index) i: u32) {
    tile[i] = f32(i) + f32(k);
    workgroupBarrier();
    res[i] = tile[0];
}

fn helper() -> f32 { return scaled; }

@compute @workgroup_size(4)
fn b(@builtin(local_invocation_index) i: u32) {
    other[i] = B + helper();
}
`
	names := func(r *wgsl.Result) []string {
		var n []string
		for _, o := range r.Overrides {
			n = append(n, o.Name)
		}
		return n
	}
	ra, ma := translate(t, "entry_a", src, wgsl.Options{EntryPoint: "a"})
	if got, want := names(ra), []string{"A", "N", "M", "K"}; !reflect.DeepEqual(got, want) {
		t.Errorf("entry a: overrides %v, want %v\n%s", got, want, ra.GLSL)
	}
	rb, mb := translate(t, "entry_b", src, wgsl.Options{EntryPoint: "b"})
	if got, want := names(rb), []string{"B", "base", "scaled"}; !reflect.DeepEqual(got, want) {
		t.Errorf("entry b: overrides %v, want %v\n%s", got, want, rb.GLSL)
	}
	for _, c := range []struct {
		r      *wgsl.Result
		absent []string
	}{{ra, []string{" B ", "unusedAll", "base", "scaled"}}, {rb, []string{" A ", " N ", " K ", "unusedAll"}}} {
		for _, n := range c.absent {
			if strings.Contains(c.r.GLSL, n) {
				t.Errorf("entry %s: the GLSL declares %q, which the entry point does not use\n%s", c.r.EntryPoint, n, c.r.GLSL)
			}
		}
	}
	// IDs stay those of the whole module, whichever entry point is chosen.
	if ra.Overrides[0].ID != 0 || rb.Overrides[0].ID != 1 || rb.Overrides[1].ID != 6 {
		t.Errorf("IDs: a %+v, b %+v", ra.Overrides, rb.Overrides)
	}
	// Resources were already limited to the entry point's.
	if ma.Resource("other") != nil || mb.Resource("res") != nil || ma.Resource("res") == nil || mb.Resource("other") == nil {
		t.Errorf("resources: a %+v, b %+v", ma.Resources, mb.Resources)
	}
	if ep := ma.EntryPoints[0]; ep.LocalSizeSpecID != [3]int32{0, -1, -1} {
		t.Errorf("entry a: %+v, want local_size_x from A (spec ID 0)", ep)
	}
}
