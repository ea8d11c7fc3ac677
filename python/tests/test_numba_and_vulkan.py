"""docs/numba-and-vulkan.md: the page's program (its ```python blocks, in
order, are docs/examples/python/numba_and_vulkan.py) and its notebook cell.
On lavapipe the Vulkan half runs; with CUDA and Numba everything runs: a
Numba kernel edits a Vulkan buffer in place, Vulkan draws it, in one process
and across two spawned ones, every byte compared on random data."""

import importlib
import os
import re
import subprocess
import sys

import numpy
import pytest

import gfxcuda
from conftest import DOCS_DIRS, EXAMPLE_DIRS, find_example, find_page, need_cuda

PAGE = find_page("numba-and-vulkan.md")
EXAMPLES = find_example("numba_and_vulkan.py")
NOTEBOOK = "# A notebook cell"


def blocks():
    """The page's ```python blocks: (program blocks, notebook cells)."""
    if PAGE is None:
        pytest.fail("numba-and-vulkan.md is in none of %s" % DOCS_DIRS)
    found = re.findall(r"```python\n(.*?)```", open(PAGE).read(), re.S)
    return [b for b in found if not b.startswith(NOTEBOOK)], [b for b in found if b.startswith(NOTEBOOK)]


@pytest.fixture(scope="module")
def nv():
    if EXAMPLES is None:
        pytest.fail("numba_and_vulkan.py is in none of %s" % EXAMPLE_DIRS)
    # Imported by name from a folder on sys.path, as a notebook next to it
    # would: spawned processes find producer/consumer there.
    if EXAMPLES not in sys.path:
        sys.path.insert(0, EXAMPLES)
    return importlib.import_module("numba_and_vulkan")


def numba_cuda():
    need_cuda()
    pytest.importorskip("numba.cuda")


def _env():
    return dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(gfxcuda.__file__)))


def test_page_is_the_program():
    program, cells = blocks()
    text = open(os.path.join(EXAMPLES, "numba_and_vulkan.py")).read()
    assert "\n\n\n".join(b.strip("\n") for b in program) + "\n" == text, \
        "the ```python blocks of docs/numba-and-vulkan.md, in order, must be numba_and_vulkan.py"
    assert len(program) >= 5 and len(cells) == 1


def test_reference(nv, rng):
    pixels, key = nv.inputs((5, 7), int(rng.integers(1 << 31)))
    want = nv.reference(pixels, key)
    assert want.shape == (5, 7, 4) and want.dtype == numpy.uint8
    assert numpy.array_equal(want[2, 3], numpy.frombuffer(int(pixels[2, 3] ^ key).to_bytes(4, "little"), numpy.uint8))
    assert nv.inputs((5, 7), 1)[1] == nv.inputs((5, 7), 1)[1] != 0


def test_vulkan_half(nv, rng):
    """The shader draws the buffer byte for byte (on lavapipe here)."""
    shape = (int(rng.integers(1, 90)), int(rng.integers(1, 130)))
    lines = []
    got = nv.run_vulkan(shape, seed=int(rng.integers(1 << 31)), out=lines.append, reason="test")
    assert got.shape == shape + (4,) and "checked" in lines[0]
    # A draw that did not happen fails the check: the image starts random.
    image = nv.new_image(shape, gfxcuda.get_current_device())
    with pytest.raises(AssertionError):
        nv.check(nv.read_image(image), got, "poison")


def test_script_runs(nv):
    r = subprocess.run([sys.executable, os.path.join(EXAMPLES, "numba_and_vulkan.py"), "--height", "64", "--width", "96"],
                       capture_output=True, text=True, timeout=600, env=_env())
    assert r.returncode == 0, r.stderr
    assert "checked" in r.stdout
    if gfxcuda.cuda_available() and "no Numba" not in r.stdout:
        assert "two processes" in r.stdout and "lifetimes" in r.stdout, r.stdout


def test_numba_edits_vulkan_buffer(nv, rng):
    numba_cuda()
    shape = (int(rng.integers(1, 300)), int(rng.integers(1, 500)))
    seed = int(rng.integers(1 << 31))
    got = nv.run(shape, seed=seed, out=lambda s: None)
    pixels, key = nv.inputs(shape, seed)
    assert numpy.array_equal(got, (pixels ^ key).view(numpy.uint8).reshape(shape + (4,)))
    assert not numpy.array_equal(got, pixels.view(numpy.uint8).reshape(shape + (4,)))


def test_lifetimes(nv):
    numba_cuda()
    nv.lifetimes(out=lambda s: None)


def test_two_processes(nv, rng):
    numba_cuda()
    shape = (int(rng.integers(1, 200)), int(rng.integers(1, 300)))
    seed = int(rng.integers(1 << 31))
    got = nv.two_processes(shape, seed=seed, out=lambda s: None)
    pixels, key = nv.inputs(shape, seed)
    assert numpy.array_equal(got, (pixels ^ key).view(numpy.uint8).reshape(shape + (4,)))


def test_notebook_cell(nv):
    """The page's notebook cell in an interpreter whose __main__ has no
    file (python3 -c), as in a Jupyter kernel, next to the module."""
    numba_cuda()
    cell = blocks()[1][0]
    r = subprocess.run([sys.executable, "-c", cell], cwd=EXAMPLES, capture_output=True, text=True, timeout=600,
                       env=_env())
    assert r.returncode == 0, r.stderr
    assert "two processes" in r.stdout and "every byte checked" in r.stdout, r.stdout
