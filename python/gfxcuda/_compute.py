"""compushady's API over gfxcuda's Vulkan compute: devices, buffers,
textures, samplers and compute pipelines."""

import _thread
import ctypes
import operator
import os

from . import _check, _lib, errors, formats


def _bound(var, name, src=None):
    """A stand-in for the library function `name`, kept in the global
    `var`: its first call loads the library and puts the function itself
    there (the hot paths below call it directly from then on). src: the
    _lib attribute that holds it, where not the declared function."""
    def first(*args):
        l = _lib.load()
        f = globals()[var] = getattr(_lib, src) if src else getattr(l, name)
        return f(*args)
    return first


_dispatch = _bound("_dispatch", "gfxcuda_compute_dispatch")  # the hot path of Compute.dispatch
_buffer_create = _bound("_buffer_create", "gfxcuda_buffer_create")  # the hot path of Buffer()
_buffer_create_int = _bound("_buffer_create_int", "gfxcuda_buffer_create_int", "buffer_create_int")  # of small ones
_upload = _bound("_upload", "gfxcuda_buffer_upload")  # and of Buffer.upload(bytes)
_copy = _bound("_copy", "gfxcuda_copy")  # and of copy_to between buffers
_0 = 0  # copy_to's fast path: `x is _0` holds for the int 0 only (not False, 0.0, None)

HEAP_DEFAULT = 0
HEAP_UPLOAD = 1
HEAP_READBACK = 2

SAMPLER_FILTER_POINT = 0
SAMPLER_FILTER_LINEAR = 1
SAMPLER_ADDRESS_MODE_WRAP = 0
SAMPLER_ADDRESS_MODE_MIRROR = 1
SAMPLER_ADDRESS_MODE_CLAMP = 2
SAMPLER_ADDRESS_MODE_BORDER = 3

_HEAP_NAMES = {HEAP_DEFAULT: "HEAP_DEFAULT", HEAP_UPLOAD: "HEAP_UPLOAD", HEAP_READBACK: "HEAP_READBACK"}


def _heap_type(heap_type, where, exc):
    """heap_type checked: one of HEAP_DEFAULT, HEAP_UPLOAD, HEAP_READBACK."""
    try:
        if heap_type.__class__ is not bool and operator.index(heap_type) in _HEAP_NAMES:
            return operator.index(heap_type)
    except TypeError:  # not an integer
        pass
    raise exc("gfxcuda: %s(heap_type=%r): unknown heap type; use HEAP_DEFAULT (0), HEAP_UPLOAD (1) or HEAP_READBACK (2)"
              % (where, heap_type))


def _device(device, where):
    """device (a gfxcuda Device, None: the current one) checked."""
    if not device:  # None (0 too, as before)
        return _current or get_current_device()
    if not isinstance(device, Device):
        raise errors.ArgumentTypeError(
            "gfxcuda: %s(device=%r): device is %s; expected a gfxcuda Device (gfxcuda.get_best_device(), "
            "gfxcuda.get_discovered_devices()[i]) or None" % (where, device, _check.kind(device)))
    return device


def _host_in(data, where="Buffer.upload", name="data"):
    """(address, size, keepalive) of readable host bytes, for a void *
    argument: bytes are passed as they are (ctypes passes their buffer)."""
    if isinstance(data, bytes):
        return data, len(data), data
    try:
        mv = memoryview(data)
    except TypeError:
        raise errors.ArgumentTypeError("gfxcuda: %s(%s=...): %s is %s; expected bytes-like data (bytes, bytearray, a "
                                       "NumPy array)" % (where, name, name, _check.kind(data))) from None
    if not mv.c_contiguous:
        raise ValueError("gfxcuda: data must be C-contiguous")
    mv = mv.cast("B")
    if mv.readonly:
        b = mv.tobytes()
        return b, len(b), b
    if len(mv) == 0:
        return None, 0, mv
    arr = (ctypes.c_char * len(mv)).from_buffer(mv)
    return ctypes.addressof(arr), len(mv), arr


def _host_out(data):
    try:
        mv = memoryview(data)
    except TypeError:
        raise errors.ArgumentTypeError("gfxcuda: Buffer.readback(buffer_or_size=...): %s; expected a size in bytes (an "
                                       "int) or a writable buffer (bytearray, a NumPy array)"
                                       % _check.kind(data)) from None
    if mv.readonly or not mv.c_contiguous:
        raise errors.ArgumentTypeError("gfxcuda: readback needs a writable, C-contiguous buffer")
    mv = mv.cast("B")
    if len(mv) == 0:
        return None, 0, mv
    arr = (ctypes.c_char * len(mv)).from_buffer(mv)
    return ctypes.addressof(arr), len(mv), arr


class Device:
    """A Vulkan device that runs compute shaders. Get one from
    get_discovered_devices(), get_best_device() or get_current_device()
    (Device(desc) takes the library's description of it, a dict, and
    raises KeyError for one that lacks a field), and pass it as device= to
    make resources on it.

    Attributes: index (the position among the discovered devices, for
    set_current_device), name, vendor_id and device_id (PCI ids),
    dedicated_video_memory, dedicated_system_memory and
    shared_system_memory (bytes), is_hardware (False for a CPU
    implementation such as lavapipe), is_discrete, uuid (Vulkan's device
    UUID as a string), driver (the driver's name and version)."""

    def __init__(self, desc):
        self.index = desc["index"]
        self.name = desc["name"]
        self.dedicated_video_memory = desc["dedicated_video_memory"]
        self.dedicated_system_memory = 0
        self.shared_system_memory = desc["shared_system_memory"]
        self.vendor_id = desc["vendor_id"]
        self.device_id = desc["device_id"]
        self.is_hardware = desc["is_hardware"]
        self.is_discrete = desc["is_discrete"]
        self.uuid = desc["uuid"]
        self.driver = desc["driver"]
        self._handle = None
        self._lock = _thread.allocate_lock()
        self._bins = {}  # (size, heap type) -> _Bin: Buffer()'s small buffers

    @property
    def handle(self):
        """The library's handle of the opened device (an int); the device
        is opened on first use. Raises gfxcuda.NoDeviceError or
        gfxcuda.DeviceFailedError when it cannot be opened."""
        h = self._handle  # opened already: no lock (every resource asks)
        if h is not None and h._h:
            return h._h
        with self._lock:
            if self._handle is None:
                self._handle = _lib.Handle(_lib.new_handle("gfxcuda_device_open", self.index))
            return self._handle.handle

    def __repr__(self):
        kind = "discrete" if self.is_discrete else ("integrated" if self.is_hardware else "software")
        return "<gfxcuda.Device %d: %s (%s, %d MiB)>" % (
            self.index, self.name, kind, self.dedicated_video_memory >> 20)


class _ViewDevice(Device):
    """The compute device on the Vulkan side of a shared (Vulkan + CUDA)
    device: see gfxcuda.compute_device."""

    def __init__(self, handle, keep):
        Device.__init__(self, _lib.take_json("gfxcuda_device_info_json", handle))
        self._handle = _lib.Handle(handle)
        self._keep = keep


def _view(cls, handle, device, fmt=0):
    """A compushady resource object over a compute view handle."""
    r = cls.__new__(cls)
    Resource.__init__(r, handle, device)
    if cls is Buffer:
        r.heap_type, r.stride, r.format = HEAP_DEFAULT, 0, 0
    else:
        r.format = fmt
    return r


_devices = None
_current = None
_dev_lock = _thread.allocate_lock()


def get_discovered_devices():
    """Returns the Vulkan devices that run compute shaders (a new list of
    Device objects, the same objects on every call; empty when there is
    none). Raises gfxcuda.LibraryNotFoundError when the C library does
    not load."""
    global _devices
    with _dev_lock:
        if _devices is None:
            descs = _lib.take_json("gfxcuda_devices_json")
            _devices = [Device(d) for d in descs]
            _note_best(descs)
        return list(_devices)


def get_best_device():
    """Returns the best Device: hardware before software, discrete first,
    then the most memory. Raises gfxcuda.NoDeviceError when no device runs
    compute shaders (`gfxcuda doctor` says why)."""
    devs = get_discovered_devices()
    if not devs:
        raise errors.NoDeviceError("gfxcuda: no Vulkan device runs compute shaders here; `gfxcuda doctor` says why")
    for d in devs:
        if _best_index == d.index:
            return d
    return devs[0]


_best_index = None


def _note_best(descs):
    global _best_index
    for d in descs:
        if d["best"]:
            _best_index = d["index"]


def set_current_device(index):
    """Makes the device whose Device.index is `index` the one resources
    are created on by default (device=None). Returns None. Raises
    gfxcuda.NoDeviceError when there is no such device (the message lists
    the indices there are)."""
    global _current
    devs = get_discovered_devices()
    for d in devs:
        if d.index == index:
            _current = d
            return
    raise errors.NoDeviceError("gfxcuda: set_current_device(%r): no such device; there are %d (indices %s)"
                               % (index, len(devs), ", ".join(str(d.index) for d in devs) or "none"))


def get_current_device():
    """Returns the Device resources are created on by default: the one
    set_current_device chose, else the best one (get_best_device). Raises
    gfxcuda.NoDeviceError when there is none."""
    global _current
    if _current is None:
        # get_best_device enumerates once, noting the best device too.
        _current = get_best_device()
    return _current


class Heap:
    """Memory on a heap (HEAP_DEFAULT, HEAP_UPLOAD or HEAP_READBACK) that
    buffers and textures are placed in with heap= and heap_offset=:
    resources placed over the same bytes alias and see each other's
    writes, and sparse resources bind their tiles to it (bind_tile).

    Heap(heap_type, size, device=None): heap_type is HEAP_DEFAULT,
    HEAP_UPLOAD or HEAP_READBACK; size is in bytes (from 1); device is a
    Device (None: the current one). The attributes heap_type, size and
    device say the same. Raises HeapException (an InvalidArgumentError)
    for a zero size or an unknown heap type; gfxcuda.ArgumentTypeError for
    a device that is not a Device; gfxcuda.DeviceFailedError when the
    device cannot allocate it."""

    def __init__(self, heap_type, size, device=None):
        heap_type = _heap_type(heap_type, "Heap", errors.HeapException)
        size = _check.integer(size, "Heap", "size", 1, _check.U64, errors.HeapException, "a size in bytes")
        self.device = _device(device, "Heap")
        self._h = _lib.Handle(_lib.new_handle("gfxcuda_heap_new", self.device.handle, heap_type, size,
                                              exc=errors.HeapException))
        self.size = size
        self.heap_type = heap_type

    @property
    def handle(self):
        """The library's handle of this object (an int), for gfxcuda's C API.
        Raises gfxcuda.BadHandleError after release()."""
        return self._h.handle

    def release(self):
        """Drops the heap now (resources placed in it keep its memory).
        Idempotent; returns None and raises nothing."""
        self._h.release()

    def __repr__(self):
        return "<gfxcuda.Heap %d bytes, %s>" % (self.size, _HEAP_NAMES[self.heap_type])


def _placement(device, heap, heap_offset, sparse, exc, where="Buffer"):
    """(heap handle, offset, sparse flag) for the *_new_placed calls."""
    heap_offset = _check.integer(heap_offset, where, "heap_offset", 0, _check.U64, exc, "an offset in bytes")
    if heap is None:
        if heap_offset:
            raise exc("gfxcuda: heap_offset=%d without a heap; pass heap=Heap(...)" % heap_offset)
        return 0, 0, 1 if sparse else 0
    if not isinstance(heap, Heap):
        raise exc("gfxcuda: heap= takes a gfxcuda.Heap, not a %s" % type(heap).__name__)
    if sparse:
        raise exc("gfxcuda: a sparse resource is not placed in a heap: leave heap= unset and bind its tiles "
                  "with bind_tile(x, y, z, heap)")
    if heap.device is not device and heap.device.handle != device.handle:
        raise exc("gfxcuda: the heap was made on another device (%s); make it on %s" % (heap.device.name, device.name))
    return heap.handle, heap_offset, 0


def _stride_format(stride, format):
    """Buffer's stride and format checked (uint32s)."""
    return (_check.integer(stride, "Buffer", "stride", 0, _check.U32, errors.BufferException, "a size in bytes"),
            _check.integer(format, "Buffer", "format", 0, _check.U32, errors.BufferException,
                           "a constant of gfxcuda.formats"))


def _alloc_failed(name, st, size, device, where, exc):
    """Raises the error of a failed allocation of size bytes (status st):
    where the device is out of memory, one that names the size and the
    device's memory in human units rather than a device failure."""
    msg = _lib.lib.gfxcuda_last_error().decode("utf-8", "replace")
    if "OUT_OF_DEVICE_MEMORY" in msg or "OUT_OF_HOST_MEMORY" in msg:
        have = device.dedicated_video_memory + device.shared_system_memory
        if have and size > have:
            why = "larger than the device can allocate: %s has %s of memory" % (device.name, _check.human(have))
        else:
            why = "more than %s can allocate now%s (other resources hold part of it)" % (
                device.name, " (%s of memory)" % _check.human(have) if have else "")
        raise exc("gfxcuda: %s(size=%d): %s is %s; make it smaller (the device said %s)"
                  % (where, size, _check.human(size), why, msg), st)
    _lib.raise_status(name, st, exc)


def _missing_feature(e):
    """compushady raises ValueError for what the device lacks: an
    UnsupportedError that is also a ValueError."""
    return errors.MissingFeatureError(str(e), e.status)


class _Sparse:
    """compushady's tile API of sparse resources (Buffer, Texture1D/2D/3D
    made with sparse=True; the tile sizes and counts are zeros when not
    sparse)."""

    def _tiles(self):
        t = getattr(self, "_tile_info", None)
        if t is None:
            arr = (ctypes.c_uint64 * 7)()
            _lib.call("gfxcuda_resource_tiles", self.handle, arr)
            t = self._tile_info = tuple(arr)
        return t

    tile_width = property(lambda self: self._tiles()[0], doc="A tile's width in texels (bytes for a buffer).")
    tile_height = property(lambda self: self._tiles()[1], doc="A tile's height in texels.")
    tile_depth = property(lambda self: self._tiles()[2], doc="A tile's depth in texels.")
    tiles_x = property(lambda self: self._tiles()[3], doc="Tiles along x.")
    tiles_y = property(lambda self: self._tiles()[4], doc="Tiles along y.")
    tiles_z = property(lambda self: self._tiles()[5], doc="Tiles along z.")

    def bind_tile(self, x, y, z, heap, heap_offset=0, slice=0):
        """Binds tile (x, y, z) of array slice `slice` of a sparse resource
        to heap (a Heap of the resource's device) at heap_offset (bytes, a
        multiple of the tile's memory size), or unbinds it when heap is
        None, and waits until it is bound. x, y and z count tiles (see
        tiles_x, tiles_y, tiles_z). Returns None. Raises the resource's
        compushady exception (BufferException, Texture2DException, ...)
        for a tile outside the resource, a misaligned or out-of-range
        heap_offset or a resource that is not sparse;
        gfxcuda.ArgumentTypeError for a heap that is not a Heap."""
        where = type(self).__name__ + ".bind_tile"
        if heap is not None and not isinstance(heap, Heap):
            raise errors.ArgumentTypeError("gfxcuda: %s(heap=%r): heap is %s; expected a gfxcuda.Heap (None: unbind "
                                           "the tile)" % (where, heap, _check.kind(heap)))
        x, y, z, slice = (_check.u32(v, where, n) for v, n in ((x, "x"), (y, "y"), (z, "z"), (slice, "slice")))
        heap_offset = _check.u64(heap_offset, where, "heap_offset")
        _lib.call("gfxcuda_bind_tile", self.handle, x, y, z, heap.handle if heap is not None else 0, heap_offset, slice,
                  exc=self._exc)
        self._bound.append(heap)  # tiles keep the heap's memory alive; so does Python


class _LazyInfo:
    """Resource._info, the library's description of the resource: asked
    for on first use where __init__ did not (Buffer's one-call path)."""

    def __get__(self, obj, cls=None):
        if obj is None:
            return self
        i = obj.__dict__["_info"] = _lib.info(obj.handle)
        return i


class Resource:
    """A buffer or texture: the base class of Buffer, Texture1D, Texture2D
    and Texture3D (Resource(handle, device) wraps a library handle of a
    resource on device, and raises gfxcuda.BadHandleError for a handle
    that is not live; make resources with those classes). ``device`` is
    the Device it lives on."""

    _exc = errors.InvalidArgumentError
    _info = _LazyInfo()
    # Where the resource lives, when placed in a Heap (heap=, heap_offset=);
    # None and 0 for every other resource (compute views included).
    heap = None
    heap_offset = 0

    def __init__(self, handle, device):
        self._h = _lib.Handle(handle)
        self.device = device
        self._info = _lib.info(handle)
        self._size = self._info.size

    @property
    def handle(self):
        """The library's handle of this object (an int), for gfxcuda's C API.
        Raises gfxcuda.BadHandleError after release()."""
        return self._h.handle

    @property
    def size(self):
        """The size in bytes: a buffer's size as asked for; the bytes of
        a texture's memory."""
        return self._size

    @property
    def heap_size(self):
        """The bytes the resource takes in its memory (at least size:
        the device's alignment and padding included)."""
        return self._info.size

    def release(self):
        """Drops the resource now (what uses it keeps it alive).
        Idempotent; returns None and raises nothing."""
        self._h.release()

    def copy_to(self, destination, size=0, src_offset=0, dst_offset=0, width=0, height=0, depth=0,
                src_x=0, src_y=0, src_z=0, dst_x=0, dst_y=0, dst_z=0, src_slice=0, dst_slice=0):
        """Copies into destination (a Buffer or texture) and waits, by
        compushady's rules. Between buffers: size bytes (0: the whole
        source, from src_offset) from byte src_offset to byte dst_offset.
        With a texture on either side: a region of width x height x depth
        texels (0: the whole texture) at src_x, src_y, src_z in the source
        and dst_x, dst_y, dst_z in the destination, one array slice at a
        time (src_slice, dst_slice), a 2D texture into a 3D one at dst_z;
        a buffer's side is packed rows at src_offset/dst_offset and size,
        when given, must cover the texels. Returns None. Raises
        gfxcuda.OutOfRangeError (a ValueError) when the copy does not fit;
        gfxcuda.ArgumentTypeError for a destination that is not a Buffer
        or texture or an argument that is not an int;
        gfxcuda.ArgumentOverflowError (an OverflowError) for a value past
        the library's range (2**64 - 1 for size and offsets, 2**32 - 1
        for the rest)."""
        if size is _0 and src_offset is _0 and dst_offset is _0 and width is _0 and height is _0 and depth is _0 \
                and src_x is _0 and src_y is _0 and src_z is _0 and dst_x is _0 and dst_y is _0 and dst_z is _0 \
                and src_slice is _0 and dst_slice is _0 and self.__class__ is Buffer \
                and destination.__class__ is Buffer:
            # A whole buffer into a buffer, no region (the common case): one
            # C call, a NULL region (everything), nothing to check here.
            hs, hd = self._h._h, destination._h._h
            if hs and hd and not _lib._forked:
                st = _copy(hs, hd, None)
                if st:
                    _lib.raise_status("gfxcuda_copy", st)
                return
        try:  # ints that fit the region's uint64 and uint32 fields (ctypes would wrap the others)
            bad = (size | src_offset | dst_offset) >> 64 or (width | height | depth | src_x | src_y | src_z | dst_x
                                                            | dst_y | dst_z | src_slice | dst_slice) >> 32
        except TypeError:
            bad = True
        if bad:
            _copy_args(type(self).__name__ + ".copy_to", size=size, src_offset=src_offset, dst_offset=dst_offset,
                       width=width, height=height, depth=depth, src_x=src_x, src_y=src_y, src_z=src_z, dst_x=dst_x,
                       dst_y=dst_y, dst_z=dst_z, src_slice=src_slice, dst_slice=dst_slice)
        if not isinstance(destination, Resource):
            raise errors.ArgumentTypeError("gfxcuda: %s.copy_to(destination=%r): destination is %s; expected a gfxcuda "
                                           "Buffer or texture" % (type(self).__name__, destination,
                                                                  _check.kind(destination)))
        r = _lib.CopyRegion(size, src_offset, dst_offset, width, height, depth,
                            src_x, src_y, src_z, dst_x, dst_y, dst_z, src_slice, dst_slice)
        if isinstance(self, _Texture) or isinstance(destination, _Texture):
            # compushady's rules: one slice at a time, regions in either
            # texture, 2D into 3D, a size that must cover the texels.
            _lib.call("gfxcuda_copy_ex", self.handle, destination.handle, ctypes.byref(r))
        else:
            _lib.call("gfxcuda_copy", self.handle, destination.handle, ctypes.byref(r))


def _copy_args(where, **args):
    """Raises the error of the first argument of copy_to that is not an int
    its region field (size and offsets: uint64; the rest: uint32) holds."""
    for name, v in args.items():
        _check.integer(v, where, name, 0, _check.U64 if name in ("size", "src_offset", "dst_offset") else _check.U32)


class _Bin:
    """The small buffers (at most MAX_SIZE bytes, no stride or format) of
    one device, size and heap that Buffer() hands out: `spare`, handles
    ready to use, taken without a library call; `dropped`, handles of
    Buffers garbage collection dropped (_SmallHandle), given back in
    batches of BATCH to gfxcuda_buffer_recycle_n, which keeps those no
    one else uses (a pipeline, an export) for reuse and releases the
    rest. When spare runs out, one call makes BATCH more (the first
    buffer of a bin is made alone). At most KEYS bins per device: a new
    one past that closes the others (their buffers released, drops of
    their buffers released as they come). Leak counts
    (gfxcuda.live_handles()) release spare and dropped handles first
    (_release_small_buffers)."""

    MAX_SIZE = 64 << 10  # the library pools buffers this small
    BATCH = 64
    KEYS = 8
    __slots__ = ("device", "size", "heap_type", "spare", "dropped", "made", "closed", "__weakref__")
    _all = []  # every open bin, for _release_small_buffers

    def __init__(self, device, size, heap_type):
        self.device, self.size, self.heap_type = device, size, heap_type
        self.spare, self.dropped, self.made, self.closed = [], _Dropped(), 0, False
        self.dropped.bin = self

    @classmethod
    def of(cls, device, size, heap_type):
        """The bin of (device, size, heap_type), made (and the device's
        other bins closed when it has KEYS) if it has none."""
        bins = device._bins
        b = bins.get((size, heap_type))
        if b is None:
            if len(bins) >= cls.KEYS:
                for o in list(bins.values()):
                    o.close()
                bins.clear()
            b = bins[size, heap_type] = cls(device, size, heap_type)
            cls._all.append(b)
        return b

    def more(self):
        """A new buffer's handle: made alone for the bin's first; then BATCH
        in one call, the rest kept in spare. Raises BufferException (naming
        the size and the device's memory) when none can be made."""
        dh = self.device.handle
        if not self.made:
            h = _buffer_create_int(dh, self.size, self.heap_type, 0, 0) if dh <= 0x7FFFFFFF \
                else _buffer_create(dh, self.size, self.heap_type, 0, 0)
        else:
            arr = (ctypes.c_int64 * self.BATCH)()
            n = _lib.lib.gfxcuda_buffer_create_n(dh, self.size, self.heap_type, 0, 0, arr, self.BATCH)
            h = n
            if n > 0:
                self.spare.extend(arr[1:n])
                h = arr[0]
        if h < 0:
            _alloc_failed("gfxcuda_buffer_new", -h, self.size, self.device, "Buffer", errors.BufferException)
        self.made += 1
        return h

    def recycle(self):
        """Gives the dropped handles to gfxcuda_buffer_recycle_n: those it
        keeps go to spare (or are released, the bin closed). Raises
        nothing (it runs from garbage collection)."""
        d = self.dropped
        n = len(d)
        if not n:
            return
        batch = d[:n]
        del d[:n]  # drops made meanwhile (other threads) stay for the next batch
        if _lib._forked or not _lib.loaded():
            return
        arr = (ctypes.c_int64 * n)(*batch)
        try:
            _lib.lib.gfxcuda_buffer_recycle_n(arr, n)
            kept = [h for h in arr if h]
            if self.closed:
                if kept:
                    _lib.lib.gfxcuda_release_n((ctypes.c_int64 * len(kept))(*kept), len(kept))
            else:
                self.spare.extend(kept)
        except Exception:
            pass

    def close(self):
        """Releases the spare and dropped handles; the bin's live buffers
        are released one by one as they are dropped from now on (its
        dropped list becomes a _ClosedDropped). Raises nothing."""
        self.closed = True
        self.dropped.__class__ = _ClosedDropped  # first: drops from now on go straight to the library
        self.release()
        try:
            _Bin._all.remove(self)
        except ValueError:
            pass

    def release(self):
        """Releases the spare handles and the dropped ones waiting for a
        batch, in one call. Raises nothing."""
        hs = []
        for lst in (self.spare, self.dropped):
            n = len(lst)
            hs += lst[:n]
            del lst[:n]  # appends made meanwhile (other threads) stay
        n = len(hs)
        if n and not _lib._forked and _lib.loaded():
            try:
                _lib.lib.gfxcuda_release_n((ctypes.c_int64 * n)(*hs), n)
            except Exception:
                pass


class _Dropped(list):
    """A _Bin's dropped handles (a list that knows its bin)."""
    __slots__ = ("bin",)


class _ClosedDropped(_Dropped):
    """The dropped list of a closed _Bin: a handle appended is released at
    once (its bin is gone from _Bin._all: nothing would flush it)."""
    __slots__ = ()

    def append(self, h):
        if not _lib._forked and _lib.loaded():
            try:
                _lib._release_int(h) if h <= 0x7FFFFFFF else _lib._release(h)
            except Exception:
                pass


_new = object.__new__
_BATCH = _Bin.BATCH


class _SmallHandle(_lib.Handle):
    """The Handle of a small Buffer: release() releases it at once, as any
    Handle's; garbage collection gives it to its _Bin's dropped list (no
    library call but one per batch). Made by Buffer() without __init__:
    _new(_SmallHandle), then _h (the handle) and _d (the bin's dropped
    list) stored."""

    __slots__ = ("_d",)

    def __del__(self):
        h, self._h = self._h, 0
        if h:
            d = self._d
            d.append(h)
            if len(d) >= _BATCH:
                d.bin.recycle()


def _forget_bins_after_fork():
    # A forked child has none of its parent's handles: no bin, so that
    # Buffer() takes the path that raises ForkedProcessError.
    for b in _Bin._all:
        b.device._bins.clear()
        b.spare.clear()
        b.dropped.clear()
    _Bin._all.clear()


os.register_at_fork(after_in_child=_forget_bins_after_fork)


def _release_small_buffers():
    """Releases every bin's spare and dropped small buffers (what
    gfxcuda.live_handles() calls first, so that it counts the user's
    handles). Raises nothing."""
    for b in list(_Bin._all):
        b.release()


_lib.before_counting.append(_release_small_buffers)


class Buffer(Resource, _Sparse):
    """Linear GPU memory on a heap: HEAP_DEFAULT (device-local), HEAP_UPLOAD
    or HEAP_READBACK (host-visible). stride makes a structured buffer,
    format a typed one.

    Buffer(size, heap_type=HEAP_DEFAULT, stride=0, format=0, device=None,
    heap=None, heap_offset=0, sparse=False): size in bytes (from 1);
    stride, the size of a structured buffer's element; format, a
    gfxcuda.formats constant for a typed buffer; device, a Device (None:
    the current one); heap and heap_offset place the buffer in a Heap's
    memory at that byte offset (aliasing what else is placed there);
    sparse=True makes a sparse buffer whose tiles bind_tile binds. The
    attributes heap_type, stride, format, heap and device keep them.

    Raises BufferException (an InvalidArgumentError, a ValueError) for a
    zero size, an unknown heap type, a placement that does not fit the
    heap or a size the device cannot allocate (naming the size and the
    device's memory); gfxcuda.ArgumentTypeError for an argument of the
    wrong type; MissingFeatureError (a ValueError) for sparse=True on a
    device without sparse binding; gfxcuda.NoDeviceError when there is no
    device."""

    _exc = errors.BufferException

    stride = 0  # the defaults, kept here for Buffer()'s fast path
    format = 0

    def __init__(self, size, heap_type=HEAP_DEFAULT, stride=0, format=0, device=None, heap=None, heap_offset=0,
                 sparse=False):
        if device is None and stride is _0 and format is _0 and heap is None and heap_offset is _0 \
                and sparse is False and size.__class__ is int and heap_type.__class__ is int:
            # A small buffer of a size and heap asked for before, on the
            # current device: one its bin holds, without a library call
            # (only valid sizes and heaps have bins; _Bin says more).
            d = _current
            b = d._bins.get((size, heap_type)) if d is not None else None
            if b is not None:
                try:
                    h = b.spare.pop()
                except IndexError:
                    h = b.more()
                self._h = sh = _new(_SmallHandle)  # no __init__ call: the two stores here
                sh._h = h
                sh._d = b.dropped
                self.device = d
                self._size = size
                self.heap_type = heap_type
                return
        # Checked inline (plain int comparisons): the C call takes a uint64
        # size, an int heap type and uint32 stride and format.
        if size.__class__ is not int or not 0 < size <= 0xFFFFFFFFFFFFFFFF:
            size = _check.integer(size, "Buffer", "size", 1, _check.U64, errors.BufferException, "a size in bytes")
        if device is None:
            device = _current or get_current_device()
        elif device.__class__ is not Device:
            device = _device(device, "Buffer")
        if heap_type.__class__ is not int or heap_type not in _HEAP_NAMES:
            heap_type = _heap_type(heap_type, "Buffer", errors.BufferException)
        if stride or format:
            stride, format = _stride_format(stride, format)
        if heap is not None or sparse or heap_offset:
            self._make_placed(size, heap_type, stride, format, device, heap, heap_offset, sparse)
            return
        if _lib._forked:
            _lib.check_fork()
        if size <= _Bin.MAX_SIZE and stride is _0 and format is _0 and not _lib._forked:
            # A small buffer: from now on, the fast path above (its bin).
            b = _Bin.of(device, size, heap_type)
            try:
                h = b.spare.pop()
            except IndexError:
                h = b.more()
            self._h = sh = _new(_SmallHandle)
            sh._h = h
            sh._d = b.dropped
            self.device = device
            self._size = size
            self.heap_type = heap_type
            return
        # One C call (the handle, or minus the status): a small buffer's
        # creation costs little more than the call (compushady_side.py).
        dh = device.handle
        try:
            if (size | dh) <= 0x7FFFFFFF and stride.__class__ is int and format.__class__ is int \
                    and (stride | format) <= 0x7FFFFFFF:
                h = _buffer_create_int(dh, size, heap_type, stride, format)  # ints: no ctypes conversions
            else:
                h = _buffer_create(dh, size, heap_type, stride, format)
        except ctypes.ArgumentError:  # a falsy stride or format that is not an int (None, "")
            _stride_format(stride, format)
            raise
        if h < 0:
            _alloc_failed("gfxcuda_buffer_new", -h, size, device, "Buffer", errors.BufferException)
        self._h = _lib.Handle(h)
        self.device = device
        self._size = size  # an int (checked above); _info: on first use
        self.heap_type = heap_type
        self.stride = stride
        self.format = format

    def _make_placed(self, size, heap_type, stride, format, device, heap, heap_offset, sparse):
        hh, off, sp = _placement(device, heap, heap_offset, sparse, errors.BufferException)
        try:
            h = _lib.new_handle("gfxcuda_buffer_new_placed", device.handle, size, heap_type, stride, format, hh, off, sp,
                                exc=errors.BufferException)
        except errors.UnsupportedError as e:
            raise _missing_feature(e) from None
        Resource.__init__(self, h, device)
        self.heap_type, self.stride, self.format = heap_type, stride, format
        self.heap, self.heap_offset, self._bound = heap, off, []

    def upload(self, data, offset=0):
        """Writes data (bytes-like: bytes, bytearray, a C-contiguous NumPy
        array, any buffer) into the buffer at byte offset, and waits.
        Returns None. Raises gfxcuda.OutOfRangeError (a ValueError) when
        the data does not fit from offset; gfxcuda.ArgumentTypeError for
        data that is not bytes-like or an offset that is not an int;
        ValueError for data that is not C-contiguous."""
        if offset.__class__ is not int or not 0 <= offset <= 0xFFFFFFFFFFFFFFFF:
            offset = _check.u64(offset, "Buffer.upload", "offset")
        if type(data) is bytes and not _lib._forked:  # the common case, in one C call
            st = _upload(self._h.handle, offset, data, len(data))
            if st:
                _lib.raise_status("gfxcuda_buffer_upload", st)
            return
        p, n, keep = _host_in(data)
        _lib.call("gfxcuda_buffer_upload", self.handle, offset, p, n)
        del keep

    def upload2d(self, data, pitch, width, height, bytes_per_pixel):
        """Writes data into rows pitch bytes apart, by compushady's rule:
        row y (y < height) gets the next width * bytes_per_pixel bytes of
        data (fewer when data runs out) at byte pitch * y. Data shorter than
        height rows fills the first rows and part of the last one; data
        longer is cut; what the rows do not cover is left as it was.
        Raises ValueError (OutOfRangeError), writing nothing, when a row
        would end past the end of the buffer. pitch, width, height and
        bytes_per_pixel are ints from 0 to 2**32 - 1 (a wrong type:
        gfxcuda.ArgumentTypeError; past the range:
        gfxcuda.ArgumentOverflowError). Returns None."""
        pitch, width, height, bpp = (_check.u32(v, "Buffer.upload2d", name)
                                     for v, name in ((pitch, "pitch"), (width, "width"), (height, "height"),
                                                     (bytes_per_pixel, "bytes_per_pixel")))
        p, n, keep = _host_in(data, "Buffer.upload2d")
        _lib.call("gfxcuda_buffer_upload2d", self.handle, p, n, pitch, width * bpp, height)
        del keep

    def upload_chunked(self, data, stride, filler):
        """Writes data from the start of the buffer in chunks of stride
        bytes, each followed by the bytes of filler (e.g. float3s padded to
        float4s), by compushady's rule: len(data) // stride whole chunks
        are written, a partial last chunk is not. Raises ValueError
        (OutOfRangeError) when len(data) plus a filler per whole chunk
        exceeds the buffer's size, InvalidArgumentError for a stride of 0,
        gfxcuda.ArgumentTypeError for data or filler that is not bytes-like.
        Returns None."""
        stride = _check.u32(stride, "Buffer.upload_chunked", "stride")
        p, n, keep = _host_in(data, "Buffer.upload_chunked")
        fp, fn, fkeep = _host_in(filler, "Buffer.upload_chunked", "filler")
        _lib.call("gfxcuda_buffer_upload_chunked", self.handle, p, n, stride, fp, fn)
        del keep, fkeep

    def readback(self, buffer_or_size=0, offset=0):
        """Reads the buffer back, and waits. buffer_or_size is a size in
        bytes (0, the default: from offset to the end): returns that many
        bytes read from byte offset. Or it is a writable, C-contiguous
        buffer (bytearray, a NumPy array): fills it with its length's
        bytes from offset and returns None. Raises gfxcuda.OutOfRangeError
        (a ValueError) when the bytes asked for do not fit in the buffer;
        gfxcuda.ArgumentTypeError for something that is neither an int nor
        a writable buffer."""
        if offset.__class__ is not int or not 0 <= offset <= 0xFFFFFFFFFFFFFFFF:
            offset = _check.u64(offset, "Buffer.readback", "offset")
        if isinstance(buffer_or_size, int) or hasattr(type(buffer_or_size), "__index__"):
            n = _check.integer(buffer_or_size, "Buffer.readback", "size", 0, _check.U64) or (self.size - offset)
            if n < 0 or offset + n > self.size:
                raise errors.OutOfRangeError("gfxcuda: Buffer.readback(%d, offset=%d): %d bytes at offset %d do not "
                                             "fit in the buffer's %d bytes" % (buffer_or_size, offset, max(n, 0), offset,
                                                                            self.size))
            # A new bytes object the library writes into: one copy (a
            # bytearray and bytes() of it were two).
            out = _lib.new_bytes(None, n)
            _lib.call("gfxcuda_buffer_readback", self.handle, offset, out if n else None, n)
            return out
        p, n, keep = _host_out(buffer_or_size)
        _lib.call("gfxcuda_buffer_readback", self.handle, offset, p, n)
        del keep

    def readback2d(self, pitch, width, height, bytes_per_pixel):
        """Returns height rows of width texels, pitch bytes apart, packed.
        Raises ValueError (OutOfRangeError) when the buffer is smaller than
        pitch * (height - 1) + width * bytes_per_pixel bytes, or than pitch
        (compushady's rule); gfxcuda.ArgumentTypeError or
        gfxcuda.ArgumentOverflowError for a pitch, width, height or
        bytes_per_pixel that is not an int from 0 to 2**32 - 1. The result
        is width * bytes_per_pixel * height bytes."""
        pitch, width, height, bytes_per_pixel = (
            _check.u32(v, "Buffer.readback2d", name) for v, name in ((pitch, "pitch"), (width, "width"),
                                                                     (height, "height"),
                                                                     (bytes_per_pixel, "bytes_per_pixel")))
        row = width * bytes_per_pixel
        n = row * height
        if n > _check.I64:  # what a bytes object can hold
            raise errors.ArgumentOverflowError("gfxcuda: Buffer.readback2d(width=%d, height=%d, bytes_per_pixel=%d): "
                                               "%d bytes; at most 2**63 - 1" % (width, height, bytes_per_pixel, n))
        out = _lib.new_bytes(None, n)  # written in place: one copy
        _lib.call("gfxcuda_buffer_readback2d", self.handle, out if n else None, n, pitch, row, height)
        return out

    def __repr__(self):
        extra = ""
        if self.stride:
            extra = ", stride=%d" % self.stride
        elif self.format:
            extra = ", format=%s" % formats.name(self.format)
        return "<gfxcuda.Buffer %d bytes, %s%s>" % (self.size, _HEAP_NAMES.get(self.heap_type, self.heap_type), extra)


class _Texture(Resource, _Sparse):
    _dim = 2

    def _make(self, width, height, depth, fmt, slices, device, exc, heap=None, heap_offset=0, sparse=False):
        where = type(self).__name__
        device = _device(device, where)
        if fmt.__class__ is bool or not hasattr(type(fmt), "__index__") or operator.index(fmt) not in formats.by_value:
            raise exc("gfxcuda: %s(format=%r): unknown texture format; use a constant of gfxcuda.formats "
                      "(gfxcuda.formats.R8G8B8A8_UNORM, ...)" % (where, fmt))
        fmt = operator.index(fmt)
        width, height, depth, slices = (_check.integer(v, where, n, 1, _check.U32, exc, "a number of texels")
                                        for v, n in ((width, "width"), (height, "height"), (depth, "depth"),
                                                     (slices, "slices")))
        self._exc = exc
        if heap is None and not sparse and not heap_offset:
            h = _lib.new_handle("gfxcuda_texture_new", device.handle, self._dim, width, height, depth, slices, fmt,
                                exc=exc)
        else:
            hh, off, sp = _placement(device, heap, heap_offset, sparse, exc, where)
            try:
                h = _lib.new_handle("gfxcuda_texture_new_placed", device.handle, self._dim, width, height, depth, slices,
                                    fmt, hh, off, sp, exc=exc)
            except errors.UnsupportedError as e:
                raise _missing_feature(e) from None
        Resource.__init__(self, h, device)
        self.format = fmt
        self.heap, self.heap_offset, self._bound = heap, heap_offset if heap is not None else 0, []

    @property
    def width(self):
        """The width in texels."""
        return self._info.width

    @property
    def height(self):
        """The height in texels (1 for a 1D texture)."""
        return self._info.height

    @property
    def depth(self):
        """The depth in texels (1 for 1D and 2D textures)."""
        return self._info.depth

    @property
    def slices(self):
        """The number of array slices (1: not an array)."""
        return self._info.slices

    @property
    def row_pitch(self):
        """The bytes from one row of texels to the next in the texture's
        memory (what a buffer copy of it packs)."""
        return self._info.row_pitch

    def __repr__(self):
        return "<gfxcuda.%s %s %dx%dx%d%s>" % (type(self).__name__, formats.name(self.format), self.width,
                                                self.height, self.depth,
                                                " slices=%d" % self.slices if self.slices > 1 else "")


class Texture1D(_Texture):
    """A 1D texture (slices > 1: an array).

    Texture1D(width, format, slices=1, device=None, heap=None,
    heap_offset=0, sparse=False): width in texels; format, a
    gfxcuda.formats constant; slices, the array's length; device, heap,
    heap_offset and sparse as for Buffer (textures on HEAP_DEFAULT heaps
    only). Raises Texture1DException (an InvalidArgumentError) for a zero
    size, an unknown format or a placement that does not fit;
    MissingFeatureError for sparse=True on a device without it."""
    _dim = 1

    def __init__(self, width, format, slices=1, device=None, heap=None, heap_offset=0, sparse=False):
        self._make(width, 1, 1, format, slices, device, errors.Texture1DException, heap, heap_offset, sparse)


class Texture2D(_Texture):
    """A 2D texture (slices > 1: an array).

    Texture2D(width, height, format, slices=1, device=None, heap=None,
    heap_offset=0, sparse=False): width and height in texels; format, a
    gfxcuda.formats constant; slices, the array's length; device, heap,
    heap_offset and sparse as for Buffer (textures on HEAP_DEFAULT heaps
    only). Raises Texture2DException (an InvalidArgumentError) for a zero
    size, an unknown format or a placement that does not fit;
    MissingFeatureError for sparse=True on a device without it."""
    _dim = 2

    def __init__(self, width, height, format, slices=1, device=None, heap=None, heap_offset=0, sparse=False):
        self._make(width, height, 1, format, slices, device, errors.Texture2DException, heap, heap_offset, sparse)


class Texture3D(_Texture):
    """A 3D texture.

    Texture3D(width, height, depth, format, device=None, heap=None,
    heap_offset=0, sparse=False): width, height and depth in texels;
    format, a gfxcuda.formats constant; device, heap, heap_offset and
    sparse as for Buffer (textures on HEAP_DEFAULT heaps only). Raises
    Texture3DException (an InvalidArgumentError) for a zero size, an
    unknown format or a placement that does not fit; MissingFeatureError
    for sparse=True on a device without it."""
    _dim = 3

    def __init__(self, width, height, depth, format, device=None, heap=None, heap_offset=0, sparse=False):
        self._make(width, height, depth, format, 1, device, errors.Texture3DException, heap, heap_offset, sparse)


class Sampler:
    """Filters and addresses texture reads (an HLSL SamplerState, bound
    with Compute(samplers=[...])).

    Sampler(address_mode_u=SAMPLER_ADDRESS_MODE_WRAP, address_mode_v=...,
    address_mode_w=..., filter_min=SAMPLER_FILTER_POINT, filter_mag=...,
    device=None): address_mode_u, address_mode_v and address_mode_w are
    SAMPLER_ADDRESS_MODE_WRAP, _MIRROR, _CLAMP or _BORDER; filter_min and
    filter_mag are SAMPLER_FILTER_POINT or SAMPLER_FILTER_LINEAR; device
    a Device (None: the current one). The attributes address_mode (u, v,
    w) and filter (min, mag) keep them. Raises SamplerException (an
    InvalidArgumentError) for an unknown mode or filter."""

    def __init__(self, address_mode_u=SAMPLER_ADDRESS_MODE_WRAP, address_mode_v=SAMPLER_ADDRESS_MODE_WRAP,
                 address_mode_w=SAMPLER_ADDRESS_MODE_WRAP, filter_min=SAMPLER_FILTER_POINT,
                 filter_mag=SAMPLER_FILTER_POINT, device=None):
        for v, n, hi in ((address_mode_u, "address_mode_u", 3), (address_mode_v, "address_mode_v", 3),
                         (address_mode_w, "address_mode_w", 3), (filter_min, "filter_min", 1),
                         (filter_mag, "filter_mag", 1)):
            if v.__class__ is bool or not hasattr(type(v), "__index__") or not 0 <= operator.index(v) <= hi:
                raise errors.SamplerException(
                    "gfxcuda: Sampler(%s=%r): unknown %s; use %s" % (
                        n, v, "address mode" if hi == 3 else "filter",
                        "SAMPLER_ADDRESS_MODE_WRAP, _MIRROR, _CLAMP or _BORDER (0 to 3)" if hi == 3
                        else "SAMPLER_FILTER_POINT or SAMPLER_FILTER_LINEAR (0 or 1)"))
        self.device = _device(device, "Sampler")
        self._h = _lib.Handle(_lib.new_handle("gfxcuda_sampler_new", self.device.handle, address_mode_u,
                                              address_mode_v, address_mode_w, filter_min, filter_mag,
                                              exc=errors.SamplerException))
        self.address_mode = (address_mode_u, address_mode_v, address_mode_w)
        self.filter = (filter_min, filter_mag)

    @property
    def handle(self):
        """The library's handle of this object (an int), for gfxcuda's C API.
        Raises gfxcuda.BadHandleError after release()."""
        return self._h.handle

    def __repr__(self):
        return "<gfxcuda.Sampler address=%s filter=%s>" % (self.address_mode, self.filter)


def _list(items, what):
    """The resources of Compute(what=items) as a list, each checked: a
    Buffer or texture (a Sampler in samplers)."""
    if isinstance(items, (str, bytes, Resource, Sampler)) or not hasattr(type(items), "__iter__"):
        raise errors.ArgumentTypeError("gfxcuda: Compute(%s=%r): %s is %s; expected a list (Compute(%s=[...]))"
                                       % (what, items, what, _check.kind(items), what))
    items = list(items)
    cls, expect = (Sampler, "a gfxcuda Sampler") if what == "samplers" else (Resource, "a gfxcuda Buffer or Texture")
    for i, r in enumerate(items):
        if not isinstance(r, cls):
            hint = ""
            if hasattr(r, "compute_view"):
                hint = " (bind its compute view: %s.compute_view())" % type(r).__name__.lower()
            raise errors.ArgumentTypeError("gfxcuda: Compute(%s=[...]): item %d is %s; expected %s%s"
                                           % (what, i, _check.kind(r), expect, hint))
    return items


def _handles(items):
    arr = (ctypes.c_uint64 * max(len(items), 1))()
    for i, r in enumerate(items):
        arr[i] = r.handle
    return arr, len(items)


def _spirv(shader):
    """The SPIR-V bytes of Compute(shader=...)."""
    if not isinstance(shader, (bytes, bytearray, memoryview)):
        raise errors.ArgumentTypeError("gfxcuda: Compute(shader=...): shader is %s; expected SPIR-V bytes (what "
                                       "gfxcuda.shaders.hlsl.compile, glsl.compile or wgsl.compile return)"
                                       % _check.kind(shader))
    return bytes(shader)


def _push(push, where):
    """The bytes of push constants (bytes-like)."""
    if isinstance(push, bytes):
        return push
    try:
        return memoryview(push).tobytes()
    except TypeError:
        raise errors.ArgumentTypeError("gfxcuda: %s(push=%r): push is %s; expected bytes-like push constants (bytes, "
                                       "a NumPy array, struct.pack(...))" % (where, push, _check.kind(push))) from None


def _groups(x, y, z, where="Compute.dispatch"):
    """(x, y, z) checked: workgroup counts, uint32 each."""
    return tuple(_check.integer(v, where, n, 0, _check.U32, what="a number of workgroups")
                 for v, n in ((x, "x"), (y, "y"), (z, "z")))


def _constants(constants):
    """(names as bytes, values as floats) of Compute(constants={...})."""
    if not hasattr(constants, "items"):
        raise errors.ArgumentTypeError("gfxcuda: Compute(constants=%r): constants is %s; expected a dict of name: value"
                                       % (constants, _check.kind(constants)))
    names, values = [], []
    for k, v in constants.items():
        if not isinstance(k, (str, int)) or isinstance(k, bool):
            raise errors.ArgumentTypeError("gfxcuda: Compute(constants={%r: ...}): the key is %s; expected the "
                                           "constant's name (a str) or its SpecId (an int)" % (k, _check.kind(k)))
        try:
            if isinstance(v, (str, bytes)):
                raise TypeError
            f = float(v)
        except (TypeError, ValueError):
            raise errors.ArgumentTypeError("gfxcuda: Compute(constants={%r: %r}): the value is %s; expected a number "
                                           "or a bool" % (k, v, _check.kind(v))) from None
        names.append(str(k).encode())
        values.append(f)
    return names, values


class Compute:
    """A compute pipeline: a SPIR-V shader (shaders.hlsl.compile) with its
    resources bound as compushady binds them: cbv[i] at register b<i>,
    srv[i] at t<i>, uav[i] at u<i>, samplers[i] at s<i>.

    constants (gfxcuda's, not compushady's) sets specialization constants:
    {"name": value} for WGSL override declarations and GLSL
    layout(constant_id = N) consts (a key may also be the SpecId, as a
    string or an int); bools take True/False. A workgroup size made of
    constants follows. A WGSL override without a default must be set.

    Compute(shader, cbv=(), srv=(), uav=(), samplers=(), push_size=0,
    bindless=False, max_bindless=64, device=None, constants=None): shader
    is SPIR-V bytes; cbv, srv and uav are lists of Buffers and textures,
    samplers a list of Samplers; push_size is the most bytes of push
    constants dispatch takes (0: no limit checked here); bindless=True
    makes a pipeline whose resources are bound later (bind_cbv, bind_srv,
    bind_uav) in arrays of max_bindless entries; device is the Device
    (None: the resources' device, else the current one).

    Raises gfxcuda.ArgumentTypeError for a shader that is not bytes, a
    list that is not a list of resources (or of Samplers) or a constant
    that is not a number; gfxcuda.InvalidArgumentError for a constant the
    shader does not declare or constants with bindless=True;
    gfxcuda.DeviceFailedError for bytes that are not valid SPIR-V (the
    message says why); MissingFeatureError for bindless=True on a device
    without descriptor indexing."""

    def __init__(self, shader, cbv=(), srv=(), uav=(), samplers=(), push_size=0, bindless=False, max_bindless=64,
                 device=None, constants=None):
        cbv, srv, uav, samplers = (_list(l, name) for l, name in ((cbv, "cbv"), (srv, "srv"), (uav, "uav"),
                                                                   (samplers, "samplers")))
        if device is None:
            # The device of the resources (a shared device's compute views
            # live on its own), else the current one.
            for r in cbv + srv + uav + samplers:
                if getattr(r, "device", None) is not None:
                    device = r.device
                    break
        self.device = _device(device, "Compute")
        shader = _spirv(shader)
        push_size = _check.integer(push_size, "Compute", "push_size", 0, _check.U32, what="a size in bytes")
        lists = [_handles(l) for l in (cbv, srv, uav, samplers)]
        args = [self.device.handle, shader, len(shader)]
        for arr, n in lists:
            args += [arr, n]
        self.bindless = _check.integer(max_bindless, "Compute", "max_bindless", 1, _check.U32,
                                       what="a number of entries") if bindless else 0
        if constants:
            if self.bindless:
                raise errors.InvalidArgumentError("gfxcuda: constants are not supported with bindless=True")
            names, values = _constants(constants)
            n = len(names)
            args += [(_lib.cp * n)(*names), (ctypes.c_double * n)(*values), n]
            self._h = _lib.Handle(_lib.new_handle("gfxcuda_compute_new_constants", *args))
        elif self.bindless:
            try:
                self._h = _lib.Handle(_lib.new_handle("gfxcuda_compute_new_bindless", *(args + [self.bindless])))
            except errors.UnsupportedError as e:
                raise _missing_feature(e) from None
        else:
            self._h = _lib.Handle(_lib.new_handle("gfxcuda_compute_new", *args))
        self.push_size = push_size
        self._resources = (cbv, srv, uav, samplers)

    def _bind(self, cls, index, resource):
        if not self.bindless:
            raise errors.InvalidArgumentError("gfxcuda: this Compute is not bindless; make it with bindless=True "
                                              "to bind resources after creation")
        where = "Compute.bind_" + ("cbv", "srv", "uav")[cls]
        index = _check.integer(index, where, "index", what="a bind index")
        if not 0 <= index < self.bindless:
            raise errors.InvalidArgumentError("gfxcuda: %s(index=%d): invalid bind index (max: %d, max_bindless - 1)"
                                              % (where, index, self.bindless - 1))
        if not isinstance(resource, Resource):
            raise errors.ArgumentTypeError("gfxcuda: %s(%d, %s): it is %s; expected a gfxcuda Buffer or Texture"
                                           % (where, index, ("cbv", "srv", "uav")[cls], _check.kind(resource)))
        _lib.call("gfxcuda_compute_bind", self._h.handle, cls, index, resource.handle)
        lst = self._resources[cls]
        if index >= len(lst):
            lst.extend([None] * (index + 1 - len(lst)))
        lst[index] = resource  # keeps it alive while the pipeline may use it

    def bind_cbv(self, index, cbv):
        """Binds cbv, a constant buffer, as entry `index` (from 0 to
        max_bindless - 1) of the CBVs of a bindless pipeline. Returns None.
        Raises gfxcuda.InvalidArgumentError when the pipeline is not
        bindless or index is out of range, gfxcuda.ArgumentTypeError when
        cbv is not a Buffer or texture."""
        self._bind(0, index, cbv)

    def bind_srv(self, index, srv):
        """Binds srv, a buffer or texture, as entry `index` of the SRVs
        (register t<index>, or element index - r of an array declared at
        t<r>) of a bindless pipeline. Returns None. Raises as bind_cbv."""
        self._bind(1, index, srv)

    def bind_uav(self, index, uav):
        """Binds uav, a buffer or texture, as entry `index` of the UAVs of
        a bindless pipeline. Returns None. Raises as bind_cbv."""
        self._bind(2, index, uav)

    def dispatch(self, x, y, z, push=None):
        """Runs x*y*z workgroups (each an int from 0 to 2**32 - 1), with
        push (bytes-like, None: none) as the push constants, and waits.
        Returns None. Raises gfxcuda.InvalidArgumentError for more push
        constants than push_size, gfxcuda.ArgumentTypeError or
        gfxcuda.ArgumentOverflowError for a count that is not such an int,
        gfxcuda.DeviceFailedError when the device fails."""
        try:  # uint32s (ctypes would wrap the others): plain int operations
            bad = (x | y | z) >> 32
        except TypeError:
            bad = True
        if bad:
            x, y, z = _groups(x, y, z)
        if push:
            push = _push(push, "Compute.dispatch")
            if self.push_size and len(push) > self.push_size:
                raise errors.InvalidArgumentError("gfxcuda: %d bytes of push constants; push_size is %d" % (len(push), self.push_size))
            _lib.call("gfxcuda_compute_dispatch", self._h.handle, x, y, z, push, len(push))
            return
        h = self._h._h
        if not h or _lib._forked:
            _lib.call("gfxcuda_compute_dispatch", self._h.handle, x, y, z, None, 0)  # raises
            return
        st = _dispatch(h, x, y, z, None, 0)  # one C call
        if st:
            _lib.raise_status("gfxcuda_compute_dispatch", st)

    def dispatch_indirect(self, indirect_buffer, offset=0, push=None):
        """Runs the number of workgroups the GPU reads from indirect_buffer
        (a Buffer) at byte offset (three uint32: x, y, z), with push
        (bytes-like, None: none) as the push constants, and waits. Returns
        None. Raises gfxcuda.ArgumentTypeError when indirect_buffer is not
        a Buffer, gfxcuda.OutOfRangeError when the three counts do not fit
        at offset, gfxcuda.InvalidArgumentError for more push constants
        than push_size."""
        push = _push(push, "Compute.dispatch_indirect") if push else b""
        if self.push_size and len(push) > self.push_size:
            raise errors.InvalidArgumentError("gfxcuda: %d bytes of push constants; push_size is %d" % (len(push), self.push_size))
        if not isinstance(indirect_buffer, Buffer):
            raise errors.ArgumentTypeError("gfxcuda: Compute.dispatch_indirect(indirect_buffer=%r): it is %s; "
                                           "expected a gfxcuda Buffer holding three uint32 (x, y, z)"
                                           % (indirect_buffer, _check.kind(indirect_buffer)))
        offset = _check.u64(offset, "Compute.dispatch_indirect", "offset")
        _lib.call("gfxcuda_compute_dispatch_indirect", self._h.handle, indirect_buffer.handle, offset,
                  push or None, len(push))

    def __repr__(self):
        c, s, u, sm = self._resources
        return "<gfxcuda.Compute cbv=%d srv=%d uav=%d samplers=%d>" % (len(c), len(s), len(u), len(sm))
