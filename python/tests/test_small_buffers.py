"""Buffer()'s small buffers (_compute._Bin): made ahead in batches, dropped
ones recycled in batches. What must hold: nothing another object still uses
(a pipeline) is handed out again, nothing leaks, threads and fork are safe,
the bins stay bounded."""

import random
import threading

import pytest

import gfxcuda
from gfxcuda import _compute, _lib
from gfxcuda.shaders import hlsl
from conftest import fork_child_result

BATCH = _compute._Bin.BATCH


def _device_or_skip():
    try:
        return gfxcuda.get_current_device()
    except gfxcuda.GfxcudaError as e:  # pragma: no cover - CI has lavapipe
        pytest.skip("no Vulkan device: %s" % e)


def _rand(n, seed):
    return random.Random(seed).randbytes(n)


def test_steady_state_needs_no_library_call(monkeypatch):
    """After the first batches, `b = Buffer(256); del b` runs without a
    call into the library but one per BATCH buffers, and every buffer it
    hands out works (random bytes up and back)."""
    _device_or_skip()
    for _ in range(3 * BATCH):  # the bin made, a batch made, a batch recycled
        b = gfxcuda.Buffer(256)
        del b
    calls = []
    real = _lib.lib

    class Counting:
        def __getattr__(self, name):
            calls.append(name)
            return getattr(real, name)

    monkeypatch.setattr(_lib, "lib", Counting())
    n = 10 * BATCH
    for i in range(n):
        b = gfxcuda.Buffer(256)
        del b
    monkeypatch.undo()
    assert len(calls) <= n // BATCH + 2, calls[:20]
    assert set(calls) <= {"gfxcuda_buffer_recycle_n", "gfxcuda_buffer_create_n"}, set(calls)
    for i in range(2 * BATCH):  # each reused buffer holds what is written to it
        b = gfxcuda.Buffer(256, gfxcuda.HEAP_UPLOAD)
        data = _rand(256, i)
        b.upload(data)
        r = gfxcuda.Buffer(256, gfxcuda.HEAP_READBACK)
        b.copy_to(r)
        assert r.readback() == data


def test_no_leak_over_thousands_of_cycles():
    _device_or_skip()
    base = gfxcuda.live_handles()
    for i in range(5000):
        b = gfxcuda.Buffer(16 + (i % 3) * 16, i % 3)
        del b
    keep = [gfxcuda.Buffer(64) for _ in range(3 * BATCH + 5)]
    assert gfxcuda.live_handles() == base + len(keep)
    del keep
    assert gfxcuda.live_handles() == base


def test_a_buffer_a_pipeline_holds_is_not_handed_out_again():
    """A Buffer dropped while a Compute uses it: its memory stays the
    pipeline's; no later Buffer() gets it (the library keeps only buffers
    whose last reference was Python's)."""
    _device_or_skip()
    size = 64
    shader = hlsl.compile("RWByteAddressBuffer o : register(u0);"
                          "[numthreads(16,1,1)] void main(uint3 t : SV_DispatchThreadID)"
                          "{ o.Store(t.x * 4, o.Load(t.x * 4) * 3 + 1); }")
    b = gfxcuda.Buffer(size)
    c = gfxcuda.Compute(shader, uav=[b])
    held = b.handle
    del b
    for _ in range(3 * BATCH):  # drops enough to recycle the held one's batch
        x = gfxcuda.Buffer(size)
        del x
    fresh = [gfxcuda.Buffer(size) for _ in range(3 * BATCH)]
    up = gfxcuda.Buffer(size, gfxcuda.HEAP_UPLOAD)
    rb = gfxcuda.Buffer(size, gfxcuda.HEAP_READBACK)
    want = []
    for i, f in enumerate(fresh):
        data = _rand(size, 1000 + i)
        up.upload(data)
        up.copy_to(f)
        want.append(data)
    c.dispatch(1, 1, 1)  # writes the held buffer only
    assert held not in {f.handle for f in fresh}
    for f, data in zip(fresh, want):
        f.copy_to(rb)
        assert rb.readback() == data


def test_threads_make_and_drop_small_buffers():
    _device_or_skip()
    base = gfxcuda.live_handles()
    errors = []

    def work(seed):
        try:
            rnd = random.Random(seed)
            live = []
            for _ in range(3000):
                live.append(gfxcuda.Buffer(rnd.choice((16, 32, 256))))
                if len(live) > rnd.randrange(1, 40):
                    del live[:rnd.randrange(1, len(live) + 1)]
        except BaseException as e:  # pragma: no cover - reported below
            errors.append(e)

    ts = [threading.Thread(target=work, args=(s,)) for s in range(4)]
    for t in ts:
        t.start()
    for t in ts:
        t.join(300)
    assert not errors, errors
    assert gfxcuda.live_handles() == base


def test_bins_stay_bounded():
    dev = _device_or_skip()
    base = gfxcuda.live_handles()
    for size in range(1, 40):
        for _ in range(3):
            b = gfxcuda.Buffer(size * 8)
            del b
    assert len(dev._bins) <= _compute._Bin.KEYS
    spare = sum(len(b.spare) for b in dev._bins.values())
    assert spare * 8 * 40 <= _compute._Bin.KEYS * BATCH * 8 * 40
    assert gfxcuda.live_handles() == base
    big = gfxcuda.Buffer(_compute._Bin.MAX_SIZE + 1)  # past MAX_SIZE: no bin
    assert (_compute._Bin.MAX_SIZE + 1, 0) not in dev._bins
    del big


def test_a_forked_child_gets_no_buffer_of_its_parent():
    _device_or_skip()
    for _ in range(3):  # the bin has spare buffers now
        b = gfxcuda.Buffer(48)
        del b
    assert gfxcuda.get_current_device()._bins[(48, 0)].spare
    out = fork_child_result(lambda: gfxcuda.Buffer(48))
    assert "spawn" in out, out


def test_buffer_attributes_on_the_fast_path():
    dev = _device_or_skip()
    for _ in range(3):
        b = gfxcuda.Buffer(100, gfxcuda.HEAP_READBACK)
    assert (b.size, b.heap_type, b.stride, b.format, b.device) == (100, gfxcuda.HEAP_READBACK, 0, 0, dev)
    assert b.heap_size >= 100
    assert repr(b) == "<gfxcuda.Buffer 100 bytes, HEAP_READBACK>"
    b.release()
    b.release()  # idempotent
    with pytest.raises(gfxcuda.BadHandleError):
        b.handle
    # Invalid arguments still take the checking path: no bin for them.
    for bad in (0, -1, 1.5, None):
        with pytest.raises((ValueError, TypeError)):
            gfxcuda.Buffer(bad)
    with pytest.raises(ValueError):
        gfxcuda.Buffer(16, 7)
