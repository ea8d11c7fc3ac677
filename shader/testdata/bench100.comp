#version 450
// bench100: a ~100-line compute shader for BenchmarkCompileGLSL100, the
// same algorithm as bench100.wgsl and bench100.hlsl: one step of an n-body
// simulation in shared-memory tiles, with helper functions, a struct
// buffer, a uniform block, loops, a switch, barriers and an atomic counter.
layout(local_size_x = 64) in;

struct Particle {
    vec4 pos;       // xyz, mass in w
    vec4 vel;       // xyz, age in w
};

layout(std140, set = 0, binding = 0) uniform Params {
    float dt;
    float softening;
    float damping;
    uint count;
    vec4 bounds;    // half extent of the box in xyz
} params;
layout(std430, set = 0, binding = 1) readonly buffer In { Particle particles_in[]; };
layout(std430, set = 0, binding = 2) buffer Out { Particle particles_out[]; };
layout(std430, set = 0, binding = 3) buffer Stats { uint stats[4]; };

const uint TILE = 64u;
shared vec4 tile[TILE];

vec3 interact(vec3 pi, vec4 pj, float soft2) {
    vec3 r = pj.xyz - pi;
    float dist2 = dot(r, r) + soft2;
    float inv = inversesqrt(dist2);
    float inv3 = inv * inv * inv;
    return r * (pj.w * inv3);
}

uint reflect_axis(inout vec3 p, inout vec3 v, uint axis, float bound) {
    float x = p[axis];
    if (x > bound) {
        p[axis] = 2.0 * bound - x;
        v[axis] = -v[axis];
        return 1u;
    } else if (x < -bound) {
        p[axis] = -2.0 * bound - x;
        v[axis] = -v[axis];
        return 1u;
    }
    return 0u;
}

uint speed_class(float speed) {
    uint c = uint(clamp(speed * 4.0, 0.0, 7.0));
    switch (c) {
        case 0u: case 1u: return 0u;
        case 2u: case 3u: case 4u: return 1u;
        default: return 2u;
    }
}

void main() {
    uint i = gl_GlobalInvocationID.x;
    uint li = gl_LocalInvocationIndex;
    bool live = i < params.count;
    Particle me = Particle(vec4(0.0), vec4(0.0));
    if (live) {
        me = particles_in[i];
    }
    vec3 acc = vec3(0.0);
    float soft2 = params.softening * params.softening;
    uint tiles = (params.count + TILE - 1u) / TILE;
    for (uint t = 0u; t < tiles; t++) {
        uint j = t * TILE + li;
        if (j < params.count) {
            tile[li] = particles_in[j].pos;
        } else {
            tile[li] = vec4(0.0);
        }
        barrier();
        for (uint k = 0u; k < TILE; k++) {
            acc += interact(me.pos.xyz, tile[k], soft2);
        }
        barrier();
    }
    if (!live) {
        return;
    }
    vec3 vel = (me.vel.xyz + acc * params.dt) * params.damping;
    vec3 pos = me.pos.xyz + vel * params.dt;
    uint bounced = 0u;
    for (uint a = 0u; a < 3u; a++) {
        bounced += reflect_axis(pos, vel, a, params.bounds[a]);
    }
    float speed = length(vel);
    atomicAdd(stats[speed_class(speed)], 1u);
    if (bounced > 0u) {
        atomicAdd(stats[3], bounced);
    }
    particles_out[i] = Particle(vec4(pos, me.pos.w), vec4(vel, me.vel.w + params.dt));
}
