RWStructuredBuffer<float> buf : register(u0);

[numthreads(64, 1, 1)]
void main(uint3 id : SV_DispatchThreadID) {
    buf[id.x] = 1.0;
    buf[id.x] += undefinedVariable;
}
