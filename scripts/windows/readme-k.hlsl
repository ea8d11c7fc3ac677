// README's `gfxcuda run k.hlsl --dispatch 16 --srv 0:a.npy --uav 0:4096 --out o.npy`:
// t0 in, u0 out (scripts/windows-run-compare.sh runs it on Linux and on Windows).
StructuredBuffer<float> a : register(t0);
RWStructuredBuffer<float> o : register(u0);
[numthreads(64, 1, 1)]
void main(uint3 id : SV_DispatchThreadID) { o[id.x] = a[id.x] * a[id.x] * 0.5 + 1; }
