"""MuJoCo's C library (Debian's libmujoco-dev, 2.2.2) renders random models
offscreen on a headless EGL context and gfxcuda's C API reads its color
buffer: the multisampled framebuffer (gfxcuda resolves it) and MuJoCo's
resolved one into compute views, and with CUDA gfxcuda_gl_to_tensor; every
pixel equals mjr_readPixels (c/gl_mujoco.c says what it checks).

The program is built here with gcc when libmujoco-dev and EGL's headers are
installed; elsewhere (the GPU machine, which has no libmujoco) it comes
prebuilt with libmujoco.so and the libraries it needs in mujoco.txz, which
`make gpu-mujoco` packs into the GPU bundle (.gpu/mujoco.txz, beside
pkg/python/tests), or from $GFXCUDA_MUJOCO_BUNDLE (that file or its unpacked
folder)."""

import os
import shutil
import subprocess
import tarfile

import pytest

from gfxcuda import _lib

from conftest import HAVE_CUDA, REQUIRE_CUDA

here = os.path.dirname(os.path.abspath(__file__))
source = os.path.join(here, "c", "gl_mujoco.c")
header = os.environ.get("GFXCUDA_HEADER") or os.path.join(here, "..", "..", "cmd", "libgfxcuda", "gfxcuda.h")
BUNDLES = [os.environ.get("GFXCUDA_MUJOCO_BUNDLE", ""), os.path.join(here, "..", "..", "..", "mujoco.txz")]
SKIPPED = 77  # the program's exit status when it has no EGL display, GL 4.5 or Vulkan device


def _headers():
    """What is missing to build the program here ("" when nothing)."""
    if shutil.which("gcc") is None:
        return "no gcc"
    for h, pkg in (("mujoco/mujoco.h", "libmujoco-dev"), ("EGL/egl.h", "libegl-dev")):
        if not any(os.path.exists(os.path.join(d, h)) for d in ("/usr/include", "/usr/local/include")):
            return "no %s (Debian: %s)" % (h, pkg)
    if not os.path.exists(header):
        return "no gfxcuda.h next to this checkout"
    return ""


def _program(tmp_path):
    """(the program's path, folders for LD_LIBRARY_PATH)."""
    missing = _headers()
    if not missing:
        exe = tmp_path / "gl_mujoco"
        subprocess.run(["gcc", "-std=c11", "-O1", "-Wall", "-Wextra", "-Werror", "-o", str(exe), source,
                        "-I", os.path.dirname(os.path.abspath(header)), "-L", os.path.dirname(_lib._path),
                        "-l:libgfxcuda.so", "-lmujoco", "-lEGL"], check=True)
        return str(exe), []
    for b in BUNDLES:
        if b and os.path.isdir(b) and os.path.exists(os.path.join(b, "gl_mujoco")):
            return os.path.join(b, "gl_mujoco"), [os.path.abspath(b)]
        if b and os.path.isfile(b):
            with tarfile.open(b) as t:
                if hasattr(tarfile, "data_filter"):  # Python 3.12, 3.11.4
                    t.extractall(tmp_path, filter="data")
                else:
                    t.extractall(tmp_path)
            d = tmp_path / "mujoco"
            return str(d / "gl_mujoco"), [str(d)]
    pytest.skip("cannot build the MuJoCo test (%s) and no prebuilt mujoco.txz (make gpu-mujoco)" % missing)


def test_mujoco_offscreen_color_equals_mjr_readPixels(tmp_path):
    exe, libdirs = _program(tmp_path)
    env = dict(os.environ)
    # The library of the gfxcuda being tested (the tree's or the installed
    # wheel's), then the bundle's libmujoco and its libraries.
    path = [os.path.dirname(os.path.abspath(_lib._path))] + libdirs
    env["LD_LIBRARY_PATH"] = os.pathsep.join(path + ([env["LD_LIBRARY_PATH"]] if env.get("LD_LIBRARY_PATH") else []))
    seed = int.from_bytes(os.urandom(4), "little") | 1
    r = subprocess.run([exe, str(seed)], capture_output=True, text=True, env=env, timeout=300)
    out = r.stdout + r.stderr
    if r.returncode == SKIPPED:
        reason = next((ln for ln in r.stdout.splitlines() if ln.startswith("skip: ")), "skip: (no reason)")
        if os.environ.get("GFXCUDA_REQUIRE_GL") == "1":
            pytest.fail("GFXCUDA_REQUIRE_GL=1, but the MuJoCo test could not run: " + reason[6:])
        pytest.skip(reason[6:])
    assert r.returncode == 0, out
    assert "ok: MuJoCo's offscreen color and depth through gfxcuda equal mjr_readPixels" in r.stdout, out
    assert r.stdout.count("every pixel equal") == 6, out  # 3 models, 2 frames each
    if HAVE_CUDA or REQUIRE_CUDA:
        assert "cuda: skipped" not in r.stdout and "CUDA tensor" in r.stdout, out
    else:
        assert "cuda: skipped" in r.stdout, out
    print(out)
