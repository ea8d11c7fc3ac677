#!/usr/bin/env python3
"""Your own renderer's frames in torch (issue 32): per frame, how a frame that
the caller's own OpenGL renderer drew reaches a CUDA tensor.

    python bench/gl_renderer.py [--frames 200] [--warmup 20] [--batch 32]
        [--sizes 64x64,256x256,1920x1080] [--json out.json] [--tiny]
        [--save-frames DIR] [--egl-device N] [--seed S] [--check-all]
        [--gl-module NAME] [--only KEYS] [--phases]

The renderer is a real GL scene drawn with PyOpenGL (PYOPENGL_PLATFORM=egl)
on a headless EGL context this script makes itself (EGL_EXT_platform_device,
the EGL device that is torch's CUDA device first (EGL_NV_device_cuda; the
match is checked with cuGLGetDevices), else Mesa's surfaceless platform;
desktop GL 4.5 core; libEGL through ctypes, as PyOpenGL 3.1.6's OpenGL.EGL
cannot call EGL's extension functions on NVIDIA's headless EGL: see
EGLLib). The scene: a full-frame quad and 64
triangles with random vertex colours, plus per-pixel hash noise, all from
a new seed each frame (never constant data: the H200 compresses constant
memory), into an FBO whose colour attachment is an RGBA8 texture.

Each frame is drawn (glFinish: the draw is not timed), then one method
brings it into a CUDA tensor, timed until the tensor is complete
(torch.cuda.synchronize):

  (a0) glReadPixels -> numpy: the host half of (a), no CUDA (also on the CPU)
  (a)  glReadPixels -> numpy -> torch.from_numpy(...).cuda(): what users do
       today (a numpy array reused each frame, pageable memory)
  (b)  a pixel-pack buffer registered once with CUDA
       (cuGraphicsGLRegisterBuffer), each frame glReadPixels into it,
       cuGraphicsMapResources, cuGraphicsResourceGetMappedPointer,
       cuMemcpyDtoDAsync into a torch tensor, cuGraphicsUnmapResources
       (IsaacTeleop#938's way, the best peer), through ctypes on libcuda.so.1
       in torch's context
  (c)  gfxcuda per frame: src = gfxcuda.gl.texture(tex) once, each frame
       torch.from_dlpack(src.to_tensor(dtype="uint8", layout="hwc", flip_y=True))
  (c') the same with out= (a torch tensor reused each frame), when the API
       takes it
  (ct) the same for torch users: src.to_torch(...) each frame (a torch
       tensor, complete on return: GL writes it into memory CUDA shares and
       the C call hands it over as DLPack; no array object, no __dlpack__
       round trip), when the API has it
  (d)  gfxcuda batched: --batch textures drawn, then one
       gfxcuda.gl.to_tensors(frames, ...) for all of them; time / batch
  (z)  the floor: a GL frame, then the same kernel (no interop, no copy):
       the GPU time-slices between the GL and CUDA contexts, so the first
       CUDA work after a GL frame waits for a context switch, which every
       per-frame method above pays once; printed beside the 10x target

(a) and (b) keep GL's row order (bottom row first), (c) and (d) flip (top
row first, as learners want): the flip costs (b) nothing here, which favours
the peer. The GL calls of the timed paths go straight to libOpenGL through
ctypes (no PyOpenGL wrapper, no glGetError per call), the fastest a Python
user gets; errors are checked after each checked frame.

A method that raises is a failure at that size (the others go on); (c')
raising on its first frame is left out (out= not taken). --gl-module NAME
times another module with gfxcuda.gl's names as (c)/(d) (a stand-in tests
this script before gfxcuda.gl exists).

Methods run alternately in the same repetitions. Every element of each
method's tensor is compared with glReadPixels of the same frame on the first
warm-up frame, the first and the last timed frame (--check-all: every frame);
outputs that persist across frames are poisoned before a checked frame, and
each frame has its own seed, so a method that did nothing fails. A self-check
per size first: the scene is deterministic per seed, differs between seeds, is
far from constant, and a pixel-pack buffer read back by glGetNamedBufferSubData
equals glReadPixels (the GL half of (b), which runs on llvmpipe too).

Without CUDA (the CPU machine) or torch, the CUDA methods are skipped with a
line saying so; without gfxcuda.gl (or without texture() in it), (c) and
(d) are; without gfxcuda.gl.to_tensors, (d). --only KEYS runs those
methods alone (comma-separated: c,z); --phases also times the phases of
(c) and (ct) (dropping the previous frame's tensor, the call, from_dlpack,
synchronize: medians printed beside them). --tiny: a few frames of each
(a smoke test: python/tests/test_bench_gl_renderer.py runs it, on llvmpipe
here). Prints a table (median us per frame; speed-up factors: time
of (a) or (b) / time of the method) and the issue's targets beside it;
--json FILE writes the same. Exit status: 0, 1 when a check failed, 3 when no
EGL context could be made (or PyOpenGL is missing).

PyOpenGL on a machine without it (the GPU machine): it is pure Python;
`make gpu-pyopengl` (part of `make gpu-bundle`) packs Debian's copy into
.gpu/pyopengl.txz, which .gpu/run.sh and .gpu/quick.sh unpack and put on
PYTHONPATH. There: bash .gpu/quick.sh --bench gl_renderer --json $OUT/gl-renderer.json
"""

import argparse
import ctypes
import json
import os
import statistics
import sys
import time

here = os.path.dirname(os.path.abspath(__file__))
if os.environ.get("GFXCUDA_TEST_INSTALLED") != "1":
    sys.path.insert(0, os.path.join(here, ".."))
# As bench/speed.py: timings measure gfxcuda, not the validation layer.
if os.environ.get("GFXCUDA_SPEED_VALIDATION") != "1":
    os.environ["GFXCUDA_VALIDATION"] = "0"
os.environ.setdefault("PYOPENGL_PLATFORM", "egl")

EXIT_CHECK = 1
EXIT_NO_GL = 3

TRIANGLES = 64
VERT_FLOATS = 6  # x, y, r, g, b, a

VERTEX_SHADER = """#version 450 core
layout(location = 0) in vec2 pos;
layout(location = 1) in vec4 col;
out vec4 vcol;
void main() { vcol = col; gl_Position = vec4(pos, 0.0, 1.0); }
"""

FRAGMENT_SHADER = """#version 450 core
in vec4 vcol;
uniform uint seed;
out vec4 color;
uint hash(uint x) {
    x ^= x >> 16; x *= 0x7feb352du; x ^= x >> 15; x *= 0x846ca68bu; x ^= x >> 16;
    return x;
}
void main() {
    uvec2 p = uvec2(gl_FragCoord.xy);
    uint h = hash(p.x ^ hash(p.y ^ hash(seed)));
    vec4 noise = vec4(h & 255u, (h >> 8) & 255u, (h >> 16) & 255u, h >> 24) / 255.0;
    color = mix(vcol, noise, 0.25);
}
"""

# GL enums (the timed paths call libOpenGL directly).
GL_RGBA = 0x1908
GL_UNSIGNED_BYTE = 0x1401
GL_PIXEL_PACK_BUFFER = 0x88EB
GL_READ_FRAMEBUFFER = 0x8CA8
GL_NO_ERROR = 0

# EGL extensions' enums.
EGL_PLATFORM_DEVICE_EXT = 0x313F
EGL_PLATFORM_SURFACELESS_MESA = 0x31DD
EGL_CUDA_DEVICE_NV = 0x323A


class Skip(Exception):
    """A method that cannot run here; the message says why."""


class NoGL(Exception):
    """No EGL/GL context could be made (or PyOpenGL is missing)."""


# ---------------------------------------------------------------- EGL, GL


def pyopengl_compat():
    """PyOpenGL before 3.1.7 knows the type of ctypes.byref(...) as
    builtins.CArgObject; Python 3.12 calls it _ctypes.CArgObject, and
    every call given a byref() fails ("No array-type handler for type
    _ctypes.CArgObject"). Adds this Python's name to the handler's."""
    from OpenGL import plugins
    t = type(ctypes.byref(ctypes.c_int()))
    key = "%s.%s" % (t.__module__, t.__name__)
    h = plugins.FormatHandler.by_name("ctypesparameter")
    if h is not None and key not in (h.check or ()):
        h.check = list(h.check or ()) + [key]


class EGLLib:
    """libEGL through ctypes. PyOpenGL 3.1.6's OpenGL.EGL checks each
    extension function against eglQueryString(eglGetDisplay(
    EGL_DEFAULT_DISPLAY), EGL_EXTENSIONS), which NVIDIA's headless EGL
    answers with EGL_NOT_INITIALIZED (and the device functions are client
    extensions, which that list does not hold): the context is made here
    directly, the same library PyOpenGL's EGL platform loads; extension
    functions come from eglGetProcAddress."""

    EXTENSIONS, NONE, RENDERABLE_TYPE, OPENGL_BIT = 0x3055, 0x3038, 0x3040, 0x0008
    SURFACE_TYPE, PBUFFER_BIT, DONT_CARE, OPENGL_API = 0x3033, 0x0001, -1, 0x30A2
    CONTEXT_MAJOR_VERSION, CONTEXT_MINOR_VERSION = 0x3098, 0x30FB
    CONTEXT_OPENGL_PROFILE_MASK, CONTEXT_OPENGL_CORE_PROFILE_BIT = 0x30FD, 0x1
    WIDTH, HEIGHT = 0x3057, 0x3056

    def __init__(self):
        try:
            lib = ctypes.CDLL("libEGL.so.1")
        except OSError as e:
            raise NoGL("no libEGL.so.1 (Debian libegl1; the GPU machine's bundle has it in .gpu/debs): %s" % e)
        p, i, u = ctypes.c_void_p, ctypes.c_int, ctypes.c_uint
        P = ctypes.POINTER
        for name, res, args in (
                ("eglGetProcAddress", p, [ctypes.c_char_p]), ("eglQueryString", ctypes.c_char_p, [p, i]),
                ("eglGetDisplay", p, [p]), ("eglInitialize", u, [p, P(i), P(i)]), ("eglTerminate", u, [p]),
                ("eglBindAPI", u, [u]), ("eglChooseConfig", u, [p, P(i), P(p), i, P(i)]),
                ("eglCreateContext", p, [p, p, p, P(i)]), ("eglDestroyContext", u, [p, p]),
                ("eglCreatePbufferSurface", p, [p, p, P(i)]), ("eglDestroySurface", u, [p, p]),
                ("eglMakeCurrent", u, [p, p, p, p]), ("eglGetError", i, [])):
            f = getattr(lib, name)
            f.restype, f.argtypes = res, args
            setattr(self, name, f)
        self.client_extensions = (self.eglQueryString(None, self.EXTENSIONS) or b"").decode()

    def ext(self, name, res, *args):
        """Extension function name, or None."""
        addr = self.eglGetProcAddress(name.encode())
        return ctypes.CFUNCTYPE(res, *args)(addr) if addr else None

    @staticmethod
    def attribs(*pairs):
        return (ctypes.c_int * (len(pairs) + 1))(*pairs, EGLLib.NONE)


def egl_context(cuda_ordinal=None, device_index=None):
    """Makes a desktop GL 4.5 core context current on this thread: on the EGL
    device that CUDA device cuda_ordinal is (EGL_NV_device_cuda) first, or
    device_index when given, then the other devices, then Mesa's surfaceless
    platform and the default display. Returns a dict describing it and a
    close function."""
    egl = EGLLib()
    p, i = ctypes.c_void_p, ctypes.c_int
    client = egl.client_extensions
    candidates = []  # (description, display getter, EGL device index, CUDA device)
    get_platform_display = None
    if "EGL_EXT_platform_base" in client or "EGL_EXT_platform_device" in client:
        get_platform_display = egl.ext("eglGetPlatformDisplayEXT", p, ctypes.c_uint, p, ctypes.POINTER(i))
    query_devices = egl.ext("eglQueryDevicesEXT", ctypes.c_uint, i, ctypes.POINTER(p), ctypes.POINTER(i))
    if "EGL_EXT_platform_device" in client and get_platform_display and query_devices:
        query_string = egl.ext("eglQueryDeviceStringEXT", ctypes.c_char_p, p, i)
        query_attrib = egl.ext("eglQueryDeviceAttribEXT", ctypes.c_uint, p, i, ctypes.POINTER(ctypes.c_ssize_t))
        n = i()
        if query_devices(0, None, ctypes.byref(n)) and n.value > 0:
            devs = (p * n.value)()
            query_devices(n.value, devs, ctypes.byref(n))
            if device_index is not None and device_index >= n.value:
                raise NoGL("--egl-device %d: EGL has %d devices (0..%d)" % (device_index, n.value, n.value - 1))
            order = []
            for k in range(n.value):
                ext = ((query_string(devs[k], EGLLib.EXTENSIONS) if query_string else None) or b"").decode()
                cuda = None
                if "EGL_NV_device_cuda" in ext and query_attrib:
                    v = ctypes.c_ssize_t()
                    if query_attrib(devs[k], EGL_CUDA_DEVICE_NV, ctypes.byref(v)):
                        cuda = v.value
                if device_index is not None:
                    rank = 0 if k == device_index else 3
                else:
                    rank = 0 if (cuda is not None and cuda == cuda_ordinal) else (1 if cuda is not None else 2)
                order.append((rank, k, cuda, ext))
            for rank, k, cuda, ext in sorted(order):
                if rank == 3:
                    continue
                what = "EGL device %d of %d%s (%s)" % (
                    k, n.value, "" if cuda is None else ", CUDA device %d" % cuda,
                    "software" if "EGL_MESA_device_software" in ext else "hardware")
                candidates.append((what, (lambda d=devs[k]: get_platform_display(EGL_PLATFORM_DEVICE_EXT, d, None)),
                                   k, cuda))
    if device_index is None:
        if "EGL_MESA_platform_surfaceless" in client and get_platform_display:
            candidates.append(("Mesa surfaceless platform",
                               lambda: get_platform_display(EGL_PLATFORM_SURFACELESS_MESA, None, None), None, None))
        candidates.append(("default display", lambda: egl.eglGetDisplay(None), None, None))
    errors = []
    for what, get, index, cuda in candidates:
        try:
            made = _egl_try(egl, get)
        except Exception as e:
            errors.append("%s: %s" % (what, e))
            continue
        made.update(egl=what, egl_device=index, egl_cuda_device=cuda)
        return made
    raise NoGL("no EGL display gave a desktop GL 4.5 core context: " + "; ".join(errors or ["no EGL display"]))


def _egl_try(egl, get_display):
    dpy = get_display()
    if not dpy:
        raise RuntimeError("no display (EGL error 0x%x)" % egl.eglGetError())
    major, minor = ctypes.c_int(), ctypes.c_int()
    if not egl.eglInitialize(dpy, ctypes.byref(major), ctypes.byref(minor)):
        raise RuntimeError("eglInitialize failed: 0x%x" % egl.eglGetError())
    ok = False
    try:
        ext = (egl.eglQueryString(dpy, EGLLib.EXTENSIONS) or b"").decode()
        surfaceless = "EGL_KHR_surfaceless_context" in ext
        if not egl.eglBindAPI(EGLLib.OPENGL_API):
            raise RuntimeError("eglBindAPI(EGL_OPENGL_API) failed: 0x%x" % egl.eglGetError())
        # EGL_SURFACE_TYPE defaults to EGL_WINDOW_BIT, which headless
        # displays have no config for: ask for pbuffers (every headless
        # config has them), then for anything.
        cfgs, n = (ctypes.c_void_p * 1)(), ctypes.c_int()
        for surface_type in (EGLLib.PBUFFER_BIT, EGLLib.DONT_CARE):
            attrs = EGLLib.attribs(EGLLib.RENDERABLE_TYPE, EGLLib.OPENGL_BIT, EGLLib.SURFACE_TYPE, surface_type)
            if egl.eglChooseConfig(dpy, attrs, cfgs, 1, ctypes.byref(n)) and n.value >= 1:
                break
        else:
            raise RuntimeError("no EGL config for desktop GL")
        cfg = cfgs[0]
        ctx = egl.eglCreateContext(dpy, cfg, None, EGLLib.attribs(
            EGLLib.CONTEXT_MAJOR_VERSION, 4, EGLLib.CONTEXT_MINOR_VERSION, 5,
            EGLLib.CONTEXT_OPENGL_PROFILE_MASK, EGLLib.CONTEXT_OPENGL_CORE_PROFILE_BIT))
        if not ctx:
            raise RuntimeError("eglCreateContext (GL 4.5 core) failed: 0x%x" % egl.eglGetError())
        surf = None
        if not surfaceless:
            surf = egl.eglCreatePbufferSurface(dpy, cfg, EGLLib.attribs(EGLLib.WIDTH, 1, EGLLib.HEIGHT, 1))
            if not surf:
                egl.eglDestroyContext(dpy, ctx)
                raise RuntimeError("eglCreatePbufferSurface failed: 0x%x" % egl.eglGetError())
        if not egl.eglMakeCurrent(dpy, surf, surf, ctx):
            e = egl.eglGetError()
            if surf:
                egl.eglDestroySurface(dpy, surf)
            egl.eglDestroyContext(dpy, ctx)
            raise RuntimeError("eglMakeCurrent failed: 0x%x" % e)
        ok = True
    finally:
        if not ok:
            egl.eglTerminate(dpy)

    def close():
        egl.eglMakeCurrent(dpy, None, None, None)
        if surf:
            egl.eglDestroySurface(dpy, surf)
        egl.eglDestroyContext(dpy, ctx)
        egl.eglTerminate(dpy)

    return dict(close=close, egl_version="%d.%d" % (major.value, minor.value),
                surface="surfaceless" if surfaceless else "pbuffer 1x1")


def open_gl(cuda_ordinal, egl_device):
    """egl_context's context (current on this thread), PyOpenGL's GL module
    and the RawGL of the timed paths; NoGL, saying why, when there is no
    context or no PyOpenGL."""
    info = egl_context(cuda_ordinal, egl_device)
    try:
        pyopengl_compat()
        from OpenGL import GL
        return info, GL, RawGL()
    except ImportError as e:
        raise NoGL("PyOpenGL cannot be imported: %s" % e) from e


class RawGL:
    """The few GL entry points of the timed paths, straight from the GL
    library PyOpenGL loaded (its own function objects: PyOpenGL's are left
    as they are)."""

    def __init__(self):
        from OpenGL import platform
        lib = ctypes.CDLL(platform.PLATFORM.GL._name)
        u, i, p = ctypes.c_uint, ctypes.c_int, ctypes.c_void_p
        self.lib_name = platform.PLATFORM.GL._name
        self.glReadPixels = self._fn(lib, "glReadPixels", [i, i, i, i, u, u, p])
        self.glBindBuffer = self._fn(lib, "glBindBuffer", [u, u])
        self.glBindFramebuffer = self._fn(lib, "glBindFramebuffer", [u, u])
        self.glFinish = self._fn(lib, "glFinish", [])
        self.glGetError = self._fn(lib, "glGetError", [], u)
        self.glGetNamedBufferSubData = self._fn(lib, "glGetNamedBufferSubData",
                                                [u, ctypes.c_ssize_t, ctypes.c_ssize_t, p])

    @staticmethod
    def _fn(lib, name, args, res=None):
        f = getattr(lib, name)
        f.argtypes, f.restype = args, res
        return f

    def check(self, where):
        e = self.glGetError()
        if e != GL_NO_ERROR:
            raise RuntimeError("GL error 0x%04x after %s" % (e, where))


class Scene:
    """The renderer: random triangles with a new seed per frame, into FBOs
    with RGBA8 texture colour attachments (slots) of one size."""

    def __init__(self, GL, raw):
        self.GL, self.raw = GL, raw
        import numpy
        self.np = numpy
        self.prog = self._program()
        self.seed_loc = GL.glGetUniformLocation(self.prog, "seed")
        self.nverts = 3 * (TRIANGLES + 2)
        self.vao = GL.glGenVertexArrays(1)
        self.vbo = GL.glGenBuffers(1)
        GL.glBindVertexArray(self.vao)
        GL.glBindBuffer(GL.GL_ARRAY_BUFFER, self.vbo)
        GL.glBufferData(GL.GL_ARRAY_BUFFER, self.nverts * VERT_FLOATS * 4, None, GL.GL_STREAM_DRAW)
        GL.glEnableVertexAttribArray(0)
        GL.glVertexAttribPointer(0, 2, GL.GL_FLOAT, GL.GL_FALSE, VERT_FLOATS * 4, ctypes.c_void_p(0))
        GL.glEnableVertexAttribArray(1)
        GL.glVertexAttribPointer(1, 4, GL.GL_FLOAT, GL.GL_FALSE, VERT_FLOATS * 4, ctypes.c_void_p(8))
        GL.glBindBuffer(GL.GL_ARRAY_BUFFER, 0)
        GL.glBindVertexArray(0)
        GL.glDisable(GL.GL_DITHER)
        self.slots = []  # (texture, framebuffer)
        self.w = self.h = 0

    def _program(self):
        GL = self.GL
        prog = GL.glCreateProgram()
        for kind, src in ((GL.GL_VERTEX_SHADER, VERTEX_SHADER), (GL.GL_FRAGMENT_SHADER, FRAGMENT_SHADER)):
            sh = GL.glCreateShader(kind)
            GL.glShaderSource(sh, src)
            GL.glCompileShader(sh)
            if not GL.glGetShaderiv(sh, GL.GL_COMPILE_STATUS):
                raise RuntimeError("shader: %s" % GL.glGetShaderInfoLog(sh))
            GL.glAttachShader(prog, sh)
            GL.glDeleteShader(sh)
        GL.glLinkProgram(prog)
        if not GL.glGetProgramiv(prog, GL.GL_LINK_STATUS):
            raise RuntimeError("program: %s" % GL.glGetProgramInfoLog(prog))
        return prog

    def resize(self, w, h, nslots):
        """nslots textures + FBOs of w x h (the old ones deleted)."""
        self.free_slots()
        GL = self.GL
        self.w, self.h = w, h
        for _ in range(nslots):
            tex = GL.glGenTextures(1)
            GL.glBindTexture(GL.GL_TEXTURE_2D, tex)
            GL.glTexStorage2D(GL.GL_TEXTURE_2D, 1, GL.GL_RGBA8, w, h)
            GL.glTexParameteri(GL.GL_TEXTURE_2D, GL.GL_TEXTURE_MIN_FILTER, GL.GL_NEAREST)
            GL.glTexParameteri(GL.GL_TEXTURE_2D, GL.GL_TEXTURE_MAG_FILTER, GL.GL_NEAREST)
            GL.glBindTexture(GL.GL_TEXTURE_2D, 0)
            fbo = GL.glGenFramebuffers(1)
            GL.glBindFramebuffer(GL.GL_FRAMEBUFFER, fbo)
            GL.glFramebufferTexture2D(GL.GL_FRAMEBUFFER, GL.GL_COLOR_ATTACHMENT0, GL.GL_TEXTURE_2D, tex, 0)
            st = GL.glCheckFramebufferStatus(GL.GL_FRAMEBUFFER)
            if st != GL.GL_FRAMEBUFFER_COMPLETE:
                raise RuntimeError("framebuffer %dx%d incomplete: 0x%x" % (w, h, st))
            self.slots.append((int(tex), int(fbo)))
        GL.glBindFramebuffer(GL.GL_FRAMEBUFFER, 0)
        self.raw.check("making %d %dx%d RGBA8 textures and framebuffers" % (nslots, w, h))

    def free_slots(self):
        GL = self.GL
        for tex, fbo in self.slots:
            GL.glDeleteFramebuffers(1, [fbo])
            GL.glDeleteTextures([tex])
        self.slots = []

    def draw(self, slot, seed):
        """Draws frame seed into slot; its FBO stays bound."""
        GL, np = self.GL, self.np
        rng = np.random.default_rng(seed)
        v = np.empty((TRIANGLES + 2, 3, VERT_FLOATS), np.float32)
        quad = np.array([[-1, -1], [1, -1], [1, 1], [-1, -1], [1, 1], [-1, 1]], np.float32)
        v[:2, :, :2] = quad.reshape(2, 3, 2)
        v[2:, :, :2] = rng.uniform(-1.1, 1.1, (TRIANGLES, 3, 2))
        v[:, :, 2:] = rng.uniform(0, 1, (TRIANGLES + 2, 3, 4))
        GL.glNamedBufferSubData(self.vbo, 0, v.nbytes, ctypes.c_void_p(v.ctypes.data))
        GL.glBindFramebuffer(GL.GL_FRAMEBUFFER, self.slots[slot][1])
        GL.glViewport(0, 0, self.w, self.h)
        GL.glUseProgram(self.prog)
        GL.glUniform1ui(self.seed_loc, seed & 0xFFFFFFFF)
        GL.glBindVertexArray(self.vao)
        GL.glDrawArrays(GL.GL_TRIANGLES, 0, self.nverts)
        GL.glBindVertexArray(0)
        GL.glUseProgram(0)

    def readback(self, slot, out=None):
        """glReadPixels of slot: (h, w, 4) uint8, GL's row order (bottom row first)."""
        if out is None:
            out = self.np.empty((self.h, self.w, 4), self.np.uint8)
        self.raw.glBindFramebuffer(GL_READ_FRAMEBUFFER, self.slots[slot][1])
        self.raw.glReadPixels(0, 0, self.w, self.h, GL_RGBA, GL_UNSIGNED_BYTE, out.ctypes.data)
        return out

    def close(self):
        GL = self.GL
        self.free_slots()
        GL.glDeleteBuffers(1, [self.vbo])
        GL.glDeleteVertexArrays(1, [self.vao])
        GL.glDeleteProgram(self.prog)


def self_check(scene, seeds, np):
    """The scene's own checks at the current size (slot 0): deterministic per
    seed, different between seeds, far from constant, and a pixel-pack
    buffer's bytes (glGetNamedBufferSubData) equal glReadPixels. Returns a
    description; raises on a failure."""
    GL, raw = scene.GL, scene.raw
    s1, s2 = next(seeds), next(seeds)
    scene.draw(0, s1)
    a = scene.readback(0)
    scene.draw(0, s2)
    b = scene.readback(0)
    scene.draw(0, s1)
    a2 = scene.readback(0)
    raw.check("the self-check's draws")
    if not np.array_equal(a, a2):
        raise RuntimeError("the same seed drew different frames (%d bytes differ)" % np.count_nonzero(a != a2))
    differ = np.count_nonzero(np.any(a != b, axis=2))
    if differ < a.shape[0] * a.shape[1] // 2:
        raise RuntimeError("two seeds drew frames equal in %d of %d pixels" % (a.shape[0] * a.shape[1] - differ,
                                                                             a.shape[0] * a.shape[1]))
    colors = len(np.unique(a.reshape(-1, 4).view(np.uint32)))
    if colors < min(1000, a.shape[0] * a.shape[1] // 4):
        raise RuntimeError("the frame has only %d distinct colours" % colors)
    # The GL half of (b): glReadPixels into a pixel-pack buffer.
    pbo = GL.glGenBuffers(1)
    GL.glBindBuffer(GL.GL_PIXEL_PACK_BUFFER, pbo)
    GL.glBufferData(GL.GL_PIXEL_PACK_BUFFER, a.nbytes, None, GL.GL_STREAM_READ)
    raw.glBindFramebuffer(GL_READ_FRAMEBUFFER, scene.slots[0][1])
    raw.glReadPixels(0, 0, scene.w, scene.h, GL_RGBA, GL_UNSIGNED_BYTE, None)
    GL.glBindBuffer(GL.GL_PIXEL_PACK_BUFFER, 0)
    got = np.full_like(a, 0xA5)
    raw.glGetNamedBufferSubData(pbo, 0, got.nbytes, got.ctypes.data)
    GL.glDeleteBuffers(1, [pbo])
    raw.check("the pixel-pack buffer readback")
    if not np.array_equal(got, a):
        raise RuntimeError("the pixel-pack buffer's bytes differ from glReadPixels in %d of %d bytes"
                           % (np.count_nonzero(got != a), a.nbytes))
    return "%d distinct colours, seeds differ in %d%% of pixels, pixel-pack buffer = glReadPixels" % (
        colors, 100 * differ // (a.shape[0] * a.shape[1]))


# ---------------------------------------------------------------- CUDA (driver API through ctypes)


class CudaDriver:
    """The CUDA driver API calls of (b), on torch's context."""

    CU_GRAPHICS_REGISTER_FLAGS_READ_ONLY = 1
    CU_GL_DEVICE_LIST_ALL = 1

    def __init__(self, torch):
        self.lib = lib = ctypes.CDLL("libcuda.so.1")
        p, u, sz, u64 = ctypes.c_void_p, ctypes.c_uint, ctypes.c_size_t, ctypes.c_uint64
        P = ctypes.POINTER
        sig = {
            "cuGetErrorName": [ctypes.c_int, P(ctypes.c_char_p)],
            "cuCtxGetCurrent": [P(p)],
            "cuCtxSetCurrent": [p],
            "cuCtxGetDevice": [P(ctypes.c_int)],
            "cuDevicePrimaryCtxRetain": [P(p), ctypes.c_int],
            "cuGraphicsGLRegisterBuffer": [P(p), u, u],
            "cuGraphicsUnregisterResource": [p],
            "cuGraphicsMapResources": [u, P(p), p],
            "cuGraphicsUnmapResources": [u, P(p), p],
            "cuGraphicsResourceGetMappedPointer_v2": [P(u64), P(sz), p],
            "cuMemcpyDtoDAsync_v2": [u64, u64, sz, p],
            "cuGLGetDevices_v2": [P(u), P(ctypes.c_int), u, ctypes.c_int],
        }
        for name, args in sig.items():
            f = getattr(lib, name)
            f.argtypes, f.restype = args, ctypes.c_int
            setattr(self, name.replace("_v2", ""), f)
        torch.cuda.init()
        torch.empty(1, device="cuda")  # torch's primary context, current on this thread
        ctx = p()
        self.check(self.cuCtxGetCurrent(ctypes.byref(ctx)), "cuCtxGetCurrent")
        if not ctx.value:
            self.check(self.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), torch.cuda.current_device()),
                       "cuDevicePrimaryCtxRetain")
            self.check(self.cuCtxSetCurrent(ctx), "cuCtxSetCurrent")
        self.ctx = ctx

    def error_name(self, rc):
        s = ctypes.c_char_p()
        if self.cuGetErrorName(rc, ctypes.byref(s)) == 0 and s.value:
            return s.value.decode()
        return "CUDA error %d" % rc

    def check(self, rc, what):
        if rc != 0:
            raise RuntimeError("%s: %s (%d)" % (what, self.error_name(rc), rc))

    def gl_devices(self):
        """The CUDA devices of the current GL context (cuGLGetDevices), or
        None when the driver cannot say."""
        n, devs = ctypes.c_uint(), (ctypes.c_int * 8)()
        if self.cuGLGetDevices(ctypes.byref(n), devs, 8, self.CU_GL_DEVICE_LIST_ALL) != 0:
            return None
        return list(devs[:n.value])


# ---------------------------------------------------------------- methods


class Method:
    """One way of bringing the frame in scene slot 0 (batch: slots 0..k-1)
    into a tensor. setup() at each size, run() timed, check() afterwards."""
    key = label = ""
    batch = 1
    cuda = True
    checked = True   # results() gives frames to compare with glReadPixels

    def setup(self, scene):
        self.scene = scene

    def poison(self):
        pass

    def run(self):
        raise NotImplementedError

    def results(self):
        """The last run's frames as host numpy arrays (one per slot)."""
        raise NotImplementedError

    def flipped(self):
        return False

    def teardown(self):
        pass

    def pre(self):
        """Called before each run, outside the timed part."""

    def post(self):
        """Called after each run, outside the timed part."""

    def notes(self):
        """What the method's runs say beside their time (None: nothing)."""
        return None


def _cache_stats(glmod):
    """gfxcuda's per-frame memory cache counters (None: not this gfxcuda)."""
    f = getattr(sys.modules.get(glmod.__name__.split(".")[0]), "cuda_cache_stats", None)
    return f() if callable(f) else None


def _cache_notes(before, after):
    if before is None or after is None:
        return None
    d = {k: after[k] - before[k] for k in before if k != "idle_bytes"}
    return "output cache: %d hits, %d misses (cuMemAlloc), %d busy, %d freed, %d evicted" % (
        d["hits"], d["misses"], d["busy"], d["freed"], d["evicted"])


class HostRead(Method):
    key, label, cuda = "a0", "(a0) glReadPixels -> numpy (host only)", False

    def setup(self, scene):
        self.scene = scene
        self.host = scene.np.empty((scene.h, scene.w, 4), scene.np.uint8)

    def poison(self):
        self.host[...] = 0xA5

    def run(self):
        s = self.scene
        s.raw.glBindFramebuffer(GL_READ_FRAMEBUFFER, s.slots[0][1])
        s.raw.glReadPixels(0, 0, s.w, s.h, GL_RGBA, GL_UNSIGNED_BYTE, self.host.ctypes.data)

    def results(self):
        return [self.host.copy()]


class ReadPixelsToTorch(HostRead):
    key, label, cuda = "a", "(a) glReadPixels -> numpy -> torch .cuda()", True

    def __init__(self, torch):
        self.torch = torch

    def run(self):
        HostRead.run(self)
        self.out = self.torch.from_numpy(self.host).cuda()

    def poison(self):
        HostRead.poison(self)
        self.out = None

    def results(self):
        return [self.out.cpu().numpy()]


class PixelPackBuffer(Method):
    key, label = "b", "(b) PBO registered once, map/copy/unmap per frame"

    def __init__(self, torch, cu):
        self.torch, self.cu = torch, cu
        self.res = None

    def setup(self, scene):
        self.scene = scene
        GL, cu, torch = scene.GL, self.cu, self.torch
        self.nbytes = scene.w * scene.h * 4
        self.pbo = int(GL.glGenBuffers(1))
        GL.glBindBuffer(GL.GL_PIXEL_PACK_BUFFER, self.pbo)
        GL.glBufferData(GL.GL_PIXEL_PACK_BUFFER, self.nbytes, None, GL.GL_STREAM_READ)
        GL.glBindBuffer(GL.GL_PIXEL_PACK_BUFFER, 0)
        scene.raw.check("making the pixel-pack buffer")
        res = ctypes.c_void_p()
        cu.check(cu.cuGraphicsGLRegisterBuffer(ctypes.byref(res), self.pbo, cu.CU_GRAPHICS_REGISTER_FLAGS_READ_ONLY),
                 "cuGraphicsGLRegisterBuffer (is the GL context on torch's GPU?)")
        self.res = res
        self.dst = torch.empty((scene.h, scene.w, 4), dtype=torch.uint8, device="cuda")
        self.dptr = ctypes.c_uint64(0)
        self.size = ctypes.c_size_t(0)
        self.res_ref = ctypes.byref(self.res)

    def poison(self):
        self.dst.fill_(0xA5)
        self.torch.cuda.synchronize()

    def run(self):
        s, cu = self.scene, self.cu
        raw = s.raw
        stream = ctypes.c_void_p(self.torch.cuda.current_stream().cuda_stream)
        raw.glBindFramebuffer(GL_READ_FRAMEBUFFER, s.slots[0][1])
        raw.glBindBuffer(GL_PIXEL_PACK_BUFFER, self.pbo)
        raw.glReadPixels(0, 0, s.w, s.h, GL_RGBA, GL_UNSIGNED_BYTE, None)
        raw.glBindBuffer(GL_PIXEL_PACK_BUFFER, 0)
        rc = cu.cuGraphicsMapResources(1, self.res_ref, stream)
        if rc:
            cu.check(rc, "cuGraphicsMapResources")
        rc = cu.cuGraphicsResourceGetMappedPointer(ctypes.byref(self.dptr), ctypes.byref(self.size), self.res)
        if rc == 0 and self.size.value >= self.nbytes:
            rc = cu.cuMemcpyDtoDAsync(self.dst.data_ptr(), self.dptr.value, self.nbytes, stream)
        rc2 = cu.cuGraphicsUnmapResources(1, self.res_ref, stream)
        if rc:
            cu.check(rc, "cuGraphicsResourceGetMappedPointer / cuMemcpyDtoDAsync")
        if self.size.value < self.nbytes:
            raise RuntimeError("mapped pixel-pack buffer holds %d bytes, want %d" % (self.size.value, self.nbytes))
        cu.check(rc2, "cuGraphicsUnmapResources")

    def results(self):
        return [self.dst.cpu().numpy()]

    def teardown(self):
        if self.res is not None:
            self.cu.check(self.cu.cuGraphicsUnregisterResource(self.res), "cuGraphicsUnregisterResource")
            self.res = None
        self.scene.GL.glDeleteBuffers(1, [self.pbo])


def _release(obj):
    for name in ("close", "release"):
        f = getattr(obj, name, None)
        if callable(f):
            f()
            return


class CacheCounted(Method):
    """A gfxcuda method whose runs' output-cache counters are summed
    (gfxcuda.cuda_cache_stats before and after each run, outside the timed
    part) and printed beside its time."""
    stats0 = stats1 = before = None

    def pre(self):
        self.before = _cache_stats(self.gl)

    def post(self):
        after = _cache_stats(self.gl)
        if self.before is not None and after is not None:  # this method's own calls, summed over its frames
            if self.stats0 is None:
                self.stats0, self.stats1 = dict(self.before), dict(self.before)
            for k in after:
                self.stats1[k] += after[k] - self.before[k]

    def notes(self):
        return _cache_notes(self.stats0, self.stats1)


class GfxcudaPerFrame(CacheCounted):
    key, label = "c", "(c) gfxcuda.gl per frame: texture().to_tensor()"

    def __init__(self, torch, glmod):
        self.torch, self.gl = torch, glmod

    def setup(self, scene):
        self.scene = scene
        self.src = self.gl.texture(scene.slots[0][0])
        self.out = self.keep = None
        self.stats0 = self.stats1 = None

    def poison(self):
        self.out = self.keep = None

    phases = None  # --phases: (drop previous, to_tensor, from_dlpack, synchronize) per frame, ns

    def run(self):
        if self.phases is None:
            self.keep = self.src.to_tensor(dtype="uint8", layout="hwc", flip_y=True)
            self.out = self.torch.from_dlpack(self.keep)
            return
        ns = time.perf_counter_ns
        t0 = ns()
        self.keep = self.out = None
        t1 = ns()
        k = self.src.to_tensor(dtype="uint8", layout="hwc", flip_y=True)
        t2 = ns()
        o = self.torch.from_dlpack(k)
        t3 = ns()
        self.torch.cuda.synchronize()
        t4 = ns()
        self.keep, self.out = k, o
        self.phases.append((t1 - t0, t2 - t1, t3 - t2, t4 - t3))

    def notes(self):
        n = CacheCounted.notes(self)
        if self.phases:
            ph = self.phases[-100:]
            n = (n or "") + "; phases (median us): drop previous %.0f, to_tensor %.0f, from_dlpack %.0f, synchronize %.0f" % tuple(
                statistics.median(p[i] for p in ph) / 1e3 for i in range(4))
            self.phases = []
        return n

    def flipped(self):
        return True

    def results(self):
        return [self.out.cpu().numpy()]

    def teardown(self):
        self.out = self.keep = None
        _release(self.src)


class GfxcudaPerFrameOut(GfxcudaPerFrame):
    key, label = "c'", "(c') gfxcuda.gl per frame, out= reused tensor"

    def setup(self, scene):
        GfxcudaPerFrame.setup(self, scene)
        self.dst = self.torch.empty((scene.h, scene.w, 4), dtype=self.torch.uint8, device="cuda")

    def poison(self):
        self.dst.fill_(0xA5)
        self.torch.cuda.synchronize()

    def run(self):
        self.src.to_tensor(dtype="uint8", layout="hwc", flip_y=True, out=self.dst)

    def results(self):
        return [self.dst.cpu().numpy()]


class GfxcudaToTorch(GfxcudaPerFrame):
    key, label = "ct", "(ct) gfxcuda.gl per frame, for torch: texture().to_torch()"

    def setup(self, scene):
        GfxcudaPerFrame.setup(self, scene)
        if not hasattr(self.src, "to_torch"):
            _release(self.src)
            raise RuntimeError("this gfxcuda.gl has no Source.to_torch")

    def run(self):
        if self.phases is None:
            self.out = self.src.to_torch(dtype="uint8", layout="hwc", flip_y=True)
            return
        ns = time.perf_counter_ns
        t0 = ns()
        self.out = None
        t1 = ns()
        o = self.src.to_torch(dtype="uint8", layout="hwc", flip_y=True)
        t2 = ns()
        self.torch.cuda.synchronize()
        t3 = ns()
        self.out = o
        self.phases.append((t1 - t0, t2 - t1, 0, t3 - t2))

    def notes(self):
        n = CacheCounted.notes(self)
        if self.phases:
            ph = self.phases[-100:]
            n = (n or "") + "; phases (median us): drop previous %.0f, to_torch %.0f, synchronize %.0f" % tuple(
                statistics.median(p[i] for p in ph) / 1e3 for i in (0, 1, 3))
            self.phases = []
        return n


class GfxcudaBatched(CacheCounted):
    key, label = "d", "(d) gfxcuda.gl batched: to_tensors(frames), per frame"

    def __init__(self, torch, glmod, batch):
        self.torch, self.gl, self.batch = torch, glmod, batch

    def setup(self, scene):
        self.scene = scene
        self.frames = [self.gl.texture(tex) for tex, _ in scene.slots[:self.batch]]
        self.outs = self.keep = None
        self.stats0 = self.stats1 = None

    def poison(self):
        self.outs = self.keep = None

    def run(self):
        self.keep = self.gl.to_tensors(self.frames, dtype="uint8", layout="hwc", flip_y=True)
        if hasattr(self.keep, "__dlpack__"):  # one stacked (n, h, w, 4) array
            self.outs = list(self.torch.from_dlpack(self.keep).unbind(0))
        else:
            self.outs = [self.torch.from_dlpack(t) for t in self.keep]

    def flipped(self):
        return True

    def results(self):
        return [o.cpu().numpy() for o in self.outs]

    def teardown(self):
        self.outs = self.keep = None
        for f in self.frames:
            _release(f)


class AlternationFloor(Method):
    """(z) the floor of every per-frame method: a GL frame, then the least
    CUDA work there is (one kernel on a 16-byte tensor), no interop, no copy.
    The GPU time-slices between the GL and CUDA contexts, so the first CUDA
    work after a GL frame waits for a context switch; every per-frame method
    that leaves a finished CUDA tensor, (a) included, pays it."""
    key, label, checked = "z", "(z) floor: GL frame, then one tiny CUDA kernel", False

    def __init__(self, torch):
        self.torch = torch

    def setup(self, scene):
        self.scene = scene
        self.x = self.torch.zeros(16, dtype=self.torch.uint8, device="cuda")

    def run(self):
        self.x.add_(1)

    def teardown(self):
        self.x = None


# ---------------------------------------------------------------- the run


def parse_size(s):
    w, h = s.lower().split("x")
    return int(w), int(h)


def seed_stream(base):
    i = 0
    while True:
        yield (base + 7919 * i) & 0x7FFFFFFF
        i += 1


def compare(np, got, want, what):
    """None when got equals want element for element, else a description."""
    got = np.asarray(got)
    if got.shape != want.shape or got.dtype != want.dtype:
        return "%s: got %s %s, want %s %s" % (what, got.dtype, got.shape, want.dtype, want.shape)
    bad = got != want
    n = int(np.count_nonzero(bad))
    if n:
        first = tuple(int(i) for i in np.argwhere(bad)[0])
        return "%s: %d of %d bytes differ (first at %s: got %d, want %d)" % (
            what, n, want.size, first, got[first], want[first])
    return None


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--frames", type=int, default=200, help="timed frames per method and size")
    ap.add_argument("--warmup", type=int, default=20, help="untimed frames first")
    ap.add_argument("--batch", type=int, default=32, help="frames per to_tensors call in (d)")
    ap.add_argument("--sizes", default="64x64,256x256,1920x1080")
    ap.add_argument("--json", help="also write the results here")
    ap.add_argument("--tiny", action="store_true", help="a few frames (a smoke test)")
    ap.add_argument("--save-frames", metavar="DIR", help="save slot 0's readback of the first and last checked "
                    "frame of each size as DIR/frame_WxH_{first,last}.npy")
    ap.add_argument("--egl-device", type=int, help="EGL device index (default: the one torch's CUDA device is)")
    ap.add_argument("--seed", type=int, help="base seed (default: random)")
    ap.add_argument("--check-all", action="store_true", help="compare every frame, not just the first and last")
    ap.add_argument("--only", help="comma-separated method keys to run (default: all)")
    ap.add_argument("--phases", action="store_true", help="(c), (ct): time their phases too (printed beside them)")
    ap.add_argument("--gl-module", default="gfxcuda.gl", help="the module to time as gfxcuda.gl (another one "
                    "with the same names tests this script's (c)/(d) before gfxcuda.gl exists)")
    a = ap.parse_args(argv)
    if a.tiny:
        a.frames, a.warmup, a.batch = 3, 1, min(a.batch, 4)
    base = a.seed if a.seed is not None else int.from_bytes(os.urandom(4), "little") & 0x7FFFFFFF
    sizes = [parse_size(s) for s in a.sizes.split(",") if s]

    import numpy as np

    skipped = {}
    require_cuda = os.environ.get("GFXCUDA_REQUIRE_CUDA") == "1"
    torch = cu = None
    try:
        import torch
        if not torch.cuda.is_available():
            raise Skip("torch.cuda.is_available() is False")
    except Exception as e:
        torch = None
        why = "torch not importable (%s)" % e if not isinstance(e, Skip) else str(e)
        skipped["cuda"] = "no CUDA: %s: (a)/(b)/(c)/(d) skipped" % why
        if require_cuda:
            print("GFXCUDA_REQUIRE_CUDA=1 but %s" % why, file=sys.stderr)
            return EXIT_CHECK
    cuda_ordinal = None
    if torch is not None:
        cu = CudaDriver(torch)
        cuda_ordinal = torch.cuda.current_device()

    glmod, batched = None, False
    try:
        import importlib
        glmod = importlib.import_module(a.gl_module)
        if not callable(getattr(glmod, "texture", None)):
            raise Skip("it has no texture()")
        batched = callable(getattr(glmod, "to_tensors", None))
        if not batched:
            skipped["gfxcuda.gl batched"] = "%s has no to_tensors(): (d) skipped" % a.gl_module
    except Exception as e:
        glmod = None
        skipped["gfxcuda.gl"] = "%s not available: (c)/(d) skipped (%s)" % (a.gl_module, str(e) or type(e).__name__)

    try:
        info, GL, raw = open_gl(cuda_ordinal, a.egl_device)
    except NoGL as e:
        print("no GL: %s" % e, file=sys.stderr)
        return EXIT_NO_GL

    def gl_string(name):
        s = GL.glGetString(name)
        return s.decode() if isinstance(s, bytes) else str(s)

    import OpenGL
    info.update(gl_renderer=gl_string(GL.GL_RENDERER), gl_version=gl_string(GL.GL_VERSION),
                gl_library=raw.lib_name,
                pyopengl="%s at %s" % (OpenGL.__version__, os.path.dirname(os.path.abspath(OpenGL.__file__))))
    close_egl = info.pop("close")
    print("GL: %s, %s (%s, %s; %s; PyOpenGL %s)" % (info["gl_renderer"], info["gl_version"], info["egl"],
                                                   info["surface"], info["gl_library"], info["pyopengl"]))
    if torch is not None:
        info["cuda_device"] = "%d: %s" % (cuda_ordinal, torch.cuda.get_device_name(cuda_ordinal))
        gl_devs = cu.gl_devices()
        info["cuda_devices_of_gl_context"] = gl_devs
        print("CUDA: device %s; the GL context's CUDA devices (cuGLGetDevices): %s" % (
            info["cuda_device"], "unknown" if gl_devs is None else gl_devs))
        if gl_devs is not None and cuda_ordinal not in gl_devs:
            print("warning: the GL context is not on torch's CUDA device %d (pick it with --egl-device)"
                  % cuda_ordinal, file=sys.stderr)
    print("frames: %d timed + %d warm-up per method and size; batch (d) %d; seed %d" % (
        a.frames, a.warmup, a.batch, base), flush=True)

    methods = [HostRead()]
    if torch is not None:
        methods += [ReadPixelsToTorch(torch), PixelPackBuffer(torch, cu)]
        if glmod is not None:
            methods += [GfxcudaPerFrame(torch, glmod), GfxcudaPerFrameOut(torch, glmod), GfxcudaToTorch(torch, glmod)]
            if batched:
                methods.append(GfxcudaBatched(torch, glmod, a.batch))
        methods.append(AlternationFloor(torch))
    elif "gfxcuda.gl" not in skipped:
        skipped.pop("gfxcuda.gl batched", None)
        skipped["gfxcuda.gl"] = "(c)/(d) skipped: no CUDA"
    if a.only:
        keep = set(a.only.split(","))
        methods = [m for m in methods if m.key in keep]
    for m in methods:
        if a.phases and isinstance(m, GfxcudaPerFrame) and m.key in ("c", "ct"):
            m.phases = []
    for line in skipped.values():
        print(line)

    scene = Scene(GL, raw)
    seeds = seed_stream(base)
    results, failures, checks = [], [], {}
    nslots = a.batch if any(m.batch > 1 for m in methods) else 1
    reps = a.warmup + a.frames
    checked = {0, a.warmup, reps - 1}
    try:
        for w, h in sizes:
            size = "%dx%d" % (w, h)
            scene.resize(w, h, nslots)
            desc = self_check(scene, seeds, np)
            print("self-check %s: %s" % (size, desc), flush=True)
            live, times = [], {}
            for m in methods:
                try:
                    m.setup(scene)
                    live.append(m)
                    times[m.key] = []
                except Exception as e:
                    skipped["%s %s" % (m.key, size)] = "%s skipped at %s: %s" % (m.label, size, e)
                    print(skipped["%s %s" % (m.key, size)], flush=True)
            saved = []
            for rep in range(reps):
                check_rep = a.check_all or rep in checked
                for m in list(live):
                    frame_seeds = [next(seeds) for _ in range(m.batch)]
                    for i, s in enumerate(frame_seeds):
                        scene.draw(i, s)
                    raw.glFinish()
                    check = check_rep and m.checked
                    if check:
                        m.poison()
                    try:
                        m.pre()
                        t0 = time.perf_counter_ns()
                        m.run()
                        if m.cuda:
                            torch.cuda.synchronize()
                        t1 = time.perf_counter_ns()
                        m.post()
                    except Exception as e:
                        # (c') on its first frame: out= not taken (yet), left
                        # out; any other: a failure, the method left out at
                        # this size, the others go on.
                        why = "%s at %s, frame %d: %s: %s" % (m.label, size, rep, type(e).__name__, e)
                        if m.key == "c'" and rep == 0:
                            skipped["c' %s" % size] = "skipped: " + why
                            print(skipped["c' %s" % size], flush=True)
                        else:
                            failures.append(why)
                            print("FAILED: " + why, flush=True)
                        try:
                            m.teardown()
                        except Exception as e2:
                            failures.append("%s at %s: teardown: %s" % (m.label, size, e2))
                        live.remove(m)
                        del times[m.key]
                        continue
                    if rep >= a.warmup:
                        times[m.key].append((t1 - t0) / 1000.0 / m.batch)
                    if check:
                        got = m.results()
                        raw.check("%s at %s" % (m.label, size))
                        n_ok = 0
                        for i in range(m.batch):
                            want = scene.readback(i)
                            if m.key == "a0" and i == 0 and (rep == 0 or rep == reps - 1):
                                saved.append(want.copy())
                            if m.flipped():
                                want = want[::-1]
                            err = compare(np, got[i] if i < len(got) else np.empty(0, np.uint8), want,
                                          "%s at %s, frame %d (seed %d)" % (m.label, size, rep, frame_seeds[i]))
                            if err:
                                failures.append(err)
                                print("CHECK FAILED: " + err, flush=True)
                            else:
                                n_ok += 1
                        ck = checks.setdefault("%s %s" % (m.key, size), [0, 0])
                        ck[0] += n_ok
                        ck[1] += m.batch
                        if len(got) != m.batch:
                            failures.append("%s at %s: %d frames back, want %d" % (m.label, size, len(got), m.batch))
            for m in live:
                m.teardown()
            raw.check("tearing down %s" % size)
            if a.save_frames and saved:
                os.makedirs(a.save_frames, exist_ok=True)
                np.save(os.path.join(a.save_frames, "frame_%s_first.npy" % size), saved[0])
                np.save(os.path.join(a.save_frames, "frame_%s_last.npy" % size), saved[-1])
            for m in live:
                ts = sorted(times[m.key])
                if not ts:
                    continue
                results.append(dict(method=m.key, label=m.label, size=size, width=w, height=h,
                                    us_per_frame_median=statistics.median(ts),
                                    us_per_frame_p10=ts[len(ts) // 10], us_per_frame_p90=ts[(len(ts) * 9) // 10],
                                    n=len(ts), batch=m.batch, notes=m.notes()))
    finally:
        scene.close()
        close_egl()

    # speed-up factors: time of (a) or (b) / time of the method
    med = {(r["method"], r["size"]): r["us_per_frame_median"] for r in results}
    for r in results:
        for ref in ("a", "b"):
            t = med.get((ref, r["size"]))
            r["speedup_vs_" + ref] = t / r["us_per_frame_median"] if t else None

    print()
    print("%-54s %-10s %12s %10s %10s %10s" % ("method", "size", "us/frame", "p10-p90", "(a)/this", "(b)/this"))
    for r in results:
        print("%-54s %-10s %12.1f %10s %10s %10s" % (
            r["label"], r["size"], r["us_per_frame_median"],
            "%.0f-%.0f" % (r["us_per_frame_p10"], r["us_per_frame_p90"]),
            "%.2fx" % r["speedup_vs_a"] if r["speedup_vs_a"] else "-",
            "%.2fx" % r["speedup_vs_b"] if r["speedup_vs_b"] else "-"))

    for r in results:
        if r.get("notes"):
            print("  %s at %s: %s" % (r["label"].split(" ")[0], r["size"], r["notes"]))

    targets = []

    def target(name, size, value, ok, text):
        targets.append(dict(target=name, size=size, value=value, met=ok))
        state = "not measured" if ok is None else ("met" if ok else "NOT MET")
        print("  %-58s %-10s %s  %s" % (name, size, text if value is not None else "-", state))

    print()
    print("targets (issue #32):")
    big = "%dx%d" % max(sizes, key=lambda s: s[0] * s[1]) if sizes else "1920x1080"
    big = "1920x1080" if (1920, 1080) in sizes else big
    v = med.get(("a", big)) / med[("c", big)] if ("c", big) in med and ("a", big) in med else None
    target("(c) >= 10x faster than (a) at 1080p", big, v, None if v is None else v >= 10,
           "(a)/(c) = %.2fx" % v if v else "")
    v = med.get(("a", big)) / med[("ct", big)] if ("ct", big) in med and ("a", big) in med else None
    target("(ct) >= 10x faster than (a) at 1080p", big, v, None if v is None else v >= 10,
           "(a)/(ct) = %.2fx" % v if v else "")
    bound = None
    if ("a", big) in med and ("z", big) in med:
        need, floor = med[("a", big)] / 10, med[("z", big)]
        bound = dict(size=big, needs_us=need, floor_us=floor, reachable=floor <= need)
        print("  %-58s %-10s 10x (a) needs <= %.0f us/frame; the floor (z) is %.0f us: %s" % (
            "  bound in this run", big, need, floor,
            "reachable" if floor <= need else "below the floor, no per-frame method can reach it"))
    for w, h in sizes:
        size = "%dx%d" % (w, h)
        v = med[("c", size)] / med[("b", size)] if ("c", size) in med and ("b", size) in med else None
        target("(c) <= 1.1x the time of (b)", size, v, None if v is None else v <= 1.1,
               "(c)/(b) = %.2f" % v if v else "")
        # The same per-frame call for torch users: a new torch tensor each
        # frame, without the DLPack round trip.
        v = med[("ct", size)] / med[("b", size)] if ("ct", size) in med and ("b", size) in med else None
        target("(ct) <= 1.1x the time of (b)", size, v, None if v is None else v <= 1.1,
               "(ct)/(b) = %.2f" % v if v else "")
    small = "64x64"
    v = med[("b", small)] / med[("d", small)] if ("d", small) in med and ("b", small) in med else None
    target("(d) >= 3x faster than (b) per frame at 64x64", small, v, None if v is None else v >= 3,
           "(b)/(d) = %.2fx" % v if v else "")

    total_ok = sum(c[0] for c in checks.values())
    total = sum(c[1] for c in checks.values())
    print()
    print("checks: %d of %d checked frames equal glReadPixels element for element%s" % (
        total_ok, total, "" if not failures else "; %d FAILED" % len(failures)))
    if a.json:
        with open(a.json, "w") as f:
            json.dump(dict(benchmark="gl_renderer", issue=32, info=info, frames=a.frames, warmup=a.warmup,
                           batch=a.batch, seed=base, tiny=a.tiny, results=results, targets=targets, bound=bound,
                           skipped=skipped, checks={k: dict(ok=v[0], checked=v[1]) for k, v in checks.items()},
                           failures=failures), f, indent=1)
    return EXIT_CHECK if failures else 0


if __name__ == "__main__":
    sys.exit(main())
