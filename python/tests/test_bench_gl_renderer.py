"""python/bench/gl_renderer.py (issue 32's benchmark) runs as a smoke test
(--tiny): it draws its PyOpenGL scene on a headless EGL context (llvmpipe
here, the GPU's driver on the GPU machine), compares each method's frames
with glReadPixels itself, and exits 0. This test checks the frames it saved
were drawn (far from constant, two seeds differ) and, where CUDA and torch
are, that the CUDA methods (a) and (b) ran and passed their checks. It
asserts no timings: those are the benchmark's to report (BENCHMARKS.md)."""

import importlib.util
import json

import pytest

from conftest import HAVE_CUDA, run_gl_bench

SIZES = ((64, 64), (256, 256), (1920, 1080))


def test_gl_renderer_bench_tiny(tmp_path):
    np = pytest.importorskip("numpy")
    frames, out = tmp_path / "frames", tmp_path / "gl.json"
    r = run_gl_bench("gl_renderer.py", "--tiny", "--save-frames", frames, "--json", out)
    assert r.returncode == 0, r.stdout + r.stderr
    for w, h in SIZES:
        first = np.load(frames / ("frame_%dx%d_first.npy" % (w, h)))
        last = np.load(frames / ("frame_%dx%d_last.npy" % (w, h)))
        assert first.shape == (h, w, 4) and first.dtype == np.uint8, first.shape
        colors = len(np.unique(first.reshape(-1, 4).view(np.uint32)))
        assert colors >= min(1000, w * h // 4), "frame %dx%d has %d distinct colours" % (w, h, colors)
        differ = np.count_nonzero(np.any(first != last, axis=2))
        assert differ > w * h // 2, "two frames of %dx%d differ in only %d pixels" % (w, h, differ)
    res = json.loads(out.read_text())
    assert not res["failures"], res["failures"]
    assert res["checks"] and all(c["ok"] == c["checked"] > 0 for c in res["checks"].values()), res["checks"]
    ran = {(x["method"], x["size"]) for x in res["results"]}
    want = ["a0"] + (["a", "b"] if HAVE_CUDA and importlib.util.find_spec("torch") else [])
    for m in want:
        for w, h in SIZES:
            assert (m, "%dx%d" % (w, h)) in ran, (m, w, h, r.stdout)
    if "a" not in want:
        assert "(a)/(b)/(c)/(d) skipped" in r.stdout, r.stdout
