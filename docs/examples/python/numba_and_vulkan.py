"""Numba and Vulkan: a Numba CUDA kernel edits a Vulkan buffer in place, a
Vulkan compute shader then draws the edited buffer into a texture, and the
texture is read back through Vulkan and checked byte for byte. Then the
same buffer is shared with another process: a producer process edits it
with Numba, a consumer process draws it with Vulkan; both are started with
the spawn method, as a Jupyter notebook would start them.

Without CUDA (or Numba) it runs the Vulkan half on any device, lavapipe
included, with numpy doing the kernel's work.

    python3 numba_and_vulkan.py [--height H] [--width W] [--cpu]

See docs/numba-and-vulkan.md.
"""

import gc
import multiprocessing
import sys
import weakref

import numpy

import gfxcuda

try:
    if not hasattr(numpy, "row_stack"):
        numpy.row_stack = numpy.vstack  # Numba 0.68 still calls it; numpy 2.5 removed it
    from numba import cuda
except ImportError:
    cuda = None  # no Numba: the Vulkan half still runs

HEIGHT, WIDTH = 480, 640
BLOCK = (16, 16)


def inputs(shape, seed):
    """The picture (packed RGBA8 pixels as uint32, random) and the kernel's key."""
    rng = numpy.random.default_rng(seed)
    pixels = rng.integers(0, 2**32, shape, dtype=numpy.uint32)
    key = rng.integers(1, 2**32, dtype=numpy.uint32)
    return pixels, key


def reference(pixels, key):
    """What the kernel computes, in numpy: [H, W, 4] bytes (R, G, B, A)."""
    edited = pixels ^ key
    return edited.view(numpy.uint8).reshape(pixels.shape + (4,))


if cuda is not None:
    @cuda.jit
    def edit(img, key):
        """CUDA: every pixel of img ([H, W] uint32) is XORed with key, in
        place (key 0x00FFFFFF would invert the colours and keep alpha)."""
        x, y = cuda.grid(2)
        if y < img.shape[0] and x < img.shape[1]:
            img[y, x] ^= key


def grid(shape):
    """Numba's launch grid covering [H, W] with BLOCK threads per block."""
    return ((shape[1] + BLOCK[0] - 1) // BLOCK[0], (shape[0] + BLOCK[1] - 1) // BLOCK[1])


# Vulkan's side: a compute shader draws the buffer (t0, packed RGBA8 per
# pixel) into an R8G8B8A8_UINT texture (u0), as a renderer would use it.
DRAW = """
ByteAddressBuffer pixels : register(t0);
RWTexture2D<uint4> image : register(u0);

[numthreads(8, 8, 1)]
void main(uint3 id : SV_DispatchThreadID) {
    uint w, h;
    image.GetDimensions(w, h);
    if (id.x >= w || id.y >= h) return;
    uint p = pixels.Load((id.y * w + id.x) * 4);
    image[id.xy] = uint4(p & 0xff, (p >> 8) & 0xff, (p >> 16) & 0xff, p >> 24);
}
"""


def upload(buffer, array):
    """Writes array into a compushady Buffer through Vulkan (a staging buffer
    and a copy), as a renderer fills its buffers."""
    staging = gfxcuda.Buffer(array.nbytes, gfxcuda.HEAP_UPLOAD, device=buffer.device)
    staging.upload(array.tobytes())
    staging.copy_to(buffer)


def new_image(shape, device):
    """An R8G8B8A8_UINT texture of [H, W] filled with random bytes, so that a
    draw that did not happen cannot pass the check."""
    image = gfxcuda.Texture2D(shape[1], shape[0], gfxcuda.formats.R8G8B8A8_UINT, device=device)
    upload(image, numpy.random.default_rng().integers(0, 256, image.size, dtype=numpy.uint8))
    return image


def draw(pixels, image):
    """Vulkan: the compute shader reads pixels (a compushady Buffer) and
    draws them into image."""
    k = gfxcuda.Compute(gfxcuda.hlsl.compile(DRAW), srv=[pixels], uav=[image])
    k.dispatch((image.width + 7) // 8, (image.height + 7) // 8, 1)


def read_image(image):
    """The texture's texels through Vulkan (a HEAP_READBACK buffer): [H, W, 4] uint8."""
    rb = gfxcuda.Buffer(image.size, gfxcuda.HEAP_READBACK, device=image.device)
    image.copy_to(rb)
    rows = rb.readback2d(image.row_pitch, image.width, image.height, 4)
    return numpy.frombuffer(rows, numpy.uint8).reshape(image.height, image.width, 4)


def check(got, want, what):
    if not numpy.array_equal(got, want):
        bad = int(numpy.count_nonzero(got != want))
        raise AssertionError("%s: %d of %d bytes differ from numpy's reference" % (what, bad, want.size))


def run(shape=(HEIGHT, WIDTH), seed=None, out=print):
    """One process: Vulkan writes the buffer, Numba edits it in place,
    Vulkan draws it. Returns the texels read back."""
    pixels, key = inputs(shape, seed)
    buf = gfxcuda.SharedBuffer(shape, "uint32")  # Vulkan memory that CUDA sees
    view = buf.compute_view()                     # the same memory, as a compushady Buffer
    upload(view, pixels)                          # 1. Vulkan writes it

    stream = cuda.stream()
    with buf.to_cuda(stream):                     # 2. Vulkan hands it to CUDA on stream
        img = cuda.as_cuda_array(buf, sync=False)  # a Numba array over the same memory
        edit[grid(shape), BLOCK, stream](img, key)  # 3. edited in place, on stream
    # 4. Leaving the block hands the buffer back to Vulkan once the stream's
    # work is done; the next Vulkan submission waits for that on the GPU.

    image = new_image(shape, view.device)
    draw(view, image)                             # 5. Vulkan uses the edited buffer
    got = read_image(image)
    check(got, reference(pixels, key), "the image Vulkan drew")
    out("%dx%d: Numba edited a Vulkan buffer in place, Vulkan drew it; every byte checked" % (shape[1], shape[0]))
    return got


def run_vulkan(shape=(HEIGHT, WIDTH), seed=None, out=print, reason=""):
    """The Vulkan half on any device (lavapipe included): numpy does the
    kernel's work, Vulkan draws the buffer, the texels are checked."""
    pixels, key = inputs(shape, seed)
    buf = gfxcuda.Buffer(pixels.nbytes)
    upload(buf, pixels ^ key)
    image = new_image(shape, buf.device)
    draw(buf, image)
    got = read_image(image)
    check(got, reference(pixels, key), "the image Vulkan drew")
    out("%dx%d drawn on %s and checked; skipped CUDA: %s" % (shape[1], shape[0], buf.device.name, reason))
    return got


def lifetimes(out=print):
    """What keeps a shared buffer's memory alive while Numba uses it."""
    gc.collect()                        # earlier garbage first: the count below is buf's
    buf = gfxcuda.SharedBuffer((64, 64), "uint32")
    held = gfxcuda.live_handles()       # library objects alive now, buf included
    img = cuda.as_cuda_array(buf)       # Numba's array holds buf (its owner)
    alive = weakref.ref(buf)
    del buf
    assert alive() is not None          # still there: img holds it
    img.copy_to_host()                  # and so is its memory
    del img                             # the last reference: buf's finalizer frees the memory
    gc.collect()
    assert alive() is None and gfxcuda.live_handles() == held - 1
    out("lifetimes: the buffer lived as long as Numba's array, and was freed with it")


# Two processes. The functions a spawned process runs must be importable
# from a module (this file), not defined in a notebook cell or under
# `if __name__ == "__main__"`.
def producer(shape, seed, tokens, opened):
    """Process 1: makes the buffer, fills it through Vulkan, edits it with
    Numba and shares it."""
    pixels, key = inputs(shape, seed)
    buf = gfxcuda.SharedBuffer(shape, "uint32")
    upload(buf.compute_view(), pixels)
    stream = cuda.stream()
    with buf.to_cuda(stream):
        edit[grid(shape), BLOCK, stream](cuda.as_cuda_array(buf, sync=False), key)
    stream.synchronize()     # no other process can wait on this stream: finish first
    tokens.put(buf.ipc_handle)  # a token (bytes), valid while buf lives
    opened.wait(120)         # keep buf until the consumer has opened it
    # Returning frees this process's buffer; the consumer's import keeps the memory.


def consumer(shape, tokens, opened, go, images):
    """Process 2: opens the buffer and draws it with Vulkan. Puts the
    texels (or why it failed) on images."""
    try:
        buf = gfxcuda.open_ipc_buffer(tokens.get(timeout=120), shape, "uint32")
        opened.set()
        go.wait(120)         # the main process saw the producer exit
        view = buf.compute_view()
        image = new_image(shape, view.device)
        draw(view, image)
        images.put(read_image(image))
    except Exception as e:
        opened.set()
        images.put("%s: %s" % (type(e).__name__, e))


def two_processes(shape=(HEIGHT, WIDTH), seed=None, out=print):
    """Starts a producer and a consumer with the spawn method and checks
    what the consumer drew. Returns it."""
    seed = numpy.random.SeedSequence(seed).entropy  # one seed for both sides
    ctx = multiprocessing.get_context("spawn")     # never fork: see docs/numba-and-vulkan.md
    tokens, images = ctx.Queue(), ctx.Queue()
    opened, go = ctx.Event(), ctx.Event()
    p = ctx.Process(target=producer, args=(shape, seed, tokens, opened))
    c = ctx.Process(target=consumer, args=(shape, tokens, opened, go, images))
    p.start()
    c.start()
    p.join(180)
    if p.exitcode != 0:
        p.kill()
        c.kill()
        raise RuntimeError("the producer failed (exit code %s)" % p.exitcode)
    go.set()                 # the consumer draws after the producer is gone
    got = images.get(timeout=180)
    c.join(60)
    if isinstance(got, str):
        raise RuntimeError("the consumer failed: " + got)
    pixels, key = inputs(shape, seed)
    check(got, reference(pixels, key), "the image the consumer drew")
    out("two processes: Numba edited the buffer in one, Vulkan drew it in the other; every byte checked")
    return got


def main(argv):
    shape = (int(argv[argv.index("--height") + 1]) if "--height" in argv else HEIGHT,
             int(argv[argv.index("--width") + 1]) if "--width" in argv else WIDTH)
    reason = "--cpu" if "--cpu" in argv else "no Numba" if cuda is None else ""
    if not reason and not gfxcuda.cuda_available():
        reason = "no CUDA driver or device"
    if reason:
        run_vulkan(shape, reason=reason)
        return
    run(shape)
    lifetimes()
    two_processes(shape)


if __name__ == "__main__":
    main(sys.argv[1:])
