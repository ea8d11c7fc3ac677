"""Error paths, leaks, fork refusal and DLPack bookkeeping on the CPU."""

import ctypes
import gc
import multiprocessing

import numpy
import pytest

import gfxcuda
from gfxcuda import _lib
from conftest import fork_child_result


def test_released_handle():
    b = gfxcuda.Buffer(16)
    b.release()
    with pytest.raises(gfxcuda.BadHandleError):
        b.upload(b"x")
    with pytest.raises(gfxcuda.BadHandleError):
        _lib.call("gfxcuda_release", 10**12)
    assert "not a live handle" in _lib.lib.gfxcuda_last_error().decode()


def test_wrong_kind():
    s = gfxcuda.Sampler()
    with pytest.raises(gfxcuda.InvalidArgumentError) as e:
        _lib.call("gfxcuda_buffer_upload", s.handle, 0, b"abcd", 4)
    assert "sampler" in str(e.value)
    with pytest.raises(gfxcuda.InvalidArgumentError):
        gfxcuda.Compute(gfxcuda.hlsl.compile("[numthreads(1,1,1)] void main() {}"), uav=[object()])


def test_range_errors():
    b = gfxcuda.Buffer(16, gfxcuda.HEAP_UPLOAD)
    with pytest.raises(gfxcuda.OutOfRangeError):
        b.upload(b"x" * 17)
    with pytest.raises(ValueError):
        b.upload(b"x" * 4, offset=13)
    with pytest.raises(gfxcuda.GfxcudaError):
        b.readback(8, 12)


def test_no_leaks(rng):
    gfxcuda.get_current_device().handle  # opened before counting (when this test runs alone)
    gc.collect()  # earlier tests' garbage (exceptions pytest kept) is not this test's
    before = gfxcuda.live_handles()
    for i in range(300):
        b = gfxcuda.Buffer(64 + i, gfxcuda.HEAP_UPLOAD)
        t = gfxcuda.Texture2D(4, 4, gfxcuda.formats.R32_FLOAT)
        b.release()
        del t
    assert gfxcuda.live_handles() == before


def test_compute_keeps_resources_alive(rng):
    data = rng.integers(0, 2**32, 64, dtype=numpy.uint32)
    b = gfxcuda.Buffer(256, stride=4)
    c = gfxcuda.Compute(gfxcuda.hlsl.compile("""
    RWStructuredBuffer<uint> b : register(u0);
    [numthreads(64,1,1)] void main(uint3 t : SV_DispatchThreadID) { b[t.x] = ~b[t.x]; }"""), uav=[b])
    b.upload(data)
    h = b.handle
    b._h._h = 0  # drop the Python object's reference only
    _lib.call("gfxcuda_release", h)
    c.dispatch(1, 1, 1)  # the pipeline still holds the buffer
    del c


def _fork_child_result():
    return fork_child_result(lambda: gfxcuda.Buffer(16))


def test_fork_refused():
    gfxcuda.Buffer(16)  # the library is loaded and in use
    msg = _fork_child_result()
    assert "spawn" in msg and "forkserver" in msg, msg


def _spawn_child(q):
    import gfxcuda as g
    b = g.Buffer(8, g.HEAP_UPLOAD)
    b.upload(b"spawned!")
    r = g.Buffer(8, g.HEAP_READBACK)
    b.copy_to(r)
    q.put(r.readback())


def test_spawn_works():
    ctx = multiprocessing.get_context("spawn")
    q = ctx.Queue()
    p = ctx.Process(target=_spawn_child, args=(q,))
    p.start()
    got = q.get(timeout=120)
    p.join(60)
    assert got == b"spawned!"


FAKE = 0x7F00_0000_1000  # never dereferenced: wrapping and exporting only describe memory


def test_cuda_array_interface_and_dlpack_bookkeeping():
    base_h, base_t = gfxcuda.live_handles(), gfxcuda.live_dlpack_tensors()
    a = gfxcuda.CudaBuffer.from_cuda(FAKE, (3, 5), "float32")
    cai = a.__cuda_array_interface__
    assert cai == {"shape": (3, 5), "typestr": "<f4", "data": (FAKE, False), "version": 3, "strides": None, "stream": None}
    assert a.__dlpack_device__() == (2, 0)
    legacy = a.__dlpack__()
    assert _lib.PyCapsule_IsValid(legacy, b"dltensor")
    versioned = a.__dlpack__(max_version=(1, 0), stream=1)
    assert _lib.PyCapsule_IsValid(versioned, b"dltensor_versioned")
    assert gfxcuda.live_dlpack_tensors() == base_t + 2
    # A consumer takes the versioned one: reads it and renames the capsule.
    p = _lib.PyCapsule_GetPointer(versioned, b"dltensor_versioned")
    _lib.PyCapsule_SetName(versioned, b"used_dltensor_versioned")
    desc, h = _lib.Tensor(), ctypes.c_uint64()
    _lib.call("gfxcuda_dlpack_import", p, 1, ctypes.byref(h), ctypes.byref(desc))
    assert (desc.data, desc.ndim, desc.shape[0], desc.shape[1], desc.code, desc.bits) == (FAKE, 2, 3, 5, 2, 32)
    assert (desc.strides[0], desc.strides[1]) == (5, 1)
    del versioned  # used: its destructor must not call the deleter again
    a.release()  # the exports keep the wrapped memory's handle alive
    assert gfxcuda.live_dlpack_tensors() == base_t + 2
    _lib.call("gfxcuda_release", h.value)  # the consumer's deleter: once
    assert gfxcuda.live_dlpack_tensors() == base_t + 1
    del legacy  # never consumed: the capsule destructor runs the deleter
    assert gfxcuda.live_dlpack_tensors() == base_t
    assert gfxcuda.live_handles() == base_h


def test_dlpack_errors():
    a = gfxcuda.CudaBuffer.from_cuda(FAKE, (4,), "uint8")
    with pytest.raises(BufferError):
        a.__dlpack__(dl_device=(1, 0))
    with pytest.raises(BufferError):
        a.__dlpack__(dl_device=(2, 1))
    with pytest.raises(ValueError):
        a.__dlpack__(stream=0)
    cap = a.__dlpack__(dl_device=(2, 0), copy=False)
    assert _lib.PyCapsule_IsValid(cap, b"dltensor")
    # A tensor larger than the memory it is made from is refused.
    t = a._tensor()
    big = (ctypes.c_int64 * 1)(5)
    bad = _lib.Tensor(t.data, 0, 2, 0, 1, 8, 1, 1, ctypes.cast(big, ctypes.POINTER(ctypes.c_int64)), None, 0)
    out = ctypes.c_void_p()
    with pytest.raises(gfxcuda.OutOfRangeError):
        _lib.call("gfxcuda_dlpack_export", a.handle, ctypes.byref(bad), 1, ctypes.byref(out))


def test_ipc_pending_or_no_cuda():
    # Without CUDA, textures cannot be made; the error says so.
    if gfxcuda.cuda_available():
        pytest.skip("covered by the GPU tests")
    with pytest.raises(gfxcuda.NoDeviceError):
        gfxcuda.texture((4, 4, 4))
    with pytest.raises(gfxcuda.InvalidArgumentError):
        gfxcuda.texture(object())


def test_handle_release_once():
    """A wrapper's handle is released exactly once however often release()
    runs (explicitly, by a with block, then by garbage collection)."""
    base = gfxcuda.live_handles()
    s = gfxcuda.Buffer(16)
    assert gfxcuda.live_handles() > base
    h = s.handle
    s.release()
    after = gfxcuda.live_handles()
    s.release()  # a second release is a no-op, not a second gfxcuda_release
    del s
    assert gfxcuda.live_handles() == after == base
    with pytest.raises(gfxcuda.BadHandleError):
        _lib.call("gfxcuda_release", h)  # the library refuses a real double release


def test_handoff_release_once_without_cuda():
    """Handoff.to_vulkan ends the hand-off and releases its handle once,
    even when the library refuses to_vulkan, and again is a no-op. (A
    sampler's handle stands in for the hand-off: to_cuda needs CUDA.)"""
    from gfxcuda import _cuda
    gfxcuda.Sampler()  # the device is open before counting
    base = gfxcuda.live_handles()
    h = _lib.new_handle("gfxcuda_sampler_new", gfxcuda.get_current_device().handle, 0, 0, 0, 0, 0)
    r = gfxcuda.Buffer(16)
    ho = _cuda.Handoff.__new__(_cuda.Handoff)
    ho.resources, ho.stream, ho._h = [r], 0, _lib.Handle(h)
    r._pending, r._handoff = 0, ho
    with pytest.raises(gfxcuda.InvalidArgumentError):
        with ho:
            pass
    assert r._pending is None and r._handoff is None
    ho.to_vulkan()  # ended already: nothing to release
    ho.__exit__(None, None, None)
    r.release()
    assert gfxcuda.live_handles() == base


def test_dlpack_exporter_bookkeeping():
    """Exports run through a C exporter: the owner lives while the array or
    any export does, every deleter runs once, refused tensors leak nothing."""
    base_h, base_t = gfxcuda.live_handles(), gfxcuda.live_dlpack_tensors()
    a = gfxcuda.CudaBuffer.from_cuda(FAKE, (64,), "uint8")
    caps = [a.__dlpack__(max_version=(1, 0)) if i % 2 else a.__dlpack__() for i in range(1000)]
    assert gfxcuda.live_dlpack_tensors() == base_t + 1000
    a.release()
    a.release()
    assert gfxcuda.live_handles() == base_h + 1  # the exports hold the memory
    del caps
    assert gfxcuda.live_dlpack_tensors() == base_t
    assert gfxcuda.live_handles() == base_h
    # The exporter checks what the Go export checks.
    b = gfxcuda.CudaBuffer.from_cuda(FAKE, (4,), "uint8")
    b.__dlpack__()
    t = b._tensor()
    big = (ctypes.c_int64 * 1)(5)
    bad = _lib.Tensor(t.data, 0, 2, 0, 1, 8, 1, 1, ctypes.cast(big, ctypes.POINTER(ctypes.c_int64)), None, 0)
    out = ctypes.c_void_p()
    with pytest.raises(gfxcuda.OutOfRangeError):
        _lib.call("gfxcuda_dlpack_exporter_export", b._exporter._p, ctypes.byref(bad), 1, ctypes.byref(out))
    wrong = _lib.Tensor(t.data, 0, 1, 0, 1, 8, 1, 1, ctypes.cast(big, ctypes.POINTER(ctypes.c_int64)), None, 0)
    with pytest.raises(gfxcuda.InvalidArgumentError):
        _lib.call("gfxcuda_dlpack_exporter_export", b._exporter._p, ctypes.byref(wrong), 1, ctypes.byref(out))
    # The exporter remembers the description it checked by content: the
    # same description object grown past the memory is checked again.
    t.shape[0] = 5
    with pytest.raises(gfxcuda.OutOfRangeError):
        _lib.call("gfxcuda_dlpack_exporter_export", b._exporter._p, b._desc[3], 1, ctypes.byref(out))
    t.shape[0] = 4
    b.release()
    assert gfxcuda.live_dlpack_tensors() == base_t
    assert gfxcuda.live_handles() == base_h


@pytest.mark.parametrize("dtype,shape,strides,want_typestr,want_strides", [
    ("float32", (3, 5), None, "<f4", None),
    ("uint8", (7,), None, "|u1", None),
    ("int8", (2, 2), None, "|i1", None),
    ("int16", (4, 3, 2), None, "<i2", None),
    ("float16", (8,), None, "<f2", None),
    ("uint32", (), None, "<u4", None),
    ("float64", (0, 3), None, "<f8", None),
    ("int64", (2, 3), (8, 16), "<i8", (8, 16)),    # Fortran order
    ("float32", (4, 6), (32, 4), "<f4", (32, 4)),  # padded rows
    ("uint16", (2, 3), (6, 2), "<u2", (6, 2)),     # explicit C order stays explicit
])
def test_array_interface_fields(dtype, shape, strides, want_typestr, want_strides):
    """__cuda_array_interface__ is the library's (Go's dlpack), field by
    field, for several dtypes and shapes; the stream follows a hand-off."""
    a = gfxcuda.CudaBuffer.from_cuda(FAKE, shape, dtype, strides=strides)
    want = {"shape": shape, "typestr": want_typestr, "data": (FAKE, False), "version": 3,
            "strides": want_strides, "stream": None}
    cai = a.__cuda_array_interface__
    assert cai == want and list(cai) == list(want)  # the same keys in the same order
    assert all(type(x) is int for x in cai["shape"]) and type(cai["data"]) is tuple
    assert a.typestr == want_typestr and a.itemsize == int(want_typestr[2:])
    cai["shape"] = None  # a consumer's change does not reach the next one
    assert a.__cuda_array_interface__["shape"] == shape
    for pending, stream in ((0, 1), (2, 2), (0x5555_0000, 0x5555_0000), (None, None)):
        a._pending = pending  # what a hand-off (to_cuda) sets
        assert a.__cuda_array_interface__ == dict(want, stream=stream)
    a.release()


def test_array_interface_refusals():
    """The library refuses what it cannot describe: a tensor past its
    memory, a negative stream, dtypes other than ints and floats, strides
    that are not whole elements."""
    a = gfxcuda.CudaBuffer.from_cuda(FAKE, (4,), "uint8")
    t = a._tensor()
    out = _lib.ArrayInterface()
    big = (ctypes.c_int64 * 1)(5)
    bad = _lib.Tensor(t.data, 0, 2, 0, 1, 8, 1, 1, ctypes.cast(big, ctypes.POINTER(ctypes.c_int64)), None, 0)
    with pytest.raises(gfxcuda.OutOfRangeError):
        _lib.call("gfxcuda_array_interface", a.handle, ctypes.byref(bad), 0, ctypes.byref(out))
    with pytest.raises(gfxcuda.InvalidArgumentError):
        _lib.call("gfxcuda_array_interface", a.handle, ctypes.byref(t), -1, ctypes.byref(out))
    for bad_dtype in ("bool", "complex64", ">f4", "float128"):
        with pytest.raises(gfxcuda.InvalidArgumentError):
            gfxcuda.CudaBuffer.from_cuda(FAKE, (4,), bad_dtype)
    with pytest.raises(gfxcuda.InvalidArgumentError):
        gfxcuda.CudaBuffer.from_cuda(FAKE, (4,), "float32", strides=(6,))
    assert _lib.dtype_parse("<f4") == (2, 32) and _lib.dtype_parse("uint16") == (1, 16)
    a.release()
