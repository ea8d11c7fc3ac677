"""Rings and sharing across processes on the CPU (lavapipe: host-visible
slots exported and imported through file descriptors), and the error paths
of the sharing API that need no CUDA."""

import gc
import multiprocessing
import os

import numpy
import pytest

import gfxcuda

SHAPE = (37, 53)


def _frame(seed, seq):
    return numpy.random.default_rng([seed, seq]).random(SHAPE, dtype=numpy.float32)


def _producer(q, back, seed, frames, drop_oldest):
    import gfxcuda as g
    with g.Ring(SHAPE, "float32", slots=3, drop_oldest=drop_oldest) as r:
        q.put(r.token)
        r.wait_consumers(1, timeout=60)
        for seq in range(1, frames + 1):
            i = r.acquire(timeout=60)
            r.slot(i).write(_frame(seed, seq))
            assert r.publish(i, user=b"frame %d" % seq) == seq
        q.put("done")
        back.get(timeout=60)  # keep the exporter alive until the reader is done


def test_ring_across_processes_host():
    """A producer process writes random frames; this process iterates them
    as numpy arrays through DLPack (zero-copy on the mapped slots)."""
    seed = int.from_bytes(os.urandom(4), "little")
    frames = 200
    ctx = multiprocessing.get_context("spawn")
    q, back = ctx.Queue(), ctx.Queue()
    p = ctx.Process(target=_producer, args=(q, back, seed, frames, False))
    p.start()
    try:
        token = q.get(timeout=120)
        gfxcuda.get_current_device().handle
        gc.collect()  # earlier tests' garbage (cycles) must not be freed while counting
        before = gfxcuda.live_handles()
        got = 0
        with gfxcuda.open_ring(token, SHAPE, "float32", timeout=60) as reader:
            for f in reader:
                with f:
                    a = numpy.from_dlpack(f)
                    assert a.shape == SHAPE and a.dtype == numpy.float32
                    assert f.user == b"frame %d" % f.seq and f.dropped == 0
                    assert numpy.array_equal(a, _frame(seed, f.seq)), "frame %d differs" % f.seq
                    assert numpy.asarray(f.array).__array_interface__["data"][0] == f.array.ptr
                got += 1
                assert f.seq == got
                if got == frames:
                    assert q.get(timeout=60) == "done"
                    back.put("bye")
        assert got == frames
        del a, f
        assert gfxcuda.live_handles() == before
    finally:
        back.put("bye")
        p.join(60)
    assert p.exitcode == 0


def test_ring_in_process_lifetime(rng):
    """Arrays made from a slot keep its memory alive after the reader and
    ring are closed; nothing leaks."""
    gfxcuda.get_current_device().handle
    before, dl = gfxcuda.live_handles(), gfxcuda.live_dlpack_tensors()
    r = gfxcuda.Ring((16,), "int32", slots=2)
    rd = gfxcuda.open_ring(r.token, (16,), "int32", timeout=10)
    data = rng.integers(-2**31, 2**31 - 1, 16, dtype=numpy.int32)
    i = r.acquire(timeout=10)
    r.slot(i).write(data)
    r.publish(i)
    f = rd.next()
    a = numpy.from_dlpack(f)
    f.release()
    rd.close()
    r.close()
    assert numpy.array_equal(a, data)
    with pytest.raises(gfxcuda.GfxcudaError):
        rd.next()
    del a, f, rd, r
    assert gfxcuda.live_handles() == before
    assert gfxcuda.live_dlpack_tensors() == dl


def test_ring_reprs():
    """Ring, RingReader and Frame say what they are, open and closed."""
    r = gfxcuda.Ring((4, 8), "float32", slots=3)
    rd = gfxcuda.open_ring(r.token, (4, 8), "float32", timeout=10)
    assert repr(r) == "<gfxcuda.Ring 3 slots shape=(4, 8) dtype=float32 host>"
    assert repr(rd) == "<gfxcuda.RingReader 3 slots shape=(4, 8) dtype=<f4 host>"
    i = r.acquire(timeout=10)
    seq = r.publish(i)
    f = rd.next()
    assert repr(f) == "<gfxcuda.Frame seq=%d slot=%d dropped=0>" % (seq, i)
    f.release()
    assert repr(f).endswith(" released>")
    rd.close()
    r.close()
    assert repr(rd) == "<gfxcuda.RingReader host closed>"
    assert repr(r) == "<gfxcuda.Ring shape=(4, 8) dtype=float32 host closed>"


def test_ring_errors():
    with pytest.raises(gfxcuda.InvalidArgumentError):
        gfxcuda.open_ring("gfxcuda1.garbage", (4,), timeout=1)
    with pytest.raises(gfxcuda.InvalidArgumentError):
        gfxcuda.open_ring(b"", (4,), timeout=1)
    with pytest.raises(gfxcuda.InvalidArgumentError):
        gfxcuda.Ring((4,), slots=1)
    with gfxcuda.Ring((4,), "float32", slots=2) as r:
        with pytest.raises(gfxcuda.OutOfRangeError):
            gfxcuda.open_ring(r.token, (5,), "float32", timeout=5)  # frames larger than the slots
        with pytest.raises(gfxcuda.WaitTimeoutError):
            r.wait_consumers(1, timeout=0.05)
        with pytest.raises(gfxcuda.OutOfRangeError):
            r.slot(0).write(b"x" * 17)
        rd = gfxcuda.open_ring(r.token, (4,), "float32", timeout=5)
        with pytest.raises(gfxcuda.WaitTimeoutError):
            rd.next(timeout=0.05)
        with pytest.raises(BufferError):
            r.slot(0).__dlpack__(dl_device=(2, 0))
        with pytest.raises(AttributeError):
            r.slot(0).__cuda_array_interface__
        rd.close()


def test_peer_ring_argument_errors():
    """open_ring(peer=...): the mode, the consumer's GPU, a GPU name that
    is no GPU or one this process does not see (NoDeviceError; NoCUDAError,
    a NoDeviceError, without a driver)."""
    with gfxcuda.Ring((4,), "float32", slots=2) as r:
        with pytest.raises(gfxcuda.InvalidArgumentError, match="'copy' or 'access'"):
            gfxcuda.open_ring(r.token, (4,), cuda=0, peer="fast")
        with pytest.raises(gfxcuda.InvalidArgumentError, match="needs cuda="):
            gfxcuda.open_ring(r.token, (4,), peer="copy")
        for name in ("GPU-zz", "GPU-00000000-0000-0000-0000-00000000beef", "99"):
            with pytest.raises(gfxcuda.NoDeviceError):
                gfxcuda.open_ring(r.token, (4,), cuda=name, peer="copy")


def test_withdrawn_token():
    r = gfxcuda.Ring((4,), "float32", slots=2)
    tok = r.token
    r.close()
    with pytest.raises(gfxcuda.GfxcudaError):
        gfxcuda.open_ring(tok, (4,), timeout=5)


def test_vulkan_semaphore_host():
    """Timeline semaphores on the host (lavapipe has them, but cannot
    export them: that part is a GPU test)."""
    d = gfxcuda.get_current_device()
    s = gfxcuda.VulkanSemaphore(d, initial=3, exportable=False)
    assert s.value == 3
    s.signal(7)
    s.wait(7, timeout=1)
    with pytest.raises(gfxcuda.WaitTimeoutError):
        s.wait(8, timeout=0.02)
    with pytest.raises(gfxcuda.InvalidArgumentError) as e:
        s.signal(5)  # timelines only go up (checked by gfxcuda: NVIDIA's driver does not)
    assert "value is 7" in str(e.value)
    with pytest.raises(gfxcuda.InvalidArgumentError):
        s.signal(7)  # nor stay
    assert s.value == 7
    s.signal(8)
    s.wait(8, timeout=1)
    assert repr(s) == "<gfxcuda.VulkanSemaphore value=8>"
    s.release()
    assert repr(s) == "<gfxcuda.VulkanSemaphore released>"


def test_fd_imports_refuse_bad_descriptors():
    """Bad descriptors are refused before anything takes them (on the CPU
    machine the shared device itself is refused: no CUDA)."""
    r, w = os.pipe()
    try:
        for bad in (-1, 987654):
            with pytest.raises(gfxcuda.GfxcudaError):
                gfxcuda.SharedBuffer.import_fd(bad, (16,), "float32", allocation_size=64)
            with pytest.raises(gfxcuda.GfxcudaError):
                gfxcuda.Semaphore.import_fd(bad)
    finally:
        os.close(r)
        os.close(w)


def _uid_consumer(token, frames, seed, uid, q):
    """A consumer running as another user (os.setuid before importing
    gfxcuda): it reports what it checked, or the error it got."""
    os.setgid(uid)
    os.setuid(uid)
    import gfxcuda as g
    try:
        got = 0
        with g.open_ring(token, SHAPE, "float32", timeout=60) as reader:
            for f in reader:
                with f:
                    if not numpy.array_equal(numpy.from_dlpack(f), _frame(seed, f.seq)):
                        q.put("frame %d differs" % f.seq)
                        return
                got += 1
                if got == frames:
                    break
        q.put("checked %d" % got)
    except g.GfxcudaError as e:
        q.put("error: %s" % e)


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to run a consumer as another uid")
def test_ring_allow_uids(tmp_path):
    """Ring(allow_uids=..., dir=...): a consumer of an allowed uid reads
    every frame through the filesystem socket in dir (0711, the socket
    0666); one of another uid is refused with the reason."""
    seed = int.from_bytes(os.urandom(4), "little")
    os.chmod(tmp_path, 0o755)
    sock_dir = tmp_path / "sock"
    frames = 50
    ctx = multiprocessing.get_context("spawn")
    with gfxcuda.Ring(SHAPE, "float32", slots=3, dir=str(sock_dir), allow_uids=[1000]) as r:
        token = r.token
        assert oct(os.stat(sock_dir).st_mode & 0o777) == oct(0o711)
        socks = [p for p in sock_dir.iterdir() if p.name.endswith(".sock")]
        assert len(socks) == 1 and socks[0].stat().st_mode & 0o777 == 0o666
        q = ctx.Queue()
        p = ctx.Process(target=_uid_consumer, args=(token, frames, seed, 1001, q))
        p.start()
        msg = q.get(timeout=120)
        p.join(60)
        assert "uid 1001 (gid 1001) is not allowed" in msg and "--allow-uid 1001" in msg, msg
        p = ctx.Process(target=_uid_consumer, args=(token, frames, seed, 1000, q))
        p.start()
        r.wait_consumers(1, timeout=60)
        for seq in range(1, frames + 1):
            i = r.acquire(timeout=60)
            r.slot(i).write(_frame(seed, seq))
            r.publish(i)
        assert q.get(timeout=120) == "checked %d" % frames
        p.join(60)
        assert p.exitcode == 0
    assert not list(sock_dir.glob("*.sock")), "the socket outlived the ring"


def test_share_options_errors():
    with pytest.raises(gfxcuda.InvalidArgumentError):
        gfxcuda.share_options(rendezvous="tcp")
    with pytest.raises(gfxcuda.InvalidArgumentError):
        gfxcuda.share_options(allow_uids=[-1])
    with pytest.raises(gfxcuda.InvalidArgumentError):
        gfxcuda.Ring((4,), slots=2, rendezvous="nowhere")
    gfxcuda.share_options()  # back to the defaults
