"""CUDA memory with __cuda_array_interface__ and DLPack (CudaBuffer,
SharedBuffer), and Gfx2Cuda's textures."""

import ctypes
import threading

from . import _lib, errors, formats

kDLCPU, kDLCUDA = 1, 2
_NAMES = (b"dltensor", b"dltensor_versioned")


def cuda_device_count():
    """The number of CUDA devices; 0 without a usable driver."""
    n = ctypes.c_int()
    try:
        _lib.call("gfxcuda_cuda_device_count", ctypes.byref(n))
    except errors.NoDeviceError:
        return 0
    return n.value


def cuda_available():
    """Whether a CUDA driver and device are usable."""
    return cuda_device_count() > 0


def _dtype_of(dtype):
    """(numpy-style typestr, DLPack code, bits, itemsize) of a dtype-like."""
    try:
        import numpy
        dt = numpy.dtype(dtype)
        kind, size = dt.kind, dt.itemsize
    except ImportError:  # pragma: no cover - numpy is present where tested
        s = str(dtype)
        kind, size = s[-2], int(s[-1])
    code = {"i": 0, "u": 1, "f": 2}.get(kind)
    if code is None:
        raise errors.InvalidArgumentError("gfxcuda: dtype %s; use signed or unsigned integers or floats" % (dtype,))
    order = "|" if size == 1 else "<"
    return "%s%s%d" % (order, kind, size), code, size * 8, size


def _stream_int(stream):
    """A CUDA stream as an int: None, an int, or a torch/CuPy/Numba stream."""
    if stream is None:
        return 0
    if isinstance(stream, int):
        return stream
    for attr in ("cuda_stream", "ptr", "handle"):
        v = getattr(stream, attr, None)
        if v is not None:
            v = getattr(v, "value", v)
            return int(v)
    raise errors.InvalidArgumentError("gfxcuda: stream %r: pass an int (a cudaStream_t) or a torch/CuPy/Numba stream" % (stream,))


class _Array:
    """Linear CUDA memory seen as an n-dimensional array, exposed zero-copy
    through __cuda_array_interface__ (v3) and DLPack."""

    def _setup(self, handle, ptr, shape, dtype, device, strides=None, owner=None):
        self._h = _lib.Handle(handle)
        self.ptr = ptr
        self.shape = tuple(int(s) for s in shape)
        self.typestr, self._code, self._bits, self.itemsize = _dtype_of(dtype)
        self.dtype = dtype
        self.device = device
        self.strides = tuple(strides) if strides is not None else None  # bytes
        self._owner = owner
        # The stream pending work on the memory is on; None: nothing pending
        # (gfxcuda's own copies are complete when they return).
        self.stream = None
        self._desc = None
        self._lock = threading.Lock()

    @property
    def handle(self):
        return self._h.handle

    @property
    def size(self):
        n = 1
        for s in self.shape:
            n *= s
        return n

    @property
    def nbytes(self):
        return self.size * self.itemsize

    @property
    def __cuda_array_interface__(self):
        return {
            "shape": self.shape,
            "typestr": self.typestr,
            "data": (self.ptr, False),
            "version": 3,
            "strides": self.strides,
            "stream": self.stream,
        }

    def __dlpack_device__(self):
        return (kDLCUDA, self.device)

    def _tensor(self):
        if self._desc is None:
            nd = len(self.shape)
            shape = (ctypes.c_int64 * max(nd, 1))(*self.shape)
            strides = None
            if self.strides is not None:
                strides = (ctypes.c_int64 * max(nd, 1))(*[s // self.itemsize for s in self.strides])
            t = _lib.Tensor(self.ptr, 0, kDLCUDA, self.device, self._code, self._bits, 1, nd,
                            ctypes.cast(shape, ctypes.POINTER(ctypes.c_int64)),
                            ctypes.cast(strides, ctypes.POINTER(ctypes.c_int64)) if strides is not None else None, 0)
            self._desc = (t, shape, strides)
        return self._desc[0]

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        """A DLPack capsule over the memory (no copy): the versioned
        DLManagedTensorVersioned when max_version >= (1, 0), else the
        legacy DLManagedTensor. The memory lives until the consumer's
        deleter runs."""
        _lib.check_fork()
        if dl_device is not None and tuple(dl_device) != (kDLCUDA, self.device):
            raise BufferError("gfxcuda: the memory is on CUDA device %d; it cannot be exported to device %r without a copy"
                              % (self.device, tuple(dl_device)))
        if stream == 0:
            raise ValueError("gfxcuda: stream 0 is ambiguous in DLPack; pass 1 (legacy default), 2 (per-thread) or a stream handle")
        src = self
        if copy:
            src = CudaBuffer(self.shape, self.dtype, device=self.device)
            _lib.call("gfxcuda_cuda_memcpy", self.device, src.ptr, self.ptr, self.nbytes, 2)
        # Pending work: gfxcuda's copies are synchronous, so the consumer's
        # stream has nothing to wait for (see docs/python.md).
        versioned = max_version is not None and tuple(max_version)[0] >= 1
        t = src._tensor()
        t.flags = 2 if copy else 0
        out = ctypes.c_void_p()
        _lib.call("gfxcuda_dlpack_export", src.handle, ctypes.byref(t), int(versioned), ctypes.byref(out))
        return _lib.PyCapsule_New(out, _NAMES[versioned], _lib.capsule_destructor)

    def copy_from_host(self, array):
        """Copies a host array (numpy or any C-contiguous buffer) of nbytes in."""
        mv = memoryview(array).cast("B")
        if len(mv) != self.nbytes:
            raise errors.OutOfRangeError("gfxcuda: %d bytes into %d" % (len(mv), self.nbytes))
        buf = (ctypes.c_char * len(mv)).from_buffer_copy(mv) if mv.readonly else (ctypes.c_char * len(mv)).from_buffer(mv)
        _lib.call("gfxcuda_cuda_memcpy", self.device, self.ptr, ctypes.addressof(buf), self.nbytes, 0)

    def copy_to_host(self, array=None):
        """Copies the memory into a host array (a new numpy array when none)."""
        if array is None:
            import numpy
            array = numpy.empty(self.shape, dtype=numpy.dtype(self.typestr))
        mv = memoryview(array).cast("B")
        if len(mv) != self.nbytes or mv.readonly:
            raise errors.OutOfRangeError("gfxcuda: need a writable host buffer of %d bytes" % self.nbytes)
        buf = (ctypes.c_char * len(mv)).from_buffer(mv)
        _lib.call("gfxcuda_cuda_memcpy", self.device, ctypes.addressof(buf), self.ptr, self.nbytes, 1)
        return array

    def release(self):
        """Drops gfxcuda's reference now; DLPack consumers keep the memory alive."""
        self._h.release()

    def __repr__(self):
        return "<gfxcuda.%s shape=%s dtype=%s cuda:%d ptr=%#x>" % (type(self).__name__, self.shape, self.typestr,
                                                                   self.device, self.ptr)


def _nbytes(shape, itemsize):
    n = itemsize
    for s in shape:
        if s < 0:
            raise errors.InvalidArgumentError("gfxcuda: shape %r" % (shape,))
        n *= s
    return n


class CudaBuffer(_Array):
    """CUDA memory with a shape and dtype, as CV-CUDA's CudaBuffer: owning
    (CudaBuffer(shape, dtype)) or wrapping a foreign pointer without owning
    it (CudaBuffer.from_cuda(ptr, shape, dtype))."""

    def __init__(self, shape, dtype="float32", device=0):
        if isinstance(shape, int):
            shape = (shape,)
        _, _, _, itemsize = _dtype_of(dtype)
        n = _nbytes(shape, itemsize)
        h = _lib.new_handle("gfxcuda_cuda_alloc", device, max(n, 1))
        self._setup(h, _lib.info(h).device_ptr, shape, dtype, device)
        self.owned = True

    @classmethod
    def from_cuda(cls, ptr, shape, dtype="float32", device=0, strides=None, owner=None):
        """Wraps CUDA memory at ptr without owning it; owner (kept
        referenced) or the caller keeps it alive."""
        self = cls.__new__(cls)
        _, _, _, itemsize = _dtype_of(dtype)
        if strides is None:
            n = _nbytes(shape, itemsize)
        else:
            n = itemsize + sum((s - 1) * st for s, st in zip(shape, strides))
        h = _lib.new_handle("gfxcuda_cuda_wrap", device, int(ptr), max(n, 1))
        self._setup(h, int(ptr), shape, dtype, device, strides=strides, owner=owner)
        self.owned = False
        return self

    @classmethod
    def from_numpy(cls, array, device=0):
        """A new CUDA copy of a numpy array."""
        import numpy
        a = numpy.ascontiguousarray(array)
        b = cls(a.shape, a.dtype, device=device)
        b.copy_from_host(a)
        return b


class SharedBuffer(_Array):
    """A Vulkan buffer CUDA sees: torch.from_dlpack(buf), cupy.asarray(buf)
    and numba.cuda.as_cuda_array(buf) use its memory without copies."""

    def __init__(self, shape, dtype="float32", device=0):
        if isinstance(shape, int):
            shape = (shape,)
        _, _, _, itemsize = _dtype_of(dtype)
        n = _nbytes(shape, itemsize)
        sd = _shared_device(device)
        h = _lib.new_handle("gfxcuda_shared_buffer_new", sd, max(n, 1))
        self._setup(h, _lib.info(h).device_ptr, shape, dtype, device)


_shared = {}
_shared_lock = threading.Lock()


def _shared_device(ordinal):
    with _shared_lock:
        d = _shared.get(ordinal)
        if d is None:
            d = _shared[ordinal] = _lib.Handle(_lib.new_handle("gfxcuda_shared_open", ordinal))
        return d.handle


def _array_of(obj):
    """(ptr, shape, typestr, strides, device, keepalive) of a CUDA array
    object (__cuda_array_interface__ or __dlpack__)."""
    cai = getattr(obj, "__cuda_array_interface__", None)
    if cai is not None:
        dev = 0
        if hasattr(obj, "device") and getattr(obj.device, "index", None) is not None:
            dev = obj.device.index
        return cai["data"][0], tuple(cai["shape"]), cai["typestr"], cai.get("strides"), dev, obj
    if hasattr(obj, "__dlpack__"):
        try:
            cap = obj.__dlpack__(max_version=(1, 0), stream=1)
        except TypeError:
            cap = obj.__dlpack__()
        versioned = _lib.PyCapsule_IsValid(cap, b"dltensor_versioned")
        name = _NAMES[versioned]
        p = _lib.PyCapsule_GetPointer(cap, name)
        if not p:
            raise errors.InvalidArgumentError("gfxcuda: %r gave a DLPack capsule that was consumed already" % (obj,))
        desc = _lib.Tensor()
        h = ctypes.c_uint64()
        _lib.PyCapsule_SetName(cap, b"used_" + name)
        _lib.call("gfxcuda_dlpack_import", p, int(versioned), ctypes.byref(h), ctypes.byref(desc))
        keep = _lib.Handle(h.value)
        if desc.device_type != kDLCUDA:
            raise errors.InvalidArgumentError("gfxcuda: %r is not in CUDA memory (DLPack device %d)" % (obj, desc.device_type))
        shape = tuple(desc.shape[i] for i in range(desc.ndim))
        itemsize = desc.bits // 8
        strides = None
        if desc.strides:
            strides = tuple(desc.strides[i] * itemsize for i in range(desc.ndim))
        kind = {0: "i", 1: "u", 2: "f"}[desc.code]
        typestr = ("|" if itemsize == 1 else "<") + kind + str(itemsize)
        return desc.data + desc.byte_offset, shape, typestr, strides, desc.device_id, keep
    raise errors.InvalidArgumentError(
        "gfxcuda: %s is not a CUDA array (no __cuda_array_interface__ or __dlpack__)" % type(obj).__name__)


def _pointer(obj, need):
    """A device pointer from an int or a CUDA array with at least need bytes."""
    if isinstance(obj, int):
        if obj == 0:
            raise errors.InvalidArgumentError("gfxcuda: null device pointer")
        return obj, 0, None
    ptr, shape, typestr, strides, _, keep = _array_of(obj)
    itemsize = int(typestr[2:])
    n = itemsize
    for s in shape:
        n *= s
    if n < need:
        raise errors.OutOfRangeError("gfxcuda: the array has %d bytes; the texture needs %d" % (n, need))
    pitch = 0
    if strides is not None:
        # Rows may be padded (pitch); texels within a row must be packed.
        pitch = strides[0]
    return ptr, pitch, keep


class Texture:
    """A 2D texture shared between Vulkan and CUDA (Gfx2Cuda's texture)."""

    def __init__(self, handle, device):
        self._h = _lib.Handle(handle)
        self.device = device
        i = _lib.info(handle)
        self.width, self.height, self.layers = i.width, i.height, i.slices
        self.format = i.format
        self.row_pitch = i.row_pitch
        self.nbytes = i.size

    @property
    def handle(self):
        return self._h.handle

    @property
    def shape(self):
        f = formats.by_value[self.format]
        return (self.height, self.width, f["lanes"]) if f["lanes"] > 1 else (self.height, self.width)

    def copy_to(self, dst, pitch=0, stream=None):
        """Copies the texture into dst (a device pointer as an int, or a
        torch/CuPy/Numba array). Complete before later work on any stream."""
        ptr, p, keep = _pointer(dst, self.nbytes)
        _lib.call("gfxcuda_shared_texture_copy", self.handle, ptr, pitch or p, 1, _stream_int(stream))
        del keep

    def copy_from(self, src, pitch=0, stream=None):
        """Copies src (a device pointer or a CUDA array) into the texture,
        after the caller's earlier CUDA work."""
        ptr, p, keep = _pointer(src, self.nbytes)
        _lib.call("gfxcuda_shared_texture_copy", self.handle, ptr, pitch or p, 0, _stream_int(stream))
        del keep

    def __enter__(self):
        _lib.check_fork()
        return self

    def __exit__(self, *exc):
        return False

    @property
    def ipc_handle(self):
        """A token another process opens with gfxcuda.open_ipc_texture."""
        return _lib.take_bytes("gfxcuda_shared_texture_ipc_handle", self.handle)

    def release(self):
        self._h.release()

    def __repr__(self):
        return "Texture with format %s (%d x %d)" % (formats.name(self.format).upper(), self.width, self.height)


def texture(obj_or_shape, format=None, dtype="float32", device=0):
    """Gfx2Cuda's texture(): a copy of a CUDA array (torch, CuPy or Numba:
    anything with __cuda_array_interface__ or __dlpack__) of shape (H, W, C)
    or (H, W) as a shared texture; or a new texture of shape (H, W[, C])
    and format (a gfxcuda.formats value or name) or dtype."""
    if isinstance(obj_or_shape, (tuple, list)):
        shape = tuple(obj_or_shape)
        if len(shape) not in (2, 3):
            raise errors.InvalidArgumentError("gfxcuda: texture shape %r; give (height, width[, channels])" % (shape,))
        h, w = shape[0], shape[1]
        c = shape[2] if len(shape) == 3 else 1
        if format is None:
            _, code, bits, _ = _dtype_of(dtype)
            format = formats.for_dtype(code, bits, c)
        fmt = formats.lookup(format)["value"]
        sd = _shared_device(device)
        return Texture(_lib.new_handle("gfxcuda_shared_texture_new", sd, fmt, w, h, 1), device)
    ptr, shape, typestr, strides, dev, keep = _array_of(obj_or_shape)
    if len(shape) not in (2, 3):
        raise errors.InvalidArgumentError("gfxcuda: a texture is made from a (height, width[, channels]) array, not shape %r" % (shape,))
    h, w = shape[0], shape[1]
    c = shape[2] if len(shape) == 3 else 1
    itemsize = int(typestr[2:])
    pitch = 0
    if strides is not None:
        if strides[-1] != itemsize or (len(shape) == 3 and strides[1] != itemsize * c):
            raise errors.InvalidArgumentError("gfxcuda: texels of the array must be packed (strides %r)" % (strides,))
        pitch = strides[0]
    code = {"i": 0, "u": 1, "f": 2}[typestr[1]]
    sd = _shared_device(dev)
    t = Texture(_lib.new_handle("gfxcuda_shared_texture_from_cuda", sd, ptr, pitch, w, h, c, code, itemsize * 8), dev)
    del keep
    return t


def open_ipc_texture(handle, device=0):
    """Opens a texture another process shared (its tex.ipc_handle)."""
    handle = bytes(handle)
    sd = _shared_device(device)
    return Texture(_lib.new_handle("gfxcuda_shared_texture_open_ipc", sd, handle, len(handle)), device)
