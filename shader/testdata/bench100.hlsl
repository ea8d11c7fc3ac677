// bench100: a ~100-line compute shader for BenchmarkCompileHLSL100, the
// same algorithm as bench100.wgsl and bench100.comp: one step of an n-body
// simulation in shared-memory tiles, with helper functions, a struct
// buffer, a constant buffer, loops, a switch, group barriers and an atomic
// counter.

struct Particle {
    float4 pos;     // xyz, mass in w
    float4 vel;     // xyz, age in w
};

cbuffer Params : register(b0) {
    float dt;
    float softening;
    float damping;
    uint count;
    float4 bounds;  // half extent of the box in xyz
};

StructuredBuffer<Particle> particles_in : register(t1);
RWStructuredBuffer<Particle> particles_out : register(u2);
RWByteAddressBuffer stats : register(u3);

#define TILE 64u
groupshared float4 tile[TILE];

float3 interact(float3 pi, float4 pj, float soft2) {
    float3 r = pj.xyz - pi;
    float dist2 = dot(r, r) + soft2;
    float inv = rsqrt(dist2);
    float inv3 = inv * inv * inv;
    return r * (pj.w * inv3);
}

uint reflect_axis(inout float3 p, inout float3 v, uint axis, float bound) {
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
    uint c = (uint)clamp(speed * 4.0, 0.0, 7.0);
    switch (c) {
        case 0u: case 1u: return 0u;
        case 2u: case 3u: case 4u: return 1u;
        default: return 2u;
    }
}

[numthreads(64, 1, 1)]
void main(uint3 gid : SV_DispatchThreadID, uint li : SV_GroupIndex) {
    uint i = gid.x;
    bool live = i < count;
    Particle me;
    me.pos = float4(0.0, 0.0, 0.0, 0.0);
    me.vel = float4(0.0, 0.0, 0.0, 0.0);
    if (live) {
        me = particles_in[i];
    }
    float3 acc = float3(0.0, 0.0, 0.0);
    float soft2 = softening * softening;
    uint tiles = (count + TILE - 1u) / TILE;
    for (uint t = 0u; t < tiles; t++) {
        uint j = t * TILE + li;
        if (j < count) {
            tile[li] = particles_in[j].pos;
        } else {
            tile[li] = float4(0.0, 0.0, 0.0, 0.0);
        }
        GroupMemoryBarrierWithGroupSync();
        for (uint k = 0u; k < TILE; k++) {
            acc += interact(me.pos.xyz, tile[k], soft2);
        }
        GroupMemoryBarrierWithGroupSync();
    }
    if (!live) {
        return;
    }
    float3 vel = (me.vel.xyz + acc * dt) * damping;
    float3 pos = me.pos.xyz + vel * dt;
    uint bounced = 0u;
    for (uint a = 0u; a < 3u; a++) {
        bounced += reflect_axis(pos, vel, a, bounds[a]);
    }
    float speed = length(vel);
    stats.InterlockedAdd(4u * speed_class(speed), 1u);
    if (bounced > 0u) {
        stats.InterlockedAdd(12u, bounced);
    }
    Particle o;
    o.pos = float4(pos, me.pos.w);
    o.vel = float4(vel, me.vel.w + dt);
    particles_out[i] = o;
}
