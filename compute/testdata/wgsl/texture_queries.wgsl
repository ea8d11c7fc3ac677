// texture_queries: textureDimensions (with and without a mip level) and
// textureNumLevels of sampled 1D, 2D, 3D and 2D-array textures,
// textureNumLayers of the array, and textureDimensions of a storage
// texture.

@group(0) @binding(0) var t1: texture_1d<f32>;
@group(0) @binding(1) var t2: texture_2d<f32>;
@group(0) @binding(2) var t3: texture_3d<u32>;
@group(0) @binding(3) var ta: texture_2d_array<f32>;
@group(0) @binding(4) var st: texture_storage_2d<r32float, write>;
@group(0) @binding(5) var<storage, read_write> results: array<u32, 16>;

@compute @workgroup_size(1)
fn main() {
    results[0] = textureDimensions(t1);
    results[1] = textureNumLevels(t1);
    let d2 = textureDimensions(t2, 0);
    results[2] = d2.x;
    results[3] = d2.y;
    results[4] = textureNumLevels(t2);
    let d3 = textureDimensions(t3);
    results[5] = d3.x;
    results[6] = d3.y;
    results[7] = d3.z;
    results[8] = textureNumLevels(t3);
    let da = textureDimensions(ta);
    results[9] = da.x;
    results[10] = da.y;
    results[11] = textureNumLayers(ta);
    results[12] = textureNumLevels(ta);
    let ds = textureDimensions(st);
    results[13] = ds.x;
    results[14] = ds.y;
    results[15] = textureDimensions(t2, 0u).x * textureDimensions(t1, 0);
}
