"""gfxcuda.gl on a GLX context (a window's or a viewer's, as under X11):
moderngl's default Linux backend makes a GLX context on an Xvfb display the
test starts; the same checks as on EGL (every texel of the compute view
against moderngl's read-back, a multisampled framebuffer resolved, a clear
error on another thread)."""

import os
import shutil
import subprocess
import threading

import pytest

moderngl = pytest.importorskip("moderngl", reason="moderngl is not installed (Debian: python3-moderngl)")

import gfxcuda  # noqa: E402
import gfxcuda.gl  # noqa: E402
from conftest import gl_view_bytes  # noqa: E402
from test_gl_moderngl import _draw  # noqa: E402


def _no_egl_current():
    import ctypes
    try:
        egl = ctypes.CDLL("libEGL.so.1")
    except OSError:
        return
    egl.eglGetCurrentDisplay.restype = ctypes.c_void_p
    d = egl.eglGetCurrentDisplay()
    if d:
        egl.eglMakeCurrent.argtypes = [ctypes.c_void_p] * 4
        egl.eglMakeCurrent(d, None, None, None)
    egl.eglReleaseThread()


@pytest.fixture(scope="module")
def glx_ctx():
    xvfb = shutil.which("Xvfb")
    if xvfb is None:
        pytest.skip("no Xvfb (Debian: xvfb): the GLX test needs an X server")
    r, w = os.pipe()
    proc = subprocess.Popen([xvfb, "-displayfd", str(w), "-screen", "0", "320x240x24", "-nolisten", "tcp", "-noreset"],
                            pass_fds=(w,), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    os.close(w)
    try:
        with os.fdopen(r) as f:
            number = f.readline().strip()
        if not number:
            pytest.skip("Xvfb did not start")
        _no_egl_current()  # an EGL context earlier tests left current: GLX refuses to bind over it (BadAccess)
        old = os.environ.get("DISPLAY")
        os.environ["DISPLAY"] = ":" + number
        try:
            ctx = moderngl.create_standalone_context(require=450)  # GLX: glcontext's x11 backend
        except Exception as e:
            pytest.skip("no GLX GL 4.5 context on Xvfb: %s" % e)
        try:
            gfxcuda.get_current_device()
        except gfxcuda.GfxcudaError as e:  # pragma: no cover
            pytest.skip("no Vulkan device: %s" % e)
        yield ctx
        ctx.release()
        if old is None:
            os.environ.pop("DISPLAY", None)
        else:
            os.environ["DISPLAY"] = old
    finally:
        proc.terminate()
        proc.wait(30)


def test_glx_texture_and_multisampled_framebuffer(glx_ctx):
    ctx = glx_ctx
    w, h = 41, 27
    tex = ctx.texture((w, h), 4)
    fbo = ctx.framebuffer(color_attachments=[tex])
    ms = ctx.renderbuffer((w, h), 4, samples=4)
    msfbo = ctx.framebuffer(color_attachments=[ms])
    try:
        for seed in (1, 2):
            _draw(ctx, fbo, seed)
            src = gfxcuda.gl.texture(tex.glo)
            assert gl_view_bytes(src) == tex.read()
            src.release()
        _draw(ctx, msfbo, 3, n=40)
        ctx.copy_framebuffer(fbo, msfbo)  # GL's own resolve, into tex
        src = gfxcuda.gl.framebuffer(msfbo.glo)
        assert src.samples == 4 and gl_view_bytes(src) == tex.read()
        src.release()
        got = []

        def other():
            try:
                gfxcuda.gl.texture(tex.glo)
            except gfxcuda.GfxcudaError as e:
                got.append(str(e))
        t = threading.Thread(target=other)
        t.start()
        t.join(60)
        assert got and "glXMakeCurrent" in got[0], got
    finally:
        for o in (fbo, msfbo, tex, ms):
            o.release()
