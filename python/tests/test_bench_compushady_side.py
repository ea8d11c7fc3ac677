"""python/bench/compushady_side.py runs (a smoke run: --tiny, a few
iterations of each call). It asserts no timings: those are the
benchmark's to report (BENCHMARKS.md)."""

import json
import os
import subprocess
import sys

here = os.path.dirname(os.path.abspath(__file__))
bench = os.path.join(here, "..", "bench", "compushady_side.py")


def _run(tmp_path, *args):
    out = tmp_path / "rows.json"
    r = subprocess.run([sys.executable, bench, "--tiny", "--json", str(out)] + list(args),
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    return r.stdout, json.loads(out.read_text())


def _check_gfxcuda_column(doc):
    rows = {row["call"]: row for row in doc["rows"]}
    for call in ("import", "import_cold", "buffer", "buffer_del", "texture", "upload_1m", "upload_64m", "readback_64m",
                 "readback_into_64m", "copy_to_1m", "dispatch_1000", "copy_to_1k", "small_loop", "first_buffer",
                 "first_buffer_cold", "ctypes_noop", "ctypes_go", "buffer_calls"):
        assert rows[call]["gfxcuda"] > 0, rows[call]
    assert doc["libraries"][0] == "gfxcuda"
    # A smoke run evicts the package's own files for its cold import (not
    # the machine's whole page cache), and says so.
    assert doc["cold_method"] == "fadvise" and doc["cold_rounds"] == 1


def test_gfxcuda_column_alone(tmp_path):
    stdout, doc = _run(tmp_path, "--no-compushady")
    assert "gfxcuda column only" in stdout
    _check_gfxcuda_column(doc)
    assert doc["libraries"] == ["gfxcuda"]
    assert all(row["compushady"] is None and row["verdict"] == "" for row in doc["rows"])


def test_without_compushady_degrades(tmp_path):
    # A `compushady` that cannot be imported, first on the path: the run
    # goes on with gfxcuda's column, saying why.
    fake = tmp_path / "path" / "compushady"
    fake.mkdir(parents=True)
    (fake / "__init__.py").write_text("raise ImportError('not built here')\n")
    stdout, doc = _run(tmp_path, "--compushady-path", str(tmp_path / "path"))
    assert "compushady not importable: gfxcuda column only" in stdout and "not built here" in stdout
    _check_gfxcuda_column(doc)
