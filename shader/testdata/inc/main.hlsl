#include "common.hlsli"
#include <lib.hlsli>

RWStructuredBuffer<float> buf : register(u0);

[numthreads(WG, 1, 1)]
void main(uint3 id : SV_DispatchThreadID) { buf[id.x] = scale(buf[id.x]); }
