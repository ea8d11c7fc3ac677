"""python/bench/dlpack_exchange.py runs (a smoke run: --tiny). It asserts
no timings, only that each row ran and took the path it must: the C rows
the exchange, __dlpack__ and hidden tables the Python protocol."""

import json
import os
import subprocess
import sys

here = os.path.dirname(os.path.abspath(__file__))
bench = os.path.join(here, "..", "bench", "dlpack_exchange.py")


def test_bench_smoke(tmp_path):
    out = tmp_path / "rows.json"
    r = subprocess.run([sys.executable, bench, "--tiny", "--json", str(out)], capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    rows = {row["call"]: row for row in json.loads(out.read_text())["rows"]}
    assert rows["buf.__dlpack__(max_version=(1, 0))"]["visible_path"] == "__dlpack__"
    for row in rows.values():
        assert row["visible"] > 0, row
        if row["call"].startswith(("C:", "ctypes:")):
            assert row["visible_path"] == "C exchange", row
        if "hidden_path" in row:
            assert row["hidden_path"] == "__dlpack__", row  # a hidden table is never used
    assert "ctypes: managed_tensor_from_py_object_no_sync + deleter" in rows
