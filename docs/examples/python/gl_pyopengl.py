"""PyOpenGL's frames in torch (or a compute shader), with gfxcuda.gl.

A headless EGL context made with PyOpenGL (PYOPENGL_PLATFORM=egl), random
triangles drawn into a framebuffer with a 4x multisampled renderbuffer,
which gfxcuda.gl resolves and hands to torch (with CUDA) or to a compute
shader (without). Each frame is checked against glReadPixels of GL's own
resolve.

    PYOPENGL_PLATFORM=egl python3 gl_pyopengl.py [--frames N] [--size WxH]
"""
import argparse
import ctypes
import os
import sys

os.environ.setdefault("PYOPENGL_PLATFORM", "egl")
if not os.environ.get("DISPLAY") and not os.environ.get("WAYLAND_DISPLAY"):
    os.environ.setdefault("EGL_PLATFORM", "surfaceless")  # Mesa's EGL without a display (NVIDIA's needs none)

import numpy  # noqa: E402
from OpenGL import EGL, GL  # noqa: E402
from OpenGL.GL import shaders  # noqa: E402

import gfxcuda  # noqa: E402
import gfxcuda.gl  # noqa: E402


def egl_context():
    """A desktop GL 4.5 core context current on this thread (no window)."""
    dpy = EGL.eglGetDisplay(EGL.EGL_DEFAULT_DISPLAY)
    if not EGL.eglInitialize(dpy, None, None):
        raise SystemExit("eglInitialize failed (on Mesa without a display: EGL_PLATFORM=surfaceless)")
    cfg, n = EGL.EGLConfig(), EGL.EGLint()
    attrs = (EGL.EGLint * 5)(EGL.EGL_RENDERABLE_TYPE, EGL.EGL_OPENGL_BIT, EGL.EGL_SURFACE_TYPE, EGL.EGL_PBUFFER_BIT,
                             EGL.EGL_NONE)
    EGL.eglChooseConfig(dpy, attrs, ctypes.pointer(cfg), 1, ctypes.pointer(n))
    EGL.eglBindAPI(EGL.EGL_OPENGL_API)
    ctx = EGL.eglCreateContext(dpy, cfg, EGL.EGL_NO_CONTEXT, (EGL.EGLint * 7)(
        EGL.EGL_CONTEXT_MAJOR_VERSION, 4, EGL.EGL_CONTEXT_MINOR_VERSION, 5,
        EGL.EGL_CONTEXT_OPENGL_PROFILE_MASK, EGL.EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT, EGL.EGL_NONE))
    if not ctx or not EGL.eglMakeCurrent(dpy, EGL.EGL_NO_SURFACE, EGL.EGL_NO_SURFACE, ctx):
        raise SystemExit("no GL 4.5 core context")
    return dpy, ctx


VS = "#version 450\nlayout(location=0) in vec2 p; layout(location=1) in vec3 c; out vec3 v;\n" \
     "void main() { gl_Position = vec4(p, 0, 1); v = c; }"
FS = "#version 450\nin vec3 v; out vec4 o; void main() { o = vec4(v, 1); }"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--frames", type=int, default=3)
    ap.add_argument("--size", default="160x120")
    a = ap.parse_args(argv)
    w, h = (int(v) for v in a.size.split("x"))
    egl_context()

    # The renderer's objects: a 4x multisampled framebuffer, a program, a VAO.
    rb = GL.glGenRenderbuffers(1)
    GL.glBindRenderbuffer(GL.GL_RENDERBUFFER, rb)
    GL.glRenderbufferStorageMultisample(GL.GL_RENDERBUFFER, 4, GL.GL_RGBA8, w, h)
    fbo = GL.glGenFramebuffers(1)
    GL.glBindFramebuffer(GL.GL_FRAMEBUFFER, fbo)
    GL.glFramebufferRenderbuffer(GL.GL_FRAMEBUFFER, GL.GL_COLOR_ATTACHMENT0, GL.GL_RENDERBUFFER, rb)
    prog = shaders.compileProgram(shaders.compileShader(VS, GL.GL_VERTEX_SHADER),
                                  shaders.compileShader(FS, GL.GL_FRAGMENT_SHADER))
    vao, vbo = GL.glGenVertexArrays(1), GL.glGenBuffers(1)
    GL.glBindVertexArray(vao)
    GL.glBindBuffer(GL.GL_ARRAY_BUFFER, vbo)
    for i, n in ((0, 2), (1, 3)):
        GL.glEnableVertexAttribArray(i)
        GL.glVertexAttribPointer(i, n, GL.GL_FLOAT, False, 20, ctypes.c_void_p(8 * i))
    # A single-sampled texture to check against (GL's own resolve).
    check = GL.glGenTextures(1)
    GL.glBindTexture(GL.GL_TEXTURE_2D, check)
    GL.glTexStorage2D(GL.GL_TEXTURE_2D, 1, GL.GL_RGBA8, w, h)
    cfbo = GL.glGenFramebuffers(1)
    GL.glBindFramebuffer(GL.GL_FRAMEBUFFER, cfbo)
    GL.glFramebufferTexture2D(GL.GL_FRAMEBUFFER, GL.GL_COLOR_ATTACHMENT0, GL.GL_TEXTURE_2D, check, 0)

    src = gfxcuda.gl.framebuffer(fbo)  # its color attachment: the multisampled renderbuffer
    print(src)
    torch = None
    if gfxcuda.cuda_available():
        try:
            import torch
        except ImportError:
            pass
    for frame in range(a.frames):
        rng = numpy.random.default_rng(frame)
        verts = numpy.hstack([rng.uniform(-1, 1, (60, 2)), rng.uniform(0, 1, (60, 3))]).astype(numpy.float32)
        GL.glBindFramebuffer(GL.GL_FRAMEBUFFER, fbo)
        GL.glViewport(0, 0, w, h)
        GL.glClearColor(0.1, 0.1, 0.1, 1)
        GL.glClear(GL.GL_COLOR_BUFFER_BIT)
        GL.glBufferData(GL.GL_ARRAY_BUFFER, verts.nbytes, verts, GL.GL_DYNAMIC_DRAW)
        GL.glUseProgram(prog)
        GL.glDrawArrays(GL.GL_TRIANGLES, 0, 60)

        # What users do today, as the check: resolve, glReadPixels.
        GL.glBindFramebuffer(GL.GL_READ_FRAMEBUFFER, fbo)
        GL.glBindFramebuffer(GL.GL_DRAW_FRAMEBUFFER, cfbo)
        GL.glBlitFramebuffer(0, 0, w, h, 0, 0, w, h, GL.GL_COLOR_BUFFER_BIT, GL.GL_NEAREST)
        GL.glBindFramebuffer(GL.GL_READ_FRAMEBUFFER, cfbo)
        GL.glPixelStorei(GL.GL_PACK_ALIGNMENT, 1)
        want = numpy.frombuffer(GL.glReadPixels(0, 0, w, h, GL.GL_RGBA, GL.GL_UNSIGNED_BYTE), numpy.uint8)
        want = want.reshape(h, w, 4)[::-1]  # top row first

        if torch is not None:
            x = torch.from_dlpack(src.to_tensor())  # (H, W, 4) uint8, top row first, on the GPU
            ok = torch.equal(x.cpu(), torch.from_numpy(want.copy()))
            print("frame %d: torch %s %s, equal to glReadPixels: %s" % (frame, tuple(x.shape), x.device, ok))
        else:
            view = src.compute_view()  # a Texture2D of gfxcuda's compute device
            rb_ = gfxcuda.Buffer(w * h * 4, gfxcuda.HEAP_READBACK)
            view.copy_to(rb_)
            got = numpy.frombuffer(rb_.readback(), numpy.uint8).reshape(h, w, 4)[::-1]
            ok = bool((got == want).all())
            print("frame %d: compute view %dx%d, equal to glReadPixels: %s" % (frame, view.width, view.height, ok))
        if not ok:
            return 1
    src.release()
    return 0


if __name__ == "__main__":
    sys.exit(main())
