"""compushady's behaviour (its test/ folder is the specification) on
lavapipe: `import gfxcuda as compushady`."""

import struct

import numpy
import pytest

import gfxcuda as compushady
from gfxcuda import Buffer, Compute, HEAP_READBACK, HEAP_UPLOAD, Sampler, Texture1D, Texture2D, Texture3D
from gfxcuda.formats import R8G8B8A8_UINT, R32_FLOAT, R32_UINT, R32G32B32A32_UINT, R16G16B16A16_FLOAT
from gfxcuda.shaders import glsl, hlsl


def test_devices():
    devs = compushady.get_discovered_devices()
    assert devs, "no device"
    best = compushady.get_best_device()
    assert best.name and best.dedicated_video_memory > 0
    assert compushady.get_current_device().name == best.name
    assert "Device" in repr(best)


def test_upload_copy_readback(rng):
    data = rng.integers(0, 256, 4096, dtype=numpy.uint8).tobytes()
    b0 = Buffer(len(data), HEAP_UPLOAD)
    b1 = Buffer(len(data))
    b2 = Buffer(len(data), HEAP_READBACK)
    b2.upload(b"\xee" * len(data))  # poison
    b0.upload(data)
    b0.copy_to(b1)
    b1.copy_to(b2)
    assert b2.readback() == data
    out = bytearray(len(data))
    b2.readback(out)
    assert bytes(out) == data
    assert b2.readback(16, 32) == data[32:48]


def test_default_heap_upload_readback(rng):
    data = rng.integers(0, 256, 1000, dtype=numpy.uint8)
    b = Buffer(1000)
    b.upload(data)
    assert b.readback() == data.tobytes()


def test_copy_sizes_and_offsets():
    b0 = Buffer(256, HEAP_UPLOAD)
    b1 = Buffer(64)
    b2 = Buffer(32, HEAP_READBACK)
    b0.upload(b"hello world")
    b0.copy_to(b1, size=32, dst_offset=32)
    b1.copy_to(b2, size=11, src_offset=32)
    assert b2.readback(11) == b"hello world"


@pytest.mark.parametrize("args", [(), (64, 32, 0), (64, 0, 32), (65,)])
def test_copy_out_of_range(args):
    b1 = Buffer(64)
    b2 = Buffer(64 if args else 32)
    with pytest.raises(ValueError):
        b1.copy_to(b2, *args)


def test_empty_buffer():
    with pytest.raises(compushady.BufferException):
        Buffer(0)


def test_upload_chunked():
    b0 = Buffer(8, HEAP_UPLOAD)
    b1 = Buffer(8, HEAP_READBACK)
    b0.upload_chunked(b"\xaa\xbb\x11\x22", 2, b"\xee\xff")
    b0.copy_to(b1)
    assert b1.readback() == b"\xaa\xbb\xee\xff\x11\x22\xee\xff"


def test_upload2d_readback2d(rng):
    rows = rng.integers(0, 256, (5, 12), dtype=numpy.uint8)
    b = Buffer(16 * 5, HEAP_UPLOAD)
    b.upload2d(rows.tobytes(), 16, 3, 5, 4)
    assert b.readback2d(16, 3, 5, 4) == rows.tobytes()


def test_texture2d_roundtrip(rng):
    t = Texture2D(7, 5, R8G8B8A8_UINT)
    assert (t.width, t.height, t.depth, t.row_pitch, t.size) == (7, 5, 1, 28, 140)
    data = rng.integers(0, 256, t.size, dtype=numpy.uint8).tobytes()
    up = Buffer(t.size, HEAP_UPLOAD)
    up.upload(data)
    up.copy_to(t)
    down = Buffer(t.size, HEAP_READBACK)
    down.upload(b"\x55" * t.size)
    t.copy_to(down)
    assert down.readback() == data
    assert "r8g8b8a8_uint" in repr(t).lower() or "rgba8_uint" in repr(t)


def test_texture_region_copy(rng):
    t = Texture2D(8, 8, R32_UINT)
    zero = Buffer(t.size, HEAP_UPLOAD)
    zero.upload(bytes(t.size))
    zero.copy_to(t)
    patch = rng.integers(1, 2**32, (2, 3), dtype=numpy.uint32)
    up = Buffer(24, HEAP_UPLOAD)
    up.upload(patch)
    up.copy_to(t, width=3, height=2, dst_x=4, dst_y=5)
    down = Buffer(t.size, HEAP_READBACK)
    t.copy_to(down)
    got = numpy.frombuffer(down.readback(), numpy.uint32).reshape(8, 8)
    want = numpy.zeros((8, 8), numpy.uint32)
    want[5:7, 4:7] = patch
    assert numpy.array_equal(got, want)
    with pytest.raises(ValueError):
        up.copy_to(t, width=3, height=2, dst_x=6, dst_y=5)


@pytest.mark.parametrize("make", [lambda f: Texture1D(9, f), lambda f: Texture3D(3, 4, 5, f)])
def test_texture_1d_3d(make, rng):
    t = make(R32_FLOAT)
    data = rng.random(t.size // 4, dtype=numpy.float32)
    up = Buffer(t.size, HEAP_UPLOAD)
    up.upload(data)
    up.copy_to(t)
    down = Buffer(t.size, HEAP_READBACK)
    t.copy_to(down)
    assert numpy.array_equal(numpy.frombuffer(down.readback(), numpy.float32), data)


def test_texture_errors():
    with pytest.raises(compushady.Texture2DException):
        Texture2D(0, 4, R32_FLOAT)
    with pytest.raises(compushady.Texture1DException):
        Texture1D(4, 12345)
    with pytest.raises(compushady.Texture3DException):
        Texture3D(1, 1, 0, R32_FLOAT)


def test_formats():
    assert compushady.formats.get_pixel_size(R32G32B32A32_UINT) == 16
    assert compushady.formats.get_pixel_size(R16G16B16A16_FLOAT) == 8
    assert compushady.formats.R8G8B8A8_UNORM_SRGB != compushady.formats.R8G8B8A8_UNORM


def test_fill_typed_buffer():
    b0 = Buffer(32, format=R32G32B32A32_UINT)
    b1 = Buffer(32, HEAP_READBACK)
    shader = hlsl.compile("""
    RWBuffer<uint4> buffer : register(u0);
    [numthreads(1, 1, 1)]
    void main(uint3 tid : SV_DispatchThreadID) { buffer[tid.x] = uint4(tid.x + 4, 1, 2, 3); }
    """)
    assert shader[:4] == b"\x03\x02\x23\x07"  # SPIR-V magic
    Compute(shader, uav=[b0]).dispatch(2, 1, 1)
    b0.copy_to(b1)
    assert struct.unpack("8I", b1.readback()) == (4, 1, 2, 3, 5, 1, 2, 3)


def test_structured_and_push_constants(rng):
    n = 256
    b0 = Buffer(n * 8, stride=8)
    b1 = Buffer(b0.size, HEAP_READBACK)
    shader = hlsl.compile("""
    struct Block { uint a; uint b; };
    struct Push { uint mul; uint add; };
    [[vk::push_constant]] ConstantBuffer<Push> p;
    RWStructuredBuffer<Block> buffer : register(u0);
    [numthreads(64, 1, 1)]
    void main(uint3 tid : SV_DispatchThreadID) { buffer[tid.x].a = tid.x * p.mul; buffer[tid.x].b = tid.x + p.add; }
    """)
    mul, add = (int(x) for x in rng.integers(1, 1000, 2))
    Compute(shader, uav=[b0], push_size=8).dispatch(n // 64, 1, 1, struct.pack("II", mul, add))
    b0.copy_to(b1)
    got = numpy.frombuffer(b1.readback(), numpy.uint32).reshape(n, 2)
    i = numpy.arange(n, dtype=numpy.uint32)
    assert numpy.array_equal(got[:, 0], i * mul) and numpy.array_equal(got[:, 1], i + add)


def _srv_uav(src_reg, dst_reg, rng):
    n = 1024
    data = rng.random(n, dtype=numpy.float32)
    up = Buffer(n * 4, HEAP_UPLOAD)
    up.upload(data)
    src = Buffer(n * 4, stride=4)
    up.copy_to(src)
    dst = Buffer(n * 4, stride=4)
    out = Buffer(n * 4, HEAP_READBACK)
    out.upload(b"\xff" * (n * 4))
    shader = hlsl.compile("""
    StructuredBuffer<float> src : register(t%d);
    RWStructuredBuffer<float> dst : register(u%d);
    [numthreads(64, 1, 1)]
    void main(uint3 tid : SV_DispatchThreadID) { dst[tid.x] = src[tid.x] * 2.0 + 1.0; }
    """ % (src_reg, dst_reg))
    srv = [None] * src_reg + [src]
    uav = [None] * dst_reg + [dst]
    # compushady lists: entry i is register i; fill unused entries with spares.
    spare = Buffer(4, stride=4)
    srv = [spare if r is None else r for r in srv]
    uav = [spare if r is None else r for r in uav]
    Compute(shader, srv=srv, uav=uav).dispatch(n // 64, 1, 1)
    dst.copy_to(out)
    got = numpy.frombuffer(out.readback(), numpy.float32)
    assert numpy.array_equal(got, data * numpy.float32(2) + numpy.float32(1))


def test_srv_uav_distinct_registers(rng):
    # t0 and u1: distinct binding numbers in every build.
    _srv_uav(0, 1, rng)


def test_srv_t0_uav_u0(rng):
    """The CI check of issue 11: an SRV at t0 and a UAV at u0."""
    _srv_uav(0, 0, rng)


def test_texture_compute_and_sampler(rng):
    w = h = 8
    src = Texture2D(w, h, R32_FLOAT)
    data = rng.random(w * h, dtype=numpy.float32)
    up = Buffer(src.size, HEAP_UPLOAD)
    up.upload(data)
    up.copy_to(src)
    dst = Texture2D(w, h, R32_FLOAT)
    sampler = Sampler(filter_min=compushady.SAMPLER_FILTER_POINT, filter_mag=compushady.SAMPLER_FILTER_POINT,
                      address_mode_u=compushady.SAMPLER_ADDRESS_MODE_CLAMP, address_mode_v=compushady.SAMPLER_ADDRESS_MODE_CLAMP,
                      address_mode_w=compushady.SAMPLER_ADDRESS_MODE_CLAMP)
    shader = hlsl.compile("""
    Texture2D<float> src : register(t0);
    SamplerState s : register(s1);
    RWTexture2D<float> dst : register(u2);
    [numthreads(8, 8, 1)]
    void main(uint3 tid : SV_DispatchThreadID) {
        dst[tid.xy] = src.SampleLevel(s, (float2(tid.xy) + 0.5) / 8.0, 0) * 3.0;
    }
    """)
    spare = Buffer(4)
    spare_sampler = Sampler()
    Compute(shader, srv=[src], samplers=[spare_sampler, sampler], uav=[spare, spare, dst]).dispatch(1, 1, 1)
    down = Buffer(dst.size, HEAP_READBACK)
    dst.copy_to(down)
    got = numpy.frombuffer(down.readback(), numpy.float32)
    assert numpy.allclose(got, data * 3, rtol=1e-6)


def test_glsl(rng):
    n = 128
    b = Buffer(n * 4, stride=4)
    out = Buffer(n * 4, HEAP_READBACK)
    k = int(rng.integers(1, 1 << 20))
    shader = glsl.compile("""
    #version 450
    layout(local_size_x = 32) in;
    layout(std430, binding = 0) buffer B { uint v[]; };
    layout(push_constant) uniform P { uint k; };
    void main() { v[gl_GlobalInvocationID.x] = gl_GlobalInvocationID.x ^ k; }
    """)
    Compute(shader, uav=[b]).dispatch(n // 32, 1, 1, struct.pack("I", k))
    b.copy_to(out)
    assert numpy.array_equal(numpy.frombuffer(out.readback(), numpy.uint32), numpy.arange(n, dtype=numpy.uint32) ^ k)


def test_glsl_naga_loose_uniform(rng):
    """A uniform float outside a block, as naga (compushady's GLSL compiler)
    accepts it, bound from cbv=[buffer]; the texture is sampled through a
    separate sampler."""
    w, h = 16, 8
    data = ((rng.random(w * h, dtype=numpy.float32) * 2 - 1) * 1000).astype(numpy.float32)
    factor = numpy.float32(0.5 + 3.5 * rng.random())
    src = Texture2D(w, h, R32_FLOAT)
    up = Buffer(src.size, HEAP_UPLOAD)
    up.upload2d(data.tobytes(), src.row_pitch, w, h, 4)
    up.copy_to(src)
    dst = Texture2D(w, h, R32_FLOAT)
    poison = Buffer(dst.size, HEAP_UPLOAD)
    poison.upload(b"\xcd" * dst.size)
    poison.copy_to(dst)
    cb = Buffer(64, HEAP_UPLOAD)
    # The factor, then bytes the shader must not read.
    cb.upload(struct.pack("<f", factor) + rng.integers(0, 256, 60, dtype=numpy.uint8).tobytes())
    sampler = Sampler(filter_min=compushady.SAMPLER_FILTER_POINT, filter_mag=compushady.SAMPLER_FILTER_POINT,
                      address_mode_u=compushady.SAMPLER_ADDRESS_MODE_CLAMP, address_mode_v=compushady.SAMPLER_ADDRESS_MODE_CLAMP,
                      address_mode_w=compushady.SAMPLER_ADDRESS_MODE_CLAMP)
    shader = glsl.compile("""
layout(local_size_x = 4, local_size_y = 4) in;
layout(set = 0, binding = 0) uniform sampler points; // samplers=[...]
layout(set = 0, binding = 1) uniform texture2D values; /* srv=[...] */
layout(set = 0, binding = 2, r32f) uniform image2D scaled;
layout(set = 0, binding = 3) uniform float factor;
void main() {
    ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    vec2 uv = (vec2(p) + 0.5) / vec2(textureSize(sampler2D(values, points), 0));
    imageStore(scaled, p, textureLod(sampler2D(values, points), uv, 0.0) * factor);
}
""", "main")
    Compute(shader, cbv=[cb], srv=[src], uav=[dst], samplers=[sampler]).dispatch(w // 4, h // 4, 1)
    down = Buffer(dst.size, HEAP_READBACK)
    dst.copy_to(down)
    got = numpy.frombuffer(down.readback2d(dst.row_pitch, w, h, 4), numpy.float32)
    assert numpy.array_equal(got.view(numpy.uint32), (data * factor).view(numpy.uint32))


def test_glsl_naga_image_format(rng):
    """layout(r32ui) on an image1D: naga makes it a uimage1D."""
    n = 128
    data = rng.integers(0, 1 << 32, n, dtype=numpy.uint32)
    img = Texture1D(n, R32_UINT)
    up = Buffer(img.size, HEAP_UPLOAD)
    up.upload(data.tobytes())
    up.copy_to(img)
    shader = glsl.compile("""
layout(set = 0, binding = 0, r32ui) uniform image1D counts;

layout (local_size_x = 32) in;
void main() {
    int i = int(gl_GlobalInvocationID.x);
    imageStore(counts, i, imageLoad(counts, i) * 3);
}
""")
    Compute(shader, uav=[img]).dispatch(n // 32, 1, 1)
    down = Buffer(img.size, HEAP_READBACK)
    down.upload(b"\xcd" * img.size)
    img.copy_to(down)
    assert numpy.array_equal(numpy.frombuffer(down.readback(), numpy.uint32), data * numpy.uint32(3))


def test_glsl_compile_error_line():
    """A real error in GLSL with rewritten declarations names its line."""
    with pytest.raises(compushady.CompileError) as e:
        glsl.compile("""layout(local_size_x = 1) in;
layout(set = 0, binding = 3) uniform float factor;
layout(set = 0, binding = 0, r32ui) uniform image1D counts;
void main() {
    imageStore(counts, 0, imageLoad(counts, 0) * uint(factor));
    undefined_thing = 1;
}
""")
    assert isinstance(e.value, ValueError)
    assert "shader.comp:6:" in str(e.value) and "undefined_thing" in str(e.value), str(e.value)


def test_compile_error():
    with pytest.raises(compushady.CompileError) as e:
        hlsl.compile("[numthreads(1,1,1)] void main() {\n undefined_thing = 1; }")
    assert ":2" in str(e.value)
