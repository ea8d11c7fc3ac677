"""DLPack 1.3's C exchange API (__dlpack_c_exchange_api__) on gfxcuda's
arrays, seen by a consumer written in C (python/bench/
dlpack_exchange_consumer.c, compiled here) and through ctypes.

On the CPU: host ring slots and frames (real memory, lavapipe) and
CudaBuffer.from_cuda over an address nobody reads (descriptions only). On
the GPU (CUDA and torch; skipped without): torch.from_dlpack and cuda.core's
StridedMemoryView.from_dlpack with the API and without it, gfxcuda → torch
and torch → gfxcuda through both libraries' tables, and the allocator."""

import ctypes
import gc
import os
import shutil
import subprocess
import sys

import numpy
import pytest

import gfxcuda
from gfxcuda import _cuda, _lib, _ring
from conftest import HAVE_CUDA, need_cuda

here = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.join(here, "..", "bench", "dlpack_exchange_consumer.c")
vp, i64 = ctypes.c_void_p, ctypes.c_int64
kDLCPU, kDLCUDA, kDLVulkan = 1, 2, 7


class DLTensor(ctypes.Structure):
    _fields_ = [("data", vp), ("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32), ("ndim", ctypes.c_int32),
                ("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16),
                ("shape", ctypes.POINTER(i64)), ("strides", ctypes.POINTER(i64)), ("byte_offset", ctypes.c_uint64)]


class ManagedVersioned(ctypes.Structure):
    _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32), ("manager_ctx", vp), ("deleter", vp),
                ("flags", ctypes.c_uint64), ("dl_tensor", DLTensor)]


class ExchangeAPI(ctypes.Structure):
    _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32), ("prev_api", vp)] + [
        (name, vp) for name in _lib.EXCHANGE_FUNCTIONS]


# The table's functions called from Python: PYFUNCTYPE keeps the GIL and
# raises the exception a function set when it returns -1.
FromPy = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.py_object, ctypes.POINTER(vp))
ViewPy = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.py_object, ctypes.POINTER(DLTensor))
ToPy = ctypes.PYFUNCTYPE(ctypes.c_int, vp, ctypes.POINTER(vp))
Stream = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.c_int32, ctypes.c_int32, ctypes.POINTER(vp))
Deleter = ctypes.CFUNCTYPE(None, vp)


def table(cls=_cuda.CudaBuffer):
    cap = cls.__dlpack_c_exchange_api__
    assert cap is not None, "the library offered no exchange API (GFXCUDA_DLPACK_C_EXCHANGE=0?)"
    assert _lib.PyCapsule_IsValid(cap, b"dlpack_exchange_api")
    return ExchangeAPI.from_address(_lib.PyCapsule_GetPointer(cap, b"dlpack_exchange_api"))


def calls():
    return _lib.dlpack_exchange_calls()


def delta(before, name):
    return calls()[name] - before[name]


def managed_from_capsule(cap):
    """The DLManagedTensorVersioned of a __dlpack__ capsule (still owned by it)."""
    assert _lib.PyCapsule_IsValid(cap, b"dltensor_versioned")
    return ManagedVersioned.from_address(_lib.PyCapsule_GetPointer(cap, b"dltensor_versioned"))


def fields(t, ndim=None):
    nd = t.ndim if ndim is None else ndim
    return dict(data=t.data or 0, device=(t.device_type, t.device_id), ndim=t.ndim, dtype=(t.code, t.bits, t.lanes),
                shape=tuple(t.shape[i] for i in range(nd)), strides=tuple(t.strides[i] for i in range(nd)),
                byte_offset=t.byte_offset)


def fields_of(out):
    """consumer_describe's / consumer_view's int64 array as fields()."""
    nd = out[3]
    return dict(data=out[0], device=(out[1], out[2]), ndim=nd, dtype=(out[4], out[5], out[6]),
                shape=tuple(out[12:12 + nd]), strides=tuple(out[44:44 + nd]), byte_offset=out[7])


@pytest.fixture(scope="module")
def consumer(tmp_path_factory):
    if shutil.which("gcc") is None:
        pytest.skip("no gcc to build the C consumer")
    so = tmp_path_factory.mktemp("dlx") / "consumer.so"
    subprocess.run(["gcc", "-std=c11", "-shared", "-fPIC", "-O2", "-Wall", "-Werror", "-o", str(so), SRC], check=True)
    c = ctypes.PyDLL(str(so))
    po, P = ctypes.py_object, ctypes.POINTER
    c.consumer_describe.argtypes = [po, P(i64), ctypes.c_int, P(vp)]
    c.consumer_view.argtypes = [po, P(i64), P(i64)]
    c.consumer_loop.argtypes = [po, i64, ctypes.c_int]
    c.consumer_loop.restype = ctypes.c_double
    c.consumer_convert.argtypes = [po, po]
    c.consumer_convert.restype = po
    c.consumer_convert_loop.argtypes = [po, po, i64]
    c.consumer_convert_loop.restype = ctypes.c_double
    c.consumer_allocate.argtypes = [po, ctypes.c_int32, P(i64), ctypes.c_int32, ctypes.c_int32, ctypes.c_int32,
                                    ctypes.c_int32, P(vp), ctypes.c_char_p]
    c.consumer_delete.argtypes = [vp]
    c.consumer_delete.restype = None
    return c


def describe(consumer, obj):
    out = (i64 * 76)()
    rc = consumer.consumer_describe(obj, out, 0, None)
    assert rc == 0, rc
    return fields_of(list(out)), dict(flags=out[9], version=(out[10], out[11]))


def view(consumer, obj):
    out, ptrs = (i64 * 76)(), (i64 * 2)()
    rc = consumer.consumer_view(obj, out, ptrs)
    assert rc == 0, rc
    return fields_of(list(out)), (ptrs[0], ptrs[1])


@pytest.fixture
def host_ring():
    gfxcuda.get_current_device().handle
    r = gfxcuda.Ring((5, 7), "int16", slots=2)
    yield r
    r.close()


# ---- the table ----------------------------------------------------------

def test_table_on_every_array_type():
    """One capsule, named as DLPack 1.3 says, on every type with
    __dlpack__; header version 1.3, no older table, every function set."""
    cap = _cuda.DLPACK_EXCHANGE_API
    assert cap is not None
    for cls in (_cuda.CudaBuffer, _cuda.SharedBuffer, _ring.Slot, _ring.Frame):
        assert hasattr(cls, "__dlpack__")
        assert cls.__dict__["__dlpack_c_exchange_api__"] is cap, cls
    api = table()
    assert (api.major, api.minor) == (1, 3)
    assert not api.prev_api
    for name in _lib.EXCHANGE_FUNCTIONS:
        assert getattr(api, name), name


def test_turned_off_by_environment():
    """GFXCUDA_DLPACK_C_EXCHANGE=0: no table (consumers use __dlpack__)."""
    env = dict(os.environ, GFXCUDA_DLPACK_C_EXCHANGE="0")
    code = ("import gfxcuda; from gfxcuda import _cuda, _ring; "
            "assert _cuda.CudaBuffer.__dlpack_c_exchange_api__ is None; "
            "assert _ring.Slot.__dlpack_c_exchange_api__ is None; "
            "b = gfxcuda.CudaBuffer.from_cuda(4096, (4,), 'float32'); b.__dlpack__(max_version=(1, 0)); print('off')")
    r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120,
                       cwd=os.path.join(here, ".."))
    assert r.returncode == 0 and r.stdout.strip() == "off", r.stdout + r.stderr


def test_current_work_stream():
    api, before = table(), calls()
    f = Stream(api.current_work_stream)
    for dev in ((kDLCUDA, 0), (kDLCUDA, 3), (kDLCPU, 0)):
        s = vp(12345)
        assert f(dev[0], dev[1], ctypes.byref(s)) == 0
        assert s.value is None  # gfxcuda has no stream context: CUDA's legacy default stream
    assert delta(before, "current_work_stream") == 3
    with pytest.raises(RuntimeError):
        f(kDLCUDA, 0, None)


# ---- what the exchange describes ----------------------------------------

CASES = [((3, 4), "float32", None), ((2, 3, 5), "int16", (60, 20, 2)), ((6,), "uint8", (2,)), ((), "float64", None),
         ((4, 4), "float16", (2, 16)), ((7, 1, 3), "int64", None)]


@pytest.mark.parametrize("shape,dtype,strides", CASES)
def test_description_matches_dlpack(consumer, shape, dtype, strides):
    """managed_tensor_from_py_object_no_sync and dltensor_from_py_object_no_sync
    describe what __dlpack__'s versioned capsule and
    __cuda_array_interface__ describe, field by field."""
    ptr = 0x7f1234560000
    b = gfxcuda.CudaBuffer.from_cuda(ptr, shape, dtype, strides=strides)
    cap = b.__dlpack__(max_version=(1, 0))
    want = fields(managed_from_capsule(cap).dl_tensor)
    before = calls()
    got, extra = describe(consumer, b)
    assert delta(before, "managed_tensor_from_py_object_no_sync") == 1
    assert got == want
    assert extra == dict(flags=0, version=(managed_from_capsule(cap).major, managed_from_capsule(cap).minor))
    v, (shape_p, strides_p) = view(consumer, b)
    assert delta(before, "dltensor_from_py_object_no_sync") == 1
    assert v == want
    # The view allocates nothing: the same arrays every time, the binding's.
    assert view(consumer, b)[1] == (shape_p, strides_p) or len(shape) == 0
    cai = b.__cuda_array_interface__
    itemsize = numpy.dtype(dtype).itemsize
    assert got["data"] + got["byte_offset"] == cai["data"][0] == ptr
    assert got["device"] == (kDLCUDA, 0) and got["shape"] == tuple(cai["shape"]) == tuple(shape)
    want_strides = cai["strides"] or tuple(numpy.zeros(shape, dtype).strides)
    assert tuple(s * itemsize for s in got["strides"]) == tuple(want_strides)
    assert numpy.dtype(dtype) == numpy.dtype("%s%d" % ("iuf"[got["dtype"][0]], got["dtype"][1] // 8))


def test_host_slot_bytes(consumer, host_ring, rng):
    """A host ring slot (kDLCPU): the exchange's tensor points at the
    slot's bytes (every byte compared on random data) and matches
    __dlpack__ and __array_interface__; a Frame gives its slot's."""
    s = host_ring.slot(0)
    data = rng.integers(-2**15, 2**15 - 1, (5, 7), dtype=numpy.int16)
    s.write(data.tobytes())
    got, _ = describe(consumer, s)
    want = fields(managed_from_capsule(s.__dlpack__(max_version=(1, 0))).dl_tensor)
    assert got == want and got["device"] == (kDLCPU, 0)
    assert got["data"] + got["byte_offset"] == s.__array_interface__["data"][0]
    assert ctypes.string_at(got["data"] + got["byte_offset"], data.nbytes) == data.tobytes()
    v, _ = view(consumer, s)
    assert v == want

    rd = gfxcuda.open_ring(host_ring.token, (5, 7), "int16", timeout=10)
    try:
        i = host_ring.acquire(timeout=10)
        data2 = rng.integers(-2**15, 2**15 - 1, (5, 7), dtype=numpy.int16)
        host_ring.slot(i).write(data2.tobytes())
        host_ring.publish(i)
        f = rd.next()
        fg, _ = describe(consumer, f)
        assert fg == fields(managed_from_capsule(f.__dlpack__(max_version=(1, 0))).dl_tensor)
        assert ctypes.string_at(fg["data"] + fg["byte_offset"], data2.nbytes) == data2.tobytes()
        assert view(consumer, f)[0] == fg
        f.release()
    finally:
        rd.close()


def test_ctypes_calls_match(host_ring):
    """The function pointers called from Python (ctypes): the same tensor
    as the C consumer's, and the deleter releases it."""
    api, s = table(), host_ring.slot(1)
    live = gfxcuda.live_dlpack_tensors()
    out = vp()
    assert FromPy(api.managed_tensor_from_py_object_no_sync)(s, ctypes.byref(out)) == 0
    m = ManagedVersioned.from_address(out.value)
    assert gfxcuda.live_dlpack_tensors() == live + 1
    want = fields(managed_from_capsule(s.__dlpack__(max_version=(1, 0))).dl_tensor)
    assert fields(m.dl_tensor) == want
    t = DLTensor()
    ctypes.memset(ctypes.byref(t), 0xA5, ctypes.sizeof(t))
    assert ViewPy(api.dltensor_from_py_object_no_sync)(s, ctypes.byref(t)) == 0
    assert fields(t) == want
    Deleter(m.deleter)(out.value)
    gc.collect()
    assert gfxcuda.live_dlpack_tensors() == live


# ---- errors --------------------------------------------------------------

class _NotGfxcuda:
    _gfxcuda_dlpack = "a string, not a binding"


@pytest.mark.parametrize("obj", [numpy.zeros(3), 7, None, _NotGfxcuda(), "text"])
def test_wrong_object(obj):
    """Anything but a gfxcuda array: TypeError and -1, no tensor, nothing
    counted live."""
    api, live = table(), gfxcuda.live_dlpack_tensors()
    out = vp(99)
    with pytest.raises(TypeError, match="gfxcuda"):
        FromPy(api.managed_tensor_from_py_object_no_sync)(obj, ctypes.byref(out))
    assert not out.value
    with pytest.raises(TypeError, match="gfxcuda"):
        ViewPy(api.dltensor_from_py_object_no_sync)(obj, ctypes.byref(DLTensor()))
    assert gfxcuda.live_dlpack_tensors() == live


def test_null_outputs_and_released_array():
    api = table()
    b = gfxcuda.CudaBuffer.from_cuda(0x10000, (4,), "float32")
    with pytest.raises(RuntimeError):
        FromPy(api.managed_tensor_from_py_object_no_sync)(b, None)
    with pytest.raises(RuntimeError):
        ViewPy(api.dltensor_from_py_object_no_sync)(b, None)
    b.release()
    out = vp()
    with pytest.raises(gfxcuda.BadHandleError):
        FromPy(api.managed_tensor_from_py_object_no_sync)(b, ctypes.byref(out))
    assert not out.value
    with pytest.raises(gfxcuda.BadHandleError):
        b.__dlpack__()


def test_to_py_object_takes_host_tensor_over_and_refuses_it(consumer, host_ring):
    """managed_tensor_to_py_object_no_sync makes CUDA arrays: a host
    tensor gets BufferError, and its deleter has run (ownership passed)."""
    api, s = table(), host_ring.slot(0)
    live = gfxcuda.live_dlpack_tensors()
    m = vp()
    assert consumer.consumer_describe(s, (i64 * 76)(), 1, ctypes.byref(m)) == 0
    assert gfxcuda.live_dlpack_tensors() == live + 1
    out = vp()
    with pytest.raises(BufferError, match="CUDA"):
        ToPy(api.managed_tensor_to_py_object_no_sync)(m.value, ctypes.byref(out))
    gc.collect()
    assert gfxcuda.live_dlpack_tensors() == live
    with pytest.raises(RuntimeError):
        ToPy(api.managed_tensor_to_py_object_no_sync)(None, ctypes.byref(out))


def test_allocator_host(consumer, host_ring, rng):
    """managed_tensor_allocator on kDLCPU: a writable C-contiguous tensor
    of the prototype; its deleter frees it. Other devices: set_error, -1."""
    live = gfxcuda.live_dlpack_tensors()
    shape = (i64 * 3)(2, 3, 4)
    m, err = vp(), ctypes.create_string_buffer(256)
    assert consumer.consumer_allocate(host_ring.slot(0), 3, shape, 2, 32, kDLCPU, 0, ctypes.byref(m), err) == 0
    t = ManagedVersioned.from_address(m.value)
    assert fields(t.dl_tensor) == dict(data=t.dl_tensor.data, device=(kDLCPU, 0), ndim=3, dtype=(2, 32, 1),
                                       shape=(2, 3, 4), strides=(12, 4, 1), byte_offset=0)
    assert t.flags == 0 and t.major == 1
    data = rng.random((2, 3, 4), dtype=numpy.float32)
    ctypes.memmove(t.dl_tensor.data, data.tobytes(), data.nbytes)
    assert ctypes.string_at(t.dl_tensor.data, data.nbytes) == data.tobytes()
    assert gfxcuda.live_dlpack_tensors() == live + 1
    consumer.consumer_delete(m)
    assert gfxcuda.live_dlpack_tensors() == live
    for dev, kind in (((kDLVulkan, 0), b"RuntimeError"), ((kDLCPU, 2), b"ValueError")):
        m = vp()
        assert consumer.consumer_allocate(host_ring.slot(0), 3, shape, 2, 32, dev[0], dev[1], ctypes.byref(m), err) == -1
        assert err.raw[:128].rstrip(b"\0") == kind and b"gfxcuda" in err.raw[128:], err.raw
        assert not m.value
    assert consumer.consumer_allocate(host_ring.slot(0), 40, shape, 2, 32, kDLCPU, 0, ctypes.byref(m), err) == -1
    assert err.raw[:10] == b"ValueError"
    if not HAVE_CUDA:
        m = vp()
        assert consumer.consumer_allocate(host_ring.slot(0), 3, shape, 2, 32, kDLCUDA, 0, ctypes.byref(m), err) == -1
        assert b"CUDA" in err.raw[128:] or b"cuda" in err.raw[128:], err.raw
    assert gfxcuda.live_dlpack_tensors() == live


# ---- lifetime and leaks ----------------------------------------------------

def test_tensor_keeps_memory_alive(consumer, rng):
    """A tensor from the exchange keeps the slot's memory after the ring,
    the slot and the array are gone; its deleter lets everything go."""
    gfxcuda.get_current_device().handle
    handles, live = gfxcuda.live_handles(), gfxcuda.live_dlpack_tensors()
    r = gfxcuda.Ring((64,), "uint8", slots=2)
    s = r.slot(0)
    data = rng.integers(0, 256, 64, dtype=numpy.uint8)
    s.write(data.tobytes())
    m, out = vp(), (i64 * 76)()
    assert consumer.consumer_describe(s, out, 1, ctypes.byref(m)) == 0
    r.close()
    s.release()
    del r, s
    gc.collect()
    assert gfxcuda.live_dlpack_tensors() == live + 1
    assert ctypes.string_at(out[0] + out[7], 64) == data.tobytes()
    consumer.consumer_delete(m)
    gc.collect()
    assert gfxcuda.live_dlpack_tensors() == live
    assert gfxcuda.live_handles() == handles


def test_no_leak_over_100000_exchanges(consumer, host_ring):
    """100,000 managed exchanges (each deleted) and 100,000 views from C:
    every one counted, no tensor, handle or exporter left behind; the
    bindings of arrays made and dropped go too."""
    s = host_ring.slot(0)
    handles, live, before = gfxcuda.live_handles(), gfxcuda.live_dlpack_tensors(), calls()
    assert consumer.consumer_loop(s, 100000, 0) > 0
    assert consumer.consumer_loop(s, 100000, 1) > 0
    assert consumer.consumer_loop(s, 1000, 2) > 0
    assert delta(before, "managed_tensor_from_py_object_no_sync") == 100000
    assert delta(before, "dltensor_from_py_object_no_sync") == 101000
    assert gfxcuda.live_dlpack_tensors() == live
    for _ in range(2000):  # arrays with bindings, made and dropped
        b = gfxcuda.CudaBuffer.from_cuda(0x20000, (8,), "float32")
        describe(consumer, b)
        del b
    gc.collect()
    assert gfxcuda.live_handles() == handles
    assert gfxcuda.live_dlpack_tensors() == live


def test_hidden_api_falls_back(consumer):
    """A subclass that sets the attribute to None hides the table: the C
    consumer finds none (it would use __dlpack__), nothing is called."""
    Hidden = type("Hidden", (gfxcuda.CudaBuffer,), {"__dlpack_c_exchange_api__": None})
    b = Hidden.from_cuda(0x30000, (4,), "float32")
    before = calls()
    assert consumer.consumer_describe(b, (i64 * 76)(), 0, None) == -2
    assert calls() == before


# ---- GPU: torch and cuda.core ---------------------------------------------

def _torch():
    need_cuda()
    try:
        import torch
    except ImportError:
        pytest.skip("no torch")
    if not torch.cuda.is_available():
        pytest.skip("torch sees no CUDA device")
    return torch


class _Counting:
    """Mixin: counts Python __dlpack__ calls."""
    dlpack_calls = 0

    def __dlpack__(self, **kw):
        type(self).dlpack_calls += 1
        return super().__dlpack__(**kw)


def _arrays(rng, torch):
    """(array, the numpy data it holds) of each CUDA array kind, random
    data, with a counting subclass (API on) and a hidden one (API off)."""
    out = []
    for base in (gfxcuda.SharedBuffer, gfxcuda.CudaBuffer):
        for hidden in (False, True):
            attrs = {"dlpack_calls": 0}
            if hidden:
                attrs["__dlpack_c_exchange_api__"] = None
            cls = type(base.__name__ + ("Hidden" if hidden else "Counting"), (_Counting, base), attrs)
            a = cls((257, 33), "float32")
            data = rng.random((257, 33), dtype=numpy.float32)
            a.copy_from_host(data)
            out.append((a, data, hidden))
    torch.cuda.synchronize()
    return out


def _strided_memory_view():
    """cuda.core's StridedMemoryView class, wherever this version keeps it."""
    for mod in ("cuda.core", "cuda.core.utils", "cuda.core.experimental.utils"):
        try:
            m = __import__(mod, fromlist=["StridedMemoryView"])
            return m.StridedMemoryView
        except (ImportError, AttributeError):
            pass
    pytest.skip("no cuda.core (StridedMemoryView)")


def _used(before, cls):
    """Which path the consumer took: 'c' (exchange functions ran), 'python'
    (__dlpack__ ran); exactly one must have."""
    c = delta(before, "managed_tensor_from_py_object_no_sync") + delta(before, "dltensor_from_py_object_no_sync")
    py = cls.dlpack_calls
    assert (c > 0) != (py > 0), (c, py)
    return "c" if c else "python"


def test_torch_from_dlpack(rng):
    """torch.from_dlpack of gfxcuda arrays, with the exchange API visible and
    hidden: the same memory, every element equal (the tensor poisoned after
    to show it is no copy); hidden, only __dlpack__ runs."""
    torch = _torch()
    paths = {}
    for a, data, hidden in _arrays(rng, torch):
        type(a).dlpack_calls = 0
        before = calls()
        t = torch.from_dlpack(a)
        path = _used(before, type(a))
        if hidden:
            assert path == "python"
        paths[type(a).__name__] = path
        assert t.data_ptr() == a.ptr and tuple(t.shape) == a.shape and t.dtype == torch.float32
        assert numpy.array_equal(t.cpu().numpy(), data)
        t.fill_(-7.0)
        torch.cuda.synchronize()
        assert (a.copy_to_host() == -7.0).all()
    print("torch.from_dlpack paths:", paths)


def test_cuda_core_strided_memory_view(rng):
    """cuda.core's StridedMemoryView.from_dlpack(buf, stream_ptr=-1): the
    same pointer, shape and dtype, every element equal (read back through
    torch), with the API visible and hidden."""
    torch = _torch()
    smv = _strided_memory_view()
    paths = {}
    for a, data, hidden in _arrays(rng, torch):
        type(a).dlpack_calls = 0
        before = calls()
        v = smv.from_dlpack(a, stream_ptr=-1)
        path = _used(before, type(a))
        if hidden:
            assert path == "python"
        paths[type(a).__name__] = path
        assert v.ptr == a.ptr and tuple(v.shape) == a.shape and numpy.dtype(v.dtype) == numpy.float32
        assert v.strides in (None, (33, 1)), v.strides
        # Read what the view points at through gfxcuda (no DLPack involved).
        got = gfxcuda.CudaBuffer.from_cuda(v.ptr, tuple(v.shape), "float32").copy_to_host()
        assert numpy.array_equal(got, data)
    print("StridedMemoryView.from_dlpack paths:", paths)


def _convert(obj, dst):
    """obj's managed_tensor_from_py_object_no_sync, then the
    managed_tensor_to_py_object_no_sync of dst's type (another library's
    table), called through ctypes (no compiler needed)."""
    src, to = table(type(obj)), table(type(dst))
    m, out = vp(), vp()
    FromPy(src.managed_tensor_from_py_object_no_sync)(obj, ctypes.byref(m))
    ToPy(to.managed_tensor_to_py_object_no_sync)(m.value, ctypes.byref(out))  # takes m over
    o = ctypes.cast(out, ctypes.py_object).value
    _py_decref(out)  # the new reference the function returned; o holds its own
    return o


_py_decref = ctypes.PYFUNCTYPE(None, vp)(("Py_DecRef", ctypes.pythonapi))
SetError = ctypes.CFUNCTYPE(None, vp, ctypes.c_char_p, ctypes.c_char_p)
Allocator = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.POINTER(DLTensor), ctypes.POINTER(vp), vp, SetError)


@pytest.fixture
def consumer_or_none(request):
    """The C consumer where gcc is, else None (the loops are skipped)."""
    if shutil.which("gcc") is None:
        return None
    return request.getfixturevalue("consumer")


def test_gfxcuda_to_torch_through_both_tables(consumer_or_none, rng):
    """Our managed_tensor_from_py_object_no_sync then torch's
    managed_tensor_to_py_object_no_sync (torch.Tensor's table): a torch
    tensor over the buffer's memory, every element equal; no tensor left
    behind once it is dropped (also after 10,000 conversions from C)."""
    torch = _torch()
    if getattr(torch.Tensor, "__dlpack_c_exchange_api__", None) is None:
        pytest.skip("this torch has no __dlpack_c_exchange_api__")
    probe = torch.empty(1, device="cuda")
    for a, data, hidden in _arrays(rng, torch):
        if hidden:
            continue
        live, before = gfxcuda.live_dlpack_tensors(), calls()
        t = _convert(a, probe)
        assert delta(before, "managed_tensor_from_py_object_no_sync") == 1
        assert isinstance(t, torch.Tensor) and t.data_ptr() == a.ptr and tuple(t.shape) == a.shape
        assert numpy.array_equal(t.cpu().numpy(), data)
        assert gfxcuda.live_dlpack_tensors() == live + 1
        del t
        gc.collect()
        assert gfxcuda.live_dlpack_tensors() == live
        if consumer_or_none is not None:
            t = consumer_or_none.consumer_convert(a, probe)
            assert numpy.array_equal(t.cpu().numpy(), data)
            del t
            assert consumer_or_none.consumer_convert_loop(a, probe, 10000) > 0
            gc.collect()
            assert gfxcuda.live_dlpack_tensors() == live


def test_torch_to_gfxcuda_through_both_tables():
    """torch's managed_tensor_from_py_object_no_sync then ours
    managed_tensor_to_py_object_no_sync: a gfxcuda CudaBuffer over the
    tensor's memory (a strided view too), every element equal."""
    torch = _torch()
    if getattr(torch.Tensor, "__dlpack_c_exchange_api__", None) is None:
        pytest.skip("this torch has no __dlpack_c_exchange_api__")
    probe = gfxcuda.CudaBuffer.from_cuda(0x40000, (1,), "float32")
    g = torch.Generator(device="cuda").manual_seed(int.from_bytes(os.urandom(4), "little"))
    src = torch.rand((64, 48), device="cuda", generator=g)
    for t in (src, src[::2, 3:40]):
        before = calls()
        b = _convert(t, probe)
        assert delta(before, "managed_tensor_to_py_object_no_sync") == 1
        assert isinstance(b, gfxcuda.CudaBuffer) and b.ptr == t.data_ptr() and b.shape == tuple(t.shape)
        assert b.strides == tuple(s * 4 for s in t.stride())
        # Read back through torch from the gfxcuda array (its __dlpack__).
        assert torch.equal(torch.from_dlpack(b), t)
        del b


def test_allocator_cuda(rng):
    """managed_tensor_allocator on kDLCUDA: CUDA memory of the prototype's
    size, written and read back in full; freed by its deleter."""
    torch = _torch()
    live = gfxcuda.live_dlpack_tensors()
    shape = (i64 * 2)(300, 17)
    proto = DLTensor(None, kDLCUDA, 0, 2, 2, 32, 1, shape, None, 0)
    errors = []
    set_error = SetError(lambda ctx, kind, msg: errors.append((kind, msg)))
    m = vp()
    assert Allocator(table().managed_tensor_allocator)(ctypes.byref(proto), ctypes.byref(m), None, set_error) == 0, errors
    t = ManagedVersioned.from_address(m.value)
    assert fields(t.dl_tensor)["shape"] == (300, 17) and fields(t.dl_tensor)["strides"] == (17, 1)
    assert fields(t.dl_tensor)["device"] == (kDLCUDA, 0) and fields(t.dl_tensor)["dtype"] == (2, 32, 1)
    assert gfxcuda.live_dlpack_tensors() == live + 1
    view_ = gfxcuda.CudaBuffer.from_cuda(t.dl_tensor.data, (300, 17), "float32")
    data = rng.random((300, 17), dtype=numpy.float32)
    view_.copy_from_host(data)
    assert numpy.array_equal(view_.copy_to_host(), data)
    assert torch.equal(torch.from_dlpack(view_).cpu(), torch.from_numpy(data))
    del view_
    gc.collect()
    Deleter(t.deleter)(m.value)
    assert gfxcuda.live_dlpack_tensors() == live


# ---- the ctypes helpers of the GPU tests, on the CPU ---------------------

def test_to_py_object_round_trip_of_descriptions():
    """Ours to ours through _convert: a CudaBuffer over the same CUDA
    address, shape and strides (a wrapped address nobody reads), holding the
    managed tensor until it goes."""
    live = gfxcuda.live_dlpack_tensors()
    b = gfxcuda.CudaBuffer.from_cuda(0x7f0000100000, (6, 5), "int32", strides=(40, 4))
    before = calls()
    c = _convert(b, b)
    assert delta(before, "managed_tensor_to_py_object_no_sync") == 1
    assert type(c) is gfxcuda.CudaBuffer and (c.ptr, c.shape, c.strides, c.device) == (b.ptr, b.shape, b.strides, 0)
    assert c.__cuda_array_interface__["typestr"] == "<i4"
    assert gfxcuda.live_dlpack_tensors() == live + 1
    b.release()
    del b
    gc.collect()
    assert gfxcuda.live_dlpack_tensors() == live + 1  # c still holds it
    del c
    gc.collect()
    assert gfxcuda.live_dlpack_tensors() == live


def test_allocator_host_through_ctypes(rng):
    live = gfxcuda.live_dlpack_tensors()
    shape = (i64 * 1)(1000)
    proto = DLTensor(None, kDLCPU, 0, 1, 1, 8, 1, shape, None, 0)
    errors = []
    set_error = SetError(lambda ctx, kind, msg: errors.append((kind, msg)))
    m = vp()
    assert Allocator(table().managed_tensor_allocator)(ctypes.byref(proto), ctypes.byref(m), None, set_error) == 0
    t = ManagedVersioned.from_address(m.value)
    data = rng.integers(0, 256, 1000, dtype=numpy.uint8).tobytes()
    ctypes.memmove(t.dl_tensor.data, data, 1000)
    assert ctypes.string_at(t.dl_tensor.data, 1000) == data and not errors
    Deleter(t.deleter)(m.value)
    assert gfxcuda.live_dlpack_tensors() == live
    proto.device_type = kDLVulkan
    assert Allocator(table().managed_tensor_allocator)(ctypes.byref(proto), ctypes.byref(m), None, set_error) == -1
    assert errors and errors[0][0] == b"RuntimeError" and b"kDLCUDA" in errors[0][1]
