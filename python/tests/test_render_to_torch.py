"""docs/examples/python/render_to_torch.py, the Python demo of
docs/render-to-pytorch-python.md: the page shows the program verbatim, its
CPU half runs here on lavapipe, the whole path (render → CUDA → torch) on a
CUDA machine with torch."""

import importlib.util
import os
import re
import subprocess
import sys

import numpy
import pytest

import gfxcuda
from conftest import EXAMPLE_DIRS, find_example, find_page, need_cuda

here = os.path.dirname(os.path.abspath(__file__))
EXAMPLES = find_example("render_to_torch.py")
PAGE = find_page("render-to-pytorch-python.md") or os.path.join(here, "..", "..", "docs", "render-to-pytorch-python.md")


@pytest.fixture(scope="module")
def demo():
    if EXAMPLES is None:
        pytest.fail("render_to_torch.py is in neither %s" % EXAMPLE_DIRS)
    spec = importlib.util.spec_from_file_location("render_to_torch", os.path.join(EXAMPLES, "render_to_torch.py"))
    m = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(m)
    return m


def test_page_shows_the_program():
    if not os.path.exists(PAGE):
        pytest.skip("the docs are not next to this checkout (GPU bundle)")
    blocks = re.findall(r"```python\n(.*?)```", open(PAGE).read(), re.S)
    program = open(os.path.join(EXAMPLES, "render_to_torch.py")).read()
    assert program in blocks, "docs/render-to-pytorch-python.md must embed render_to_torch.py verbatim"


def test_reference_tells_frames_apart(demo):
    a, b = demo.reference(3), demo.reference(4)
    assert a.shape == (demo.HEIGHT, demo.WIDTH, 4) and a.dtype == numpy.uint8
    assert int(numpy.abs(a.astype(int) - b).max()) > 1


def test_cpu_path(demo, rng):
    frames = int(rng.integers(2, 8))
    lines = []
    tex = gfxcuda.Texture2D(demo.WIDTH, demo.HEIGHT, gfxcuda.formats.R8G8B8A8_UNORM)
    poison = gfxcuda.Buffer(tex.size, gfxcuda.HEAP_UPLOAD)
    poison.upload(rng.integers(0, 256, tex.size, dtype=numpy.uint8))
    poison.copy_to(tex)
    with pytest.raises(AssertionError):
        demo.check_frame(demo.read_back(tex), 0)  # the poison is no frame
    x, pixels = demo.run_cpu(frames, out=lines.append)
    assert x.shape == (1, 3, demo.HEIGHT, demo.WIDTH) and x.dtype == numpy.float32
    assert demo.check_frame(pixels, frames - 1) <= 1
    with pytest.raises(AssertionError):
        demo.check_frame(pixels, frames)  # the next frame is another picture
    want = (pixels[..., :3].astype(numpy.float32) / 255 - demo.MEAN) / demo.STD
    assert numpy.array_equal(x[0], want.transpose(2, 0, 1))
    assert "checked" in lines[0]


def test_script_runs(demo):
    env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(gfxcuda.__file__)))
    r = subprocess.run([sys.executable, os.path.join(EXAMPLES, "render_to_torch.py"), "--frames", "3"],
                       capture_output=True, text=True, timeout=300, env=env)
    assert r.returncode == 0, r.stderr
    assert "checked" in r.stdout


@pytest.mark.parametrize("converter", ["cuda", "vulkan"])
def test_cuda_path(demo, rng, converter):
    """The whole demo on the GPU: shared texture, Compute into it, the fused
    conversion (tex.to_tensor) with either converter, checked against the
    Vulkan readback."""
    need_cuda()
    torch = pytest.importorskip("torch")
    frames = int(rng.integers(2, 12))
    lines = []
    x, pixels = demo.run_cuda(frames, out=lines.append, converter=converter)
    assert x.is_cuda and tuple(x.shape) == (1, 3, demo.HEIGHT, demo.WIDTH) and x.dtype == torch.float32
    assert demo.check_frame(pixels, frames - 1) <= 1
    want = torch.from_numpy(demo.normalize(pixels)).cuda()
    assert torch.allclose(x, want, rtol=0, atol=1e-5)
    assert "checked" in lines[0]


def _reference(rgba, dtype, planar, channels, mean, std, flip_y):
    """numpy's conversion of [H, W, 4] uint8 texels (tensor.Reference's rule)."""
    v = rgba.astype(numpy.float32) / numpy.float32(255)
    if flip_y:
        v = v[::-1]
    v = v[..., :channels]
    m = numpy.zeros(4, numpy.float32)
    s = numpy.ones(4, numpy.float32)
    if mean is not None:
        m[:len(mean)] = mean
    if std is not None:
        s[:len(std)] = [x or 1 for x in std]
    v = (v - m[:channels]) / s[:channels]
    if dtype == "uint8":
        v = numpy.clip(numpy.floor(v * 255 + 0.5), 0, 255).astype(numpy.uint8)
    else:
        v = v.astype(dtype)
    v = v.transpose(2, 0, 1) if planar else v
    return v[None]


@pytest.mark.parametrize("converter", ["cuda", "vulkan"])
def test_to_tensor_random_texels(rng, converter):
    """tex.to_tensor over random RGBA8 texels into a poisoned SharedBuffer,
    for every element type, NCHW and NHWC, 3 and 4 channels, with and
    without normalization and flip: the tensor matches numpy's reference
    computed from the texture's bytes."""
    need_cuda()
    torch = pytest.importorskip("torch")
    h, w = 12, 20
    texels = rng.integers(0, 256, (h, w, 4), dtype=numpy.uint8)
    tex = gfxcuda.texture(torch.from_numpy(texels).cuda())
    for dtype in ("float32", "float16", "uint8"):
        for planar in (True, False):
            for channels in (3, 4):
                for norm in (False, True):
                    mean, std = ((0.25, 0.1, 0.0, -0.2), (0.5, 1.25, 2.0, 1.5)) if norm else (None, None)
                    flip = bool(rng.integers(0, 2))
                    shape = (1, channels, h, w) if planar else (1, h, w, channels)
                    out = gfxcuda.SharedBuffer(shape, dtype)
                    torch.from_dlpack(out).view(torch.uint8).fill_(0xCD)  # poisoned
                    t = tex.to_tensor(dtype, planar=planar, channels=channels, mean=mean, std=std, flip_y=flip,
                                      converter=converter, out=out)
                    assert t is out and "SharedBuffer" in repr(t)
                    got = torch.from_dlpack(t).cpu().numpy()
                    want = _reference(texels, dtype, planar, channels, mean, std, flip)
                    what = (dtype, planar, channels, norm, flip)
                    assert got.shape == want.shape, what
                    if dtype == "uint8":
                        assert int(numpy.abs(got.astype(int) - want).max()) <= 1, what
                    else:
                        tol = 1e-5 if dtype == "float32" else 2e-3
                        numpy.testing.assert_allclose(got.astype(numpy.float32), want.astype(numpy.float32),
                                                      rtol=tol, atol=tol, err_msg=str(what))
    t = tex.to_tensor(converter=converter)  # a new buffer, [1, 3, H, W] float32
    assert tuple(t.shape) == (1, 3, h, w) and t.typestr == "<f4"


def test_to_tensor_tiles(rng):
    """tex.to_tensor(tiles=...) over a random RGBA8 atlas of 3 x 2 tiles of
    8 x 5, 5 of them views, into a poisoned SharedBuffer: each view equals
    numpy's reference of its tile, for two layouts; then the errors."""
    need_cuda()
    torch = pytest.importorskip("torch")
    cols, rows, n, th, tw = 3, 2, 5, 5, 8
    texels = rng.integers(0, 256, (rows * th, cols * tw, 4), dtype=numpy.uint8)
    tex = gfxcuda.texture(torch.from_numpy(texels).cuda())
    for dtype, planar, flip in (("uint8", False, False), ("float32", True, True)):
        shape = (n, 3, th, tw) if planar else (n, th, tw, 3)
        out = gfxcuda.SharedBuffer(shape, dtype)
        torch.from_dlpack(out).view(torch.uint8).fill_(0xCD)
        t = tex.to_tensor(dtype, planar=planar, flip_y=flip, converter="vulkan", out=out, tiles=(cols, rows, n))
        got = torch.from_dlpack(t).cpu().numpy()
        assert got.shape == shape
        for v in range(n):
            r, c = divmod(v, cols)
            tile = texels[r * th:(r + 1) * th, c * tw:(c + 1) * tw]
            want = _reference(tile, dtype, planar, 3, None, None, flip)[0]
            if dtype == "uint8":
                assert (got[v] == want).all(), v
            else:
                numpy.testing.assert_allclose(got[v], want, rtol=1e-5, atol=1e-5, err_msg=str(v))
    t = tex.to_tensor(converter="vulkan", tiles=(cols, rows))  # every tile, a new buffer
    assert tuple(t.shape) == (cols * rows, 3, th, tw)
    with pytest.raises(gfxcuda.errors.InvalidArgumentError, match="does not divide"):
        tex.to_tensor(converter="vulkan", tiles=(5, 2))
    with pytest.raises(gfxcuda.errors.InvalidArgumentError, match="views"):
        tex.to_tensor(converter="vulkan", tiles=(cols, rows, 7))
    with pytest.raises(gfxcuda.errors.ArgumentTypeError):
        tex.to_tensor(converter="vulkan", tiles="3x2")
    with pytest.raises(gfxcuda.errors.UnsupportedError, match='converter="vulkan"'):
        tex.to_tensor(converter="cuda", tiles=(cols, rows))


def test_to_tensor_tiles_viewable(rng):
    """An rgba8_unorm texture made with view_formats=('r32_uint',), the
    atlas RecordTiles reads as texel words: random texels copied in from
    torch come back out the same, and tiles of an even height (4 texels a
    fetch) and of an odd one (1) convert to uint8 views equal to numpy's
    reference of each tile, into poisoned buffers; the same texture
    imported from its exported memory with the same view formats too."""
    need_cuda()
    torch = pytest.importorskip("torch")
    cols, rows, n, tw = 4, 3, 11, 16
    for th in (6, 7):
        texels = rng.integers(0, 256, (rows * th, cols * tw, 4), dtype=numpy.uint8)
        tex = gfxcuda.texture(texels.shape, "rgba8_unorm", view_formats=("r32_uint",))
        tex.copy_from(torch.from_numpy(texels).cuda())
        back = torch.full(texels.shape, 0xCD, dtype=torch.uint8, device="cuda")
        tex.copy_to(back)
        assert (back.cpu().numpy() == texels).all()
        fd, alloc, usage = tex.export_fd()
        imp = gfxcuda.Texture.import_fd(fd, texels.shape, "rgba8_unorm", alloc, usage=usage,
                                        view_formats=[gfxcuda.formats.lookup("r32_uint")["value"]])
        for src in (tex, imp):
            for planar in (False, True):
                shape = (n, 3, th, tw) if planar else (n, th, tw, 4)
                out = gfxcuda.SharedBuffer(shape, "uint8")
                torch.from_dlpack(out).fill_(0xCD)
                t = src.to_tensor("uint8", planar=planar, channels=3 if planar else 4, converter="vulkan", out=out,
                                  tiles=(cols, rows, n))
                got = torch.from_dlpack(t).cpu().numpy()
                for v in range(n):
                    r, c = divmod(v, cols)
                    tile = texels[r * th:(r + 1) * th, c * tw:(c + 1) * tw]
                    want = _reference(tile, "uint8", planar, 3 if planar else 4, None, None, False)[0]
                    assert (got[v] == want).all(), (th, src is imp, planar, v)
        imp.release()
        tex.release()
    with pytest.raises(gfxcuda.errors.UnsupportedError, match="R8_UNORM has 1-byte texels.*keeps the texel size"):
        gfxcuda.texture((8, 16, 4), "rgba8_unorm", view_formats=("r8_unorm",))  # not the texel size


def test_to_tensor_errors():
    need_cuda()
    tex = gfxcuda.texture((8, 6, 4), format="rgba8_unorm")
    with pytest.raises(gfxcuda.errors.InvalidArgumentError):
        tex.to_tensor(converter="opengl")
    with pytest.raises(gfxcuda.errors.InvalidArgumentError):
        tex.to_tensor(channels=2)
    with pytest.raises(gfxcuda.errors.InvalidArgumentError):
        tex.to_tensor(converter="vulkan")  # width 6: not a multiple of 4
    with pytest.raises(gfxcuda.errors.OutOfRangeError):
        tex.to_tensor(out=gfxcuda.SharedBuffer(8, "uint8"))
    with pytest.raises(gfxcuda.errors.InvalidArgumentError):
        tex.to_tensor(out=gfxcuda.CudaBuffer(8 * 6 * 3, "float32"))
    with pytest.raises(gfxcuda.errors.InvalidArgumentError):
        tex.to_tensor(mean=(1, 2, 3, 4, 5))


def test_compute_view_shares_memory(rng):
    """A shared texture's compute view is the texture CUDA reads: texels
    written through CUDA (copy_from) read back through Vulkan, and a
    Compute write is seen by CUDA (copy_to)."""
    need_cuda()
    torch = pytest.importorskip("torch")
    src = torch.randint(0, 2**31, (16, 32), dtype=torch.int32, device="cuda")  # r32_uint texels, as int32
    tex = gfxcuda.texture((16, 32), format="r32_uint")
    tex.copy_from(src)
    view = tex.compute_view()
    assert (view.width, view.height) == (32, 16)
    rb = gfxcuda.Buffer(view.size, gfxcuda.HEAP_READBACK, device=view.device)
    view.copy_to(rb)
    got = numpy.frombuffer(rb.readback2d(view.row_pitch, 32, 16, 4), numpy.uint32).reshape(16, 32)
    assert numpy.array_equal(got, src.cpu().numpy().view(numpy.uint32))
    k = int(rng.integers(1, 1 << 20))
    gfxcuda.Compute(gfxcuda.hlsl.compile("""
    RWTexture2D<uint> t : register(u0);
    [numthreads(8, 8, 1)]
    void main(uint3 id : SV_DispatchThreadID) { t[id.xy] = t[id.xy] ^ %du; }
    """ % k), uav=[view]).dispatch(4, 2, 1)
    out = torch.zeros_like(src)
    tex.copy_to(out)
    assert numpy.array_equal(out.cpu().numpy().view(numpy.uint32), src.cpu().numpy().view(numpy.uint32) ^ k)
