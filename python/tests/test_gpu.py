"""GPU tests: torch, CuPy and Numba with gfxcuda's CUDA memory and shared
textures. They skip without a CUDA driver (and fail instead with
GFXCUDA_REQUIRE_CUDA=1, as on the GPU machine)."""

import multiprocessing

import numpy
import pytest

import gfxcuda
from conftest import need_cuda


@pytest.fixture
def torch():
    need_cuda()
    return pytest.importorskip("torch")


def test_cuda_buffer_numpy(rng):
    need_cuda()
    a = rng.random((33, 17), dtype=numpy.float32)
    b = gfxcuda.CudaBuffer.from_numpy(a)
    assert b.shape == (33, 17) and b.nbytes == a.nbytes
    assert numpy.array_equal(b.copy_to_host(), a)
    c = gfxcuda.CudaBuffer.from_cuda(b.ptr, (33, 17), "float32")
    out = numpy.full_like(a, numpy.nan)
    c.copy_to_host(out)
    assert numpy.array_equal(out, a)


def test_gfx2cuda_example_texture_copy(torch):
    """Gfx2Cuda's first README example, on random data."""
    shape = [480, 640, 4]
    tensor1 = torch.rand(shape).contiguous().cuda()
    tensor2 = torch.full(shape, float("nan")).contiguous().cuda()
    tex = gfxcuda.texture(tensor1)
    assert repr(tex) == "Texture with format RGBA32_FLOAT (640 x 480)"
    with tex as ptr:
        assert ptr is tex
        tex.copy_to(tensor2.data_ptr())
    assert torch.equal(tensor2, tensor1)  # a PyTorch op right after the copy sees the data
    tensor3 = torch.rand(shape, device="cuda")
    tex.copy_from(tensor3)
    tex.copy_to(tensor2, stream=torch.cuda.current_stream())
    torch.cuda.current_stream().synchronize()
    assert torch.equal(tensor2, tensor3)


def test_texture_from_dlpack_and_shape(torch):
    t = torch.randint(0, 255, (64, 32, 4), dtype=torch.uint8, device="cuda")

    class OnlyDLPack:
        def __dlpack__(self, **kw):
            return t.__dlpack__(**kw)

        def __dlpack_device__(self):
            return t.__dlpack_device__()

    tex = gfxcuda.texture(OnlyDLPack())
    assert (tex.width, tex.height) == (32, 64)
    out = torch.zeros_like(t)
    tex.copy_to(out)
    assert torch.equal(out, t)
    empty = gfxcuda.texture((16, 8, 4), format="rgba8_unorm")
    assert "RGBA8_UNORM (8 x 16)" in repr(empty)


def _ipc_child(handle, q):
    import torch
    import gfxcuda as g
    shape = [4, 4, 4]
    tex = g.open_ipc_texture(handle)
    ones = torch.arange(64, dtype=torch.float32, device="cuda").reshape(shape) + 1
    with tex:
        tex.copy_from(ones.data_ptr())
    back = torch.zeros(shape, device="cuda")
    with tex:
        tex.copy_to(back.data_ptr())
    q.put((repr(tex), back.cpu().numpy()))


def test_gfx2cuda_example_ipc(torch):
    """Gfx2Cuda's second README example, with the spawn start method."""
    shape = [4, 4, 4]
    tensor = torch.zeros(shape).contiguous().cuda()
    tex = gfxcuda.texture(tensor)
    handle = tex.ipc_handle
    ctx = multiprocessing.get_context("spawn")
    q = ctx.Queue()
    p = ctx.Process(target=_ipc_child, args=(handle, q))
    p.start()
    r, seen = q.get(timeout=120)
    p.join(60)
    assert r == "Texture with format RGBA32_FLOAT (4 x 4)"
    want = numpy.arange(64, dtype=numpy.float32).reshape(shape) + 1
    assert numpy.array_equal(seen, want)
    with tex:
        tex.copy_to(tensor.data_ptr())
    assert numpy.array_equal(tensor.cpu().numpy(), want)


def test_zero_copy_consumers(torch, rng):
    """torch, CuPy and Numba see one shared buffer: same pointer, and a
    write through each is seen by the others."""
    cupy = pytest.importorskip("cupy")
    numba_cuda = pytest.importorskip("numba.cuda")
    n = 1 << 16
    buf = gfxcuda.SharedBuffer((n,), "float32")
    t = torch.from_dlpack(buf)
    c = cupy.asarray(buf)
    c2 = cupy.from_dlpack(buf)
    nb = numba_cuda.as_cuda_array(buf)
    assert t.data_ptr() == buf.ptr == c.data.ptr == c2.data.ptr == nb.device_ctypes_pointer.value
    data = rng.random(n, dtype=numpy.float32)
    t.copy_(torch.from_numpy(data).cuda())
    torch.cuda.synchronize()
    assert numpy.array_equal(cupy.asnumpy(c), data)
    assert numpy.array_equal(nb.copy_to_host(), data)
    assert numpy.array_equal(buf.copy_to_host(), data)
    c *= 2
    cupy.cuda.Device().synchronize()
    assert numpy.array_equal(t.cpu().numpy(), data * 2)
    # Host to device through Numba: copy_to_device is a plain memcpy.
    # (nb[:] = host launches Numba's assign kernel, whose compilation fails
    # with numba-cuda 0.68 on numpy 2.x: np.row_stack is gone.)
    nb.copy_to_device(cupy.asnumpy(c2) + 1)
    numba_cuda.synchronize()
    assert numpy.array_equal(t.cpu().numpy(), data * 2 + 1)
    # ... and by a Vulkan readback of the same memory (its compute view).
    view = buf.compute_view()
    rb = gfxcuda.Buffer(view.size, gfxcuda.HEAP_READBACK, device=view.device)
    view.copy_to(rb)
    assert numpy.array_equal(numpy.frombuffer(rb.readback(), numpy.float32)[:n], data * 2 + 1)
    del view, rb
    # The memory outlives the Python object while consumers hold it.
    del buf, c, c2, nb
    assert numpy.array_equal(t.cpu().numpy(), data * 2 + 1)
    live = gfxcuda.live_dlpack_tensors()
    del t
    assert gfxcuda.live_dlpack_tensors() < live


def test_cuda_buffer_dlpack_and_cai(torch, rng):
    cupy = pytest.importorskip("cupy")
    a = rng.integers(-1000, 1000, (8, 9), dtype=numpy.int32)
    b = gfxcuda.CudaBuffer.from_numpy(a)
    t = torch.from_dlpack(b)
    assert t.dtype == torch.int32 and t.shape == (8, 9) and t.data_ptr() == b.ptr
    assert numpy.array_equal(t.cpu().numpy(), a)
    assert numpy.array_equal(cupy.asnumpy(cupy.asarray(b)), a)
    w = gfxcuda.CudaBuffer.from_cuda(t.data_ptr(), (8, 9), "int32", owner=t)
    assert numpy.array_equal(cupy.asnumpy(cupy.from_dlpack(w)), a)
    copied = torch.from_dlpack(b.__dlpack__(copy=True))
    assert copied.data_ptr() != b.ptr and torch.equal(copied, t)
