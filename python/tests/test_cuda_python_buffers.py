"""docs/cuda-python-buffers.md: the page's program (its ```python blocks, in
order, are docs/examples/python/cuda_buffers.py), run step by step on random
data with poisoned outputs. Everything but the page check and the no-CUDA
path needs CUDA (with CuPy, torch and cuda-python on the GPU machine)."""

import importlib
import os
import re
import subprocess
import sys

import numpy
import pytest

import gfxcuda
from conftest import DOCS_DIRS, EXAMPLE_DIRS, find_example, find_page, need_cuda

PAGE = find_page("cuda-python-buffers.md")
EXAMPLES = find_example("cuda_buffers.py")


@pytest.fixture(scope="module")
def cb():
    if EXAMPLES is None:
        pytest.fail("cuda_buffers.py is in none of %s" % EXAMPLE_DIRS)
    if EXAMPLES not in sys.path:
        sys.path.insert(0, EXAMPLES)
    return importlib.import_module("cuda_buffers")


@pytest.fixture
def host(rng):
    shape = (int(rng.integers(1, 70)), int(rng.integers(1, 90)), 3)
    return rng.integers(0, 256, shape, dtype=numpy.uint8)


def poison(rng, like):
    return rng.integers(0, 256, like.shape, dtype=like.dtype)


def test_page_is_the_program():
    if PAGE is None:
        pytest.fail("cuda-python-buffers.md is in none of %s" % DOCS_DIRS)
    program = re.findall(r"```python\n(.*?)```", open(PAGE).read(), re.S)
    text = open(os.path.join(EXAMPLES, "cuda_buffers.py")).read()
    assert "\n\n\n".join(b.strip("\n") for b in program) + "\n" == text, \
        "the ```python blocks of docs/cuda-python-buffers.md, in order, must be cuda_buffers.py"
    assert len(program) >= 5


def test_script_runs(cb):
    env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(gfxcuda.__file__)))
    r = subprocess.run([sys.executable, os.path.join(EXAMPLES, "cuda_buffers.py")],
                       capture_output=True, text=True, timeout=300, env=env)
    assert r.returncode == 0, r.stderr
    if gfxcuda.cuda_available():
        assert "every byte checked" in r.stdout, r.stdout
    else:
        assert "skipped: no CUDA driver" in r.stdout, r.stdout


def test_without_cuda_says_why():
    if gfxcuda.cuda_available():
        pytest.skip("CUDA is here: the error path is for machines without it")
    with pytest.raises(gfxcuda.NoCUDAError):
        gfxcuda.CudaBuffer((4, 4, 3), "uint8")


def test_cache_stats_on_any_machine():
    """cuda_cache_stats answers on any machine: zeros for a device whose
    cache was never made (no CUDA context made to say so), every key; a
    bad device is an error naming it."""
    st = gfxcuda.cuda_cache_stats(1000)
    assert st == {"hits": 0, "misses": 0, "busy": 0, "freed": 0, "evicted": 0, "idle_bytes": 0}
    assert set(gfxcuda.cuda_cache_stats()) == set(st)
    with pytest.raises(ValueError, match="device"):
        gfxcuda.cuda_cache_stats(-1)
    with pytest.raises(TypeError):
        gfxcuda.cuda_cache_stats("0")


def test_round_trip(cb, host, rng):
    need_cuda()
    out = poison(rng, host)
    buf, back = cb.round_trip(host, out)
    assert back is out and numpy.array_equal(out, host)
    assert buf.owned and buf.shape == host.shape and buf.nbytes == host.nbytes
    assert buf.__cuda_array_interface__ == {"shape": host.shape, "typestr": "|u1", "data": (buf.ptr, False),
                                            "version": 3, "strides": None, "stream": None}
    with pytest.raises(ValueError):
        buf.__dlpack__(stream=0)  # ambiguous in DLPack
    again = gfxcuda.CudaBuffer.from_numpy(poison(rng, host))
    again.copy_from_host(host)
    assert numpy.array_equal(again.copy_to_host(), host)


def test_foreign(cb, host, rng):
    need_cuda()
    pytest.importorskip("cuda.bindings.runtime")
    out = poison(rng, host)
    assert cb.foreign(host, out) is out and numpy.array_equal(out, host)


def test_cupy_and_torch(cb, host, rng):
    need_cuda()
    pytest.importorskip("cupy")
    torch = pytest.importorskip("torch")
    buf = gfxcuda.CudaBuffer.from_numpy(host)
    c, t = cb.to_cupy_and_torch(buf)
    want = (host + 1) * 3
    assert numpy.array_equal(buf.copy_to_host(poison(rng, host)), want)
    assert numpy.array_equal(c.get(), want) and numpy.array_equal(t.cpu().numpy(), want)
    cupy = sys.modules["cupy"]
    assert cupy.from_dlpack(buf).data.ptr == torch.as_tensor(buf, device="cuda").data_ptr() == buf.ptr
    other = torch.randint(0, 256, host.shape, dtype=torch.uint8, device="cuda")
    view = cb.from_torch(other)
    assert not view.owned and view.ptr == other.data_ptr() and view.shape == host.shape
    assert numpy.array_equal(view.copy_to_host(poison(rng, host)), other.cpu().numpy())
    view.copy_from_host(host)  # writes the tensor's memory
    assert numpy.array_equal(other.cpu().numpy(), host)


def test_on_a_stream(cb, host, rng):
    need_cuda()
    pytest.importorskip("torch")
    out = poison(rng, host)
    assert cb.on_a_stream(host, out) is out and numpy.array_equal(out, host * 3 + 1)


def test_lifetimes(cb, host):
    need_cuda()
    pytest.importorskip("torch")
    live = gfxcuda.live_dlpack_tensors()
    assert numpy.array_equal(cb.lifetimes(host), host)
    assert gfxcuda.live_dlpack_tensors() == live


def test_strided_host_copy_is_refused():
    """A padded view (row pitch > row bytes) cannot be copied to or from
    the host in one piece: the error says so instead of moving the wrong
    bytes."""
    need_cuda()
    owner = gfxcuda.CudaBuffer((4, 16), "uint8")
    view = gfxcuda.CudaBuffer.from_cuda(owner.ptr, (4, 8), "uint8", strides=(16, 1), owner=owner)
    host = numpy.zeros((4, 8), numpy.uint8)
    with pytest.raises(ValueError, match="strided"):
        view.copy_from_host(host)
    with pytest.raises(ValueError, match="strided"):
        view.copy_to_host(host)
    packed = gfxcuda.CudaBuffer.from_cuda(owner.ptr, (4, 16), "uint8", strides=(16, 1), owner=owner)
    data = numpy.random.default_rng().integers(0, 256, (4, 16), dtype=numpy.uint8)
    packed.copy_from_host(data)
    assert (owner.copy_to_host() == data).all()
