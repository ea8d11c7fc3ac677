// k.hlsl of README.md's "Compute shaders": a is t0, o is u0.
StructuredBuffer<float> a : register(t0);
RWStructuredBuffer<float> o : register(u0);

[numthreads(64, 1, 1)]
void main(uint3 id : SV_DispatchThreadID) {
	o[id.x] = a[id.x] * 2 + 1;
}
