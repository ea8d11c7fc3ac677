"""gfxcuda.gl with PyOpenGL (Debian's python3-opengl, pure Python: the GPU
machine gets a copy) on a headless EGL context the test makes the way
PyOpenGL users do. On the CPU machine: compute views of textures,
renderbuffers and 4x multisampled framebuffers against glReadPixels. With
CUDA and torch (the GPU machine): every element of to_tensor, for every
layout, dtype, flip and mean/std, against torch's conversion of
glReadPixels."""

import ctypes
import gc
import os

os.environ.setdefault("PYOPENGL_PLATFORM", "egl")

import numpy  # noqa: E402
import pytest  # noqa: E402

import gfxcuda  # noqa: E402
import gfxcuda.gl  # noqa: E402
from conftest import gl_view_bytes  # noqa: E402

GL = pytest.importorskip("OpenGL.GL", reason="PyOpenGL is not installed (Debian: python3-opengl)")


def _bench():
    """python/bench/gl_renderer.py: its EGL context (through ctypes: PyOpenGL
    3.1.6's OpenGL.EGL fails on NVIDIA's EGL) and its PyOpenGL fix for
    Python 3.12."""
    import importlib.util
    path = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "bench", "gl_renderer.py")
    if not os.path.exists(path):  # pragma: no cover
        pytest.skip("python/bench/gl_renderer.py is not next to this test")
    spec = importlib.util.spec_from_file_location("_gl_renderer_bench", path)
    m = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(m)
    return m


@pytest.fixture(scope="module")
def egl_ctx():
    b = _bench()
    b.pyopengl_compat()
    try:
        made = b.egl_context(cuda_ordinal=0)
    except Exception as e:
        pytest.skip("no EGL GL 4.5 context: %s" % e)
    try:
        gfxcuda.get_current_device()
    except gfxcuda.GfxcudaError as e:  # pragma: no cover
        made["close"]()
        pytest.skip("no Vulkan device: %s" % e)
    yield made
    made["close"]()


def _texture(w, h, ifmt, fmt, typ, data):
    t = GL.glGenTextures(1)
    GL.glBindTexture(GL.GL_TEXTURE_2D, t)
    GL.glTexStorage2D(GL.GL_TEXTURE_2D, 1, ifmt, w, h)
    GL.glPixelStorei(GL.GL_UNPACK_ALIGNMENT, 1)
    GL.glTexSubImage2D(GL.GL_TEXTURE_2D, 0, 0, 0, w, h, fmt, typ, data)
    GL.glBindTexture(GL.GL_TEXTURE_2D, 0)
    return t


def _read_texture(t, w, h, fmt, typ, dtype, comps):
    GL.glPixelStorei(GL.GL_PACK_ALIGNMENT, 1)
    out = numpy.empty((h, w, comps), dtype=dtype)
    GL.glGetTextureImage(t, 0, fmt, typ, out.nbytes, out)
    return out


def _view(src, dtype):
    return numpy.frombuffer(gl_view_bytes(src), dtype=dtype).reshape(src.height, src.width, 4)


CASES = [  # GL internal format, upload format, type, numpy dtype
    (GL.GL_RGBA8, GL.GL_RGBA, GL.GL_UNSIGNED_BYTE, numpy.uint8),
    (GL.GL_RGBA16F, GL.GL_RGBA, GL.GL_HALF_FLOAT, numpy.float16),
    (GL.GL_RGBA32F, GL.GL_RGBA, GL.GL_FLOAT, numpy.float32),
]


def _random(rng, h, w, dtype):
    if dtype == numpy.uint8:
        return rng.integers(0, 256, (h, w, 4), dtype=numpy.uint8)
    return rng.uniform(-2, 6, (h, w, 4)).astype(dtype)


@pytest.mark.parametrize("ifmt,fmt,typ,dtype", CASES)
@pytest.mark.parametrize("size", [(31, 17), (128, 64)])
def test_texture_views(egl_ctx, ifmt, fmt, typ, dtype, size):
    w, h = size
    rng = numpy.random.default_rng(w * 7 + int(ifmt))
    data = _random(rng, h, w, dtype)
    t = _texture(w, h, ifmt, fmt, typ, data)
    try:
        src = gfxcuda.gl.texture(t)
        assert (src.width, src.height) == (w, h)
        want = _read_texture(t, w, h, fmt, typ, dtype, 4)
        assert (want.view(numpy.uint8) == data.view(numpy.uint8)).all()
        got = _view(src, dtype)
        assert got.tobytes() == want.tobytes()
        src.release()
    finally:
        GL.glDeleteTextures(1, [t])


VS = """#version 450
layout(location = 0) in vec2 pos; layout(location = 1) in vec4 col; out vec4 c;
void main() { gl_Position = vec4(pos, 0, 1); c = col; }"""
FS = """#version 450
in vec4 c; out vec4 o; void main() { o = c; }"""


def _draw_triangles(prog, verts, dims):
    """Draws verts (rows of dims position floats, then RGBA) as triangles
    with prog, through a vertex array and buffer of its own, deleted after."""
    stride = verts.shape[1] * 4
    vao = GL.glGenVertexArrays(1)
    GL.glBindVertexArray(vao)
    vbo = GL.glGenBuffers(1)
    GL.glBindBuffer(GL.GL_ARRAY_BUFFER, vbo)
    GL.glBufferData(GL.GL_ARRAY_BUFFER, verts.nbytes, verts, GL.GL_STATIC_DRAW)
    GL.glEnableVertexAttribArray(0)
    GL.glVertexAttribPointer(0, dims, GL.GL_FLOAT, False, stride, ctypes.c_void_p(0))
    GL.glEnableVertexAttribArray(1)
    GL.glVertexAttribPointer(1, 4, GL.GL_FLOAT, False, stride, ctypes.c_void_p(4 * dims))
    GL.glUseProgram(prog)
    GL.glDrawArrays(GL.GL_TRIANGLES, 0, verts.shape[0])
    GL.glUseProgram(0)
    GL.glBindVertexArray(0)
    GL.glDeleteBuffers(1, [vbo])
    GL.glDeleteVertexArrays(1, [vao])


def _draw_msaa(w, h, seed, samples=4):
    """Random triangles into a multisampled renderbuffer; returns (fbo,
    renderbuffer, the resolve GL makes of it read back)."""
    from OpenGL.GL import shaders
    rng = numpy.random.default_rng(seed)
    prog = shaders.compileProgram(shaders.compileShader(VS, GL.GL_VERTEX_SHADER),
                                  shaders.compileShader(FS, GL.GL_FRAGMENT_SHADER))
    rb = GL.glGenRenderbuffers(1)
    GL.glBindRenderbuffer(GL.GL_RENDERBUFFER, rb)
    GL.glRenderbufferStorageMultisample(GL.GL_RENDERBUFFER, samples, GL.GL_RGBA8, w, h)
    fbo = GL.glGenFramebuffers(1)
    GL.glBindFramebuffer(GL.GL_FRAMEBUFFER, fbo)
    GL.glFramebufferRenderbuffer(GL.GL_FRAMEBUFFER, GL.GL_COLOR_ATTACHMENT0, GL.GL_RENDERBUFFER, rb)
    GL.glViewport(0, 0, w, h)
    GL.glClearColor(*rng.uniform(0, 1, 4))
    GL.glClear(GL.GL_COLOR_BUFFER_BIT)
    verts = numpy.hstack([rng.uniform(-1.2, 1.2, (90, 2)), rng.uniform(0, 1, (90, 4))]).astype(numpy.float32)
    _draw_triangles(prog, verts, 2)
    GL.glDeleteProgram(prog)
    # GL's own resolve, read back.
    res = GL.glGenTextures(1)
    GL.glBindTexture(GL.GL_TEXTURE_2D, res)
    GL.glTexStorage2D(GL.GL_TEXTURE_2D, 1, GL.GL_RGBA8, w, h)
    GL.glBindTexture(GL.GL_TEXTURE_2D, 0)
    rfbo = GL.glGenFramebuffers(1)
    GL.glBindFramebuffer(GL.GL_FRAMEBUFFER, rfbo)
    GL.glFramebufferTexture2D(GL.GL_FRAMEBUFFER, GL.GL_COLOR_ATTACHMENT0, GL.GL_TEXTURE_2D, res, 0)
    GL.glBindFramebuffer(GL.GL_READ_FRAMEBUFFER, fbo)
    GL.glBindFramebuffer(GL.GL_DRAW_FRAMEBUFFER, rfbo)
    GL.glBlitFramebuffer(0, 0, w, h, 0, 0, w, h, GL.GL_COLOR_BUFFER_BIT, GL.GL_NEAREST)
    GL.glBindFramebuffer(GL.GL_FRAMEBUFFER, rfbo)
    GL.glPixelStorei(GL.GL_PACK_ALIGNMENT, 1)
    want = numpy.frombuffer(GL.glReadPixels(0, 0, w, h, GL.GL_RGBA, GL.GL_UNSIGNED_BYTE), numpy.uint8).reshape(h, w, 4)
    GL.glBindFramebuffer(GL.GL_FRAMEBUFFER, 0)
    GL.glDeleteFramebuffers(1, [rfbo])
    GL.glDeleteTextures(1, [res])
    return fbo, rb, want.copy()


def test_multisampled_framebuffer_view(egl_ctx):
    w, h = 67, 41
    fbo, rb, want = _draw_msaa(w, h, 5)
    try:
        assert len(numpy.unique(want.reshape(-1, 4), axis=0)) > 10
        src = gfxcuda.gl.framebuffer(fbo)
        assert src.samples == 4 and src.renderbuffer
        assert _view(src, numpy.uint8).tobytes() == want.tobytes()
        GL.glBindFramebuffer(GL.GL_READ_FRAMEBUFFER, fbo)
        src2 = gfxcuda.gl.framebuffer()
        GL.glBindFramebuffer(GL.GL_READ_FRAMEBUFFER, 0)
        assert src2.name == rb and _view(src2, numpy.uint8).tobytes() == want.tobytes()
    finally:
        GL.glDeleteFramebuffers(1, [fbo])
        GL.glDeleteRenderbuffers(1, [rb])


# ---- CUDA: to_tensor against torch's conversion of glReadPixels ------------------------------------------------------

def _torch_cuda():
    if not gfxcuda.cuda_available():
        pytest.skip("no CUDA driver: to_tensor runs on the GPU machine")
    torch = pytest.importorskip("torch", reason="torch is not installed")
    if not torch.cuda.is_available():  # pragma: no cover
        pytest.skip("torch sees no CUDA device")
    return torch


def _reference(torch, rgba, dtype, layout, flip_y, channels, mean, std):
    """torch's conversion of GL's pixels (bottom row first): what to_tensor
    must give."""
    x = torch.from_numpy(numpy.ascontiguousarray(rgba)).cuda()
    if flip_y:
        x = torch.flip(x, dims=[0])
    x = x[..., :channels]
    if dtype == "uint8":
        y = x
    else:
        y = x.to(torch.float32)
        if rgba.dtype == numpy.uint8:
            y = y / 255.0
        if mean is not None:
            y = y - torch.tensor(mean[:channels], device="cuda", dtype=torch.float32)
        if std is not None:
            y = y / torch.tensor(std[:channels], device="cuda", dtype=torch.float32)
        y = y.to(getattr(torch, dtype))
    if layout == "chw":
        y = y.permute(2, 0, 1)
    return y.contiguous()


@pytest.mark.parametrize("ifmt,fmt,typ,np_dtype", CASES)
def test_to_tensor_equals_torch_of_glreadpixels(egl_ctx, ifmt, fmt, typ, np_dtype):
    torch = _torch_cuda()
    w, h = 53, 37
    rng = numpy.random.default_rng(int(ifmt))
    data = _random(rng, h, w, np_dtype)
    if np_dtype != numpy.uint8:
        data = numpy.abs(data).astype(np_dtype)  # float sources: to_tensor reads them as they are
    t = _texture(w, h, ifmt, fmt, typ, data)
    try:
        rgba = _read_texture(t, w, h, fmt, typ, np_dtype, 4)
        src = gfxcuda.gl.texture(t)
        dtypes = ["float32", "float16"] + (["uint8"] if np_dtype == numpy.uint8 else [])
        for dtype in dtypes:
            for layout in ("hwc", "chw"):
                for flip_y in (True, False):
                    for channels in (4, 3):
                        norms = [(None, None)]
                        if dtype != "uint8":
                            norms.append(([0.485, 0.456, 0.406, 0.5], [0.229, 0.224, 0.225, 0.25]))
                        for mean, std in norms:
                            out = src.to_tensor(dtype=dtype, layout=layout, flip_y=flip_y, mean=mean, std=std,
                                                channels=channels)
                            torch.cuda.synchronize()
                            got = torch.from_dlpack(out)
                            want = _reference(torch, rgba, dtype, layout, flip_y, channels, mean, std)
                            assert got.shape == want.shape, (dtype, layout, got.shape, want.shape)
                            if dtype == "uint8":
                                assert torch.equal(got, want), (layout, flip_y, channels)
                            else:
                                tol = 1e-6 if dtype == "float32" else 2e-3
                                assert torch.allclose(got.float(), want.float(), rtol=tol, atol=tol), \
                                    (dtype, layout, flip_y, channels, mean, (got.float() - want.float()).abs().max())
        # out=: a torch tensor, poisoned first.
        dst = torch.full((h, w, 4), 77, dtype=torch.uint8, device="cuda") if np_dtype == numpy.uint8 else \
            torch.full((h, w, 4), float("nan"), dtype=torch.float32, device="cuda")
        r = src.to_tensor(dtype=str(dst.dtype).replace("torch.", ""), out=dst, flip_y=False)
        torch.cuda.synchronize()
        assert r is dst
        want = _reference(torch, rgba, str(dst.dtype).replace("torch.", ""), "hwc", False, 4, None, None)
        assert torch.allclose(dst.float(), want.float(), rtol=1e-6, atol=1e-6)
        # to_torch: a tensor torch allocates, written on torch's current
        # stream (here a side stream: work queued after it there sees the
        # frame), twice per arguments (the checking path, then the short
        # one), and on an explicit stream.
        side = torch.cuda.Stream()

        def same(got, want):
            if got.dtype == torch.uint8:
                return torch.equal(got, want)
            tol = 1e-6 if got.dtype == torch.float32 else 2e-3
            return torch.allclose(got.float(), want.float(), rtol=tol, atol=tol)
        for dtype in dtypes:
            for layout, flip_y, channels in (("hwc", True, 4), ("chw", False, 3)):
                want = _reference(torch, rgba, dtype, layout, flip_y, channels, None, None)
                for _ in range(2):
                    with torch.cuda.stream(side):
                        got = src.to_torch(dtype=dtype, layout=layout, flip_y=flip_y, channels=channels).clone()
                    side.synchronize()
                    assert got.dtype == want.dtype and got.shape == want.shape, (dtype, layout, got.shape, want.shape)
                    assert same(got, want), (dtype, layout, flip_y, channels)
                got = src.to_torch(dtype=dtype, layout=layout, flip_y=flip_y, channels=channels, stream=side)
                side.synchronize()
                assert same(got, want), ("stream=", dtype, layout, flip_y, channels)
        # copy_to: Gfx2Cuda's verb, rows as GL stores them.
        if np_dtype == numpy.uint8:
            dst = torch.zeros((h, w, 4), dtype=torch.uint8, device="cuda")
            src.copy_to(dst)
            torch.cuda.synchronize()
            assert torch.equal(dst.cpu(), torch.from_numpy(rgba))
        # A new frame in the same texture reaches the same source.
        data2 = _random(rng, h, w, np_dtype)
        if np_dtype != numpy.uint8:
            data2 = numpy.abs(data2).astype(np_dtype)
        GL.glTextureSubImage2D(t, 0, 0, 0, w, h, fmt, typ, data2)
        out = src.to_tensor(dtype="float32", flip_y=False)
        torch.cuda.synchronize()
        want = _reference(torch, _read_texture(t, w, h, fmt, typ, np_dtype, 4), "float32", "hwc", False, 4, None, None)
        assert torch.allclose(torch.from_dlpack(out), want, rtol=1e-6, atol=1e-6)
        got = src.to_torch(dtype="float32", flip_y=False)  # the short path, on the new frame
        torch.cuda.synchronize()
        assert torch.allclose(got, want, rtol=1e-6, atol=1e-6)
        src.release()
    finally:
        GL.glDeleteTextures(1, [t])


def test_to_tensor_of_a_multisampled_framebuffer(egl_ctx):
    torch = _torch_cuda()
    w, h = 64, 48
    fbo, rb, want = _draw_msaa(w, h, 9)
    try:
        src = gfxcuda.gl.framebuffer(fbo)
        out = src.to_tensor(dtype="uint8", flip_y=True)
        torch.cuda.synchronize()
        assert torch.equal(torch.from_dlpack(out).cpu(), torch.from_numpy(want[::-1].copy()))
        src.release()
    finally:
        GL.glDeleteFramebuffers(1, [fbo])
        GL.glDeleteRenderbuffers(1, [rb])


def test_to_tensor_many_cycles_leak_nothing(egl_ctx):
    torch = _torch_cuda()
    w, h = 32, 32
    data = numpy.random.default_rng(3).integers(0, 256, (h, w, 4), dtype=numpy.uint8)
    t = _texture(w, h, GL.GL_RGBA8, GL.GL_RGBA, GL.GL_UNSIGNED_BYTE, data)
    try:
        src = gfxcuda.gl.texture(t)
        src.to_tensor()
        src.release()
        base = gfxcuda.live_handles()
        free0 = torch.cuda.mem_get_info()[0]
        dst = torch.empty((h, w, 4), dtype=torch.uint8, device="cuda")
        fds = len(os.listdir("/proc/self/fd"))
        for i in range(10000):  # the count: register (source + CUDA view), map (hand-off, convert), release
            src = gfxcuda.gl.texture(t)
            src.to_tensor(out=dst, flip_y=False)
            src.release()
        torch.cuda.synchronize()
        assert torch.equal(dst.cpu(), torch.from_numpy(data))
        assert gfxcuda.live_handles() == base
        # A leak per cycle would be thousands of fds; the NVIDIA driver opens
        # a few of its own on the way (81 after 79 on the H200).
        assert len(os.listdir("/proc/self/fd")) <= fds + 8
        assert torch.cuda.mem_get_info()[0] >= free0 - (64 << 20)
    finally:
        GL.glDeleteTextures(1, [t])


def test_to_tensors_batches_many_sources(egl_ctx):
    """Many renderers' frames (cameras, environments) into one
    (N, H, W, C) / (N, C, H, W) tensor with one synchronization; every
    element against torch's conversion of each texture's pixels."""
    torch = _torch_cuda()
    w, h, n = 24, 16, 11  # more than one launch of the converter (8 views each)
    rng = numpy.random.default_rng(21)
    names, pixels = [], []
    for i in range(n):
        data = rng.integers(0, 256, (h, w, 4), dtype=numpy.uint8)
        names.append(_texture(w, h, GL.GL_RGBA8, GL.GL_RGBA, GL.GL_UNSIGNED_BYTE, data))
        pixels.append(data)
    try:
        srcs = [gfxcuda.gl.texture(t) for t in names]
        for frame in range(2):
            out = gfxcuda.gl.to_tensors(srcs, dtype="float32", layout="chw", channels=3, flip_y=True)
            torch.cuda.synchronize()
            got = torch.from_dlpack(out)
            want = torch.stack([_reference(torch, p, "float32", "chw", True, 3, None, None) for p in pixels])
            assert got.shape == (n, 3, h, w)
            assert torch.allclose(got, want, rtol=1e-6, atol=1e-6)
            for i, t in enumerate(names):  # the next frame
                pixels[i] = rng.integers(0, 256, (h, w, 4), dtype=numpy.uint8)
                GL.glTextureSubImage2D(t, 0, 0, 0, w, h, GL.GL_RGBA, GL.GL_UNSIGNED_BYTE, pixels[i])
        with pytest.raises(gfxcuda.InvalidArgumentError, match="again"):
            gfxcuda.gl.to_tensors([srcs[0], srcs[0]])
        other = _texture(w + 1, h, GL.GL_RGBA8, GL.GL_RGBA, GL.GL_UNSIGNED_BYTE,
                         numpy.zeros((h, w + 1, 4), numpy.uint8))
        try:
            with pytest.raises(gfxcuda.InvalidArgumentError, match="differ in size"):
                gfxcuda.gl.to_tensors([srcs[0], gfxcuda.gl.texture(other)])
        finally:
            GL.glDeleteTextures(1, [other])
        for s in srcs:
            s.release()
    finally:
        GL.glDeleteTextures(len(names), names)


def test_which_gpu(egl_ctx):
    """cuda_device(): the CUDA ordinal of the context's GPU; without CUDA, a
    NoCUDAError that says so. egl_device_index(d): the EGL device of CUDA
    device d, the one the context was made on (the bench's helper picks
    the EGL device whose EGL_NV_device_cuda is 0)."""
    if not gfxcuda.cuda_available():
        with pytest.raises(gfxcuda.NoCUDAError):
            gfxcuda.gl.cuda_device()
        with pytest.raises(gfxcuda.NoCUDAError):
            gfxcuda.gl.egl_device_index(0)
        return
    assert gfxcuda.gl.cuda_device() == egl_ctx.get("egl_cuda_device", 0) == 0
    idx = gfxcuda.gl.egl_device_index(0)
    if egl_ctx.get("egl_device") is not None:
        assert idx == egl_ctx["egl_device"]
    assert gfxcuda.gl.egl_device_index() == idx  # torch's current device, or 0
    with pytest.raises(gfxcuda.GfxcudaError):
        gfxcuda.gl.egl_device_index(4096)


# ---- Depth: compute views (any GPU) and CUDA tensors (the GPU machine) ------------------------------------------------

VS3 = """#version 450
layout(location = 0) in vec3 pos; layout(location = 1) in vec4 col; out vec4 c;
void main() { gl_Position = vec4(pos, 1); c = col; }"""


def _depth_target(kind, w, h, samples):
    """A depth object of kind "texture" (DEPTH_COMPONENT24), "renderbuffer"
    (DEPTH32F) or "msaa" (a DEPTH24_STENCIL8 renderbuffer of samples
    samples): (name, is_renderbuffer)."""
    if kind == "texture":
        t = GL.glGenTextures(1)
        GL.glBindTexture(GL.GL_TEXTURE_2D, t)
        GL.glTexStorage2D(GL.GL_TEXTURE_2D, 1, GL.GL_DEPTH_COMPONENT24, w, h)
        GL.glBindTexture(GL.GL_TEXTURE_2D, 0)
        return t, False
    rb = GL.glGenRenderbuffers(1)
    GL.glBindRenderbuffer(GL.GL_RENDERBUFFER, rb)
    if kind == "msaa":
        GL.glRenderbufferStorageMultisample(GL.GL_RENDERBUFFER, samples, GL.GL_DEPTH24_STENCIL8, w, h)
    else:
        GL.glRenderbufferStorage(GL.GL_RENDERBUFFER, GL.GL_DEPTH_COMPONENT32F, w, h)
    GL.glBindRenderbuffer(GL.GL_RENDERBUFFER, 0)
    return rb, True


def _draw_depth(w, h, kind, seed, samples=4):
    """Random triangles at random depths, the depth test on, into a
    framebuffer whose depth attachment is of kind (see _depth_target).
    Returns (fbo, [objects to delete], GL's own depth of it read back with
    glReadPixels, bottom row first; of its resolve for "msaa")."""
    from OpenGL.GL import shaders
    rng = numpy.random.default_rng(seed)
    ms = samples if kind == "msaa" else 0
    prog = shaders.compileProgram(shaders.compileShader(VS3, GL.GL_VERTEX_SHADER),
                                  shaders.compileShader(FS, GL.GL_FRAGMENT_SHADER))
    depth, is_rb = _depth_target(kind, w, h, samples)
    color = GL.glGenRenderbuffers(1)
    GL.glBindRenderbuffer(GL.GL_RENDERBUFFER, color)
    GL.glRenderbufferStorageMultisample(GL.GL_RENDERBUFFER, ms, GL.GL_RGBA8, w, h)
    GL.glBindRenderbuffer(GL.GL_RENDERBUFFER, 0)
    fbo = GL.glGenFramebuffers(1)
    GL.glBindFramebuffer(GL.GL_FRAMEBUFFER, fbo)
    GL.glFramebufferRenderbuffer(GL.GL_FRAMEBUFFER, GL.GL_COLOR_ATTACHMENT0, GL.GL_RENDERBUFFER, color)
    att = GL.GL_DEPTH_STENCIL_ATTACHMENT if kind == "msaa" else GL.GL_DEPTH_ATTACHMENT
    if is_rb:
        GL.glFramebufferRenderbuffer(GL.GL_FRAMEBUFFER, att, GL.GL_RENDERBUFFER, depth)
    else:
        GL.glFramebufferTexture2D(GL.GL_FRAMEBUFFER, att, GL.GL_TEXTURE_2D, depth, 0)
    assert GL.glCheckFramebufferStatus(GL.GL_FRAMEBUFFER) == GL.GL_FRAMEBUFFER_COMPLETE
    GL.glViewport(0, 0, w, h)
    GL.glClearColor(0, 0, 0, 1)
    GL.glClearDepth(1.0)
    GL.glClear(GL.GL_COLOR_BUFFER_BIT | GL.GL_DEPTH_BUFFER_BIT)
    n = 60
    verts = numpy.hstack([rng.uniform(-1.2, 1.2, (n * 3, 2)), rng.uniform(-0.95, 0.95, (n * 3, 1)),
                          rng.uniform(0, 1, (n * 3, 4))]).astype(numpy.float32)
    GL.glEnable(GL.GL_DEPTH_TEST)
    _draw_triangles(prog, verts, 3)
    GL.glDisable(GL.GL_DEPTH_TEST)
    GL.glDeleteProgram(prog)
    read_fbo, extra = fbo, []
    if kind == "msaa":  # GL's own resolve (a depth blit), then read that
        res = GL.glGenRenderbuffers(1)
        GL.glBindRenderbuffer(GL.GL_RENDERBUFFER, res)
        GL.glRenderbufferStorage(GL.GL_RENDERBUFFER, GL.GL_DEPTH24_STENCIL8, w, h)
        GL.glBindRenderbuffer(GL.GL_RENDERBUFFER, 0)
        rfbo = GL.glGenFramebuffers(1)
        GL.glBindFramebuffer(GL.GL_FRAMEBUFFER, rfbo)
        GL.glFramebufferRenderbuffer(GL.GL_FRAMEBUFFER, GL.GL_DEPTH_STENCIL_ATTACHMENT, GL.GL_RENDERBUFFER, res)
        GL.glBindFramebuffer(GL.GL_READ_FRAMEBUFFER, fbo)
        GL.glBindFramebuffer(GL.GL_DRAW_FRAMEBUFFER, rfbo)
        GL.glBlitFramebuffer(0, 0, w, h, 0, 0, w, h, GL.GL_DEPTH_BUFFER_BIT, GL.GL_NEAREST)
        read_fbo, extra = rfbo, [("fbo", rfbo), ("rb", res)]
    GL.glBindFramebuffer(GL.GL_FRAMEBUFFER, read_fbo)
    GL.glPixelStorei(GL.GL_PACK_ALIGNMENT, 1)
    raw = GL.glReadPixels(0, 0, w, h, GL.GL_DEPTH_COMPONENT, GL.GL_FLOAT)
    want = numpy.frombuffer(raw, numpy.float32).reshape(h, w).copy()
    GL.glBindFramebuffer(GL.GL_FRAMEBUFFER, 0)
    for what, name in extra:
        if what == "fbo":
            GL.glDeleteFramebuffers(1, [name])
        else:
            GL.glDeleteRenderbuffers(1, [name])
    objs = [("fbo", fbo), ("rb", color), ("rb" if is_rb else "tex", depth)]
    return fbo, depth, objs, want


def _delete(objs):
    for what, name in objs:
        if what == "fbo":
            GL.glDeleteFramebuffers(1, [name])
        elif what == "rb":
            GL.glDeleteRenderbuffers(1, [name])
        else:
            GL.glDeleteTextures(1, [name])


DEPTH_KINDS = ["texture", "renderbuffer", "msaa"]


@pytest.mark.parametrize("kind", DEPTH_KINDS)
def test_depth_compute_view_equals_glreadpixels(egl_ctx, kind):
    """Depth (24-bit texture, 32F renderbuffer, 4x multisampled
    depth-stencil resolved) as an R32_FLOAT compute view: every value equals
    glReadPixels of it (of GL's own resolve for multisampled), odd size,
    two frames. Depth to_tensor refuses dtypes and mean/std it cannot give,
    before any CUDA."""
    w, h = 45, 29
    for seed in (1, 2):
        fbo, depth, objs, want = _draw_depth(w, h, kind, 40 + seed)
        try:
            assert len(numpy.unique(want)) > 10  # a scene, not a clear
            src = gfxcuda.gl.framebuffer(fbo, attachment="depth")
            assert src.depth and src.format == gfxcuda.formats.R32_FLOAT
            assert src.samples == (4 if kind == "msaa" else 0)
            got = numpy.frombuffer(gl_view_bytes(src), numpy.float32).reshape(h, w)
            assert got.tobytes() == want.tobytes()
            with pytest.raises(gfxcuda.InvalidArgumentError, match="depth"):
                src.to_tensor(dtype="uint8")
            with pytest.raises(gfxcuda.InvalidArgumentError, match="mean and std"):
                src.to_tensor(mean=[0.5])
            src.release()
        finally:
            _delete(objs)


@pytest.mark.parametrize("kind", DEPTH_KINDS)
def test_depth_to_tensor_equals_glreadpixels(egl_ctx, kind):
    """Depth as a CUDA tensor: float32 in [0, 1], (H, W, 1) or (1, H, W),
    flipped or in GL's order, alone and batched, out= poisoned first: every
    element equals glReadPixels of the depth (of GL's resolve for
    multisampled)."""
    torch = _torch_cuda()
    w, h = 45, 29
    fbo, depth, objs, want = _draw_depth(w, h, kind, 50)
    fbo2, depth2, objs2, want2 = _draw_depth(w, h, kind, 51)
    try:
        assert len(numpy.unique(want)) > 10 and want.tobytes() != want2.tobytes()
        src = gfxcuda.gl.framebuffer(fbo, attachment="depth")
        src2 = gfxcuda.gl.framebuffer(fbo2, attachment="depth")
        for layout in ("hwc", "chw"):
            for flip_y in (True, False):
                ref = torch.from_numpy(want[::-1].copy() if flip_y else want)
                shape = (h, w, 1) if layout == "hwc" else (1, h, w)
                out = src.to_tensor(layout=layout, flip_y=flip_y)
                torch.cuda.synchronize()
                got = torch.from_dlpack(out)
                assert got.shape == shape and got.dtype == torch.float32
                assert torch.equal(got.cpu().reshape(h, w), ref), (layout, flip_y)
                dst = torch.full(shape, float("nan"), dtype=torch.float32, device="cuda")
                assert src.to_tensor(layout=layout, flip_y=flip_y, out=dst) is dst
                torch.cuda.synchronize()
                assert torch.equal(dst.cpu().reshape(h, w), ref)
        both = gfxcuda.gl.to_tensors([src, src2], layout="chw", flip_y=True)
        torch.cuda.synchronize()
        got = torch.from_dlpack(both).cpu()
        assert got.shape == (2, 1, h, w)
        assert torch.equal(got[0, 0], torch.from_numpy(want[::-1].copy()))
        assert torch.equal(got[1, 0], torch.from_numpy(want2[::-1].copy()))
        src.release()
        src2.release()
    finally:
        _delete(objs)
        _delete(objs2)


@pytest.mark.parametrize("gl_write", [True, False], ids=["gl-written", "cuda-converted"])
def test_to_tensor_outputs_reused_only_when_their_streams_passed(egl_ctx, gl_write, monkeypatch):
    """to_tensor's own outputs come from a cache (no cuMemAlloc/cuMemFree
    per frame) or, written by GL itself, from a pool of memory GL and CUDA
    share: a dropped output is reused for a later frame, but not while
    a DLPack consumer's stream (a torch side stream, blocked by a sleep
    kernel) still has work queued that reads it: that work sees the frame
    it was given, every element compared."""
    torch = _torch_cuda()
    monkeypatch.setattr(gfxcuda.gl, "_gl_write_on", gl_write)
    w, h = 64, 48
    rng = numpy.random.default_rng(8)
    frames = [rng.integers(0, 256, (h, w, 4), dtype=numpy.uint8) for _ in range(3)]
    t = _texture(w, h, GL.GL_RGBA8, GL.GL_RGBA, GL.GL_UNSIGNED_BYTE, frames[0])
    try:
        src = gfxcuda.gl.texture(t)
        # Reuse: drop each output once torch is done with it; the cache hands
        # the same memory out again.
        ptrs = set()
        before = gfxcuda.cuda_cache_stats()
        for i in range(20):
            GL.glTextureSubImage2D(t, 0, 0, 0, w, h, GL.GL_RGBA, GL.GL_UNSIGNED_BYTE, frames[i % 2])
            out = src.to_tensor(flip_y=False)
            x = torch.from_dlpack(out)
            torch.cuda.synchronize()
            assert torch.equal(x.cpu(), torch.from_numpy(frames[i % 2]))
            ptrs.add(out.ptr)
            del x, out
        assert len(ptrs) <= 3, "every frame got new memory: %d blocks" % len(ptrs)
        st = gfxcuda.cuda_cache_stats()
        if not gl_write:
            assert st["hits"] - before["hits"] >= 17 and st["misses"] - before["misses"] <= 3, (before, st)
            assert st["idle_bytes"] >= w * h * 4, st
        else:
            assert st == before, "GL-written outputs took the CUDA cache's memory: %s, %s" % (before, st)
        # A consumer on a side stream still reading: no reuse until it passed.
        GL.glTextureSubImage2D(t, 0, 0, 0, w, h, GL.GL_RGBA, GL.GL_UNSIGNED_BYTE, frames[0])
        out = src.to_tensor(flip_y=False)
        torch.cuda.synchronize()
        side = torch.cuda.Stream()
        with torch.cuda.stream(side):
            x = torch.from_dlpack(out)  # __dlpack__(stream=side): noted
            torch.cuda._sleep(200_000_000)  # about 0.1 s of GPU time on the side stream
            copy = x.clone()  # queued behind the sleep: reads the memory later
        first = out.ptr
        del x, out  # released while the side stream still has the clone queued
        GL.glTextureSubImage2D(t, 0, 0, 0, w, h, GL.GL_RGBA, GL.GL_UNSIGNED_BYTE, frames[2])
        out2 = src.to_tensor(flip_y=False)  # the legacy default stream: not ordered after the side stream
        assert out2.ptr != first, "memory a consumer stream still reads was reused"
        if not gl_write:
            assert gfxcuda.cuda_cache_stats()["busy"] > st["busy"], "the busy block was not even looked at"
        torch.cuda.synchronize()
        assert torch.equal(copy.cpu(), torch.from_numpy(frames[0]))
        assert torch.equal(torch.from_dlpack(out2).cpu(), torch.from_numpy(frames[2]))
        src.release()
    finally:
        GL.glDeleteTextures(1, [t])


def test_tiles_of_an_atlas_equal_torch_of_glreadpixels(egl_ctx):
    """An RGBA8 texture that is an atlas of 5 x 3 tiles of 13 x 7 (a tiled
    renderer's 15 environments): to_torch(tiles=...) and
    to_tensor(tiles=...) give its first n tiles as one (n, ...) tensor,
    GL-written, every element equal to torch's conversion of each tile of
    glReadPixels, for layouts GL converts in one dispatch (uint8 RGBA,
    float32 CHW with mean/std) and tile by tile (uint8 RGB); on a side
    stream too."""
    torch = _torch_cuda()
    cols, rows, tw, th = 5, 3, 13, 7
    w, h = cols * tw, rows * th
    rgba = numpy.random.default_rng(53).integers(0, 256, (h, w, 4), dtype=numpy.uint8)
    t = _texture(w, h, GL.GL_RGBA8, GL.GL_RGBA, GL.GL_UNSIGNED_BYTE, rgba)
    mean, std = [0.485, 0.456, 0.406], [0.229, 0.224, 0.225]
    try:
        src = gfxcuda.gl.texture(t)
        for n in (cols * rows, 11):
            tiles_arg = (cols, rows) if n == cols * rows else (cols, rows, n)
            for dtype, layout, channels, m, sd, flip in (("uint8", "hwc", 4, None, None, True),
                                                         ("float32", "chw", 3, mean, std, False),
                                                         ("uint8", "hwc", 3, None, None, False)):
                want = torch.stack([_reference(torch, rgba[(v // cols) * th:(v // cols + 1) * th,
                                                            (v % cols) * tw:(v % cols + 1) * tw],
                                               dtype, layout, flip, channels, m, sd) for v in range(n)])
                got = src.to_torch(dtype=dtype, layout=layout, flip_y=flip, channels=channels, mean=m, std=sd,
                                   tiles=tiles_arg)
                assert got.shape == want.shape and got.dtype == want.dtype, (got.shape, want.shape, got.dtype)
                if dtype == "uint8":
                    assert torch.equal(got, want), (dtype, layout, channels, n)
                else:
                    assert torch.allclose(got, want, rtol=1e-6, atol=1e-6), (dtype, layout, channels, n)
                buf = src.to_tensor(dtype=dtype, layout=layout, flip_y=flip, channels=channels, mean=m, std=sd,
                                    tiles=tiles_arg)
                x = torch.from_dlpack(buf)
                assert x.shape == want.shape
                assert torch.allclose(x.float(), want.float(), rtol=1e-6, atol=1e-6), ("to_tensor", dtype, layout, n)
        side = torch.cuda.Stream()
        with torch.cuda.stream(side):
            got = src.to_torch(tiles=(cols, rows)).clone()
        side.synchronize()
        want = torch.stack([_reference(torch, rgba[(v // cols) * th:(v // cols + 1) * th,
                                                    (v % cols) * tw:(v % cols + 1) * tw],
                                       "uint8", "hwc", True, 4, None, None) for v in range(cols * rows)])
        assert torch.equal(got, want)
        src.release()
    finally:
        GL.glDeleteTextures(1, [t])


def test_tiles_argument_refused_before_any_gpu_work(egl_ctx):
    """tiles= that does not fit: an ArgumentTypeError or
    InvalidArgumentError naming it, before CUDA is asked (any machine)."""
    rgba = numpy.zeros((21, 65, 4), dtype=numpy.uint8)
    t = _texture(65, 21, GL.GL_RGBA8, GL.GL_RGBA, GL.GL_UNSIGNED_BYTE, rgba)
    try:
        src = gfxcuda.gl.texture(t)
        for call in (src.to_tensor, src.to_torch) if gfxcuda.cuda_available() else (src.to_tensor,):
            with pytest.raises(gfxcuda.ArgumentTypeError, match="give \\(cols, rows\\)"):
                call(tiles=(5,))
            with pytest.raises(gfxcuda.ArgumentTypeError, match="give \\(cols, rows\\)"):
                call(tiles=5)
            with pytest.raises(gfxcuda.InvalidArgumentError, match="65x21 frame .* does not divide into 4 x 3"):
                call(tiles=(4, 3))
            with pytest.raises(gfxcuda.InvalidArgumentError, match="tiles\\[2\\]"):
                call(tiles=(5, 3, 16))
            with pytest.raises(gfxcuda.InvalidArgumentError, match="tiles\\[0\\]"):
                call(tiles=(0, 3))
        with pytest.raises(gfxcuda.InvalidArgumentError, match="leave out= unset"):
            src.to_tensor(tiles=(5, 3), out=object())
        src.release()
    finally:
        GL.glDeleteTextures(1, [t])


def test_gl_write_dlpack_refuses_bad_arguments():
    """gfxcuda_gl_write_dlpack (GL-written tensors as DLPack, what to_torch
    takes) on bad arguments: a status and a message naming the argument,
    nothing written to *managed (any machine: it refuses before GL or
    CUDA)."""
    from gfxcuda import _abi, _lib
    lib = _lib.lib
    srcs = (ctypes.c_uint64 * 2)(0, 0)
    lay = _lib.TensorLayout()
    for args, status, msg in (
            ((srcs, 1, 0, 0, ctypes.byref(lay), 0, 0, None), _abi.GFXCUDA_ERR_INVALID, b"null output"),
            ((srcs, 2, 0, 0, ctypes.byref(lay), 0, 0), _abi.GFXCUDA_ERR_INVALID, b"pass batch 1"),
            ((None, 1, 0, 0, ctypes.byref(lay), 0, 0), _abi.GFXCUDA_ERR_INVALID, b"1 to 65536"),
            ((srcs, 0, 1, 0, ctypes.byref(lay), 0, 0), _abi.GFXCUDA_ERR_INVALID, b"1 to 65536"),
            ((srcs, 1, 0, 0xDEAD, ctypes.byref(lay), 0, 0), _abi.GFXCUDA_ERR_BAD_HANDLE, b"57005 is not a live handle")):
        m = ctypes.c_void_p(0x5A5A)
        st = lib.gfxcuda_gl_write_dlpack(*args, *(() if len(args) == 8 else (ctypes.byref(m),)))
        assert st == status, (args, st, lib.gfxcuda_last_error())
        assert msg in lib.gfxcuda_last_error(), lib.gfxcuda_last_error()
        assert m.value == 0x5A5A, "*managed written on an error"
    for args, status, msg in (
            ((0, 0, ctypes.byref(lay), 2, 2, 1, 0, 0, None), _abi.GFXCUDA_ERR_INVALID, b"null output"),
            ((0, 0xDEAD, ctypes.byref(lay), 2, 2, 1, 0, 0), _abi.GFXCUDA_ERR_BAD_HANDLE, b"57005 is not a live handle")):
        m = ctypes.c_void_p(0x5A5A)
        st = lib.gfxcuda_gl_write_tiles_dlpack(*args, *(() if len(args) == 9 else (ctypes.byref(m),)))
        assert st == status, (args, st, lib.gfxcuda_last_error())
        assert msg in lib.gfxcuda_last_error(), lib.gfxcuda_last_error()
        assert m.value == 0x5A5A, "*managed written on an error"


@pytest.mark.parametrize("gl_write", [True, False], ids=["gl-written", "cuda-converted"])
def test_to_torch_memory_reused_only_when_its_stream_passed(egl_ctx, gl_write, monkeypatch):
    """to_torch's tensors, GL-written (a DLPack tensor of the pool's memory)
    or torch's own: each frame's elements are right, a dropped tensor's
    memory comes back for a later frame and nothing is left behind
    (library handles, DLPack exports), but memory that a side stream's
    queued work (blocked by a sleep kernel) still reads is not reused: that
    work sees the frame it was given, every element compared."""
    torch = _torch_cuda()
    monkeypatch.setattr(gfxcuda.gl, "_gl_write_on", gl_write)
    w, h = 64, 48
    rng = numpy.random.default_rng(81)
    frames = [rng.integers(0, 256, (h, w, 4), dtype=numpy.uint8) for _ in range(3)]
    t = _texture(w, h, GL.GL_RGBA8, GL.GL_RGBA, GL.GL_UNSIGNED_BYTE, frames[0])
    try:
        src = gfxcuda.gl.texture(t)
        src.to_torch(flip_y=False)  # the source's views, made once
        torch.cuda.synchronize()
        gc.collect()
        handles, exports = gfxcuda.live_handles(), gfxcuda.live_dlpack_tensors()
        ptrs = set()
        for i in range(200):
            GL.glTextureSubImage2D(t, 0, 0, 0, w, h, GL.GL_RGBA, GL.GL_UNSIGNED_BYTE, frames[i % 2])
            x = src.to_torch(flip_y=(i % 3 == 0))
            want = torch.from_numpy(frames[i % 2][::-1].copy() if i % 3 == 0 else frames[i % 2])
            assert x.shape == (h, w, 4) and x.dtype == torch.uint8 and x.is_cuda
            assert torch.equal(x.cpu(), want), "frame %d" % i
            ptrs.add(x.data_ptr())
            del x
        assert len(ptrs) <= 3, "every frame got new memory: %d blocks" % len(ptrs)
        gc.collect()
        assert (gfxcuda.live_handles(), gfxcuda.live_dlpack_tensors()) == (handles, exports), "left behind"
        # A side stream still reading: no reuse until it passed.
        GL.glTextureSubImage2D(t, 0, 0, 0, w, h, GL.GL_RGBA, GL.GL_UNSIGNED_BYTE, frames[0])
        torch.cuda.synchronize()
        side = torch.cuda.Stream()
        with torch.cuda.stream(side):
            x = src.to_torch(flip_y=False)  # stream None: side, torch's current one
            torch.cuda._sleep(200_000_000)  # about 0.1 s of GPU time on the side stream
            copy = x.clone()  # queued behind the sleep: reads the memory later
        first = x.data_ptr()
        if not gl_write:
            x.record_stream(side)  # torch's own memory: torch's rule for a tensor used on another stream
        del x  # freed while the side stream still has the clone queued
        GL.glTextureSubImage2D(t, 0, 0, 0, w, h, GL.GL_RGBA, GL.GL_UNSIGNED_BYTE, frames[2])
        # On the default stream, not ordered after the side stream: more
        # tensors kept than the idle memory the loop left, so that the
        # memory the side stream reads would be taken were it free.
        ys = [src.to_torch(flip_y=False) for _ in range(len(ptrs) + 1)]
        assert first not in [y.data_ptr() for y in ys], "memory a side stream still reads was reused"
        torch.cuda.synchronize()
        assert torch.equal(copy.cpu(), torch.from_numpy(frames[0]))
        for y in ys:
            assert torch.equal(y.cpu(), torch.from_numpy(frames[2]))
        src.release()
    finally:
        GL.glDeleteTextures(1, [t])


def test_to_tensor_of_an_object_the_renderer_deleted(egl_ctx):
    """An RGBA8 texture (which CUDA reads in place: registered once) and an
    RGB8 one (copied first), each deleted by the renderer after a first
    to_tensor: the next to_tensor is an InvalidArgumentError naming the
    object, and the process goes on (a new texture works)."""
    torch = _torch_cuda()
    w, h = 16, 8
    for ifmt, comps, fmt in ((GL.GL_RGBA8, 4, GL.GL_RGBA), (GL.GL_RGB8, 3, GL.GL_RGB)):
        data = numpy.random.default_rng(int(ifmt)).integers(0, 256, (h, w, comps), dtype=numpy.uint8)
        t = _texture(w, h, ifmt, fmt, GL.GL_UNSIGNED_BYTE, data)
        src = gfxcuda.gl.texture(t)
        out = src.to_tensor(flip_y=False)
        torch.cuda.synchronize()
        got = torch.from_dlpack(out).cpu().numpy()
        assert (got[..., :comps] == data).all()
        GL.glDeleteTextures(1, [t])
        with pytest.raises(gfxcuda.InvalidArgumentError, match="texture %d.*deleted" % t):
            src.to_tensor()
        src.release()
    t = _texture(w, h, GL.GL_RGBA8, GL.GL_RGBA, GL.GL_UNSIGNED_BYTE, numpy.ones((h, w, 4), numpy.uint8))
    try:
        assert gfxcuda.gl.texture(t).to_tensor().shape == (h, w, 4)
    finally:
        GL.glDeleteTextures(1, [t])
