// alias: type aliases of scalars, vectors, arrays, structs and of other
// aliases, used in declarations, constructors, function signatures,
// buffer element types and struct members.

alias Index = u32;
alias Vec = vec4<f32>;
alias Pair = array<Vec, 2>;
struct Cell {
    v: Vec,
    n: Index,
}
alias Item = Cell;
alias Items = array<Item>;
alias Weight = Scale;               // an alias of an alias declared later
alias Scale = f32;

@group(0) @binding(0) var<storage, read> items: Items;
@group(0) @binding(1) var<storage, read_write> outp: array<Vec>;

fn weigh(p: Pair, w: Weight) -> Vec {
    return (p[0] + p[1]) * w;
}

@compute @workgroup_size(32)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i: Index = gid.x;
    let it: Item = items[i];
    let p = Pair(it.v, Vec(f32(it.n)));
    var c = Item(weigh(p, Scale(0.5)), it.n + Index(1));
    c.v.w += f32(c.n);
    outp[i] = c.v;
}
