"""gfxcuda's Python conventions (issue #33, item 4): the package is typed
(PEP 561's py.typed; .pyi stubs for the modules whose names are made at
run time or whose hot paths stay unannotated; inline annotations in the
plain ones), the stubs say what the runtime has, and every public name
has a docstring that help() can show: what it does, its arguments, what
it returns and what it raises.

Runs on the package in this tree, or on the installed one with
GFXCUDA_TEST_INSTALLED=1 (then it checks that the wheel carries the stubs
and py.typed). The mypy tests need mypy (Debian's python3-mypy, which
scripts/deps.sh installs) and are skipped, saying so, without it.

When the C library's format table changes, rewrite formats.pyi with:
    /usr/bin/python3 python/tests/test_typing.py --write-formats-stub
"""

import ast
import builtins
import importlib
import inspect
import json
import os
import re
import shutil
import subprocess
import sys

import pytest

import gfxcuda

PKGDIR = os.path.dirname(os.path.abspath(gfxcuda.__file__))
ROOT = os.path.dirname(PKGDIR)  # what holds the package: python/, or site-packages

# The modules with a stub, and the stub-only module of shared types.
STUBBED = ("gfxcuda", "gfxcuda.formats", "gfxcuda._compute", "gfxcuda._cuda", "gfxcuda._ring", "gfxcuda._torch")
TYPES_ONLY = "gfxcuda._typing"
# The public modules: help() on each, and on every public name in them.
PUBLIC_MODULES = ("gfxcuda", "gfxcuda.config", "gfxcuda.errors", "gfxcuda.formats", "gfxcuda.shaders",
                  "gfxcuda.shaders.hlsl", "gfxcuda.shaders.glsl", "gfxcuda.shaders.wgsl", "gfxcuda.compushady_alias")
# Public protocol methods whose docstrings matter (the other dunders are Python's).
PROTOCOL = ("__dlpack__", "__dlpack_device__", "__cuda_array_interface__", "__array_interface__")


def _source_path(mod, ext):
    rel = mod.split(".")[1:]
    if not rel:
        return os.path.join(PKGDIR, "__init__" + ext)
    p = os.path.join(PKGDIR, *rel)
    return os.path.join(p, "__init__" + ext) if os.path.isdir(p) else p + ext


def _parse(path):
    with open(path, encoding="utf-8") as f:
        return ast.parse(f.read(), path)


def _package_of(mod):
    """The package relative imports in mod start from."""
    return mod if os.path.basename(_source_path(mod, ".py")).startswith("__init__") else mod.rpartition(".")[0]


def _absolute(mod, level, name):
    base = _package_of(mod)
    for _ in range(level - 1):
        base = base.rpartition(".")[0]
    return base + ("." + name if name else "") if level else name


def _public(name):
    return not name.startswith("_")


def _targets(node):
    """The names an assignment statement binds."""
    ts = node.targets if isinstance(node, ast.Assign) else [node.target]
    out = []
    for t in ts:
        out += [e.id for e in (t.elts if isinstance(t, ast.Tuple) else [t]) if isinstance(e, ast.Name)]
    return out


def _runtime_names(mod):
    """mod's public names at run time, in an interpreter that imported
    nothing else (gfxcuda's lazy names included)."""
    code = ("import importlib, json, sys\nsys.path.insert(0, %r)\nm = importlib.import_module(%r)\n"
            "names = getattr(m, '__all__', None) or dir(m)\n"
            "print(json.dumps(sorted(n for n in names if not n.startswith('_'))))" % (ROOT, mod))
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    return set(json.loads(r.stdout.strip().splitlines()[-1]))


def _defined_names(mod):
    """The public names mod's own source defines at its top level (not
    the modules and names it imports)."""
    names = set()
    for node in _parse(_source_path(mod, ".py")).body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            names.update(_targets(node))
    return {n for n in names if _public(n)}


def _stub_entries(mod):
    """{name: (kind, node or (module, name))} of mod's stub: "def",
    "class", "var", or "reexport" (``import X as X``, ``from M import X
    as X`` and ``from M import *``, PEP 484's re-exports)."""
    out = {}
    for node in _parse(_source_path(mod, ".pyi")).body:
        if isinstance(node, ast.FunctionDef):
            out.setdefault(node.name, ("def", []))[1].append(node)  # overloads: several
        elif isinstance(node, ast.ClassDef):
            out[node.name] = ("class", node)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            for n in _targets(node):
                out[n] = ("var", node)
        elif isinstance(node, ast.ImportFrom):
            src = _absolute(mod, node.level, node.module)
            for a in node.names:
                if a.name == "*":
                    for n in _runtime_names(src):
                        out[n] = ("reexport", (src, n))
                elif a.asname == a.name:
                    sub = src + "." + a.name
                    is_module = os.path.exists(_source_path(sub, ".py")) if sub.startswith("gfxcuda.") else False
                    out[a.name] = ("reexport", (sub, None) if is_module else (src, a.name))
        elif isinstance(node, ast.Import):
            for a in node.names:
                if a.asname == a.name:
                    out[a.name] = ("reexport", (a.name, None))
    return out


def _stub_classes():
    """{(module, class name): (ClassDef, {name: (module, name)} of the stub's imports)} over every stub."""
    out = {}
    for mod in STUBBED + (TYPES_ONLY,):
        tree = _parse(_source_path(mod, ".pyi"))
        imports = {}
        for node in tree.body:
            if isinstance(node, ast.ImportFrom):
                for a in node.names:
                    imports[a.asname or a.name] = (_absolute(mod, node.level, node.module), a.name)
        for node in tree.body:
            if isinstance(node, ast.ClassDef):
                out[(mod, node.name)] = (node, imports)
    return out


def _stub_members(key, classes, seen=None):
    """{member name: FunctionDef list} of stub class key and its stub bases."""
    node, imports = classes[key]
    members = {}
    for b in node.bases:
        if isinstance(b, ast.Name):
            base = (key[0], b.id) if (key[0], b.id) in classes else imports.get(b.id)
            if base in classes:
                for n, defs in _stub_members(base, classes).items():
                    members.setdefault(n, defs)
    own = {}
    for item in node.body:
        if isinstance(item, ast.FunctionDef):
            own.setdefault(item.name, []).append(item)
        elif isinstance(item, (ast.AnnAssign, ast.Assign)):
            for n in _targets(item):
                own[n] = []
    members.update(own)
    return members


def _decorators(fn):
    return {d.id if isinstance(d, ast.Name) else ast.unparse(d) for d in fn.decorator_list}


def _stub_params(fn):
    """[(name, kind, default's source or _NONE)] of a stub def, in inspect's kinds."""
    a = fn.args
    out = []
    pos = a.posonlyargs + a.args
    defaults = [None] * (len(pos) - len(a.defaults)) + list(a.defaults)
    for i, (arg, d) in enumerate(zip(pos, defaults)):
        kind = "POSITIONAL_ONLY" if i < len(a.posonlyargs) else "POSITIONAL_OR_KEYWORD"
        out.append((arg.arg, kind, _NONE if d is None else ast.unparse(d)))
    if a.vararg:
        out.append((a.vararg.arg, "VAR_POSITIONAL", _NONE))
    for arg, d in zip(a.kwonlyargs, a.kw_defaults):
        out.append((arg.arg, "KEYWORD_ONLY", _NONE if d is None else ast.unparse(d)))
    if a.kwarg:
        out.append((a.kwarg.arg, "VAR_KEYWORD", _NONE))
    return out


_NONE = inspect.Parameter.empty  # no default


def _runtime_params(obj):
    return [(p.name, p.kind.name, p.default) for p in inspect.signature(obj).parameters.values()]


def _static(cls, name):
    """(the raw attribute, the class that defines it) along cls's MRO."""
    for k in cls.__mro__:
        if name in k.__dict__:
            return k.__dict__[name], k
    return None, None


def _compare_signature(where, stub_defs, runtime, problems, bound=False):
    """Appends to problems where the stub defs' parameters differ from
    the runtime callable's (names, kinds, defaults where literal)."""
    try:
        want = _runtime_params(runtime)
    except (TypeError, ValueError):  # a builtin inspect cannot read
        return
    if bound and want and want[0][0] in ("self", "cls"):
        want = want[1:]
    for fn in stub_defs:
        have = _stub_params(fn)
        if "staticmethod" not in _decorators(fn) and bound and have and have[0][0] in ("self", "cls"):
            have = have[1:]
        if [(n, k) for n, k, _ in have] != [(n, k) for n, k, _ in want]:
            problems.append("%s: the stub's parameters %s, the runtime's %s"
                            % (where, [n for n, _, _ in have], [n for n, _, _ in want]))
            continue
        if "overload" in _decorators(fn):
            continue  # an overload narrows defaults to its own case
        for (n, _, sd), (_, _, rd) in zip(have, want):
            if (sd is _NONE) != (rd is _NONE):
                problems.append("%s(%s): a default in %s only"
                                % (where, n, "the stub" if sd is not _NONE else "the code"))
            elif sd is not _NONE and sd != "...":
                try:
                    v = ast.literal_eval(sd)
                except ValueError:
                    continue
                if v != rd:
                    problems.append("%s(%s=...): the stub's default %s, the runtime's %r" % (where, n, sd, rd))


# ---- the package carries its types ----------------------------------------------------------------------------------

def test_py_typed_and_the_stubs_are_in_the_package():
    # PEP 561: without py.typed, type checkers ignore an installed package's
    # annotations and stubs (mypy: "missing library stubs or py.typed marker").
    assert os.path.isfile(os.path.join(PKGDIR, "py.typed")), "no py.typed in %s" % PKGDIR
    for mod in STUBBED + (TYPES_ONLY,):
        assert os.path.isfile(_source_path(mod, ".pyi")), "%s has no stub (%s)" % (mod, _source_path(mod, ".pyi"))
    assert not os.path.exists(_source_path(TYPES_ONLY, ".py")), "gfxcuda._typing is types only: no module at run time"


# ---- the stubs say what the runtime has -----------------------------------------------------------------------------

@pytest.mark.parametrize("mod", STUBBED)
def test_stub_names_are_the_runtime_names(mod):
    # Every public name of the module is in its stub and every name in the
    # stub is at run time: gfxcuda's lazy names (CudaBuffer, Ring, ...)
    # and formats' constants (made from the library's table) included.
    if mod == "gfxcuda":
        runtime = _runtime_names(mod)
    elif mod == "gfxcuda.formats":
        runtime = set(importlib.import_module(mod).__all__)
    else:
        runtime = _defined_names(mod)
    stub = {n for n in _stub_entries(mod) if _public(n)}
    hint = " (rewrite it: /usr/bin/python3 python/tests/test_typing.py --write-formats-stub)" \
        if mod == "gfxcuda.formats" else ""
    assert not runtime - stub, "%s: public at run time, missing from its stub%s: %s" \
        % (mod, hint, sorted(runtime - stub))
    assert not stub - runtime, "%s: in its stub, not at run time%s: %s" % (mod, hint, sorted(stub - runtime))


@pytest.mark.parametrize("mod", STUBBED)
def test_stub_signatures_are_the_runtime_signatures(mod):
    # Functions and methods take the parameters the stub says (names,
    # kinds, literal defaults); properties, classmethods and staticmethods
    # are what the stub says; re-exports are the same objects; each
    # class's public methods and properties are all in its stub.
    m = importlib.import_module(mod)
    classes = _stub_classes()
    problems = []
    for name, (kind, what) in sorted(_stub_entries(mod).items()):
        if kind == "reexport":
            src, n = what
            want = importlib.import_module(src) if n is None else getattr(importlib.import_module(src), n)
            if getattr(m, name) is not want:
                problems.append("%s.%s is not %s%s" % (mod, name, src, "." + n if n else ""))
        elif kind == "def":
            _compare_signature("%s.%s" % (mod, name), what, getattr(m, name), problems)
        elif kind == "class":
            cls = getattr(m, name)
            members = _stub_members((mod, name), classes)
            for member, defs in members.items():
                raw, _ = _static(cls, member)
                where = "%s.%s.%s" % (mod, name, member)
                if raw is None and not defs:
                    continue  # an instance attribute (set in __init__)
                if raw is None:
                    problems.append("%s: in the stub, not at run time" % where)
                    continue
                decos = set().union(*(_decorators(d) for d in defs)) if defs else set()
                if "property" in decos:
                    if not isinstance(raw, property):
                        problems.append("%s: a property in the stub, a %s at run time" % (where, type(raw).__name__))
                    continue
                for deco, typ in (("classmethod", classmethod), ("staticmethod", staticmethod)):
                    if (deco in decos) != isinstance(raw, typ):
                        problems.append("%s: %s in the stub or at run time, not both" % (where, deco))
                if defs:
                    func = raw.__func__ if isinstance(raw, (classmethod, staticmethod)) else raw
                    if callable(func):
                        _compare_signature(where, defs, func, problems, bound=not isinstance(raw, staticmethod))
            for attr in dir(cls):
                if not (_public(attr) or attr in PROTOCOL):
                    continue
                raw, owner = _static(cls, attr)
                if owner is None or not owner.__module__.startswith("gfxcuda"):
                    continue
                if (inspect.isfunction(raw) or isinstance(raw, (property, classmethod, staticmethod))) \
                        and attr not in members:
                    problems.append("%s.%s.%s: at run time, missing from the stub" % (mod, name, attr))
    assert not problems, "\n".join(problems)


_PUBLIC_FILES = {os.path.relpath(_source_path(m, ".py"), PKGDIR).replace(os.sep, "/") for m in PUBLIC_MODULES}


def test_modules_without_a_stub_are_annotated_at_no_cost():
    # The plain modules carry their own annotations: every public function
    # has them all, and each is a builtin's name or a string (evaluated at
    # def time, a string costs nothing and `int | None` in one works on
    # Python 3.9). No typing import at run time (`import gfxcuda` stays as
    # fast: typing alone costs more than gfxcuda's own modules).
    problems = []
    for dirpath, _, files in os.walk(PKGDIR):
        for f in sorted(files):
            if not f.endswith(".py"):
                continue
            path = os.path.join(dirpath, f)
            f = os.path.relpath(path, PKGDIR)
            tree = _parse(path)
            stubbed = os.path.exists(path[:-3] + ".pyi")
            for node in ast.walk(tree):
                if isinstance(node, (ast.Import, ast.ImportFrom)) and node in tree.body:
                    names = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module]
                    if any(n in ("typing", "typing_extensions", "__future__") for n in names):
                        problems.append("%s:%d imports %s at run time" % (f, node.lineno, names))
                anns = []
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    a = node.args
                    anns = [x.annotation for x in a.posonlyargs + a.args + a.kwonlyargs + [a.vararg, a.kwarg]
                            if x is not None and x.annotation is not None] + ([node.returns] if node.returns else [])
                elif isinstance(node, ast.AnnAssign):
                    anns = [node.annotation]
                for ann in anns:
                    ok = (isinstance(ann, ast.Constant) and (ann.value is None or isinstance(ann.value, str))) or \
                         (isinstance(ann, ast.Name) and isinstance(getattr(builtins, ann.id, None), type))
                    if not ok:
                        problems.append("%s:%d: annotation %s: write it as a string"
                                        % (f, ann.lineno, ast.unparse(ann)))
            public = f.replace(os.sep, "/") in _PUBLIC_FILES
            if stubbed or not public:
                continue  # a private module's functions are no public API
            for node in tree.body:
                if isinstance(node, ast.FunctionDef) and _public(node.name):
                    a = node.args
                    missing = [x.arg for x in a.posonlyargs + a.args + a.kwonlyargs + [a.vararg, a.kwarg]
                               if x is not None and x.annotation is None]
                    if missing or node.returns is None:
                        problems.append("%s: %s() lacks annotations (%s)"
                                        % (f, node.name, ", ".join(missing + ([] if node.returns else ["return"]))))
    assert not problems, "\n".join(problems)


# ---- help() ---------------------------------------------------------------------------------------------------------

def _public_api():
    """[(qualified name, object, owner class or None, name)] of every
    public module, class, function, method and property."""
    mods = list(PUBLIC_MODULES)
    if os.path.exists(os.path.join(PKGDIR, "__main__.py")):
        mods.append("gfxcuda.__main__")
    seen, out = set(), []
    for mn in mods:
        m = importlib.import_module(mn)
        out.append((mn, m, None, mn))
        names = getattr(m, "__all__", None) or dir(m)
        for n in sorted(names):
            if not _public(n):
                continue
            v = getattr(m, n)
            if inspect.ismodule(v) or not (inspect.isclass(v) or inspect.isfunction(v)):
                continue
            if not getattr(v, "__module__", "").startswith("gfxcuda") or id(v) in seen:
                continue
            seen.add(id(v))
            out.append(("%s.%s" % (mn, n), v, None, n))
            if not inspect.isclass(v):
                continue
            for attr in dir(v):
                if not (_public(attr) or attr in PROTOCOL or attr == "__init__"):
                    continue
                raw, owner = _static(v, attr)
                if owner is None or not owner.__module__.startswith("gfxcuda") or (owner, attr) in seen:
                    continue
                if isinstance(raw, (classmethod, staticmethod)):
                    raw = raw.__func__
                if inspect.isfunction(raw) or isinstance(raw, property):
                    seen.add((owner, attr))
                    out.append(("%s.%s.%s" % (owner.__module__, owner.__qualname__, attr), raw, owner, attr))
    return out


def _stub_return(obj, owner, name):
    """The return annotation (source) the types give obj, or None."""
    func = obj.fget if isinstance(obj, property) else obj
    mod = (owner or func).__module__
    if mod in STUBBED:
        entries = _stub_entries(mod)
        defs = []
        if owner is not None and (mod, owner.__name__) in _stub_classes():
            defs = _stub_members((mod, owner.__name__), _stub_classes()).get(name, [])
        elif owner is None and entries.get(name, ("",))[0] == "def":
            defs = entries[name][1]
        rets = {ast.unparse(d.returns) for d in defs if d.returns is not None}
        return None if not rets or rets == {"None"} else " | ".join(sorted(rets))
    ann = getattr(func, "__annotations__", {}).get("return")
    return None if ann in (None, "None") else str(ann)


def test_every_public_name_has_a_docstring_that_help_can_show():
    # What it does (a docstring), its arguments (each named: a
    # constructor's in the class's docstring, as help() shows them
    # together), what it returns (a function that returns something says
    # "returns"), what it raises (one that takes arguments says "raises",
    # "raises nothing" included).
    problems = []
    for qual, obj, owner, name in _public_api():
        if isinstance(obj, property):
            if not (obj.__doc__ or "").strip():
                problems.append("%s (a property): no docstring" % qual)
            continue
        doc = inspect.getdoc(obj) if not inspect.isclass(obj) else (obj.__doc__ or "")
        if name == "__init__":
            init_doc = doc if obj.__doc__ else ""
            doc = (owner.__doc__ or "") + "\n" + init_doc
        if not (doc or "").strip():
            problems.append("%s: no docstring" % qual)
            continue
        if inspect.ismodule(obj) or inspect.isclass(obj):
            continue
        params = [p for p in inspect.signature(obj).parameters if p not in ("self", "cls")]
        missing = [p for p in params if not re.search(r"\b%s\b" % re.escape(p), doc)]
        if missing:
            problems.append("%s: the docstring does not name %s" % (qual, ", ".join(missing)))
        if name != "__init__" and _stub_return(obj, owner, name) and not re.search(r"\breturn", doc, re.I):
            problems.append("%s: the docstring does not say what it returns (-> %s)"
                            % (qual, _stub_return(obj, owner, name)))
        if params and not re.search(r"\braise", doc, re.I):
            problems.append("%s: the docstring does not say what it raises (or that it raises nothing)" % qual)
    assert not problems, "%d docstrings to write:\n%s" % (len(problems), "\n".join(problems))


def test_help_shows_the_lazy_names():
    # help(gfxcuda) lists what dir() does: the names __getattr__ gives on
    # first use too; and their docstrings are the code's.
    assert {"CudaBuffer", "Ring", "torch_pool", "Texture"} <= set(dir(gfxcuda))
    assert "Returns a CudaBuffer over the CUDA memory" in gfxcuda.CudaBuffer.from_cuda.__doc__
    assert "Buffer(size, heap_type=HEAP_DEFAULT" in gfxcuda.Buffer.__doc__


# ---- extras ---------------------------------------------------------------------------------------------------------

def _extras():
    """{extra: [requirement]} of the installed package's metadata, or of
    pyproject.toml in this tree; None when neither is there."""
    if os.environ.get("GFXCUDA_TEST_INSTALLED") == "1":
        from importlib import metadata
        out = {}
        for req in metadata.requires("gfxcuda") or []:
            m = re.search(r"""extra\s*==\s*["']([^"']+)["']""", req)
            if m:
                out.setdefault(m.group(1), []).append(req.split(";")[0].strip())
        return out
    path = os.path.join(ROOT, "..", "pyproject.toml")
    if not os.path.exists(path):
        return None
    try:
        import tomllib
    except ImportError:  # Python before 3.11: the build backend's reader
        sys.path.insert(0, os.path.join(ROOT, "build_backend"))
        from gfxcuda_build import parse_toml as loads
    else:
        loads = tomllib.loads
    with open(path, encoding="utf-8") as f:
        return loads(f.read()).get("project", {}).get("optional-dependencies", {})


def test_extras_are_conveniences_that_pin_nothing_gpu_specific():
    # pip install gfxcuda[torch] (cupy, numba, numpy) brings the library a
    # user pairs gfxcuda with; the name of a CUDA build (cupy-cuda12x,
    # torch==2.5+cu121, numba-cuda[cu12], nvidia-*) would choose the
    # user's CUDA for them: none here, and no version pins either.
    extras = _extras()
    if extras is None:
        pytest.skip("no pyproject.toml beside the package and no installed metadata")
    assert {"torch", "cupy", "numba"} <= set(extras), extras
    for extra, reqs in extras.items():
        for req in reqs:
            assert not re.search(r"cuda\d|cu\d\d|\+cu|\[|nvidia|[<>=!~]", req, re.I), \
                "extra %r: %r names a CUDA build or pins a version" % (extra, req)


# ---- mypy -----------------------------------------------------------------------------------------------------------

def _mypy():
    """The command that runs mypy, or None."""
    for cmd in ([sys.executable, "-m", "mypy"], ["/usr/bin/python3", "-m", "mypy"]):
        if os.path.exists(cmd[0]) and subprocess.run(cmd + ["--version"], capture_output=True).returncode == 0:
            return cmd
    exe = shutil.which("mypy")
    return [exe] if exe else None


MYPY = _mypy()
need_mypy = pytest.mark.skipif(MYPY is None, reason="mypy is not installed (apt-get install python3-mypy; "
                                                     "scripts/deps.sh installs it)")


@pytest.fixture(scope="module")
def mypy_cache(tmp_path_factory):
    return str(tmp_path_factory.mktemp("mypy_cache"))


def _run_mypy(args, cwd, cache, installed_ok=True):
    """mypy's (exit status, output) over args, seeing gfxcuda as a user
    does: the installed package (PEP 561: py.typed) with
    GFXCUDA_TEST_INSTALLED=1, else this tree's."""
    env = dict(os.environ)
    env.pop("MYPYPATH", None)
    cmd = list(MYPY) + ["--cache-dir", cache, "--no-error-summary", "--show-error-codes", "--python-version", "3.9"]
    if os.environ.get("GFXCUDA_TEST_INSTALLED") == "1" and installed_ok:
        cmd += ["--python-executable", sys.executable]
    else:
        env["MYPYPATH"] = ROOT
        cmd += ["--no-site-packages"]
    r = subprocess.run(cmd + args, cwd=cwd, capture_output=True, text=True, env=env, timeout=600)
    return r.returncode, r.stdout + r.stderr


# A program that uses the public API with types (mypy --strict accepts it)
# and runs on any Vulkan device (lavapipe): its CUDA half runs where CUDA is.
TYPED_USE = '''
"""Typed use of gfxcuda's public API."""
from __future__ import annotations

import gfxcuda
from gfxcuda import formats
from gfxcuda.shaders import glsl, hlsl, wgsl

SHADER = """
RWStructuredBuffer<uint> data : register(u0);
[numthreads(64, 1, 1)]
void main(uint3 tid : SV_DispatchThreadID) { data[tid.x] = data[tid.x] * 3 + 1; }
"""


def triple_plus_one(values: list[int]) -> list[int]:
    device: gfxcuda.Device = gfxcuda.get_best_device()
    staging = gfxcuda.Buffer(4 * len(values), gfxcuda.HEAP_UPLOAD, device=device)
    staging.upload(b"".join(v.to_bytes(4, "little") for v in values))
    data = gfxcuda.Buffer(staging.size, stride=4, device=device)
    staging.copy_to(data)
    spirv: bytes = hlsl.compile(SHADER)
    compute = gfxcuda.Compute(spirv, uav=[data])
    compute.dispatch((len(values) + 63) // 64, 1, 1)
    readback = gfxcuda.Buffer(data.size, gfxcuda.HEAP_READBACK, device=device)
    data.copy_to(readback)
    out: bytes = readback.readback()
    first = bytearray(4)
    readback.readback(first)
    assert out[:4] == bytes(first)
    return [int.from_bytes(out[i:i + 4], "little") for i in range(0, len(out), 4)]


def texture_bytes() -> int:
    tex = gfxcuda.Texture2D(8, 4, formats.R8G8B8A8_UNORM)
    pixel: int = formats.get_pixel_size(tex.format)
    name: str = formats.name(tex.format)
    assert name == "rgba8_unorm" and formats.lookup(name)["value"] == tex.format
    staging = gfxcuda.Buffer(tex.width * tex.height * pixel, gfxcuda.HEAP_UPLOAD)
    staging.upload2d(bytes(range(256)) * 4, tex.row_pitch, tex.width, tex.height, pixel)
    staging.copy_to(tex)
    clamp = gfxcuda.SAMPLER_ADDRESS_MODE_CLAMP
    linear = gfxcuda.SAMPLER_FILTER_LINEAR
    sampler = gfxcuda.Sampler(clamp, clamp, clamp, filter_min=linear, filter_mag=linear)
    assert sampler.filter[0] == gfxcuda.SAMPLER_FILTER_LINEAR
    return tex.size


def compile_all() -> int:
    glsl_spirv = glsl.compile("layout(local_size_x = 1) in; void main() {}")
    wgsl_spirv = wgsl.compile("@compute @workgroup_size(1) fn main() {}")
    return len(glsl_spirv) + len(wgsl_spirv)


def errors_are_typed() -> str:
    try:
        gfxcuda.Buffer(0)
    except gfxcuda.BufferException as e:
        status: int | None = e.status
        assert status is None or gfxcuda.errors.BY_STATUS[status] is not None
        return str(e)
    return ""


def ring_on_the_host() -> int:
    with gfxcuda.Ring((16,), "uint8", slots=2) as ring:
        token: str = ring.token
        assert token
        i: int = ring.acquire(timeout=10.0)
        ring.slot(i).write(bytes(16))
        return ring.publish(i, user=b"frame")


def cuda_side(count: int) -> float:
    if not gfxcuda.cuda_available():
        return 0.0
    buf = gfxcuda.SharedBuffer((count,), "float32")
    iface = buf.__cuda_array_interface__
    assert iface["shape"] == (count,)
    view: gfxcuda.Buffer = buf.compute_view()
    with buf.to_cuda(None):
        pass
    tex = gfxcuda.texture((4, 4, 4), format="rgba8_unorm")
    host = gfxcuda.CudaBuffer.from_cuda(buf.ptr, (count,), "float32", owner=buf)
    tex.release()
    return float(view.size + host.nbytes)


if __name__ == "__main__":
    assert triple_plus_one(list(range(100))) == [3 * v + 1 for v in range(100)]
    assert texture_bytes() >= 8 * 4 * 4
    assert compile_all() > 0
    assert "size" in errors_are_typed()
    assert ring_on_the_host() >= 1
    cuda_side(64)
    assert isinstance(gfxcuda.__version__, str) and gfxcuda.get_backend().name == "vulkan"
    print("typed use ran")
'''

# Misuse: mypy must report each line marked "# error" (the stubs give
# real types, not Any: a typo of a lazy name, a wrong argument type, a
# None result used as bytes).
MISUSE = '''
import gfxcuda
from gfxcuda import formats
from gfxcuda.shaders import hlsl

gfxcuda.Buffer("16")  # error
n: int = gfxcuda.Buffer(16).readback()  # error
gfxcuda.Buffer(16).readback(bytearray(4)).hex()  # error
formats.NOT_A_FORMAT  # error
gfxcuda.CudaBufer  # error
gfxcuda.Compute(b"", uav=[gfxcuda.Sampler()])  # error
hlsl.compile(123)  # error
t: bytes = gfxcuda.Ring(4).token  # error
gfxcuda.open_ring("token", (4,), peer="both")  # error
gfxcuda.Texture2D(4, 4, formats.R8G8B8A8_UNORM).copy_to(b"")  # error
gfxcuda.config.set_debug(True).real  # error
ok: str = gfxcuda.Ring(4).token
'''


@need_mypy
def test_mypy_strict_accepts_typed_use_of_the_api(tmp_path, mypy_cache):
    p = tmp_path / "typed_use.py"
    p.write_text(TYPED_USE)
    rc, out = _run_mypy(["--strict", "--follow-imports=silent", str(p)], str(tmp_path), mypy_cache)
    assert rc == 0, out


def test_typed_use_runs(tmp_path):
    # The program mypy checks is a real one: it runs (on lavapipe here).
    p = tmp_path / "typed_use.py"
    p.write_text(TYPED_USE)
    env = dict(os.environ)
    env["PYTHONPATH"] = ROOT + os.pathsep + env.get("PYTHONPATH", "")
    r = subprocess.run([sys.executable, str(p)], cwd=str(tmp_path), capture_output=True, text=True, env=env,
                       timeout=300)
    assert r.returncode == 0 and "typed use ran" in r.stdout, r.stdout + r.stderr


@need_mypy
def test_mypy_reports_misuse_of_the_api(tmp_path, mypy_cache):
    p = tmp_path / "misuse.py"
    p.write_text(MISUSE)
    rc, out = _run_mypy(["--follow-imports=silent", str(p)], str(tmp_path), mypy_cache)
    want = {i for i, line in enumerate(MISUSE.splitlines(), 1) if line.endswith("# error")}
    got = {int(m.group(1)) for m in re.finditer(r"misuse\.py:(\d+): error", out)}
    assert rc == 1 and got == want, "mypy flagged lines %s, want %s:\n%s" % (sorted(got), sorted(want), out)


def _copy_package(tmp_path, library=False):
    """A copy of the package (this tree's or the installed one) in
    tmp_path, for mypy to check as sources: what holds it."""
    skip = {"__pycache__"}
    shutil.copytree(PKGDIR, str(tmp_path / "gfxcuda"),
                    ignore=lambda d, names: [n for n in names if n in skip or (n.endswith(".so") and not library)])
    return str(tmp_path)


@need_mypy
def test_mypy_checks_the_package_and_its_stubs(tmp_path, mypy_cache):
    # The stubs are valid and agree with each other, and the inline
    # annotations with the code, for Python 3.9 (the oldest supported).
    root = _copy_package(tmp_path)
    cmd = list(MYPY) + ["--cache-dir", mypy_cache, "--show-error-codes", "--no-site-packages", "--python-version",
                        "3.9", "-p", "gfxcuda"]
    r = subprocess.run(cmd, cwd=root, capture_output=True, text=True, env=dict(os.environ, MYPYPATH=root),
                       timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr


STUBTEST_ALLOWLIST = """
# gfxcuda's private modules without stubs: the C library's ctypes bindings and the argument checks.
gfxcuda\\._lib(\\..*)?
gfxcuda\\._abi(\\..*)?
gfxcuda\\._check(\\..*)?
# gfxcuda._typing is types only; the shared library is not a Python module.
gfxcuda\\._typing
gfxcuda\\.libgfxcuda
# __init__.py's __dir__ lists the lazy names for dir() and help().
gfxcuda\\.__dir__
"""


@need_mypy
def test_stubtest_finds_the_stubs_true_to_the_runtime(tmp_path, mypy_cache):
    # mypy's stubtest imports the package and compares every stub with the
    # objects it finds: names, signatures, kinds, defaults.
    allow = tmp_path / "allowlist.txt"
    allow.write_text(STUBTEST_ALLOWLIST)
    cmd = [MYPY[0], "-m", "mypy.stubtest"] if MYPY[1:2] == ["-m"] else None
    if cmd is None:
        pytest.skip("stubtest needs mypy as a module of a Python interpreter")
    root = _copy_package(tmp_path / "src", library=True)
    env = dict(os.environ, MYPYPATH=root, PYTHONPATH=root)
    r = subprocess.run(cmd + ["--allowlist", str(allow), "--ignore-unused-allowlist", "gfxcuda"],
                       cwd=root, capture_output=True, text=True, env=env, timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr


# ---- formats.pyi ----------------------------------------------------------------------------------------------------

def write_formats_stub():
    """Rewrites the constants of formats.pyi from the library's table."""
    from gfxcuda import formats
    path = _source_path("gfxcuda.formats", ".pyi")
    with open(path, encoding="utf-8") as f:
        text = f.read()
    mark = "# The formats, under compushady's names"
    head = text[:text.index(mark)]
    head_line = text[text.index(mark):].splitlines()[0]
    consts = sorted(n for n in formats.__all__ if n.isupper())
    with open(path, "w", encoding="utf-8") as f:
        f.write(head + head_line + "\n" + "".join("%s: int\n" % n for n in consts))
    return path, len(consts)


if __name__ == "__main__":
    if sys.argv[1:] == ["--write-formats-stub"]:
        print("wrote %s: %d formats" % write_formats_stub())
    else:
        sys.exit("usage: %s --write-formats-stub (the tests run under pytest)" % sys.argv[0])
