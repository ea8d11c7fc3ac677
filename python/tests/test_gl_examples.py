"""docs/own-renderer.md's programs (docs/examples/python/gl_moderngl.py and
gl_pyopengl.py): the page shows them verbatim, and each runs to its end with
every frame equal to the renderer's own read-back (torch with CUDA, a compute
view without)."""

import os
import re
import subprocess
import sys

import pytest

from conftest import EXAMPLE_DIRS, find_example, find_page

here = os.path.dirname(os.path.abspath(__file__))
PAGE = find_page("own-renderer.md")
PROGRAMS = {"gl_moderngl.py": "moderngl", "gl_pyopengl.py": "OpenGL"}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_page_shows_the_program(name):
    if PAGE is None:
        pytest.skip("the docs are not next to this checkout (GPU bundle)")
    d = find_example(name)
    assert d is not None, "%s is in neither %s" % (name, EXAMPLE_DIRS)
    blocks = re.findall(r"```python\n(.*?)```", open(PAGE).read(), re.S)
    assert open(os.path.join(d, name)).read() in blocks, "docs/own-renderer.md must embed %s verbatim" % name


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_program_runs(name):
    pytest.importorskip(PROGRAMS[name], reason="%s is not installed" % PROGRAMS[name])
    d = find_example(name)
    assert d is not None
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    r = subprocess.run([sys.executable, os.path.join(d, name), "--frames", "3", "--size", "97x61"],
                       capture_output=True, text=True, timeout=300, env=env)
    if r.returncode != 0 and ("no GL 4.5" in r.stderr + r.stdout or "eglInitialize failed" in r.stderr + r.stdout):
        pytest.skip("no EGL GL 4.5 context here: " + (r.stdout + r.stderr).strip().splitlines()[-1])
    assert r.returncode == 0, r.stdout + r.stderr
    lines = [ln for ln in r.stdout.splitlines() if ln.startswith("frame ")]
    assert len(lines) == 3 and all(ln.endswith(": True") for ln in lines), r.stdout
