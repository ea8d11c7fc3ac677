// scale.hlsl of docs/compute-shaders.md: the shader of
// docs/examples/computeshader/main.go.
struct PC { float scale; float bias; };
[[vk::push_constant]] ConstantBuffer<PC> pc;
RWStructuredBuffer<float> data : register(u0);

[numthreads(64, 1, 1)]
void main(uint3 id : SV_DispatchThreadID) {
	data[id.x] = data[id.x] * pc.scale + pc.bias;
}
