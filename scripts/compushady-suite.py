#!/usr/bin/env python3
"""Runs compushady's own test suite against gfxcuda.

    scripts/compushady-suite.py [SOURCE] [options]

SOURCE is a compushady checkout (with test/), its test/ folder, a bare git
repository of it (its test/ is taken with `git archive HEAD test`), or a
git URL to clone; without one, https://github.com/rdeioris/compushady is
cloned (this needs the network: without it, say so and pass a local path).

The test folder is copied into a temporary directory (never into this
repository) and each test_*.py runs there in a fresh interpreter with the
name `compushady` mapped to gfxcuda by gfxcuda's alias
(gfxcuda.compushady_alias.enable(): the same module objects; it refuses to
run if a real compushady is installed, which the alias never shadows).
gfxcuda comes from this repository's python/ (PYTHONPATH, the default when
the script sits in a checkout), from --pythonpath DIR, or, with
--installed, from the interpreter's installed packages (the wheel).

It prints a per-file table (file, tests, passed, failed, errors, skipped)
and, for each test that did not pass, its outcome and a one-line reason.
test_dxc.py and test_metal.py are listed as "needs DXC / Metal (not run)"
unless --all. An expected failure (unittest.expectedFailure) counts as
passed, an unexpected success as failed; a file whose import fails counts
every test in it (found by reading its source) as an error with the import
error as the reason.

  --json FILE        also write everything as JSON
  --markdown         print the table and reasons as Markdown
  --expect-fail PAT  a failing test that is allowed (repeatable): a test id
                     file::Class::method, a file name (every test in it), or
                     a shell pattern (fnmatch) of ids
  --expect-fail-file FILE  the same, one per line (# comments)

The exit status is 0 when every test that failed or errored matches an
--expect-fail pattern, 1 when one does not, 2 when the suite could not be
run at all.
"""

import argparse
import ast
import fnmatch
import io
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile

URL = "https://github.com/rdeioris/compushady"
HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
NOT_RUN = {
    "test_dxc.py": "needs DXC (not run)",
    "test_metal.py": "needs Metal (not run)",
}

# Runs one test module in a fresh interpreter (cwd: the copied test
# folder) and writes its results as JSON to argv[1] after every test, so
# that a crash leaves what ran.
DRIVER = r'''
import importlib, json, os, sys, traceback, unittest
out, name = sys.argv[1], sys.argv[2]
sys.path.insert(0, os.getcwd())
res = {"tests": [], "fatal": None, "device": None, "gfxcuda": None}
PKG = None


def dump():
    with open(out + ".tmp", "w") as f:
        json.dump(res, f)
    os.replace(out + ".tmp", out)


def reason(err):
    etype, value, tb = err
    text = "".join(traceback.format_exception_only(etype, value)).strip()
    line = text.splitlines()[0] if text else etype.__name__
    if PKG:
        line = line.replace(PKG, "gfxcuda")  # no machine's paths in the table
    return line if len(line) <= 240 else line[:237] + "..."


def split(test):
    parts = test.id().split(".")
    return "::".join(parts[1:]) if len(parts) > 1 else test.id()


class Result(unittest.TestResult):
    def _add(self, test, outcome, why=""):
        res["tests"].append({"name": split(test), "outcome": outcome, "reason": why})
        dump()

    def addSuccess(self, test):
        super().addSuccess(test)
        self._add(test, "passed")

    def addFailure(self, test, err):
        super().addFailure(test, err)
        self._add(test, "failed", reason(err))

    def addError(self, test, err):
        super().addError(test, err)
        self._add(test, "error", reason(err))

    def addSkip(self, test, why):
        super().addSkip(test, why)
        self._add(test, "skipped", str(why).splitlines()[0] if why else "")

    def addExpectedFailure(self, test, err):
        super().addExpectedFailure(test, err)
        self._add(test, "expected-failure", reason(err))

    def addUnexpectedSuccess(self, test):
        super().addUnexpectedSuccess(test)
        self._add(test, "unexpected-success", "passed, but is marked expectedFailure")

    def addSubTest(self, test, subtest, err):
        super().addSubTest(test, subtest, err)
        if err is not None:
            failed = issubclass(err[0], test.failureException)
            self._add(subtest, "failed" if failed else "error", reason(err))


try:
    import gfxcuda
    from gfxcuda import compushady_alias
    PKG = os.path.dirname(os.path.abspath(gfxcuda.__file__))
    res["gfxcuda"] = "%s (%s)" % (gfxcuda.__version__, PKG)
except Exception as e:
    res["fatal"] = "gfxcuda cannot be imported: %s: %s" % (type(e).__name__, e)
    dump()
    sys.exit(3)
real = compushady_alias.real_compushady()
if real is not None or not compushady_alias.enable():
    res["fatal"] = ("a real compushady is installed (%s): the alias never shadows it, and this runner tests "
                    "gfxcuda; run in an environment without it" % real)
    dump()
    sys.exit(3)
try:
    res["device"] = gfxcuda.get_current_device().name
except Exception as e:
    res["device"] = "no device: %s" % e
dump()
try:
    module = importlib.import_module(name)
except BaseException:
    res["import_error"] = reason(sys.exc_info())
    dump()
    sys.exit(0)
suite = unittest.defaultTestLoader.loadTestsFromModule(module)
suite.run(Result())
dump()
'''


def die(msg):
    print("compushady-suite: " + msg, file=sys.stderr)
    sys.exit(2)


def fetch(source, tmp):
    """The path of a test folder for source (see the module's doc)."""
    if source is None or "://" in source or source.startswith("git@"):
        url = source or URL
        dest = os.path.join(tmp, "clone")
        try:
            r = subprocess.run(["git", "clone", "--quiet", "--depth", "1", url, dest], capture_output=True,
                               text=True, timeout=300)
            ok, err = r.returncode == 0, (r.stderr.strip().splitlines() or [""])[-1]
        except (OSError, subprocess.TimeoutExpired) as e:
            ok, err = False, str(e)
        if not ok:
            die("cannot clone %s (no network here?): %s\nPass the path of a compushady checkout or of its test/ "
                "folder instead." % (url, err))
        source = dest
    source = os.path.abspath(source)
    if not os.path.isdir(source):
        die("%s is not a folder" % source)
    if any(n.startswith("test_") and n.endswith(".py") for n in os.listdir(source)):
        return source
    if os.path.isdir(os.path.join(source, "test")):
        return os.path.join(source, "test")
    r = subprocess.run(["git", "-C", source, "archive", "HEAD", "test"], capture_output=True)
    if r.returncode == 0 and r.stdout:
        dest = os.path.join(tmp, "archive")
        with tarfile.open(fileobj=io.BytesIO(r.stdout)) as t:
            if hasattr(tarfile, "data_filter"):
                t.extractall(dest, filter="data")
            else:
                t.extractall(dest)
        return os.path.join(dest, "test")
    die("%s has no test_*.py, no test/ folder and is no git repository with one" % source)


def count_tests(path):
    """file::Class::method of the test methods in a test file's source."""
    try:
        tree = ast.parse(open(path, encoding="utf-8").read(), path)
    except (SyntaxError, OSError, UnicodeDecodeError):
        return []
    names = []
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and item.name.startswith("test"):
                    names.append("%s::%s" % (node.name, item.name))
    return names


def run_file(args, driver, testdir, name, env):
    out = os.path.join(os.path.dirname(driver), name + ".json")
    row = {"file": name, "run": True, "note": "", "results": []}
    try:
        p = subprocess.run([args.python, driver, out, name[:-3]], cwd=testdir, env=env, capture_output=True,
                           text=True, timeout=args.timeout)
        rc, tail = p.returncode, (p.stderr or p.stdout).strip().splitlines()[-1:] or [""]
    except subprocess.TimeoutExpired:
        rc, tail = None, ["timed out after %d s" % args.timeout]
    res = {}
    if os.path.exists(out):
        with open(out) as f:
            res = json.load(f)
    if res.get("fatal"):
        die("%s: %s" % (name, res["fatal"]))
    row["device"], row["gfxcuda"] = res.get("device"), res.get("gfxcuda")
    if "import_error" in res:
        ids = count_tests(os.path.join(testdir, name)) or ["<import>"]
        row["note"] = "import failed"
        row["results"] = [{"id": "%s::%s" % (name, t), "outcome": "error", "reason": res["import_error"]} for t in ids]
    else:
        row["results"] = [dict(id="%s::%s" % (name, t["name"]), outcome=t["outcome"], reason=t["reason"])
                          for t in res.get("tests", [])]
        if rc != 0:
            why = tail[0] if rc is None else "the interpreter exited with status %d: %s" % (rc, tail[0])
            row["note"] = "crashed" if rc is not None else "timed out"
            row["results"].append({"id": "%s::<process>" % name, "outcome": "error", "reason": why})
    tally(row)
    return row


def tally(row):
    c = {"tests": 0, "passed": 0, "failed": 0, "errors": 0, "skipped": 0}
    for r in row["results"]:
        c["tests"] += 1
        key = {"passed": "passed", "expected-failure": "passed", "failed": "failed", "unexpected-success": "failed",
               "error": "errors", "skipped": "skipped"}[r["outcome"]]
        c[key] += 1
    row.update(c)


def expected(pid, patterns):
    for pat in patterns:
        if "::" not in pat and fnmatch.fnmatch(pid.split("::")[0], pat):
            return True
        if fnmatch.fnmatchcase(pid, pat):
            return True
    return False


COLS = ("tests", "passed", "failed", "errors", "skipped")


def text_report(rows, head, bad):
    w = max([len(r["file"]) for r in rows] + [5])
    lines = [head, "", "%-*s %6s %6s %6s %6s %7s  %s" % ((w, "file") + COLS + ("",))]
    for r in rows:
        if not r["run"]:
            lines.append("%-*s %6s %6s %6s %6s %7s  %s" % ((w, r["file"]) + ("-",) * 5 + (r["note"],)))
        else:
            lines.append("%-*s %6d %6d %6d %6d %7d  %s" % ((w, r["file"]) + tuple(r[c] for c in COLS) + (r["note"],)))
    tot = totals(rows)
    lines.append("%-*s %6d %6d %6d %6d %7d" % ((w, "total") + tuple(tot[c] for c in COLS)))
    nonpass = [(res, r) for r in rows for res in r["results"] if res["outcome"] not in ("passed", "expected-failure")]
    if nonpass:
        lines += ["", "Not passed:"]
        for res, _ in nonpass:
            mark = " (unexpected)" if res["id"] in bad else ""
            lines.append("  %s  %s%s: %s" % (res["id"], res["outcome"], mark, res["reason"]))
    return "\n".join(lines)


def md(s):
    return str(s).replace("|", "\\|").replace("\n", " ")


def markdown_report(rows, head, bad):
    lines = [head, "", "| file | tests | passed | failed | errors | skipped | notes |", "|---|---:|---:|---:|---:|---:|---|"]
    for r in rows:
        if not r["run"]:
            lines.append("| `%s` | – | – | – | – | – | %s |" % (r["file"], md(r["note"])))
        else:
            lines.append("| `%s` | %d | %d | %d | %d | %d | %s |" % ((r["file"],) + tuple(r[c] for c in COLS)
                                                                     + (md(r["note"]),)))
    tot = totals(rows)
    lines.append("| total | %d | %d | %d | %d | %d | |" % tuple(tot[c] for c in COLS))
    nonpass = [res for r in rows for res in r["results"] if res["outcome"] not in ("passed", "expected-failure")]
    if nonpass:
        lines += ["", "| test | outcome | reason |", "|---|---|---|"]
        for res in nonpass:
            lines.append("| `%s` | %s%s | %s |" % (res["id"], res["outcome"], " (unexpected)" if res["id"] in bad else "",
                                                   md(res["reason"])))
    return "\n".join(lines)


def totals(rows):
    return {c: sum(r.get(c, 0) for r in rows if r["run"]) for c in COLS}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    ap.add_argument("source", nargs="?", help="compushady checkout, its test/ folder, a bare repository or a git "
                                              "URL (default: clone %s)" % URL)
    ap.add_argument("--all", action="store_true", help="run test_dxc.py and test_metal.py too")
    ap.add_argument("--json", metavar="FILE", help="write the results as JSON")
    ap.add_argument("--markdown", action="store_true", help="print Markdown instead of the text table")
    ap.add_argument("--expect-fail", metavar="PAT", action="append", default=[], help="an allowed failure")
    ap.add_argument("--expect-fail-file", metavar="FILE", help="allowed failures, one per line")
    ap.add_argument("--only", metavar="PAT", action="append", default=[], help="run only these files (fnmatch)")
    ap.add_argument("--python", default=sys.executable, help="the interpreter (default: this one)")
    where = ap.add_mutually_exclusive_group()
    where.add_argument("--pythonpath", metavar="DIR", help="the folder holding the gfxcuda package")
    where.add_argument("--installed", action="store_true", help="the installed gfxcuda (e.g. the wheel)")
    ap.add_argument("--timeout", type=int, default=600, help="seconds per file (default 600)")
    ap.add_argument("--keep", action="store_true", help="keep the temporary folder and say where it is")
    args = ap.parse_args()

    patterns = list(args.expect_fail)
    if args.expect_fail_file:
        with open(args.expect_fail_file) as f:
            patterns += [l.split("#")[0].strip() for l in f if l.split("#")[0].strip()]

    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    pkg = None
    if args.pythonpath:
        pkg = os.path.abspath(args.pythonpath)
    elif not args.installed and os.path.isfile(os.path.join(REPO, "python", "gfxcuda", "__init__.py")):
        pkg = os.path.join(REPO, "python")
    if pkg:
        env["PYTHONPATH"] = pkg + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")

    tmp = tempfile.mkdtemp(prefix="compushady-suite-")
    if os.path.realpath(tmp).startswith(os.path.realpath(REPO) + os.sep):
        shutil.rmtree(tmp)
        die("the temporary folder %s is inside the repository (TMPDIR?); set TMPDIR elsewhere" % tmp)
    try:
        src = fetch(args.source, tmp)
        testdir = os.path.join(tmp, "test")
        shutil.copytree(src, testdir, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        driver = os.path.join(tmp, "driver.py")
        with open(driver, "w") as f:
            f.write(DRIVER)
        files = sorted(n for n in os.listdir(testdir) if n.startswith("test_") and n.endswith(".py"))
        if args.only:
            files = [n for n in files if any(fnmatch.fnmatch(n, p) or fnmatch.fnmatch(n[:-3], p) for p in args.only)]
        if not files:
            die("no test_*.py in %s" % src)
        rows = []
        for name in files:
            if name in NOT_RUN and not args.all:
                rows.append({"file": name, "run": False, "note": NOT_RUN[name], "results": []})
                continue
            rows.append(run_file(args, driver, testdir, name, env))
            if sys.stderr.isatty():
                print("ran %s" % name, file=sys.stderr)
    finally:
        if args.keep:
            print("kept %s" % tmp, file=sys.stderr)
        else:
            shutil.rmtree(tmp, ignore_errors=True)

    ran = [r for r in rows if r["run"]]
    device = next((r["device"] for r in ran if r.get("device")), "?")
    version = next((r["gfxcuda"] for r in ran if r.get("gfxcuda")), "?")
    failing = [res["id"] for r in rows for res in r["results"]
               if res["outcome"] in ("failed", "error", "unexpected-success")]
    bad = [i for i in failing if not expected(i, patterns)]
    stale = sorted({res["id"] for r in rows for res in r["results"]
                    if res["outcome"] in ("passed", "expected-failure") and patterns and expected(res["id"], patterns)})
    head = "compushady suite from %s on %s; gfxcuda %s; Python %s" % (
        args.source or URL, device, version, sys.version.split()[0] if args.python == sys.executable else args.python)
    print(markdown_report(rows, head, bad) if args.markdown else text_report(rows, head, bad))
    if stale:
        print("\nPassing, though expected to fail: " + ", ".join(stale))
    print("\n%d unexpected failure(s)%s" % (len(bad), ": " + ", ".join(bad) if bad else ""))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"source": args.source or URL, "device": device, "gfxcuda": version, "python": args.python,
                       "files": rows, "totals": totals(rows), "unexpected": bad, "expected_fail_passed": stale,
                       "expect_fail": patterns}, f, indent=1)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
