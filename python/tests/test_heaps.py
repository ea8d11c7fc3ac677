"""Heaps, sparse resources and bindless pipelines in compushady's API, with
our own programs and random data. Sparse and bindless run where the device
has them (the H100; GFXCUDA_REQUIRE_HARDWARE=1 there makes their absence a
failure); elsewhere the error must name the missing feature."""

import os
import struct

import numpy
import pytest

import gfxcuda
from gfxcuda import (Buffer, Compute, HEAP_DEFAULT, HEAP_READBACK, HEAP_UPLOAD, Heap, Texture1D, Texture2D, Texture3D)
from gfxcuda.formats import R8G8B8A8_UINT, R8G8B8A8_UNORM, R32_UINT
from gfxcuda.shaders import hlsl

HARDWARE = os.environ.get("GFXCUDA_REQUIRE_HARDWARE") == "1"


def _rand(rng, n):
    return rng.integers(0, 256, n, dtype=numpy.uint8).tobytes()


def _readback(res, n=None):
    rb = Buffer(res.size, HEAP_READBACK)
    rb.upload(b"\xa5" * res.size)  # poison
    res.copy_to(rb)
    return rb.readback(n or res.size)


def test_aliased_buffers_see_each_others_writes(rng):
    for ht in (HEAP_UPLOAD, HEAP_READBACK, HEAP_DEFAULT):
        heap = Heap(ht, 256 << 10)
        whole = Buffer(256 << 10, ht, heap=heap)
        part = Buffer(64 << 10, ht, heap=heap, heap_offset=128 << 10)
        assert whole.heap is heap and part.heap_offset == 128 << 10
        data = _rand(rng, 64 << 10)
        part.upload(data)
        assert whole.readback(64 << 10, offset=128 << 10) == data
        other = _rand(rng, 4096)
        whole.upload(other, offset=128 << 10)
        assert part.readback(4096) == other
        # GPU copies read the aliased bytes too.
        assert _readback(part, 4096) == other


def test_texture_in_a_heap_round_trips(rng):
    heap = Heap(HEAP_DEFAULT, 1 << 20)
    t = Texture2D(64, 32, R8G8B8A8_UINT, heap=heap)
    assert t.heap is heap
    data = _rand(rng, t.size)
    up = Buffer(t.size, HEAP_UPLOAD)
    up.upload(data)
    up.copy_to(t)
    assert _readback(t) == data
    t3 = Texture3D(8, 8, 4, R8G8B8A8_UINT, heap=heap, heap_offset=0)
    t1 = Texture1D(16, R8G8B8A8_UINT, heap=heap, heap_offset=0)
    assert t3.heap is heap and t1.heap is heap


def test_heap_bad_input_leaves_nothing_behind():
    up = Heap(HEAP_UPLOAD, 64 << 10)
    dflt = Heap(HEAP_DEFAULT, 1024)
    before = gfxcuda.live_handles()
    cases = [
        (gfxcuda.BufferException, "does not fit", lambda: Buffer(1024, HEAP_UPLOAD, heap=up, heap_offset=64 << 10)),
        (gfxcuda.BufferException, "does not fit", lambda: Buffer(128 << 10, HEAP_UPLOAD, heap=up)),
        (gfxcuda.BufferException, "multiple of", lambda: Buffer(256, HEAP_UPLOAD, heap=up, heap_offset=1)),
        (gfxcuda.BufferException, "heap", lambda: Buffer(256, HEAP_READBACK, heap=up)),
        (gfxcuda.BufferException, "without a heap", lambda: Buffer(256, HEAP_UPLOAD, heap_offset=256)),
        (gfxcuda.Texture1DException, "HEAP_DEFAULT", lambda: Texture1D(2, R8G8B8A8_UNORM, heap=up)),
        (gfxcuda.Texture2DException, "does not fit", lambda: Texture2D(16384, 16384, R8G8B8A8_UNORM, heap=dflt)),
        (gfxcuda.HeapException, "heap type", lambda: Heap(7, 1024)),
    ]
    for exc, words, make in cases:
        with pytest.raises(exc, match=words):
            make()
    assert gfxcuda.live_handles() == before
    for _ in range(1000):
        Buffer(256, HEAP_UPLOAD, heap=up, heap_offset=4096).release()
    assert gfxcuda.live_handles() == before


def test_heap_outlives_its_release_while_used(rng):
    heap = Heap(HEAP_UPLOAD, 4096)
    b = Buffer(4096, HEAP_UPLOAD, heap=heap)
    heap.release()
    data = _rand(rng, 4096)
    b.upload(data)
    assert b.readback() == data


def _sparse_or_skip(make):
    try:
        return make()
    except gfxcuda.MissingFeatureError as e:
        assert isinstance(e, ValueError) and "sparse" in str(e)
        if HARDWARE:
            pytest.fail("GFXCUDA_REQUIRE_HARDWARE=1 but: %s" % e)
        pytest.skip("no sparse binding here (error checked): %s" % str(e)[-80:])


def test_sparse_buffer_tiles(rng):
    b0 = _sparse_or_skip(lambda: Buffer(2 << 20, sparse=True))
    assert b0.tile_width > 0 and b0.tiles_x * b0.tile_width >= 2 << 20
    tile = b0.tile_width
    heap = Heap(HEAP_DEFAULT, 4 * tile)
    for i in range(3):
        b0.bind_tile(i, 0, 0, heap, heap_offset=i * tile)
    data = [_rand(rng, 256) for _ in range(3)]
    for i, d in enumerate(data):
        up = Buffer(256, HEAP_UPLOAD)
        up.upload(d)
        up.copy_to(b0, size=256, dst_offset=i * tile)
    rb = Buffer(256, HEAP_READBACK)
    for i, d in enumerate(data):
        b0.copy_to(rb, size=256, src_offset=i * tile)
        assert rb.readback(256) == d
    # Rebinding tile 1 to tile 0's memory makes it read tile 0's bytes.
    b0.bind_tile(1, 0, 0, heap, heap_offset=0)
    b0.copy_to(rb, size=256, src_offset=tile)
    assert rb.readback(256) == data[0]
    with pytest.raises(ValueError, match="out of bounds"):
        b0.bind_tile(b0.tiles_x, 0, 0, heap)
    with pytest.raises(ValueError):
        b0.bind_tile(0, 0, 0, heap, heap_offset=1)


def test_sparse_texture_tiles(rng):
    t0 = _sparse_or_skip(lambda: Texture2D(512, 512, R8G8B8A8_UNORM, sparse=True))
    tw, th = t0.tile_width, t0.tile_height
    assert tw and th and t0.tiles_x * tw >= 512
    heap = Heap(HEAP_DEFAULT, 2 << 20)
    t0.bind_tile(0, 0, 0, heap)
    t0.bind_tile(1, 0, 0, heap, heap_offset=1 << 20)
    stage = Texture2D(tw, th, R8G8B8A8_UNORM)
    data = _rand(rng, stage.size)
    up = Buffer(stage.size, HEAP_UPLOAD)
    up.upload(data)
    up.copy_to(stage)
    stage.copy_to(t0, dst_x=tw, width=tw, height=th)
    back = Texture2D(tw, th, R8G8B8A8_UNORM)
    t0.copy_to(back, src_x=tw, width=tw, height=th)
    assert _readback(back) == data


def test_sparse_not_where_missing():
    if gfxcuda.get_current_device().is_hardware:
        pytest.skip("hardware devices have sparse binding; the error is checked on lavapipe")
    with pytest.raises(ValueError, match="sparseBinding"):
        Buffer(1 << 20, sparse=True)
    with pytest.raises(ValueError, match="sparseBinding"):
        Texture2D(256, 256, R8G8B8A8_UNORM, sparse=True)


_BINDLESS = """
Buffer<uint> inputs[] : register(t0);
RWBuffer<uint> outputs[] : register(u0);
[numthreads(1, 1, 1)]
void main(uint3 tid : SV_DispatchThreadID)
{
    outputs[0][tid.x] = inputs[tid.x][0] ^ 0x5a5a5a5a;
}
"""


def test_bindless_pipeline(rng):
    shader = hlsl.compile(_BINDLESS)
    vals = rng.integers(0, 1 << 32, 40, dtype=numpy.uint64).astype(numpy.uint32)
    ins = []
    for v in vals[:2]:
        b = Buffer(4, format=R32_UINT)
        up = Buffer(4, HEAP_UPLOAD)
        up.upload(struct.pack("<I", int(v)))
        up.copy_to(b)
        ins.append(b)
    out = Buffer(4 * 40, format=R32_UINT)
    try:
        c = Compute(shader, srv=ins, uav=[out], bindless=True)
    except gfxcuda.MissingFeatureError as e:
        assert isinstance(e, ValueError) and "descriptor indexing" in str(e)
        if HARDWARE:
            pytest.fail("GFXCUDA_REQUIRE_HARDWARE=1 but: %s" % e)
        pytest.skip("no descriptor indexing here (error checked)")
    for i in range(2, 40):
        b = Buffer(4, format=R32_UINT)
        up = Buffer(4, HEAP_UPLOAD)
        up.upload(struct.pack("<I", int(vals[i])))
        up.copy_to(b)
        c.bind_srv(i, b)
    rb = Buffer(out.size, HEAP_READBACK)
    out.copy_to(rb)  # poison check below: the output starts at zero
    c.dispatch(40, 1, 1)
    out.copy_to(rb)
    got = numpy.frombuffer(rb.readback(), dtype=numpy.uint32)
    assert (got == (vals ^ 0x5A5A5A5A)).all()
    with pytest.raises(ValueError, match="bind index"):
        c.bind_srv(64, ins[0])


def test_bind_needs_a_bindless_pipeline():
    shader = hlsl.compile("RWBuffer<uint> o : register(u0); [numthreads(1,1,1)] void main() { o[0] = 1; }")
    c = Compute(shader, uav=[Buffer(4, format=R32_UINT)])
    with pytest.raises(ValueError, match="not bindless"):
        c.bind_uav(0, Buffer(4, format=R32_UINT))


def test_placement_attributes_on_every_resource():
    """heap and heap_offset say where any resource lives: None and 0 for one
    not placed in a Heap (Buffer(16).heap_offset raised AttributeError;
    textures had both), the heap and offset for a placed one."""
    for r in (Buffer(16), Buffer(16, HEAP_UPLOAD), Texture2D(4, 4, R8G8B8A8_UNORM)):
        assert (r.heap, r.heap_offset) == (None, 0), r
    h = Heap(HEAP_DEFAULT, 1 << 20)
    b = Buffer(256, heap=h, heap_offset=65536)
    assert b.heap is h and b.heap_offset == 65536
