#!/usr/bin/env python3
"""Speed of gfxcuda from Python (issue 11, item 4), on a GPU machine:
  torch.from_dlpack(buf)          target <= 10 us
  tex.copy_to(t) Python overhead  target <= 20 us on top of the C call
  Compute.dispatch(1,1,1) waited  target <= 1.2x the Go figure (GFXCUDA_GO_DISPATCH_US,
                                  or `gfxcuda bench --only compute` when the CLI is found)
Prints one line per figure (median of many runs)."""

import os
import re
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
# Timings with the Vulkan validation layer on measure the layer (tens of us
# per submit), not gfxcuda; the GPU test script exports
# GFXCUDA_VALIDATION=1 for the tests. Set before the library loads (Go reads
# the environment then); the Go figure's CLI inherits it, so both compare
# alike. GFXCUDA_SPEED_VALIDATION=1 keeps it on.
if os.environ.get("GFXCUDA_SPEED_VALIDATION") != "1":
    os.environ["GFXCUDA_VALIDATION"] = "0"

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


def paired_us(wrapped, raw, sync, n=400, warm=20):
    """Medians of the host time of queueing one call through the Python
    wrapper and through the bare C function, each sample taken with the
    GPU queue drained (sync, untimed) and the two interleaved, so both see
    the same conditions: their difference is the Python overhead, not the
    GPU's back-pressure on a full queue."""
    for _ in range(warm):
        wrapped()
        raw()
    sync()
    a, b = [], []
    for i in range(n):
        pair = ((wrapped, a), (raw, b)) if i % 2 == 0 else ((raw, b), (wrapped, a))
        for f, acc in pair:
            sync()
            t0 = time.perf_counter_ns()
            f()
            acc.append(time.perf_counter_ns() - t0)
    sync()
    return statistics.median(a) / 1000, statistics.median(b) / 1000


def mean_us(f, n=1000, warm=50):
    """The mean of n calls in a row (how the Go benchmark reports its
    "dispatch(1,1,1) waited, 1000 in a row")."""
    for _ in range(warm):
        f()
    t0 = time.perf_counter_ns()
    for _ in range(n):
        f()
    return (time.perf_counter_ns() - t0) / n / 1000


def go_dispatch_us():
    """The Go figure to compare Compute.dispatch with: GFXCUDA_GO_DISPATCH_US,
    else `gfxcuda bench --only compute` (the CLI at GFXCUDA_CLI or next to
    the package, as the GPU bundle lays it out), else None."""
    v = os.environ.get("GFXCUDA_GO_DISPATCH_US")
    if v:
        return float(v)
    here = os.path.dirname(os.path.abspath(__file__))
    cli = os.environ.get("GFXCUDA_CLI") or os.path.join(here, "..", "..", "..", "gfxcuda")
    if not os.path.exists(cli):
        return None
    try:
        out = subprocess.run([cli, "bench", "--only", "compute"], capture_output=True, text=True, timeout=300).stdout
    except (OSError, subprocess.TimeoutExpired):
        return None
    for ln in out.splitlines():
        if "dispatch(1,1,1) waited, 1000 in a row" in ln:
            m = re.search(r"in a row\D*?([0-9]+(?:\.[0-9]+)?)", ln)
            if m:
                return float(m.group(1))
    return None


def line(name, us, target=None):
    verdict = "" if target is None else ("  (target <= %.1f us: %s)" % (target, "met" if us <= target else "NOT met"))
    print("%-44s %9.2f us%s" % (name, us, verdict), flush=True)


def main():
    dev = gfxcuda.get_current_device()
    b = gfxcuda.Buffer(4096, stride=4)
    k = gfxcuda.Compute(gfxcuda.hlsl.compile("""
    RWStructuredBuffer<uint> b : register(u0);
    [numthreads(8,1,1)] void main(uint3 t : SV_DispatchThreadID) { b[t.x] += 1; }"""), uav=[b])
    print("Vulkan validation layer: %s" % ("on" if os.environ.get("GFXCUDA_VALIDATION") not in ("0", "", None) else "off"))
    # Warm the GPU's clocks first (a waited dispatch leaves it idle most of
    # the time), about half a second, as the Go benchmark's earlier figures do.
    t_end = time.perf_counter() + 0.5
    while time.perf_counter() < t_end:
        k.dispatch(1, 1, 1)
    # As the Go benchmark: dispatch(1,1,1) waited, the mean of 1000 in a row.
    us = mean_us(lambda: k.dispatch(1, 1, 1))
    kh = k._h.handle
    raw = mean_us(lambda: _lib.lib.gfxcuda_compute_dispatch(kh, 1, 1, 1, None, 0))
    go = go_dispatch_us()
    line("Compute.dispatch(1,1,1) waited (%s)" % dev.name, us, 1.2 * go if go else None)
    line("  the C call alone", raw)
    line("  Python overhead", max(us - raw, 0))
    if go:
        line("  Go: dispatch(1,1,1) waited, 1000 in a row", go)
    else:
        print("  (no Go figure: set GFXCUDA_GO_DISPATCH_US or GFXCUDA_CLI to compare)")
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
    line("SharedBuffer.__dlpack__ alone (+ deleter)", median_us(lambda: buf.__dlpack__(max_version=(1, 0), stream=1)))
    # torch's own floor: from_dlpack of a producer that does nothing but
    # hand over a capsule torch made itself (to_dlpack timed apart), and of
    # a torch tensor (torch's own __dlpack__ path).
    src = torch.zeros(1 << 20, device="cuda")
    to_dl = torch.utils.dlpack.to_dlpack

    class _Floor:
        _dev = (2, src.device.index or 0)

        def __dlpack_device__(self):
            return self._dev

        def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
            return to_dl(src)

    floor = _Floor()
    fl = median_us(lambda: torch.from_dlpack(floor))
    td = median_us(lambda: to_dl(src))
    line("torch floor: from_dlpack(a capsule producer)", fl)
    line("  of which torch.utils.dlpack.to_dlpack", td)
    line("  torch's own share (the bound on top of ours)", max(fl - td, 0))
    line("torch.from_dlpack(torch tensor)", median_us(lambda: torch.from_dlpack(src)))
    try:
        import cupy
        ca = cupy.zeros(1 << 20, dtype=cupy.float32)
        line("torch.from_dlpack(CuPy array)", median_us(lambda: torch.from_dlpack(ca)))
    except Exception as e:  # CuPy missing or unusable: the floor above stands
        print("  (no CuPy figure: %s)" % (e,))
    t = torch.zeros((1080, 1920, 4), dtype=torch.uint8, device="cuda")
    t.copy_(torch.randint(0, 256, t.shape, dtype=torch.uint8, device="cuda"))
    tex = gfxcuda.texture(t)
    ptr = t.data_ptr()
    th = tex.handle
    sync = torch.cuda.synchronize

    def raw_copy():
        _lib.lib.gfxcuda_shared_texture_copy(th, ptr, 0, 1, 0)

    # Host time of queueing one copy on the legacy default stream (no host
    # wait), wrapper against the bare C call under the same conditions.
    total, raw = paired_us(lambda: tex.copy_to(ptr), raw_copy, sync)
    line("tex.copy_to(ptr) 1920x1080 rgba8, queued", total)
    line("  the C call alone", raw)
    line("  Python overhead", max(total - raw, 0), 20)
    total_t, raw_t = paired_us(lambda: tex.copy_to(t), raw_copy, sync)
    line("tex.copy_to(tensor), queued", total_t)
    line("  Python overhead, tensor argument", max(total_t - raw_t, 0), 20)
    with tex:
        inside, raw_in = paired_us(lambda: tex.copy_to(ptr), raw_copy, sync)
    line("tex.copy_to(ptr) inside `with tex:`", inside)
    line("  Python overhead", max(inside - raw_in, 0), 20)

    def whole():
        tex.copy_to(ptr)
        sync()
    line("tex.copy_to(ptr) + synchronize", median_us(whole, n=300))
    # The copies above must have moved the data (an untimed check).
    t2 = torch.zeros_like(t)  # poisoned: t is random
    tex.copy_to(t2)
    sync()
    if not torch.equal(t, t2):
        print("ERROR: tex.copy_to did not give the texture's texels back")
        sys.exit(1)


if __name__ == "__main__":
    main()
