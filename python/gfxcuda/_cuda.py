"""CUDA memory with __cuda_array_interface__ and DLPack (CudaBuffer,
SharedBuffer), and Gfx2Cuda's textures."""

import ctypes
import os
import sys
import threading

from . import _check, _lib, errors, formats

kDLCPU, kDLCUDA = 1, 2
_NAMES = (b"dltensor", b"dltensor_versioned")
# The hot path of __dlpack__ (torch.from_dlpack): bound once.
_export = _lib.lib.gfxcuda_dlpack_exporter_export
_capsule_new = _lib.PyCapsule_New
_destructor = _lib.capsule_destructor
_byref = ctypes.byref
_c_void_p = ctypes.c_void_p
_tex_copy = _lib.lib.gfxcuda_shared_texture_copy
# DLPack 1.3's C exchange API: capsule names (kept alive: capsules keep
# the pointer, not a copy).
_BINDING_NAME = b"gfxcuda.dlpack_binding"
_EXCHANGE_NAME = b"dlpack_exchange_api"
# DLPack's names of a consumed capsule. PyCapsule_SetName keeps the pointer
# it is given, not a copy, and the producer's destructor reads the name when
# the capsule goes: a temporary (b"used_" + name) left it reading freed
# memory, a ValueError per read and a crash (issue #31). Every capsule name
# is a constant here, pinned with an extra reference so that not even the
# module's teardown frees it while capsules live.
_USED_NAMES = (b"used_dltensor", b"used_dltensor_versioned")
_TYPE_NAME = b"gfxcuda.capsule"
_incref = ctypes.PYFUNCTYPE(None, ctypes.py_object)(("Py_IncRef", ctypes.pythonapi))
for _n in _NAMES + _USED_NAMES + (_BINDING_NAME, _EXCHANGE_NAME, _TYPE_NAME):
    _incref(_n)
del _n
_capsule_name = ctypes.PYFUNCTYPE(ctypes.c_char_p, ctypes.py_object)(("PyCapsule_GetName", ctypes.pythonapi))
_Capsule = type(_capsule_new(1, _TYPE_NAME, None))  # types.CapsuleType (Python 3.13)


def cuda_device_count():
    """Returns the number of CUDA devices; 0 without a usable driver.
    Raises gfxcuda.LibraryNotFoundError when the C library does not
    load."""
    n = ctypes.c_int()
    try:
        _lib.call("gfxcuda_cuda_device_count", ctypes.byref(n))
    except errors.NoDeviceError:
        return 0
    return n.value


def cuda_available():
    """Returns whether a CUDA driver and device are usable (True when
    cuda_device_count() > 0). Raises gfxcuda.LibraryNotFoundError when the
    C library does not load."""
    return cuda_device_count() > 0


def cuda_cache_stats(device=0):
    """Returns the counters of the device's cache of per-frame memory, the
    memory new outputs of conversions (gfxcuda.gl's to_tensor without out=,
    say) come from, as a dict: hits (blocks handed out again), misses
    (cuMemAlloc), busy (idle blocks skipped: a stream still used them),
    freed (blocks released past the cache's limit, no idle block to make
    room), evicted (idle blocks freed to make room for newer ones),
    idle_bytes. Misses that keep growing frame after frame mean outputs are
    kept alive (or used on a stream still busy); pass out= to reuse one
    tensor. All zero before the first such output. Raises
    gfxcuda.InvalidArgumentError for a negative device,
    gfxcuda.ArgumentTypeError for one that is not an int."""
    device = _check.device(device, "cuda_cache_stats")
    out = (ctypes.c_uint64 * 6)()
    _lib.call("gfxcuda_cuda_cache_stats", device, out)
    return dict(zip(("hits", "misses", "busy", "freed", "evicted", "idle_bytes"), (int(v) for v in out)))


_dtypes = {}


def _dtype_of(dtype):
    """(DLPack code, bits, itemsize) of a dtype-like (what numpy.dtype
    takes), as the library reads NumPy's type string."""
    try:
        return _dtypes[dtype]
    except (KeyError, TypeError):
        pass
    try:
        import numpy
        name = numpy.dtype(dtype).str
    except ImportError:  # pragma: no cover - numpy is present where tested
        name = str(dtype)
    except (TypeError, ValueError) as e:
        raise errors.ArgumentTypeError("gfxcuda: dtype=%r is not an element type (numpy.dtype says: %s); give one such as "
                                       "'float32', 'uint8' or numpy.float16" % (dtype, e)) from None
    code, bits = _lib.dtype_parse(name)
    r = (code, bits, _lib.info_of((), code, bits).itemsize)  # the library's element size
    try:
        _dtypes[dtype] = r
    except TypeError:
        pass
    return r


def _tensor_layout(where, dtype, planar, channels, flip_y, mean, std):
    """(gfxcuda_tensor_layout_t, element size) of a conversion: dtype as
    numpy.dtype takes it, mean and std up to 4 numbers each."""
    code, bits, itemsize = _dtype_of(dtype)
    layout = _lib.TensorLayout(planar=1 if planar else 0, dtype_code=code, dtype_bits=bits, channels=channels,
                               flip_y=1 if flip_y else 0)
    for name, values in (("mean", mean), ("std", std)):
        if values is None:
            continue
        try:
            if isinstance(values, (str, bytes)):
                raise TypeError
            values = [float(v) for v in values]
        except (TypeError, ValueError):
            raise errors.ArgumentTypeError("gfxcuda: %s(%s=%r): expected up to 4 numbers, one per channel"
                                           % (where, name, values)) from None
        if len(values) > 4:
            raise errors.InvalidArgumentError("gfxcuda: %s: %s has %d values; at most 4" % (where, name, len(values)))
        for i, v in enumerate(values):
            getattr(layout, name)[i] = v
    return layout, itemsize


def _stream_int(stream, where="gfxcuda"):
    """A CUDA stream as an int: None (the legacy default stream, 0), an int
    (a cudaStream_t; 1 legacy, 2 per-thread default), or a torch/CuPy/Numba
    stream object."""
    if stream is None:
        return 0
    if isinstance(stream, int):
        if 0 <= stream <= _check.U64:
            return stream
        return _check.integer(stream, where, "stream", 0, _check.U64, what="a cudaStream_t (an int) or a stream object")
    for attr in ("cuda_stream", "ptr", "handle"):
        v = getattr(stream, attr, None)
        if v is not None:
            v = getattr(v, "value", v)  # a ctypes c_void_p (Numba's handle): its value, None for 0
            try:  # an int, or what int() takes (cuda-python's CUstream)
                v = int(v or 0)
            except (TypeError, ValueError):
                break
            if not 0 <= v <= _check.U64:
                break
            return v
    raise errors.ArgumentTypeError("gfxcuda: %s(stream=...): stream is %s; pass None (the legacy default stream), an "
                                   "int (a cudaStream_t) or a torch/CuPy/Numba stream" % (where, _check.kind(stream)))


class _DLPackBinding:
    """The attribute ``_gfxcuda_dlpack`` of gfxcuda's arrays: what the
    functions of DLPack's C exchange API (``__dlpack_c_exchange_api__``)
    read, a capsule over the library's binding of the array's exporter and
    tensor description. Made on first use, then kept in the instance's
    __dict__ (a non-data descriptor: later lookups find it there)."""

    def __get__(self, obj, cls=None):
        if obj is None:
            return self
        cap = obj._dlpack_binding()
        obj.__dict__["_gfxcuda_dlpack"] = cap
        return cap


class _Array:
    """Linear CUDA memory seen as an n-dimensional array, exposed zero-copy
    through __cuda_array_interface__ (v3) and DLPack: the base class of
    CudaBuffer, SharedBuffer and a ring's Slot.

    Attributes: ptr (the device pointer, an int), shape (a tuple of ints),
    dtype (as given) and itemsize (its bytes), device (the CUDA ordinal),
    strides (bytes per step of each dimension, None: C-contiguous)."""

    _cached = False  # memory of the device's cache (CudaBuffer._from_cache): DLPack consumers' streams are noted

    def _setup(self, handle, ptr, shape, dtype, device, strides=None, owner=None):
        self._h = _lib.Handle(handle)
        self.ptr = ptr
        self.shape = tuple(int(s) for s in shape)
        self._code, self._bits, self.itemsize = _dtype_of(dtype)
        self.dtype = dtype
        self.device = device
        self.strides = tuple(strides) if strides is not None else None  # bytes
        self._owner = owner
        # The stream of a hand-off to CUDA in progress (to_cuda): consumers
        # wait for it. None: nothing pending.
        self._pending = None
        self._desc = None
        self._info = None  # the library's TensorInfo of the description (size, nbytes, contiguity), made on first use
        self._exporter = None  # _lib.Exporter, made on the first export
        self._lock = threading.Lock()
        self._dl_device = (kDLCUDA, device)  # __dlpack_device__, asked on every export
        self._iface = None  # (pending, the array interface's dict), made by the library

    @property
    def handle(self):
        """The library's handle of this object (an int), for gfxcuda's C API.
        Raises gfxcuda.BadHandleError after release()."""
        return self._h.handle

    @property
    def stream(self):
        """The stream consumers must wait for (a hand-off in progress), as
        __cuda_array_interface__ reports it; None when nothing is pending."""
        p = self._pending
        if p is None:
            return None
        return p or 1

    def _tensor_info(self):
        """The library's TensorInfo of this array's description (its
        elements, bytes, extent and contiguity, as Go's package dlpack
        computes them), made on first use."""
        i = self._info
        if i is None:
            if self._desc is None:
                self._tensor()
            i = self._info = _lib.tensor_info(self._desc[3])
        return i

    @property
    def size(self):
        """The number of elements (the product of shape)."""
        return self._tensor_info().elements

    @property
    def nbytes(self):
        """The size in bytes: size * itemsize."""
        return self._tensor_info().nbytes

    def _interface(self):
        """The array interface's dict for the stream pending now, as the
        library builds it (__cuda_array_interface__, or for host memory
        __array_interface__); one library call per array and stream."""
        p = self._pending
        c = self._iface
        if c is None or c[0] != p:
            if self._desc is None:
                self._tensor()
            c = self._iface = (p, _lib.array_interface(self.handle, self._desc[3], self.stream or 0))
        return c[1]

    @property
    def typestr(self):
        """NumPy's type string of the elements ("<f4", "|u1")."""
        return self._interface()["typestr"]

    @property
    def __cuda_array_interface__(self):
        """Numba's CUDA Array Interface (version 3): a new dict of shape,
        typestr, data (pointer, read-only flag), strides, version and
        stream (the hand-off's stream consumers must wait for, None when
        nothing is pending). CuPy, Numba and torch.as_tensor read it."""
        return dict(self._interface())

    def __dlpack_device__(self):
        """Returns DLPack's device of the memory: (2, ordinal) for CUDA
        (kDLCUDA), (1, 0) for a host ring slot (kDLCPU)."""
        return self._dl_device

    def _tensor(self):
        if self._desc is None:
            strides = None if self.strides is None else [s // self.itemsize for s in self.strides]
            t, (shape, strides) = _lib.describe(self.shape, self._code, self._bits, strides, self.ptr, self._dl_device)
            self._desc = (t, shape, strides, ctypes.byref(t))
        return self._desc[0]

    def _exporter_and_desc(self):
        """This array's DLPack exporter (made on first use, remade after a
        release) with its tensor description cached."""
        e = self._exporter
        if e is None or not e._p:
            e = self._exporter = _lib.Exporter(self.handle)
        if self._desc is None:
            self._tensor()
        return e

    def _capsule(self, versioned):
        """A capsule of the cached tensor description, exported in C
        through this array's exporter (one C call, no Go)."""
        e = self._exporter
        if e is None or not e._p or self._desc is None:  # inline: __dlpack__'s hot path
            e = self._exporter_and_desc()
        out = _c_void_p()
        st = _export(e._p, self._desc[3], versioned, _byref(out))
        if st:
            _lib.raise_status("gfxcuda_dlpack_exporter_export", st)
        return _capsule_new(out, _NAMES[versioned], _destructor)

    _gfxcuda_dlpack = _DLPackBinding()

    def _dlpack_binding(self):
        """A new binding capsule for the C exchange API (see _DLPackBinding),
        over this array's exporter (the one __dlpack__ uses)."""
        _lib.check_fork()
        e = self._exporter_and_desc()
        out = _c_void_p()
        _lib.call("gfxcuda_dlpack_binding_new", e._p, self._desc[3], _byref(out))
        return _capsule_new(out, _BINDING_NAME, _lib.binding_destructor)

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        """Returns a DLPack capsule over the memory (no copy), as the
        array API (2023.12) asks: the versioned DLManagedTensorVersioned
        when max_version >= (1, 0), else the legacy DLManagedTensor. The
        memory lives until the consumer's deleter runs.

        stream is the consumer's CUDA stream (an int: 1 the legacy default
        stream, 2 per-thread, another a cudaStream_t; -1 or None: no
        ordering): while the array is handed to CUDA on another stream,
        that stream waits for it (an event; the host does not wait).
        dl_device, when given, must be this memory's (__dlpack_device__);
        copy=True exports a new copy (flagged IS_COPIED).

        Raises BufferError for a dl_device the memory is not on, ValueError
        for stream 0 (ambiguous in DLPack)."""
        if self._cached and stream is not None and stream not in (-1, 0, 1, 2):
            # Cached memory is reused once this stream passes too.
            _lib.call("gfxcuda_cuda_note_stream", self._h.handle, _stream_int(stream, "__dlpack__"))
        if not copy and dl_device is None and self._pending is None and stream != 0 and not _lib._forked:
            # Nothing to order or copy (torch.from_dlpack's call): straight
            # to the C export, inline (one ctypes call and the capsule).
            e = self._exporter
            desc = self._desc
            if e is not None and e._p and desc is not None:
                versioned = 1 if max_version is not None and max_version[0] >= 1 else 0
                out = _c_void_p()
                st = _export(e._p, desc[3], versioned, _byref(out))
                if st:
                    _lib.raise_status("gfxcuda_dlpack_exporter_export", st)
                return _capsule_new(out, _NAMES[versioned], _destructor)
            return self._capsule(max_version is not None and max_version[0] >= 1)
        _lib.check_fork()
        if dl_device is not None and tuple(dl_device) != (kDLCUDA, self.device):
            raise BufferError("gfxcuda: the memory is on CUDA device %d; it cannot be exported to device %r without a copy"
                              % (self.device, tuple(dl_device)))
        if stream == 0:
            raise ValueError("gfxcuda: stream 0 is ambiguous in DLPack; pass 1 (legacy default), 2 (per-thread) or a stream handle")
        pending = self._pending
        if pending is not None and stream != -1:
            # The consumer's stream waits for the hand-off's stream.
            _lib.call("gfxcuda_cuda_stream_wait", _shared_device(self.device), int(stream or 1), int(pending or 1))
        src = self
        if copy:
            src = CudaBuffer(self.shape, self.dtype, device=self.device)
            _lib.call("gfxcuda_cuda_memcpy", self.device, src.ptr, self.ptr, self.nbytes, 2)
        versioned = max_version is not None and tuple(max_version)[0] >= 1
        if not copy:
            return self._capsule(versioned)
        t = src._tensor()
        t.flags = 2  # is-copied
        out = ctypes.c_void_p()
        _lib.call("gfxcuda_dlpack_export", src.handle, ctypes.byref(t), int(versioned), ctypes.byref(out))
        return _lib.PyCapsule_New(out, _NAMES[versioned], _lib.capsule_destructor)

    def _check_contiguous(self, what):
        """Host copies move nbytes in one piece: refuse a strided view
        whose elements are not packed in C order."""
        if self.strides is None:
            return
        info = self._tensor_info()
        if not info.contiguous and info.nbytes > 0:
            raise errors.InvalidArgumentError(
                "gfxcuda: %s of a strided buffer (strides %s for shape %s): host copies move the bytes in one "
                "piece; copy a C-contiguous buffer, or make one (CudaBuffer(shape, dtype)) and copy into it on the GPU"
                % (what, self.strides, self.shape))

    def copy_from_host(self, array):
        """Copies array, a host array (NumPy or any C-contiguous buffer)
        of exactly nbytes bytes, into the memory, and waits. Returns None.
        Raises gfxcuda.OutOfRangeError for another size,
        gfxcuda.ArgumentTypeError for something that is not a host array,
        gfxcuda.InvalidArgumentError for one that is not C-contiguous or
        for a strided (non-contiguous) buffer."""
        self._check_contiguous("copy_from_host")
        mv = _host_bytes(array, "copy_from_host")
        if len(mv) != self.nbytes:
            raise errors.OutOfRangeError("gfxcuda: %d bytes into %d" % (len(mv), self.nbytes))
        buf = (ctypes.c_char * len(mv)).from_buffer_copy(mv) if mv.readonly else (ctypes.c_char * len(mv)).from_buffer(mv)
        _lib.call("gfxcuda_cuda_memcpy", self.device, self.ptr, ctypes.addressof(buf), self.nbytes, 0)

    def copy_to_host(self, array=None):
        """Copies the memory into array, a writable, C-contiguous host
        array of nbytes bytes, and waits; array=None makes a new NumPy
        array of this shape and dtype (NumPy needed). Returns the array.
        Raises gfxcuda.OutOfRangeError for an array of another size or a
        read-only one, gfxcuda.ArgumentTypeError for something that is not
        a host array, gfxcuda.InvalidArgumentError for a strided buffer."""
        self._check_contiguous("copy_to_host")
        if array is None:
            import numpy
            array = numpy.empty(self.shape, dtype=numpy.dtype(self.typestr))
        mv = _host_bytes(array, "copy_to_host")
        if len(mv) != self.nbytes or mv.readonly:
            raise errors.OutOfRangeError("gfxcuda: need a writable host buffer of %d bytes" % self.nbytes)
        buf = (ctypes.c_char * len(mv)).from_buffer(mv)
        _lib.call("gfxcuda_cuda_memcpy", self.device, ctypes.addressof(buf), self.ptr, self.nbytes, 1)
        return array

    def release(self):
        """Drops gfxcuda's reference now; DLPack consumers keep the memory
        alive. Idempotent; returns None and raises nothing."""
        self.__dict__.pop("_gfxcuda_dlpack", None)  # the C exchange API's binding
        e, self._exporter = self._exporter, None
        if e is not None:
            e.drop()
        self._h.release()

    def __repr__(self):
        return "<gfxcuda.%s shape=%s dtype=%s cuda:%d ptr=%#x>" % (type(self).__name__, self.shape, self.typestr,
                                                                   self.device, self.ptr)


def _host_bytes(array, where):
    """The bytes of a host array (the buffer protocol) as a memoryview."""
    try:
        mv = memoryview(array)
    except TypeError:
        raise errors.ArgumentTypeError("gfxcuda: %s(array=...): array is %s; expected a host array (a NumPy array, "
                                       "bytes, bytearray); copy GPU arrays on the GPU" % (where, _describe(array))) from None
    if not mv.c_contiguous:
        raise errors.InvalidArgumentError("gfxcuda: %s(array=...): %s is not C-contiguous; pass %s" % (
            where, _describe(array), "numpy.ascontiguousarray(array)" if where == "copy_from_host" else
            "a C-contiguous array (numpy.empty(shape, dtype)), or none for a new one"))
    return mv.cast("B")


def _nbytes(shape, itemsize, where="CudaBuffer"):
    """The bytes of an array of shape (checked: ints from 0) and itemsize."""
    return _check.shape(shape, where, itemsize)[1]


class CudaBuffer(_Array):
    """CUDA memory with a shape and dtype, as CV-CUDA's CudaBuffer: owning
    (CudaBuffer(shape, dtype)) or wrapping a foreign pointer without owning
    it (CudaBuffer.from_cuda(ptr, shape, dtype)).

    CudaBuffer(shape, dtype="float32", device=0) allocates new memory
    (cuMemAlloc) on CUDA device `device`: shape is an int or a tuple of ints,
    dtype what numpy.dtype takes ("float32", "uint8", numpy.float16). ``owned``
    says whether gfxcuda frees the memory. Raises gfxcuda.ArgumentTypeError for
    a shape or dtype that is not one, gfxcuda.InvalidArgumentError for a
    negative dimension, gfxcuda.NoCUDAError without a usable CUDA driver,
    gfxcuda.NoDeviceError for a device ordinal there is not."""

    def __init__(self, shape, dtype="float32", device=0):
        _, _, itemsize = _dtype_of(dtype)
        shape, n = _check.shape(shape, "CudaBuffer", itemsize)
        device = _check.device(device, "CudaBuffer")
        h = _lib.new_handle("gfxcuda_cuda_alloc", device, max(n, 1))
        self._setup(h, _lib.info(h).device_ptr, shape, dtype, device)
        self.owned = True

    @classmethod
    def _from_cache(cls, shape, dtype, device, stream, nbytes):
        """A CudaBuffer of nbytes bytes from the device's cache of per-frame
        memory (conversions' outputs): on release it goes back to the cache
        and is reused once the work queued on stream (an int: where it is
        written), on DLPack consumers' streams (__dlpack__ names them) and on
        the legacy default stream has finished. shape, dtype and device are
        checked by the caller, nbytes computed by the library with shape
        (gfxcuda_gl_tensor_shape)."""
        self = cls.__new__(cls)
        h = _lib.new_handle("gfxcuda_cuda_alloc_cached", device, max(nbytes, 1), stream)
        self._setup(h, _lib.info(h).device_ptr, shape, dtype, device)
        self.owned = True
        self._cached = True
        return self

    @classmethod
    def _from_handle_cached(cls, h, shape, dtype, device, stream):
        """A CudaBuffer of the library's handle h of pooled memory (a
        GL-written tensor, gfxcuda_gl_write_tensors) that it now owns: like
        _from_cache's, released it goes back to its pool, reused once
        stream, DLPack consumers' streams and the legacy default stream have
        passed it."""
        self = cls.__new__(cls)
        self._setup(h, _lib.info(h).device_ptr, shape, dtype, device)
        self.owned = True
        self._cached = True
        if stream:
            _lib.call("gfxcuda_cuda_note_stream", h, stream)
        return self

    @classmethod
    def from_cuda(cls, ptr, shape, dtype="float32", device=0, strides=None, owner=None):
        """Returns a CudaBuffer over the CUDA memory at ptr (a device
        pointer, an int) of CUDA device `device`, without owning it: owner
        (any object, kept referenced by the buffer) or the caller keeps the
        memory alive. shape and dtype as CudaBuffer's; strides (bytes per
        dimension, multiples of the itemsize; None: C-contiguous)
        describe a strided view. Raises gfxcuda.ArgumentTypeError for a
        ptr, shape or strides of the wrong type,
        gfxcuda.InvalidArgumentError for strides that do not match the
        shape or the itemsize, gfxcuda.ArgumentOverflowError for a shape
        past 2**64 - 1 bytes or strides that reach past 2**62 (the most
        the library describes)."""
        self = cls.__new__(cls)
        code, bits, itemsize = _dtype_of(dtype)
        ptr = _check.integer(ptr, "CudaBuffer.from_cuda", "ptr", 0, _check.U64, what="a device pointer")
        shape, n = _check.shape(shape, "CudaBuffer.from_cuda", itemsize)
        device = _check.device(device, "CudaBuffer.from_cuda")
        if strides is not None:
            try:
                strides = tuple(_check.integer(st, "CudaBuffer.from_cuda", "strides", -_check.I64, _check.I64)
                                for st in strides)
            except TypeError:
                raise errors.ArgumentTypeError("gfxcuda: CudaBuffer.from_cuda(strides=%r): expected a tuple of ints "
                                               "(bytes) or None" % (strides,)) from None
            if len(strides) != len(shape):
                raise errors.InvalidArgumentError("gfxcuda: CudaBuffer.from_cuda(strides=%r): %d strides for %d "
                                                  "dimensions" % (strides, len(strides), len(shape)))
            if any(st % itemsize for st in strides):
                raise errors.InvalidArgumentError("gfxcuda: strides %r are in bytes and must be multiples of the "
                                                  "itemsize %d" % (tuple(strides), itemsize))
            if n:
                # The bytes from ptr the elements reach, as the library's
                # checks of exports compute them.
                try:
                    n = _lib.info_of(shape, code, bits, [st // itemsize for st in strides]).hi
                except errors.InvalidArgumentError as e:
                    raise errors.ArgumentOverflowError("gfxcuda: CudaBuffer.from_cuda(shape=%r, strides=%r): the "
                                                       "elements reach too far (%s)" % (shape, strides, e)) from None
        h = _lib.new_handle("gfxcuda_cuda_wrap", device, ptr, max(n, 1))
        self._setup(h, ptr, shape, dtype, device, strides=strides, owner=owner)
        self.owned = False
        return self

    @classmethod
    def from_numpy(cls, array, device=0):
        """Returns a new CudaBuffer on CUDA device `device` holding a copy
        of array (a NumPy array, or what numpy.ascontiguousarray takes),
        with its shape and dtype. NumPy needed. Raises as CudaBuffer()."""
        import numpy
        a = numpy.ascontiguousarray(array)
        b = cls(a.shape, a.dtype, device=device)
        b.copy_from_host(a)
        return b


class SharedBuffer(_Array):
    """A Vulkan buffer CUDA sees: torch.from_dlpack(buf), cupy.asarray(buf)
    and numba.cuda.as_cuda_array(buf) use its memory without copies.

    SharedBuffer(shape, dtype="float32", device=0): a new buffer of that shape
    (an int or a tuple of ints) and dtype (what numpy.dtype takes) on CUDA
    device `device` and the Vulkan device of the same GPU. compute_view() is
    the same memory as a compushady Buffer; to_cuda() and gfxcuda.after_cuda()
    order Vulkan's and CUDA's work on it. Raises gfxcuda.ArgumentTypeError for
    a shape or dtype that is not one, gfxcuda.InvalidArgumentError for a
    negative dimension, gfxcuda.NoCUDAError without a usable CUDA driver,
    gfxcuda.NoDeviceError for a device ordinal there is not, or when no Vulkan
    device shares the GPU."""

    def __init__(self, shape, dtype="float32", device=0):
        _, _, itemsize = _dtype_of(dtype)
        shape, n = _check.shape(shape, "SharedBuffer", itemsize)
        sd = _shared_device(device, "SharedBuffer")
        h = _lib.new_handle("gfxcuda_shared_buffer_new", sd, max(n, 1))
        self._setup(h, _lib.info(h).device_ptr, shape, dtype, device)

    @classmethod
    def _from_handle(cls, h, shape, dtype, device, strides=None):
        self = cls.__new__(cls)
        i = _lib.info(h)
        _, _, itemsize = _dtype_of(dtype)
        if _nbytes(shape, itemsize) > i.size:
            _lib.call("gfxcuda_release", h)
            raise errors.OutOfRangeError("gfxcuda: shape %r of %s needs %d bytes; the buffer has %d"
                                         % (tuple(shape), dtype, _nbytes(shape, itemsize), i.size))
        self._setup(h, i.device_ptr, shape, dtype, device, strides=strides)
        return self

    @property
    def ipc_handle(self):
        """A token (bytes) another process of this user opens with
        gfxcuda.open_ipc_buffer; valid while this buffer lives. Raises
        gfxcuda.BadHandleError after release()."""
        return _lib.take_bytes("gfxcuda_share_token", self.handle)

    def share_options(self, dir=None, rendezvous=None, allow_uids=(), allow_gids=()):
        """Sets how ipc_handle's token can be opened from other containers,
        before ipc_handle is first read: dir, rendezvous, allow_uids and
        allow_gids as gfxcuda.share_options takes them, for this buffer
        only. Returns the buffer. Raises as gfxcuda.share_options."""
        _lib.call("gfxcuda_share_options", self.handle, *_lib.share_args(dir, rendezvous, allow_uids, allow_gids))
        return self

    def to_cuda(self, stream=None):
        """Hands the buffer from Vulkan to CUDA on stream (None: the legacy
        default stream; an int cudaStream_t or a torch/CuPy/Numba stream);
        see gfxcuda.to_cuda. Returns the Handoff (``with buf.to_cuda(s):``).
        Raises gfxcuda.ArgumentTypeError for a stream that is not one."""
        return to_cuda([self], stream)

    def compute_view(self):
        """Returns the buffer as a compushady Buffer of
        gfxcuda.compute_device(device) (the same memory), for Compute
        pipelines and Vulkan copies. Raises gfxcuda.BadHandleError after
        release()."""
        from . import _compute
        dev = compute_device(self.device)
        h = _lib.new_handle("gfxcuda_shared_compute_view", dev.handle, self.handle)
        return _compute._view(_compute.Buffer, h, dev)

    def export_fd(self):
        """Returns a new OPAQUE_FD of the buffer's memory (the caller
        closes it) and what an importer needs: (fd, size, allocation_size,
        dedicated). Raises gfxcuda.BadHandleError after release(),
        gfxcuda.UnsupportedError where the memory cannot be exported."""
        fd, alloc, ded, _ = _export_fd(self.handle)
        return fd, _lib.info(self.handle).size, alloc, ded

    @classmethod
    def import_fd(cls, fd, shape, dtype="float32", allocation_size=0, dedicated=True, device=0):
        """Returns a SharedBuffer over a renderer's exported Vulkan buffer
        memory: fd, an OPAQUE_FD (this call takes it, also on failure);
        allocation_size, the exporter's allocation size, and dedicated,
        whether it is a dedicated allocation, as export_fd reports them;
        shape and dtype as SharedBuffer's;
        device, the CUDA ordinal of the GPU it is on. Raises
        gfxcuda.ArgumentTypeError for an argument of the wrong type,
        gfxcuda.OutOfRangeError when shape and dtype need more bytes than the
        memory has, gfxcuda.NoCUDAError without a usable CUDA driver,
        gfxcuda.NoDeviceError for a device ordinal there is not."""
        _, _, itemsize = _dtype_of(dtype)
        shape, n = _check.shape(shape, "SharedBuffer.import_fd", itemsize)
        fd = _check.fd(fd, "SharedBuffer.import_fd")
        allocation_size = _check.u64(allocation_size, "SharedBuffer.import_fd", "allocation_size")
        h = _lib.new_handle("gfxcuda_shared_buffer_import_fd", _shared_device(device, "SharedBuffer.import_fd"), fd,
                            max(n, 1), allocation_size, int(bool(dedicated)))
        return cls._from_handle(h, shape, dtype, device)


def _array_from_managed(addr):
    """A CudaBuffer over another library's DLManagedTensorVersioned at addr,
    taken over (its deleter runs when the buffer and what was exported from
    it are gone): the C exchange API's managed_tensor_to_py_object_no_sync."""
    desc, h = _lib.Tensor(), ctypes.c_uint64()
    # From this call on the library owns the tensor (its deleter ran if it failed).
    _lib.call("gfxcuda_dlpack_import", addr, 1, ctypes.byref(h), ctypes.byref(desc))
    keep = _lib.Handle(h.value)
    if desc.device_type != kDLCUDA:
        raise BufferError("gfxcuda: arrays made by the DLPack exchange API are CUDA memory; this tensor is on DLPack "
                          "device %d" % desc.device_type)
    cai = _lib.array_interface(h.value, ctypes.byref(desc), 0)
    return CudaBuffer.from_cuda(cai["data"][0], cai["shape"], cai["typestr"], device=desc.device_id,
                                strides=cai["strides"], owner=keep)


def _exchange_api():
    """The "dlpack_exchange_api" capsule over the library's static
    DLPackExchangeAPI (DLPack 1.3), or None when the library cannot offer
    it here (no CPython C API in the process) or GFXCUDA_DLPACK_C_EXCHANGE=0
    turns it off: consumers then use __dlpack__."""
    if os.environ.get("GFXCUDA_DLPACK_C_EXCHANGE", "1") == "0" or _lib._forked:
        return None
    p = _c_void_p()
    if _lib.lib.gfxcuda_dlpack_exchange_api(_array_from_managed, _byref(p)) != 0 or not p.value:
        return None
    return _capsule_new(p, _EXCHANGE_NAME, None)


# DLPack 1.3's C exchange API on every array type with __dlpack__ (the
# class attribute consumers look up on type(obj)); Slot and Frame in _ring.
DLPACK_EXCHANGE_API = _exchange_api()
for _cls in (_Array, CudaBuffer, SharedBuffer):
    _cls.__dlpack_c_exchange_api__ = DLPACK_EXCHANGE_API
del _cls


def open_ipc_buffer(handle, shape, dtype="float32", device=0):
    """Returns a SharedBuffer over the buffer another process of this user
    shared: handle is its ipc_handle token (bytes or str); shape and dtype (as
    SharedBuffer's) describe the array; device is the CUDA ordinal to open it
    on. Raises gfxcuda.ArgumentTypeError for a handle that is not a token,
    gfxcuda.InvalidArgumentError for a token that does not open (its buffer
    released, another user's without share_options), gfxcuda.OutOfRangeError
    when shape and dtype need more bytes than the buffer has,
    gfxcuda.NoCUDAError without a usable CUDA driver, gfxcuda.NoDeviceError for
    a device ordinal there is not."""
    handle = _token(handle, "open_ipc_buffer")
    _, _, itemsize = _dtype_of(dtype)
    shape, _ = _check.shape(shape, "open_ipc_buffer", itemsize)
    h = _lib.new_handle("gfxcuda_shared_buffer_open_ipc", _shared_device(device, "open_ipc_buffer"), handle, len(handle))
    return SharedBuffer._from_handle(h, shape, dtype, device)


def _token(handle, where="open_ipc_texture"):
    if isinstance(handle, str):
        return handle.encode()
    if isinstance(handle, (bytes, bytearray, memoryview)):
        return bytes(handle)
    raise errors.ArgumentTypeError("gfxcuda: %s(handle=%r): handle is %s; expected the token (bytes or str) the sharing "
                                   "process's ipc_handle gave" % (where, handle, _check.kind(handle)))


def _export_fd(h):
    fd, alloc, ded, usage = ctypes.c_int(), ctypes.c_uint64(), ctypes.c_int(), ctypes.c_uint32()
    _lib.call("gfxcuda_shared_export_fd", h, ctypes.byref(fd), ctypes.byref(alloc), ctypes.byref(ded), ctypes.byref(usage))
    return fd.value, alloc.value, bool(ded.value), usage.value


class Handoff:
    """Shared buffers and textures handed from Vulkan to CUDA on a stream
    (gfxcuda.to_cuda): CUDA work queued on the stream after it sees what
    Vulkan did before; to_vulkan() (or leaving the with block) hands them
    back once the stream's work so far has finished. Nothing blocks the
    host. Made by gfxcuda.to_cuda(resources, stream) (Handoff(resources,
    stream) is the same); ``resources`` and ``stream`` (as an int) are
    kept. Raises as to_cuda."""

    def __init__(self, resources, stream):
        self.resources = _shared_resources(resources, "to_cuda")
        self.stream = _stream_int(stream, "to_cuda")
        hs = (ctypes.c_uint64 * len(self.resources))(*[r.handle for r in self.resources])
        self._h = _lib.Handle(_lib.new_handle("gfxcuda_to_cuda", hs, len(self.resources), self.stream))
        for r in self.resources:
            r._pending = self.stream
            r._handoff = self

    def to_vulkan(self):
        """Ends the hand-off: Vulkan work submitted from now on waits (on
        the GPU) for the stream's work queued so far. Idempotent; returns
        None. Raises gfxcuda.DeviceFailedError when the device fails."""
        if not self._h._h:
            return
        try:
            _lib.call("gfxcuda_to_vulkan", self._h.handle)
        finally:
            for r in self.resources:
                if getattr(r, "_handoff", None) is self:
                    r._pending = None
                    r._handoff = None
            self._h.release()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.to_vulkan()
        return False

    def __repr__(self):
        state = "with CUDA" if self._h._h else "back with Vulkan"
        return "<gfxcuda.Handoff %d resource(s) stream=%#x %s>" % (len(self.resources), self.stream, state)


def to_cuda(resources, stream=None):
    """Hands shared buffers and textures (of one CUDA device) to CUDA on
    stream (an int cudaStream_t, a torch/CuPy stream, None: the legacy
    default stream): CUDA work queued on stream after the call sees what
    Vulkan did before it. resources is a list of SharedBuffers and
    Textures. Returns a Handoff: use as ``with gfxcuda.to_cuda([buf, tex],
    s):`` or call .to_vulkan() on the result. Raises
    gfxcuda.ArgumentTypeError for resources that are not a list of shared
    buffers and textures, or a stream that is not one."""
    return Handoff(resources, stream)


def after_cuda(resources, stream=None):
    """Orders the Vulkan work on shared buffers and textures (of one CUDA
    device) submitted from now on after the CUDA work queued on stream (an
    int cudaStream_t, a torch/CuPy stream, None: the legacy default
    stream) so far, which wrote them: the GPU waits, the host does not.
    It is what ending a hand-off (to_vulkan) does, for memory CUDA wrote
    without one: a tensor rewritten in place after gfxcuda.from_torch,
    a buffer filled by torch.from_dlpack(buf).copy_(...). resources is a
    list of SharedBuffers and Textures. Returns None. Raises
    gfxcuda.ArgumentTypeError for resources that are not a list of shared
    buffers and textures, or a stream that is not one."""
    rs = _shared_resources(resources, "after_cuda")
    hs = (ctypes.c_uint64 * len(rs))(*[r.handle for r in rs])
    _lib.call("gfxcuda_after_cuda", hs, len(rs), _stream_int(stream, "after_cuda"))


def _shared_resources(resources, where):
    """resources as a list of shared buffers and textures, each checked."""
    if isinstance(resources, (SharedBuffer, Texture)):
        raise errors.ArgumentTypeError("gfxcuda: %s(resources=...): resources is one %s; pass a list: %s([%s])"
                                       % (where, type(resources).__name__, where, type(resources).__name__.lower()))
    try:
        rs = list(resources)
    except TypeError:
        raise errors.ArgumentTypeError("gfxcuda: %s(resources=%r): resources is %s; expected a list of SharedBuffers "
                                       "and Textures" % (where, resources, _check.kind(resources))) from None
    for i, r in enumerate(rs):
        if not isinstance(r, (SharedBuffer, Texture)):
            raise errors.ArgumentTypeError("gfxcuda: %s(resources=[...]): item %d is %s; expected a gfxcuda SharedBuffer "
                                           "or Texture" % (where, i, _check.kind(r)))
    return rs


class Semaphore:
    """A timeline semaphore a renderer exported, imported into CUDA: wait()
    and signal() queue on a CUDA stream (no host wait). Made by
    Semaphore.import_fd (Semaphore(h, device) wraps a library handle h of
    CUDA device `device`, kept as ``device``, and raises nothing)."""

    def __init__(self, h, device):
        self._h = _lib.Handle(h)
        self.device = device

    @classmethod
    def import_fd(cls, fd, device=0, timeline=True):
        """Returns a Semaphore over a Vulkan semaphore's OPAQUE_FD fd (this
        call takes it), imported into CUDA device `device`; timeline=False for
        a binary semaphore. Raises gfxcuda.ArgumentTypeError for an fd that is
        not an int, gfxcuda.InvalidArgumentError for one CUDA cannot import,
        gfxcuda.NoCUDAError without a usable CUDA driver, gfxcuda.NoDeviceError
        for a device ordinal there is not."""
        fd = _check.fd(fd, "Semaphore.import_fd")
        return cls(_lib.new_handle("gfxcuda_cuda_semaphore_import_fd", _shared_device(device, "Semaphore.import_fd"), fd,
                                   int(bool(timeline))), device)

    def wait(self, value, stream=None):
        """Makes later work on stream (None: the legacy default stream)
        wait until the semaphore reaches value (an int from 0). Returns
        None at once (the host does not wait). Raises
        gfxcuda.ArgumentTypeError for a value or stream of the wrong type,
        gfxcuda.BadHandleError after release()."""
        _lib.call("gfxcuda_cuda_semaphore_wait", self._h.handle, _check.u64(value, "Semaphore.wait", "value"),
                  _stream_int(stream, "Semaphore.wait"))

    def signal(self, value, stream=None):
        """Sets the semaphore to value (an int from 0) once the work queued
        on stream (None: the legacy default stream) so far is done.
        Returns None at once. Raises as wait()."""
        _lib.call("gfxcuda_cuda_semaphore_signal", self._h.handle, _check.u64(value, "Semaphore.signal", "value"),
                  _stream_int(stream, "Semaphore.signal"))

    def release(self):
        """Drops the semaphore now. Idempotent; returns None and raises
        nothing."""
        self._h.release()

    def __repr__(self):
        return "<gfxcuda.Semaphore cuda:%s%s>" % (self.device, "" if self._h._h else " released")


class VulkanSemaphore:
    """A Vulkan timeline semaphore (a renderer's side, e.g. in tests):
    host signal/wait, and export_fd for CUDA to import.

    VulkanSemaphore(device=None, initial=0, exportable=True): device is a
    Device, or the CUDA ordinal whose GPU's Vulkan device makes it (None:
    0); initial its first value; exportable=False when export_fd is not
    needed. Raises gfxcuda.ArgumentTypeError for a device that is none of
    those or an initial value that is not an int from 0,
    gfxcuda.UnsupportedError for exportable=True on a device without
    VK_KHR_external_semaphore_fd (lavapipe)."""

    def __init__(self, device=None, initial=0, exportable=True):
        initial = _check.u64(initial, "VulkanSemaphore", "initial")
        if device is not None and not isinstance(device, int) and not hasattr(device, "handle"):
            raise errors.ArgumentTypeError("gfxcuda: VulkanSemaphore(device=%r): device is %s; expected a gfxcuda Device, "
                                           "a CUDA ordinal or None" % (device, _check.kind(device)))
        dev = device.handle if device is not None and not isinstance(device, int) else \
            _shared_device(device or 0, "VulkanSemaphore")
        self._h = _lib.Handle(_lib.new_handle("gfxcuda_vk_semaphore_new", dev, initial, int(bool(exportable))))

    def signal(self, value):
        """Sets the semaphore to value (an int from 0, above its value now)
        from the host. Returns None. Raises gfxcuda.InvalidArgumentError
        for a value not above the semaphore's (a timeline only goes up),
        gfxcuda.ArgumentTypeError for a value that is not an int,
        gfxcuda.BadHandleError after release()."""
        _lib.call("gfxcuda_vk_semaphore_signal", self._h.handle, _check.u64(value, "VulkanSemaphore.signal", "value"))

    def wait(self, value, timeout=None):
        """Waits on the host until the semaphore reaches value (timeout
        seconds; None: no limit). Returns None. Raises
        gfxcuda.WaitTimeoutError (a TimeoutError) when the time runs out,
        gfxcuda.ArgumentTypeError for a value or timeout of the wrong
        type."""
        ms = _check.timeout_ms(timeout, "VulkanSemaphore.wait")
        _lib.call("gfxcuda_vk_semaphore_wait", self._h.handle, _check.u64(value, "VulkanSemaphore.wait", "value"), ms)

    @property
    def value(self):
        """The semaphore's value now (an int). Raises
        gfxcuda.BadHandleError after release()."""
        v = ctypes.c_uint64()
        _lib.call("gfxcuda_vk_semaphore_value", self._h.handle, ctypes.byref(v))
        return v.value

    def export_fd(self):
        """Returns a new OPAQUE_FD of the semaphore (the caller closes it),
        for Semaphore.import_fd. Raises gfxcuda.UnsupportedError for a
        semaphore made with exportable=False."""
        return _export_fd(self._h.handle)[0]

    def release(self):
        """Drops the semaphore now. Idempotent; returns None and raises
        nothing."""
        self._h.release()

    def __repr__(self):
        if not self._h._h:
            return "<gfxcuda.VulkanSemaphore released>"
        return "<gfxcuda.VulkanSemaphore value=%d>" % self.value


_shared = {}
_shared_lock = threading.Lock()
_compute_devs = {}


def compute_device(device=0):
    """Returns the compushady-style compute Device on the Vulkan side of CUDA
    device `device` (an ordinal): Compute pipelines over the compute views of
    shared textures and buffers (tex.compute_view(), buf.compute_view()) run
    there, ordered after what CUDA handed back. The same object on every call.
    Raises gfxcuda.NoCUDAError without a usable CUDA driver,
    gfxcuda.NoDeviceError for a device ordinal there is not, or when no Vulkan
    device shares the GPU."""
    from . import _compute
    sd = _shared_device(device)
    with _shared_lock:
        d = _compute_devs.get(device)
        if d is None:
            d = _compute_devs[device] = _compute._ViewDevice(_lib.new_handle("gfxcuda_shared_compute_device", sd), sd)
        return d


def _shared_device(ordinal, where="gfxcuda"):
    if ordinal.__class__ is not int or not 0 <= ordinal <= 0x7FFFFFFF:
        ordinal = _check.device(ordinal, where)
    with _shared_lock:
        d = _shared.get(ordinal)
        if d is None:
            d = _shared[ordinal] = _lib.Handle(_lib.new_handle("gfxcuda_shared_open", ordinal))
        return d.handle


_DL_DEVICES = {
    1: ("kDLCPU", "CPU memory"), 2: ("kDLCUDA", "CUDA memory"), 3: ("kDLCUDAHost", "CUDA pinned host memory"),
    4: ("kDLOpenCL", "OpenCL memory"), 7: ("kDLVulkan", "Vulkan memory"), 8: ("kDLMetal", "Metal memory"),
    9: ("kDLVPI", "VPI memory"), 10: ("kDLROCM", "ROCm (AMD GPU) memory"), 11: ("kDLROCMHost", "ROCm pinned host memory"),
    12: ("kDLExtDev", "an extension device's memory"), 13: ("kDLCUDAManaged", "CUDA managed memory"),
    14: ("kDLOneAPI", "oneAPI memory"), 15: ("kDLWebGPU", "WebGPU memory"), 16: ("kDLHexagon", "Hexagon memory"),
    17: ("kDLMAIA", "MAIA memory"),
}


def _describe(obj):
    """obj in words, without its values: "a numpy.ndarray of shape (2, 2, 4)
    and dtype float32" (never the repr: an array's prints its elements)."""
    t = type(obj)
    name = t.__qualname__ if t.__module__ in ("builtins", None) else "%s.%s" % (t.__module__, t.__qualname__)
    s = ("an " if name[:1].lower() in "aeiou" else "a ") + name
    try:
        shape, dtype = getattr(obj, "shape", None), getattr(obj, "dtype", None)
        if isinstance(shape, tuple) and all(isinstance(d, int) for d in shape):
            s += " of shape %s" % (tuple(shape),)
            if dtype is not None and len(str(dtype)) < 40:
                s += " and dtype %s" % (dtype,)
    except Exception:  # a hostile object's attributes: its type is enough
        pass
    return s


def _bad(where, obj, why, cause=None):
    """The InvalidArgumentError of a CUDA array argument that is not one."""
    e = errors.InvalidArgumentError("gfxcuda: %s: %s %s" % (where, _describe(obj), why))
    e.__cause__ = cause
    return e


def _not_cuda(where, obj, device_type):
    code, words = _DL_DEVICES.get(device_type, ("device type %s" % (device_type,), "memory of DLPack device type %s"
                                                  % (device_type,)))
    return _bad(where, obj, "in %s (DLPack device %s); %s needs a CUDA array: move it first, e.g. "
                "torch.as_tensor(a, device='cuda') or cupy.asarray(a)" % (words, code, where))


def _layout(where, obj, ptr, shape, strides, itemsize, source):
    """Checks that an array's description holds together: a pointer and
    the bytes its elements span inside the address space user memory has
    (below 2**63; an absurd shape or stride of a hostile producer is
    refused, not handed to CUDA). The span is the library's (Go's package
    dlpack): the array seen as bytes (strides, in bytes, need not be whole
    elements), its last element's bytes added."""
    if strides is None:
        desc = (shape, None, 8 * itemsize)
    else:
        desc = (shape, strides, 8)
    try:
        info = _lib.info_of(desc[0], 1, desc[2], desc[1])
    except errors.InvalidArgumentError as e:
        raise _bad(where, obj, "spans more bytes than any memory has, outside the address space: shape %s, strides %s "
                   "(its %s; %s)" % (tuple(shape), strides, source, e)) from None
    if info.elements == 0:
        return
    if not ptr:
        raise _bad(where, obj, "has %d elements at a null pointer (its %s)" % (info.elements, source))
    lo, hi = info.lo, info.hi + (0 if strides is None else itemsize - 1)
    if ptr + lo < 0 or ptr + hi > _check.I64 + 1:
        raise _bad(where, obj, "spans bytes [%d, %d) from %#x, outside the address space: shape %s, strides %s "
                   "(its %s)" % (lo, hi, ptr, tuple(shape), strides, source))


def _ints(seq, lo, hi):
    """seq (a tuple or list) as a tuple of ints from lo to hi; None when
    it is not one (or is None)."""
    if not isinstance(seq, (tuple, list)):
        return None
    out = []
    for v in seq:
        if v.__class__ is not int:
            if isinstance(v, bool) or not hasattr(type(v), "__index__"):
                return None
            v = v.__index__()
        if not lo <= v <= hi:
            return None
        out.append(v)
    return tuple(out)


def _cai_of(obj, cai, where):
    """_array_of for __cuda_array_interface__ (version 3), each key
    checked: the dict is the producer's, and anything may be in it."""
    src = "__cuda_array_interface__"
    if not isinstance(cai, dict):
        raise _bad(where, obj, "has a %s that is %s, not a dict" % (src, _check.kind(cai)))
    for key in ("data", "shape", "typestr"):
        if key not in cai:
            raise _bad(where, obj, "has a %s without %r" % (src, key))
    data, shape, typestr, strides = cai["data"], cai["shape"], cai["typestr"], cai.get("strides")
    ptr = _ints(data[:1] if isinstance(data, (tuple, list)) and len(data) == 2 else None, 0, _check.U64)
    if ptr is None:
        raise _bad(where, obj, "has a %s whose 'data' is %r; expected (pointer, read_only), the pointer an int"
                   % (src, data))
    shape_ = _ints(shape, 0, _check.I64)
    if shape_ is None or len(shape_) > 32:
        raise _bad(where, obj, "has a %s whose 'shape' is %r; expected a tuple of at most 32 ints from 0" % (src, shape))
    strides_ = _ints(strides, -_check.I64, _check.I64)
    if strides is not None and (strides_ is None or len(strides_) != len(shape_)):
        raise _bad(where, obj, "has a %s whose 'strides' is %r; expected None or %d ints (bytes)"
                   % (src, strides, len(shape_)))
    if cai.get("mask") is not None:
        raise _bad(where, obj, "is a masked array (its %s has a 'mask'); gfxcuda takes arrays without masks" % src)
    if not isinstance(typestr, str):
        raise _bad(where, obj, "has a %s whose 'typestr' is %s; expected a NumPy type string such as '<f4'"
                   % (src, _check.kind(typestr)))
    try:
        _, _, itemsize = _dtype_of(typestr)
    except (errors.GfxcudaError, TypeError, ValueError) as e:
        raise _bad(where, obj, "has a %s whose 'typestr' %r is not an element type gfxcuda knows (%s)"
                   % (src, typestr, e)) from None
    ptr, shape, strides = ptr[0], shape_, strides_
    _layout(where, obj, ptr, shape, strides, itemsize, src)
    dev = 0
    try:
        i = getattr(getattr(obj, "device", None), "index", None)
        if i.__class__ is int and 0 <= i <= _check.I32:
            dev = i
    except Exception:
        pass
    return ptr, shape, typestr, strides, dev, obj


def _capsule_of(obj, where):
    """The DLPack capsule of obj.__dlpack__() (versioned when the producer
    can), refused before anything is consumed where obj says, through
    __dlpack_device__, that it is not in CUDA memory."""
    try:
        device = getattr(obj, "__dlpack_device__", None)
        if device is not None:
            device = device()
    except Exception as e:
        raise _bad(where, obj, "raised %s in __dlpack_device__(): %s" % (type(e).__name__, e), e) from e
    if device is not None:
        if not isinstance(device, tuple) or len(device) != 2 or not all(isinstance(v, int) for v in device):
            raise _bad(where, obj, "returned %r from __dlpack_device__(); expected (device_type, device_id)" % (device,))
        if int(device[0]) != kDLCUDA:
            raise _not_cuda(where, obj, int(device[0]))
    try:
        try:
            cap = obj.__dlpack__(max_version=(1, 0), stream=1)
        except TypeError:  # a producer of DLPack before 1.0: no max_version
            cap = obj.__dlpack__()
    except Exception as e:
        raise _bad(where, obj, "raised %s in __dlpack__(): %s" % (type(e).__name__, e), e) from e
    if cap.__class__ is not _Capsule:
        raise _bad(where, obj, "returned %s from __dlpack__(), not a DLPack capsule" % _check.kind(cap))
    if _lib.PyCapsule_IsValid(cap, _NAMES[1]):
        return cap, 1
    if _lib.PyCapsule_IsValid(cap, _NAMES[0]):
        return cap, 0
    name = _capsule_name(cap)
    if name in _USED_NAMES:
        raise _bad(where, obj, "returned a DLPack capsule that was consumed already (named %r); ask it for a new one"
                   % name.decode())
    raise _bad(where, obj, "returned a capsule named %r from __dlpack__(); a DLPack capsule is named 'dltensor' or "
               "'dltensor_versioned'" % (name.decode("utf-8", "replace") if name is not None else None))


def _array_of(obj, where="gfxcuda.texture"):
    """(ptr, shape, typestr, strides, device, keepalive) of a CUDA array
    object (__cuda_array_interface__ or __dlpack__). Everything the object
    gives is checked before use (where names the call for messages): one
    InvalidArgumentError for what is not a CUDA array, never a crash."""
    try:
        cai = getattr(obj, "__cuda_array_interface__", None)
    except Exception as e:  # a property that raises: a host tensor's, or a hostile object's
        cai, cai_error = None, e
    else:
        cai_error = None
    if cai is not None:
        return _cai_of(obj, cai, where)
    try:
        has_dlpack = hasattr(obj, "__dlpack__")
    except Exception:
        has_dlpack = False
    if not has_dlpack:
        if cai_error is not None:
            raise _bad(where, obj, "raised %s reading __cuda_array_interface__: %s" % (type(cai_error).__name__,
                                                                                    cai_error), cai_error)
        raise errors.ArgumentTypeError(
            "gfxcuda: %s: %s is not a CUDA array (it has no __cuda_array_interface__ or __dlpack__); pass a torch, "
            "CuPy or Numba CUDA array" % (where, _describe(obj)))
    cap, versioned = _capsule_of(obj, where)
    p = _lib.PyCapsule_GetPointer(cap, _NAMES[versioned])
    # Consumed from here on (DLPack's rule: the consumer renames the
    # capsule, and the producer's destructor leaves it alone); the import
    # owns the tensor, and calls its deleter when it fails.
    _lib.PyCapsule_SetName(cap, _USED_NAMES[versioned])
    desc = _lib.Tensor()
    h = ctypes.c_uint64()
    try:
        _lib.call("gfxcuda_dlpack_import", p, versioned, ctypes.byref(h), ctypes.byref(desc))
    except errors.GfxcudaError as e:
        raise _bad(where, obj, "gave a DLPack tensor gfxcuda cannot read: %s" % e) from None
    keep = _lib.Handle(h.value)
    try:
        if desc.device_type != kDLCUDA:
            raise _not_cuda(where, obj, desc.device_type)
        try:
            cai = _lib.array_interface(h.value, ctypes.byref(desc), 0)
        except errors.GfxcudaError as e:
            raise _bad(where, obj, "gave a DLPack tensor gfxcuda cannot read: %s" % e) from None
        _, _, itemsize = _dtype_of(cai["typestr"])
        _layout(where, obj, cai["data"][0], cai["shape"], cai["strides"], itemsize, "DLPack tensor")
    except BaseException:
        keep.release()  # the producer's deleter runs now, not when the traceback goes
        raise
    return cai["data"][0], cai["shape"], cai["typestr"], cai["strides"], desc.device_id, keep


def _pointer(obj, need, where="Texture.copy_to"):
    """A device pointer from an int or a CUDA array with at least need
    bytes."""
    if isinstance(obj, int):
        obj = _check.integer(obj, where, "dst" if where.endswith("to") else "src", 1, _check.U64,
                             what="a device pointer (an int) or a CUDA array")
        return obj, 0, None
    torch = sys.modules.get("torch")
    if torch is not None and isinstance(obj, torch.Tensor):
        # torch's __cuda_array_interface__ builds a dict (and refuses
        # tensors that require grad): read the tensor directly.
        if not obj.is_cuda:
            raise _not_cuda(where, obj, kDLCPU if obj.device.type == "cpu" else obj.device.type)
        es = obj.element_size()
        n = obj.numel() * es
        if n < need:
            raise errors.OutOfRangeError("gfxcuda: %s: the array has %d bytes; the texture needs %d" % (where, n, need))
        pitch = 0 if obj.dim() < 2 or obj.is_contiguous() else obj.stride(0) * es
        return obj.data_ptr(), pitch, obj
    ptr, shape, typestr, strides, _, keep = _array_of(obj, where)
    code, bits, _ = _dtype_of(typestr)
    n = _lib.info_of(shape, code, bits).nbytes
    if n < need:
        raise errors.OutOfRangeError("gfxcuda: %s: the array has %d bytes; the texture needs %d" % (where, n, need))
    pitch = 0
    if strides is not None:
        # Rows may be padded (pitch); texels within a row must be packed.
        pitch = strides[0]
        if pitch < 0:
            raise _bad(where, obj, "has rows in reverse order (strides %s); copy it to a C-contiguous array first"
                       % (tuple(strides),))
    return ptr, pitch, keep


class Texture:
    """A 2D texture shared between Vulkan and CUDA (Gfx2Cuda's texture).
    Made by gfxcuda.texture(), gfxcuda.open_ipc_texture() or
    Texture.import_fd() (Texture(handle, device) wraps a library handle
    on CUDA device `device`, and raises gfxcuda.BadHandleError for a handle
    that is not live).

    Attributes: device (the CUDA ordinal), width, height and layers (array
    slices), format (a gfxcuda.formats value), row_pitch (bytes per row
    of the texture's memory) and nbytes (its size)."""

    def __init__(self, handle, device):
        self._h = _lib.Handle(handle)
        self.device = device
        self._pending = None
        self._handoff = None
        self._with = []
        i = _lib.info(handle)
        self.width, self.height, self.layers = i.width, i.height, i.slices
        self.format = i.format
        self.row_pitch = i.row_pitch
        self.nbytes = i.size

    @property
    def handle(self):
        """The library's handle of this object (an int), for gfxcuda's C API.
        Raises gfxcuda.BadHandleError after release()."""
        return self._h.handle

    @property
    def shape(self):
        """(height, width, channels), or (height, width) for one-channel
        formats: the shape of the arrays copy_to and copy_from take."""
        f = formats.by_value[self.format]
        return (self.height, self.width, f["lanes"]) if f["lanes"] > 1 else (self.height, self.width)

    def copy_to(self, dst, pitch=0, stream=None):
        """Copies the texture into dst (a device pointer as an int, or a
        torch/CuPy/Numba array), queued on stream (None: the legacy default
        stream, so any later PyTorch operation sees the data; an int
        cudaStream_t or a torch/CuPy stream: asynchronous on it). No host
        wait. pitch is the bytes between dst's rows (0: packed rows, or
        the array's own row stride). Returns None. Raises
        gfxcuda.OutOfRangeError when dst holds fewer bytes than the
        texture, gfxcuda.InvalidArgumentError for an array that is not
        CUDA memory (the message says what it is), gfxcuda.ArgumentTypeError
        for a pointer, pitch or stream of the wrong type."""
        h = self._h._h
        if dst.__class__ is int and 0 < dst <= 0xFFFFFFFFFFFFFFFF and pitch.__class__ is int and \
                0 <= pitch <= 0xFFFFFFFFFFFFFFFF and stream is None and h and not _lib._forked:
            # The hot path: one C call, nothing built.
            st = _tex_copy(h, dst, pitch, 1, 0)
            if st:
                _lib.raise_status("gfxcuda_shared_texture_copy", st)
            return
        ptr, p, keep = _pointer(dst, self.nbytes, "Texture.copy_to")
        pitch = _check.u64(pitch, "Texture.copy_to", "pitch")
        _lib.call("gfxcuda_shared_texture_copy", self.handle, ptr, pitch or p, 1, _stream_int(stream, "Texture.copy_to"))
        del keep

    def copy_from(self, src, pitch=0, stream=None):
        """Copies src (a device pointer as an int, or a torch/CuPy/Numba
        array) into the texture, queued on stream as copy_to is: after the
        stream's earlier work. pitch is the bytes between src's rows (0:
        packed rows, or the array's own row stride). Returns None. Raises
        as copy_to."""
        h = self._h._h
        if src.__class__ is int and 0 < src <= 0xFFFFFFFFFFFFFFFF and pitch.__class__ is int and \
                0 <= pitch <= 0xFFFFFFFFFFFFFFFF and stream is None and h and not _lib._forked:
            st = _tex_copy(h, src, pitch, 0, 0)
            if st:
                _lib.raise_status("gfxcuda_shared_texture_copy", st)
            return
        ptr, p, keep = _pointer(src, self.nbytes, "Texture.copy_from")
        pitch = _check.u64(pitch, "Texture.copy_from", "pitch")
        _lib.call("gfxcuda_shared_texture_copy", self.handle, ptr, pitch or p, 0, _stream_int(stream, "Texture.copy_from"))
        del keep

    def __enter__(self):
        """Hands the texture to CUDA on the legacy default stream for the
        with block (Gfx2Cuda's map); copies inside run without a hand-off
        each. Returns the texture."""
        _lib.check_fork()
        self._with.append(Handoff([self], None) if self._handoff is None else None)
        return self

    def __exit__(self, *exc):
        h = self._with.pop() if self._with else None
        if h is not None:
            h.to_vulkan()
        return False

    def to_cuda(self, stream=None):
        """Hands the texture to CUDA on stream (None: the legacy default
        stream); see gfxcuda.to_cuda. Returns the Handoff. Raises
        gfxcuda.ArgumentTypeError for a stream that is not one."""
        return to_cuda([self], stream)

    def compute_view(self):
        """Returns the texture as a compushady Texture2D of
        gfxcuda.compute_device(device) (the same memory): bind it in
        Compute (a shader renders into it), copy it to a HEAP_READBACK
        Buffer to read it through Vulkan. Raises gfxcuda.BadHandleError
        after release()."""
        from . import _compute
        dev = compute_device(self.device)
        h = _lib.new_handle("gfxcuda_shared_compute_view", dev.handle, self.handle)
        return _compute._view(_compute.Texture2D, h, dev, self.format)

    @property
    def ipc_handle(self):
        """A token (bytes) another process of this user opens with
        gfxcuda.open_ipc_texture; valid while this texture lives. Raises
        gfxcuda.BadHandleError after release()."""
        return _lib.take_bytes("gfxcuda_shared_texture_ipc_handle", self.handle)

    def share_options(self, dir=None, rendezvous=None, allow_uids=(), allow_gids=()):
        """Sets how ipc_handle's token can be opened from other containers,
        before ipc_handle is first read: dir, rendezvous, allow_uids and
        allow_gids as gfxcuda.share_options takes them, for this texture
        only. Returns the texture. Raises as gfxcuda.share_options."""
        _lib.call("gfxcuda_share_options", self.handle, *_lib.share_args(dir, rendezvous, allow_uids, allow_gids))
        return self

    def linear(self, stream=None):
        """A linear copy of the texels as a CudaBuffer of shape (H, W[, C])
        (layers > 1: (L, H, W[, C])), copied on stream: a copy, not a view
        (the texture's memory is tiled; only CUDA's array reaches it).
        Returns the new CudaBuffer. Raises gfxcuda.ArgumentTypeError for a
        stream that is not one."""
        f = formats.by_value[self.format]
        shape = self.shape if self.layers <= 1 else (self.layers,) + self.shape
        kind = {0: "int", 1: "uint", 2: "float"}[f["dl_code"]]
        b = CudaBuffer(shape, "%s%d" % (kind, f["dl_bits"]), device=self.device)
        self.copy_to(b.ptr, stream=stream)
        return b

    def to_tensor(self, dtype="float32", planar=True, channels=3, mean=None, std=None, flip_y=False,
                  converter="cuda", out=None, stream=None, tiles=None):
        """The fused conversion: the texture (RGBA8, BGRA8, RGBA16F or
        RGBA32F) as a tensor of shape (1, C, H, W) (planar) or (1, H, W, C),
        of dtype float32, float16 or uint8, with channels 3 (alpha dropped)
        or 4, normalized per channel to (v - mean) / std (v in [0, 1] for
        8-bit texels) and flipped vertically with flip_y. converter "cuda"
        runs a CUDA kernel on stream; "vulkan" a Vulkan compute pass that
        stream then waits for (widths a multiple of 4). The result is a
        SharedBuffer (torch.from_dlpack, cupy.asarray take it without
        copies), out when given (a SharedBuffer of at least that size,
        reused frame after frame). Work queued on stream (None: the legacy
        default stream, which torch uses by default) after the call sees
        the tensor; the host does not wait. tiles=(cols, rows) or (cols,
        rows, n): the texture is an atlas of cols x rows tiles of equal
        size, of which the first n (default all; row by row from the
        texture's first row) are views: the tensor is (n, C, h, w) (or
        (n, h, w, C)) of the tile size, in one dispatch (converter="vulkan"
        only for now). Returns the SharedBuffer.
        Raises gfxcuda.InvalidArgumentError for tiles that do not divide the
        texture or an n out of range (gfxcuda.ArgumentTypeError for tiles
        that are not 2 or 3 ints), gfxcuda.UnsupportedError for tiles with
        the CUDA converter; gfxcuda.InvalidArgumentError for another converter, an out
        that is not a SharedBuffer or more than 4 mean/std values,
        gfxcuda.OutOfRangeError for an out that is too small,
        gfxcuda.ArgumentTypeError for mean/std that are not numbers,
        gfxcuda.InvalidArgumentError too for a format, dtype or width the
        conversion does not take, or a texture handed to CUDA (to_cuda)."""
        conv = {"cuda": 0, "vulkan": 1}.get(converter)
        if conv is None:
            raise errors.InvalidArgumentError("gfxcuda: to_tensor: converter %r; use 'cuda' or 'vulkan'" % (converter,))
        channels = _check.integer(channels, "Texture.to_tensor", "channels", 0, 4, what="3 or 4")
        layout, _ = _tensor_layout("Texture.to_tensor", dtype, planar, channels, flip_y, mean, std)
        cols = rows = n = 0
        if tiles is not None:
            cols, rows, n = self._tiles(tiles)
            if conv == 0:
                raise errors.UnsupportedError('gfxcuda: Texture.to_tensor(tiles=%r): tiles are converted by '
                                              'converter="vulkan" for now (the CUDA converter does not take tiles '
                                              'yet); pass converter="vulkan"' % (tiles,))
        # The tensor's shape and bytes, as the library computes them.
        dims, need = (ctypes.c_int64 * 4)(), ctypes.c_uint64()
        _lib.call("gfxcuda_texture_tensor_shape", self.handle, ctypes.byref(layout), cols, rows, n, dims,
                  ctypes.byref(need))
        shape, need = tuple(dims), need.value
        if out is None:
            out = SharedBuffer(shape, dtype, device=self.device)
        elif not isinstance(out, SharedBuffer):
            raise errors.InvalidArgumentError("gfxcuda: to_tensor: out must be a gfxcuda.SharedBuffer, not %s"
                                              % type(out).__name__)
        elif out.nbytes < need:
            raise errors.OutOfRangeError("gfxcuda: to_tensor: out has %d bytes; a %s tensor of shape %s needs %d"
                                         % (out.nbytes, dtype, shape, need))
        if tiles is None:
            _lib.call("gfxcuda_texture_to_tensor", self.handle, out.handle, ctypes.byref(layout), 0, conv,
                      _stream_int(stream))
        else:
            _lib.call("gfxcuda_texture_tiles_to_tensor", self.handle, out.handle, ctypes.byref(layout), 0,
                      cols, rows, n, conv, _stream_int(stream))
        return out

    def _tiles(self, tiles):
        """(cols, rows, n) of to_tensor's tiles argument, checked against
        the texture's size."""
        return _check.tiles(tiles, "Texture.to_tensor", self.width, self.height,
                            "a %dx%d texture" % (self.width, self.height))

    def export_fd(self):
        """Returns a new OPAQUE_FD of the texture's memory (the caller
        closes it) and what an importer needs: (fd, allocation_size,
        usage). Raises gfxcuda.BadHandleError after release()."""
        fd, alloc, _, usage = _export_fd(self.handle)
        return fd, alloc, usage

    @classmethod
    def import_fd(cls, fd, shape, format, allocation_size, usage=0, layers=1, device=0, view_formats=()):
        """Imports a renderer's exported Vulkan image (OPAQUE_FD of a dedicated
        allocation, left in the GENERAL layout; this call takes fd) of shape
        (height, width[, ...]) and format (a gfxcuda.formats value or name),
        with the allocation_size and usage (VkImageUsage flags) export_fd
        reports, layers array slices, on CUDA device `device`; view_formats
        the other formats of the image's format list when the renderer made
        it mutable (VK_IMAGE_CREATE_MUTABLE_FORMAT_BIT), as it gave them
        (see texture()). Returns the
        Texture. Raises ValueError for an unknown format,
        gfxcuda.ArgumentTypeError for a shape that is not (height, width[,
        ...]) or an argument of the wrong type, gfxcuda.InvalidArgumentError
        for memory Vulkan or CUDA cannot import, gfxcuda.NoCUDAError without a
        usable CUDA driver, gfxcuda.NoDeviceError for a device ordinal there is
        not."""
        fmt = formats.lookup(format)["value"]
        w = "Texture.import_fd"
        fd = _check.fd(fd, w)
        if isinstance(shape, (str, bytes)) or not hasattr(type(shape), "__getitem__") or len(shape) < 2:
            raise errors.ArgumentTypeError("gfxcuda: %s(shape=%r): expected (height, width[, ...])" % (w, shape))
        height, width = (_check.integer(v, w, n, 1, _check.U32, what="a number of texels")
                         for v, n in ((shape[0], "height"), (shape[1], "width")))
        layers = _check.integer(layers, w, "layers", 1, _check.U32)
        usage = _check.u32(usage, w, "usage")
        allocation_size = _check.u64(allocation_size, w, "allocation_size")
        views, n = _view_formats(view_formats, w)
        h = _lib.new_handle("gfxcuda_shared_texture_import_fd_views", _shared_device(device, w), fd, fmt, width, height,
                            layers, usage, allocation_size, views, n)
        return cls(h, device)

    def release(self):
        """Drops the texture now (its ipc_handle token is withdrawn).
        Idempotent; returns None and raises nothing."""
        self._h.release()

    def __repr__(self):
        return "Texture with format %s (%d x %d)" % (formats.name(self.format).upper(), self.width, self.height)


def _view_formats(view_formats, where):
    """(ctypes array, count) of a view_formats argument: formats given by
    value or name, at most 16."""
    if isinstance(view_formats, (str, bytes, int)) or not hasattr(type(view_formats), "__iter__"):
        raise errors.ArgumentTypeError("gfxcuda: %s(view_formats=%r): give a sequence of formats, e.g. "
                                       "('r32_uint',)" % (where, view_formats))
    values = [formats.lookup(f)["value"] for f in view_formats]
    if len(values) > 16:
        raise errors.InvalidArgumentError("gfxcuda: %s: %d view formats; give at most 16" % (where, len(values)))
    return (ctypes.c_uint32 * max(len(values), 1))(*values), len(values)


def texture(obj_or_shape, format=None, dtype="float32", device=0, view_formats=()):
    """Gfx2Cuda's texture(): a copy of a CUDA array (torch, CuPy or Numba:
    anything with __cuda_array_interface__ or __dlpack__) of shape (H, W, C)
    or (H, W) as a shared texture; or a new texture of shape (H, W[, C])
    and format (a gfxcuda.formats value or name) or dtype.

    obj_or_shape is the array (its format follows its dtype and channels) or
    the shape, a tuple or list; device is the CUDA ordinal of a new texture (an
    array's own device otherwise). view_formats (new textures only): other
    formats (values or names) of the same texel size that Vulkan may read or
    write the texels as; an 'rgba8_unorm' atlas with 'r32_uint' among them
    converts its tiles (to_tensor(tiles=..., dtype='uint8'), no mean or std)
    from texel words, faster than from a plain texture. Such a texture is
    not shared with other processes. Returns the Texture. Raises
    gfxcuda.InvalidArgumentError for a shape that is not (H, W[, C]) with 1 to
    4 channels, an array that is not CUDA memory or whose texels are not
    packed, or view formats given with an array (more than 16 of them too;
    gfxcuda.ArgumentTypeError for view_formats that are not a sequence),
    gfxcuda.UnsupportedError for view formats the format cannot be viewed
    as, ValueError for an unknown format or a dtype no texture format
    holds, gfxcuda.NoCUDAError without a usable CUDA driver,
    gfxcuda.NoDeviceError for a device ordinal there is not."""
    views, nviews = _view_formats(view_formats, "gfxcuda.texture")
    if isinstance(obj_or_shape, (tuple, list)):
        shape = tuple(obj_or_shape)
        if len(shape) not in (2, 3):
            raise errors.InvalidArgumentError("gfxcuda: texture shape %r; give (height, width[, channels])" % (shape,))
        h, w = (_check.integer(v, "gfxcuda.texture", n, 1, _check.U32, what="a number of texels")
                for v, n in ((shape[0], "height"), (shape[1], "width")))
        c = _check.integer(shape[2], "gfxcuda.texture", "channels", 1, 4) if len(shape) == 3 else 1
        device = _check.device(device, "gfxcuda.texture")
        if format is None:
            code, bits, _ = _dtype_of(dtype)
            format = formats.for_dtype(code, bits, c)
        fmt = formats.lookup(format)["value"]
        sd = _shared_device(device)
        return Texture(_lib.new_handle("gfxcuda_shared_texture_new_views", sd, fmt, w, h, 1, views, nviews), device)
    if nviews:
        raise errors.InvalidArgumentError("gfxcuda: gfxcuda.texture(array, view_formats=%r): view formats are for new "
                                          "textures; make one of the array's shape and copy the array in"
                                          % (tuple(view_formats),))
    ptr, shape, typestr, strides, dev, keep = _array_of(obj_or_shape, "gfxcuda.texture")
    if len(shape) not in (2, 3):
        raise errors.InvalidArgumentError("gfxcuda: a texture is made from a (height, width[, channels]) array, not shape %r" % (shape,))
    h, w = shape[0], shape[1]
    c = shape[2] if len(shape) == 3 else 1
    if not (1 <= h <= _check.U32 and 1 <= w <= _check.U32 and 1 <= c <= 4):
        raise errors.InvalidArgumentError("gfxcuda: gfxcuda.texture: an array of shape %r: a texture needs a height and a "
                                          "width from 1 to 2**32 - 1 and 1 to 4 channels" % (tuple(shape),))
    code, _, itemsize = _dtype_of(typestr)
    pitch = 0
    if strides is not None:
        if strides[-1] != itemsize or (len(shape) == 3 and strides[1] != itemsize * c):
            raise errors.InvalidArgumentError("gfxcuda: texels of the array must be packed (strides %r)" % (strides,))
        pitch = strides[0]
        if pitch < 0:
            raise errors.InvalidArgumentError("gfxcuda: gfxcuda.texture: the array's rows are in reverse order (strides "
                                              "%r); copy it to a C-contiguous array first" % (tuple(strides),))
    sd = _shared_device(dev)
    t = Texture(_lib.new_handle("gfxcuda_shared_texture_from_cuda", sd, ptr, pitch, w, h, c, code, itemsize * 8), dev)
    del keep
    return t


def open_ipc_texture(handle, device=0):
    """Returns the Texture another process of this user shared: handle is its
    tex.ipc_handle token (bytes or str); device is the CUDA ordinal to open it
    on. Raises gfxcuda.ArgumentTypeError for a handle that is not a token,
    gfxcuda.InvalidArgumentError for a token that does not open,
    gfxcuda.NoCUDAError without a usable CUDA driver, gfxcuda.NoDeviceError for
    a device ordinal there is not."""
    handle = _token(handle)
    sd = _shared_device(device, "open_ipc_texture")
    return Texture(_lib.new_handle("gfxcuda_shared_texture_open_ipc", sd, handle, len(handle)), device)
