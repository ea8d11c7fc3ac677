// numeric_builtins: the numeric builtin library on f32 scalars and vectors
// (abs clamp min max mix fma fract floor ceil round trunc sign step
// smoothstep saturate sqrt inverseSqrt pow exp exp2 log log2 sin cos tan
// asin acos atan atan2 sinh cosh tanh asinh acosh atanh degrees radians
// ldexp length distance dot cross normalize reflect refract faceForward),
// checked against Go's math with WGSL's accuracy for each, and the integer
// ones (abs min max clamp sign on i32 and u32), exact. round() rounds
// halves to even; smoothstep() with edge0 > edge1 is defined.

struct In {
    x: f32,     // [-10, 10], some exact halves
    y: f32,     // [-3, 3]
    z: f32,     // [0, 1]
    p: f32,     // [0.01, 100]
    a: f32,     // [-pi, pi]
    k: i32,     // [-10, 10]
    m: i32,     // random
    n: u32,     // random
}

@group(0) @binding(0) var<storage, read> inputs: array<In>;
@group(0) @binding(1) var<storage, read_write> fres: array<array<f32, 56>>;
@group(0) @binding(2) var<storage, read_write> ires: array<array<i32, 12>>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    let s = inputs[i];
    let x = s.x;
    let y = s.y;
    let z = s.z;
    let p = s.p;
    let a = s.a;
    var r: array<f32, 56>;
    r[0] = abs(x);
    r[1] = clamp(x, -2.5, 4.0);
    r[2] = min(x, y);
    r[3] = max(x, y);
    r[4] = mix(x, y, z);
    r[5] = fma(x, y, z);
    r[6] = fract(x);
    r[7] = floor(x);
    r[8] = ceil(x);
    r[9] = round(x);
    r[10] = trunc(x);
    r[11] = sign(x);
    r[12] = step(y, x);
    let e1 = select(y - 2.0, y + 2.0, (i & 1u) == 0u);
    r[13] = smoothstep(y, e1, x * 0.5);
    r[14] = sqrt(p);
    r[15] = inverseSqrt(p);
    r[16] = pow(p, y);
    r[17] = exp(y);
    r[18] = exp2(y);
    r[19] = log(p);
    r[20] = log2(p);
    r[21] = sin(a);
    r[22] = cos(a);
    r[23] = tan(a / 3.0);
    r[24] = atan(y);
    r[25] = atan2(y, x);
    let c = z * 1.8 - 0.9;
    r[26] = asin(c);
    r[27] = acos(c);
    r[28] = sinh(y);
    r[29] = cosh(y);
    r[30] = tanh(y);
    r[31] = asinh(y);
    r[32] = acosh(p + 1.0);
    r[33] = atanh(c);
    r[34] = degrees(x);
    r[35] = radians(x);
    r[36] = ldexp(x, s.k);
    let u = vec3<f32>(x, y, z);
    let w = vec3<f32>(y, z, p);
    r[37] = length(u);
    r[38] = distance(u.xy, vec2<f32>(z, 1.0));
    r[39] = dot(vec4<f32>(u, p), vec4<f32>(w, x));
    let cr = cross(u, w);
    r[40] = cr.x;
    r[41] = cr.y;
    r[42] = cr.z;
    let nu = normalize(u);
    r[43] = nu.x;
    r[44] = nu.y;
    r[45] = nu.z;
    let rf = reflect(u, normalize(w));
    r[46] = rf.x;
    r[47] = rf.y;
    r[48] = rf.z;
    let rr = refract(nu, normalize(w), 0.7);
    r[49] = rr.x;
    r[50] = rr.y;
    r[51] = rr.z;
    r[52] = faceForward(u, w, vec3<f32>(x, -y, z)).x;
    r[53] = saturate(x);
    r[54] = abs(-p) + min(-x, -y);
    r[55] = max(vec2<f32>(x, y), vec2<f32>(y, x)).y + clamp(vec2<f32>(x), vec2<f32>(-1.0), vec2<f32>(1.0)).x;
    fres[i] = r;
    let m = s.m;
    let n = s.n;
    ires[i] = array<i32, 12>(
        abs(m),
        min(m, s.k * 1000000),
        max(m, s.k * 1000000),
        clamp(m, -1000, 50000),
        sign(m),
        sign(s.k),
        bitcast<i32>(min(n, 0x80000000u)),
        bitcast<i32>(max(n, bitcast<u32>(m))),
        bitcast<i32>(clamp(n, 1000u, 0xf0000000u)),
        abs(s.k) * sign(m),
        max(abs(vec2<i32>(m, s.k)), vec2<i32>(5)).x,
        abs(i32(-2147483647) - 1),
    );
}
