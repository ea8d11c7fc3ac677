"""PyTorch's own tensors seen by Vulkan with no copy (issue #20):
gfxcuda.torch_pool (a torch.cuda.MemPool whose segments libgfxcuda
allocates) and gfxcuda.from_torch (a SharedBuffer over a tensor in it).
The GPU tests skip without CUDA or torch; the library's entry points are
also checked without them."""

import os
import subprocess
import sys

import numpy
import pytest

import gfxcuda
from gfxcuda import _lib
from conftest import need_cuda

# f(x) = 2x + 1: exact in float32 whether or not the compiler fuses it (2x
# is exact, so one rounding either way), so torch's result compares equal.
SHADER = """
StructuredBuffer<float> src : register(t0);
RWStructuredBuffer<float> dst : register(u0);
[numthreads(256, 1, 1)]
void main(uint3 id : SV_DispatchThreadID) { dst[id.x] = src[id.x] * 2.0 + 1.0; }
"""


def test_entry_points_without_torch():
    """The allocator's C functions answer bad calls without crashing, on
    any machine: NULL for a 0-byte allocation (with the reason as the last
    error), a free of an unknown pointer recorded, empty stats."""
    lib = _lib.lib
    assert lib.gfxcuda_torch_alloc(0, 0, None) is None
    assert b"0 bytes" in lib.gfxcuda_last_error()
    assert lib.gfxcuda_torch_alloc(-5, 0, None) is None
    lib.gfxcuda_torch_free(0x1234, 4096, 1000, None)  # no pool on device 1000
    assert b"no gfxcuda pool" in lib.gfxcuda_last_error()
    assert gfxcuda.torch_pool_stats(1000) == {"segments": 0, "bytes": 0, "held": 0}
    with pytest.raises(TypeError, match="torch.Tensor"):
        gfxcuda.from_torch(numpy.zeros(4))


@pytest.fixture
def torch():
    need_cuda()
    return pytest.importorskip("torch")


def _compute(torch, src, dst, n):
    """Runs SHADER over n floats: dst = 2 * src + 1, through Vulkan."""
    assert n % 256 == 0
    gfxcuda.Compute(gfxcuda.hlsl.compile(SHADER), srv=[src.compute_view()], uav=[dst.compute_view()]).dispatch(n // 256, 1, 1)


def _model(torch, seed):
    torch.manual_seed(seed)
    return torch.nn.Sequential(torch.nn.Linear(256, 512), torch.nn.ReLU(), torch.nn.Linear(512, 1024), torch.nn.ReLU(),
                               torch.nn.Linear(1024, 1024)).cuda()


def test_model_activations_through_vulkan(torch):
    """A model's activations, allocated in the pool on a side stream, are
    read by a Vulkan compute shader that writes f(x) into another pool
    tensor (poisoned first); torch reads it; every element equals torch's
    own f(x). No copy: the buffers' CUDA pointers are the tensors', and
    free device memory does not drop by a tensor's size."""
    seed = int.from_bytes(os.urandom(4), "little")
    model = _model(torch, seed)
    pool = gfxcuda.torch_pool()
    assert pool is gfxcuda.torch_pool(torch.cuda.current_device())  # cached
    s = torch.cuda.Stream()
    batch = 4096  # 4096 x 1024 float32 = 16 MiB of activations
    # Warm up: the shared device, its compute device and the pipeline.
    with torch.cuda.use_mem_pool(pool):
        w = torch.zeros(1 << 16, device="cuda")
        w2 = torch.zeros(1 << 16, device="cuda")
    _compute(torch, gfxcuda.from_torch(w), gfxcuda.from_torch(w2), 1 << 16)
    torch.cuda.synchronize()
    with torch.no_grad(), torch.cuda.stream(s), torch.cuda.use_mem_pool(pool):
        x = torch.randn(batch, 256, device="cuda")
        act = model(x)
        out = torch.full_like(act, float("nan"))  # poisoned
        want = act * 2 + 1
        # Vulkan's work waits for s (from_torch's default: the current stream).
        free0 = torch.cuda.mem_get_info()[0]
        a = gfxcuda.from_torch(act)
        o = gfxcuda.from_torch(out)
        free1 = torch.cuda.mem_get_info()[0]
    st = gfxcuda.torch_pool_stats()
    assert st["segments"] >= 1 and st["bytes"] >= act.nbytes + out.nbytes
    assert free0 - free1 < act.nbytes // 4, "free memory dropped by %d bytes for a %d-byte tensor" % (free0 - free1, act.nbytes)
    assert (a.ptr, a.nbytes, a.shape) == (act.data_ptr(), act.nbytes, tuple(act.shape))
    assert (o.ptr, o.nbytes) == (out.data_ptr(), out.nbytes)
    assert a.typestr == "<f4"
    n = act.numel()
    _compute(torch, a, o, n)
    with gfxcuda.to_cuda([o], s), torch.cuda.stream(s):
        got = out.clone()  # torch reads what Vulkan wrote, ordered on s
    s.synchronize()
    assert not torch.isnan(got).any()
    assert torch.equal(got, want), "%d of %d elements differ" % (int((got != want).sum()), n)
    # The buffer is the tensor: DLPack gives torch the same memory back.
    assert torch.from_dlpack(a).data_ptr() == act.data_ptr()


def test_views_and_slices(torch, rng):
    """Views, slices and transposes of pool tensors map to their place in
    the segment; Vulkan sees each at its offset."""
    pool = gfxcuda.torch_pool()
    with torch.cuda.use_mem_pool(pool):
        big = torch.from_numpy(rng.random((64, 1024), dtype=numpy.float32)).cuda()
    rows = big[16:32]  # offset 16 KiB in the tensor: aligned
    b = gfxcuda.from_torch(rows)
    assert (b.ptr, b.nbytes) == (rows.data_ptr(), rows.nbytes)
    out = torch.full((16 * 1024,), float("nan"), device="cuda")
    with torch.cuda.use_mem_pool(pool):
        out = out.clone()
    o = gfxcuda.from_torch(out)
    _compute(torch, b, o, rows.numel())
    with gfxcuda.to_cuda([o]):
        got = out.clone()
    torch.cuda.synchronize()
    assert torch.equal(got, (rows * 2 + 1).reshape(-1))
    # A transpose is one range (a permutation of a dense tensor): strides kept.
    t = gfxcuda.from_torch(big.t())
    assert t.ptr == big.data_ptr() and t.strides == (4, 4096)
    assert torch.equal(torch.from_dlpack(t), big.t())


def test_bad_inputs(torch):
    """CPU tensors, tensors of another device, non-contiguous views, a
    misaligned slice and tensors outside the pool are refused with errors
    that say why; copy=True copies each instead."""
    pool = gfxcuda.torch_pool()
    with torch.cuda.use_mem_pool(pool):
        t = torch.randn(256, 256, device="cuda")
    cpu = torch.randn(1000)
    with pytest.raises(ValueError, match="copy=True"):
        gfxcuda.from_torch(cpu)
    with pytest.raises(ValueError, match="gaps"):
        gfxcuda.from_torch(t[:, ::2])
    with pytest.raises(ValueError, match="align"):
        gfxcuda.from_torch(t.reshape(-1)[1:])
    outside = torch.randn(1000, device="cuda")
    with pytest.raises(ValueError, match="torch_pool") as e:
        gfxcuda.from_torch(outside)
    assert "copy=True" in str(e.value)
    with pytest.raises(ValueError, match="NumPy"):
        with torch.cuda.use_mem_pool(pool):
            gfxcuda.from_torch(torch.zeros(64, dtype=torch.bfloat16, device="cuda"))
    with pytest.raises(TypeError):
        gfxcuda.from_torch([1, 2, 3])
    # copy=True: a new shared buffer with the bytes, stream-ordered.
    for src in (cpu, outside, t[:, ::2], t.reshape(-1)[1:]):
        c = gfxcuda.from_torch(src, copy=True)
        assert c.ptr != src.data_ptr() and c.shape == tuple(src.shape)
        assert torch.equal(torch.from_dlpack(c).cpu(), src.cpu())


def test_other_device(torch):
    """A tensor on another GPU than the one asked for is refused."""
    if torch.cuda.device_count() < 2:
        pytest.skip("one GPU: a tensor of another device needs two")
    with torch.cuda.device(1), torch.cuda.use_mem_pool(gfxcuda.torch_pool(1)):
        other = torch.randn(1024, device="cuda:1")
    with pytest.raises(ValueError, match="cuda:1"):
        gfxcuda.from_torch(other, device=0)


_CHILD = """
import sys
import torch
import gfxcuda
tin, tout, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
a = gfxcuda.open_ipc_buffer(tin, (n,), "float32")
o = gfxcuda.open_ipc_buffer(tout, (n,), "float32")
src = %r
gfxcuda.Compute(gfxcuda.hlsl.compile(src), srv=[a.compute_view()], uav=[o.compute_view()]).dispatch(n // 256, 1, 1)
with gfxcuda.to_cuda([o]):
    torch.cuda.synchronize()  # Vulkan's write is done
# And CUDA in this process reads the parent's tensor at its offset.
print("ok", float(torch.from_dlpack(a)[n - 1]))
"""


def test_second_process_by_token(torch, rng):
    """A pool tensor shared by token: another process opens it (at its
    offset in the segment) and an output tensor, runs the Vulkan shader
    over them; this process reads every element."""
    pool = gfxcuda.torch_pool()
    n = 1 << 20
    with torch.cuda.use_mem_pool(pool):
        whole = torch.from_numpy(rng.standard_normal(n + 4096, dtype=numpy.float32)).cuda()
        out = torch.full((n,), float("nan"), device="cuda")
    x = whole[4096:]  # 16 KiB into its block: the token carries the offset
    a, o = gfxcuda.from_torch(x), gfxcuda.from_torch(out)
    torch.cuda.synchronize()  # the other process orders by the host
    env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(os.path.abspath(gfxcuda.__file__))))
    r = subprocess.run([sys.executable, "-c", _CHILD % SHADER, a.ipc_handle.decode(), o.ipc_handle.decode(), str(n)],
                       env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0 and r.stdout.startswith("ok"), r.stdout + r.stderr
    assert float(r.stdout.split()[1]) == float(x[n - 1])
    assert torch.equal(out, x * 2 + 1)


def test_segment_outlives_pool(torch, rng):
    """A segment stays mapped while a shared buffer holds it, after torch
    freed the tensor and the pool gave the segment back; the buffer's
    release unmaps it."""
    before = gfxcuda.torch_pool_stats()
    pool = gfxcuda.torch_pool(new=True)
    data = rng.random(1 << 18, dtype=numpy.float32)
    with torch.cuda.use_mem_pool(pool):
        t = torch.from_numpy(data).cuda()
    b = gfxcuda.from_torch(t)
    assert gfxcuda.torch_pool_stats()["segments"] == before["segments"] + 1
    del t, pool
    torch.cuda.synchronize()
    torch.cuda.empty_cache()
    st = gfxcuda.torch_pool_stats()
    assert st["segments"] == before["segments"] and st["held"] == before["held"] + 1, st
    # Vulkan and CUDA still read the bytes.
    view = b.compute_view()
    rb = gfxcuda.Buffer(view.size, gfxcuda.HEAP_READBACK, device=view.device)
    view.copy_to(rb)
    assert numpy.array_equal(numpy.frombuffer(rb.readback(), numpy.float32)[:data.size], data)
    assert numpy.array_equal(b.copy_to_host(), data)
    del view
    b.release()
    assert gfxcuda.torch_pool_stats()["held"] == before["held"]


def _sleep(torch, s):
    """Keeps stream s busy for a while, so that work queued after is in flight."""
    with torch.cuda.stream(s):
        if hasattr(torch.cuda, "_sleep"):
            torch.cuda._sleep(2_000_000)


def test_release_with_work_in_flight(torch):
    """slangpy #929: buffers released while CUDA work on them is queued
    never crash and leave the context usable. Hundreds of times: a shared
    buffer, a pool tensor and its imported segment (a pool of its own,
    deleted) are released with writes still queued on a side stream; then
    a fresh allocation and kernel work, and every value checks."""
    s = torch.cuda.Stream()
    src = torch.randn(1 << 20, device="cuda")
    torch.cuda.synchronize()
    for i in range(300):
        buf = gfxcuda.SharedBuffer((1 << 20,), "float32")
        t = torch.from_dlpack(buf)
        _sleep(torch, s)
        with torch.cuda.stream(s):
            t.copy_(src)
            t.mul_(3)
        del t
        buf.release()

        pool = gfxcuda.torch_pool(new=True)
        with torch.cuda.use_mem_pool(pool):
            p = torch.empty(1 << 20, device="cuda")
        b = gfxcuda.from_torch(p)
        _sleep(torch, s)
        with torch.cuda.stream(s):
            p.copy_(src)
            p.add_(1)
        b.release()
        del p, pool
        torch.cuda.empty_cache()  # the pool frees its segment: work still queued
    torch.cuda.synchronize()  # would raise CUDA_ERROR_ILLEGAL_ADDRESS
    x = torch.randn(1 << 20, device="cuda")
    assert torch.equal(x * 2 / 2, x)
    with torch.cuda.use_mem_pool(gfxcuda.torch_pool()):
        y = torch.randn(1 << 16, device="cuda")
        z = torch.full_like(y, float("nan"))
    o = gfxcuda.from_torch(z)
    _compute(torch, gfxcuda.from_torch(y), o, 1 << 16)
    with gfxcuda.to_cuda([o]):
        got = z.clone()
    torch.cuda.synchronize()
    assert torch.equal(got, y * 2 + 1)


def _fds():
    return len(os.listdir("/proc/self/fd"))


def test_no_leaks_10000_cycles(torch):
    """10,000 pool allocate/free cycles, each with a Vulkan import: file
    descriptors, device memory and library handles do not grow."""
    def cycle():
        pool = gfxcuda.torch_pool(new=True)
        with torch.cuda.use_mem_pool(pool):
            t = torch.empty(1 << 18, device="cuda")
        b = gfxcuda.from_torch(t)
        b.release()
        del t, pool
        torch.cuda.empty_cache()

    for _ in range(100):
        cycle()
    torch.cuda.synchronize()
    fds0, free0, h0 = _fds(), torch.cuda.mem_get_info()[0], gfxcuda.live_handles()
    st0 = gfxcuda.torch_pool_stats()
    for _ in range(10000):
        cycle()
    torch.cuda.synchronize()
    fds1, free1, h1 = _fds(), torch.cuda.mem_get_info()[0], gfxcuda.live_handles()
    assert fds1 <= fds0, "descriptors: %d before, %d after" % (fds0, fds1)
    assert free0 - free1 < 16 << 20, "free device memory dropped by %d bytes" % (free0 - free1)
    assert h1 <= h0 and gfxcuda.torch_pool_stats() == st0
