// bench100: a ~100-line compute shader for BenchmarkCompileWGSL100, the
// same algorithm as bench100.hlsl and bench100.comp: one step of an n-body
// simulation in shared-memory tiles, with helper functions, a struct
// buffer, a uniform block, loops, a switch, workgroup barriers and an
// atomic counter.

struct Particle {
    pos: vec4<f32>,     // xyz, mass in w
    vel: vec4<f32>,     // xyz, age in w
}

struct Params {
    dt: f32,
    softening: f32,
    damping: f32,
    count: u32,
    bounds: vec4<f32>,  // half extent of the box in xyz
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> particles_in: array<Particle>;
@group(0) @binding(2) var<storage, read_write> particles_out: array<Particle>;
@group(0) @binding(3) var<storage, read_write> stats: array<atomic<u32>, 4>;

const TILE = 64u;
var<workgroup> tile: array<vec4<f32>, TILE>;

fn interact(pi: vec3<f32>, pj: vec4<f32>, soft2: f32) -> vec3<f32> {
    let r = pj.xyz - pi;
    let dist2 = dot(r, r) + soft2;
    let inv = inverseSqrt(dist2);
    let inv3 = inv * inv * inv;
    return r * (pj.w * inv3);
}

fn reflect_axis(p: ptr<function, vec3<f32>>, v: ptr<function, vec3<f32>>, axis: u32, bound: f32) -> u32 {
    let x = (*p)[axis];
    if (x > bound) {
        (*p)[axis] = 2.0 * bound - x;
        (*v)[axis] = -(*v)[axis];
        return 1u;
    } else if (x < -bound) {
        (*p)[axis] = -2.0 * bound - x;
        (*v)[axis] = -(*v)[axis];
        return 1u;
    }
    return 0u;
}

fn speed_class(speed: f32) -> u32 {
    let c = u32(clamp(speed * 4.0, 0.0, 7.0));
    switch c {
        case 0u, 1u: { return 0u; }
        case 2u, 3u, 4u: { return 1u; }
        default: { return 2u; }
    }
}

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>,
        @builtin(local_invocation_index) li: u32) {
    let i = gid.x;
    let live = i < params.count;
    var me = Particle(vec4<f32>(0.0), vec4<f32>(0.0));
    if (live) {
        me = particles_in[i];
    }
    var acc = vec3<f32>(0.0);
    let soft2 = params.softening * params.softening;
    let tiles = (params.count + TILE - 1u) / TILE;
    for (var t = 0u; t < tiles; t++) {
        let j = t * TILE + li;
        if (j < params.count) {
            tile[li] = particles_in[j].pos;
        } else {
            tile[li] = vec4<f32>(0.0);
        }
        workgroupBarrier();
        for (var k = 0u; k < TILE; k++) {
            acc += interact(me.pos.xyz, tile[k], soft2);
        }
        workgroupBarrier();
    }
    if (!live) {
        return;
    }
    var vel = (me.vel.xyz + acc * params.dt) * params.damping;
    var pos = me.pos.xyz + vel * params.dt;
    var bounced = 0u;
    for (var a = 0u; a < 3u; a++) {
        bounced += reflect_axis(&pos, &vel, a, params.bounds[a]);
    }
    let speed = length(vel);
    atomicAdd(&stats[speed_class(speed)], 1u);
    if (bounced > 0u) {
        atomicAdd(&stats[3], bounced);
    }
    particles_out[i] = Particle(vec4<f32>(pos, me.pos.w), vec4<f32>(vel, me.vel.w + params.dt));
}
