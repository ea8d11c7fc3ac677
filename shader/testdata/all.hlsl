struct Particle { float3 pos; float mass; };
RWStructuredBuffer<Particle> particles : register(u0);
StructuredBuffer<float4> inputs : register(t1);
ByteAddressBuffer raw : register(t2);
RWByteAddressBuffer rawOut : register(u3);
cbuffer Params : register(b4) { float4x4 xform; float scale; uint count; };
struct PC { float2 offset; uint flags; };
[[vk::push_constant]] ConstantBuffer<PC> pc;
Buffer<float4> tb : register(t5);
RWBuffer<uint> rwtb : register(u6);
Texture1D<float> t1d : register(t7);
Texture2D<float4> t2d : register(t8);
Texture3D<uint4> t3d : register(t9);
RWTexture2D<float4> outImg : register(u10);
SamplerState samp : register(s11);
Texture2DArray<float4> t2da : register(t12, space1);
[[vk::binding(3, 2)]] Texture2D texs[4];
[numthreads(8, 4, 2)]
void main(uint3 id : SV_DispatchThreadID) {
  Particle p = particles[id.x];
  p.pos += inputs[id.x].xyz * scale + pc.offset.x;
  p.mass = asfloat(raw.Load(id.x*4)) + tb[id.x].x + t1d.SampleLevel(samp, 0.5, 0) + t2d.SampleLevel(samp, float2(0.5,0.5), 0).x + (float)t3d.Load(int4(0,0,0,0)).x + t2da.SampleLevel(samp, float3(0,0,0),0).x + texs[id.y].SampleLevel(samp, float2(0,0),0).x;
  p.pos = mul(xform, float4(p.pos,1)).xyz;
  particles[id.x] = p;
  rawOut.Store(id.x*4, count + pc.flags);
  rwtb[id.x] = 3;
  outImg[id.xy] = float4(1,2,3,4);
}
