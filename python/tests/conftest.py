import os
import sys

import pytest

# Test the package in this tree unless GFXCUDA_TEST_INSTALLED=1 (then the
# installed one, e.g. from the wheel).
if os.environ.get("GFXCUDA_TEST_INSTALLED") != "1":
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import gfxcuda  # noqa: E402

_TREE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "gfxcuda")
if os.environ.get("GFXCUDA_TEST_INSTALLED") == "1" and \
        os.path.dirname(os.path.abspath(gfxcuda.__file__)) == os.path.realpath(_TREE):
    # `python -m pytest` puts the current folder first on sys.path: run from
    # python/ it imports the tree, not the installed package asked for.
    raise ImportError("GFXCUDA_TEST_INSTALLED=1, but gfxcuda was imported from this tree (%s): run pytest from "
                      "another folder or with python3 -P" % gfxcuda.__file__)


def _cuda():
    try:
        return gfxcuda.cuda_available()
    except Exception:
        return False


HAVE_CUDA = _cuda()
REQUIRE_CUDA = os.environ.get("GFXCUDA_REQUIRE_CUDA") == "1"


@pytest.fixture
def rng():
    import numpy
    return numpy.random.default_rng(int.from_bytes(os.urandom(4), "little"))


# Where the docs pages and their example programs are: in the repository
# docs/ and docs/examples/python; in the GPU bundle (python/), docs/ and
# examples/ beside the tests' folder.
_here = os.path.dirname(os.path.abspath(__file__))
DOCS_DIRS = [os.path.join(_here, "..", "..", "docs"), os.path.join(_here, "..", "docs")]
EXAMPLE_DIRS = [os.path.join(_here, "..", "..", "docs", "examples", "python"), os.path.join(_here, "..", "examples")]


def find_page(name):
    """The path of docs page name, or None."""
    return next((os.path.join(d, name) for d in DOCS_DIRS if os.path.exists(os.path.join(d, name))), None)


def find_example(name):
    """The folder holding example program name, or None."""
    return next((os.path.abspath(d) for d in EXAMPLE_DIRS if os.path.exists(os.path.join(d, name))), None)


def need_cuda():
    if not HAVE_CUDA:
        if REQUIRE_CUDA:
            pytest.fail("GFXCUDA_REQUIRE_CUDA=1 but no CUDA driver/device is usable")
        pytest.skip("no CUDA driver")


def fork_child_result(child):
    """Forks; the child calls child() and reports "no error", the message
    of the ForkedProcessError it raised, or another exception's repr; the
    parent returns that text ("timeout: ..." when the child hangs)."""
    import select
    import gfxcuda
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # child
        os.close(r)
        try:
            child()
            msg = b"no error"
        except gfxcuda.ForkedProcessError as e:
            msg = str(e).encode()
        except BaseException as e:  # pragma: no cover
            msg = repr(e).encode()
        os.write(w, msg)
        os._exit(0)
    os.close(w)
    ready, _, _ = select.select([r], [], [], 30)
    out = os.read(r, 4096) if ready else b"timeout: the child hung"
    os.close(r)
    os.waitpid(pid, 0)
    return out.decode()


def gl_view_bytes(src):
    """The texels of a gfxcuda.gl source's compute view, read through
    Vulkan: a copy into a HEAP_READBACK buffer poisoned first."""
    import gfxcuda
    v = src.compute_view()
    n = src.width * src.height * gfxcuda.formats.by_value[src.format]["bytes_per_texel"]
    rb = gfxcuda.Buffer(n, gfxcuda.HEAP_READBACK)
    up = gfxcuda.Buffer(n, gfxcuda.HEAP_UPLOAD)
    up.upload(b"\xa5" * n)
    up.copy_to(rb)
    v.copy_to(rb)
    return rb.readback()


def run_gl_bench(script, *args):
    """Runs python/bench/<script> with args on EGL (PYOPENGL_PLATFORM=egl)
    and returns the finished process; skips the test without PyOpenGL, or
    when the script finds no EGL context (exit 3; a failure under
    GFXCUDA_REQUIRE_GL=1)."""
    import importlib.util
    import subprocess
    if importlib.util.find_spec("OpenGL") is None:
        pytest.skip("no PyOpenGL (Debian python3-opengl; on the GPU machine, the bundle's .gpu/pyopengl)")
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "bench", script)
    env = dict(os.environ, PYOPENGL_PLATFORM="egl")
    r = subprocess.run([sys.executable, path] + [str(a) for a in args], capture_output=True, text=True,
                       timeout=600, env=env)
    if r.returncode == 3:  # no EGL context: the script says why
        msg = (r.stdout + r.stderr).strip().splitlines()[-1:]
        if os.environ.get("GFXCUDA_REQUIRE_GL") == "1":
            pytest.fail("GFXCUDA_REQUIRE_GL=1 but: %s" % msg)
        pytest.skip("no EGL/GL: %s" % msg)
    return r
