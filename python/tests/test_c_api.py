"""The C library from C: a program compiled with gcc against gfxcuda.h."""

import os
import re
import shutil
import subprocess

import pytest

import gfxcuda
from gfxcuda import _lib

here = os.path.dirname(os.path.abspath(__file__))
header = os.environ.get("GFXCUDA_HEADER") or os.path.join(here, "..", "..", "cmd", "libgfxcuda", "gfxcuda.h")


@pytest.mark.skipif(shutil.which("gcc") is None, reason="no gcc")
def test_c_program(tmp_path):
    if not os.path.exists(header):
        pytest.skip("gfxcuda.h is not next to this checkout")
    libdir = os.path.dirname(_lib._path)
    exe = tmp_path / "capi_test"
    subprocess.run(["gcc", "-std=c11", "-Wall", "-Werror", "-o", str(exe), os.path.join(here, "capi_test.c"),
                    "-I", os.path.dirname(header), "-L", libdir, "-l:libgfxcuda.so", "-Wl,-rpath," + libdir, "-lpthread"],
                   check=True)
    r = subprocess.run([str(exe)], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("ok " + gfxcuda.__version__)


def test_header_matches_library():
    """Every gfxcuda_* function of the header is exported, and every
    exported one is declared and documented."""
    if not os.path.exists(header):
        pytest.skip("gfxcuda.h is not next to this checkout")
    text = open(header).read()
    declared = set(re.findall(r"\b(gfxcuda_[a-z0-9_]+)\(", text))
    nm = shutil.which("nm")
    if nm is None:
        pytest.skip("no nm")
    out = subprocess.run([nm, "-D", "--defined-only", _lib._path], capture_output=True, text=True, check=True).stdout
    exported = set(re.findall(r" T (gfxcuda_[a-z0-9_]+)$", out, re.M))
    assert exported == declared, (exported - declared, declared - exported)
    for name in declared:  # a comment right above each declaration
        m = re.search(r"\*/\n(?:[^\n]*\n){0,1}[^\n]*\b%s\(" % name, text)
        assert m, "%s is not documented" % name
    # And the Python side declares every function's signature.
    declared_py = set(_lib._sigs) | {"gfxcuda_last_error", "gfxcuda_version", "gfxcuda_free",
                                     "gfxcuda_set_python_capsule_api", "gfxcuda_dlpack_capsule_destructor",
                                     "gfxcuda_dlpack_binding_capsule_destructor"}
    assert declared == declared_py, (declared ^ declared_py)
