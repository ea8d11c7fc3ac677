"""python/bench/gl_tiles.py (tiled GL frames into torch, issues 32 and 35)
runs as a smoke test (--tiny): its PyOpenGL scene over an atlas on a
headless EGL context (llvmpipe here), each method's tiles compared with the
tiles of glReadPixels, exit 0. Where CUDA and torch are, the CUDA methods
((a), (b) and gfxcuda's (t), (tc)) must have run and passed their checks.
The tiles the script cuts out of a readback (what every method is compared
with) are checked here against a plain loop. No timings are asserted."""

import importlib.util
import json
import os
import sys

import pytest

from conftest import HAVE_CUDA, run_gl_bench

here = os.path.dirname(os.path.abspath(__file__))
bench_dir = os.path.join(here, "..", "bench")
CASES = ("64x64x13", "32x16x300")


def test_tiles_of_cuts_each_tile_flipped():
    np = pytest.importorskip("numpy")
    sys.path.insert(0, bench_dir)
    try:
        import gl_tiles
    finally:
        sys.path.remove(bench_dir)
    rng = np.random.default_rng(7)
    for w, h, n in ((8, 4, 13), (16, 3, 300), (4, 4, 1)):
        cols, rows = gl_tiles.grid(w, n)
        assert cols * w <= gl_tiles.MAX_ATLAS_WIDTH and cols * rows >= n > cols * (rows - 1)
        rb = rng.integers(0, 256, (rows * h, cols * w, 4), dtype=np.uint8)
        got = gl_tiles.tiles_of(np, rb, w, h, cols, rows, n)
        assert got.shape == (n, h, w, 4)
        for v in range(n):
            tx, ty = v % cols, v // cols
            want = rb[ty * h:(ty + 1) * h, tx * w:(tx + 1) * w][::-1]
            assert np.array_equal(got[v], want), (w, h, n, v)


def test_gl_tiles_bench_tiny(tmp_path):
    pytest.importorskip("numpy")
    out = tmp_path / "tiles.json"
    r = run_gl_bench("gl_tiles.py", "--tiny", "--json", out)
    assert r.returncode == 0, r.stdout + r.stderr
    res = json.loads(out.read_text())
    assert not res["failures"], res["failures"]
    cuda = HAVE_CUDA and importlib.util.find_spec("torch") is not None
    want = ["a0"] + (["a", "b", "t", "tc"] if cuda else [])
    for case in CASES:
        for m in want:
            c = res["checks"].get("%s %s" % (case, m))
            assert c and c["ok"] == c["checked"] == 3, (case, m, res["checks"], r.stdout)
    if not cuda:
        assert "(a), (b), (t), (tc) skipped" in r.stdout, r.stdout
