"""moderngl's frames in a compute shader and in torch, with gfxcuda.gl.

moderngl draws random triangles into its own framebuffer (a standalone EGL
context: no window); gfxcuda reads that texture where it is. Without CUDA
(any Vulkan GPU, or llvmpipe/lavapipe) the frame goes to a compute shader;
with CUDA and torch it becomes a torch tensor. Each frame is checked
against moderngl's own read-back.

    python3 gl_moderngl.py [--frames N] [--size WxH]
"""
import argparse
import sys

import moderngl
import numpy

import gfxcuda
import gfxcuda.gl

VS = "#version 330\nin vec2 p; in vec3 c; out vec3 v; void main() { gl_Position = vec4(p, 0, 1); v = c; }"
FS = "#version 330\nin vec3 v; out vec4 o; void main() { o = vec4(v, 1); }"


def draw(ctx, prog, fbo, seed):
    """One frame: random colored triangles."""
    rng = numpy.random.default_rng(seed)
    vbo = ctx.buffer(numpy.hstack([rng.uniform(-1, 1, (60, 2)), rng.uniform(0, 1, (60, 3))]).astype("f4"))
    vao = ctx.vertex_array(prog, [(vbo, "2f 3f", "p", "c")])
    fbo.use()
    fbo.clear(0.1, 0.1, 0.1, 1.0)
    vao.render()
    vao.release()
    vbo.release()


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--frames", type=int, default=3)
    ap.add_argument("--size", default="160x120")
    a = ap.parse_args(argv)
    w, h = (int(v) for v in a.size.split("x"))

    ctx = moderngl.create_standalone_context(backend="egl")  # current on this thread
    prog = ctx.program(vertex_shader=VS, fragment_shader=FS)
    tex = ctx.texture((w, h), 4)
    fbo = ctx.framebuffer(color_attachments=[tex])

    src = gfxcuda.gl.texture(tex.glo)  # size and format asked from GL
    print(src)
    torch = None
    if gfxcuda.cuda_available():
        try:
            import torch
        except ImportError:
            pass
    for frame in range(a.frames):
        draw(ctx, prog, fbo, frame)
        want = numpy.frombuffer(tex.read(), numpy.uint8).reshape(h, w, 4)  # moderngl's read-back
        if torch is not None:
            x = torch.from_dlpack(src.to_tensor(flip_y=False))  # (H, W, 4) uint8 on the GPU
            ok = torch.equal(x.cpu(), torch.from_numpy(want.copy()))
            print("frame %d: torch %s %s, equal to moderngl's read-back: %s" % (frame, tuple(x.shape), x.device, ok))
        else:
            view = src.compute_view()  # a Texture2D: bind it in gfxcuda.Compute
            rb = gfxcuda.Buffer(w * h * 4, gfxcuda.HEAP_READBACK)
            view.copy_to(rb)
            got = numpy.frombuffer(rb.readback(), numpy.uint8).reshape(h, w, 4)
            ok = bool((got == want).all())
            print("frame %d: compute view %dx%d, equal to moderngl's read-back: %s" % (frame, view.width, view.height, ok))
        if not ok:
            return 1
    src.release()
    return 0


if __name__ == "__main__":
    sys.exit(main())
