"""Loads libgfxcuda and declares its functions (see gfxcuda.h).

The library loads on first use, not at `import gfxcuda` (15 MB, and its Go
runtime starts when it loads; compushady loads its backend lazily too):
`lib` is a stand-in until then, whose first attribute lookup loads the
library, declares its functions and puts the real ctypes.CDLL in its place
(what binds `lib.<function>` afterwards pays nothing for the laziness)."""

import _thread
import ctypes
import os

from . import _abi, errors

_here = os.path.dirname(os.path.abspath(__file__))
_path = os.environ.get("GFXCUDA_LIBRARY") or os.path.join(_here, "libgfxcuda.so")


class _NotLoaded:
    """`lib` before the library is loaded: any attribute loads it."""

    __slots__ = ()

    def __getattr__(self, name):
        return getattr(load(), name)

    def __repr__(self):
        return "<gfxcuda: %s, not loaded yet>" % _path


lib = _NotLoaded()
_load_lock = _thread.allocate_lock()


def _release(h):
    # gfxcuda_release until the library loads (load() puts it here).
    return load().gfxcuda_release(h)


def _release_int(h):
    # gfxcuda_release_int until the library loads (load() puts it here).
    load()
    return _release_int(h)


u64, i64, u32, i32, sz = ctypes.c_uint64, ctypes.c_int64, ctypes.c_uint32, ctypes.c_int, ctypes.c_size_t
vp, cp = ctypes.c_void_p, ctypes.c_char_p
P = ctypes.POINTER


# The C ABI: gfxcuda.h's structs, constants and function signatures,
# generated from the header into _abi.py (go generate ./cmd/libgfxcuda).
ResourceInfo, CopyRegion, Tensor = _abi.ResourceInfo, _abi.CopyRegion, _abi.Tensor
ArrayInterface, TensorLayout, GLSourceInfo = _abi.ArrayInterface, _abi.TensorLayout, _abi.GLSourceInfo

# Where Python passes another object than the header's C type says (the
# same machine types, another ctypes conversion): a malloc'd string comes
# back as a void pointer (take_bytes frees it with gfxcuda_free), and the
# exchange API's callable is a Python object (a PyObject*).
_python_args = {
    "gfxcuda_formats_json": [P(vp), P(sz)],
    "gfxcuda_devices_json": [P(vp), P(sz)],
    "gfxcuda_device_info_json": [u64, P(vp), P(sz)],
    "gfxcuda_dlpack_exchange_api": [ctypes.py_object, P(vp)],
}

# Each function's argument types (the functions returning a status and
# the rest alike).
_sigs = {name: _python_args.get(name, args) for name, (_, args) in _abi.FUNCTIONS.items()}


def _declare(l):
    """Declares the library's functions (argument and result types)."""
    for name, (restype, _) in _abi.FUNCTIONS.items():
        f = getattr(l, name)
        f.argtypes = _sigs[name]
        f.restype = restype
    # The capsule destructor runs DLPack deleters of capsules no consumer took.
    l.gfxcuda_set_python_capsule_api(ctypes.cast(_api.PyCapsule_IsValid, vp), ctypes.cast(_api.PyCapsule_GetPointer, vp))


def load():
    """The library, loaded and declared on the first call (thread-safe).
    Raises LibraryNotFoundError (an ImportError) naming the path when it is
    missing or does not load, and ForkedProcessError in a child forked
    after `import gfxcuda`."""
    global lib, _release, _release_int, buffer_create_int, capsule_destructor, binding_destructor
    l = lib
    if type(l) is not _NotLoaded:
        return l
    with _load_lock:
        if type(lib) is not _NotLoaded:
            return lib
        check_fork()
        if not os.path.exists(_path):
            raise errors.LibraryNotFoundError(
                "gfxcuda: the C library %s is missing; reinstall gfxcuda with pip "
                "(`pip install gfxcuda`, or `pip install .` from a checkout of its source); "
                "developing gfxcuda: `make python`, or `make lib` and set GFXCUDA_LIBRARY" % _path,
                path=_path)
        try:
            l = ctypes.CDLL(_path)
        except OSError as e:
            raise errors.LibraryNotFoundError(
                "gfxcuda: the C library %s does not load (%s); reinstall gfxcuda with pip "
                "(`pip install gfxcuda`, or `pip install .` from a checkout of its source); "
                "developing gfxcuda: `make python`, or `make lib` and set GFXCUDA_LIBRARY"
                % (_path, e), path=_path) from None
        _declare(l)
        _release = l.gfxcuda_release
        # The int entry points, called without argtypes: ctypes passes an
        # int to an int parameter as it is, where argtypes convert each
        # argument through an object (most of a small call's cost).
        # Callers pass ints from 0 to 2**31 - 1 only: ctypes would wrap
        # larger ones silently.
        buffer_create_int = l._FuncPtr(("gfxcuda_buffer_create_int", l))
        buffer_create_int.restype = i64
        _release_int = l._FuncPtr(("gfxcuda_release_int", l))
        capsule_destructor = ctypes.cast(l.gfxcuda_dlpack_capsule_destructor, vp)
        # The destructor of the DLPack exchange API's bindings (gfxcuda.dlpack_binding).
        binding_destructor = ctypes.cast(l.gfxcuda_dlpack_binding_capsule_destructor, vp)
        lib = l  # last: another thread that sees it sees it declared
    return l


def loaded():
    """Whether the library is loaded (without loading it)."""
    return type(lib) is not _NotLoaded


def __getattr__(name):
    # The library's values: the first lookup loads it (load() sets them).
    if name in ("capsule_destructor", "binding_destructor", "buffer_create_int"):
        load()
        return globals()[name]
    raise AttributeError("module %r has no attribute %r" % (__name__, name))


_api = ctypes.pythonapi
PyCapsule_New = _api.PyCapsule_New
PyCapsule_New.restype = ctypes.py_object
PyCapsule_New.argtypes = [vp, cp, vp]
PyCapsule_IsValid = _api.PyCapsule_IsValid
PyCapsule_IsValid.restype = ctypes.c_int
PyCapsule_IsValid.argtypes = [ctypes.py_object, cp]
PyCapsule_GetPointer = _api.PyCapsule_GetPointer
PyCapsule_GetPointer.restype = vp
PyCapsule_GetPointer.argtypes = [ctypes.py_object, cp]
PyCapsule_SetName = _api.PyCapsule_SetName
PyCapsule_SetName.restype = ctypes.c_int
PyCapsule_SetName.argtypes = [ctypes.py_object, cp]
# new_bytes(None, n): a new bytes object of n uninitialized bytes, for the
# library to write into before anyone else sees it (readbacks: one copy).
new_bytes = ctypes.PYFUNCTYPE(ctypes.py_object, vp, ctypes.c_ssize_t)(("PyBytes_FromStringAndSize", _api))



class Exporter:
    """A library DLPack exporter over one owner handle: exports through it
    run in C (no Go call); dropped once, when released or collected."""

    __slots__ = ("_p",)

    def __init__(self, owner):
        p = vp()
        call("gfxcuda_dlpack_exporter_new", owner, ctypes.byref(p))
        self._p = p.value

    def drop(self):
        p, self._p = self._p, None
        if p and not _forked:
            lib.gfxcuda_dlpack_exporter_drop(p)

    def __del__(self):
        try:
            self.drop()
        except Exception:
            pass


# ---- fork safety ----------------------------------------------------------
# Neither the Go runtime inside the library nor CUDA survive fork(): a child
# forked after import must not call into the library (it could hang).
_forked = False


def _after_fork_in_child():
    global _forked
    _forked = True


os.register_at_fork(after_in_child=_after_fork_in_child)

FORK_MESSAGE = (
    "gfxcuda cannot be used in a process created by fork() after gfxcuda was "
    "imported (neither CUDA nor gfxcuda's runtime survive fork). Start child "
    "processes with multiprocessing.set_start_method('spawn') or 'forkserver' "
    "(or multiprocessing.get_context('spawn'))."
)


def check_fork():
    if _forked:
        raise errors.ForkedProcessError(FORK_MESSAGE)


def raise_status(name, st, exc=None):
    """Raises the GfxcudaError of status st (the thread's last error)."""
    msg = lib.gfxcuda_last_error().decode("utf-8", "replace")
    cls = errors.BY_STATUS.get(st, errors.GfxcudaError)
    if exc is not None and cls is errors.InvalidArgumentError:
        cls = exc
    raise cls(msg or "%s failed with status %d" % (name, st), st)


def call(name, *args, exc=None):
    """Calls a library function and raises the matching GfxcudaError."""
    if _forked:
        raise errors.ForkedProcessError(FORK_MESSAGE)
    st = getattr(lib, name)(*args)
    if st != 0:
        raise_status(name, st, exc)


def new_handle(name, *args, exc=None):
    out = u64()
    call(name, *(args + (ctypes.byref(out),)), exc=exc)
    return out.value


def take_bytes(name, *args):
    """Calls a function returning malloc'd bytes and frees them."""
    p, n = vp(), sz()
    call(name, *(args + (ctypes.byref(p), ctypes.byref(n))))
    try:
        return ctypes.string_at(p, n.value)
    finally:
        lib.gfxcuda_free(p)


def take_json(name, *args):
    import json  # here: json imports re, a third of `import gfxcuda`'s time

    return json.loads(take_bytes(name, *args))


def info(handle):
    out = ResourceInfo()
    call("gfxcuda_resource_info", handle, ctypes.byref(out))
    return out


# Called by live_handles() before it counts: modules that hold handles of
# their own for the user's sake (_compute's small buffers made ahead or
# waiting for a batch) release them there, so that leak counts see the
# user's handles. They register here; this module imports none of them.
TYPE_CHECKING = False  # typing is not imported at run time: the annotation is a string
if TYPE_CHECKING:
    from typing import Callable
before_counting: "list[Callable[[], None]]" = []


def live_handles():
    for release in before_counting:
        release()
    n = u64()
    call("gfxcuda_live_handles", ctypes.byref(n))
    return n.value


def dlpack_live():
    n = u64()
    call("gfxcuda_dlpack_live", ctypes.byref(n))
    return n.value


EXCHANGE_FUNCTIONS = ("managed_tensor_allocator", "managed_tensor_from_py_object_no_sync",
                      "managed_tensor_to_py_object_no_sync", "dltensor_from_py_object_no_sync", "current_work_stream")


def dlpack_exchange_calls():
    """How many times each function of the DLPack C exchange API ran: a
    dict keyed by the function's name in DLPackExchangeAPI."""
    out = (u64 * len(EXCHANGE_FUNCTIONS))()
    call("gfxcuda_dlpack_exchange_calls", out, len(EXCHANGE_FUNCTIONS))
    return dict(zip(EXCHANGE_FUNCTIONS, out))


def array_interface(owner, desc, stream):
    """The dict of __cuda_array_interface__ (CUDA memory) or
    __array_interface__ (host memory) of the tensor description desc (a
    byref of a Tensor) over owner's memory, its pending work on stream (0:
    none), as the library builds it (Go's package dlpack)."""
    out = ArrayInterface()
    call("gfxcuda_array_interface", owner, desc, stream, ctypes.byref(out))
    nd = out.ndim
    d = {"shape": tuple(out.shape[:nd]), "typestr": out.typestr.decode(), "data": (out.data, bool(out.read_only)),
         "version": out.version, "strides": tuple(out.strides[:nd]) if out.has_strides else None}
    if not out.host:
        d["stream"] = out.stream or None
    return d


def dtype_parse(name):
    """(DLPack code, bits) of an element type NumPy names ("<f4", "uint8")."""
    code, bits = ctypes.c_uint8(), ctypes.c_uint8()
    call("gfxcuda_dtype_parse", name.encode(), ctypes.byref(code), ctypes.byref(bits))
    return code.value, bits.value


class Handle:
    """Owns one library handle; release() (or garbage collection) drops it."""

    __slots__ = ("_h", "__weakref__")
    _lock = _thread.allocate_lock()  # threading.Lock, without importing threading

    def __init__(self, h):
        self._h = h

    @property
    def handle(self):
        if not self._h:
            raise errors.BadHandleError("%s was released" % type(self).__name__)
        return self._h

    def release(self):
        h, self._h = self._h, 0
        if h and not _forked:
            st = _release_int(h) if h <= 0x7FFFFFFF else _release(h)
            if st:
                raise_status("gfxcuda_release", st)

    def __del__(self):
        # What release() does, errors ignored, in one C call (a hot path:
        # every dropped buffer comes here).
        h, self._h = self._h, 0
        if h and not _forked:
            try:
                _release_int(h) if h <= 0x7FFFFFFF else _release(h)
            except Exception:
                pass


def share_args(dir=None, rendezvous=None, allow_uids=None, allow_gids=None):
    """The C arguments of gfxcuda_share_options's options: the socket
    directory, the rendezvous ("abstract,fs,pidfd", "auto", "all") and the
    other uids and gids allowed to open (docs/sharing.md, "Containers")."""
    from . import _check

    def ids(xs, what):
        if xs is None or isinstance(xs, int):
            xs = () if xs is None else (xs,)
        elif isinstance(xs, (str, bytes)) or not hasattr(type(xs), "__iter__"):
            raise errors.ArgumentTypeError("gfxcuda: share_options(%s=%r): expected a list of ints" % (what, xs))
        # 2**32 - 1 is (uid_t)-1: no user.
        xs = [_check.integer(x, "share_options", what, 0, 2**32 - 2, what="a numeric id") for x in xs]
        return ((u32 * len(xs))(*xs) if xs else None), len(xs)
    if rendezvous is not None and not isinstance(rendezvous, str):
        if isinstance(rendezvous, bytes) or not hasattr(type(rendezvous), "__iter__") \
                or not all(isinstance(r, str) for r in rendezvous):
            raise errors.ArgumentTypeError("gfxcuda: share_options(rendezvous=%r): expected a str such as "
                                           "'abstract,fs,pidfd', 'auto' or 'all', or a list of strs" % (rendezvous,))
        rendezvous = ",".join(rendezvous)
    if dir and not isinstance(dir, (str, bytes, os.PathLike)):
        raise errors.ArgumentTypeError("gfxcuda: share_options(dir=%r): expected a directory (a str or a path)" % (dir,))
    uids, nu = ids(allow_uids, "allow_uids")
    gids, ng = ids(allow_gids, "allow_gids")
    return (os.fsencode(dir) if dir else None, rendezvous.encode() if rendezvous else None, uids, nu, gids, ng)
