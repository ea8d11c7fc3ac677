"""upload2d, upload_chunked and readback2d follow compushady's rules
(compushady/backends/vulkan.cpp), byte for byte, on random data."""

import os

import pytest

import gfxcuda as compushady
from gfxcuda import Buffer, Texture2D, Texture3D, HEAP_UPLOAD, HEAP_READBACK, HEAP_DEFAULT
from gfxcuda.formats import R8G8B8A8_UINT, get_pixel_size


def ref_upload2d(mem, data, pitch, width, height, bpp):
    """compushady's vulkan_Resource_upload2d loop on a bytearray; False
    where compushady would write past the end (gfxcuda's error)."""
    offset, remains, resource_remains = 0, len(data), len(mem)
    for y in range(height):
        amount = min(width * bpp, remains, resource_remains)
        if amount:
            if pitch * y + amount > len(mem):
                return False
            mem[pitch * y:pitch * y + amount] = data[offset:offset + amount]
        remains -= amount
        if remains == 0:
            break
        resource_remains -= amount
        offset += amount
    return True


def _filled(size, heap, rng):
    """A buffer of random bytes (the poison) and those bytes."""
    before = bytes(rng.integers(0, 256, size, dtype="uint8"))
    b = Buffer(size, heap)
    b.upload(before)
    return b, before


def _all(b):
    if b.heap_type == HEAP_DEFAULT:
        rb = Buffer(b.size, HEAP_READBACK)
        b.copy_to(rb)
        return rb.readback()
    return b.readback()


def test_simple_upload2d_partial_row():
    """compushady's test_texture2d.test_simple_upload2d: 4 bytes into a 2x2
    RGBA8 texture's rows reach its first texel."""
    t0 = Texture2D(2, 2, R8G8B8A8_UINT)
    b0 = Buffer(t0.size, HEAP_UPLOAD)
    b1 = Buffer(t0.size, HEAP_READBACK)
    b2 = Buffer(t0.size)
    b0.upload2d(b"\xDE\xAD\xBE\xEF", t0.row_pitch, t0.width, t0.height, get_pixel_size(R8G8B8A8_UINT))
    b0.copy_to(t0)
    t0.copy_to(b2)
    b2.copy_to(b1)
    assert b1.readback(4) == b"\xDE\xAD\xBE\xEF"


def test_upload2d_3d_texture(rng):
    """compushady's test_texture3d.test_simple_upload2d, with random bytes:
    8 bytes fill the first row of the first slice, the rest is untouched."""
    t0 = Texture3D(2, 2, 2, R8G8B8A8_UINT)
    b0, before = _filled(t0.size, HEAP_UPLOAD, rng)
    data = os.urandom(8)
    b0.upload2d(data, t0.row_pitch, t0.width, t0.height, 4)
    assert b0.readback() == data + before[8:]
    b1 = Buffer(t0.size, HEAP_READBACK)
    b0.copy_to(t0)
    t0.copy_to(b1)
    assert b1.readback(4, offset=4) == data[4:]


CASES = [  # (size, pitch, width, height, bpp, len(data))
    (1024, 256, 2, 2, 4, 4), (1024, 256, 2, 2, 4, 12), (1024, 256, 2, 4, 4, 32), (1024, 256, 2, 4, 4, 99),
    (64, 16, 4, 4, 4, 64), (64, 16, 4, 4, 4, 0), (64, 16, 4, 0, 4, 32), (20, 4, 2, 4, 4, 32),
    (16, 0, 2, 3, 4, 24), (16, 12, 1, 3, 4, 12), (16, 12, 1, 3, 4, 8), (8, 16, 4, 1, 4, 9), (30, 8, 2, 4, 4, 30),
    (30, 8, 2, 4, 4, 31),
]


@pytest.mark.parametrize("heap", [HEAP_UPLOAD, HEAP_DEFAULT, HEAP_READBACK])
def test_upload2d_rule(heap, rng):
    cases = list(CASES)
    for _ in range(40):
        pitch, width, height, bpp = (int(v) for v in rng.integers(0, [64, 12, 6, 5]))
        span = width * bpp + pitch * max(height - 1, 0)
        cases.append((max(1, span + int(rng.integers(-6, 20))), pitch, width, height, bpp,
                      int(rng.integers(0, width * bpp * height + 20))))
    errors = 0
    for size, pitch, width, height, bpp, n in cases:
        b, before = _filled(size, heap, rng)
        data = os.urandom(n)
        want = bytearray(before)
        if ref_upload2d(want, data, pitch, width, height, bpp):
            b.upload2d(data, pitch, width, height, bpp)
        else:
            errors += 1
            with pytest.raises(ValueError) as e:
                b.upload2d(data, pitch, width, height, bpp)
            assert isinstance(e.value, compushady.OutOfRangeError)
            del e  # the traceback's frames would keep the buffers alive until a garbage collection
            want = before
        assert _all(b) == bytes(want), (size, pitch, width, height, bpp, n)
    assert 0 < errors < len(cases)


def test_upload2d_arguments():
    b = Buffer(64, HEAP_UPLOAD)
    with pytest.raises(ValueError):
        b.upload2d(b"x" * 8, -1, 2, 1, 4)
    with pytest.raises(ValueError):
        b.upload2d(b"x" * 8, 8, 2, 2 ** 32, 4)
    with pytest.raises(TypeError):
        b.upload2d(b"x" * 8, 8.0, 2, 1, 4)
    b.upload2d(memoryview(bytearray(b"\1" * 8)), 8, 2, 1, 4)  # any bytes-like object
    assert b.readback(8) == b"\1" * 8


@pytest.mark.parametrize("heap", [HEAP_UPLOAD, HEAP_DEFAULT])
def test_upload_chunked_rule(heap, rng):
    for i in range(30):
        stride, fill = int(rng.integers(1, 17)), int(rng.integers(0, 6))
        n = int(rng.integers(0, 12 * stride + 1))
        whole = n // stride
        size = max(1, n + whole * fill + int(rng.integers(-5, 12)))
        b, before = _filled(size, heap, rng)
        data, filler = os.urandom(n), os.urandom(fill)
        if n + whole * fill > size:
            with pytest.raises(ValueError):
                b.upload_chunked(data, stride, filler)
            want = before
        else:
            b.upload_chunked(bytearray(data), stride, memoryview(filler))
            out = b"".join(data[k * stride:(k + 1) * stride] + filler for k in range(whole))
            want = out + before[len(out):]
        assert _all(b) == want, (n, stride, fill, size)
    with pytest.raises(compushady.InvalidArgumentError):
        Buffer(8, HEAP_UPLOAD).upload_chunked(b"ab", 0, b"")


def test_upload_chunked_large_is_fast():
    """A million float3 chunks go through one library call (no Python loop)."""
    import time
    data = os.urandom(12 * 1000000)
    b = Buffer(16 * 1000000, HEAP_UPLOAD)
    t = time.perf_counter()
    b.upload_chunked(data, 12, b"\0\0\x80\x3f")
    took = time.perf_counter() - t
    got = b.readback(32)
    assert got == data[:12] + b"\0\0\x80\x3f" + data[12:24] + b"\0\0\x80\x3f"
    assert took < 2.0, took


def test_readback2d_rule(rng):
    for size, pitch, width, height, bpp, _ in CASES + [(8, 16, 1, 1, 4, 0), (16, 32, 1, 0, 4, 0)]:
        b, before = _filled(size, HEAP_READBACK, rng)
        need = pitch * (height - 1) + width * bpp if height > 1 else pitch
        end = pitch * (height - 1) + width * bpp if height else 0
        if need > size or end > size:
            with pytest.raises(ValueError):
                b.readback2d(pitch, width, height, bpp)
            continue
        row = width * bpp
        assert b.readback2d(pitch, width, height, bpp) == b"".join(
            before[y * pitch:y * pitch + row] for y in range(height)), (size, pitch, width, height, bpp)
