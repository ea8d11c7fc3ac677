"""A wheel of this tree's library, packed by the build backend (its --lib
form: no Go, so it runs on the GPU machine too), installs offline and
works. test_pip_install.py builds one with Go from a clean clone."""

import os
import re
import subprocess
import sys
import zipfile

import pytest

from gfxcuda import _lib
from test_c_api import header

here = os.path.dirname(os.path.abspath(__file__))
backend = os.path.join(here, "..", "build_backend")


def _check_tags(whl):
    """The wheel's name carries the library's tag and its legacy alias (a
    compressed tag set: manylinux_2_17_x86_64.manylinux2014_x86_64, which
    pip before 20.3 understands by its second name), WHEEL a Tag line for
    each, and manylinux.py's check accepts the set."""
    sys.path.insert(0, backend)
    try:
        import manylinux
    finally:
        sys.path.remove(backend)
    tag = manylinux.wheel_platform_tag(_lib._path)
    tags = manylinux.wheel_tags(tag)
    assert os.path.basename(whl).endswith("-py3-none-%s.whl" % ".".join(tags)), whl
    if re.match(r"manylinux_2_17_(x86_64|aarch64)$", tag):
        assert tags == [tag, tag.replace("manylinux_2_17_", "manylinux2014_")], tags
    with zipfile.ZipFile(whl) as z:
        meta = z.read([n for n in z.namelist() if n.endswith(".dist-info/WHEEL")][0]).decode()
    assert re.findall(r"(?m)^Tag: (.*)$", meta) == ["py3-none-" + t for t in tags], meta
    assert manylinux.check_wheel(whl) == tag


def test_wheel_installs_offline(tmp_path):
    if not os.path.exists(header):
        pytest.skip("gfxcuda.h is not next to this checkout")
    if subprocess.run([sys.executable, "-m", "pip", "--version"], capture_output=True).returncode != 0:
        pytest.skip("no pip for %s" % sys.executable)
    r = subprocess.run([sys.executable, os.path.join(here, "..", "build_backend", "gfxcuda_build.py"), "wheel",
                        "--lib", _lib._path, "--header", header, str(tmp_path / "w")], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    out = r.stdout.strip()
    _check_tags(out)
    subprocess.run([sys.executable, "-m", "pip", "install", "--no-index", "--no-deps", "--target", str(tmp_path / "site"), out],
                   check=True, capture_output=True)
    code = ("import gfxcuda as compushady, os, sys;"
            "assert compushady.__file__.startswith(sys.argv[1]), compushady.__file__;"
            "d = os.urandom(64); b = compushady.Buffer(64, compushady.HEAP_UPLOAD); b.upload(d);"
            "r = compushady.Buffer(64, compushady.HEAP_READBACK); b.copy_to(r); assert r.readback() == d; print('ok')")
    env = dict(os.environ, PYTHONPATH=str(tmp_path / "site"))
    env.pop("GFXCUDA_LIBRARY", None)
    r = subprocess.run([sys.executable, "-c", code, str(tmp_path / "site")], env=env, cwd=str(tmp_path),
                       capture_output=True, text=True, timeout=300)
    assert r.stdout.strip() == "ok", r.stderr
    # The wheel carries the compushady alias: its .pth step (into a user
    # site of the test's own) makes `from compushady import ...` load the
    # installed gfxcuda.
    env["PYTHONUSERBASE"] = str(tmp_path / "userbase")
    env.pop("PYTHONNOUSERSITE", None)
    r = subprocess.run([sys.executable, "-m", "gfxcuda.compushady_alias", "install", "--user"], env=env,
                       cwd=str(tmp_path), capture_output=True, text=True, timeout=300)
    if "user site is disabled" in r.stderr:
        pytest.skip("no user site in %s" % sys.executable)
    assert r.returncode == 0, r.stderr
    code = ("import sys, os; assert 'gfxcuda' not in sys.modules;"
            "from compushady import Buffer, HEAP_UPLOAD, HEAP_READBACK; import compushady;"
            "assert compushady.__file__.startswith(sys.argv[1]), compushady.__file__;"
            "d = os.urandom(64); b = Buffer(64, HEAP_UPLOAD); b.upload(d);"
            "r = Buffer(64, HEAP_READBACK); b.copy_to(r); assert r.readback() == d; print('ok')")
    r = subprocess.run([sys.executable, "-c", code, str(tmp_path / "site")], env=env, cwd=str(tmp_path),
                       capture_output=True, text=True, timeout=300)
    assert r.stdout.strip() == "ok", r.stderr
