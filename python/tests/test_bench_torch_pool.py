"""python/bench/torch_pool.py runs (a smoke run: --quick) and checks its
round trips' values itself. It asserts no timings: those are the
benchmark's to report (BENCHMARKS.md)."""

import os
import subprocess
import sys

import pytest

from conftest import need_cuda

here = os.path.dirname(os.path.abspath(__file__))
bench = os.path.join(here, "..", "bench", "torch_pool.py")


def test_torch_pool_bench_quick():
    need_cuda()
    pytest.importorskip("torch")
    r = subprocess.run([sys.executable, bench, "--quick"], capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    for name in ("training step, torch's default allocator", "training step, gfxcuda.torch_pool()",
                 "from_torch, first call", "from_torch, cached call", "round trip   1 MiB: from_torch",
                 "round trip   1 MiB: copy in/out"):
        assert name in r.stdout, r.stdout
