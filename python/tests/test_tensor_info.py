"""The library computes tensors' descriptions and Python takes them from
it: gfxcuda_tensor_info (elements, sizes, extent, contiguity, strides),
the one builder of DLPack managed tensors (gfxcuda_dlpack_export in Go and
the C exporter behind __dlpack__ build the same tensor, versioned and
legacy), and the shapes of conversions (gfxcuda_texture_tensor_shape, on
the GPU).

On the CPU: CudaBuffer.from_cuda over an address nobody reads
(descriptions only), random shapes and strides, each answer checked
against a brute-force walk over the elements."""

import ctypes
import gc
import itertools
import random

import pytest

import gfxcuda
from gfxcuda import _cuda, _lib
from conftest import need_cuda

vp, i64 = ctypes.c_void_p, ctypes.c_int64
FAKE = 0x7f2000000000
DTYPES = {"uint8": (1, 8), "int16": (0, 16), "float16": (2, 16), "int32": (0, 32), "float32": (2, 32),
          "int64": (0, 64), "float64": (2, 64)}


class DLTensor(ctypes.Structure):
    _fields_ = [("data", vp), ("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32), ("ndim", ctypes.c_int32),
                ("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16),
                ("shape", ctypes.POINTER(i64)), ("strides", ctypes.POINTER(i64)), ("byte_offset", ctypes.c_uint64)]


class Managed(ctypes.Structure):
    _fields_ = [("dl_tensor", DLTensor), ("manager_ctx", vp), ("deleter", vp)]


class ManagedVersioned(ctypes.Structure):
    _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32), ("manager_ctx", vp), ("deleter", vp),
                ("flags", ctypes.c_uint64), ("dl_tensor", DLTensor)]


Deleter = ctypes.CFUNCTYPE(None, vp)


def brute(shape, strides, itemsize):
    """(elements, nbytes, lo, hi, contiguous, dense, element strides) of an
    array, by visiting every element (strides in elements or None)."""
    c, acc = [], 1
    for d in reversed(shape):
        c.append(acc)
        acc *= d
    c = tuple(reversed(c))
    st = c if strides is None else tuple(strides)
    contiguous = all(d == 1 or a == b for d, a, b in zip(shape, st, c))
    if acc == 0:
        return acc, 0, 0, 0, contiguous, True, st
    offs = [sum(i * s for i, s in zip(idx, st)) for idx in itertools.product(*[range(d) for d in shape])]
    lo, hi = min(offs), max(offs)
    dense = len(set(offs)) == acc and hi - lo + 1 == acc
    return acc, acc * itemsize, lo * itemsize, hi * itemsize + itemsize, contiguous, dense, st


def random_case(r):
    nd = r.randrange(0, 5)
    shape = tuple(r.randrange(0, 6) if r.random() < 0.1 else r.randrange(1, 6) for _ in range(nd))
    strides = None
    if r.random() < 0.6:
        strides = tuple(r.choice((r.randrange(-40, 41), 0, 1)) for _ in range(nd))
    return shape, strides, r.choice(sorted(DTYPES))


def test_tensor_info_random():
    """gfxcuda_tensor_info on random descriptions (empty, broadcast,
    negative and overlapping strides): every field as the brute force
    says."""
    r = random.Random(11)
    for _ in range(600):
        shape, strides, dtype = random_case(r)
        code, bits = DTYPES[dtype]
        i = _lib.info_of(shape, code, bits, strides)
        want = brute(shape, strides, bits // 8)
        got = (i.elements, i.nbytes, i.lo, i.hi, bool(i.contiguous), bool(i.dense), tuple(i.strides[:i.ndim]))
        assert got == want, (shape, strides, dtype)
        assert i.itemsize == bits // 8 and i.ndim == len(shape)


@pytest.mark.parametrize("shape,strides", [((-1,), None), ((2**31, 2**31), None), ((2, 2), (2**61, 1)),
                                           ((1,) * 33, None)])
def test_tensor_info_refusals(shape, strides):
    with pytest.raises(gfxcuda.InvalidArgumentError):
        _lib.info_of(shape, 2, 32, strides)


def _managed(p, versioned):
    m = (ManagedVersioned if versioned else Managed).from_address(p)
    t = m.dl_tensor
    nd = t.ndim
    head = ctypes.sizeof(ManagedVersioned if versioned else Managed)
    return dict(version=(m.major, m.minor) if versioned else None, flags=m.flags if versioned else None,
                data=t.data or 0, device=(t.device_type, t.device_id), ndim=nd, dtype=(t.code, t.bits, t.lanes),
                shape=tuple(t.shape[k] for k in range(nd)), strides=tuple(t.strides[k] for k in range(nd)),
                byte_offset=t.byte_offset, ctx=bool(m.manager_ctx), deleter=bool(m.deleter),
                # shape and strides in the tensor's own block, after the struct
                dims_in_block=nd == 0 and not t.shape and not t.strides or
                (ctypes.addressof(t.shape.contents) == p + head and
                 ctypes.addressof(t.strides.contents) == p + head + 8 * nd))


def test_one_builder_random():
    """__dlpack__ (the C exporter: no Go after the first check) and
    gfxcuda_dlpack_export (Go's dlpack.Export) build the same managed
    tensor of an array, versioned and legacy, field by field, as the
    brute force expects; capsules keep their names and deleters run once."""
    r = random.Random(12)
    live = gfxcuda.live_dlpack_tensors()
    for n in range(200):
        shape, strides, dtype = random_case(r)
        code, bits = DTYPES[dtype]
        isz = bits // 8
        if strides is not None and any(s < 0 for s in strides):
            strides = tuple(abs(s) for s in strides)  # the memory starts at ptr: no negative reach
        b = gfxcuda.CudaBuffer.from_cuda(FAKE, shape, dtype, strides=None if strides is None else
                                         tuple(s * isz for s in strides))
        want_strides = brute(shape, strides, isz)[6]
        for versioned in (1, 0):
            cap = b.__dlpack__(max_version=(1, 0)) if versioned else b.__dlpack__()
            name = b"dltensor_versioned" if versioned else b"dltensor"
            assert _lib.PyCapsule_IsValid(cap, name)
            got_c = _managed(_lib.PyCapsule_GetPointer(cap, name), versioned)
            out = vp()
            _lib.call("gfxcuda_dlpack_export", b.handle, ctypes.byref(b._tensor()), versioned, ctypes.byref(out))
            got_go = _managed(out.value, versioned)
            want = dict(version=(1, 1) if versioned else None, flags=0 if versioned else None, data=FAKE,
                        device=(2, 0), ndim=len(shape), dtype=(code, bits, 1), shape=shape,
                        strides=tuple(want_strides), byte_offset=0, ctx=True, deleter=True, dims_in_block=True)
            assert got_c == want, (n, shape, strides, dtype, versioned)
            assert got_go == want, (n, shape, strides, dtype, versioned)
            m = (ManagedVersioned if versioned else Managed).from_address(out.value)
            Deleter(m.deleter)(out.value)
            del cap  # its destructor runs here: a capsule is in no cycle
            if gfxcuda.live_dlpack_tensors() != live:
                gc.collect()  # only then: 400 collections in the GPU run's torch process were where its pytest was cut
            assert gfxcuda.live_dlpack_tensors() == live
        b.release()


def test_sizes_from_the_library():
    """An array's size, nbytes and contiguity (host copies refuse strided
    views) are the library's answer for its description."""
    r = random.Random(13)
    for _ in range(200):
        shape, strides, dtype = random_case(r)
        code, bits = DTYPES[dtype]
        isz = bits // 8
        if strides is not None:
            strides = tuple(abs(s) for s in strides)
        b = gfxcuda.CudaBuffer.from_cuda(FAKE, shape, dtype, strides=None if strides is None else
                                         tuple(s * isz for s in strides))
        n, nbytes, _, hi, contiguous, _, _ = brute(shape, strides, isz)
        assert (b.size, b.nbytes) == (n, nbytes)
        # The wrapped memory reaches the last element's last byte.
        assert _lib.info(b.handle).size == max(hi if n else 0, 1)
        if strides is None or contiguous or nbytes == 0:
            b._check_contiguous("copy_to_host")
        else:
            with pytest.raises(gfxcuda.InvalidArgumentError, match="strided buffer"):
                b._check_contiguous("copy_to_host")
        b.release()


def test_texture_tensor_shape():
    """Texture.to_tensor's tensor is the shape and size
    gfxcuda_texture_tensor_shape reports, for whole textures and tiles,
    planar or not, 3 or 4 channels."""
    need_cuda()
    tex = gfxcuda.texture((32, 64, 4), format="rgba8_unorm")
    try:
        for planar, channels, dtype, tiles in itertools.product((True, False), (3, 4), ("float32", "uint8"),
                                                                (None, (2, 2), (4, 2, 5))):
            if tiles is None:
                c, h, w, n = channels, 32, 64, 1
            else:
                n = tiles[2] if len(tiles) == 3 else tiles[0] * tiles[1]
                c, h, w = channels, 32 // tiles[1], 64 // tiles[0]
            want = (n, c, h, w) if planar else (n, h, w, c)
            out = tex.to_tensor(dtype=dtype, planar=planar, channels=channels, tiles=tiles,
                                converter="vulkan" if tiles else "cuda")
            assert out.shape == want and out.nbytes == n * c * h * w * (4 if dtype == "float32" else 1)
            out.release()
    finally:
        tex.release()
