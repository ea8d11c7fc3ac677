"""CUDA Python and CV-CUDA style buffers: gfxcuda.CudaBuffer owns CUDA
memory or wraps memory someone else allocated, copies to and from the host,
and hands the memory to CuPy and PyTorch without copies
(__cuda_array_interface__ and DLPack). Each step checks its bytes.

    python3 cuda_buffers.py

See docs/cuda-python-buffers.md.
"""

import sys

import numpy

import gfxcuda

SHAPE = (480, 640, 3)  # an HWC image of uint8


def round_trip(host, out=None):
    """host → a new CudaBuffer → host (into out, or a new array)."""
    buf = gfxcuda.CudaBuffer(host.shape, host.dtype)  # owns new CUDA memory
    buf.copy_from_host(host)                          # host → device
    return buf, buf.copy_to_host(out)                 # device → host


def foreign(host, out=None):
    """Memory that cuda-python allocated, wrapped without owning it."""
    from cuda.bindings import runtime as cudart

    err, ptr = cudart.cudaMalloc(host.nbytes)
    if err != cudart.cudaError_t.cudaSuccess:
        raise MemoryError("cudaMalloc: %s" % err)
    try:
        buf = gfxcuda.CudaBuffer.from_cuda(ptr, host.shape, host.dtype)  # a view: buf.owned is False
        buf.copy_from_host(host)
        out = buf.copy_to_host(out)
        del buf              # frees nothing: the memory is not gfxcuda's
    finally:
        cudart.cudaFree(ptr)  # whoever allocated it frees it, after its last user
    return out


def to_cupy_and_torch(buf):
    """One CudaBuffer seen by CuPy and PyTorch: no copies, one pointer."""
    import cupy
    import torch

    c = cupy.asarray(buf)     # through __cuda_array_interface__
    t = torch.from_dlpack(buf)  # through DLPack
    assert c.data.ptr == t.data_ptr() == buf.ptr
    c += 1                    # CuPy writes on the legacy default stream,
    t.mul_(3)                 # torch's default stream too: ordered, no sync
    return c, t


def from_torch(t):
    """A torch tensor's memory as a CudaBuffer (a view; t keeps the memory)."""
    dtype = str(t.dtype).replace("torch.", "")
    return gfxcuda.CudaBuffer.from_cuda(t.data_ptr(), tuple(t.shape), dtype, owner=t)


def on_a_stream(host, out=None):
    """Work on a torch side stream, then a copy back to the host."""
    import torch

    buf = gfxcuda.CudaBuffer.from_numpy(host)  # the copy is done when this returns
    s = torch.cuda.Stream()
    with torch.cuda.stream(s):
        t = torch.from_dlpack(buf)   # buf has no pending work: nothing to wait for
        t.mul_(3).add_(1)            # queued on s
    s.synchronize()                  # copy_to_host does not wait for s: wait here
    return buf.copy_to_host(out)


def lifetimes(host):
    """A DLPack consumer keeps the memory alive after gfxcuda lets go."""
    import torch

    before = gfxcuda.live_handles()
    buf = gfxcuda.CudaBuffer.from_numpy(host)
    t = torch.from_dlpack(buf)
    buf.release()                    # gfxcuda's reference is gone, the memory is not:
    assert gfxcuda.live_handles() == before + 1  # t holds it
    seen = t.cpu().numpy()
    del t                            # the last reference: the memory is freed
    assert gfxcuda.live_handles() == before
    return seen


def main():
    if not gfxcuda.cuda_available():
        print("skipped: no CUDA driver or device (gfxcuda.CudaBuffer raises gfxcuda.NoCUDAError)")
        return
    rng = numpy.random.default_rng()
    host = rng.integers(0, 256, SHAPE, dtype=numpy.uint8)

    buf, back = round_trip(host)
    assert buf.owned and numpy.array_equal(back, host)
    assert numpy.array_equal(foreign(host), host)

    c, t = to_cupy_and_torch(buf)
    want = (host + 1) * 3        # uint8 arithmetic wraps, on the GPU too
    assert numpy.array_equal(t.cpu().numpy(), want) and numpy.array_equal(c.get(), want)
    view = from_torch(t)
    assert view.ptr == buf.ptr and numpy.array_equal(view.copy_to_host(), want)

    assert numpy.array_equal(on_a_stream(host), host * 3 + 1)
    assert numpy.array_equal(lifetimes(host), host)
    print("CudaBuffer %s uint8: host copies, cuda-python memory, CuPy and torch (one pointer), "
          "a side stream, lifetimes: every byte checked" % (SHAPE,))


if __name__ == "__main__":
    main()
