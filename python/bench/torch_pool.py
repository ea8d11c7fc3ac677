#!/usr/bin/env python3
"""PyTorch's own tensors in Vulkan (issue 20), on a GPU machine, in one run:

  training step in gfxcuda.torch_pool() vs torch's default allocator
        (forward + backward + optimizer step of an MLP under
        torch.cuda.use_mem_pool: what this thread allocates, the forward's
        activations, the loss and the optimizer's temporaries, is in the
        pool; backward runs on autograd's device thread, which use_mem_pool
        does not redirect; steady state; target <= 1.2x)
  gfxcuda.from_torch(t): first call in a segment (its Vulkan import) and
        a cached call (the segment imported already)
  tensor -> Vulkan shader -> tensor: zero-copy (from_torch of the input
        and output tensors) vs copy-in/copy-out through fresh shared
        buffers (what slangpy does with torch tensors), per round trip

Prints a table; --quick runs fewer iterations (a smoke test)."""

import os
import statistics
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
# As bench/speed.py: timings measure gfxcuda, not the validation layer.
if os.environ.get("GFXCUDA_SPEED_VALIDATION") != "1":
    os.environ["GFXCUDA_VALIDATION"] = "0"

import gfxcuda  # noqa: E402

SHADER = """
StructuredBuffer<float> src : register(t0);
RWStructuredBuffer<float> dst : register(u0);
[numthreads(256, 1, 1)]
void main(uint3 id : SV_DispatchThreadID) { dst[id.x] = src[id.x] * 2.0 + 1.0; }
"""


def row(name, value, unit, note=""):
    print("%-58s %10.3f %-3s %s" % (name, value, unit, note), flush=True)


def train_ms(torch, pool, steps, reps):
    """Median over reps of the time per training step (ms), after a warm-up,
    with this thread's allocations in pool (None: torch's default)."""
    torch.manual_seed(0)
    layers = []
    for _ in range(4):
        layers += [torch.nn.Linear(2048, 2048), torch.nn.ReLU()]
    model = torch.nn.Sequential(*layers, torch.nn.Linear(2048, 10)).cuda()
    opt = torch.optim.SGD(model.parameters(), lr=1e-3)
    x = torch.randn(512, 2048, device="cuda")
    target = torch.randint(0, 10, (512,), device="cuda")

    def step():
        opt.zero_grad(set_to_none=True)
        loss = torch.nn.functional.cross_entropy(model(x), target)
        loss.backward()
        opt.step()

    def run(n):
        if pool is None:
            for _ in range(n):
                step()
        else:
            with torch.cuda.use_mem_pool(pool):
                for _ in range(n):
                    step()

    run(20)
    torch.cuda.synchronize()
    out = []
    for _ in range(reps):
        t0 = time.perf_counter()
        run(steps)
        torch.cuda.synchronize()
        out.append((time.perf_counter() - t0) * 1000 / steps)
    return statistics.median(out)


def from_torch_us(torch, n):
    """(first call in a segment, cached call) of from_torch, median us."""
    first, cached = [], []
    for _ in range(n):
        pool = gfxcuda.torch_pool(new=True)
        with torch.cuda.use_mem_pool(pool):
            t = torch.empty(1 << 18, device="cuda")
        torch.cuda.synchronize()
        t0 = time.perf_counter_ns()
        b = gfxcuda.from_torch(t)
        first.append(time.perf_counter_ns() - t0)
        b.release()
        del t, pool
        torch.cuda.empty_cache()
    pool = gfxcuda.torch_pool()
    with torch.cuda.use_mem_pool(pool):
        t = torch.empty(1 << 18, device="cuda")
    gfxcuda.from_torch(t).release()
    for _ in range(n):
        t0 = time.perf_counter_ns()
        b = gfxcuda.from_torch(t)
        cached.append(time.perf_counter_ns() - t0)
        b.release()
    return statistics.median(first) / 1000, statistics.median(cached) / 1000


def round_trip_us(torch, n_floats, iters):
    """(zero-copy, copy-in/copy-out) time of one tensor -> Vulkan shader ->
    tensor round trip, median us; checks both results."""
    spirv = gfxcuda.hlsl.compile(SHADER)
    pool = gfxcuda.torch_pool()
    with torch.cuda.use_mem_pool(pool):
        x = torch.randn(n_floats, device="cuda")
        y = torch.empty(n_floats, device="cuda")
    want = x * 2 + 1
    s = torch.cuda.current_stream()

    def zero_copy():
        a, o = gfxcuda.from_torch(x), gfxcuda.from_torch(y)
        gfxcuda.Compute(spirv, srv=[a.compute_view()], uav=[o.compute_view()]).dispatch(n_floats // 256, 1, 1)
        with gfxcuda.to_cuda([o], s):
            r = y.sum()  # torch reads what Vulkan wrote
        return r

    def copies():
        ia = gfxcuda.SharedBuffer((n_floats,), "float32")
        torch.from_dlpack(ia).copy_(x)
        gfxcuda.after_cuda([ia], s)
        ob = gfxcuda.SharedBuffer((n_floats,), "float32")
        gfxcuda.Compute(spirv, srv=[ia.compute_view()], uav=[ob.compute_view()]).dispatch(n_floats // 256, 1, 1)
        with gfxcuda.to_cuda([ob], s):
            y.copy_(torch.from_dlpack(ob))
            r = y.sum()
        return r

    out = {}
    for name, f in (("zero", zero_copy), ("copy", copies)):
        y.fill_(float("nan"))
        for _ in range(3):
            f()
        torch.cuda.synchronize()
        if not torch.equal(y, want):
            raise SystemExit("ERROR: the %s round trip gave wrong values" % name)
    ts = {"zero": [], "copy": []}
    for i in range(iters):
        for name, f in ((("zero", zero_copy), ("copy", copies)) if i % 2 == 0 else (("copy", copies), ("zero", zero_copy))):
            torch.cuda.synchronize()
            t0 = time.perf_counter_ns()
            f()
            torch.cuda.synchronize()
            ts[name].append(time.perf_counter_ns() - t0)
    for k in ts:
        out[k] = statistics.median(ts[k]) / 1000
    return out["zero"], out["copy"]


def main():
    quick = "--quick" in sys.argv
    try:
        import torch
    except ImportError:
        print("no torch: nothing to measure")
        return 0
    if not torch.cuda.is_available() or not gfxcuda.cuda_available():
        print("no CUDA: nothing to measure")
        return 0
    print("gfxcuda torch pool on %s, torch %s" % (torch.cuda.get_device_name(), torch.__version__))
    steps, reps = (10, 2) if quick else (100, 7)
    pool = gfxcuda.torch_pool()
    default, pooled = [], []
    for _ in range(1 if quick else 3):  # interleaved, so both see the same GPU state
        default.append(train_ms(torch, None, steps, reps))
        pooled.append(train_ms(torch, pool, steps, reps))
    d, p = min(default), min(pooled)
    row("training step, torch's default allocator", d, "ms")
    row("training step, gfxcuda.torch_pool()", p, "ms", "%.3fx (target <= 1.2x)" % (p / d))
    first, cached = from_torch_us(torch, 20 if quick else 300)
    row("from_torch, first call in a segment (its Vulkan import)", first, "us")
    row("from_torch, cached call (segment imported)", cached, "us")
    for mib in ((1,) if quick else (1, 16, 64)):
        n = mib << 18
        z, c = round_trip_us(torch, n, 5 if quick else 100)
        row("round trip %3d MiB: from_torch (zero-copy)" % mib, z, "us")
        row("round trip %3d MiB: copy in/out of fresh shared buffers" % mib, c, "us", "%.2fx the zero-copy time" % (c / z))
    st = gfxcuda.torch_pool_stats()
    print("pool: %d segments, %.1f MiB" % (st["segments"], st["bytes"] / (1 << 20)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
