// runtime_array: runtime-sized arrays, alone and as the last member of a
// struct after a fixed header, of scalars and of structs, with
// arrayLength() — which counts the elements in the bound range, so a buffer
// bound with an offset and size gives a shorter array.

struct Header {
    count: u32,
    scale: f32,
    data: array<f32>,       // offset 8, stride 4
}

struct Item {
    id: u32,
    pos: vec3<f32>,         // offset 16; stride 32
}

@group(0) @binding(0) var<storage, read> inp: Header;
@group(0) @binding(1) var<storage, read_write> outp: array<f32>;
@group(0) @binding(2) var<storage, read_write> items: array<Item>;
@group(0) @binding(3) var<storage, read_write> lengths: array<u32, 4>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    let n = arrayLength(&inp.data);
    if (i == 0u) {
        lengths[0] = n;
        lengths[1] = arrayLength(&outp);
        lengths[2] = arrayLength(&items);
        lengths[3] = inp.count;
    }
    if (i < n && i < arrayLength(&outp)) {
        outp[i] = inp.data[i] * inp.scale + f32(inp.count);
    }
    if (i < arrayLength(&items)) {
        let it = items[i];
        items[i].id = it.id * 2u + i;
        items[i].pos = it.pos.zxy + vec3<f32>(f32(i));
    }
}
