"""Loads libgfxcuda and declares its functions (see gfxcuda.h).

The library loads on first use, not at `import gfxcuda` (15 MB, and its Go
runtime starts when it loads; compushady loads its backend lazily too):
`lib` is a stand-in until then, whose first attribute lookup loads the
library, declares its functions and puts the real ctypes.CDLL in its place
(what binds `lib.<function>` afterwards pays nothing for the laziness)."""

import _thread
import ctypes
import os

from . import errors

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


class ResourceInfo(ctypes.Structure):
    _fields_ = [
        ("size", u64), ("row_pitch", u64),
        ("kind", u32), ("heap", u32), ("format", u32), ("stride", u32),
        ("width", u32), ("height", u32), ("depth", u32), ("slices", u32),
        ("device_ptr", u64), ("cuda_device", ctypes.c_int32), ("bytes_per_texel", u32),
    ]


class CopyRegion(ctypes.Structure):
    _fields_ = [
        ("size", u64), ("src_offset", u64), ("dst_offset", u64),
        ("width", u32), ("height", u32), ("depth", u32),
        ("src_x", u32), ("src_y", u32), ("src_z", u32),
        ("dst_x", u32), ("dst_y", u32), ("dst_z", u32),
        ("src_slice", u32), ("dst_slice", u32),
    ]


class Tensor(ctypes.Structure):
    _fields_ = [
        ("data", u64), ("byte_offset", u64),
        ("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32),
        ("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16),
        ("ndim", ctypes.c_int32),
        ("shape", P(i64)), ("strides", P(i64)),
        ("flags", u64),
    ]


class ArrayInterface(ctypes.Structure):
    _fields_ = [
        ("typestr", ctypes.c_char * 8), ("data", u64),
        ("read_only", ctypes.c_int32), ("version", ctypes.c_int32), ("ndim", ctypes.c_int32),
        ("has_strides", ctypes.c_int32), ("host", ctypes.c_int32), ("reserved", ctypes.c_int32),
        ("stream", i64), ("shape", i64 * 32), ("strides", i64 * 32),
    ]


class TensorLayout(ctypes.Structure):
    """gfxcuda_tensor_layout_t: the layout of gfxcuda_texture_to_tensor."""
    _fields_ = [
        ("planar", i32), ("dtype_code", i32), ("dtype_bits", i32), ("channels", i32),
        ("mean", ctypes.c_float * 4), ("std", ctypes.c_float * 4), ("flip_y", i32),
    ]


class GLSourceInfo(ctypes.Structure):
    """gfxcuda_gl_source_info_t: what gfxcuda_gl_source_info reports."""
    _fields_ = [(n, u32) for n in ("width", "height", "samples", "internal_format", "format", "name", "target",
                                   "renderbuffer")]


_sigs = {
    "gfxcuda_release": [u64],
    "gfxcuda_retain": [u64],
    "gfxcuda_live_handles": [P(u64)],
    "gfxcuda_resource_info": [u64, P(ResourceInfo)],
    "gfxcuda_formats_json": [P(vp), P(sz)],
    "gfxcuda_devices_json": [P(vp), P(sz)],
    "gfxcuda_device_open": [i32, P(u64)],
    "gfxcuda_device_info_json": [u64, P(vp), P(sz)],
    "gfxcuda_buffer_new": [u64, u64, i32, u32, u32, P(u64)],
    "gfxcuda_buffer_create": [u64, u64, i32, u32, u32],
    "gfxcuda_buffer_create_int": [i32, i32, i32, i32, i32],  # called through buffer_create_int
    "gfxcuda_release_int": [i32],  # called through _release_int
    # Small buffers in batches (_compute._Bin): made ahead, dropped ones recycled or released.
    "gfxcuda_buffer_create_n": [u64, u64, i32, u32, u32, P(i64), i32],
    "gfxcuda_buffer_recycle_n": [P(i64), i32],
    "gfxcuda_release_n": [P(i64), i32],
    # The caller's own GL renderer (gfxcuda.gl).
    "gfxcuda_gl_adopt": [P(u64)],
    "gfxcuda_gl_source": [u64, i32, i64, u32, P(u64)],
    "gfxcuda_gl_source_info": [u64, P(GLSourceInfo)],
    "gfxcuda_gl_compute_view": [u64, u64, P(u64)],
    "gfxcuda_gl_to_tensor": [u64, u64, P(TensorLayout), u64, u64, u64],
    "gfxcuda_gl_to_tensors": [P(u64), i32, u64, P(TensorLayout), u64, u64, u64],
    "gfxcuda_gl_cuda_device": [u64, P(i32)],
    "gfxcuda_gl_egl_device_index": [i32, P(i32)],
    "gfxcuda_buffer_upload": [u64, u64, vp, u64],
    "gfxcuda_buffer_readback": [u64, u64, vp, u64],
    "gfxcuda_buffer_upload2d": [u64, vp, u64, u64, u64, u32],
    "gfxcuda_buffer_readback2d": [u64, vp, u64, u64, u64, u32],
    "gfxcuda_buffer_upload_chunked": [u64, vp, u64, u64, vp, u64],
    "gfxcuda_texture_new": [u64, i32, u32, u32, u32, u32, u32, P(u64)],
    "gfxcuda_sampler_new": [u64, i32, i32, i32, i32, i32, P(u64)],
    "gfxcuda_copy": [u64, u64, P(CopyRegion)],
    "gfxcuda_shader_compile": [cp, sz, i32, cp, P(vp), P(sz)],
    "gfxcuda_compute_new": [u64, vp, sz, P(u64), sz, P(u64), sz, P(u64), sz, P(u64), sz, P(u64)],
    "gfxcuda_compute_dispatch": [u64, u32, u32, u32, vp, sz],
    "gfxcuda_cuda_device_count": [P(i32)],
    "gfxcuda_cuda_alloc": [i32, u64, P(u64)],
    "gfxcuda_cuda_alloc_cached": [i32, u64, u64, P(u64)],
    "gfxcuda_cuda_note_stream": [u64, u64],
    "gfxcuda_cuda_cache_stats": [i32, P(u64)],
    "gfxcuda_cuda_memcpy": [i32, u64, u64, u64, i32],
    "gfxcuda_cuda_wrap": [i32, u64, u64, P(u64)],
    "gfxcuda_shared_open": [i32, P(u64)],
    "gfxcuda_shared_buffer_new": [u64, u64, P(u64)],
    "gfxcuda_shared_texture_new": [u64, u32, u32, u32, u32, P(u64)],
    "gfxcuda_shared_texture_from_cuda": [u64, u64, u64, u32, u32, u32, i32, i32, P(u64)],
    "gfxcuda_shared_texture_copy": [u64, u64, u64, i32, u64],
    "gfxcuda_shared_texture_ipc_handle": [u64, P(vp), P(sz)],
    "gfxcuda_shared_texture_open_ipc": [u64, vp, sz, P(u64)],
    "gfxcuda_share_token": [u64, P(vp), P(sz)],
    "gfxcuda_share_options": [u64, cp, cp, P(u32), sz, P(u32), sz],
    "gfxcuda_shared_buffer_open_ipc": [u64, vp, sz, P(u64)],
    "gfxcuda_shared_buffer_import_fd": [u64, i32, u64, u64, i32, P(u64)],
    "gfxcuda_shared_texture_import_fd": [u64, i32, u32, u32, u32, u32, u32, u64, P(u64)],
    "gfxcuda_shared_export_fd": [u64, P(i32), P(u64), P(i32), P(u32)],
    "gfxcuda_cuda_semaphore_import_fd": [u64, i32, i32, P(u64)],
    "gfxcuda_cuda_semaphore_wait": [u64, u64, u64],
    "gfxcuda_cuda_semaphore_signal": [u64, u64, u64],
    "gfxcuda_vk_semaphore_new": [u64, u64, i32, P(u64)],
    "gfxcuda_vk_semaphore_signal": [u64, u64],
    "gfxcuda_vk_semaphore_wait": [u64, u64, i64],
    "gfxcuda_vk_semaphore_value": [u64, P(u64)],
    "gfxcuda_to_cuda": [P(u64), sz, u64, P(u64)],
    "gfxcuda_to_vulkan": [u64],
    "gfxcuda_cuda_stream_wait": [u64, u64, u64],
    "gfxcuda_torch_buffer": [u64, P(Tensor), u64, P(u64)],
    "gfxcuda_torch_alloc": [ctypes.c_ssize_t, i32, vp],  # returns a pointer: restype below
    "gfxcuda_torch_free": [vp, ctypes.c_ssize_t, i32, vp],  # returns nothing
    "gfxcuda_torch_pool_stats": [i32, P(u64), P(u64), P(u64)],
    "gfxcuda_after_cuda": [P(u64), sz, u64],
    "gfxcuda_ring_new": [u64, u64, u32, i32, P(u64)],
    "gfxcuda_ring_new_with": [u64, u64, u32, i32, cp, cp, P(u32), sz, P(u32), sz, P(u64)],
    "gfxcuda_ring_slot": [u64, u32, P(u64)],
    "gfxcuda_ring_wait_consumers": [u64, i32, i64],
    "gfxcuda_ring_acquire": [u64, i64, P(u32)],
    "gfxcuda_ring_publish": [u64, u32, vp, sz, u64, i64, P(u64)],
    "gfxcuda_ring_open": [u64, vp, sz, P(u64)],
    "gfxcuda_ring_open_peer": [cp, vp, sz, i32, P(u64)],
    "gfxcuda_ring_peer_direct": [u64, P(i32)],
    "gfxcuda_ring_next": [u64, i64, u64, P(u32), P(u64), P(u64), vp, sz, P(sz)],
    "gfxcuda_ring_release": [u64],
    "gfxcuda_dlpack_export": [u64, P(Tensor), i32, P(vp)],
    "gfxcuda_dlpack_import": [vp, i32, P(u64), P(Tensor)],
    "gfxcuda_dlpack_live": [P(u64)],
    "gfxcuda_dlpack_exporter_new": [u64, P(vp)],
    "gfxcuda_dlpack_exporter_export": [vp, P(Tensor), i32, P(vp)],
    "gfxcuda_dlpack_exporter_drop": [vp],
    "gfxcuda_dlpack_exchange_api": [ctypes.py_object, P(vp)],
    "gfxcuda_dlpack_binding_new": [vp, P(Tensor), P(vp)],
    "gfxcuda_dlpack_exchange_calls": [P(u64), sz],
    "gfxcuda_array_interface": [u64, vp, i64, P(ArrayInterface)],
    "gfxcuda_dtype_parse": [cp, P(ctypes.c_uint8), P(ctypes.c_uint8)],
    "gfxcuda_copy_ex": [u64, u64, P(CopyRegion)],
    "gfxcuda_compute_dispatch_indirect": [u64, u64, u64, vp, sz],
    "gfxcuda_shared_compute_device": [u64, P(u64)],
    "gfxcuda_shared_compute_view": [u64, u64, P(u64)],
    "gfxcuda_texture_to_tensor": [u64, u64, P(TensorLayout), u64, i32, u64],
    "gfxcuda_texture_tiles_to_tensor": [u64, u64, P(TensorLayout), u64, i32, i32, i32, i32, u64],
    "gfxcuda_heap_new": [u64, i32, u64, P(u64)],
    "gfxcuda_buffer_new_placed": [u64, u64, i32, u32, u32, u64, u64, i32, P(u64)],
    "gfxcuda_texture_new_placed": [u64, i32, u32, u32, u32, u32, u32, u64, u64, i32, P(u64)],
    "gfxcuda_resource_tiles": [u64, P(u64)],
    "gfxcuda_bind_tile": [u64, u32, u32, u32, u64, u64, u32],
    "gfxcuda_compute_new_bindless": [u64, vp, sz, P(u64), sz, P(u64), sz, P(u64), sz, P(u64), sz, u32, P(u64)],
    "gfxcuda_compute_bind": [u64, i32, u32, u64],
    "gfxcuda_compute_new_constants": [u64, vp, sz, P(u64), sz, P(u64), sz, P(u64), sz, P(u64), sz,
                                      P(cp), P(ctypes.c_double), sz, P(u64)],
    "gfxcuda_cli_main": [i32, P(cp)],  # returns an exit status (__main__)
    "gfxcuda_cli_set_command": [i32, P(cp)],
}


def _declare(l):
    """Declares the library's functions (argument and result types)."""
    for name, args in _sigs.items():
        f = getattr(l, name)
        f.argtypes = args
        f.restype = ctypes.c_int
    l.gfxcuda_buffer_create.restype = i64  # the handle, or minus the status
    l.gfxcuda_buffer_create_int.restype = i64
    l.gfxcuda_buffer_create_n.restype = i64
    l.gfxcuda_buffer_recycle_n.restype = i64
    l.gfxcuda_torch_alloc.restype = vp  # PyTorch's allocator callbacks (torch_pool)
    l.gfxcuda_torch_free.restype = None
    l.gfxcuda_last_error.restype = cp
    l.gfxcuda_last_error.argtypes = []
    l.gfxcuda_version.restype = cp
    l.gfxcuda_version.argtypes = []
    l.gfxcuda_free.argtypes = [vp]
    l.gfxcuda_free.restype = None
    l.gfxcuda_set_python_capsule_api.argtypes = [vp, vp]
    l.gfxcuda_set_python_capsule_api.restype = None
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
