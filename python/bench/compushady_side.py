#!/usr/bin/env python3
"""gfxcuda and compushady side by side: the same calls through both
libraries, on one machine, each measured in fresh processes that alternate
(gfxcuda, compushady, compushady, gfxcuda, ...); each figure is the median
over those processes of each process's median. Prints one row per call:
gfxcuda, compushady, their ratio and the target (gfxcuda <= 1.2x
compushady's). --json FILE saves the rows.

Calls (HEAP_* buffers, random data, never constant):
  Buffer(256)                    steady state: one more buffer made while the
                                 last one is dropped (create + release)
  Buffer(256); del               `b = Buffer(256); del b`: create, then release
  Texture2D(256, 256, RGBA8)     the same for a texture
  upload 1 MiB / 64 MiB          into a HEAP_UPLOAD buffer
  readback() 64 MiB              into new bytes, from a HEAP_READBACK buffer
  readback(bytearray) 64 MiB     into a preallocated bytearray
  copy_to 1 MiB                  HEAP_UPLOAD buffer -> HEAP_DEFAULT buffer (waited)
  1,000 dispatch(1,1,1)          waited, one UAV bound (the same SPIR-V for both)
  copy_to 1 KiB                  HEAP_UPLOAD buffer -> HEAP_DEFAULT buffer (waited)
  256 elements up, run, back     one round of the small loop: upload 1 KiB (256
                                 uint32) -> copy_to a HEAP_DEFAULT buffer ->
                                 dispatch(4,1,1) (x = 3x + 1 on each) -> copy_to
                                 a HEAP_READBACK buffer -> readback(); checked
  import                         `import gfxcuda` / `import compushady` in a fresh
                                 process, warm page cache, bytecode compiled
                                 (both from a private PYTHONPYCACHEPREFIX)
  import, cold                   the same after the page cache was dropped
                                 (`echo 3 > /proc/sys/vm/drop_caches`, as root;
                                 else posix_fadvise(POSIX_FADV_DONTNEED) on the
                                 package's files, its library and its bytecode:
                                 the table's footer says which)
Informational rows (no target): `import` + the first Buffer(256) (device
discovery and opening, the library loaded), warm and cold, and, in
gfxcuda's column, the floor of its calls: a ctypes call into C
(gfxcuda_version, no Go), into Go (gfxcuda_live_handles(&n)), and the two
calls of Buffer(256) + del alone (gfxcuda_buffer_create_int and
gfxcuda_release_int, as Buffer makes them).

compushady is the real one, built from its source
(github.com/rdeioris/compushady, Vulkan backend); it is used where
`import compushady` works with --compushady-path DIR (or PYTHONPATH), else
gfxcuda's column runs alone ("compushady not importable: gfxcuda column
only"). How it was built for BENCHMARKS.md (Debian 12, python3.11-dev,
libvulkan-dev, g++; no shader compiler is needed: the dispatch shader is
SPIR-V that gfxcuda compiles):

  mkdir -p /tmp/compushady-src /tmp/compushady-build
  git -C <compushady clone> archive HEAD -- . ':!*.dll' ':!*.dylib' ':!*.so' ':!*.gif' \\
      | tar x -C /tmp/compushady-src
  cd /tmp/compushady-src
  mkdir -p /tmp/compushady-build/compushady/backends
  cp compushady/*.py /tmp/compushady-build/compushady/
  cp -r compushady/shaders /tmp/compushady-build/compushady/
  g++ -O2 -DNDEBUG -fPIC -shared -std=c++14 $(/usr/bin/python3-config --includes) \\
      compushady/backends/vulkan.cpp compushady/backends/common.cpp -lvulkan \\
      -o /tmp/compushady-build/compushady/backends/vulkan$(/usr/bin/python3-config --extension-suffix)
  cd <gfxcuda> && /usr/bin/python3 python/bench/compushady_side.py --compushady-path /tmp/compushady-build

(the flags of its setup.py's Vulkan extension, for the Python that runs the
benchmark; git may print "invalid object" for a binary blob the clone
lacks: the pathspecs leave those out. COMPUSHADY_BACKEND=vulkan is set for
the compushady processes.) --tiny runs a few iterations of each
call (the test suite's smoke run: its numbers mean nothing)."""

import argparse
import importlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
PYDIR = os.path.normpath(os.path.join(HERE, ".."))
# Where gfxcuda is imported from: this tree's python/ by default, or
# --gfxcuda-path (e.g. the folder a wheel was installed into).
GFXDIR = [PYDIR]
MiB = 1 << 20
TARGET = 1.2

# (key, label, unit): the order of the table.
ROWS = [
    ("import", "import", "ms"),
    ("import_cold", "import, cold page cache", "ms"),
    ("buffer", "Buffer(256), each further one", "us"),
    ("buffer_del", "b = Buffer(256); del b", "us"),
    ("texture", "Texture2D(256, 256, RGBA8), each further one", "us"),
    ("upload_1m", "upload 1 MiB (HEAP_UPLOAD)", "us"),
    ("upload_64m", "upload 64 MiB (HEAP_UPLOAD)", "ms"),
    ("readback_64m", "readback() 64 MiB into new bytes", "ms"),
    ("readback_into_64m", "readback(bytearray) 64 MiB", "ms"),
    ("copy_to_1m", "copy_to 1 MiB buffer -> buffer", "us"),
    ("dispatch_1000", "1,000 waited dispatch(1,1,1)", "ms"),
    ("copy_to_1k", "copy_to 1 KiB buffer -> buffer", "us"),
    ("small_loop", "256 uint32: upload, copy, dispatch, copy, readback", "us"),
]
# Informational rows (no target): the first use after import, and the
# floor of gfxcuda's calls, its ctypes boundary.
INFO_ROWS = [
    ("first_buffer", "import + first Buffer(256) (devices, device)", "ms"),
    ("first_buffer_cold", "the same, cold page cache", "ms"),
    ("ctypes_noop", "  bound: ctypes call into C (gfxcuda_version)", "us"),
    ("ctypes_go", "  bound: ctypes call into Go (live_handles(&n))", "us"),
    ("buffer_calls", "  bound: Buffer(256) + del's 2 library calls alone", "us"),
]

SHADER = """RWByteAddressBuffer b : register(u0);
[numthreads(1, 1, 1)] void main(uint3 id : SV_DispatchThreadID) { b.Store(0, b.Load(0) + 1); }
"""
# The small loop's: x = 3x + 1 on each of 256 uint32 (4 groups of 64).
SMALL_SHADER = """RWByteAddressBuffer b : register(u0);
[numthreads(64, 1, 1)] void main(uint3 id : SV_DispatchThreadID) { b.Store(id.x * 4, b.Load(id.x * 4) * 3 + 1); }
"""
SMALL_N = 256


# ---- worker side (one library per process) --------------------------------

def _load(which, compushady_path):
    if which == "gfxcuda":
        sys.path.insert(0, GFXDIR[0])
        import gfxcuda as cs
    else:
        if compushady_path:
            sys.path.insert(0, compushady_path)
        import compushady as cs
        if getattr(cs, "__name__", "") != "compushady" or not hasattr(cs, "get_backend"):
            raise ImportError("not compushady")
        if os.path.normpath(os.path.dirname(os.path.dirname(os.path.abspath(cs.__file__)))) in (PYDIR, GFXDIR[0]):
            raise ImportError("that is gfxcuda, not compushady")
    return cs


def _per_op(fn, batches, per_batch):
    """The median over batches of the mean time of one call in a batch of
    per_batch calls, in seconds."""
    ts = []
    for _ in range(batches):
        t0 = time.perf_counter()
        fn(per_batch)
        ts.append((time.perf_counter() - t0) / per_batch)
    return statistics.median(ts)


def _each(fn, n, warm=2):
    for _ in range(warm):
        fn()
    ts = []
    for _ in range(n):
        t0 = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t0)
    return statistics.median(ts)


def _worker(which, spv_path, tiny, compushady_path):
    cs = _load(which, compushady_path)
    cs.get_current_device()
    rnd = os.urandom
    big = 1 * MiB if tiny else 64 * MiB
    it = (lambda full, small: small if tiny else full)
    out = {}

    # Buffer(256): the previous buffer is released when b is rebound.
    def buffers(n):
        b = None
        for _ in range(n):
            b = cs.Buffer(256)
        return b
    buffers(it(2000, 20))
    out["buffer"] = _per_op(buffers, it(60, 3), it(500, 10))

    # Buffer(256), then dropped: nothing else alive in between.
    def buffers_del(n):
        for _ in range(n):
            b = cs.Buffer(256)
            del b
    buffers_del(it(2000, 20))
    out["buffer_del"] = _per_op(buffers_del, it(60, 3), it(500, 10))

    fmt = importlib.import_module(cs.__name__ + ".formats").R8G8B8A8_UNORM

    def textures(n):
        t = None
        for _ in range(n):
            t = cs.Texture2D(256, 256, fmt)
        return t
    textures(it(200, 5))
    out["texture"] = _per_op(textures, it(30, 3), it(100, 5))

    up = cs.Buffer(big, cs.HEAP_UPLOAD)
    small = rnd(MiB)
    out["upload_1m"] = _each(lambda: up.upload(small), it(200, 3))
    data = rnd(big)
    out["upload_64m"] = _each(lambda: up.upload(data), it(15, 2))

    rb = cs.Buffer(big, cs.HEAP_READBACK)
    dflt = cs.Buffer(big)
    up.copy_to(dflt)
    dflt.copy_to(rb)
    if rb.readback() != data:
        raise SystemExit("%s: readback gave other bytes than were uploaded" % which)
    out["readback_64m"] = _each(lambda: rb.readback(), it(15, 2))
    into = bytearray(big)
    out["readback_into_64m"] = _each(lambda: rb.readback(into), it(15, 2))
    if into != data:
        raise SystemExit("%s: readback into a bytearray gave other bytes" % which)
    del rb, dflt, into, data

    src = cs.Buffer(MiB, cs.HEAP_UPLOAD)
    src.upload(rnd(MiB))
    dst = cs.Buffer(MiB)
    out["copy_to_1m"] = _each(lambda: src.copy_to(dst), it(300, 3))

    with open(spv_path, "rb") as f:
        spv = f.read()
    ub = cs.Buffer(16)
    cnt = cs.Buffer(16, cs.HEAP_READBACK)

    def counter():  # new memory is not zeroed (compushady's is not)
        ub.copy_to(cnt)
        return int.from_bytes(cnt.readback(4), "little")
    start = counter()
    k = cs.Compute(spv, uav=[ub])

    def dispatches(n):
        for _ in range(n):
            k.dispatch(1, 1, 1)
    dispatches(it(300, 5))
    n = it(1000, 20)
    out["dispatch_1000"] = _per_op(dispatches, it(7, 1), n) * 1000
    # Every dispatch ran: the counter went up once per call.
    got = (counter() - start) & 0xFFFFFFFF
    want = it(300, 5) + it(7, 1) * n
    if got != want:
        raise SystemExit("%s: the shader ran %d times, not %d" % (which, got, want))
    del k, ub, cnt

    # The small loop: 256 uint32 up, x = 3x + 1 on the GPU, back.
    nbytes = 4 * SMALL_N
    s_up = cs.Buffer(nbytes, cs.HEAP_UPLOAD)
    s_gpu = cs.Buffer(nbytes)
    s_rb = cs.Buffer(nbytes, cs.HEAP_READBACK)
    out["copy_to_1k"] = _each(lambda: s_up.copy_to(s_gpu), it(300, 3))
    with open(os.path.join(os.path.dirname(spv_path), "small.spv"), "rb") as f:
        k3 = cs.Compute(f.read(), uav=[s_gpu])
    words = rnd(nbytes)
    want = b"".join(((int.from_bytes(words[i:i + 4], "little") * 3 + 1) & 0xFFFFFFFF).to_bytes(4, "little")
                    for i in range(0, nbytes, 4))
    res = []

    def small_loop():
        s_up.upload(words)
        s_up.copy_to(s_gpu)
        k3.dispatch(SMALL_N // 64, 1, 1)
        s_gpu.copy_to(s_rb)
        res.append(s_rb.readback())
    out["small_loop"] = _each(small_loop, it(300, 3))
    if any(r != want for r in res):
        raise SystemExit("%s: the small loop read back other values than 3x + 1" % which)

    if which == "gfxcuda":
        import ctypes
        from gfxcuda import _lib
        f = _lib.lib.gfxcuda_version

        def noop(n):
            for _ in range(n):
                f()
        out["ctypes_noop"] = _per_op(noop, it(30, 2), it(2000, 10))
        g, ref = _lib.lib.gfxcuda_live_handles, ctypes.byref(_lib.u64())

        def go(n):
            for _ in range(n):
                g(ref)
        out["ctypes_go"] = _per_op(go, it(30, 2), it(2000, 10))
        # Buffer(256) + del's two library calls alone, as Buffer makes them
        # (the int entry points, without argtypes; the uint64 ones, with
        # them, before those existed).
        dh = cs.get_current_device().handle
        if hasattr(_lib.lib, "gfxcuda_buffer_create_int"):
            cr, rel = _lib.buffer_create_int, _lib._release_int
        else:
            cr, rel = _lib.lib.gfxcuda_buffer_create, _lib.lib.gfxcuda_release

        def pair(n):
            for _ in range(n):
                rel(cr(dh, 256, 0, 0, 0))
        pair(it(2000, 10))
        out["buffer_calls"] = _per_op(pair, it(60, 3), it(500, 10))
    json.dump(out, sys.stdout)


def _import_snippet(which, compushady_path):
    """A program that times `import <which>` in a clean interpreter (this
    script's own imports, json and re among them, would make it cheaper),
    then the first Buffer(256) (device discovery and opening)."""
    path = GFXDIR[0] if which == "gfxcuda" else compushady_path
    return ("import sys, time\n"
            + ("sys.path.insert(0, %r)\n" % path if path else "")
            + "t0 = time.perf_counter()\n"
            + "import %s\n" % which
            + "t1 = time.perf_counter()\n"
            + "%s.Buffer(256)\n" % which
            + "t2 = time.perf_counter()\n"
            + "sys.stdout.write('{\"import\": %r, \"first_buffer\": %r}' % (t1 - t0, t2 - t0))\n")


# ---- parent side -----------------------------------------------------------

def _env(which, pycache):
    env = dict(os.environ)
    if which == "gfxcuda":
        # Timings with the validation layer on measure the layer.
        env["GFXCUDA_VALIDATION"] = "0"
    else:
        env.setdefault("COMPUSHADY_BACKEND", "vulkan")
    # Import bytecode as an installed package does: compiled once, into a
    # private cache (the tree is left alone).
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = pycache
    return env


def _drop_caches():
    """Empties the whole page cache (root only; OSError otherwise)."""
    os.sync()
    with open("/proc/sys/vm/drop_caches", "w") as f:
        f.write("3\n")


def _cold_method(want):
    """How cold imports start from a cold page cache: "drop_caches" (the
    whole page cache, as root) or "fadvise" (the package's own files)."""
    if want in ("auto", "drop_caches"):
        try:
            _drop_caches()
            return "drop_caches"
        except OSError as e:
            if want == "drop_caches":
                raise SystemExit("--cold drop_caches: %s (needs root); --cold fadvise evicts the package's files" % e)
    return "fadvise"


def _evict(args, which):
    """Drops the page cache before a cold import (see _cold_method)."""
    if args.cold == "drop_caches":
        _drop_caches()
        return
    roots = [args.pycache]
    if which == "gfxcuda":
        roots.append(os.path.join(GFXDIR[0], "gfxcuda"))
        if os.environ.get("GFXCUDA_LIBRARY"):
            roots.append(os.environ["GFXCUDA_LIBRARY"])
    else:
        roots.append(args.compushady_dir)
    for root in roots:
        walk = [(root, [], [""])] if os.path.isfile(root) else os.walk(root)
        for d, _, names in walk:
            for n in names:
                try:
                    fd = os.open(os.path.join(d, n), os.O_RDONLY)
                except OSError:
                    continue
                try:
                    os.fdatasync(fd)  # DONTNEED drops clean pages only
                    os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
                except OSError:
                    pass
                finally:
                    os.close(fd)


def _run(args, which, mode, extra=()):
    if mode == "import_cold":
        _evict(args, which)
        res = _run(args, which, "import")
        return {"import_cold": res["import"], "first_buffer_cold": res["first_buffer"]}
    if mode == "import":
        cmd = [sys.executable, "-c", _import_snippet(which, args.compushady_path)]
    else:
        cmd = [sys.executable, os.path.abspath(__file__), "--worker", which, "--mode", mode,
               "--spv", args.spv, "--pycache", args.pycache] + list(extra)
        if args.compushady_path:
            cmd += ["--compushady-path", args.compushady_path]
        if GFXDIR[0] != PYDIR:
            cmd += ["--gfxcuda-path", GFXDIR[0]]
        if args.tiny:
            cmd.append("--tiny")
    p = subprocess.run(cmd, env=_env(which, args.pycache), capture_output=True, text=True, timeout=600)
    if p.returncode != 0:
        raise RuntimeError("%s %s worker failed (%d):\n%s%s" % (which, mode, p.returncode, p.stdout, p.stderr))
    return json.loads(p.stdout)


def _compushady_importable(args):
    try:
        args.compushady_dir = _run(args, "compushady", "probe")["dir"]
        return True, ""
    except Exception as e:  # not built, not on the path, no Vulkan device
        last = str(e).strip().splitlines()
        return False, last[-1] if last else "?"


def _fmt(v, unit):
    if v is None:
        return "-"
    return "%.3f" % (v * (1e3 if unit == "ms" else 1e6))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=5, help="processes per library for the calls (alternating)")
    ap.add_argument("--import-rounds", type=int, default=15, help="fresh processes per library for import")
    ap.add_argument("--cold-rounds", type=int, default=9, help="fresh processes per library for a cold import")
    ap.add_argument("--cold", choices=("auto", "drop_caches", "fadvise"), default="auto",
                    help="how a cold import's page cache is emptied: drop_caches (root), fadvise (the package's "
                         "files), auto (drop_caches where permitted; fadvise with --tiny)")
    ap.add_argument("--compushady-path", default=os.environ.get("COMPUSHADY_PATH", ""),
                    help="directory holding the compushady package (else PYTHONPATH)")
    ap.add_argument("--gfxcuda-path", default="",
                    help="directory holding the gfxcuda package to measure (default: this tree's python/); "
                         "e.g. the --target folder a wheel was installed into")
    ap.add_argument("--no-compushady", action="store_true", help="gfxcuda's column only")
    ap.add_argument("--tiny", action="store_true", help="a few iterations of each call (smoke test; numbers mean nothing)")
    ap.add_argument("--json", metavar="FILE", help="save the rows as JSON")
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    ap.add_argument("--mode", help=argparse.SUPPRESS)
    ap.add_argument("--spv", help=argparse.SUPPRESS)
    ap.add_argument("--pycache", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    args.compushady_dir = ""
    if args.gfxcuda_path:
        GFXDIR[0] = os.path.abspath(args.gfxcuda_path)

    if args.worker:
        if args.mode == "calls":
            _worker(args.worker, args.spv, args.tiny, args.compushady_path)
        elif args.mode == "probe":
            cs = _load(args.worker, args.compushady_path)
            cs.get_current_device()
            json.dump({"dir": os.path.dirname(os.path.abspath(cs.__file__))}, sys.stdout)
        elif args.mode == "shader":
            cs = _load("gfxcuda", "")
            with open(args.spv, "wb") as f:
                f.write(cs.hlsl.compile(SHADER))
            with open(os.path.join(os.path.dirname(args.spv), "small.spv"), "wb") as f:
                f.write(cs.hlsl.compile(SMALL_SHADER))
            json.dump({}, sys.stdout)
        return 0

    if args.tiny:
        args.rounds, args.import_rounds = 1, 2
        args.cold_rounds = 1
        if args.cold == "auto":
            args.cold = "fadvise"  # not the whole machine's page cache for a smoke run
    with tempfile.TemporaryDirectory(prefix="gfxcuda-side-") as tmp:
        args.spv = os.path.join(tmp, "inc.spv")
        args.pycache = os.path.join(tmp, "pycache")
        _run(args, "gfxcuda", "shader")
        libs = ["gfxcuda"]
        if args.no_compushady:
            print("compushady not importable: gfxcuda column only (--no-compushady)")
        else:
            ok, why = _compushady_importable(args)
            if ok:
                libs.append("compushady")
            else:
                print("compushady not importable: gfxcuda column only (%s)" % why)
        samples = {lib: {} for lib in libs}

        def add(lib, res):
            for k, v in res.items():
                samples[lib].setdefault(k, []).append(v)

        # Import: one untimed import each (page cache, bytecode), then
        # alternating fresh processes.
        for lib in libs:
            _run(args, lib, "import")
        for r in range(args.import_rounds):
            for lib in (libs if r % 2 == 0 else libs[::-1]):
                add(lib, _run(args, lib, "import"))
        # Cold: the page cache dropped before each process.
        args.cold = _cold_method(args.cold)
        for r in range(args.cold_rounds):
            for lib in (libs if r % 2 == 0 else libs[::-1]):
                add(lib, _run(args, lib, "import_cold"))
        for r in range(args.rounds):
            for lib in (libs if r % 2 == 0 else libs[::-1]):
                add(lib, _run(args, lib, "calls"))

    med = {lib: {k: statistics.median(v) for k, v in s.items()} for lib, s in samples.items()}
    g, c = med["gfxcuda"], med.get("compushady", {})
    rows = []
    print()
    print("%-56s %11s %11s %7s %7s  %s" % ("call", "gfxcuda", "compushady", "ratio", "target", ""))
    info = set(k for k, _, _ in INFO_ROWS)
    for key, label, unit in ROWS + INFO_ROWS:
        gv, cv = g.get(key), c.get(key)
        ratio = gv / cv if gv is not None and cv else None
        bound = key in info
        verdict = "" if ratio is None or bound else ("met" if ratio <= TARGET else "NOT met")
        rows.append({"call": key, "label": label.strip(), "unit": unit,
                     "gfxcuda": None if gv is None else gv * (1e3 if unit == "ms" else 1e6),
                     "compushady": None if cv is None else cv * (1e3 if unit == "ms" else 1e6),
                     "ratio": ratio, "target": None if bound else TARGET, "verdict": verdict})
        print("%-56s %11s %11s %7s %7s  %s" % (
            "%s (%s)" % (label, unit), _fmt(gv, unit), _fmt(cv, unit),
            "-" if ratio is None else "%.2fx" % ratio, "" if bound else "<=%.1fx" % TARGET, verdict))
    print("(medians of %d alternating processes per library, %d for import, %d for cold import%s)" % (
        args.rounds, args.import_rounds, args.cold_rounds, "; --tiny: the numbers mean nothing" if args.tiny else ""))
    print("(cold: %s)" % ("the page cache dropped before each process (echo 3 > /proc/sys/vm/drop_caches)"
                          if args.cold == "drop_caches" else
                          "the package's files, its library and bytecode evicted before each process "
                          "(posix_fadvise DONTNEED; the rest of the page cache stays warm)"))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"libraries": libs, "rounds": args.rounds, "import_rounds": args.import_rounds,
                       "cold_rounds": args.cold_rounds, "cold_method": args.cold,
                       "tiny": args.tiny, "python": sys.version.split()[0], "rows": rows,
                       "samples": samples}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
