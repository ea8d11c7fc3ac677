// Random inputs for scripts/windows-run-compare.sh, from a hash of the
// position and the seed in b0 (16 bytes): 1024 floats in u0 (a.npy)
// and a 256x256 RGBA8 picture in u1 (in.png).
cbuffer P : register(b0) { uint seed; };
RWStructuredBuffer<float> buf : register(u0);
RWTexture2D<float4> img : register(u1);
uint hash(uint x) { x ^= x >> 16; x *= 0x7feb352d; x ^= x >> 15; x *= 0x846ca68b; x ^= x >> 16; return x; }
[numthreads(8, 8, 1)]
void main(uint3 id : SV_DispatchThreadID) {
	uint i = id.x + 256 * id.y;
	uint h = hash(i ^ seed);
	img[id.xy] = float4(h & 255, (h >> 8) & 255, (h >> 16) & 255, 255) / 255.0;
	if (i < 1024) buf[i] = float(hash(h) & 0xffffff) / 16777216.0 * 200.0 - 100.0;
}
