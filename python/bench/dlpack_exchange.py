"""DLPack hand-offs of a gfxcuda array, per call: through Python's
__dlpack__ and through DLPack 1.3's C exchange API
(__dlpack_c_exchange_api__), in one run.

    python bench/dlpack_exchange.py [--n 2000] [--rounds 21] [--json out.json] [--tiny]

Rows:
  torch.from_dlpack(buf) and cuda.core's StridedMemoryView.from_dlpack(buf,
    stream_ptr=-1), with the table visible on the array's type and hidden
    (a subclass setting __dlpack_c_exchange_api__ = None); the "path"
    columns say which one the consumer took, read from the library's call
    counters of the exchange functions (gfxcuda_dlpack_exchange_calls);
  buf.__dlpack__(max_version=(1, 0)) alone;
  the exchange functions called from C (python/bench/dlpack_exchange_consumer.c,
    compiled here with gcc): managed tensor and its deleter, DLTensor view,
    the view with the consumer's per-call type lookup, and gfxcuda → torch
    through both tables (our managed_tensor_from_py_object_no_sync, torch's
    managed_tensor_to_py_object_no_sync);
  the managed-tensor function called from Python through ctypes.
Each figure is the median over rounds of the mean of n calls. Without CUDA
(or torch, cuda.core, gcc) the rows that need them are left out; on the CPU
the array is a host ring slot (lavapipe) or, without Vulkan, a CudaBuffer
wrapping an address nobody reads (descriptions only)."""

import argparse
import ctypes
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

here = os.path.dirname(os.path.abspath(__file__))
if os.environ.get("GFXCUDA_TEST_INSTALLED") != "1":
    sys.path.insert(0, os.path.join(here, ".."))

import gfxcuda  # noqa: E402
from gfxcuda import _lib  # noqa: E402

SHAPE = (256, 256)


def per_call(f, n, rounds):
    """Median over rounds of the mean seconds of n calls of f."""
    times = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        for _ in range(n):
            f()
        times.append((time.perf_counter() - t0) / n)
    return statistics.median(times)


def path_of(f, n):
    """'C exchange' when n calls of f ran the exchange's tensor functions at
    least n times, '__dlpack__' when they ran none."""
    before = _lib.dlpack_exchange_calls()
    for _ in range(n):
        f()
    after = _lib.dlpack_exchange_calls()
    ran = sum(after[k] - before[k] for k in ("managed_tensor_from_py_object_no_sync",
                                            "dltensor_from_py_object_no_sync"))
    return "C exchange" if ran >= n else "__dlpack__" if ran == 0 else "mixed (%d of %d)" % (ran, n)


def build_consumer(tmp):
    if shutil.which("gcc") is None:
        return None
    so = os.path.join(tmp, "consumer.so")
    subprocess.run(["gcc", "-std=c11", "-shared", "-fPIC", "-O2", "-o", so,
                    os.path.join(here, "dlpack_exchange_consumer.c")], check=True)
    c = ctypes.PyDLL(so)
    po = ctypes.py_object
    c.consumer_loop.argtypes = [po, ctypes.c_int64, ctypes.c_int]
    c.consumer_loop.restype = ctypes.c_double
    c.consumer_convert_loop.argtypes = [po, po, ctypes.c_int64]
    c.consumer_convert_loop.restype = ctypes.c_double
    return c


def c_loop(fn, rounds, *args):
    """Median over rounds of a C loop's nanoseconds per call, in seconds."""
    return statistics.median(fn(*args) for _ in range(rounds)) * 1e-9


def arrays():
    """(array with the table, the same kind hidden, what it is, torch or None)."""
    torch = None
    if gfxcuda.cuda_available():
        try:
            import torch
            if not torch.cuda.is_available():
                torch = None
        except ImportError:
            torch = None
        Hidden = type("SharedBufferHidden", (gfxcuda.SharedBuffer,), {"__dlpack_c_exchange_api__": None})
        return gfxcuda.SharedBuffer(SHAPE, "float32"), Hidden(SHAPE, "float32"), "SharedBuffer %s float32" % (SHAPE,), torch
    try:
        gfxcuda.get_current_device().handle
        ring = gfxcuda.Ring(SHAPE, "float32", slots=2)
        keep.append(ring)
        s = ring.slot(0)
        Hidden = type("SlotHidden", (type(s),), {"__dlpack_c_exchange_api__": None})
        h = ring.slot(1)
        h.__class__ = Hidden
        return s, h, "host ring Slot %s float32 (no CUDA)" % (SHAPE,), None
    except gfxcuda.GfxcudaError:
        Hidden = type("CudaBufferHidden", (gfxcuda.CudaBuffer,), {"__dlpack_c_exchange_api__": None})
        return (gfxcuda.CudaBuffer.from_cuda(1 << 20, SHAPE, "float32"),
                Hidden.from_cuda(1 << 20, SHAPE, "float32"), "CudaBuffer.from_cuda description only (no device)", None)


keep = []


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=2000, help="calls per round")
    ap.add_argument("--rounds", type=int, default=21)
    ap.add_argument("--json", help="also write the rows here")
    ap.add_argument("--tiny", action="store_true", help="a smoke run: few calls")
    a = ap.parse_args()
    n, rounds = (50, 3) if a.tiny else (a.n, a.rounds)
    if gfxcuda._cuda.DLPACK_EXCHANGE_API is None:
        sys.exit("the library offers no C exchange API here (GFXCUDA_DLPACK_C_EXCHANGE=0?)")
    buf, hidden, what, torch = arrays()
    rows = []  # (consumer, visible s, path, hidden s, path)

    def both(name, f):
        vis = per_call(lambda: f(buf), n, rounds)
        hid = per_call(lambda: f(hidden), n, rounds)
        rows.append(dict(call=name, visible=vis, visible_path=path_of(lambda: f(buf), n),
                         hidden=hid, hidden_path=path_of(lambda: f(hidden), n)))

    if torch is not None:
        torch.cuda.synchronize()
        both("torch.from_dlpack(buf)", torch.from_dlpack)
    smv = None
    if torch is not None:
        for mod in ("cuda.core", "cuda.core.utils", "cuda.core.experimental.utils"):
            try:
                smv = __import__(mod, fromlist=["StridedMemoryView"]).StridedMemoryView
                break
            except (ImportError, AttributeError):
                pass
    if smv is not None:
        both("StridedMemoryView.from_dlpack(buf, stream_ptr=-1)", lambda x: smv.from_dlpack(x, stream_ptr=-1))
    both("buf.__dlpack__(max_version=(1, 0))", lambda x: x.__dlpack__(max_version=(1, 0)))

    api_ptr = _lib.PyCapsule_GetPointer(type(buf).__dlpack_c_exchange_api__, b"dlpack_exchange_api")
    from_py = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.py_object, ctypes.POINTER(ctypes.c_void_p))(
        ctypes.c_void_p.from_address(api_ptr + 24).value)
    out = ctypes.c_void_p()
    from_py(buf, ctypes.byref(out))
    deleter = ctypes.CFUNCTYPE(None, ctypes.c_void_p)(ctypes.c_void_p.from_address(out.value + 16).value)
    deleter(out.value)  # every tensor of ours has this deleter
    ref = ctypes.byref(out)

    def ctypes_exchange():
        from_py(buf, ref)
        deleter(out.value)

    rows.append(dict(call="ctypes: managed_tensor_from_py_object_no_sync + deleter",
                     visible=per_call(ctypes_exchange, n, rounds), visible_path="C exchange"))

    with tempfile.TemporaryDirectory() as tmp:
        c = build_consumer(tmp)
        if c is not None:
            m = max(n * 10, 1000)
            for mode, name in ((0, "C: managed_tensor_from_py_object_no_sync + deleter"),
                               (1, "C: dltensor_from_py_object_no_sync"),
                               (2, "C: type(obj) lookup + version check + dltensor view"),
                               (3, "C: current_work_stream")):
                rows.append(dict(call=name, visible=c_loop(c.consumer_loop, rounds, buf, m, mode),
                                 visible_path="C exchange"))
            if torch is not None and getattr(torch.Tensor, "__dlpack_c_exchange_api__", None) is not None:
                probe = torch.empty(1, device="cuda")
                rows.append(dict(call="C: gfxcuda → torch.Tensor through both tables",
                                 visible=c_loop(c.consumer_convert_loop, rounds, buf, probe, m),
                                 visible_path="C exchange"))

    print("DLPack hand-offs of a %s, per call (median of %d rounds of %d calls)" % (what, rounds, n))
    print("%-58s %12s  %-12s %12s  %-12s" % ("call", "table", "path", "hidden", "path"))
    for r in rows:
        hid = "%10.3f µs" % (r["hidden"] * 1e6) if "hidden" in r else ""
        print("%-58s %10.3f µs  %-12s %12s  %-12s" % (r["call"], r["visible"] * 1e6, r["visible_path"], hid,
                                                     r.get("hidden_path", "")))
    print("torch %s, cuda.core %s" % (getattr(torch, "__version__", "absent"),
                                      "present" if smv is not None else "absent"))
    if a.json:
        with open(a.json, "w") as f:
            json.dump(dict(array=what, n=n, rounds=rounds, rows=rows,
                           torch=getattr(torch, "__version__", None)), f, indent=1)


if __name__ == "__main__":
    main()
