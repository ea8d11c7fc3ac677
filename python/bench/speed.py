#!/usr/bin/env python3
"""Speed of gfxcuda from Python (issue 11, item 4), on a GPU machine:
  torch.from_dlpack(buf)          target <= 10 us
  tex.copy_to(t) Python overhead  target <= 20 us on top of the C call
  Compute.dispatch                target <= 1.2x the Go figure (GFXCUDA_GO_DISPATCH_US)
Prints one line per figure (median of many runs)."""

import ctypes
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import gfxcuda  # noqa: E402
from gfxcuda import _lib  # noqa: E402


def median_us(f, n=2000, warm=50):
    for _ in range(warm):
        f()
    ts = []
    for _ in range(n):
        t0 = time.perf_counter_ns()
        f()
        ts.append(time.perf_counter_ns() - t0)
    return statistics.median(ts) / 1000


def line(name, us, target=None):
    verdict = "" if target is None else ("  (target <= %.1f us: %s)" % (target, "met" if us <= target else "NOT met"))
    print("%-40s %9.2f us%s" % (name, us, verdict))


def main():
    dev = gfxcuda.get_current_device()
    b = gfxcuda.Buffer(4096, stride=4)
    k = gfxcuda.Compute(gfxcuda.hlsl.compile("""
    RWStructuredBuffer<uint> b : register(u0);
    [numthreads(64,1,1)] void main(uint3 t : SV_DispatchThreadID) { b[t.x] += 1; }"""), uav=[b])
    us = median_us(lambda: k.dispatch(16, 1, 1), n=500)
    go = os.environ.get("GFXCUDA_GO_DISPATCH_US")
    line("Compute.dispatch (%s)" % dev.name, us, 1.2 * float(go) if go else None)
    if not gfxcuda.cuda_available():
        print("no CUDA: the DLPack and texture figures need the GPU machine")
        return
    try:
        import torch
    except ImportError:
        print("no torch: skipping the DLPack and texture figures")
        return
    buf = gfxcuda.SharedBuffer((1 << 20,), "float32")
    line("torch.from_dlpack(SharedBuffer)", median_us(lambda: torch.from_dlpack(buf)), 10)
    line("SharedBuffer.__dlpack__ alone", median_us(lambda: buf.__dlpack__(max_version=(1, 0), stream=1)))
    t = torch.zeros((1080, 1920, 4), dtype=torch.uint8, device="cuda")
    tex = gfxcuda.texture(t)
    ptr = t.data_ptr()
    # Copies are queued on the legacy default stream (no host wait): these
    # figures are the host cost of queueing one; the last is the whole copy.
    total = median_us(lambda: tex.copy_to(ptr), n=500)
    torch.cuda.synchronize()
    raw = median_us(lambda: _lib.lib.gfxcuda_shared_texture_copy(tex.handle, ptr, 0, 1, 0), n=500)
    torch.cuda.synchronize()
    line("tex.copy_to(ptr) 1920x1080 rgba8, queued", total)
    line("  the C call alone", raw)
    line("  Python overhead", max(total - raw, 0), 20)
    total_t = median_us(lambda: tex.copy_to(t), n=500)
    torch.cuda.synchronize()
    line("  Python overhead, tensor argument", max(total_t - raw, 0), 20)
    with tex:
        inside = median_us(lambda: tex.copy_to(ptr), n=500)
        torch.cuda.synchronize()
    line("tex.copy_to(ptr) inside `with tex:`", inside)

    def whole():
        tex.copy_to(ptr)
        torch.cuda.synchronize()
    line("tex.copy_to(ptr) + synchronize", median_us(whole, n=300))
    _ = ctypes


if __name__ == "__main__":
    main()
