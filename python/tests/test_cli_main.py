"""`python -m gfxcuda …` (and the `gfxcuda` console script, the same
gfxcuda.__main__:main): the gfxcuda binary's command line, run by the C
library (gfxcuda_cli_main), with the binary's output, exit statuses and
signals. Each case runs in a fresh interpreter outside the source tree."""

import errno
import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time

import pytest

import gfxcuda

here = os.path.dirname(os.path.abspath(__file__))
pydir = os.path.normpath(os.path.join(here, ".."))
root = os.path.normpath(os.path.join(pydir, ".."))
TIMEOUT = 120  # seconds a command may take before the test fails (lavapipe, a busy machine)


def _env():
    e = dict(os.environ)
    if os.environ.get("GFXCUDA_TEST_INSTALLED") != "1":
        e["PYTHONPATH"] = pydir + (os.pathsep + e["PYTHONPATH"] if e.get("PYTHONPATH") else "")
    return e


def gfxcuda_cli(*args, cwd):
    """Runs python -m gfxcuda args; returns (exit status, stdout, stderr)."""
    r = subprocess.run([sys.executable, "-m", "gfxcuda", *args], capture_output=True, text=True,
                       timeout=TIMEOUT, env=_env(), cwd=cwd)
    return r.returncode, r.stdout, r.stderr


def need_vulkan():
    if not gfxcuda.get_discovered_devices():
        if os.environ.get("GFXCUDA_REQUIRE_VULKAN") == "1":
            pytest.fail("GFXCUDA_REQUIRE_VULKAN=1 but no Vulkan device")
        pytest.skip("no Vulkan device")


def test_version(tmp_path):
    rc, out, err = gfxcuda_cli("--version", cwd=tmp_path)
    assert (rc, err) == (0, ""), err
    assert out.startswith("gfxcuda %s (go" % gfxcuda.__version__), out
    rc, out, err = gfxcuda_cli("version", "--json", cwd=tmp_path)
    assert rc == 0 and json.loads(out)["version"] == gfxcuda.__version__, out + err


def test_help(tmp_path):
    rc, out, err = gfxcuda_cli("--help", cwd=tmp_path)
    assert rc == 0 and out.startswith("usage: gfxcuda COMMAND [flags] [ARGS]\n"), out + err
    for cmd in ("devices", "doctor", "run", "bench", "demo", "share", "open", "version"):
        assert "\n  %s " % cmd in out


def test_devices_lists_the_vulkan_devices(tmp_path):
    need_vulkan()
    rc, out, err = gfxcuda_cli("devices", cwd=tmp_path)
    assert rc == 0, out + err
    for d in gfxcuda.get_discovered_devices():
        assert d.name in out, (d.name, out)
    rc, out, err = gfxcuda_cli("devices", "--json", cwd=tmp_path)
    assert rc == 0, err
    names = [d["name"] for d in json.loads(out)["vulkan"]]
    assert names == [d.name for d in gfxcuda.get_discovered_devices()], out


def _go_cli(tmp_path):
    """The gfxcuda binary: $GFXCUDA_CLI, the GPU bundle's, or built from
    this tree with go; None when there is none."""
    for exe in (os.environ.get("GFXCUDA_CLI"), os.path.join(root, "..", "gfxcuda")):
        if exe and os.path.isfile(exe) and os.access(exe, os.X_OK):
            return exe
    go = shutil.which("go") or ("/usr/local/go/bin/go" if os.path.exists("/usr/local/go/bin/go") else None)
    if go is None or not os.path.exists(os.path.join(root, "cmd", "gfxcuda", "main.go")):
        return None
    exe = str(tmp_path / "gfxcuda")
    subprocess.run([go, "build", "-o", exe, "./cmd/gfxcuda"], cwd=root, check=True, timeout=900)
    return exe


def test_doctor_is_the_binarys(tmp_path):
    """doctor: the binary's report and exit status (0 when Vulkan-CUDA
    interop is possible here, 1 when it is not: on lavapipe, 1), and one
    line more: the libgfxcuda.so it runs in (the file gfxcuda's loader
    opened, symbolic links resolved), in its text and its JSON."""
    rc, out, err = gfxcuda_cli("doctor", cwd=tmp_path)
    assert rc in (0, 1), out + err
    rcj, outj, _ = gfxcuda_cli("doctor", "--json", cwd=tmp_path)
    assert rcj == rc and json.loads(outj)["checks"], outj
    lib = os.path.realpath(gfxcuda._lib._path)
    own = [l for l in json.loads(outj)["libraries"] if l["for"] == "gfxcuda"]
    assert own == [{"name": "libgfxcuda.so", "for": "gfxcuda", "path": lib}], outj
    line = "  - libgfxcuda.so (gfxcuda): %s\n" % lib
    assert line in out, out
    exe = _go_cli(tmp_path)
    if exe is None:
        pytest.skip("no gfxcuda binary to compare with (no go to build one): checked the exit status alone")
    r = subprocess.run([exe, "doctor"], capture_output=True, text=True, timeout=TIMEOUT, cwd=tmp_path)
    assert (rc, out.replace(line, ""), err) == (r.returncode, r.stdout, r.stderr)


def test_usage_error(tmp_path):
    rc, out, err = gfxcuda_cli("run", "--bogus", "k.hlsl", cwd=tmp_path)
    assert rc == 2 and out == "", out + err
    assert err.startswith("gfxcuda run: unknown flag --bogus\nusage: gfxcuda run [flags] SHADER\n"), err
    rc, out, err = gfxcuda_cli("devcies", cwd=tmp_path)
    assert rc == 2 and err.startswith('gfxcuda: unknown command "devcies"; did you mean devices?'), err


def test_missing_library(tmp_path):
    """Without its library the command says which file is missing and how
    to get it (exit 1), as `import gfxcuda`'s first use does."""
    missing = str(tmp_path / "nowhere" / "libgfxcuda.so")
    r = subprocess.run([sys.executable, "-m", "gfxcuda", "version"], capture_output=True, text=True, timeout=TIMEOUT,
                       env=dict(_env(), GFXCUDA_LIBRARY=missing), cwd=tmp_path)
    assert r.returncode == 1 and r.stdout == "", r.stdout + r.stderr
    assert r.stderr.startswith("gfxcuda: the C library %s is missing; reinstall gfxcuda with pip "
                               "(`pip install gfxcuda`, or `pip install .` from a checkout" % missing), r.stderr
    assert "make python" in r.stderr, r.stderr


def test_hidden_commands_run_through_python(tmp_path):
    """bench's helper processes are this interpreter with -m gfxcuda (its
    executable alone would not know them): the hidden command answers."""
    rc, out, err = gfxcuda_cli("__share-open", cwd=tmp_path)
    assert rc == 2 and err == "usage: gfxcuda __share-open TOKEN ...\n", err


def test_bench_compute(tmp_path):
    """bench's compute group (Vulkan alone) through the library."""
    need_vulkan()
    rc, out, err = gfxcuda_cli("bench", "--quick", "--only", "compute", "--json", cwd=tmp_path)
    assert rc == 0, err
    assert json.loads(out)["figures"], out


def test_bench_helper_processes(tmp_path):
    """bench --only onetime opens shared memory in helper processes
    (gfxcuda_cli_set_command: python -m gfxcuda __share-open …). Needs CUDA."""
    from conftest import need_cuda
    need_cuda()
    rc, out, err = gfxcuda_cli("bench", "--quick", "--only", "onetime", "--json", cwd=tmp_path)
    assert rc == 0 and "child" not in err, err
    assert json.loads(out)["figures"], out


class Proc:
    """A python process whose stdout lines are read as they come."""

    def __init__(self, argv, cwd):
        self.p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                  env=_env(), cwd=cwd)
        self.lines, self.cond = [], threading.Condition()
        self.err = []
        self.readers = [threading.Thread(target=self._read, args=(f, into), daemon=True)
                        for f, into in ((self.p.stdout, self.lines), (self.p.stderr, self.err))]
        for t in self.readers:
            t.start()

    def _read(self, f, into):
        for line in f:
            with self.cond:
                into.append(line)
                self.cond.notify_all()
        with self.cond:
            self.cond.notify_all()

    def wait_line(self, s):
        with self.cond:
            ok = self.cond.wait_for(lambda: any(s in l for l in self.lines) or self.p.poll() is not None, TIMEOUT)
            assert ok and any(s in l for l in self.lines), "no line with %r:\n%s%s" % (s, "".join(self.lines), "".join(self.err))

    def end(self):
        try:
            rc = self.p.wait(TIMEOUT)
        except subprocess.TimeoutExpired:
            self.p.kill()
            self.p.wait()
            pytest.fail("did not end within %ds:\n%s%s" % (TIMEOUT, "".join(self.lines), "".join(self.err)))
        for t in self.readers:
            t.join(TIMEOUT)
        with self.cond:
            return rc, "".join(self.lines), "".join(self.err)

    def kill(self):
        if self.p.poll() is None:
            self.p.kill()
            self.p.wait()


def test_sigint_ends_share_with_its_summary(tmp_path):
    """Ctrl-C (SIGINT) ends `python -m gfxcuda share --frames 0` as it ends
    the binary: the summary line, exit 0, its sockets removed; Python's
    KeyboardInterrupt does not get in the way."""
    need_vulkan()
    d = tmp_path / "sockets"
    p = Proc([sys.executable, "-m", "gfxcuda", "share", "--cpu", "--size", "4096", "--frames", "0", "--dir", str(d)],
             cwd=tmp_path)
    try:
        p.wait_line("waiting for a consumer")
        p.p.send_signal(signal.SIGINT)
        rc, out, err = p.end()
    finally:
        p.kill()
    last = out.rstrip("\n").splitlines()[-1]
    assert rc == 0 and "produced 0 frames" in last and "(ended by SIGINT)" in last, out + err
    assert err == "", err
    assert not os.listdir(d), os.listdir(d)


# The caller's side: a script that reads SIGINT's sigaction before and after
# gfxcuda.__main__.main, then waits in os.read for a second SIGINT, which
# must raise KeyboardInterrupt (Python's handler back, exactly: with the
# SA_RESTART Go's own restore adds, the read would go on and the script
# hang).
CALLER = r"""
import ctypes, os, sys
from gfxcuda.__main__ import main

class Sigaction(ctypes.Structure):  # glibc's struct sigaction
    _fields_ = [("handler", ctypes.c_void_p), ("mask", ctypes.c_ulong * 16), ("flags", ctypes.c_int),
                ("restorer", ctypes.c_void_p)]

libc = ctypes.CDLL(None, use_errno=True)
SA_RESTORER = 0x04000000  # glibc's, added to whatever flags it sets
def sigaction(sig):
    a = Sigaction()
    assert libc.sigaction(sig, None, ctypes.byref(a)) == 0
    return (a.handler, a.mask[0], a.flags & ~SA_RESTORER)  # the kernel's mask is 64 bits

before = {s: sigaction(s) for s in (2, 15)}
rc = main(sys.argv[1:])
after = {s: sigaction(s) for s in (2, 15)}
print("returned %d; sigaction %s" % (rc, "as before" if after == before else "changed: %r -> %r" % (before, after)),
      flush=True)
r, w = os.pipe()
try:
    # Inside the try: the parent's SIGINT may come as soon as the line is
    # out, before the read begins.
    print("blocking", flush=True)
    os.read(r, 1)
except KeyboardInterrupt:
    print("KeyboardInterrupt", flush=True)
"""


@pytest.mark.parametrize("args", [["version"], ["share", "--cpu", "--size", "4096", "--frames", "0"]],
                         ids=["version", "share"])
def test_signal_handling_is_the_callers_afterwards(tmp_path, args):
    """After gfxcuda_cli_main returns (a command that caught SIGINT or not),
    SIGINT's handling is Python's again, exactly as it was."""
    need_vulkan()
    if args[0] == "share":
        args = args + ["--dir", str(tmp_path / "sockets")]
    p = Proc([sys.executable, "-c", CALLER, *args], cwd=tmp_path)
    try:
        if args[0] == "share":
            p.wait_line("waiting for a consumer")
            p.p.send_signal(signal.SIGINT)
        p.wait_line("blocking")
        p.p.send_signal(signal.SIGINT)
        rc, out, err = p.end()
    finally:
        p.kill()
    assert rc == 0 and "returned 0; sigaction as before\n" in out and out.endswith("KeyboardInterrupt\n"), out + err


def test_sigint_ends_a_command_that_does_not_catch_it(tmp_path):
    """Ctrl-C ends `python -m gfxcuda run` (which catches no signal) at
    once, as it ends the binary, though it waits in Go for its shader (a
    FIFO nobody writes): Python's handler would only note the signal
    until the call returned."""
    fifo = str(tmp_path / "k.hlsl")
    os.mkfifo(fifo)
    p = Proc([sys.executable, "-m", "gfxcuda", "run", fifo, "--dispatch", "1", "--uav", "0:16"], cwd=tmp_path)
    w = None
    try:
        deadline = time.monotonic() + TIMEOUT
        while w is None:  # the run has opened the FIFO when a writer can without blocking
            try:
                w = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
            except OSError as e:
                assert e.errno == errno.ENXIO and time.monotonic() < deadline and p.p.poll() is None, \
                    "the run never opened its shader: %s\n%s" % (e, "".join(p.err))
                time.sleep(0.01)
        p.p.send_signal(signal.SIGINT)
        try:
            rc = p.p.wait(TIMEOUT)
        except subprocess.TimeoutExpired:
            os.close(w)
            w = None
            rc, out, err = p.end()
            pytest.fail("SIGINT did not end the run within %ds (exit %d after its shader's end):\n%s%s" % (TIMEOUT, rc, out, err))
        assert rc == -signal.SIGINT, "exit %d, want the process ended by SIGINT:\n%s" % (rc, "".join(p.err))
    finally:
        if w is not None:
            os.close(w)
        p.kill()
