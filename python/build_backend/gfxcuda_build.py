"""gfxcuda's PEP 517 build backend, with the standard library only.

pyproject.toml names it (``build-backend = "gfxcuda_build"``,
``backend-path = ["python/build_backend"]``), so ``pip install .``,
``pip wheel .`` and ``pip install git+URL`` need nothing from a package
index: the wheel is Go's ``go build -buildmode=c-shared ./cmd/libgfxcuda``
(as ``make lib`` builds it) with the Python package around it, tagged
``manylinux_2_X`` from what the built library needs (manylinux.py, which
fails the build on anything the manylinux policy forbids), with its legacy
alias beside it where PEP 600 has one (manylinux2014 for manylinux_2_17).

Building needs Go (go.mod's version or later), a C compiler and the shader
compiler's static libraries (Debian: libshaderc-dev); check_prerequisites()
names each one missing and the package that gives it, before anything is
built. An sdist (build_sdist) carries the Go modules the library needs
(vendor/), so a wheel builds from it offline.

Also a command (what ``make python`` runs)::

    python3 python/build_backend/gfxcuda_build.py wheel OUTDIR
    python3 python/build_backend/gfxcuda_build.py wheel --lib LIB [--header H] OUTDIR
    python3 python/build_backend/gfxcuda_build.py sdist OUTDIR
    python3 python/build_backend/gfxcuda_build.py check

``--lib`` packs a library built already (``make lib``) instead of building
one: a wheel without Go (the GPU bundle's test of the wheel uses it).
"""

import base64
import hashlib
import io
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import threading
import time
import zipfile

NAME = "gfxcuda"
# The source tree: this file is python/build_backend/gfxcuda_build.py in it.
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PKG_DIR = os.path.join("python", NAME)  # the Python package, relative to ROOT
LIB_PKG = "./cmd/libgfxcuda"  # the Go package of the C library
HEADER = os.path.join("cmd", "libgfxcuda", "gfxcuda.h")  # its hand-written header
# Where Go is looked for after PATH (the official tarball's place, and
# Debian's golang packages').
GO_DIRS = ["/usr/local/go/bin", "/usr/lib/go/bin"]
# Where the wheel's and sdist's files get their time stamps when
# SOURCE_DATE_EPOCH does not say (zip cannot go before 1980).
DEFAULT_EPOCH = 1767225600  # 2026-01-01

# What gives each thing the build needs, on Debian and Ubuntu.
HEADER_PACKAGES = {
    "stdlib.h": "libc6-dev",
    "vulkan/vulkan.h": "libvulkan-dev",
    "shaderc/shaderc.h": "libshaderc-dev",
    "glslang/build_info.h": "glslang-dev (libshaderc-dev depends on it)",
    "spirv-tools/libspirv.h": "spirv-tools (libshaderc-dev depends on it)",
}
LIB_PACKAGES = {
    "shaderc_combined": "libshaderc-dev",
    "glslang": "glslang-dev (libshaderc-dev depends on it)",
    "MachineIndependent": "glslang-dev (libshaderc-dev depends on it)",
    "GenericCodeGen": "glslang-dev (libshaderc-dev depends on it)",
    "OSDependent": "glslang-dev (libshaderc-dev depends on it)",
    "OGLCompiler": "glslang-dev (libshaderc-dev depends on it)",
    "HLSL": "glslang-dev (libshaderc-dev depends on it)",
    "SPIRV": "glslang-dev (libshaderc-dev depends on it)",
    "SPIRV-Tools-opt": "spirv-tools (libshaderc-dev depends on it)",
    "SPIRV-Tools": "spirv-tools (libshaderc-dev depends on it)",
    "stdc++": "libstdc++-12-dev (g++ installs it; the shader compiler is C++, its library linked in)",
    "m": "libc6-dev",
    "pthread": "libc6-dev",
    "dl": "libc6-dev",
}


class BuildError(SystemExit):
    """The build cannot go on; the message says why and what to do.

    A SystemExit, so that pip shows the message alone (a frontend running
    the hook in a subprocess prints it and sees exit status 1), not a
    traceback."""

    def __init__(self, message):
        super().__init__("gfxcuda build: error: " + message)


def _say(msg):
    print("gfxcuda build: " + msg, file=sys.stderr, flush=True)


def _epoch():
    try:
        return max(int(os.environ["SOURCE_DATE_EPOCH"]), 315532800)
    except (KeyError, ValueError):
        return DEFAULT_EPOCH


# --- pyproject.toml and the metadata -------------------------------------


def _read(rel, root=None):
    with open(os.path.join(root or ROOT, rel), encoding="utf-8") as f:
        return f.read()


def version(root=None):
    """The one version string (python/VERSION; version_test.go keeps Go's,
    the C header's and gfxcuda/_version.py equal to it)."""
    v = _read(os.path.join("python", "VERSION"), root).strip()
    if not re.fullmatch(r"[0-9]+(\.[0-9]+)*([.+-]?[0-9A-Za-z]+)*", v):
        raise BuildError("python/VERSION holds %r, which is not a version (e.g. 0.1.0)" % v)
    return v


def _toml_value(s, i, where):
    """Parses one TOML value at s[i:] (the subset pyproject.toml uses:
    strings, booleans, integers, arrays and inline tables); returns (value,
    next index)."""
    n = len(s)

    def skip(i, newlines=True):
        while i < n:
            c = s[i]
            if c == "#":
                while i < n and s[i] != "\n":
                    i += 1
            elif c in " \t\r" or (newlines and c == "\n"):
                i += 1
            else:
                break
        return i

    c = s[i]
    if s.startswith('"""', i) or s.startswith("'''", i):
        q = s[i:i + 3]
        j = s.index(q, i + 3)
        v = s[i + 3:j]
        if v.startswith("\n"):
            v = v[1:]
        return (_unescape(v, where) if q == '"""' else v), j + 3
    if c == '"':
        j = i + 1
        while s[j] != '"':
            j += 2 if s[j] == "\\" else 1
        return _unescape(s[i + 1:j], where), j + 1
    if c == "'":
        j = s.index("'", i + 1)
        return s[i + 1:j], j + 1
    if c == "[":
        out, i = [], skip(i + 1)
        while s[i] != "]":
            v, i = _toml_value(s, i, where)
            out.append(v)
            i = skip(i)
            if s[i] == ",":
                i = skip(i + 1)
        return out, i + 1
    if c == "{":
        out, i = {}, skip(i + 1, False)
        while s[i] != "}":
            k, i = _toml_key(s, i, where)
            i = skip(i, False)
            if s[i] != "=":
                raise ValueError("%s: '=' expected after %r" % (where, k))
            v, i = _toml_value(s, skip(i + 1, False), where)
            _toml_set(out, k, v, where)
            i = skip(i, False)
            if s[i] == ",":
                i = skip(i + 1, False)
        return out, i + 1
    m = re.compile(r"true|false|[+-]?[0-9][0-9_]*").match(s, i)
    if not m:
        raise ValueError("%s: a value this reader does not know at %r" % (where, s[i:i + 20]))
    t = m.group(0)
    return ({"true": True, "false": False}.get(t) if t in ("true", "false") else int(t.replace("_", ""))), m.end()


def _unescape(v, where):
    esc = {"n": "\n", "t": "\t", '"': '"', "\\": "\\", "r": "\r", "b": "\b", "f": "\f"}
    return re.sub(r'\\(u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|.)',
                  lambda m: chr(int(m.group(1)[1:], 16)) if len(m.group(1)) > 1 else esc[m.group(1)], v)


def _toml_key(s, i, where):
    """A dotted key at s[i:] as a list of its parts, and the next index."""
    parts = []
    while True:
        while s[i] in " \t":
            i += 1
        if s[i] in "\"'":
            k, i = _toml_value(s, i, where)
        else:
            m = re.compile(r"[A-Za-z0-9_-]+").match(s, i)
            if not m:
                raise ValueError("%s: a key expected at %r" % (where, s[i:i + 20]))
            k, i = m.group(0), m.end()
        parts.append(k)
        j = i
        while j < len(s) and s[j] in " \t":
            j += 1
        if j < len(s) and s[j] == ".":
            i = j + 1
            continue
        return parts, i


def _toml_set(table, key, value, where):
    for k in key[:-1]:
        table = table.setdefault(k, {})
    if key[-1] in table:
        raise ValueError("%s: %s is given twice" % (where, ".".join(key)))
    table[key[-1]] = value


def parse_toml(text, where="pyproject.toml"):
    """A TOML reader for Pythons without tomllib (before 3.11), enough for
    pyproject.toml: tables, dotted keys, strings, booleans, integers,
    arrays and inline tables (python/tests/test_pip_install.py checks it
    reads this tree's pyproject.toml as tomllib does)."""
    doc, cur, i, n = {}, None, 0, len(text)
    cur = doc
    while i < n:
        c = text[i]
        if c in " \t\r\n":
            i += 1
        elif c == "#":
            while i < n and text[i] != "\n":
                i += 1
        elif c == "[":
            array = text.startswith("[[", i)
            key, i = _toml_key(text, i + (2 if array else 1), where)
            while text[i] in " \t":
                i += 1
            i += 2 if array else 1
            t = doc
            for k in key[:-1]:
                t = t.setdefault(k, {})
                if isinstance(t, list):
                    t = t[-1]
            if array:
                t.setdefault(key[-1], []).append({})
                cur = t[key[-1]][-1]
            else:
                cur = t.setdefault(key[-1], {})
        else:
            key, i = _toml_key(text, i, where)
            while text[i] in " \t":
                i += 1
            if text[i] != "=":
                raise ValueError("%s: '=' expected after %s" % (where, ".".join(key)))
            i += 1
            while text[i] in " \t":
                i += 1
            v, i = _toml_value(text, i, where)
            _toml_set(cur, key, v, where)
    return doc


def pyproject(root=None):
    """pyproject.toml, parsed (tomllib where there is one)."""
    text = _read("pyproject.toml", root)
    try:
        import tomllib
    except ImportError:
        return parse_toml(text)
    return tomllib.loads(text)


def metadata(root=None):
    """The core metadata (METADATA, PKG-INFO) from pyproject.toml's
    [project] table and python/VERSION."""
    p = pyproject(root).get("project", {})
    if p.get("name") != NAME:
        raise BuildError("pyproject.toml's [project] name is %r; this backend builds %r" % (p.get("name"), NAME))
    lines = ["Metadata-Version: 2.1", "Name: " + NAME, "Version: " + version(root)]
    if p.get("description"):
        lines.append("Summary: " + p["description"])
    if p.get("keywords"):
        lines.append("Keywords: " + ",".join(p["keywords"]))
    for who, field in (("authors", "Author"), ("maintainers", "Maintainer")):
        names = [a["name"] for a in p.get(who, []) if a.get("name") and not a.get("email")]
        mails = ["%s <%s>" % (a["name"], a["email"]) if a.get("name") else a["email"]
                 for a in p.get(who, []) if a.get("email")]
        if names:
            lines.append("%s: %s" % (field, ", ".join(names)))
        if mails:
            lines.append("%s-email: %s" % (field, ", ".join(mails)))
    lic = p.get("license")
    if isinstance(lic, dict) and lic.get("text"):
        lines.append("License: " + lic["text"].replace("\n", "\n        "))
    elif isinstance(lic, dict) and lic.get("file"):
        lines.append("License: " + _read(lic["file"], root).replace("\n", "\n        "))
    for c in p.get("classifiers", []):
        lines.append("Classifier: " + c)
    for label, url in p.get("urls", {}).items():
        lines.append("Project-URL: %s, %s" % (label, url))
    if p.get("requires-python"):
        lines.append("Requires-Python: " + p["requires-python"])
    for d in p.get("dependencies", []):
        lines.append("Requires-Dist: " + d)
    for extra, deps in p.get("optional-dependencies", {}).items():
        lines.append("Provides-Extra: " + extra)
        for d in deps:
            if ";" in d:
                req, marker = d.split(";", 1)
                lines.append('Requires-Dist: %s; (%s) and extra == "%s"' % (req.strip(), marker.strip(), extra))
            else:
                lines.append('Requires-Dist: %s; extra == "%s"' % (d.strip(), extra))
    body = ""
    readme = p.get("readme")
    if readme:
        if isinstance(readme, str):
            readme = {"file": readme}
        ctype = readme.get("content-type") or (
            "text/markdown" if readme.get("file", "").lower().endswith(".md") else
            "text/x-rst" if readme.get("file", "").lower().endswith(".rst") else "text/plain")
        body = readme["text"] if "text" in readme else _read(readme["file"], root)
        lines.append("Description-Content-Type: " + ctype)
    return "\n".join(lines) + "\n\n" + body


def entry_points(root=None):
    """entry_points.txt from [project.scripts], [project.gui-scripts] and
    [project.entry-points]."""
    p = pyproject(root).get("project", {})
    groups = {}
    if p.get("scripts"):
        groups["console_scripts"] = p["scripts"]
    if p.get("gui-scripts"):
        groups["gui_scripts"] = p["gui-scripts"]
    groups.update(p.get("entry-points", {}))
    out = []
    for g, eps in groups.items():
        out.append("[%s]" % g)
        out += ["%s = %s" % (k, v) for k, v in eps.items()]
        out.append("")
    return "\n".join(out)


def _dist_info():
    return "%s-%s.dist-info" % (NAME, version().replace("-", "_"))


# --- what the build needs -----------------------------------------------


def _go_min():
    """go.mod's go line (the oldest Go that builds it), e.g. "1.26.0"."""
    m = re.search(r"(?m)^go\s+([0-9][0-9.]*)\s*$", _read("go.mod"))
    return m.group(1) if m else "1.0"


def _vtuple(v):
    return tuple(int(x) for x in re.findall(r"[0-9]+", v)[:3])


def _run(args, env=None, cwd=None, timeout=120):
    try:
        r = subprocess.run(args, env=env, cwd=cwd or ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           universal_newlines=True, timeout=timeout)
    except (OSError, subprocess.TimeoutExpired) as e:
        return 127, "", str(e)
    return r.returncode, r.stdout, r.stderr


def _find_go(env, need):
    """(path of a go command at least as new as need, its version) or
    (None, what was found instead)."""
    tried, seen = [], set()
    cands = []
    if env.get("GO"):
        cands.append(("GO=" + env["GO"], shutil.which(env["GO"], path=env.get("PATH")) or env["GO"]))
    on_path = shutil.which("go", path=env.get("PATH", os.defpath))
    cands.append(("PATH", on_path))
    cands += [(d, os.path.join(d, "go")) for d in GO_DIRS]
    for where, path in cands:
        if not path or not os.path.isfile(path) or not os.access(path, os.X_OK):
            tried.append("%s: none" % where)
            continue
        real = os.path.realpath(path)
        if real in seen:
            continue
        seen.add(real)
        rc, out, err = _run([path, "env", "GOVERSION"], env=dict(env, GOTOOLCHAIN="local"))
        have = out.strip()
        if rc != 0 or not have.startswith("go"):
            tried.append("%s: %s does not run (%s)" % (where, path, (err or out).strip()[:200]))
        elif _vtuple(have[2:]) < _vtuple(need):
            tried.append("%s: %s is %s, too old" % (where, path, have))
        else:
            return path, have
    return None, tried


def _search_dirs(cc, env):
    """The C compiler's include and library directories, with the -I and
    -L of CGO_CFLAGS, CGO_CPPFLAGS and CGO_LDFLAGS."""
    incs, libs = [], []
    for var in ("CGO_CPPFLAGS", "CGO_CFLAGS"):
        incs += re.findall(r"(?:^|\s)-I\s*(\S+)", env.get(var, ""))
    libs += re.findall(r"(?:^|\s)-L\s*(\S+)", env.get("CGO_LDFLAGS", ""))
    rc, out, err = _run([cc, "-E", "-Wp,-v", "-x", "c", os.devnull], env=env)
    on = False
    for line in err.splitlines():
        if line.startswith("#include <...> search starts here"):
            on = True
        elif line.startswith("End of search list"):
            on = False
        elif on:
            incs.append(line.strip())
    rc, out, err = _run([cc, "-print-search-dirs"], env=env)
    for line in out.splitlines():
        if line.startswith("libraries:"):
            libs += [d for d in line.split("=", 1)[-1].split(os.pathsep) if d]
    return incs, libs


def _link_libs(link_env):
    """The libraries the link needs: {name: True when it must be static},
    from internal/shaderc's #cgo LDFLAGS and the backend's link flags."""
    flags = []
    try:
        src = _read(os.path.join("internal", "shaderc", "shaderc.go"))
        flags = " ".join(re.findall(r"(?m)^#cgo (?:linux )?LDFLAGS:(.*)$", src)).split()
    except OSError:
        pass
    extra = link_env.get("CGO_LDFLAGS", "").split()
    libs, static = {}, False
    for f in flags + extra:
        if f in ("-Wl,-Bstatic", "-Bstatic", "-static"):
            static = True
        elif f in ("-Wl,-Bdynamic", "-Bdynamic"):
            static = False
        elif f.startswith("-l"):
            libs[f[2:]] = libs.get(f[2:], False) or static
    if "stdc++" in libs:
        # The wheel's library links libstdc++ statically (manylinux.py's
        # prepare_link: -lstdc++ finds a linker script naming libstdc++.a),
        # so that it needs no libstdc++.so.6 newer than the policy's.
        libs["stdc++"] = True
    return libs


def _manylinux():
    """manylinux.py, beside this file: the wheel's tag, and how the library
    is linked to earn it."""
    here = os.path.dirname(os.path.abspath(__file__))
    sys.path.insert(0, here)
    try:
        import manylinux
    except ImportError as e:
        raise BuildError("python/build_backend/manylinux.py does not import (%s): it computes the wheel's tag" % e)
    finally:
        sys.path.remove(here)
    return manylinux


def _link_env():
    """What go build's environment gets to link the library for manylinux
    (CGO_LDFLAGS, after the user's); computing it prepares
    build/manylinux-link (manylinux.prepare_link)."""
    try:
        return _manylinux().prepare_link()
    except RuntimeError as e:
        raise BuildError("preparing the manylinux link (python/build_backend/manylinux.py) failed: %s" % e)


def check_prerequisites(env=None, link_env=None):
    """Checks what building the C library needs: Go (go.mod's version or
    later), a C compiler, the Vulkan and shader compiler headers, the
    shader compiler's static libraries and libstdc++.a (link_env: extra
    link flags whose -l and -L count too). Returns (go path, Go's version,
    the C compiler); raises BuildError naming every one missing, where it
    was looked for and the Debian package (or download) that gives it."""
    env = dict(os.environ if env is None else env)
    link_env = link_env or {}
    missing = []  # lines about Go and the C compiler
    wanted = {}  # Debian package -> the headers and libraries it gives that are missing
    need = _go_min()
    go, found = _find_go(env, need)
    govers = found if go else None
    if not go:
        missing.append("Go %s or later (go.mod's go line): %s. Download it from https://go.dev/dl/ (Debian 12's "
                       "golang-go is 1.19, too old) and put its bin/ on PATH (or GO=/path/to/go)"
                       % (need, "; ".join(found)))
    cc = env.get("CC", "").split()[0] if env.get("CC", "").split() else None
    if not cc and go:
        rc, out, _ = _run([go, "env", "CC"], env=dict(env, GOTOOLCHAIN="local"))
        cc = out.strip().split()[0] if rc == 0 and out.strip() else None
    cc = cc or "gcc"
    ccpath = shutil.which(cc, path=env.get("PATH", os.defpath))
    where = ""
    if not ccpath:
        missing.append("the C compiler %s (cgo compiles the library's C parts with it; CC=... names another), "
                       "not on PATH: Debian package gcc" % cc)
        wanted.setdefault("gcc", [])
    else:
        incs, libdirs = _search_dirs(ccpath, env)
        for h, pkg in HEADER_PACKAGES.items():
            if not any(os.path.isfile(os.path.join(d, h)) for d in incs):
                wanted.setdefault(pkg, []).append("<%s>" % h)
        for lib, static in _link_libs(link_env).items():
            names = ["lib%s.a" % lib] if static else ["lib%s.so" % lib, "lib%s.a" % lib]
            if not any(os.path.isfile(os.path.join(d, n)) for d in libdirs for n in names):
                pkg = LIB_PACKAGES.get(lib, "unknown (no package known for lib%s)" % lib)
                wanted.setdefault(pkg, []).append(" or ".join(names) + (" (static)" if static else ""))
        if any(wanted.values()):
            where = ("Headers were looked for in %s's include path (%s; CGO_CFLAGS=-I DIR adds one), libraries "
                     "in its library path (%s; CGO_LDFLAGS=-L DIR adds one)."
                     % (cc, ", ".join(incs) or "none", ", ".join(libdirs) or "none"))
    for pkg, items in wanted.items():
        if items:
            missing.append("%s: Debian package %s" % (", ".join(items), pkg))
    if missing:
        pkgs = sorted(set(p.split()[0] for p in wanted if not p.startswith("unknown")))
        msg = "cannot build libgfxcuda.so; missing:\n" + "\n".join("  - " + m for m in missing)
        if where:
            msg += "\n" + where
        if pkgs:
            msg += "\nOn Debian or Ubuntu: sudo apt-get install -y " + " ".join(pkgs)
        msg += ("\n(README.md's \"Python\" section says what building from source needs; installing a built "
                "wheel needs none of it.)")
        raise BuildError(msg)
    return go, govers, ccpath


# --- building the library -------------------------------------------------


def _go_env(go, link_env):
    env = dict(os.environ)
    for k, v in link_env.items():
        if k.endswith("FLAGS") and env.get(k):
            env[k] = env[k] + " " + v
        else:
            env[k] = v
    env["CGO_ENABLED"] = "1"
    env["PATH"] = os.path.dirname(go) + os.pathsep + env.get("PATH", os.defpath)
    return env


def _modules_ready(go, env, vendored):
    """Makes sure go build will find the Go modules go.mod requires: from
    vendor/ (an sdist), else from Go's module cache, downloading them when
    they are not there; a download that fails is a BuildError saying so."""
    if vendored:
        return
    rc, _, err = _run([go, "list", "-deps", LIB_PKG], env=dict(env, GOPROXY="off", GOFLAGS="-mod=readonly"))
    if rc == 0:
        return
    mods = re.findall(r"(?m)^\s*(?:require\s+)?([a-z0-9.-]+\.[a-z]+/\S+)\s+(v\S+)", _read("go.mod"))
    rc2, gmc, _ = _run([go, "env", "GOMODCACHE"], env=env)
    _say("the Go modules go.mod requires (%s) are not all in Go's module cache (%s): downloading them (GOPROXY=%s)"
         % (", ".join("%s %s" % m for m in mods), gmc.strip(), env.get("GOPROXY") or "Go's default"))
    rc, out, err2 = _run([go, "mod", "download"] + ["%s@%s" % m for m in mods], env=env, timeout=600)
    if rc != 0:
        raise BuildError("the Go modules go.mod requires (%s) are not in Go's module cache (%s) and downloading them "
                         "failed:\n%s\nConnect this machine to the network (or set GOPROXY to a proxy it reaches) "
                         "and try again, or build from gfxcuda's sdist, which carries them (vendor/): "
                         "pip install gfxcuda-%s.tar.gz"
                         % (", ".join("%s %s" % m for m in mods), gmc.strip(), (err2 or out).strip(), version()))


def build_library(outdir):
    """Builds libgfxcuda.so into outdir with Go, as `make lib` does, linked
    as manylinux.prepare_link says; returns its path."""
    _manylinux()
    go, govers, cc = check_prerequisites()
    link_env = _link_env()
    env = _go_env(go, link_env)
    vendored = os.path.isfile(os.path.join(ROOT, "vendor", "modules.txt"))
    _modules_ready(go, env, vendored)
    out = os.path.join(outdir, "libgfxcuda.so")
    args = [go, "build", "-buildmode=c-shared", "-trimpath", "-buildvcs=false", "-ldflags=-s -w", "-o", out,
            "-mod=vendor" if vendored else "-mod=readonly"]
    args.append(LIB_PKG)
    shown = " ".join("%s=%s" % kv for kv in sorted(link_env.items()))
    _say("building libgfxcuda.so with %s (%s, cc %s)%s: 1-3 minutes on a fresh machine (the cgo packages and the "
         "shader compiler), less with Go's build cache" % (govers, go, cc, (": " + shown) if shown else ""))
    _say("  " + " ".join(a if " " not in a else "'%s'" % a for a in args[1:]) + (" (Go modules from vendor/)" if vendored else ""))
    start = time.time()
    p = subprocess.Popen(args, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         universal_newlines=True)
    lines = []

    def pump():
        for line in p.stdout:
            lines.append(line)
            sys.stderr.write(line)
            sys.stderr.flush()

    t = threading.Thread(target=pump, daemon=True)
    t.start()
    while True:
        try:
            p.wait(timeout=20)
            break
        except subprocess.TimeoutExpired:
            _say("  still building (%d s)" % (time.time() - start))
    t.join()
    if p.returncode != 0:
        raise BuildError("go build of %s failed (exit status %d; its output is above):\n%s"
                         % (LIB_PKG, p.returncode, "".join(lines[-40:]).rstrip()))
    _say("built libgfxcuda.so in %.0f s (%.1f MB)" % (time.time() - start, os.path.getsize(out) / 1e6))
    # cgo's generated header is not shipped: gfxcuda.h is the hand-written one.
    gen = os.path.join(outdir, "libgfxcuda.h")
    if os.path.exists(gen):
        os.remove(gen)
    return out


def platform_tag(lib):
    """The wheel's platform tags from what lib needs (manylinux.py), as the
    compressed tag set its file name carries (the tag and its legacy alias:
    manylinux_2_17_x86_64.manylinux2014_x86_64), or a BuildError listing
    what the manylinux policy forbids."""
    manylinux = _manylinux()
    try:
        return manylinux.wheel_tag_set(manylinux.wheel_platform_tag(lib))
    except manylinux.PolicyError as e:
        raise BuildError("the library %s breaks the manylinux policy, so no wheel of it would install honestly:\n%s"
                         % (lib, e))


# --- the files --------------------------------------------------------------


def _cache_or_lib(rel):
    """Whether rel (/ separators) is bytecode or a built library, which
    neither the wheel's package files nor the sdist carry."""
    return "__pycache__" in rel.split("/") or rel.endswith((".pyc", ".pyo", ".so"))


def _listed_files(root, rels):
    """The files under root/rel for each rel (a file or a folder): git's
    list where root is a git checkout (tracked files, with uncommitted
    changes, and untracked ones git does not ignore), else every file but
    dotfiles; never caches nor built libraries (__pycache__, .pyc, .pyo,
    .so); sorted, relative to root, with / separators."""
    out = set()
    git = shutil.which("git")
    if git and os.path.isdir(os.path.join(root, ".git")):
        rc, stdout, err = _run([git, "ls-files", "-z", "--cached", "--others", "--exclude-standard", "--"] + list(rels),
                               cwd=root)
        if rc == 0:
            for f in stdout.split("\0"):
                if f and not _cache_or_lib(f) and os.path.isfile(os.path.join(root, f)):
                    out.add(f)
            return sorted(out)
    for rel in rels:
        p = os.path.join(root, rel)
        if os.path.isfile(p):
            out.add(rel.replace(os.sep, "/"))
            continue
        for d, dirs, names in os.walk(p):
            dirs[:] = [x for x in dirs if x != "__pycache__" and not x.startswith(".")]
            for n in names:
                if _cache_or_lib(n) or n.startswith("."):
                    continue
                out.add(os.path.relpath(os.path.join(d, n), root).replace(os.sep, "/"))
    return sorted(out)


def package_files(root=None):
    """The Python package's files, relative to python/ (gfxcuda/...): its
    modules, stubs, py.typed and data files; not a libgfxcuda.so left there
    by `make lib` (the wheel gets the library it was built with)."""
    root = root or ROOT
    return [os.path.relpath(os.path.join(root, f), os.path.join(root, "python")).replace(os.sep, "/")
            for f in _listed_files(root, [PKG_DIR])]


def _record_line(arc, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return "%s,sha256=%s,%d" % (arc, digest, len(data))


def _zip_write(z, arc, data, mode, when):
    info = zipfile.ZipInfo(arc, date_time=when)
    info.external_attr = (0o100000 | mode) << 16
    info.compress_type = zipfile.ZIP_DEFLATED
    z.writestr(info, data)


def pack_wheel(wheel_directory, lib, header, tag):
    """Writes the wheel (the package, lib, header, the dist-info) into
    wheel_directory; returns its file name. tag is its platform tag or a
    compressed set of them (dots between): the file name carries it, WHEEL
    has one Tag line for each."""
    ver = version()
    di = _dist_info()
    files = []
    for rel in package_files():
        with open(os.path.join(ROOT, "python", rel), "rb") as f:
            files.append((rel, f.read(), 0o644))
    with open(lib, "rb") as f:
        files.append((NAME + "/libgfxcuda.so", f.read(), 0o755))
    with open(header, "rb") as f:
        files.append((NAME + "/gfxcuda.h", f.read(), 0o644))
    tags = ["py3-none-" + t for t in tag.split(".")]
    wheel = ("Wheel-Version: 1.0\nGenerator: gfxcuda_build (python/build_backend)\nRoot-Is-Purelib: false\n"
             + "".join("Tag: %s\n" % t for t in tags))
    files += [(di + "/METADATA", metadata().encode("utf-8"), 0o644), (di + "/WHEEL", wheel.encode(), 0o644)]
    eps = entry_points()
    if eps:
        files.append((di + "/entry_points.txt", eps.encode(), 0o644))
    name = "%s-%s-py3-none-%s.whl" % (NAME, ver.replace("-", "_"), tag)
    os.makedirs(wheel_directory, exist_ok=True)
    path = os.path.join(wheel_directory, name)
    when = time.gmtime(_epoch())[:6]
    records = [_record_line(a, d) for a, d, _ in files] + [di + "/RECORD,,"]
    tmp = path + ".part"
    with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as z:
        for arc, data, mode in files:
            _zip_write(z, arc, data, mode, when)
        _zip_write(z, di + "/RECORD", ("\n".join(records) + "\n").encode(), 0o644, when)
    os.replace(tmp, path)
    _say("wrote %s (%.1f MB)" % (path, os.path.getsize(path) / 1e6))
    return name


def sdist_files(root=None):
    """What the sdist carries, relative to the source tree: the Go packages
    cmd/libgfxcuda needs (`go list -deps`: their Go, C and header files for
    every platform, and embedded files), go.mod, go.sum, the Python
    package, this backend, pyproject.toml, python/VERSION, README.md (the
    package's description) and LICENSE if there is one. vendor/ is added
    by build_sdist."""
    root = root or ROOT
    go, _ = _find_go(dict(os.environ), _go_min())
    if not go:
        check_prerequisites()  # raises, naming Go
    fields = ("GoFiles CgoFiles CFiles CXXFiles HFiles SFiles SysoFiles IgnoredGoFiles IgnoredOtherFiles "
              "EmbedFiles").split()
    fmt = "{{if .Module}}{{if .Module.Main}}{{.Dir}}%s{{end}}{{end}}" % "".join(
        "{{range .%s}}\t{{.}}{{end}}" % f for f in fields)
    env = dict(os.environ, GOFLAGS="-mod=readonly", GOTOOLCHAIN=os.environ.get("GOTOOLCHAIN", "local"), CGO_ENABLED="1")
    vendored = os.path.isfile(os.path.join(root, "vendor", "modules.txt"))
    if vendored:
        env["GOFLAGS"] = "-mod=vendor"
    rc, out, err = _run([go, "list", "-deps", "-f", fmt, LIB_PKG], env=env, cwd=root)
    if rc != 0:
        raise BuildError("go list -deps %s failed: %s" % (LIB_PKG, err.strip()))
    wanted = set()
    for line in out.splitlines():
        parts = line.split("\t")
        if not parts[0]:
            continue
        d = os.path.relpath(parts[0], root)
        for f in parts[1:]:
            if f.endswith("_test.go"):
                continue
            wanted.add(os.path.normpath(os.path.join(d, f)).replace(os.sep, "/"))
    extra = ["go.mod", "go.sum", "pyproject.toml", "README.md", os.path.join("python", "VERSION"), HEADER,
             PKG_DIR, os.path.join("python", "build_backend")]
    extra += [f for f in ("LICENSE", "LICENSE.md", "LICENSE.txt", "COPYING") if os.path.isfile(os.path.join(root, f))]
    listed = _listed_files(root, [e for e in extra if os.path.exists(os.path.join(root, e))])
    return sorted(wanted | set(listed)), go


def build_sdist_into(sdist_directory):
    """Writes gfxcuda-VERSION.tar.gz (see sdist_files; with vendor/ from
    `go mod vendor` and PKG-INFO); returns its file name."""
    ver = version()
    files, go = sdist_files()
    base = "%s-%s" % (NAME, ver.replace("-", "_"))
    name = base + ".tar.gz"
    os.makedirs(sdist_directory, exist_ok=True)
    path = os.path.join(sdist_directory, name)
    tmp = tempfile.mkdtemp(prefix="gfxcuda-sdist-")
    try:
        vendor = os.path.join(ROOT, "vendor")
        if os.path.isfile(os.path.join(vendor, "modules.txt")):
            _say("the Go modules: vendor/ as it is")
        else:
            vendor = os.path.join(tmp, "vendor")
            _say("the Go modules into the sdist: go mod vendor")
            env = dict(os.environ, GOTOOLCHAIN=os.environ.get("GOTOOLCHAIN", "local"), GOFLAGS="")
            rc, out, err = _run([go, "mod", "vendor", "-o", vendor], env=env, timeout=600)
            if rc != 0:
                raise BuildError("go mod vendor failed (the sdist carries the Go modules so that it builds offline; "
                                 "they must be in Go's module cache or downloadable now):\n%s" % (err or out).strip())
        vfiles = []
        for d, dirs, names in os.walk(vendor):
            dirs.sort()
            for n in sorted(names):
                p = os.path.join(d, n)
                vfiles.append((os.path.join("vendor", os.path.relpath(p, vendor)).replace(os.sep, "/"), p))
        mtime = _epoch()

        def add(t, arc, data, mode=0o644):
            info = tarfile.TarInfo(base + "/" + arc)
            info.size, info.mtime, info.mode = len(data), mtime, mode
            info.uid = info.gid = 0
            info.uname = info.gname = ""
            t.addfile(info, io.BytesIO(data))

        part = path + ".part"
        with open(part, "wb") as raw:
            import gzip
            with gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=mtime) as gz:
                with tarfile.open(fileobj=gz, mode="w", format=tarfile.PAX_FORMAT) as t:
                    add(t, "PKG-INFO", metadata().encode("utf-8"))
                    for rel in files:
                        p = os.path.join(ROOT, rel)
                        with open(p, "rb") as f:
                            add(t, rel, f.read(), 0o755 if os.access(p, os.X_OK) else 0o644)
                    for arc, p in vfiles:
                        with open(p, "rb") as f:
                            add(t, arc, f.read())
        os.replace(part, path)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    _say("wrote %s (%d files and vendor/, %.1f MB)" % (path, len(files) + 1, os.path.getsize(path) / 1e6))
    return name


# --- PEP 517 ---------------------------------------------------------------


def get_requires_for_build_wheel(config_settings=None):
    """Nothing: the backend is the standard library, the build is Go's."""
    return []


def get_requires_for_build_sdist(config_settings=None):
    """Nothing."""
    return []


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    """The dist-info's METADATA and entry_points.txt, without building."""
    di = os.path.join(metadata_directory, _dist_info())
    os.makedirs(di, exist_ok=True)
    with open(os.path.join(di, "METADATA"), "w", encoding="utf-8") as f:
        f.write(metadata())
    eps = entry_points()
    if eps:
        with open(os.path.join(di, "entry_points.txt"), "w", encoding="utf-8") as f:
            f.write(eps)
    return _dist_info()


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    """Builds libgfxcuda.so with Go and the wheel around it; returns the
    wheel's file name. config_settings "lib" (and "header") pack a library
    built already instead (pip: --config-settings lib=PATH)."""
    cs = config_settings or {}
    header = cs.get("header") or os.path.join(ROOT, HEADER)
    if cs.get("lib"):
        lib = os.path.abspath(cs["lib"])
        if not os.path.isfile(lib):
            raise BuildError("lib=%s: no such file (build it with `make lib`, or leave lib out to build it here)" % lib)
        return pack_wheel(wheel_directory, lib, header, platform_tag(lib))
    tmp = tempfile.mkdtemp(prefix="gfxcuda-build-")
    try:
        lib = build_library(tmp)
        tag = platform_tag(lib)
        _say("the library's platform tag: %s" % tag)
        return pack_wheel(wheel_directory, lib, header, tag)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def build_sdist(sdist_directory, config_settings=None):
    """Builds gfxcuda-VERSION.tar.gz; returns its file name."""
    return build_sdist_into(sdist_directory)


def main(argv=None):
    import argparse

    ap = argparse.ArgumentParser(prog="python3 python/build_backend/gfxcuda_build.py",
                                 description="Builds gfxcuda's wheel or sdist (what pip does through this backend).")
    sub = ap.add_subparsers(dest="command")
    w = sub.add_parser("wheel", help="build the wheel into OUTDIR")
    w.add_argument("--lib", help="pack this libgfxcuda.so (e.g. make lib's) instead of building one with Go")
    w.add_argument("--header", help="with --lib: the header to pack (default cmd/libgfxcuda/gfxcuda.h)")
    w.add_argument("outdir")
    s = sub.add_parser("sdist", help="build the sdist into OUTDIR")
    s.add_argument("outdir")
    sub.add_parser("check", help="check what building needs (Go, the C compiler, headers, libraries)")
    a = ap.parse_args(argv)
    if a.command == "wheel":
        cs = {k: v for k, v in (("lib", a.lib), ("header", a.header)) if v}
        print(os.path.join(a.outdir, build_wheel(a.outdir, cs)))
    elif a.command == "sdist":
        print(os.path.join(a.outdir, build_sdist(a.outdir)))
    elif a.command == "check":
        go, govers, cc = check_prerequisites()
        print("ok: %s (%s), cc %s; the headers and libraries are there" % (govers, go, cc))
    else:
        ap.print_help()
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
