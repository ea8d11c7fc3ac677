"""PyTorch's own tensors seen by Vulkan with no copy: a torch.cuda.MemPool
whose memory libgfxcuda allocates (torch_pool), and shared buffers over
tensors allocated in it (from_torch). See docs/torch-memory.md."""

import ctypes
import os
import sys
import threading

from . import _check, _cuda, _lib, errors

_pools = {}
_lock = threading.Lock()
_allocator = None
_dtypes = None  # torch dtype -> NumPy's name


def _torch():
    torch = sys.modules.get("torch")
    if torch is None:
        import torch  # noqa: F811 - only when the caller has not imported it
    return torch


def _index(torch, device):
    """The CUDA ordinal of device (None: torch's current device)."""
    if device is None:
        return torch.cuda.current_device()
    if isinstance(device, int):
        return _check.device(device, "gfxcuda.torch_pool")
    d = torch.device(device)
    if d.type != "cuda":
        raise ValueError("gfxcuda: device %r is not a CUDA device" % (device,))
    return d.index if d.index is not None else torch.cuda.current_device()


def torch_pool(device=None, new=False):
    """The torch.cuda.MemPool of CUDA device `device` (None: torch's current
    device; an int or a torch.device) whose segments libgfxcuda allocates
    (cuMemCreate, exportable as POSIX descriptors): tensors allocated under
    ``with torch.cuda.use_mem_pool(gfxcuda.torch_pool()):`` can be seen by
    Vulkan without a copy (gfxcuda.from_torch). One pool per device, made
    on first use and kept for the process: like every private pool, torch
    keeps its segments cached (empty_cache does not free a live pool's
    blocks). new=True makes a pool of its own instead, over the same
    allocator, which gives its segments back once it is deleted and
    torch.cuda.empty_cache() runs.

    Returns the torch.cuda.MemPool. Raises ImportError without torch,
    ValueError for a device that is not a CUDA device,
    gfxcuda.ArgumentTypeError or gfxcuda.InvalidArgumentError for an int
    device that is not an ordinal; torch's own errors where torch has
    no torch.cuda.MemPool (an older torch) or no CUDA."""
    torch = _torch()
    idx = _index(torch, device)
    with _lock:
        pool = None if new else _pools.get(idx)
        if pool is None:
            global _allocator
            if _allocator is None:
                _allocator = torch.cuda.memory.CUDAPluggableAllocator(os.path.abspath(_lib._path), "gfxcuda_torch_alloc",
                                                                      "gfxcuda_torch_free")
            with torch.cuda.device(idx):
                pool = torch.cuda.MemPool(_allocator.allocator())
            if not new:
                _pools[idx] = pool
        return pool


def torch_pool_stats(device=None):
    """Returns the torch_pool segments of CUDA device `device` (None:
    torch's current device; an int or a torch.device) as the library
    counts them: a dict of ``segments`` (allocated, not freed by torch),
    ``bytes`` (their sizes) and ``held`` (freed by torch, kept mapped by
    shared buffers). Raises gfxcuda.ArgumentTypeError or
    gfxcuda.InvalidArgumentError for an int device that is not an
    ordinal, ValueError for a device that is not a CUDA device, ImportError
    without torch when device is not an int."""
    idx = _check.device(device, "torch_pool_stats") if isinstance(device, int) else _index(_torch(), device)
    n, b, held = ctypes.c_uint64(), ctypes.c_uint64(), ctypes.c_uint64()
    _lib.call("gfxcuda_torch_pool_stats", idx, ctypes.byref(n), ctypes.byref(b), ctypes.byref(held))
    return {"segments": n.value, "bytes": b.value, "held": held.value}


def _torch_stream(torch, stream, dev):
    """stream as a torch stream of device dev: None, torch's current stream;
    a torch stream; 0 or 1, the legacy default stream; another int or a
    CuPy/Numba stream, an external stream of that handle."""
    if stream is None:
        return torch.cuda.current_stream(dev)
    if isinstance(stream, torch.cuda.Stream):
        return stream
    h = _cuda._stream_int(stream)
    if h in (0, 1):
        return torch.cuda.default_stream(dev)
    if h == 2:
        raise ValueError("gfxcuda.from_torch: stream 2 (the per-thread default stream) has no torch stream object; "
                         "pass torch.cuda.current_stream()")
    return torch.cuda.ExternalStream(h, device=dev)


def _numpy_dtype(torch, dt):
    """NumPy's name of a torch dtype (what SharedBuffer takes)."""
    global _dtypes
    if _dtypes is None:
        names = ("float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
                 "uint64", "bool", "complex64", "complex128")
        _dtypes = {getattr(torch, n): n for n in names if hasattr(torch, n)}
    name = _dtypes.get(dt)
    if name is None:
        raise ValueError("gfxcuda: from_torch: dtype %s has no NumPy equivalent for a shared buffer; view the tensor as "
                         "an integer type of the same size first (t.view(torch.int16) for bfloat16)" % (dt,))
    return name


def from_torch(t, copy=False, stream=None, device=None):
    """A gfxcuda.SharedBuffer over the bytes of torch tensor t, with t's
    shape and dtype (and strides, for a transposed tensor): compute views
    for shaders (buf.compute_view()), texture copies, hand-offs
    (gfxcuda.to_cuda), sharing (buf.ipc_handle). No copy: t must live in
    gfxcuda.torch_pool(); its segment is imported into Vulkan once, and the
    buffer is a view at t's offset (aligned as the device needs of storage
    buffers: tensors the pool allocates are; some slices are not). t must
    be dense: contiguous, or a permutation of a contiguous tensor.

    Vulkan work on the buffer waits (on the GPU) for the work queued on
    `stream` (None: torch's current stream of t's device) so far, which
    produced t. For torch to read what Vulkan wrote, hand the buffer to
    CUDA: ``with gfxcuda.to_cuda([buf], torch.cuda.current_stream()):``.

    The buffer keeps the segment mapped after torch frees t and the pool
    releases the block: release the buffer (buf.release() or dropping it)
    when done. copy=True instead makes a new SharedBuffer and copies t's
    bytes into it on `stream` (for tensors outside the pool, CPU tensors
    included), ordered the same way. device (optional) is the CUDA device
    t must be on.

    Returns the SharedBuffer. Raises gfxcuda.ArgumentTypeError when t is
    not a torch.Tensor; ValueError for a tensor on the CPU without
    copy=True, on another device than `device`, of a dtype NumPy lacks
    (bfloat16: view it as int16 first), or for stream 2;
    gfxcuda.InvalidArgumentError for a tensor outside gfxcuda.torch_pool()
    or one that is not dense (the message says which and what to do)."""
    torch = sys.modules.get("torch")
    if torch is None or not isinstance(t, torch.Tensor):
        raise errors.ArgumentTypeError("gfxcuda: from_torch(t=...): t is %s; expected a torch.Tensor (torch.as_tensor(a) "
                                       "makes one of a NumPy array)" % _check.kind(t))
    dtype = _numpy_dtype(torch, t.dtype)
    want = None if device is None else _index(torch, device)
    if t.device.type != "cuda":
        if not copy:
            raise ValueError("gfxcuda.from_torch: the tensor is on %s; Vulkan sees CUDA tensors allocated in "
                             "gfxcuda.torch_pool() (move it with .cuda() under torch.cuda.use_mem_pool(pool)), or pass "
                             "copy=True" % (t.device,))
        dev = torch.cuda.current_device() if want is None else want
    else:
        dev = t.device.index
        if want is not None and want != dev:
            raise ValueError("gfxcuda.from_torch: the tensor is on cuda:%d, not cuda:%d (move it with "
                             ".to('cuda:%d'), or pass device=%d)" % (dev, want, want, dev))
    st = _torch_stream(torch, stream, dev)
    s = st.cuda_stream
    if copy:
        buf = _cuda.SharedBuffer(tuple(t.shape), dtype, device=dev)
        with torch.cuda.device(dev), torch.cuda.stream(st):
            torch.from_dlpack(buf).copy_(t, non_blocking=True)
        _cuda.after_cuda([buf], s)
        return buf
    code, bits, itemsize = _cuda._dtype_of(dtype)
    desc, keep = _lib.describe(tuple(t.shape), code, bits, tuple(t.stride()), t.data_ptr(), (_cuda.kDLCUDA, dev))
    h = _lib.new_handle("gfxcuda_torch_buffer", _cuda._shared_device(dev), ctypes.byref(desc), s)
    # The buffer's strides in bytes; None where the library finds the
    # tensor C-contiguous.
    bstrides = None if _lib.tensor_info(ctypes.byref(desc)).contiguous else tuple(k * itemsize for k in t.stride())
    return _cuda.SharedBuffer._from_handle(h, tuple(t.shape), dtype, dev, strides=bstrides)

