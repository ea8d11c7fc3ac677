"""Bad input never crashes, wraps silently or reads wrongly (issue #31,
items 1, 2 and the Python cases of 6): hostile arrays fed to every entry
point that takes one, integers out of their C type's range, type mistakes
and the messages they get."""

import json
import os
import subprocess
import sys
import textwrap

import numpy
import pytest

import gfxcuda
from gfxcuda import HEAP_UPLOAD, Buffer, Compute, errors

from conftest import HAVE_CUDA

_PKG = os.path.dirname(os.path.dirname(os.path.abspath(gfxcuda.__file__)))

# The fuzz runs in a child: a crash (the SIGSEGV of issue #31) or a flood
# of "Exception ignored" lines fails the test instead of ending the run.
# The child prints one JSON line per (object, entry point): what was
# raised, and whether the producer's deleter ran exactly once.
_FUZZ = r'''
import ctypes, gc, json, sys
import numpy
import gfxcuda
from gfxcuda import _cuda, _lib, errors

api = ctypes.pythonapi
capsule_new = ctypes.PYFUNCTYPE(ctypes.py_object, ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p)(
    ("PyCapsule_New", api))

class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]

class DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]

class DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", DLDevice), ("ndim", ctypes.c_int32), ("dtype", DLDataType),
                ("shape", ctypes.POINTER(ctypes.c_int64)), ("strides", ctypes.POINTER(ctypes.c_int64)),
                ("byte_offset", ctypes.c_uint64)]

class DLManaged(ctypes.Structure):
    pass

DELETER = ctypes.CFUNCTYPE(None, ctypes.c_void_p)
DLManaged._fields_ = [("dl_tensor", DLTensor), ("manager_ctx", ctypes.c_void_p), ("deleter", DELETER)]

class DLManagedVersioned(ctypes.Structure):
    _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32), ("manager_ctx", ctypes.c_void_p),
                ("deleter", DELETER), ("flags", ctypes.c_uint64), ("dl_tensor", DLTensor)]

deleted = {}  # id of a crafted tensor -> times its deleter ran
keep = {}

@DELETER
def deleter(p):
    deleted[p] = deleted.get(p, 0) + 1

HOST = ctypes.create_string_buffer(4096)

class Crafted:
    """A producer of hand-made DLPack tensors: each __dlpack__ call makes
    a new one; fields override a valid CUDA float32 (4, 4) tensor."""
    def __init__(self, versioned=False, device=(2, 0), shape=(4, 4), strides=None, ndim=None, code=2, bits=32,
                 lanes=1, data=None, byte_offset=0, null_shape=False, major=1, report_device=True, name=None):
        self.__dict__.update(locals())
        self.made = []
        if not report_device:
            self.__dlpack_device__ = None
    def __dlpack_device__(self):
        return self.device
    def __dlpack__(self, stream=None, max_version=None):
        shape = (ctypes.c_int64 * max(len(self.shape), 1))(*self.shape)
        strides = (ctypes.c_int64 * max(len(self.strides), 1))(*self.strides) if self.strides is not None else None
        t = DLTensor(self.data if self.data is not None else ctypes.addressof(HOST), DLDevice(*self.device),
                     self.ndim if self.ndim is not None else len(self.shape), DLDataType(self.code, self.bits, self.lanes),
                     None if self.null_shape else shape, strides, self.byte_offset)
        if self.versioned:
            m = DLManagedVersioned(self.major, 0, None, deleter, 0, t)
            name = b"dltensor_versioned"
        else:
            m = DLManaged(t, None, deleter)
            name = b"dltensor"
        if self.name is not None:
            name = self.name
        keep[ctypes.addressof(m)] = (m, shape, strides, name)
        self.made.append(ctypes.addressof(m))
        return capsule_new(ctypes.addressof(m), name, None)  # no destructor: the check below counts deletes

class Raises:
    def __init__(self, exc, where="__dlpack__"):
        self.exc, self.where = exc, where
    def __dlpack_device__(self):
        if self.where == "__dlpack_device__":
            raise self.exc
        return (2, 0)
    def __dlpack__(self, **kw):
        raise self.exc

class Returns:
    def __init__(self, value, device=(2, 0)):
        self.value, self.device = value, device
    def __dlpack_device__(self):
        return self.device
    def __dlpack__(self, **kw):
        return self.value() if callable(self.value) else self.value

class DLPackOnly:
    """numpy's own capsules (with numpy's destructor), without
    __dlpack_device__: consumed before the device is known."""
    def __init__(self, a):
        self.a = a
    def __dlpack__(self, **kw):
        return self.a.__dlpack__()

class Lies(DLPackOnly):
    """numpy's capsules, claiming CUDA through __dlpack_device__."""
    def __dlpack_device__(self):
        return (2, 0)

class CAI:
    def __init__(self, d):
        self.d = d
    @property
    def __cuda_array_interface__(self):
        if isinstance(self.d, BaseException):
            raise self.d
        return self.d

class Neither:
    pass

def used_capsule():
    return capsule_new(ctypes.addressof(HOST), b"used_dltensor", None)

good_cai = {"data": (0x7f0000000000, False), "shape": (4, 4), "typestr": "<f4", "version": 3, "strides": None}
def cai(**kw):
    d = dict(good_cai)
    for k, v in kw.items():
        if v is KeyError:
            del d[k]
        else:
            d[k] = v
    return CAI(d)

a = numpy.ones((2, 2, 4), dtype="float32")
objects = {
    "numpy array (CPU)": lambda: a,
    "numpy array, 2D": lambda: numpy.zeros((8, 8), dtype="uint8"),
    "numpy capsule, no __dlpack_device__": lambda: DLPackOnly(a),
    "numpy capsule, __dlpack_device__ lies (CUDA)": lambda: Lies(a),
    "__dlpack__ raises RuntimeError": lambda: Raises(RuntimeError("boom")),
    "__dlpack__ raises BufferError": lambda: Raises(BufferError("no")),
    "__dlpack__ raises TypeError": lambda: Raises(TypeError("never")),
    "__dlpack_device__ raises": lambda: Raises(ValueError("which"), "__dlpack_device__"),
    "__dlpack_device__ returns a str": lambda: Returns(None, "cuda"),
    "__dlpack_device__ returns (2.5, 0)": lambda: Returns(None, (2.5, 0)),
    "__dlpack_device__ ROCm": lambda: Returns(None, (10, 0)),
    "__dlpack__ returns None": lambda: Returns(None),
    "__dlpack__ returns an int": lambda: Returns(12345),
    "__dlpack__ returns bytes": lambda: Returns(b"dltensor"),
    "capsule named 'foo'": lambda: Crafted(name=b"foo"),
    "capsule named ''": lambda: Crafted(name=b""),
    "consumed capsule": lambda: Returns(used_capsule),
    "CPU tensor, no __dlpack_device__": lambda: Crafted(device=(1, 0), report_device=False),
    "CUDA-managed tensor": lambda: Crafted(device=(13, 0), report_device=False),
    "ndim 33": lambda: Crafted(shape=(1,) * 33),
    "ndim -1": lambda: Crafted(ndim=-1),
    "ndim 1e9": lambda: Crafted(ndim=10**9, shape=(4,)),
    "null shape": lambda: Crafted(null_shape=True),
    "negative dimension": lambda: Crafted(shape=(4, -4)),
    "huge shape (overflows int64)": lambda: Crafted(shape=(2**40, 2**40, 2**40)),
    "huge shape (2**62, 4)": lambda: Crafted(shape=(2**62, 4)),
    "huge strides": lambda: Crafted(strides=(2**62, 1)),
    "negative huge strides": lambda: Crafted(strides=(-2**62, 1)),
    "null data": lambda: Crafted(data=0),
    "data near the top of the address space": lambda: Crafted(data=2**64 - 16),
    "0 bits": lambda: Crafted(bits=0),
    "12 bits": lambda: Crafted(bits=12),
    "dtype code 99": lambda: Crafted(code=99),
    "4 lanes": lambda: Crafted(lanes=4),
    "versioned 2.0": lambda: Crafted(versioned=True, major=2),
    "versioned, ndim 33": lambda: Crafted(versioned=True, shape=(1,) * 33),
    "versioned, negative dimension": lambda: Crafted(versioned=True, shape=(-1, 4)),
    "versioned, huge byte_offset": lambda: Crafted(versioned=True, byte_offset=2**63),
    "versioned, CPU, no __dlpack_device__": lambda: Crafted(versioned=True, device=(1, 0), report_device=False),
    "CAI not a dict": lambda: CAI([1, 2, 3]),
    "CAI property raises": lambda: CAI(RuntimeError("no CAI")),
    "CAI without data": lambda: cai(data=KeyError),
    "CAI without shape": lambda: cai(shape=KeyError),
    "CAI without typestr": lambda: cai(typestr=KeyError),
    "CAI data None": lambda: cai(data=None),
    "CAI data (None, False)": lambda: cai(data=(None, False)),
    "CAI data (-1, False)": lambda: cai(data=(-1, False)),
    "CAI data (2**64, False)": lambda: cai(data=(2**64, False)),
    "CAI data 'x'": lambda: cai(data="x"),
    "CAI null pointer": lambda: cai(data=(0, False)),
    "CAI negative shape": lambda: cai(shape=(4, -4)),
    "CAI float shape": lambda: cai(shape=(4.0, 4)),
    "CAI shape a str": lambda: cai(shape="4x4"),
    "CAI shape 40 dims": lambda: cai(shape=(1,) * 40),
    "CAI huge shape": lambda: cai(shape=(2**62, 2**62)),
    "CAI bad typestr": lambda: cai(typestr="<x9"),
    "CAI typestr an int": lambda: cai(typestr=5),
    "CAI object typestr": lambda: cai(typestr="|O"),
    "CAI strides wrong length": lambda: cai(strides=(4,)),
    "CAI strides of floats": lambda: cai(strides=(16.0, 4.0)),
    "CAI huge strides": lambda: cai(strides=(2**62, 4)),
    "CAI negative strides past 0": lambda: cai(data=(16, False), strides=(-2**40, 4)),
    "CAI masked": lambda: cai(mask=(1, False)),
    "no array interface": lambda: Neither(),
    "a str": lambda: "tensor",
    "None": lambda: None,
}

tex = _cuda.Texture.__new__(_cuda.Texture)  # a texture without CUDA: its array intake runs first
tex._h, tex.nbytes, tex.device = _lib.Handle(0), 64, 0
tex._pending = tex._handoff = None
tex._with = []
entries = {
    "gfxcuda.texture": lambda o: gfxcuda.texture(o),
    "Texture.copy_to": lambda o: tex.copy_to(o),
    "Texture.copy_from": lambda o: tex.copy_from(o),
    "_array_of": lambda o: _cuda._array_of(o),
    "_pointer": lambda o: _cuda._pointer(o, 64),
}
live = gfxcuda.live_handles()
for oname, make in objects.items():
    for ename, call in entries.items():
        obj = make()
        try:
            call(obj)
            got = None
        except BaseException as e:
            got = [type(e).__name__, [c.__name__ for c in type(e).__mro__], str(e)]
        gc.collect()
        counts = [deleted.get(p, 0) for p in getattr(obj, "made", [])]
        print(json.dumps({"object": oname, "entry": ename, "raised": got, "deletes": counts}), flush=True)
        del obj
print(json.dumps({"live_before": live, "live_after": gfxcuda.live_handles(),
                  "dlpack_live": gfxcuda.live_dlpack_tensors()}), flush=True)
print("DONE", flush=True)
'''

# Where a crafted tensor is refused before it is consumed (the device in
# __dlpack_device__, the capsule's name), its deleter is the producer's
# and does not run; everywhere else gfxcuda consumed it and must have run
# it exactly once.
_NOT_CONSUMED = ("capsule named", "consumed capsule")


def test_fuzz_array_intake():
    """Hostile arrays into every entry point that takes a CUDA array
    (gfxcuda.texture, Texture.copy_to/copy_from, and the intake itself):
    one clean gfxcuda error each (a ValueError; ArgumentTypeError, also a
    TypeError, for what is no array), never a crash, nothing on stderr.
    Before the fix a CPU array crashed the process (SIGSEGV, after 32,700
    "Exception ignored" lines)."""
    env = dict(os.environ, PYTHONPATH=_PKG + os.pathsep + os.environ.get("PYTHONPATH", ""))
    p = subprocess.run([sys.executable, "-c", _FUZZ], capture_output=True, text=True, timeout=300, env=env)
    noise = [line for line in p.stderr.splitlines() if line.strip()]
    assert p.returncode == 0 and p.stdout.rstrip().endswith("DONE"), (
        "the fuzz child died (rc %d) after:\n%s\nstderr:\n%s" % (p.returncode, p.stdout[-3000:], p.stderr[-3000:]))
    assert len(noise) <= 1, "noise on stderr:\n" + "\n".join(noise[:20])
    rows = [json.loads(line) for line in p.stdout.splitlines()[:-1]]
    summary = rows.pop()
    assert summary["live_after"] == summary["live_before"], summary
    assert summary["dlpack_live"] == 0, summary
    bad = []
    for r in rows:
        what = "%s into %s" % (r["object"], r["entry"])
        got = r["raised"]
        if got is None:
            bad.append("%s: no error" % what)
            continue
        name, mro, msg = got
        if "GfxcudaError" not in mro or not ("ValueError" in mro or "TypeError" in mro):
            bad.append("%s: %s (%s), not a gfxcuda ValueError/TypeError" % (what, name, msg))
        elif name in ("NoCUDAError", "BadHandleError", "NoDeviceError"):
            bad.append("%s: %s: the array was not refused before CUDA (%s)" % (what, name, msg))
        elif "array([" in msg or len(msg) > 600:
            bad.append("%s: the message embeds the array or runs long: %s" % (what, msg[:300]))
        expected = 0 if any(r["object"].startswith(s) for s in _NOT_CONSUMED) else 1
        if any(n != expected for n in r["deletes"]):
            bad.append("%s: the producer's deleter ran %s times, want %d" % (what, r["deletes"], expected))
    assert not bad, "\n".join(bad)
    assert len(rows) >= 300


def _run(code):
    env = dict(os.environ, PYTHONPATH=_PKG + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, timeout=120,
                          env=env)


def test_cpu_array_into_texture_raises_once():
    """Issue #31's command: one exception, which names the type, shape,
    dtype and the device in words (not the array's repr); the process lives
    on and exits 0. Before: SIGSEGV (rc -11) after ~32,700 lines."""
    p = _run("""
        import gfxcuda, numpy
        try:
            gfxcuda.texture(numpy.ones((2, 2, 4), dtype='float32'))
        except gfxcuda.InvalidArgumentError as e:
            print(e)
        import gc; gc.collect()
        print("alive")
        """)
    assert p.returncode == 0, p.stderr[-2000:]
    assert p.stderr.strip() == "", p.stderr[-2000:]
    out = p.stdout
    assert "alive" in out
    for want in ("numpy.ndarray", "(2, 2, 4)", "float32", "CPU memory", "kDLCPU", "needs a CUDA array",
                 "torch.as_tensor(a, device='cuda')"):
        assert want in out, out
    assert "array([" not in out


def test_consumed_capsule_names_live_forever():
    """The consumed name gfxcuda gives a capsule stays valid after the
    call (PyCapsule_SetName keeps the pointer): the capsule still reads
    'used_dltensor' after the temporary objects of the call are gone.
    Before: the name pointed into a freed bytes object (in a child: the
    old code crashed)."""
    p = _run("""
        import ctypes, gc, numpy, gfxcuda
        from gfxcuda import _cuda

        class OnlyDLPack:
            def __init__(self, a):
                self.a, self.caps = a, []

            def __dlpack__(self, **kw):
                c = self.a.__dlpack__()
                self.caps.append(c)
                return c

        o = OnlyDLPack(numpy.ones((4, 4), dtype="float32"))
        try:
            _cuda._array_of(o)
        except gfxcuda.InvalidArgumentError as e:
            assert "CPU memory" in str(e), e
        gc.collect()
        junk = [bytes(range(16)) * 4 for _ in range(1000)]  # reuse freed memory
        name = ctypes.PYFUNCTYPE(ctypes.c_char_p, ctypes.py_object)(("PyCapsule_GetName", ctypes.pythonapi))
        print(name(o.caps[0]))
        """)
    assert p.returncode == 0 and p.stdout.strip() == "b'used_dltensor'", (p.returncode, p.stdout, p.stderr[-2000:])
    assert p.stderr.strip() == "", p.stderr[-2000:]


# ---- item 2: integers that cross into C are range-checked ----------------

_HLSL = """
RWStructuredBuffer<uint> b : register(u0);
[numthreads(1, 1, 1)] void main(uint3 id : SV_DispatchThreadID) { InterlockedAdd(b[0], 1); }
"""


@pytest.fixture(scope="module")
def counter():
    b = Buffer(4, stride=4)
    z = Buffer(4, HEAP_UPLOAD)  # new memory may hold an earlier buffer's bytes (near 2**32: the count wraps)
    z.upload(bytes(4))
    z.copy_to(b)
    return b, Compute(gfxcuda.hlsl.compile(_HLSL), uav=[b])


def _count(b):
    r = Buffer(4, HEAP_UPLOAD)
    b.copy_to(r)
    return int.from_bytes(r.readback(4), "little")


@pytest.mark.parametrize("x", [(1 << 32) + 2, 1 << 40, 2**64 + 1])
def test_dispatch_too_many_groups(counter, x):
    """dispatch((1<<32)+2, 1, 1) ran 2 workgroups, dispatch(1<<40, 1, 1)
    none: now an OverflowError naming x and the value, and nothing runs."""
    b, c = counter
    before = _count(b)
    with pytest.raises(OverflowError) as e:
        c.dispatch(x, 1, 1)
    assert isinstance(e.value, gfxcuda.InvalidArgumentError)
    assert "x=%d" % x in str(e.value) and "2**32 - 1" in str(e.value)
    assert _count(b) == before


@pytest.mark.parametrize("args, name", [((-1, 1, 1), "x"), ((1, -1, 1), "y"), ((1, 1, -5), "z")])
def test_dispatch_negative(counter, args, name):
    """dispatch(-1, 1, 1) became 4294967295 and a device failure."""
    b, c = counter
    with pytest.raises(ValueError) as e:
        c.dispatch(*args)
    assert not isinstance(e.value, errors.DeviceFailedError)
    assert "%s=%d" % (name, min(args)) in str(e.value) and "0 or more" in str(e.value)


def test_dispatch_still_runs(counter):
    b, c = counter
    before = _count(b)
    c.dispatch(3, 1, 1)
    c.dispatch(numpy.uint32(2), numpy.int64(1), True)
    assert _count(b) == before + 5


@pytest.mark.parametrize("size", [1 << 64, 1 << 70])
def test_buffer_size_overflow(size):
    """Buffer(1<<70) said "a buffer of 0 bytes" (the size wrapped)."""
    with pytest.raises(OverflowError) as e:
        Buffer(size)
    assert "size=%d" % size in str(e.value) and "2**64 - 1" in str(e.value)


@pytest.mark.parametrize("offset", [-4, -(1 << 70)])
def test_upload_negative_offset(offset):
    """upload(..., offset=-4) reported offset 18446744073709551612."""
    b = Buffer(16, HEAP_UPLOAD)
    with pytest.raises(ValueError) as e:
        b.upload(b"abcd", offset=offset)
    assert "offset=%d" % offset in str(e.value)
    assert "18446744073709551612" not in str(e.value)
    with pytest.raises(ValueError, match=r"offset=-4"):
        b.upload(bytearray(b"abcd"), offset=-4)
    with pytest.raises(ValueError, match=r"offset=-4"):
        b.readback(4, offset=-4)


def test_upload_offset_too_large():
    b = Buffer(16, HEAP_UPLOAD)
    with pytest.raises(OverflowError, match=r"offset=%d" % (1 << 64)):
        b.upload(b"abcd", offset=1 << 64)


@pytest.mark.parametrize("kw", [dict(size=-1), dict(src_offset=1 << 64), dict(width=1 << 32), dict(dst_slice=-1),
                                dict(src_x=(1 << 32) + 1)])
def test_copy_to_region_checked(kw):
    """copy_to's region fields (uint64 size and offsets, uint32 others)
    wrapped silently."""
    a, b = Buffer(16), Buffer(16)
    (name, value), = kw.items()
    with pytest.raises((ValueError, OverflowError)) as e:
        a.copy_to(b, **kw)
    assert "%s=%d" % (name, value) in str(e.value)


@pytest.mark.parametrize("make, name", [
    (lambda: gfxcuda.Texture2D(1 << 32, 4, gfxcuda.formats.R8G8B8A8_UNORM), "width"),
    (lambda: gfxcuda.Texture2D(4, -4, gfxcuda.formats.R8G8B8A8_UNORM), "height"),
    (lambda: gfxcuda.Texture3D(4, 4, (1 << 32) + 1, gfxcuda.formats.R8G8B8A8_UNORM), "depth"),
    (lambda: gfxcuda.Texture1D(4, gfxcuda.formats.R8G8B8A8_UNORM, slices=-1), "slices"),
    (lambda: Buffer(16, stride=1 << 32), "stride"),
    (lambda: Buffer(16, stride=-4), "stride"),
    (lambda: gfxcuda.Heap(gfxcuda.HEAP_DEFAULT, 1 << 64), "size"),
    (lambda: gfxcuda.Heap(gfxcuda.HEAP_DEFAULT, -1), "size"),
    (lambda: Buffer(16, heap=gfxcuda.Heap(gfxcuda.HEAP_DEFAULT, 1 << 16), heap_offset=-16), "heap_offset"),
    (lambda: Buffer(16, HEAP_UPLOAD).readback2d(-1, 1, 1, 4), "pitch"),
    (lambda: Buffer(16, HEAP_UPLOAD).upload_chunked(b"x" * 8, 1 << 32, b""), "stride"),
    (lambda: Compute(gfxcuda.hlsl.compile(_HLSL), uav=[Buffer(4, stride=4)], push_size=-1), "push_size"),
    (lambda: Compute(gfxcuda.hlsl.compile(_HLSL), uav=[Buffer(4, stride=4)]).dispatch_indirect(Buffer(12), -4),
     "offset"),
    (lambda: gfxcuda.CudaBuffer((4, -4)), "shape"),
    (lambda: gfxcuda.CudaBuffer((1 << 40, 1 << 40)), "shape"),
    (lambda: gfxcuda.CudaBuffer(4, device=-1), "device"),
    (lambda: gfxcuda.CudaBuffer(4, device=1 << 31), "device"),
    (lambda: gfxcuda.SharedBuffer((4, -1)), "shape"),
    (lambda: gfxcuda.SharedBuffer(4, device=-1), "device"),
    (lambda: gfxcuda.CudaBuffer.from_cuda(-1, (4,)), "ptr"),
    (lambda: gfxcuda.texture((1 << 32, 4, 4)), "height"),
    (lambda: gfxcuda.texture((4, 0, 4)), "width"),
    (lambda: gfxcuda.texture((4, 4, 9)), "channels"),
    (lambda: gfxcuda.texture((4, 4, 4), device=-1), "device"),
    (lambda: gfxcuda.Ring((4,), slots=0), "slots"),
    (lambda: gfxcuda.Ring((4,), slots=1 << 32), "slots"),
    (lambda: gfxcuda.Ring((4,), slots=65), "slots"),
    (lambda: gfxcuda.Ring((-4,)), "shape"),
    (lambda: gfxcuda.Ring((4,), cuda=-1), "cuda"),
    (lambda: gfxcuda.Ring((4,)).acquire(timeout=-1), "timeout"),
    (lambda: gfxcuda.Ring((4,)).acquire(timeout=1e300), "timeout"),
    (lambda: gfxcuda.Ring((4,), slots=2).publish(2), "i"),
    (lambda: gfxcuda.Ring((4,), slots=2).publish(-1), "i"),
    (lambda: gfxcuda.Ring((4,)).wait_consumers(-1), "n"),
    (lambda: gfxcuda.share_options(allow_uids=[-1]), "allow_uids"),
    (lambda: gfxcuda.share_options(allow_gids=[1 << 32]), "allow_gids"),
    (lambda: gfxcuda.Semaphore.import_fd(-1), "fd"),
    (lambda: gfxcuda.SharedBuffer.import_fd(-1, (4,)), "fd"),
    (lambda: gfxcuda.VulkanSemaphore(initial=-1), "initial"),
])
def test_integers_range_checked(make, name):
    """Every integer the Python API hands to C is checked first: an error
    (ValueError, OverflowError for what the C type cannot hold) naming the
    argument, also before any CUDA call (these run without CUDA)."""
    with pytest.raises((ValueError, OverflowError)) as e:
        make()
    assert isinstance(e.value, errors.GfxcudaError), repr(e.value)
    assert not isinstance(e.value, (errors.NoDeviceError, errors.DeviceFailedError)), repr(e.value)
    assert "%s=" % name in str(e.value), str(e.value)


# ---- item 6: type mistakes and misleading messages -----------------------

@pytest.mark.parametrize("make, words", [
    (lambda: Buffer("16"), ["Buffer(size='16')", "a str", "expected"]),
    (lambda: Buffer(16.0), ["Buffer(size=16.0)", "a float"]),
    (lambda: Buffer(None), ["Buffer(size=None)"]),
    (lambda: Buffer(16, stride=None), ["Buffer(stride=None)"]),
    (lambda: Buffer(16, device=0.5), ["Buffer(device=0.5)", "gfxcuda Device"]),
    (lambda: Buffer(16).copy_to("x"), ["copy_to(destination='x')", "a str", "gfxcuda Buffer"]),
    (lambda: Buffer(16, HEAP_UPLOAD).upload(5), ["Buffer.upload(data=...)", "an int", "bytes-like"]),
    (lambda: Buffer(16, HEAP_UPLOAD).upload(b"x", offset="1"), ["Buffer.upload(offset='1')", "a str"]),
    (lambda: Compute(gfxcuda.hlsl.compile(_HLSL), uav=["b"]), ["Compute(uav=[...]): item 0 is a str",
                                                              "expected a gfxcuda Buffer or Texture"]),
    (lambda: Compute(gfxcuda.hlsl.compile(_HLSL), cbv=[1]), ["Compute(cbv=[...]): item 0 is an int"]),
    (lambda: Compute(gfxcuda.hlsl.compile(_HLSL), uav=Buffer(4, stride=4)), ["Compute(uav=", "expected a list"]),
    (lambda: Compute(gfxcuda.hlsl.compile(_HLSL), uav=5), ["Compute(uav=5)", "an int"]),
    (lambda: Compute(gfxcuda.hlsl.compile(_HLSL), samplers=[Buffer(4)]), ["Compute(samplers=[...]): item 0 is a Buffer",
                                                                         "Sampler"]),
    (lambda: Compute("not spir-v"), ["Compute(shader=...)", "a str", "SPIR-V"]),
    (lambda: Compute(gfxcuda.hlsl.compile(_HLSL), uav=[Buffer(4, stride=4)]).dispatch(1.0, 1, 1),
     ["dispatch(x=1.0)", "a float"]),
    (lambda: Compute(gfxcuda.hlsl.compile(_HLSL), uav=[Buffer(4, stride=4)]).dispatch(1, "2", 1),
     ["dispatch(y='2')", "a str"]),
    (lambda: Compute(gfxcuda.hlsl.compile(_HLSL), uav=[Buffer(4, stride=4)]).dispatch(1, 1, 1, push=4),
     ["dispatch(push=4)", "bytes-like"]),
    (lambda: gfxcuda.Texture2D(4.5, 4, gfxcuda.formats.R8G8B8A8_UNORM), ["Texture2D(width=4.5)", "a float"]),
    (lambda: gfxcuda.Heap([], 16), ["Heap(heap_type=[])", "unknown heap type"]),
    (lambda: gfxcuda.Sampler(address_mode_u="wrap"), ["Sampler(address_mode_u='wrap')"]),
    (lambda: gfxcuda.CudaBuffer((4, 4.5)), ["CudaBuffer(shape=(4, 4.5))", "dimension 1 is a float"]),
    (lambda: gfxcuda.CudaBuffer(4, dtype="float31"), ["dtype='float31'", "not an element type"]),
    (lambda: gfxcuda.open_ipc_buffer(5, (4,)), ["open_ipc_buffer(handle=5)", "an int"]),
    (lambda: gfxcuda.to_cuda(["x"]), ["to_cuda(resources=[...]): item 0 is a str"]),
    (lambda: gfxcuda.Ring((4,)).acquire(timeout="1"), ["Ring.acquire(timeout='1')", "a str"]),
    (lambda: gfxcuda.Ring((4,), slots=2).publish(0, user=7), ["Ring.publish(user=7)", "bytes"]),
    (lambda: gfxcuda.Ring((4,), slots=1), ["Ring(slots=1)", "at least 2"]),
    (lambda: gfxcuda.open_ring(1234, (4,)), ["open_ring(token=1234)"]),
    (lambda: gfxcuda.share_options(allow_uids=["root"]), ["share_options(allow_uids='root')", "a str"]),
    (lambda: gfxcuda.texture((8, 16, 4), "rgba8_unorm", view_formats="r32_uint"),
     ["gfxcuda.texture(view_formats='r32_uint')", "a sequence of formats"]),
    (lambda: gfxcuda.texture((8, 16, 4), "rgba8_unorm", view_formats=["r32_uint"] * 17),
     ["gfxcuda.texture: 17 view formats", "at most 16"]),
    (lambda: gfxcuda.texture(numpy.zeros((8, 16, 4), numpy.uint8), view_formats=["r32_uint"]),
     ["view_formats=('r32_uint',)", "for new textures"]),
    (lambda: gfxcuda.Texture.import_fd(0, (8, 16), "rgba8_unorm", 4096, view_formats=98),
     ["Texture.import_fd(view_formats=98)", "a sequence of formats"]),
])
def test_type_mistakes_named(make, words):
    """Type mistakes gave raw "TypeError: '<=' not supported",
    ctypes.ArgumentError or AttributeError: 'str' object has no attribute
    'handle'; now one gfxcuda error naming the call, the argument, what was
    given and what is expected (a TypeError where the type is wrong)."""
    with pytest.raises(errors.GfxcudaError) as e:
        make()
    msg = str(e.value)
    for w in words:
        assert w in msg, msg


def test_type_mistakes_are_type_errors():
    with pytest.raises(TypeError):
        Buffer("16")
    with pytest.raises(TypeError):
        Compute(gfxcuda.hlsl.compile(_HLSL), uav=["b"])
    with pytest.raises(TypeError):
        Buffer(16).copy_to(object())


@pytest.mark.parametrize("size", [1 << 62, 1 << 40])
def test_buffer_larger_than_device(size):
    """Buffer(1<<62) was a DeviceFailedError (VK_ERROR_OUT_OF_DEVICE_MEMORY):
    now a BufferException saying the size in human units and what the
    device has."""
    dev = gfxcuda.get_current_device()
    have = dev.dedicated_video_memory + dev.shared_system_memory
    if have and have >= size:
        pytest.skip("the device has %d bytes" % have)
    with pytest.raises(errors.BufferException) as e:
        Buffer(size)
    msg = str(e.value)
    assert not isinstance(e.value, errors.DeviceFailedError)
    assert "size=%d" % size in msg and ("EiB" in msg or "TiB" in msg), msg
    assert "larger than the device can allocate" in msg and "GiB of memory" in msg, msg


@pytest.mark.parametrize("lang, src, want", [
    ("hlsl", _HLSL, ["uav[0]", "register u0", "Compute(uav=...) was given 0 resources"]),
    ("hlsl", """
Texture2D<float4> t : register(t1);
RWStructuredBuffer<uint> b : register(u0);
[numthreads(1, 1, 1)] void main(uint3 id : SV_DispatchThreadID) { b[id.x] = (uint)t[id.xy].x; }
""", ["srv[1]", "register t1", "Compute(srv=...) was given 0 resources"]),
    ("glsl", """layout(local_size_x = 1) in;
layout(std430, binding = 0) buffer A { uint a[]; };
layout(std430, binding = 3) buffer B { uint b[]; };
void main() { a[0] = b[0]; }""", ["uav[1]", "binding 3", "Compute(uav=...) was given 1 resource"]),
])
def test_unbound_resource_in_list_words(lang, src, want):
    """The unbound-resource error named "binding 2048" (the HLSL register
    shift) where a compushady user binds by list index."""
    sp = getattr(gfxcuda, lang).compile(src)
    uav = [Buffer(16, stride=4)] if lang == "glsl" else []
    c = Compute(sp, uav=uav)
    with pytest.raises(gfxcuda.InvalidArgumentError) as e:
        c.dispatch(1, 1, 1)
    msg = str(e.value)
    for w in want:
        assert w in msg, msg
    assert "2048" not in msg and "1025" not in msg, msg


@pytest.mark.skipif(HAVE_CUDA, reason="CUDA is usable here")
def test_no_cuda_error_says_how_to_fix():
    """NoCUDAError said only "cuda: no usable NVIDIA driver: libcuda.so.1
    not found"; the CLI also prints how to fix it."""
    with pytest.raises(gfxcuda.NoCUDAError) as e:
        gfxcuda.SharedBuffer(4)
    msg = str(e.value)
    assert "gfxcuda doctor" in msg, msg
    assert "fix:" in msg or "install" in msg, msg


def test_host_copies_name_the_array():
    """copy_from_host/copy_to_host took memoryview(array) raw: a GPU array
    or a strided view gave "memoryview: a bytes-like object is required"
    or "casts are restricted to C-contiguous views"."""
    from gfxcuda import _cuda
    b = _cuda.CudaBuffer.__new__(_cuda.CudaBuffer)  # the checks run before any CUDA call
    b.strides = None
    with pytest.raises(TypeError) as e:
        b.copy_from_host(object())
    assert "copy_from_host(array=...)" in str(e.value) and "host array" in str(e.value)
    with pytest.raises(ValueError) as e:
        b.copy_to_host(numpy.zeros((4, 4))[:, ::2])
    assert "not C-contiguous" in str(e.value) and "numpy.empty" in str(e.value)


def test_stream_objects():
    """Streams as the libraries give them still work (Numba's handle is a
    ctypes c_void_p, cuda-python's CUstream takes int()); what is no stream,
    or a negative int, is named."""
    import ctypes
    from gfxcuda import _cuda

    class NumbaLike:
        handle = ctypes.c_void_p(1234)

    class NumbaDefault:
        handle = ctypes.c_void_p(None)

    class CUstream:
        def __int__(self):
            return 77

    class CudaCore:
        handle = CUstream()

    class TorchLike:
        cuda_stream = 99

    assert [_cuda._stream_int(s) for s in (None, 2, NumbaLike(), NumbaDefault(), CudaCore(), TorchLike())] == \
        [0, 2, 1234, 0, 77, 99]
    with pytest.raises(TypeError, match=r"to_cuda\(stream=...\): stream is a str"):
        _cuda._stream_int("default", "to_cuda")
    with pytest.raises(ValueError, match=r"stream=-1"):
        _cuda._stream_int(-1, "to_cuda")
    with pytest.raises(OverflowError, match=r"stream=%d" % (1 << 64)):
        _cuda._stream_int(1 << 64, "to_cuda")
