// blur: a 3x3 box blur of an rgba8unorm texture_2d<f32>, its neighbours
// read with textureSampleLevel through a nearest, clamp-to-edge sampler at
// texel centres (the edges clamp), the centre texel with textureLoad;
// written to an rgba32float write-only storage texture and, rounded, to an
// rgba8unorm one.

@group(0) @binding(0) var src: texture_2d<f32>;
@group(0) @binding(1) var smp: sampler;
@group(0) @binding(2) var dst: texture_storage_2d<rgba32float, write>;
@group(0) @binding(3) var dst8: texture_storage_2d<rgba8unorm, write>;

@compute @workgroup_size(8, 8)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let size = textureDimensions(src);
    if (gid.x >= size.x || gid.y >= size.y) {
        return;
    }
    let texel = 1.0 / vec2<f32>(size);
    let center = (vec2<f32>(gid.xy) + 0.5) * texel;
    var sum = textureLoad(src, vec2<i32>(gid.xy), 0);
    for (var dy = -1; dy <= 1; dy++) {
        for (var dx = -1; dx <= 1; dx++) {
            if (dx == 0 && dy == 0) {
                continue;
            }
            sum += textureSampleLevel(src, smp, center + vec2<f32>(f32(dx), f32(dy)) * texel, 0.0);
        }
    }
    let avg = sum / 9.0;
    textureStore(dst, gid.xy, avg);
    textureStore(dst8, vec2<i32>(gid.xy), avg);
}
