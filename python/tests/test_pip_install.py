"""pip install gfxcuda from source, as a user (and CI) does it (#33).

From a copy of this checkout as git lists it (tracked files with their
uncommitted changes, and untracked ones git does not ignore: what a clean
clone holds once they are committed), `pip wheel . --no-build-isolation
--no-index` builds the wheel with Go through the in-tree backend; the
manylinux check passes on its library and names its tag; the wheel installs
into a fresh venv with --no-index; in that venv, outside the source tree,
gfxcuda imports from the venv, compushady's names and README examples run,
and `gfxcuda --version`, `gfxcuda devices` and `python -m gfxcuda doctor`
run on lavapipe. The sdist builds, and a wheel builds from it offline (an
empty Go module cache, GOPROXY=off).

Each Go build takes a minute or more here: the wheel and the sdist's wheel
are built once per session (fixtures), with Go's own build cache. Skipped
outside a source checkout (the GPU bundle: no Go there; test_wheel.py packs
the bundled library instead)."""

import base64
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tarfile
import zipfile

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", ".."))
BACKEND = os.path.join(REPO, "python", "build_backend")
IS_CHECKOUT = os.path.isfile(os.path.join(REPO, "go.mod")) and os.path.isdir(os.path.join(REPO, ".git"))

pytestmark = pytest.mark.skipif(not IS_CHECKOUT, reason="not a source checkout (go.mod and .git): nothing to build "
                                                       "the wheel from (the GPU bundle has no Go)")

# The tree's gfxcuda, PYTHONPATH or a library named by GFXCUDA_LIBRARY must
# not stand in for the installed one.
CLEAN_ENV = {k: v for k, v in os.environ.items()
             if k not in ("PYTHONPATH", "PYTHONHOME", "GFXCUDA_LIBRARY", "GFXCUDA_TEST_INSTALLED")}
CLEAN_ENV["PYTHONNOUSERSITE"] = "1"


def _version():
    with open(os.path.join(REPO, "python", "VERSION")) as f:
        return f.read().strip()


def _backend():
    sys.path.insert(0, BACKEND)
    try:
        import gfxcuda_build
        return gfxcuda_build
    finally:
        sys.path.remove(BACKEND)


def _run(args, cwd, env=None, timeout=300, what=None):
    r = subprocess.run(args, cwd=str(cwd), env=env or CLEAN_ENV, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       universal_newlines=True, timeout=timeout)
    assert r.returncode == 0, "%s: exit status %d:\n%s" % (what or " ".join(map(str, args)), r.returncode,
                                                           r.stdout[-6000:])
    return r.stdout


def _pip_ok():
    r = subprocess.run([sys.executable, "-m", "pip", "--version"], capture_output=True)
    if r.returncode != 0:
        pytest.fail("%s has no pip: install python3-pip (scripts/deps.sh does)" % sys.executable)


def _copy_checkout(dst):
    """dst gets the files git lists here (tracked, with their changes, and
    untracked but not ignored), as a git repository of its own: a clone of
    this checkout with its uncommitted work."""
    out = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=REPO,
                         capture_output=True, check=True).stdout.decode()
    for rel in out.split("\0"):
        src = os.path.join(REPO, rel)
        if not rel or not os.path.isfile(src) or os.path.islink(src):
            continue
        os.makedirs(os.path.dirname(os.path.join(dst, rel)), exist_ok=True)
        shutil.copy2(src, os.path.join(dst, rel))
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.invalid", "-c", "init.defaultBranch=main"]
    subprocess.run(git + ["init", "-q"], cwd=dst, check=True)
    subprocess.run(git + ["add", "-A"], cwd=dst, check=True)
    subprocess.run(git + ["commit", "-q", "-m", "copy"], cwd=dst, check=True)


def _pip_wheel(src, out, env):
    """pip wheel src into out, offline; returns the wheel's path."""
    os.makedirs(out, exist_ok=True)
    _run([sys.executable, "-m", "pip", "wheel", ".", "--no-build-isolation", "--no-index", "--no-deps",
          "--no-cache-dir", "-v", "-w", str(out)], cwd=src, env=env, timeout=1200, what="pip wheel (in %s)" % src)
    wheels = [f for f in os.listdir(out) if f.endswith(".whl")]
    assert len(wheels) == 1, wheels
    return os.path.join(out, wheels[0])


@pytest.fixture(scope="session")
def source(tmp_path_factory):
    d = tmp_path_factory.mktemp("clone") / "gfxcuda"
    d.mkdir()
    _copy_checkout(str(d))
    return d


@pytest.fixture(scope="session")
def wheel(source, tmp_path_factory):
    """The wheel `pip wheel . --no-build-isolation --no-index` builds from
    the copy: Go's modules from its module cache, nothing downloaded."""
    _pip_ok()
    env = dict(CLEAN_ENV, GOPROXY="off")
    return _pip_wheel(source, tmp_path_factory.mktemp("wheel"), env)


@pytest.fixture(scope="session")
def venv(wheel, tmp_path_factory):
    """A fresh venv (with the system's site packages, for numpy) with the
    wheel installed by pip --no-index; its python."""
    d = tmp_path_factory.mktemp("venv") / "v"
    r = subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(d)], capture_output=True, text=True)
    assert r.returncode == 0, "python3 -m venv failed (Debian: install python3-venv): " + r.stderr
    py = str(d / "bin" / "python")
    _run([py, "-m", "pip", "install", "--no-index", "--no-cache-dir", wheel], cwd=d, what="pip install the wheel")
    return py


@pytest.fixture(scope="session")
def outside(tmp_path_factory):
    """A working directory outside the source tree."""
    return tmp_path_factory.mktemp("elsewhere")


def _files(whl):
    with zipfile.ZipFile(whl) as z:
        return {i.filename: z.read(i.filename) for i in z.infolist()}


def test_wheel_is_named_and_tagged_honestly(wheel, source, tmp_path):
    """The file name has the version and manylinux.py's tag of the library
    inside; WHEEL, METADATA, entry_points.txt and RECORD agree."""
    b = _backend()
    ver = _version()
    name = os.path.basename(wheel)
    # The tag, then its legacy alias where PEP 600 has one (a compressed
    # tag set: manylinux_2_17_x86_64.manylinux2014_x86_64).
    m = re.fullmatch(r"gfxcuda-%s-py3-none-(manylinux_2_\d+_(x86_64|aarch64))((?:\.manylinux\w+)?)\.whl"
                     % re.escape(ver), name)
    assert m, name
    files = _files(wheel)
    lib = tmp_path / "libgfxcuda.so"
    lib.write_bytes(files["gfxcuda/libgfxcuda.so"])
    sys.path.insert(0, BACKEND)
    try:
        import manylinux
    finally:
        sys.path.remove(BACKEND)
    assert manylinux.wheel_platform_tag(str(lib), arch=m.group(2)) == m.group(1)
    assert m.group(1) + m.group(3) == manylinux.wheel_tag_set(m.group(1)), name
    if m.group(1).startswith("manylinux_2_17_"):
        assert m.group(3) == ".manylinux2014_" + m.group(2), name
    assert manylinux.check_wheel(wheel) == m.group(1)
    di = "gfxcuda-%s.dist-info/" % ver
    wheel_meta = files[di + "WHEEL"].decode()
    assert "Root-Is-Purelib: false" in wheel_meta, wheel_meta
    assert re.findall(r"(?m)^Tag: (.*)$", wheel_meta) == ["py3-none-" + t for t in manylinux.wheel_tags(m.group(1))], \
        wheel_meta
    assert files[di + "METADATA"].decode() == b.metadata(str(source)), "METADATA is not pyproject.toml's"
    assert "[console_scripts]\ngfxcuda = gfxcuda.__main__:main" in files[di + "entry_points.txt"].decode()
    record = files[di + "RECORD"].decode().splitlines()
    listed = {}
    for line in record:
        path, digest, size = line.rsplit(",", 2)
        listed[path] = (digest, size)
    assert set(listed) == set(files), set(listed) ^ set(files)
    for path, data in files.items():
        if path == di + "RECORD":
            continue
        want = "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        assert listed[path] == (want, str(len(data))), path
    # The package as the tree has it, the library and its header, nothing else.
    pkg = set(b.package_files(str(source))) | {"gfxcuda/libgfxcuda.so", "gfxcuda/gfxcuda.h"}
    assert set(f for f in files if not f.startswith(di)) == pkg, set(f for f in files if not f.startswith(di)) ^ pkg
    assert not [f for f in files if "__pycache__" in f or f.endswith(".pyc")]
    missing = [f for f in ("gfxcuda/__init__.py", "gfxcuda/_version.py", "gfxcuda/shaders/hlsl.py", "gfxcuda/py.typed")
               if f not in files]
    assert not missing, missing
    # The console script's target (engineer C's part of #33): without it
    # `gfxcuda` is installed and fails at its first run.
    if "gfxcuda/__main__.py" not in files:
        pytest.fail("the wheel has no gfxcuda/__main__.py: the gfxcuda command and python -m gfxcuda have no target")


def test_installed_gfxcuda_is_the_venvs(venv, outside):
    out = _run([venv, "-c", "import sys, gfxcuda, gfxcuda._lib as l; print(sys.prefix); print(gfxcuda.__file__); "
                            "print(l._path); print(gfxcuda.__version__)"], cwd=outside)
    prefix, mod, lib, ver = out.split("\n")[:4]
    assert mod.startswith(prefix + os.sep) and lib.startswith(prefix + os.sep), out
    assert not mod.startswith(REPO) and ver == _version(), out


def test_compushady_names_in_the_venv(venv, outside):
    """Buffers and a texture through compushady's names, with the alias
    installed into the venv's site-packages (its .pth)."""
    from test_compushady_alias import ROUND_TRIP
    _alias(venv, outside)
    out = _run([venv, "-c", ROUND_TRIP], cwd=outside)
    assert out.strip() == "ok", out


def _alias(venv, outside):
    out = _run([venv, "-m", "gfxcuda.compushady_alias", "install"], cwd=outside)
    assert "installed" in out or "already" in out, out


def _readme_blocks():
    from test_compushady_alias import _readme_blocks as blocks
    return blocks()


@pytest.mark.parametrize("index", range(max(len(_readme_blocks()), 1)))
def test_compushady_readme_examples_in_the_venv(venv, outside, tmp_path, index):
    """compushady's README examples, verbatim, run by the venv's python
    through the alias (as test_compushady_alias runs them on the tree)."""
    from test_compushady_alias import README
    blocks = _readme_blocks()
    if not blocks:
        pytest.skip("compushady's README is not here (%s; set COMPUSHADY_README): test_compushady_names_in_the_venv "
                    "runs compushady's names instead" % README)
    code = blocks[index]
    if re.search(r"Swapchain|pyglet|glfw|PIL", code):
        pytest.skip("needs a window or a swapchain (or Pillow): lavapipe here has no display")
    _alias(venv, outside)
    (tmp_path / "example.py").write_text(code)
    out = _run([venv, str(tmp_path / "example.py")], cwd=tmp_path)
    if "readback()" in code:
        assert out.startswith("b'\\xff\\x00\\x00\\xff"), out
    if "get_discovered_devices" in code:
        assert re.search(r"Name: .+ Dedicated Memory: \d+ MB", out), out


def _script(venv):
    return os.path.join(os.path.dirname(venv), "gfxcuda")


def test_gfxcuda_command_version(venv, outside):
    assert os.path.isfile(_script(venv)), "pip installed no gfxcuda command (entry_points.txt)"
    out = _run([_script(venv), "--version"], cwd=outside)
    assert re.match(r"gfxcuda %s\b" % re.escape(_version()), out), out


def test_gfxcuda_command_devices(venv, outside):
    out = _run([_script(venv), "devices"], cwd=outside)
    if os.environ.get("GFXCUDA_REQUIRE_VULKAN") == "1":
        assert re.search(r"llvmpipe|NVIDIA|AMD|Intel", out), out


def test_python_m_gfxcuda_doctor(venv, outside):
    """doctor runs from the wheel; it exits 1 when a check fails (here:
    no CUDA driver, lavapipe only), 0 when all pass."""
    r = subprocess.run([venv, "-m", "gfxcuda", "doctor"], cwd=str(outside), env=CLEAN_ENV, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, universal_newlines=True, timeout=300)
    assert "Traceback" not in r.stdout and "vulkan loader" in r.stdout, r.stdout
    assert r.returncode == 0 or (r.returncode == 1 and "[FAIL]" in r.stdout), (r.returncode, r.stdout)
    # Where the libraries came from: the venv's own libgfxcuda.so, no other.
    own = re.search(r"(?m)^  - libgfxcuda\.so \(gfxcuda\): (/.*)$", r.stdout)
    assert own, r.stdout
    venv_root = os.path.realpath(os.path.dirname(os.path.dirname(venv)))
    assert own.group(1).startswith(venv_root + os.sep) and own.group(1).endswith("/gfxcuda/libgfxcuda.so"), \
        (own.group(1), venv_root)
    assert re.search(r"(?m)^  - libvulkan\.so\.1 \(Vulkan\): (/\S+|not found: .*)$", r.stdout), r.stdout
    if os.environ.get("GFXCUDA_REQUIRE_VULKAN") == "1":
        assert re.search(r"\[ok +\] vulkan loader", r.stdout), r.stdout


@pytest.fixture(scope="session")
def sdist(source, tmp_path_factory):
    """build_sdist of the copy (what `python -m build --sdist` calls)."""
    out = tmp_path_factory.mktemp("sdist")
    code = ("import sys; sys.path.insert(0, 'python/build_backend'); import gfxcuda_build as b; "
            "print(b.build_sdist(sys.argv[1]))")
    name = _run([sys.executable, "-c", code, str(out)], cwd=source, what="build_sdist").strip().splitlines()[-1]
    return os.path.join(str(out), name)


def test_sdist(sdist):
    ver = _version()
    assert os.path.basename(sdist) == "gfxcuda-%s.tar.gz" % ver
    with tarfile.open(sdist) as t:
        names = t.getnames()
        pkg_info = t.extractfile("gfxcuda-%s/PKG-INFO" % ver).read().decode()
    assert all(n.startswith("gfxcuda-%s/" % ver) for n in names), names[:5]
    rel = {n.split("/", 1)[1] for n in names if "/" in n}
    for need in ("PKG-INFO", "pyproject.toml", "README.md", "go.mod", "go.sum", "vendor/modules.txt",
                 "python/VERSION", "python/gfxcuda/__init__.py", "python/build_backend/gfxcuda_build.py",
                 "python/build_backend/manylinux.py", "cmd/libgfxcuda/gfxcuda.h", "internal/shaderc/shaderc.go"):
        assert need in rel, need
    assert not [n for n in rel if n.endswith(("_test.go", ".so", ".pyc")) or n.startswith((".git/", "python/tests/"))]
    assert "\nVersion: %s\n" % ver in pkg_info


def test_wheel_builds_from_the_sdist_offline(sdist, wheel, tmp_path):
    """The unpacked sdist builds a wheel with no network and an empty Go
    module cache: the modules come from its vendor/."""
    with tarfile.open(sdist) as t:
        t.extractall(str(tmp_path / "src"))
    src = tmp_path / "src" / ("gfxcuda-%s" % _version())
    modcache = tmp_path / "empty-modcache"
    # GOFLAGS=-mod=mod as a user may have it: the backend still builds from vendor/.
    env = dict(CLEAN_ENV, GOPROXY="off", GOMODCACHE=str(modcache), GOFLAGS="-mod=mod")
    w = _pip_wheel(src, tmp_path / "w", env)
    assert os.path.basename(w) == os.path.basename(wheel)
    assert set(_files(w)) == set(_files(wheel))
    assert not modcache.exists() or not list(modcache.iterdir()), list(modcache.iterdir())


def test_missing_prerequisites_are_named(tmp_path):
    """Without Go and with a C compiler that finds no headers nor libraries,
    one error names each thing missing and the Debian package giving it."""
    cc = tmp_path / "cc"
    empty = tmp_path / "empty"
    empty.mkdir()
    cc.write_text("#!/bin/sh\ncase \"$*\" in\n"
                  "*-print-search-dirs*) echo 'libraries: =%s' ;;\n"
                  "*-Wp,-v*) printf '#include <...> search starts here:\\n %s\\nEnd of search list.\\n' >&2 ;;\n"
                  "esac\n" % (empty, empty))
    cc.chmod(0o755)
    code = ("import sys; sys.path.insert(0, sys.argv[1]); import gfxcuda_build as b; b.GO_DIRS = []; "
            "b.check_prerequisites(link_env={})")
    env = dict(CLEAN_ENV, PATH=str(tmp_path) + os.pathsep + "/usr/bin:/bin", CC="cc")
    env.pop("GO", None)
    r = subprocess.run([sys.executable, "-c", code, BACKEND], cwd=str(tmp_path), env=env, capture_output=True, text=True)
    assert r.returncode == 1, (r.returncode, r.stderr)
    err = r.stderr
    assert "Traceback" not in err, err
    assert re.search(r"Go 1\.\d+(\.\d+)? or later .*https://go\.dev/dl/", err), err
    for item, pkg in (("<vulkan/vulkan.h>", "libvulkan-dev"), ("<shaderc/shaderc.h>", "libshaderc-dev"),
                      ("libshaderc_combined.a (static)", "libshaderc-dev"), ("libglslang.a (static)", "glslang-dev"),
                      ("libSPIRV-Tools.a (static)", "spirv-tools"), ("<stdlib.h>", "libc6-dev")):
        line = next((l for l in err.splitlines() if item in l), None)
        assert line and ("Debian package " + pkg) in line, (item, err)
    assert "sudo apt-get install -y" in err and "libshaderc-dev" in err.split("sudo apt-get install -y")[1]
    # No C compiler at all: that is named too.
    env["CC"] = "no-such-cc"
    r = subprocess.run([sys.executable, "-c", code, BACKEND], cwd=str(tmp_path), env=env, capture_output=True, text=True)
    assert r.returncode == 1 and "the C compiler no-such-cc" in r.stderr and "Debian package gcc" in r.stderr, r.stderr


def test_go_modules_that_cannot_be_downloaded_are_named(source, tmp_path):
    """From a clone with Go's module cache empty and no network, the build
    stops before go build, naming the modules and the ways out."""
    env = dict(CLEAN_ENV, GOPROXY="off", GOMODCACHE=str(tmp_path / "empty-modcache"))
    r = subprocess.run([sys.executable, os.path.join("python", "build_backend", "gfxcuda_build.py"), "wheel",
                        str(tmp_path / "w")], cwd=str(source), env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 1 and "Traceback" not in r.stderr, (r.returncode, r.stderr)
    err = r.stderr
    assert "golang.org/x/sys" in err and "not in Go's module cache (%s)" % (tmp_path / "empty-modcache") in err, err
    assert "GOPROXY=off" in err and "carries them (vendor/)" in err, err
    assert "building libgfxcuda.so" not in err, "go build ran: " + err


def test_toml_reader_reads_pyproject_as_tomllib_does():
    """The backend's TOML reader (for Pythons before 3.11) and tomllib agree
    on this tree's pyproject.toml."""
    tomllib = pytest.importorskip("tomllib")
    b = _backend()
    with open(os.path.join(REPO, "pyproject.toml"), encoding="utf-8") as f:
        text = f.read()
    assert b.parse_toml(text) == tomllib.loads(text)
