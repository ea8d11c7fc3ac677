"""`import gfxcuda` does not load the C library (15 MB, and its Go runtime
starts when it loads): the first use does, and works. Each case runs in a
fresh interpreter, where nothing has loaded it yet."""

import json
import os
import subprocess
import sys

here = os.path.dirname(os.path.abspath(__file__))
pydir = os.path.normpath(os.path.join(here, ".."))
version_file = os.path.join(pydir, "VERSION")

# Prints whether libgfxcuda.so is mapped into the process (/proc/self/maps).
PRELUDE = """
import json, os, sys
sys.path.insert(0, %r)
def mapped():
    with open("/proc/self/maps") as f:
        return any("libgfxcuda" in line for line in f)
""" % pydir


def _run(body, env=None):
    e = dict(os.environ)
    e.update(env or {})
    r = subprocess.run([sys.executable, "-c", PRELUDE + body], capture_output=True, text=True, timeout=120, env=e)
    assert r.returncode == 0, r.stdout + r.stderr
    return json.loads(r.stdout.strip().splitlines()[-1])


def test_import_does_not_load_the_library_and_first_use_does():
    out = _run("""
import gfxcuda
from gfxcuda import _lib
after_import = mapped()
v = gfxcuda.__version__
after_version = mapped()
b = gfxcuda.Buffer(16, gfxcuda.HEAP_UPLOAD)
b.upload(b"first use works!")
r = gfxcuda.Buffer(16, gfxcuda.HEAP_READBACK)
b.copy_to(r)
print(json.dumps({"after_import": after_import, "after_version": after_version, "version": v,
                  "data": r.readback().decode(), "after_use": mapped(),
                  "lib_version": _lib.lib.gfxcuda_version().decode()}))
""")
    assert not out["after_import"], "import gfxcuda mapped libgfxcuda.so"
    assert not out["after_version"], "gfxcuda.__version__ loaded the library"
    assert out["data"] == "first use works!"
    assert out["after_use"]
    with open(version_file) as f:
        want = f.read().strip()
    assert out["version"] == want, "gfxcuda.__version__ %r, python/VERSION %r" % (out["version"], want)
    assert out["lib_version"] == want, "the library's gfxcuda_version() %r, python/VERSION %r" % (out["lib_version"], want)


def test_other_first_uses_load_it():
    # The first call of each kind loads the library: devices, formats, a
    # shader compile, the library object itself; and the hot paths bound
    # at import are the library's functions after the first use.
    out = _run("""
import gfxcuda
from gfxcuda import _compute, _lib
devs = [d.name for d in gfxcuda.get_discovered_devices()]
res = {"devices": devs, "mapped": mapped()}
res["fmt"] = gfxcuda.formats.R8G8B8A8_UNORM
res["spv"] = len(gfxcuda.hlsl.compile("RWByteAddressBuffer b : register(u0); [numthreads(1,1,1)] void main() { b.Store(0, 1); }"))
b = gfxcuda.Buffer(4)
res["bound"] = _compute._buffer_create_int is _lib.buffer_create_int  # the small buffers' one
res["live"] = gfxcuda.live_handles() > 0
print(json.dumps(res))
""")
    assert out["devices"] and out["mapped"], out
    assert out["fmt"] == 37 and out["spv"] > 0 and out["bound"] and out["live"], out
    out = _run("""
from gfxcuda import _lib
print(json.dumps({"v": _lib.lib.gfxcuda_version().decode(), "mapped": mapped()}))
""")
    assert out["mapped"] and out["v"]


def test_missing_library_fails_at_first_use_with_the_fix():
    missing = "/nonexistent/libgfxcuda.so"
    out = _run("""
import gfxcuda
res = {"imported": True}
try:
    gfxcuda.Buffer(16)
except ImportError as e:
    res.update(cls=type(e).__name__, msg=str(e), gfx=isinstance(e, gfxcuda.GfxcudaError), path=e.path)
try:
    gfxcuda.get_discovered_devices()
except gfxcuda.LibraryNotFoundError as e:
    res["again"] = str(e)
print(json.dumps(res))
""", env={"GFXCUDA_LIBRARY": missing})
    assert out["imported"]
    assert out["cls"] == "LibraryNotFoundError" and out["gfx"], out
    assert missing in out["msg"], out["msg"]
    _pip_first(out["msg"])
    assert out["path"] == missing
    assert out["again"] == out["msg"]


def test_library_that_does_not_load(tmp_path):
    bad = tmp_path / "libgfxcuda.so"
    bad.write_bytes(b"not an ELF file")
    out = _run("""
import gfxcuda
try:
    gfxcuda.Buffer(16)
    res = {"msg": "no error"}
except gfxcuda.LibraryNotFoundError as e:
    res = {"msg": str(e)}
print(json.dumps(res))
""", env={"GFXCUDA_LIBRARY": str(bad)})
    assert str(bad) in out["msg"] and "does not load" in out["msg"], out["msg"]
    _pip_first(out["msg"])


def _pip_first(msg):
    # The user's way (pip) comes first, the developer's (make) after it.
    pip, make = msg.find("pip install gfxcuda"), msg.find("make python")
    assert 0 <= pip < make and "pip install ." in msg and "make lib" in msg, msg


def test_fork_after_import_before_use():
    # A child forked after `import gfxcuda` is refused (as after a use),
    # and the refusal does not load the library there.
    out = _run("""
import select
import gfxcuda
r, w = os.pipe()
pid = os.fork()
if pid == 0:
    os.close(r)
    try:
        gfxcuda.Buffer(16)
        msg = "no error"
    except gfxcuda.ForkedProcessError as e:
        msg = "refused: " + str(e)
    except BaseException as e:
        msg = repr(e)
    os.write(w, json.dumps({"msg": msg, "mapped": mapped()}).encode())
    os._exit(0)
os.close(w)
ready, _, _ = select.select([r], [], [], 60)
child = json.loads(os.read(r, 65536)) if ready else {"msg": "timeout", "mapped": None}
os.waitpid(pid, 0)
b = gfxcuda.Buffer(16)  # the parent still works
print(json.dumps({"child": child, "parent_mapped": mapped()}))
""")
    assert out["child"]["msg"].startswith("refused: ") and "spawn" in out["child"]["msg"], out
    assert out["child"]["mapped"] is False, out
    assert out["parent_mapped"]
