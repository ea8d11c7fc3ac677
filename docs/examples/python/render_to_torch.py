"""Render → PyTorch: a compute shader renders animated frames into a texture
that CUDA shares; each frame becomes a normalized [1, 3, H, W] float32 torch
tensor without a trip through the host, by gfxcuda's fused conversion
(tex.to_tensor, a CUDA kernel or a Vulkan pass). The last frame is checked
against a numpy reference of the same texture read back through Vulkan.

Without CUDA (or torch) it runs the Vulkan half on any device, lavapipe
included: render, read back into numpy, check, normalize in numpy.

    python3 render_to_torch.py [--frames N] [--cpu] [--vulkan]

See docs/render-to-pytorch-python.md.
"""

import struct
import sys
import time

import numpy

import gfxcuda

WIDTH, HEIGHT = 256, 128
MEAN = numpy.array([0.485, 0.456, 0.406], numpy.float32)  # ImageNet's
STD = numpy.array([0.229, 0.224, 0.225], numpy.float32)

# The scene: a colour ramp with a wave and a soft disc that circle with the
# frame number (a push constant). Smooth functions only, so that numpy's
# reference matches the GPU to a unit in the last place of 8 bits.
SCENE = """
struct Scene { uint frame; };
[[vk::push_constant]] ConstantBuffer<Scene> scene;
RWTexture2D<float4> img : register(u0);

[numthreads(16, 16, 1)]
void main(uint3 id : SV_DispatchThreadID) {
    uint w, h;
    img.GetDimensions(w, h);
    if (id.x >= w || id.y >= h) return;
    float2 uv = float2(id.xy) / float2(w, h);
    float t = float(scene.frame) * 0.1;
    float2 d = (uv - float2(0.5 + 0.3 * cos(t), 0.5 + 0.3 * sin(t))) * float2(float(w) / float(h), 1.0);
    float disc = exp(-dot(d, d) * 40.0);
    img[id.xy] = float4(uv.x + (1.0 - uv.x) * disc, uv.y * (1.0 - disc), 0.5 + 0.5 * sin(t + 10.0 * uv.x), 1.0);
}
"""


def reference(frame, width=WIDTH, height=HEIGHT):
    """The scene's frame computed by numpy: [H, W, 4] uint8 (RGBA)."""
    y, x = numpy.mgrid[0:height, 0:width].astype(numpy.float32)
    u, v = x / numpy.float32(width), y / numpy.float32(height)
    t = numpy.float32(frame) * numpy.float32(0.1)
    dx = (u - (0.5 + 0.3 * numpy.cos(t))) * numpy.float32(width / height)
    dy = v - (0.5 + 0.3 * numpy.sin(t))
    disc = numpy.exp(-(dx * dx + dy * dy) * 40.0)
    rgba = numpy.stack([u + (1 - u) * disc, v * (1 - disc), 0.5 + 0.5 * numpy.sin(t + 10 * u), numpy.ones_like(u)], -1)
    return numpy.round(numpy.clip(rgba, 0, 1) * 255).astype(numpy.uint8)


def normalize(rgba_u8):
    """numpy's version of the tensor: [1, 3, H, W] float32, (x/255 - mean)/std."""
    x = rgba_u8[..., :3].astype(numpy.float32) / numpy.float32(255)
    return ((x - MEAN) / STD).transpose(2, 0, 1)[None].copy()


class Renderer:
    """Runs the scene shader on a compushady-style Texture2D."""

    def __init__(self, target):
        self.target = target
        self.compute = gfxcuda.Compute(gfxcuda.hlsl.compile(SCENE), uav=[target], push_size=4)

    def render(self, frame):
        self.compute.dispatch((self.target.width + 15) // 16, (self.target.height + 15) // 16, 1,
                              struct.pack("<I", frame))


def read_back(tex):
    """The texture's texels through Vulkan (a HEAP_READBACK buffer): [H, W, 4] uint8."""
    rb = gfxcuda.Buffer(tex.size, gfxcuda.HEAP_READBACK, device=tex.device)
    tex.copy_to(rb)
    rows = rb.readback2d(tex.row_pitch, tex.width, tex.height, 4)
    return numpy.frombuffer(rows, numpy.uint8).reshape(tex.height, tex.width, 4)


def check_frame(pixels, frame):
    """The largest difference to numpy's reference, which must be ≤ 1."""
    diff = int(numpy.abs(pixels.astype(numpy.int16) - reference(frame, pixels.shape[1], pixels.shape[0])).max())
    if diff > 1:
        raise AssertionError("frame %d differs from the reference by %d/255" % (frame, diff))
    return diff


def run_cuda(frames=10, out=print, converter="cuda"):
    """The whole path: render → CUDA → torch, checked. Returns the last
    tensor and the Vulkan readback of its frame."""
    import torch

    tex = gfxcuda.texture((HEIGHT, WIDTH, 4), format="rgba8_unorm")  # Vulkan + CUDA
    renderer = Renderer(tex.compute_view())  # the same memory, for Compute
    t = None
    start = time.perf_counter()
    for f in range(frames):
        renderer.render(f)
        # The fused conversion: the hand-off and one GPU pass write the
        # normalized [1, 3, H, W] float32 tensor, ordered on the legacy
        # default stream, which PyTorch uses. No host copy; t is reused.
        t = tex.to_tensor("float32", planar=True, channels=3, mean=MEAN, std=STD, converter=converter, out=t)
    x = torch.from_dlpack(t)  # zero-copy: the same memory
    torch.cuda.synchronize()
    fps = frames / (time.perf_counter() - start)

    pixels = read_back(renderer.target)  # the same frame, through Vulkan
    diff = check_frame(pixels, frames - 1)
    want = torch.from_numpy(normalize(pixels)).cuda()
    if not torch.allclose(x, want, rtol=0, atol=1e-5):
        raise AssertionError("the tensor differs from the Vulkan readback by %g" % (x - want).abs().max().item())
    out("%d frames → torch %s %s on %s (%s converter): checked against the Vulkan readback (scene within %d/255); "
        "%.0f frames/s" % (frames, list(x.shape), x.dtype, x.device, converter, diff, fps))
    return x, pixels


def run_cpu(frames=10, out=print, reason=""):
    """The Vulkan half on any device: render, read back, check, normalize
    in numpy. Returns the [1, 3, H, W] array and the frame's texels."""
    tex = gfxcuda.Texture2D(WIDTH, HEIGHT, gfxcuda.formats.R8G8B8A8_UNORM)
    renderer = Renderer(tex)
    for f in range(frames):
        renderer.render(f)
    pixels = read_back(tex)
    diff = check_frame(pixels, frames - 1)
    x = normalize(pixels)
    out("%d frames rendered on %s and read back: %s %s, checked (scene within %d/255)%s"
        % (frames, tex.device.name, list(x.shape), x.dtype, diff, "; skipped CUDA: " + reason if reason else ""))
    return x, pixels


def main(argv):
    frames = int(argv[argv.index("--frames") + 1]) if "--frames" in argv else 10
    reason = "--cpu" if "--cpu" in argv else ""
    if not reason and not gfxcuda.cuda_available():
        reason = "no CUDA driver or device"
    if not reason:
        try:
            import torch  # noqa: F401
        except ImportError:
            reason = "no torch"
    if reason:
        run_cpu(frames, reason=reason)
    else:
        run_cuda(frames, converter="vulkan" if "--vulkan" in argv else "cuda")


if __name__ == "__main__":
    main(sys.argv[1:])
