"""Frame rings between processes: a producer's Ring and a consumer's
RingReader (open_ring), whose frames are arrays through DLPack."""

import ctypes

from . import _check, _lib, errors
from ._cuda import DLPACK_EXCHANGE_API, _Array, _dtype_of, _nbytes, _shared_device, _stream_int, kDLCPU

_HOST_MEMORY = 11
_PEER_MODES = {"copy": 0, "access": 1}


def _device_handle(device, cuda, where="Ring"):
    """(library handle, CUDA ordinal or None) of where slots live: a CUDA
    ordinal (shared slots) or a compushady-style Device (host slots)."""
    if cuda is not None:
        cuda = _check.device(cuda, where, "cuda")
        return _shared_device(cuda, where), cuda
    from ._compute import _device
    return _device(device, where).handle, None


class Slot(_Array):
    """One slot of a ring as an array: host memory (numpy.from_dlpack,
    __array_interface__) or CUDA memory (torch.from_dlpack,
    __cuda_array_interface__). Its memory lives while any array made from
    it does; its content is the frame's only while the frame is held.
    Ring.slot(i) and Frame.array give slots (Slot(h, shape, dtype, cuda)
    wraps the library's handle h of a slot, as an array of shape and
    dtype, in CUDA memory of device cuda or, for None, host memory).
    ``host`` says which; raises gfxcuda.OutOfRangeError when shape and
    dtype need more bytes than a slot has."""

    __dlpack_c_exchange_api__ = DLPACK_EXCHANGE_API

    def __init__(self, h, shape, dtype, cuda):
        i = _lib.info(h)
        _, _, itemsize = _dtype_of(dtype)
        if _nbytes(shape, itemsize) > i.size:
            _lib.call("gfxcuda_release", h)
            raise errors.OutOfRangeError("gfxcuda: frames of shape %r and %s need %d bytes; the ring's slots have %d"
                                         % (tuple(shape), dtype, _nbytes(shape, itemsize), i.size))
        self.host = i.kind == _HOST_MEMORY
        self._setup(h, i.device_ptr, shape, dtype, 0 if self.host else cuda)
        if self.host:
            self._dl_device = (kDLCPU, 0)

    @property
    def __cuda_array_interface__(self):
        """The CUDA Array Interface of a CUDA slot (see
        CudaBuffer.__cuda_array_interface__). Raises AttributeError for a
        host slot, which has __array_interface__ instead."""
        if self.host:
            raise AttributeError("a host-visible ring slot is not CUDA memory; use numpy.from_dlpack or numpy.asarray")
        return _Array.__cuda_array_interface__.fget(self)

    @property
    def __array_interface__(self):
        """NumPy's array interface of a host slot (a new dict: shape,
        typestr, data, strides, version): numpy.asarray(slot) reads it.
        Raises AttributeError for a CUDA slot."""
        if not self.host:
            raise AttributeError("a CUDA ring slot is not host memory; use torch.from_dlpack or cupy.asarray")
        return dict(self._interface())

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        """Returns a DLPack capsule over the slot (no copy): CPU memory for
        a host slot (numpy.from_dlpack), CUDA memory otherwise (stream,
        max_version, dl_device and copy as CudaBuffer.__dlpack__ takes
        them). Raises BufferError for a dl_device the slot is not on, or
        copy=True of a host slot."""
        if self.host:
            if dl_device is not None and tuple(dl_device) != (kDLCPU, 0):
                raise BufferError("gfxcuda: a host-visible ring slot is CPU memory, not device %r" % (tuple(dl_device),))
            if copy:
                raise BufferError("gfxcuda: copy=True of a host ring slot: use numpy.array(slot) instead")
            _lib.check_fork()
            return self._capsule(max_version is not None and tuple(max_version)[0] >= 1)
        return _Array.__dlpack__(self, stream=stream, max_version=max_version, dl_device=dl_device, copy=copy)

    def write(self, data):
        """Copies data (bytes-like, at most nbytes long) into a host slot
        from its start. Returns None. Raises gfxcuda.InvalidArgumentError
        for a CUDA slot (write it with torch/CuPy), gfxcuda.OutOfRangeError
        for more than nbytes, gfxcuda.ArgumentTypeError for data that is
        not bytes-like."""
        if not self.host:
            raise errors.InvalidArgumentError("gfxcuda: write() is for host slots; write CUDA slots with torch/CuPy")
        try:
            mv = memoryview(data).cast("B")
        except TypeError:
            raise errors.ArgumentTypeError("gfxcuda: Slot.write(data=...): data is %s; expected bytes-like data (bytes, "
                                           "a NumPy array)" % _check.kind(data)) from None
        if len(mv) > self.nbytes:
            raise errors.OutOfRangeError("gfxcuda: %d bytes into a slot of %d" % (len(mv), self.nbytes))
        ctypes.memmove(self.ptr, bytes(mv) if mv.readonly else (ctypes.c_char * len(mv)).from_buffer(mv), len(mv))

    def __repr__(self):
        return "<gfxcuda.Slot %s shape=%s dtype=%s>" % ("host" if self.host else "cuda:%d" % self.device, self.shape,
                                                        self.typestr)


class Ring:
    """The producer's side of a frame ring shared with other processes:
    ``slots`` slots of ``shape`` and ``dtype``, host-visible (on a
    compushady-style ``device``) or CUDA memory (``cuda=ordinal``). Give
    ``token`` to consumers (gfxcuda.open_ring). For each frame: ``i =
    ring.acquire()``, write ``ring.slot(i)``, ``ring.publish(i)``.

    Consumers in other containers: ``dir`` is the filesystem socket's
    directory both mount, ``allow_uids`` and ``allow_gids`` the other users
    and groups that may open the ring, ``rendezvous`` the ways to reach it
    ("abstract,fs,pidfd", "auto", "all"): see gfxcuda.share_options and
    docs/sharing.md, "Containers".

    Ring(shape, dtype="float32", slots=3, device=None, cuda=None,
    drop_oldest=False, dir=None, rendezvous=None, allow_uids=None,
    allow_gids=None): shape (an int or a tuple of ints) and dtype (what
    numpy.dtype takes) of each frame; slots, 2 to 64; device, a
    compushady-style Device for host-visible slots (None: the current
    one); cuda, a CUDA ordinal for CUDA slots; drop_oldest=True makes a
    producer with no free slot reuse the oldest frame no consumer holds
    instead of waiting for every consumer to release it. The attributes shape, dtype, cuda and slots (the Slot
    list) keep them. Raises gfxcuda.ArgumentTypeError for an argument of
    the wrong type, gfxcuda.InvalidArgumentError for a number of slots
    outside 2 to 64 or a share option the library refuses,
    gfxcuda.NoCUDAError for cuda= without a usable CUDA driver."""

    def __init__(self, shape, dtype="float32", slots=3, device=None, cuda=None, drop_oldest=False,
                 dir=None, rendezvous=None, allow_uids=None, allow_gids=None):
        _, _, itemsize = _dtype_of(dtype)
        shape, n = _check.shape(shape, "Ring", itemsize)
        # The library's range (gfxcuda_ring_new), said in this call's words.
        slots = _check.integer(slots, "Ring", "slots", 2, 64, what="a number of slots", hi_why="a ring has 2 to 64 slots")
        self.shape, self.dtype = shape, dtype
        dev, self.cuda = _device_handle(device, cuda)
        n = max(n, 1)
        if dir or rendezvous or allow_uids or allow_gids:
            self._h = _lib.Handle(_lib.new_handle("gfxcuda_ring_new_with", dev, n, slots, int(bool(drop_oldest)),
                                                  *_lib.share_args(dir, rendezvous, allow_uids, allow_gids)))
        else:
            self._h = _lib.Handle(_lib.new_handle("gfxcuda_ring_new", dev, n, slots, int(bool(drop_oldest))))
        self.slots = [Slot(_lib.new_handle("gfxcuda_ring_slot", self._h.handle, i), self.shape, dtype, self.cuda)
                      for i in range(slots)]

    @property
    def token(self):
        """The ring's token (str) for consumers in other processes
        (gfxcuda.open_ring). Raises gfxcuda.BadHandleError after close()."""
        return _lib.take_bytes("gfxcuda_share_token", self._h.handle).decode()

    def wait_consumers(self, n=1, timeout=None):
        """Waits until at least n consumers have opened the ring (timeout
        seconds; None: no limit). Returns None. Raises
        gfxcuda.WaitTimeoutError (a TimeoutError) when the time runs out,
        gfxcuda.ArgumentTypeError for an n or timeout of the wrong type."""
        n = _check.integer(n, "Ring.wait_consumers", "n", 0, _check.I32, what="a number of consumers")
        _lib.call("gfxcuda_ring_wait_consumers", self._h.handle, n, _check.timeout_ms(timeout, "Ring.wait_consumers"))

    def acquire(self, timeout=None):
        """Returns the index of a slot the producer may write, waiting for
        one (timeout seconds; None: no limit) while consumers hold them
        all. Raises gfxcuda.WaitTimeoutError (a TimeoutError) when the time
        runs out, gfxcuda.BadHandleError after close()."""
        s = ctypes.c_uint32()
        _lib.call("gfxcuda_ring_acquire", self._h.handle, _check.timeout_ms(timeout, "Ring.acquire"), ctypes.byref(s))
        return s.value

    def slot(self, i):
        """Returns slot i (a Slot: write the frame into it). Raises
        IndexError for an index outside the slots (none after close())."""
        return self.slots[i]

    def publish(self, i, user=b"", stream=None, timeout=None):
        """Publishes slot i as the next frame, with user metadata (bytes);
        CUDA slots: first waits for the work queued on stream (None: the
        legacy default stream), on the host for up to timeout seconds
        (None: no limit). Returns the frame's sequence number. Raises gfxcuda.InvalidArgumentError
        for an index that is not a slot, gfxcuda.ArgumentTypeError for
        user that is not bytes, gfxcuda.WaitTimeoutError when the time
        runs out."""
        if self.slots:  # else closed: the library says so
            i = _check.integer(i, "Ring.publish", "i", 0, len(self.slots) - 1, what="a slot index (Ring.acquire())",
                               hi_why="the ring has %d slots" % len(self.slots))
        if not isinstance(user, (bytes, bytearray, memoryview)):
            raise errors.ArgumentTypeError("gfxcuda: Ring.publish(user=%r): user is %s; expected bytes"
                                           % (user, _check.kind(user)))
        u = bytes(user)
        seq = ctypes.c_uint64()
        _lib.call("gfxcuda_ring_publish", self._h.handle, i, u, len(u), _stream_int(stream, "Ring.publish"),
                  _check.timeout_ms(timeout, "Ring.publish"), ctypes.byref(seq))
        return seq.value

    def close(self):
        """Tells consumers no frame follows; they finish the published ones
        (then their next() raises gfxcuda.ClosedError). Idempotent;
        returns None and raises nothing."""
        self.slots = []
        self._h.release()

    def __repr__(self):
        where = "host" if self.cuda is None else "cuda:%s" % (self.cuda,)
        if not self._h._h:
            return "<gfxcuda.Ring shape=%s dtype=%s %s closed>" % (self.shape, self.dtype, where)
        return "<gfxcuda.Ring %d slots shape=%s dtype=%s %s>" % (len(self.slots), self.shape, self.dtype, where)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False


class Frame:
    """A frame held by a RingReader: ``array`` is its slot (DLPack/array
    interfaces: ``torch.from_dlpack(frame)``, ``numpy.from_dlpack(frame)``
    work on the frame itself too). release() (or the with block, or the
    reader's next frame) gives the slot back to the producer; after that the
    producer may overwrite what arrays made from it show.

    Made by RingReader.next() (Frame(reader, slot, seq, dropped, user) is
    the reader's; it raises IndexError for a slot the reader lacks).
    Attributes: slot (its index), seq (the frame's
    sequence number), dropped (frames this reader missed before it, as
    drop_oldest lets the producer reuse them), user (the metadata bytes
    publish was given), array (the Slot), released."""

    def __init__(self, reader, slot, seq, dropped, user):
        self._reader, self.slot, self.seq, self.dropped, self.user = reader, slot, seq, dropped, user
        self.array = reader.slots[slot]
        self.released = False

    __dlpack_c_exchange_api__ = DLPACK_EXCHANGE_API

    def __dlpack__(self, **kw):
        """The slot's __dlpack__ (kw: stream, max_version, dl_device,
        copy): returns a DLPack capsule over the frame, as Slot.__dlpack__
        does and raising what it raises."""
        return self.array.__dlpack__(**kw)

    @property
    def _gfxcuda_dlpack(self):
        """The C exchange API's binding: the slot's."""
        return self.array._gfxcuda_dlpack

    def __dlpack_device__(self):
        """Returns the slot's DLPack device: (2, ordinal) CUDA, (1, 0) host."""
        return self.array.__dlpack_device__()

    @property
    def __cuda_array_interface__(self):
        """The slot's CUDA Array Interface (CUDA slots; AttributeError for
        host ones)."""
        return self.array.__cuda_array_interface__

    @property
    def __array_interface__(self):
        """The slot's NumPy array interface (host slots; AttributeError for
        CUDA ones)."""
        return self.array.__array_interface__

    def numpy(self):
        """Returns a NumPy copy of the frame (host slots; NumPy needed).
        Raises ImportError without NumPy."""
        import numpy
        return numpy.array(self.array)

    def release(self):
        """Gives the frame's slot back to the producer (the reader's next
        frame, or closing the reader, does too). Idempotent; returns None
        and raises nothing."""
        if not self.released:
            self.released = True
            if self._reader._frame is self:
                self._reader._frame = None
                _lib.call("gfxcuda_ring_release", self._reader._h.handle)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.release()
        return False

    def __repr__(self):
        return "<gfxcuda.Frame seq=%d slot=%d dropped=%d%s>" % (self.seq, self.slot, self.dropped,
                                                              " released" if self.released else "")


class RingReader:
    """A consumer of another process's ring (gfxcuda.open_ring). Iterate it
    for Frames; iteration ends when the producer closes the ring.

    RingReader(token, shape, dtype="float32", device=None, cuda=None,
    timeout=None, stream=None, peer=None) is gfxcuda.open_ring(...), whose
    docstring says what each argument is and what it raises. Attributes:
    slots (the Slot list), cuda (the CUDA ordinal of the frames, None for
    host frames), peer, direct (see below), timeout and stream (next()'s
    defaults)."""

    def __init__(self, token, shape, dtype="float32", device=None, cuda=None, timeout=None, stream=None, peer=None):
        if isinstance(token, str):
            tok = token.encode()
        elif isinstance(token, (bytes, bytearray, memoryview)):
            tok = bytes(token)
        else:
            raise errors.ArgumentTypeError("gfxcuda: open_ring(token=%r): token is %s; expected the producer's "
                                           "Ring.token (a str)" % (token, _check.kind(token)))
        _, _, itemsize = _dtype_of(dtype)
        shape, _ = _check.shape(shape, "open_ring", itemsize)
        _check.timeout_ms(timeout, "open_ring")
        if peer is not None:
            if peer not in _PEER_MODES:
                raise errors.InvalidArgumentError("gfxcuda: peer=%r: give 'copy' or 'access'" % (peer,))
            if cuda is None or isinstance(cuda, bool):
                raise errors.InvalidArgumentError(
                    "gfxcuda: peer=%r needs cuda=, the GPU the frames are used on (an ordinal or a UUID)" % (peer,))
            self._h = _lib.Handle(_lib.new_handle("gfxcuda_ring_open_peer", str(cuda).encode(), tok, len(tok),
                                                  _PEER_MODES[peer]))
            d = ctypes.c_int32()
            _lib.call("gfxcuda_ring_peer_direct", self._h.handle, ctypes.byref(d))
            direct = bool(d.value)
        else:
            dev, self.cuda = _device_handle(device, cuda, "open_ring")
            self._h = _lib.Handle(_lib.new_handle("gfxcuda_ring_open", dev, tok, len(tok)))
            direct = None
        info = _lib.info(self._h.handle)
        if peer is not None:
            self.cuda = info.cuda_device
        self.peer = peer
        #: Whether frames arrive without passing through host memory (peer
        #: readers: the frames are copied GPU to GPU over a peer path, or
        #: read in place, or both ends share a GPU); None for a reader on
        #: the producer's GPU without peer=.
        self.direct = direct
        n = info.slices
        self.slots = [Slot(_lib.new_handle("gfxcuda_ring_slot", self._h.handle, i), shape, dtype, self.cuda)
                      for i in range(n)]
        self.timeout, self.stream = timeout, stream
        self._frame = None
        self._user = ctypes.create_string_buffer(4096)

    def next(self, timeout=None, stream=None):
        """Releases the frame held and waits for the next one (timeout
        seconds, None: the reader's timeout). stream (None: the reader's
        stream) is the CUDA stream the frame is used on: where the
        producer's frame carries a semaphore value, that stream (CUDA
        slots; else the host) waits for it, and peer copies are queued on
        it. Returns the Frame.
        Raises gfxcuda.ClosedError (an EOFError) after the last frame of a
        closed ring, gfxcuda.WaitTimeoutError (a TimeoutError) when the
        time runs out."""
        if self._frame is not None:
            self._frame.released = True
            self._frame = None
        slot, seq, dropped, n = ctypes.c_uint32(), ctypes.c_uint64(), ctypes.c_uint64(), ctypes.c_size_t()
        ms = _check.timeout_ms(self.timeout if timeout is None else timeout, "RingReader.next")
        _lib.call("gfxcuda_ring_next", self._h.handle, ms,
                  _stream_int(stream if stream is not None else self.stream, "RingReader.next"), ctypes.byref(slot), ctypes.byref(seq),
                  ctypes.byref(dropped), self._user, len(self._user), ctypes.byref(n))
        f = Frame(self, slot.value, seq.value, dropped.value, self._user.raw[:min(n.value, len(self._user))])
        self._frame = f
        return f

    def __iter__(self):
        """Returns the reader itself: ``for frame in reader:``."""
        return self

    def __next__(self):
        """Returns next(): the next Frame. Raises StopIteration when the
        ring is closed and every frame was read."""
        try:
            return self.next()
        except errors.ClosedError:
            raise StopIteration from None

    def close(self):
        """Detaches from the ring: the frame held is given back and the
        slots are dropped. Idempotent; returns None and raises nothing."""
        self._frame = None
        self.slots = []
        self._h.release()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def __repr__(self):
        where = "host" if self.cuda is None else "cuda:%s" % (self.cuda,)
        peer = "" if self.peer is None else " peer=%s direct=%s" % (self.peer, self.direct)
        if not self._h._h:
            return "<gfxcuda.RingReader %s%s closed>" % (where, peer)
        s = self.slots[0]
        return "<gfxcuda.RingReader %d slots shape=%s dtype=%s %s%s>" % (len(self.slots), s.shape, s.typestr, where, peer)


def open_ring(token, shape, dtype="float32", device=None, cuda=None, timeout=None, stream=None, peer=None):
    """Attaches to the ring another process shared (its Ring.token): frames
    of shape and dtype, in host memory (device: a compushady-style Device,
    default the current one) or CUDA memory (cuda=ordinal: frames for
    torch.from_dlpack). Iterate it; release each frame when done.

    Frames of a ring on another GPU of this host: peer="copy" copies each
    frame to the GPU cuda= names (an ordinal, or a UUID as nvidia-smi -L
    prints it: "GPU-5c3e..."), on the stream next() is given, and gives the
    slot back to the producer after the copy; peer="access" reads it in
    place through peer access (gfxcuda.UnsupportedError where the topology
    cannot). Both GPUs must be visible to this process.

    token is the producer's Ring.token (a str, or bytes); timeout is how
    long next() waits by default (seconds; None: no limit) and stream the
    CUDA stream it orders frames on (None: the legacy default stream).
    Returns the RingReader. Raises gfxcuda.ArgumentTypeError for a token
    that is not one or an argument of the wrong type,
    gfxcuda.InvalidArgumentError for a token that does not open (its ring
    closed, another user's without allow_uids) or a peer other than
    "copy" and "access" (or without cuda=), gfxcuda.OutOfRangeError when
    shape and dtype need more bytes than the ring's slots have."""
    return RingReader(token, shape, dtype, device=device, cuda=cuda, timeout=timeout, stream=stream, peer=peer)
