#!/usr/bin/env python3
"""Tiled GL frames into torch (issues 32 and 35): a GL renderer that draws
its environments' views into one atlas, per step, into one
(N, H, W, 4) uint8 torch tensor of the views.
    python bench/gl_tiles.py [--cases 64x64x256,64x64x1024,64x64x4096,128x128x1024]
        [--frames 50] [--warmup 5] [--json out.json] [--tiny] [--seed S]
        [--egl-device N] [--only KEYS]
The renderer is gl_renderer.py's PyOpenGL scene (random triangles and hash
noise, a new seed each step: never constant data) drawn over the whole
atlas, an RGBA8 texture of cols x rows tiles (cols = min(N, 8192 / W)) on
the headless EGL context gl_renderer.py makes (torch's GPU first). Each
step is drawn (glFinish: the draw is not timed), then one method brings
its first N tiles into a CUDA tensor, each tile flipped (top row first),
timed until the tensor is complete (torch.cuda.synchronize):
  (a0) glReadPixels -> numpy, the tiles cut out by numpy: the host half of
       (a), no CUDA (also on the CPU machine)
  (a)  glReadPixels -> numpy -> torch.from_numpy(...).cuda(), the tiles cut
       out by torch (view, permute, flip, contiguous): what users do today
  (b)  a pixel-pack buffer registered once with CUDA, glReadPixels into it,
       map, cuMemcpyDtoDAsync into a torch tensor, unmap, the tiles cut out
       by torch (IsaacTeleop#938's way, the best peer)
  (t)  gfxcuda: src = gfxcuda.gl.texture(atlas) once, each step
       src.to_torch(tiles=(cols, rows, N)): GL's compute shader writes the
       (N, H, W, 4) tensor into memory CUDA shares, one dispatch
  (tc) the same as (N, 3, H, W) (layout="chw", channels=3)
Methods run alternately in the same steps. Every element of each method's
tensor is compared with the tiles of glReadPixels of the same step on the
first warm-up step and the first and last timed ones. Prints per case the
median us per step, env-frames/s (N / time) and (a)/(t), (b)/(t); --json
FILE writes the same. Without CUDA or torch only (a0) runs (a smoke test:
python/tests/test_bench_gl_tiles.py, on llvmpipe in CI). Exit status: 0,
1 when a check failed, 3 when no EGL context could be made.
On the GPU machine: bash .gpu/quick.sh --bench gl_tiles --json $OUT/gl-tiles.json
"""
import argparse
import json
import os
import statistics
import sys
import time

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
import gl_renderer as gr  # noqa: E402  (its context, scene, CUDA calls; sets the environment as it does)

MAX_ATLAS_WIDTH = 8192


def parse_case(s):
    try:
        w, h, n = (int(v) for v in s.lower().split("x"))
    except ValueError:
        raise SystemExit("--cases: %r is not WxHxN (e.g. 64x64x4096)" % s)
    if w <= 0 or h <= 0 or n <= 0 or w > MAX_ATLAS_WIDTH:
        raise SystemExit("--cases: %r: want positive sizes, W at most %d" % (s, MAX_ATLAS_WIDTH))
    return w, h, n


def grid(w, n):
    cols = min(n, MAX_ATLAS_WIDTH // w)
    return cols, -(-n // cols)


def tiles_of(np, rb, w, h, cols, rows, n):
    """The first n tiles of a readback (GL's row order), each flipped."""
    t = rb.reshape(rows, h, cols, w, 4).transpose(0, 2, 1, 3, 4).reshape(rows * cols, h, w, 4)[:n]
    return np.ascontiguousarray(t[:, ::-1])


class Case:
    def __init__(self, scene, w, h, n):
        self.w, self.h, self.n = w, h, n
        self.cols, self.rows = grid(w, n)
        self.scene = scene
        scene.resize(self.cols * w, self.rows * h, 1)
        self.tex = scene.slots[0][0]


class Method:
    key = label = ""
    chw = False

    def setup(self, case):
        self.c = case

    def run(self):
        raise NotImplementedError

    def teardown(self):
        pass


class HostTiles(Method):
    key, label = "a0", "(a0) glReadPixels -> numpy tiles (no CUDA)"

    def setup(self, case):
        self.c = case
        import numpy
        self.np = numpy
        self.rb = numpy.empty((case.rows * case.h, case.cols * case.w, 4), numpy.uint8)

    def run(self):
        c = self.c
        c.scene.readback(0, self.rb)
        return tiles_of(self.np, self.rb, c.w, c.h, c.cols, c.rows, c.n)


def torch_tiles(t, c):
    return t.view(c.rows, c.h, c.cols, c.w, 4).permute(0, 2, 1, 3, 4).reshape(c.rows * c.cols, c.h, c.w, 4)[:c.n] \
        .flip(1).contiguous()


class ReadPixelsTiles(HostTiles):
    key, label = "a", "(a) glReadPixels -> .cuda() -> torch tiles"

    def __init__(self, torch):
        self.torch = torch

    def run(self):
        c = self.c
        c.scene.readback(0, self.rb)
        return torch_tiles(self.torch.from_numpy(self.rb).cuda(), c)


class PixelPackTiles(Method):
    key, label = "b", "(b) PBO registered once, map/copy/unmap, torch tiles"

    def __init__(self, torch, cu):
        self.pbo = gr.PixelPackBuffer(torch, cu)

    def setup(self, case):
        self.c = case
        self.pbo.setup(case.scene)

    def run(self):
        self.pbo.run()
        return torch_tiles(self.pbo.dst, self.c)

    def teardown(self):
        self.pbo.teardown()


class GfxcudaTiles(Method):
    key, label = "t", "(t) gfxcuda to_torch(tiles=...), (N, H, W, 4)"

    def __init__(self, glmod):
        self.glmod = glmod

    def setup(self, case):
        self.c = case
        self.src = self.glmod.texture(case.tex)
        self.tiles = (case.cols, case.rows, case.n)

    def run(self):
        return self.src.to_torch(tiles=self.tiles)

    def teardown(self):
        self.src = None


class GfxcudaTilesCHW(GfxcudaTiles):
    key, label = "tc", "(tc) the same as (N, 3, H, W)"
    chw = True

    def run(self):
        return self.src.to_torch(tiles=self.tiles, layout="chw", channels=3)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cases", default="64x64x256,64x64x1024,64x64x4096,128x128x1024")
    ap.add_argument("--frames", type=int, default=50, help="timed steps per method and case")
    ap.add_argument("--warmup", type=int, default=5, help="untimed steps first")
    ap.add_argument("--json", help="also write the results here")
    ap.add_argument("--tiny", action="store_true", help="a few small steps (a smoke test)")
    ap.add_argument("--seed", type=int, help="base seed (default: random)")
    ap.add_argument("--egl-device", type=int, help="EGL device index (default: the one torch's CUDA device is)")
    ap.add_argument("--only", help="comma-separated method keys to run (default: all)")
    a = ap.parse_args(argv)
    if a.tiny:
        a.frames, a.warmup = 3, 1
        if a.cases == ap.get_default("cases"):
            a.cases = "64x64x13,32x16x300"
    cases = [parse_case(s) for s in a.cases.split(",") if s]
    base = a.seed if a.seed is not None else int.from_bytes(os.urandom(4), "little") & 0x7FFFFFFF

    import numpy as np

    notes = []
    torch = cu = glmod = None
    try:
        import torch
        if not torch.cuda.is_available():
            raise gr.Skip("torch.cuda.is_available() is False")
        cu = gr.CudaDriver(torch)
    except Exception as e:
        torch = None
        notes.append("no CUDA (%s): (a), (b), (t), (tc) skipped" % e)
        if os.environ.get("GFXCUDA_REQUIRE_CUDA") == "1":
            print("GFXCUDA_REQUIRE_CUDA=1 but %s" % notes[-1], file=sys.stderr)
            return gr.EXIT_CHECK
    if torch is not None:
        try:
            import gfxcuda.gl as glmod
        except Exception as e:
            notes.append("gfxcuda.gl not available: (t), (tc) skipped (%s)" % e)
    try:
        info, GL, raw = gr.open_gl(None if torch is None else torch.cuda.current_device(), a.egl_device)
    except gr.NoGL as e:
        print("no GL: %s" % e, file=sys.stderr)
        return gr.EXIT_NO_GL
    close_egl = info.pop("close")
    renderer = GL.glGetString(GL.GL_RENDERER)
    info["gl_renderer"] = renderer.decode() if isinstance(renderer, bytes) else str(renderer)
    print("GL: %s (%s); %d timed + %d warm-up steps per method and case; seed %d" % (
        info["gl_renderer"], info["egl"], a.frames, a.warmup, base))
    for line in notes:
        print(line)

    methods = [HostTiles()]
    if torch is not None:
        methods += [ReadPixelsTiles(torch), PixelPackTiles(torch, cu)]
        if glmod is not None:
            methods += [GfxcudaTiles(glmod), GfxcudaTilesCHW(glmod)]
    if a.only:
        keep = set(a.only.split(","))
        methods = [m for m in methods if m.key in keep]

    scene = gr.Scene(GL, raw)
    results, failures, checks = [], [], {}
    reps = a.warmup + a.frames
    checked = {0, a.warmup, reps - 1}
    seed = base
    try:
        for w, h, n in cases:
            case = Case(scene, w, h, n)
            name = "%dx%dx%d" % (w, h, n)
            live, times = [], {}
            for m in methods:
                try:
                    m.setup(case)
                    live.append(m)
                    times[m.key] = []
                except Exception as e:
                    failures.append("%s %s: setup: %s" % (name, m.key, e))
            for rep in range(reps):
                for m in list(live):
                    seed += 1
                    scene.draw(0, seed)
                    raw.glFinish()
                    try:
                        t0 = time.perf_counter()
                        out = m.run()
                        if torch is not None:
                            torch.cuda.synchronize()
                        dt = time.perf_counter() - t0
                    except Exception as e:
                        failures.append("%s %s: %s" % (name, m.key, e))
                        live.remove(m)
                        continue
                    if rep >= a.warmup:
                        times[m.key].append(dt)
                    if rep in checked:
                        want = tiles_of(np, scene.readback(0), w, h, case.cols, case.rows, n)
                        if m.chw:
                            want = np.ascontiguousarray(want[..., :3].transpose(0, 3, 1, 2))
                        got = out.cpu().numpy() if hasattr(out, "cpu") else out
                        ok = got.shape == want.shape and np.array_equal(got, want)
                        k = "%s %s" % (name, m.key)
                        c = checks.setdefault(k, {"checked": 0, "ok": 0})
                        c["checked"] += 1
                        c["ok"] += ok
                        if not ok:
                            bad = "shape %s, want %s" % (got.shape, want.shape) if got.shape != want.shape else \
                                "%d of %d elements differ" % (np.count_nonzero(got != want), want.size)
                            failures.append("%s: step %d: %s" % (k, rep, bad))
                    del out
            for m in methods:
                if m in live:
                    m.teardown()
                if times.get(m.key):
                    us = statistics.median(times[m.key]) * 1e6
                    results.append({"case": name, "method": m.key, "label": m.label, "us_per_step": us,
                                    "env_frames_per_s": n / us * 1e6, "atlas": "%dx%d" % (case.cols * w, case.rows * h)})
            print("\n%s: %d views of %dx%d in a %dx%d atlas" % (name, n, w, h, case.cols * w, case.rows * h))
            by = {r["method"]: r for r in results if r["case"] == name}
            for r in by.values():
                extra = ""
                if r["method"] in ("t", "tc"):
                    extra = "  ".join("(%s)/(%s) %.1fx" % (k, r["method"], by[k]["us_per_step"] / r["us_per_step"])
                                      for k in ("a", "b") if k in by)
                print("  %-48s %10.1f us/step %14.0f env-frames/s  %s" % (r["label"], r["us_per_step"],
                                                                          r["env_frames_per_s"], extra))
    finally:
        scene.close()
        close_egl()
    for f in failures:
        print("FAILED: %s" % f, file=sys.stderr)
    if a.json:
        with open(a.json, "w") as fh:
            json.dump({"info": info, "seed": base, "frames": a.frames, "results": results, "failures": failures,
                       "checks": checks, "notes": notes}, fh, indent=1)
    return gr.EXIT_CHECK if failures else 0


if __name__ == "__main__":
    sys.exit(main())
