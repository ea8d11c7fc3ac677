// overrides: pipeline-overridable constants set through the API — f32, i32,
// u32 and bool overrides with and without defaults, one with an @id, one
// derived from others by an override expression, one giving the workgroup
// size (@workgroup_size(wg)) and the length of a workgroup array.

override scale: f32 = 1.5;
override offset: i32;               // no default: must be set
override enabled: bool = false;
@id(7) override seven: u32 = 3u;
override wg: u32 = 64u;
override twice = scale * 2.0;       // override expression

@group(0) @binding(0) var<storage, read> inputs: array<f32>;
// 4 results per invocation, as u32 bit patterns.
@group(0) @binding(1) var<storage, read_write> results: array<u32>;

var<workgroup> shared_vals: array<f32, wg>;

@compute @workgroup_size(wg)
fn main(@builtin(global_invocation_id) gid: vec3<u32>,
        @builtin(local_invocation_index) li: u32,
        @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = gid.x;
    shared_vals[li] = inputs[i];
    workgroupBarrier();
    let other = shared_vals[wg - 1u - li];
    let o = i * 4u;
    results[o + 0u] = bitcast<u32>(other * scale + twice);
    results[o + 1u] = bitcast<u32>(i32(i) + offset);
    results[o + 2u] = select(seven, seven * 1000u, enabled);
    results[o + 3u] = wg * 65536u + nwg.x;
}
