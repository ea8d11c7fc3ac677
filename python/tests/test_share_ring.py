"""Rings and sharing across processes on the CPU (lavapipe: host-visible
slots exported and imported through file descriptors), and the error paths
of the sharing API that need no CUDA."""

import errno
import gc
import multiprocessing
import os
import shutil
import stat
import subprocess
import sys
import tempfile

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


# The consumer run as another user: a script beside a copy of the package
# (see _readable_package), so that it imports nothing from the checkout.
_UID_CONSUMER = r'''
import sys

import numpy

import gfxcuda

token, frames, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
shape = tuple(int(n) for n in sys.argv[4].split("x"))
print("package", gfxcuda.__file__, flush=True)
try:
    got = 0
    with gfxcuda.open_ring(token, shape, "float32", timeout=60) as reader:
        for f in reader:
            with f:
                want = numpy.random.default_rng([seed, f.seq]).random(shape, dtype=numpy.float32)
                if not numpy.array_equal(numpy.from_dlpack(f), want):
                    print("frame %d differs" % f.seq)
                    sys.exit(1)
            got += 1
            if got == frames:
                break
    print("checked %d" % got)
except gfxcuda.GfxcudaError as e:
    print("error: %s" % e)
'''


def _readable_package():
    """A fresh directory of mode 0755 that any user can enter, holding a copy
    of the gfxcuda package with the library this process loaded and the
    consumer script: a checkout in a home or temporary directory of mode
    0700 or 0750 is unreadable to the consumer's uid. Tries $TMPDIR, /tmp,
    /var/tmp, /dev/shm; skips, with the reasons, when none will do."""
    from gfxcuda import _lib

    reasons = []
    for base in dict.fromkeys((tempfile.gettempdir(), "/tmp", "/var/tmp", "/dev/shm")):
        closed, p = [], os.path.realpath(base)
        while True:
            try:
                if not os.stat(p).st_mode & stat.S_IXOTH:
                    closed.append(p)
            except OSError as e:
                closed.append("%s (%s)" % (p, e.strerror))
            if p == "/":
                break
            p = os.path.dirname(p)
        if closed:
            reasons.append("%s: other users cannot enter %s" % (base, ", ".join(closed)))
            continue
        if os.statvfs(base).f_flag & os.ST_NOEXEC:
            reasons.append("%s: mounted noexec (libgfxcuda.so cannot be loaded from it)" % base)
            continue
        try:
            d = os.path.realpath(tempfile.mkdtemp(prefix="gfxcuda-uid-", dir=base))
        except OSError as e:
            reasons.append("%s: %s" % (base, e))
            continue
        try:
            pkg = os.path.join(d, "gfxcuda")
            shutil.copytree(os.path.dirname(gfxcuda.__file__), pkg,
                            ignore=shutil.ignore_patterns("__pycache__", "*.so"))
            shutil.copyfile(_lib._path, os.path.join(pkg, "libgfxcuda.so"))
            with open(os.path.join(d, "uid_consumer.py"), "w") as f:
                f.write(_UID_CONSUMER)
            for root, dirs, files in os.walk(d):  # whatever the umask and the checkout's modes
                os.chmod(root, 0o755)
                for name in files:
                    os.chmod(os.path.join(root, name), 0o644)
        except BaseException:
            shutil.rmtree(d, ignore_errors=True)
            raise
        return d
    pytest.skip("no directory another uid can read and load a library from: " + "; ".join(reasons)
                + " (set TMPDIR to one)")


def _start_as(d, uid, *args):
    """Starts d's consumer script as uid (gid uid, no other groups), with d
    as its directory; skips where this process cannot start one."""
    env = dict(os.environ)
    env.pop("GFXCUDA_LIBRARY", None)  # the copy's own
    try:
        return subprocess.Popen([sys.executable, os.path.join(d, "uid_consumer.py")] + [str(a) for a in args],
                                cwd=d, env=env, user=uid, group=uid, extra_groups=[],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    except PermissionError as e:
        if e.errno == errno.EPERM:
            pytest.skip("cannot start a process as uid %d here: changing uid needs CAP_SETUID and CAP_SETGID (%s)"
                        % (uid, e.strerror))
        pytest.skip("uid %d cannot run %s here (%s)" % (uid, sys.executable, e))


def _finish(p, uid):
    """The child's stdout once it has exited with status 0 (within 120 s);
    fails naming its exit status and stderr otherwise."""
    try:
        out, err = p.communicate(timeout=120)
    except subprocess.TimeoutExpired:
        p.kill()
        out, err = p.communicate()
        pytest.fail("the consumer as uid %d did not exit within 120 s\nstdout:\n%s\nstderr:\n%s" % (uid, out, err))
    assert p.returncode == 0, ("the consumer as uid %d exited with status %d\nstdout:\n%s\nstderr:\n%s"
                               % (uid, p.returncode, out, err))
    return out


def _while_alive(p, uid, call, *args):
    """call(*args, timeout=...) in short waits until it returns, failing at
    once, with the child's exit status and stderr, if the child exits
    first (and after 60 s of waits)."""
    for _ in range(120):
        try:
            return call(*args, timeout=0.5)
        except gfxcuda.WaitTimeoutError:
            if p.poll() is not None:
                out = _finish(p, uid)
                pytest.fail("the consumer as uid %d exited (status 0) while the producer waited for it\nstdout:\n%s"
                            % (uid, out))
    pytest.fail("the consumer as uid %d still runs, but %s waited 60 s for it" % (uid, call.__name__))


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to run a consumer as another uid")
def test_ring_allow_uids():
    """Ring(allow_uids=..., dir=...): a consumer of an allowed uid reads
    every frame through the filesystem socket in dir (0711, the socket
    0666); one of another uid is refused with the reason. The consumers
    run a copy of the package in a directory every user can read, from
    any checkout; one that dies fails the test at once, with its stderr."""
    seed = int.from_bytes(os.urandom(4), "little")
    frames = 50
    shape = "x".join(map(str, SHAPE))
    d = _readable_package()
    try:
        sock_dir = os.path.join(d, "sock")
        with gfxcuda.Ring(SHAPE, "float32", slots=3, dir=sock_dir, allow_uids=[1000]) as r:
            token = r.token
            assert oct(os.stat(sock_dir).st_mode & 0o777) == oct(0o711)
            socks = [n for n in os.listdir(sock_dir) if n.endswith(".sock")]
            assert len(socks) == 1 and os.stat(os.path.join(sock_dir, socks[0])).st_mode & 0o777 == 0o666
            out = _finish(_start_as(d, 1001, token, frames, seed, shape), 1001)
            assert "uid 1001 (gid 1001) is not allowed" in out and "--allow-uid 1001" in out, out
            p = _start_as(d, 1000, token, frames, seed, shape)
            try:
                _while_alive(p, 1000, r.wait_consumers, 1)
                for seq in range(1, frames + 1):
                    i = _while_alive(p, 1000, r.acquire)
                    r.slot(i).write(_frame(seed, seq))
                    r.publish(i, timeout=60)
                out = _finish(p, 1000)
            finally:
                if p.poll() is None:
                    p.kill()
                    p.communicate()
            assert out.splitlines()[0] == "package " + os.path.join(d, "gfxcuda", "__init__.py"), out
            assert out.splitlines()[-1] == "checked %d" % frames, out
        assert not [n for n in os.listdir(sock_dir) if n.endswith(".sock")], "the socket outlived the ring"
    finally:
        shutil.rmtree(d, ignore_errors=True)


def test_share_options_errors():
    with pytest.raises(gfxcuda.InvalidArgumentError):
        gfxcuda.share_options(rendezvous="tcp")
    with pytest.raises(gfxcuda.InvalidArgumentError):
        gfxcuda.share_options(allow_uids=[-1])
    with pytest.raises(gfxcuda.InvalidArgumentError):
        gfxcuda.Ring((4,), slots=2, rendezvous="nowhere")
    gfxcuda.share_options()  # back to the defaults
