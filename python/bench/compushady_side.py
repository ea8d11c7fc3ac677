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
  Texture2D(256, 256, RGBA8)     the same for a texture
  upload 1 MiB / 64 MiB          into a HEAP_UPLOAD buffer
  readback() 64 MiB              into new bytes, from a HEAP_READBACK buffer
  readback(bytearray) 64 MiB     into a preallocated bytearray
  copy_to 1 MiB                  HEAP_UPLOAD buffer -> HEAP_DEFAULT buffer (waited)
  1,000 dispatch(1,1,1)          waited, one UAV bound (the same SPIR-V for both)
  import                         `import gfxcuda` / `import compushady` in a fresh
                                 process, warm page cache, bytecode compiled
                                 (both from a private PYTHONPYCACHEPREFIX)
Informational rows (no target): `import` + the first Buffer(256) (device
discovery and opening), and, in gfxcuda's column, the floor of its calls:
a ctypes call into C (gfxcuda_version, no Go) and into Go
(gfxcuda_live_handles(&n)).

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
MiB = 1 << 20
TARGET = 1.2

# (key, label, unit): the order of the table.
ROWS = [
    ("import", "import", "ms"),
    ("buffer", "Buffer(256), each further one", "us"),
    ("texture", "Texture2D(256, 256, RGBA8), each further one", "us"),
    ("upload_1m", "upload 1 MiB (HEAP_UPLOAD)", "us"),
    ("upload_64m", "upload 64 MiB (HEAP_UPLOAD)", "ms"),
    ("readback_64m", "readback() 64 MiB into new bytes", "ms"),
    ("readback_into_64m", "readback(bytearray) 64 MiB", "ms"),
    ("copy_to_1m", "copy_to 1 MiB buffer -> buffer", "us"),
    ("dispatch_1000", "1,000 waited dispatch(1,1,1)", "ms"),
]
# Informational rows (no target): the first use after import, and the
# floor of gfxcuda's calls, its ctypes boundary.
INFO_ROWS = [
    ("first_buffer", "import + first Buffer(256) (devices, device)", "ms"),
    ("ctypes_noop", "  bound: ctypes call into C (gfxcuda_version)", "us"),
    ("ctypes_go", "  bound: ctypes call into Go (live_handles(&n))", "us"),
]

SHADER = """RWByteAddressBuffer b : register(u0);
[numthreads(1, 1, 1)] void main(uint3 id : SV_DispatchThreadID) { b.Store(0, b.Load(0) + 1); }
"""


# ---- worker side (one library per process) --------------------------------

def _load(which, compushady_path):
    if which == "gfxcuda":
        sys.path.insert(0, PYDIR)
        import gfxcuda as cs
    else:
        if compushady_path:
            sys.path.insert(0, compushady_path)
        import compushady as cs
        if getattr(cs, "__name__", "") != "compushady" or not hasattr(cs, "get_backend"):
            raise ImportError("not compushady")
        if os.path.normpath(os.path.dirname(os.path.dirname(os.path.abspath(cs.__file__)))) == PYDIR:
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
    json.dump(out, sys.stdout)


def _import_snippet(which, compushady_path):
    """A program that times `import <which>` in a clean interpreter (this
    script's own imports, json and re among them, would make it cheaper),
    then the first Buffer(256) (device discovery and opening)."""
    path = PYDIR if which == "gfxcuda" else compushady_path
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


def _run(args, which, mode, extra=()):
    if mode == "import":
        cmd = [sys.executable, "-c", _import_snippet(which, args.compushady_path)]
    else:
        cmd = [sys.executable, os.path.abspath(__file__), "--worker", which, "--mode", mode,
               "--spv", args.spv, "--pycache", args.pycache] + list(extra)
        if args.compushady_path:
            cmd += ["--compushady-path", args.compushady_path]
        if args.tiny:
            cmd.append("--tiny")
    p = subprocess.run(cmd, env=_env(which, args.pycache), capture_output=True, text=True, timeout=600)
    if p.returncode != 0:
        raise RuntimeError("%s %s worker failed (%d):\n%s%s" % (which, mode, p.returncode, p.stdout, p.stderr))
    return json.loads(p.stdout)


def _compushady_importable(args):
    try:
        _run(args, "compushady", "probe")
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
    ap.add_argument("--compushady-path", default=os.environ.get("COMPUSHADY_PATH", ""),
                    help="directory holding the compushady package (else PYTHONPATH)")
    ap.add_argument("--no-compushady", action="store_true", help="gfxcuda's column only")
    ap.add_argument("--tiny", action="store_true", help="a few iterations of each call (smoke test; numbers mean nothing)")
    ap.add_argument("--json", metavar="FILE", help="save the rows as JSON")
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    ap.add_argument("--mode", help=argparse.SUPPRESS)
    ap.add_argument("--spv", help=argparse.SUPPRESS)
    ap.add_argument("--pycache", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)

    if args.worker:
        if args.mode == "calls":
            _worker(args.worker, args.spv, args.tiny, args.compushady_path)
        elif args.mode == "probe":
            cs = _load(args.worker, args.compushady_path)
            cs.get_current_device()
            json.dump({}, sys.stdout)
        elif args.mode == "shader":
            cs = _load("gfxcuda", "")
            with open(args.spv, "wb") as f:
                f.write(cs.hlsl.compile(SHADER))
            json.dump({}, sys.stdout)
        return 0

    if args.tiny:
        args.rounds, args.import_rounds = 1, 2
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
        for r in range(args.rounds):
            for lib in (libs if r % 2 == 0 else libs[::-1]):
                add(lib, _run(args, lib, "calls"))

    med = {lib: {k: statistics.median(v) for k, v in s.items()} for lib, s in samples.items()}
    g, c = med["gfxcuda"], med.get("compushady", {})
    rows = []
    print()
    print("%-52s %11s %11s %7s %7s  %s" % ("call", "gfxcuda", "compushady", "ratio", "target", ""))
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
        print("%-52s %11s %11s %7s %7s  %s" % (
            "%s (%s)" % (label, unit), _fmt(gv, unit), _fmt(cv, unit),
            "-" if ratio is None else "%.2fx" % ratio, "" if bound else "<=%.1fx" % TARGET, verdict))
    print("(medians of %d alternating processes per library, %d for import%s)" % (
        args.rounds, args.import_rounds, "; --tiny: the numbers mean nothing" if args.tiny else ""))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"libraries": libs, "rounds": args.rounds, "import_rounds": args.import_rounds,
                       "tiny": args.tiny, "python": sys.version.split()[0], "rows": rows,
                       "samples": samples}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
