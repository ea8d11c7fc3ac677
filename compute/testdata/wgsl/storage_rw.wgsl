// storage_rw: a read_write storage texture (r32uint) read with textureLoad
// and written with textureStore in place, and a read-only storage texture
// (r32uint, read) beside it.

@group(0) @binding(0) var img: texture_storage_2d<r32uint, read_write>;
@group(0) @binding(1) var addend: texture_storage_2d<r32uint, read>;

@compute @workgroup_size(8, 4)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let p = vec2<i32>(gid.xy);
    let v = textureLoad(img, p).x;
    let a = textureLoad(addend, gid.xy).x;
    textureStore(img, p, vec4<u32>(v * 3u + a + gid.x * 1000u, 0u, 0u, 1u));
}
