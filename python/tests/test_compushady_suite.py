"""scripts/compushady-suite.py, the runner of compushady's test suite, on a
tiny synthetic suite of our own (so that the runner itself is tested)."""

import json
import os
import subprocess
import sys
import textwrap

import gfxcuda

PKG_PARENT = os.path.dirname(os.path.dirname(os.path.abspath(gfxcuda.__file__)))
_TESTS = os.path.dirname(os.path.abspath(__file__))
# In a checkout: scripts/; in the GPU bundle (make gpu-bundle): next to the
# package, in the python folder.
RUNNER = next((p for p in (os.path.join(_TESTS, "..", "..", "scripts", "compushady-suite.py"),
                           os.path.join(_TESTS, "..", "compushady-suite.py")) if os.path.exists(p)),
              os.path.join(_TESTS, "..", "..", "scripts", "compushady-suite.py"))

SUITE = {
    "test_one.py": '''
        import os
        import unittest
        from compushady import Buffer, HEAP_UPLOAD, HEAP_READBACK
        from compushady.formats import R8G8B8A8_UINT


        class OneTests(unittest.TestCase):
            def test_roundtrip(self):
                data = os.urandom(256)
                b0 = Buffer(256, HEAP_UPLOAD)
                b0.upload(data)
                b1 = Buffer(256, HEAP_READBACK)
                b0.copy_to(b1)
                self.assertEqual(b1.readback(), data)

            def test_fails(self):
                self.assertEqual(Buffer(8, HEAP_UPLOAD).size, 9, "deliberately wrong")
    ''',
    # Import errors count every test in the file (found in its source).
    "test_noimport.py": '''
        import unittest
        from compushady.shaders import no_such_language


        class NoImportTests(unittest.TestCase):
            def test_a(self):
                pass

            def test_b(self):
                pass
    ''',
    # Not run unless --all.
    "test_dxc.py": '''
        import unittest


        class DXCTests(unittest.TestCase):
            def test_never(self):
                raise RuntimeError("test_dxc.py ran")
    ''',
}


def _suite(tmp_path):
    d = tmp_path / "checkout" / "test"
    d.mkdir(parents=True)
    for name, src in SUITE.items():
        (d / name).write_text(textwrap.dedent(src))
    return d.parent


def _run(tmp_path, *args):
    env = dict(os.environ, PYTHONUSERBASE=str(tmp_path / "userbase"), TMPDIR=str(tmp_path))
    return subprocess.run([sys.executable, RUNNER, "--pythonpath", PKG_PARENT] + list(args), env=env,
                          cwd=str(tmp_path), capture_output=True, text=True, timeout=600)


def test_runner_table_json_and_exit_status(tmp_path):
    checkout = _suite(tmp_path)
    out = tmp_path / "out.json"
    r = _run(tmp_path, str(checkout), "--json", str(out))
    assert r.returncode == 1, r.stdout + r.stderr
    rows = {row["file"]: row for row in json.loads(out.read_text())["files"]}
    one = rows["test_one.py"]
    assert (one["tests"], one["passed"], one["failed"], one["errors"], one["skipped"]) == (2, 1, 1, 0, 0)
    fails = [t for t in one["results"] if t["outcome"] == "failed"]
    assert fails[0]["id"] == "test_one.py::OneTests::test_fails" and "deliberately wrong" in fails[0]["reason"]
    noimp = rows["test_noimport.py"]
    assert (noimp["tests"], noimp["errors"], noimp["note"]) == (2, 2, "import failed")
    assert "no_such_language" in noimp["results"][0]["reason"]
    assert rows["test_dxc.py"]["run"] is False and "needs DXC" in rows["test_dxc.py"]["note"]
    assert "test_one.py::OneTests::test_fails  failed (unexpected): AssertionError" in r.stdout, r.stdout
    # The copy went to a temporary folder, which is gone; the checkout is as it was.
    assert sorted(os.listdir(checkout / "test")) == sorted(SUITE)
    assert not [n for n in os.listdir(tmp_path) if n.startswith("compushady-suite-")]


def test_runner_expect_fail_and_markdown(tmp_path):
    checkout = _suite(tmp_path)
    r = _run(tmp_path, str(checkout / "test"), "--markdown", "--expect-fail", "test_one.py::*::test_fails",
             "--expect-fail", "test_noimport.py")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "| `test_one.py` | 2 | 1 | 1 | 0 | 0 |" in r.stdout, r.stdout
    assert "| `test_dxc.py` | – | – | – | – | – | needs DXC (not run) |" in r.stdout, r.stdout
    assert "0 unexpected failure(s)" in r.stdout
    r = _run(tmp_path, str(checkout), "--all", "--only", "test_dxc.py")
    assert r.returncode == 1 and "test_dxc.py ran" in r.stdout, r.stdout + r.stderr


def test_runner_needs_a_source(tmp_path):
    r = _run(tmp_path, str(tmp_path / "nowhere"))
    assert r.returncode == 2 and "is not a folder" in r.stderr, r.stderr
