"""gfxcuda.gl with a renderer no one on the project wrote: moderngl
(Debian's python3-moderngl) on a standalone EGL context (llvmpipe in CI, the
GPU's driver on the GPU machine) draws random scenes into textures,
renderbuffers and multisampled framebuffers; every texel gfxcuda's compute
view (and a compute shader) sees equals what moderngl reads back itself."""

import itertools
import os
import threading

os.environ.setdefault("PYOPENGL_PLATFORM", "egl")  # PyOpenGL (the state checks) on moderngl's EGL context

import numpy
import pytest

import gfxcuda
import gfxcuda.gl
from conftest import gl_view_bytes

moderngl = pytest.importorskip("moderngl", reason="moderngl is not installed (Debian: python3-moderngl)")

VS = """#version 330
in vec2 pos; in vec4 col; out vec4 v_col;
void main() { gl_Position = vec4(pos, 0.0, 1.0); v_col = col; }"""
FS = """#version 330
in vec4 v_col; out vec4 o;
void main() { o = v_col; }"""


@pytest.fixture(scope="module")
def ctx():
    try:
        c = moderngl.create_standalone_context(backend="egl", require=450)
    except Exception as e:  # pragma: no cover - CI has EGL
        pytest.skip("no EGL GL 4.5 context for moderngl: %s" % e)
    try:
        gfxcuda.get_current_device()
    except gfxcuda.GfxcudaError as e:  # pragma: no cover
        pytest.skip("no Vulkan device: %s" % e)
    yield c
    c.release()


def _draw(ctx, fbo, seed, hdr=False, n=24):
    """Random triangles with random colors (0..4 per channel for float
    targets) over a random clear color."""
    rng = numpy.random.default_rng(seed)
    prog = ctx.program(vertex_shader=VS, fragment_shader=FS)
    pos = rng.uniform(-1.2, 1.2, (n * 3, 2)).astype("f4")
    col = rng.uniform(0, 4 if hdr else 1, (n * 3, 4)).astype("f4")
    vbo = ctx.buffer(numpy.hstack([pos, col]).tobytes())
    vao = ctx.vertex_array(prog, [(vbo, "2f 4f", "pos", "col")])
    fbo.use()
    fbo.clear(*rng.uniform(0, 1, 4))
    vao.render(moderngl.TRIANGLES)
    ctx.finish()
    vao.release()
    vbo.release()
    prog.release()


def _rgba(data, h, w, comps, dtype, one):
    a = numpy.frombuffer(data, dtype=dtype).reshape(h, w, comps)
    if comps == 4:
        return a
    out = numpy.empty((h, w, 4), dtype=dtype)
    out[..., :comps] = a
    out[..., comps:3] = 0
    out[..., 3] = one
    return out


FORMATS = [  # moderngl dtype, components, numpy dtype, the alpha GL fills in, hdr
    ("f1", 4, numpy.uint8, 255, False),
    ("f1", 3, numpy.uint8, 255, False),
    ("f2", 4, numpy.float16, 1.0, True),
    ("f4", 4, numpy.float32, 1.0, True),
    ("f4", 3, numpy.float32, 1.0, True),
]


@pytest.mark.parametrize("dtype,comps,np_dtype,one,hdr", FORMATS)
@pytest.mark.parametrize("size", [(37, 23), (64, 64), (1, 1), (301, 7)])
def test_texture_compute_view_equals_moderngl_read(ctx, dtype, comps, np_dtype, one, hdr, size):
    tex = ctx.texture(size, comps, dtype=dtype)
    fbo = ctx.framebuffer(color_attachments=[tex])
    try:
        for seed in (1, 2):  # two frames: the view follows the texture
            _draw(ctx, fbo, seed * 1000 + size[0], hdr)
            want = _rgba(tex.read(), size[1], size[0], comps, np_dtype, one)
            src = gfxcuda.gl.texture(tex.glo)
            assert (src.width, src.height, src.samples) == size + (0,)
            got = numpy.frombuffer(gl_view_bytes(src), dtype=np_dtype).reshape(size[1], size[0], 4)
            assert got.view(numpy.uint8).tobytes() == want.view(numpy.uint8).tobytes()
            if seed == 1:
                assert len(numpy.unique(want.reshape(-1, 4), axis=0)) > 1 or size == (1, 1)
            src.release()
    finally:
        fbo.release()
        tex.release()


def test_renderbuffer_and_framebuffer(ctx):
    w, h = 45, 31
    rb = ctx.renderbuffer((w, h), 4)
    fbo = ctx.framebuffer(color_attachments=[rb])
    try:
        _draw(ctx, fbo, 7)
        want = fbo.read(components=4)
        for src in (gfxcuda.gl.renderbuffer(rb.glo), gfxcuda.gl.framebuffer(fbo.glo)):
            assert src.renderbuffer and src.name == rb.glo
            assert gl_view_bytes(src) == want
            src.release()
        fbo.use()  # bound for reading (and drawing)
        src = gfxcuda.gl.framebuffer()
        assert src.name == rb.glo and gl_view_bytes(src) == want
        src.release()
    finally:
        fbo.release()
        rb.release()


@pytest.mark.parametrize("kind", ["renderbuffer", "texture"])
def test_multisampled_is_resolved(ctx, kind):
    """A 4x multisampled color buffer reads as GL's own resolve of it."""
    w, h = 53, 29
    if ctx.max_samples < 4:  # pragma: no cover
        pytest.skip("no 4x multisampling here (max %d)" % ctx.max_samples)
    ms = ctx.renderbuffer((w, h), 4, samples=4) if kind == "renderbuffer" else ctx.texture((w, h), 4, samples=4)
    msfbo = ctx.framebuffer(color_attachments=[ms])
    res = ctx.texture((w, h), 4)
    resfbo = ctx.framebuffer(color_attachments=[res])
    try:
        _draw(ctx, msfbo, 11, n=40)
        ctx.copy_framebuffer(resfbo, msfbo)  # moderngl's resolve (glBlitFramebuffer)
        want = res.read()
        src = gfxcuda.gl.framebuffer(msfbo.glo)
        assert src.samples == 4
        assert gl_view_bytes(src) == want
        src.release()
    finally:
        for o in (msfbo, resfbo, ms, res):
            o.release()


def test_a_compute_shader_sees_every_texel(ctx):
    w, h = 33, 17
    tex = ctx.texture((w, h), 4)
    fbo = ctx.framebuffer(color_attachments=[tex])
    try:
        _draw(ctx, fbo, 99)
        want = numpy.frombuffer(tex.read(), numpy.uint8).reshape(h, w, 4)
        view = gfxcuda.gl.texture(tex.glo).compute_view()
        out = gfxcuda.Buffer(w * h * 4, stride=4)
        shader = gfxcuda.hlsl.compile(
            "Texture2D<float4> t : register(t0); RWStructuredBuffer<uint> o : register(u0);"
            "[numthreads(8, 8, 1)] void main(uint3 id : SV_DispatchThreadID) {"
            "  if (id.x >= %d || id.y >= %d) return;"
            "  uint4 v = uint4(round(t.Load(int3(id.xy, 0)) * 255.0));"
            "  o[id.y * %d + id.x] = v.x | (v.y << 8) | (v.z << 16) | (v.w << 24); }" % (w, h, w))
        c = gfxcuda.Compute(shader, srv=[view], uav=[out])
        c.dispatch((w + 7) // 8, (h + 7) // 8, 1)
        rb = gfxcuda.Buffer(out.size, gfxcuda.HEAP_READBACK)
        out.copy_to(rb)
        got = numpy.frombuffer(rb.readback(), numpy.uint8).reshape(h, w, 4)
        assert (got == want).all()
    finally:
        fbo.release()
        tex.release()


def test_renderer_state_is_left_as_it_was(ctx):
    gl = pytest.importorskip("OpenGL.GL", reason="PyOpenGL is not installed (Debian: python3-opengl)")
    w, h = 20, 12
    tex = ctx.texture((w, h), 4)
    other = ctx.texture((w, h), 4)
    fbo = ctx.framebuffer(color_attachments=[tex])
    try:
        _draw(ctx, fbo, 5)
        want = tex.read()
        other.use(0)  # a texture bound, a framebuffer bound, the scissor test on
        fbo.use()
        fbo.scissor = (2, 2, 4, 4)
        ctx.enable_direct(0x0C11)  # GL_SCISSOR_TEST
        src = gfxcuda.gl.texture(tex.glo)
        assert gl_view_bytes(src) == want  # the scissor test did not cut the copy
        if gl is not None:
            assert gl.glIsEnabled(gl.GL_SCISSOR_TEST)
            assert gl.glGetIntegerv(gl.GL_TEXTURE_BINDING_2D) == other.glo
            assert gl.glGetIntegerv(gl.GL_DRAW_FRAMEBUFFER_BINDING) == fbo.glo
            assert gl.glGetIntegerv(gl.GL_READ_FRAMEBUFFER_BINDING) == fbo.glo
        ctx.disable_direct(0x0C11)
        fbo.scissor = None
        # The renderer still draws into its own objects afterwards.
        _draw(ctx, fbo, 6)
        assert gl_view_bytes(src) == tex.read()
        src.release()
    finally:
        fbo.release()
        tex.release()
        other.release()


def test_bad_input_is_a_clear_error(ctx):
    with pytest.raises(gfxcuda.InvalidArgumentError, match="texture 987654"):
        gfxcuda.gl.texture(987654)
    with pytest.raises(gfxcuda.InvalidArgumentError, match="renderbuffer 987654"):
        gfxcuda.gl.renderbuffer(987654)
    with pytest.raises(gfxcuda.ArgumentTypeError):
        gfxcuda.gl.texture("3")
    with pytest.raises((gfxcuda.ArgumentOverflowError, ValueError)):
        gfxcuda.gl.texture(1 << 40)
    t = ctx.texture((4, 4), 4)
    name = t.glo
    t.release()  # deleted by the renderer
    with pytest.raises(gfxcuda.InvalidArgumentError, match="texture %d" % name):
        gfxcuda.gl.texture(name)
    ui = ctx.texture((4, 4), 4, dtype="u1")  # GL_RGBA8UI: integers
    depth = ctx.depth_texture((4, 4))
    try:
        with pytest.raises(gfxcuda.InvalidArgumentError, match="RGBA8UI"):
            gfxcuda.gl.texture(ui.glo)
        d = gfxcuda.gl.texture(depth.glo)  # depth: a source (float32 in [0, 1])
        assert d.format == gfxcuda.formats.R32_FLOAT
        d.release()
        tex = ctx.texture((4, 4), 4)
        with pytest.raises(gfxcuda.InvalidArgumentError, match="target"):
            gfxcuda.gl.texture(tex.glo, target=0x8C1A)  # GL_TEXTURE_2D_ARRAY
        assert gfxcuda.gl.texture(tex.glo, target=0x0DE1).target == 0x0DE1
        empty = ctx.framebuffer(color_attachments=[tex])
        with pytest.raises(gfxcuda.InvalidArgumentError, match="nothing is attached"):
            gfxcuda.gl.framebuffer(empty.glo, index=3)
        empty.release()
        tex.release()
    finally:
        ui.release()
        depth.release()
    # Another thread, where no context is current.
    got = []

    def other():
        try:
            gfxcuda.gl.texture(1)
        except gfxcuda.GfxcudaError as e:
            got.append(e)
    th = threading.Thread(target=other)
    th.start()
    th.join(60)
    assert got and "current" in str(got[0]), got


def test_no_leak_over_many_cycles(ctx):
    tex = ctx.texture((16, 16), 4)
    fbo = ctx.framebuffer(color_attachments=[tex])
    _draw(ctx, fbo, 3)
    want = tex.read()
    gfxcuda.get_current_device().handle  # opened before counting
    src = gfxcuda.gl.texture(tex.glo)  # the first use loads what stays loaded (the compute device's spares)
    src.compute_view()
    src.release()
    base = gfxcuda.live_handles()
    fds = len(os.listdir("/proc/self/fd"))
    try:
        for i in range(10000):  # the count: register (source + view), copy, release
            src = gfxcuda.gl.texture(tex.glo)
            v = src.compute_view()
            if i % 1000 == 0:
                assert gl_view_bytes(src) == want
            del v
            src.release()
        assert gfxcuda.live_handles() == base
        assert len(os.listdir("/proc/self/fd")) <= fds
        # One source, many frames: the same view texture each time.
        src = gfxcuda.gl.texture(tex.glo)
        first = src.compute_view()
        for _ in range(300):
            v = src.compute_view()
            assert v.width == first.width
        src.release()
        del first, v
        assert gfxcuda.live_handles() == base
    finally:
        fbo.release()
        tex.release()


def test_object_deleted_by_the_renderer(ctx):
    """A source whose texture the renderer deletes: the next copy is an
    error naming it (not a stale frame), and a new source of a new texture
    works."""
    tex = ctx.texture((8, 8), 4)
    fbo = ctx.framebuffer(color_attachments=[tex])
    _draw(ctx, fbo, 4)
    src = gfxcuda.gl.texture(tex.glo)
    assert gl_view_bytes(src) == tex.read()
    name = tex.glo
    fbo.release()
    tex.release()
    with pytest.raises(gfxcuda.InvalidArgumentError, match="texture %d.*deleted" % name):
        src.compute_view()
    src.release()
    tex2 = ctx.texture((8, 8), 4)
    fbo2 = ctx.framebuffer(color_attachments=[tex2])
    _draw(ctx, fbo2, 5)
    src2 = gfxcuda.gl.texture(tex2.glo)
    assert gl_view_bytes(src2) == tex2.read()
    src2.release()
    fbo2.release()
    tex2.release()


VS3 = """#version 330
in vec3 pos; in vec4 col; out vec4 v_col;
void main() { gl_Position = vec4(pos, 1.0); v_col = col; }"""


def _draw_depth(ctx, fbo, seed, n=30):
    """Random triangles at random depths, the depth test on."""
    rng = numpy.random.default_rng(seed)
    prog = ctx.program(vertex_shader=VS3, fragment_shader=FS)
    data = numpy.hstack([rng.uniform(-1.2, 1.2, (n * 3, 2)), rng.uniform(-0.9, 0.9, (n * 3, 1)),
                         rng.uniform(0, 1, (n * 3, 4))]).astype("f4")
    vbo = ctx.buffer(data.tobytes())
    vao = ctx.vertex_array(prog, [(vbo, "3f 4f", "pos", "col")])
    fbo.use()
    fbo.clear(0, 0, 0, 1, depth=1.0)
    ctx.enable(moderngl.DEPTH_TEST)
    vao.render(moderngl.TRIANGLES)
    ctx.disable(moderngl.DEPTH_TEST)
    ctx.finish()
    vao.release()
    vbo.release()
    prog.release()


@pytest.mark.parametrize("kind", ["texture", "renderbuffer", "attachment"])
def test_depth_compute_view_equals_moderngl_read(ctx, kind):
    """Depth (24-bit, as renderers make it) as an R32_FLOAT compute view:
    every value equals moderngl's own read of the depth buffer, over odd
    sizes, two frames; to_tensor of depth takes float32 only."""
    w, h = 43, 31
    color = ctx.texture((w, h), 4)
    depth = ctx.depth_texture((w, h)) if kind != "renderbuffer" else ctx.depth_renderbuffer((w, h))
    fbo = ctx.framebuffer(color_attachments=[color], depth_attachment=depth)
    try:
        for seed in (1, 2):
            _draw_depth(ctx, fbo, 20 + seed)
            want = numpy.frombuffer(fbo.read(attachment=-1, dtype="f4"), numpy.float32).reshape(h, w)
            assert len(numpy.unique(want)) > 10  # a scene, not a clear
            if kind == "texture":
                src = gfxcuda.gl.texture(depth.glo)
            elif kind == "renderbuffer":
                src = gfxcuda.gl.renderbuffer(depth.glo)
            else:
                src = gfxcuda.gl.framebuffer(fbo.glo, attachment="depth")
            assert src.format == gfxcuda.formats.R32_FLOAT and (src.width, src.height) == (w, h)
            got = numpy.frombuffer(gl_view_bytes(src), numpy.float32).reshape(h, w)
            assert got.tobytes() == want.tobytes()
            assert src.depth
            with pytest.raises(gfxcuda.InvalidArgumentError, match="float32"):
                src.to_tensor(dtype="float16")  # depth is float32 (checked before any CUDA)
            src.release()
    finally:
        fbo.release()
        depth.release()
        color.release()


def test_tensor_shape_from_the_library(ctx):
    """The shape and bytes of gfxcuda.gl's to_tensor(s) output come from
    the library (gfxcuda_gl_tensor_shape): N first for several sources (none
    for one), channels first for "chw", a depth source's one float32
    channel, bytes as the shape and dtype say. Needs no CUDA."""
    from gfxcuda import _cuda
    from gfxcuda.gl import _tensor_shape
    w, h = 37, 21
    color = ctx.texture((w, h), 4)
    depth = ctx.depth_texture((w, h))
    srcs = [gfxcuda.gl.texture(color.glo), gfxcuda.gl.texture(depth.glo)]
    try:
        for src, (planar, channels, dtype, n) in itertools.product(
                srcs, itertools.product((True, False), (3, 4), ("uint8", "float16", "float32"), (0, 1, 5))):
            lay, itemsize = _cuda._tensor_layout("test", dtype, planar, channels, False, None, None)
            c, isz = (1, 4) if src.depth else (channels, itemsize)
            want = (c, h, w) if planar else (h, w, c)
            if n:
                want = (n,) + want
            assert _tensor_shape(src, lay, n) == (want, max(n, 1) * h * w * c * isz), (src, planar, channels, dtype, n)
        lay, _ = _cuda._tensor_layout("test", "float32", True, 3, False, None, None)
        for bad in (-1, 65537):
            with pytest.raises(gfxcuda.InvalidArgumentError):
                _tensor_shape(srcs[0], lay, bad)
    finally:
        for s in srcs:
            s.release()
        depth.release()
        color.release()
