#!/usr/bin/env python3
"""An experiment, not a benchmark of record (branch gl-direct): where a
per-frame to_tensor's time goes, phase by phase, in a plain loop on
gl_renderer's scene and EGL context: to_tensor (host, until it returns),
torch.from_dlpack, torch.cuda.synchronize, dropping the previous frame's
pair, then a tiny kernel + synchronize (what the caller's first CUDA work
after GL pays). GFXCUDA_GL_WRITE=0 compares the CUDA converter; REGISTER=1
registers the texture with CUDA first (as (c') does in gl_renderer).
Medians of 100 frames after 30, µs, at 64x64 and 1080p; every run checks
the last frame and a batch of two against glReadPixels."""
import os, sys, time, statistics
here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
sys.path.insert(0, os.path.join(here, ".."))
os.environ.setdefault("PYOPENGL_PLATFORM", "egl")
os.environ.setdefault("GFXCUDA_VALIDATION", "0")
import torch
import gl_renderer as gr

torch.cuda.init()
info = gr.egl_context(torch.cuda.current_device(), None)
gr.pyopengl_compat()
from OpenGL import GL  # noqa: E402
import gfxcuda  # noqa: E402
import gfxcuda.gl  # noqa: E402

raw = gr.RawGL()
scene = gr.Scene(GL, raw)
mode = os.environ.get("GFXCUDA_GL_WRITE", "1")
for (w, h) in ((64, 64), (1920, 1080)):
    scene.resize(w, h, 2)
    srcs = [gfxcuda.gl.texture(t) for t, f in scene.slots]
    src = srcs[0]
    if os.environ.get("REGISTER") == "1":
        keep = torch.empty((h, w, 4), dtype=torch.uint8, device="cuda")
        src.to_tensor(out=keep)
        torch.cuda.synchronize()
    ph = [[] for _ in range(5)]
    prev = None
    ok = False
    for k in range(130):
        scene.draw(0, k)
        raw.glFinish()
        t0 = time.perf_counter_ns()
        out = src.to_tensor()
        t1 = time.perf_counter_ns()
        x = torch.from_dlpack(out)
        t2 = time.perf_counter_ns()
        torch.cuda.synchronize()
        t3 = time.perf_counter_ns()
        prev = (out, x)
        t4 = time.perf_counter_ns()
        small = torch.ones(4, device="cuda")
        small.add_(1)
        torch.cuda.synchronize()
        t5 = time.perf_counter_ns()
        if k >= 30:
            for i, d in enumerate((t1 - t0, t2 - t1, t3 - t2, t4 - t3, t5 - t4)):
                ph[i].append(d / 1e3)
        if k == 129:
            ref = torch.from_numpy(scene.readback(0)[::-1].copy()).cuda()
            ok = torch.equal(x, ref)
    scene.draw(0, 1)
    scene.draw(1, 2)
    raw.glFinish()
    try:
        bt = torch.from_dlpack(gfxcuda.gl.to_tensors(srcs))
        r0 = torch.from_numpy(scene.readback(0)[::-1].copy()).cuda()
        r1 = torch.from_numpy(scene.readback(1)[::-1].copy()).cuda()
        batch = "batch of 2 equal: %s" % (torch.equal(bt[0], r0) and torch.equal(bt[1], r1))
    except Exception as e:
        batch = "batch failed: %s" % e
    print("REGISTER=%s GL_WRITE=%s %dx%d: to_tensor %.0f, from_dlpack %.0f, synchronize %.0f, drop previous %.0f, "
          "next tiny kernel+sync %.0f us; equal %s; %s" % (
              os.environ.get("REGISTER", "0"), mode, w, h, *[statistics.median(p) for p in ph], ok, batch))
