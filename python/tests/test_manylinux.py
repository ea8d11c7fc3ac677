"""The wheel's manylinux tag (#33 item 2): python/build_backend/manylinux.py
computes it from what the built library needs, and the library is linked
to need little (docs/wheels.md).

The library `make lib` built has the tag docs/wheels.md states, needs no
libstdc++.so.6 and asks the pthread/dl functions of the libraries an old
glibc has them in. Small libraries built here with gcc check the tool: one
that needs a library no policy allows (libvulkan.so.1) fails naming it;
one that needs glibc 2.36 (arc4random) gets manylinux_2_36 and fails a
check against manylinux_2_28; a C++ one's GLIBCXX versions are read; a
file that is not ELF gets a clear error; a wheel whose WHEEL file claims a
tag its library does not allow fails. The gcc cases are skipped, saying
so, where there is no gcc."""

import ctypes
import os
import platform
import re
import shutil
import subprocess
import sys
import zipfile

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", ".."))
BACKEND = os.path.join(REPO, "python", "build_backend")

if not os.path.isfile(os.path.join(BACKEND, "manylinux.py")):
    pytest.skip("python/build_backend/manylinux.py is not here (the GPU bundle carries no build backend)",
                allow_module_level=True)
sys.path.insert(0, BACKEND)
import manylinux  # noqa: E402

sys.path.pop(0)

ARCH = {"amd64": "x86_64", "arm64": "aarch64"}.get(platform.machine(), platform.machine())
# The tag docs/wheels.md states for the library `make lib` builds.
DOCUMENTED_TAG = {"x86_64": "manylinux_2_17_x86_64"}

CC = shutil.which(os.environ.get("CC") or "gcc")
CXX = shutil.which(os.environ.get("CXX") or "g++")
need_cc = pytest.mark.skipif(CC is None, reason="no C compiler (gcc) to build the small test libraries with")
need_cxx = pytest.mark.skipif(CXX is None, reason="no C++ compiler (g++) to build a libstdc++ library with")


def _repo_file(*parts):
    """The path of a file of the source tree, or a skip where the tests run
    outside one (the GPU bundle carries the tests, not docs/ or the
    Makefile)."""
    path = os.path.join(REPO, *parts)
    if not os.path.isfile(path):
        pytest.skip("%s is not here: not a source tree (the GPU bundle)" % "/".join(parts))
    return path


def _library():
    from gfxcuda import _lib
    if not os.path.exists(_lib._path):
        pytest.skip("no built library at %s: `make lib` builds it" % _lib._path)
    return _lib._path


def _build(tmp_path, name, source, *flags, lang="c"):
    """Builds a shared library from source with gcc (g++ for lang "c++");
    its path."""
    src = tmp_path / (name + (".cc" if lang == "c++" else ".c"))
    src.write_text(source)
    out = tmp_path / ("lib%s.so" % name)
    cc = CXX if lang == "c++" else CC
    p = subprocess.run([cc, "-shared", "-fPIC", "-O1", "-o", str(out), str(src)] + list(flags),
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True)
    assert p.returncode == 0, "building %s failed:\n%s" % (name, p.stdout)
    return str(out)


# --- the library gfxcuda ships ------------------------------------------------


def test_built_library_has_the_documented_tag():
    if ARCH not in DOCUMENTED_TAG:
        pytest.skip("docs/wheels.md states the tag for %s only" % ", ".join(DOCUMENTED_TAG))
    lib = _library()
    try:
        tag = manylinux.wheel_platform_tag(lib)
    except manylinux.PolicyError as e:
        pytest.fail("the built library breaks the manylinux policy; `make lib` links it for manylinux "
                    "(manylinux.py --link-flags):\n%s" % e)
    assert tag == DOCUMENTED_TAG[ARCH], (
        "%s is %s, not %s as docs/wheels.md says; what pins it:\n  %s"
        % (lib, tag, DOCUMENTED_TAG[ARCH], "\n  ".join(manylinux._why(manylinux.read_elf(lib)))))
    page = open(_repo_file("docs", "wheels.md")).read()
    assert DOCUMENTED_TAG[ARCH] in page
    # The check against its own tag passes; against a lower one it fails.
    assert manylinux.wheel_platform_tag(lib, target=DOCUMENTED_TAG[ARCH]) == DOCUMENTED_TAG[ARCH]


def test_built_library_needs_no_libstdcxx_and_exports_none_of_it():
    lib = _library()
    needs = manylinux.read_elf(lib)
    assert "libstdc++.so.6" not in needs.needed, needs.needed
    assert not any(lib.startswith("libstdc++") for lib in needs.versions)
    for allowed in needs.needed:
        assert re.match(r"^(libc|libm|libdl|libpthread|libresolv|libgcc_s)\.so\.\d$|^ld-linux", allowed), needs.needed


def test_built_library_asks_moved_functions_of_their_old_library():
    """glibc before 2.30 looks a versioned symbol up in the library the
    reference names and stops there: pthread_create@GLIBC_2.2.5 asked of
    libc.so.6 would not load on glibc 2.17-2.29, where it is in
    libpthread.so.0. Every function glibc moved into libc must be asked of
    the library it came from, and that library must be NEEDED."""
    if ARCH != "x86_64":
        pytest.skip("the link directory's stand-ins are for x86_64")
    needs = manylinux.read_elf(_library())
    moved = {}
    for lib, byver in manylinux._MOVED.items():
        for ver, names in byver.items():
            for n in names.split():
                moved[n] = (lib, "GLIBC_" + ver)
    wrong = ["%s@%s from %s" % (s, v, lib) for (lib, v), syms in needs.symbols.items()
             for s in syms if s in moved and (lib, v) != moved[s]]
    assert not wrong, "asked of the wrong library or version: %s" % ", ".join(wrong)
    used = {moved[s][0] for (lib, v), syms in needs.symbols.items() for s in syms if s in moved}
    assert used <= set(needs.needed)
    assert ("libpthread.so.0", "GLIBC_2.2.5") in needs.symbols


# --- the tool, on small libraries ----------------------------------------------


@need_cc
def test_a_forbidden_needed_library_is_named(tmp_path):
    lib = _build(tmp_path, "needsvulkan", "extern int vkEnumerateInstanceVersion(unsigned *);\n"
                 "int f(unsigned *v) { return vkEnumerateInstanceVersion(v); }\n",
                 "-Wl,--no-as-needed", "-l:libvulkan.so.1")
    assert "libvulkan.so.1" in manylinux.read_elf(lib).needed
    with pytest.raises(manylinux.PolicyError) as e:
        manylinux.wheel_platform_tag(lib)
    msg = str(e.value)
    assert "libvulkan.so.1" in msg and "DT_NEEDED" in msg and "dlopen" in msg, msg
    assert re.search(r"manylinux_2_\d+", msg), msg
    assert any("libvulkan.so.1" in v for v in e.value.violations)


@need_cc
def test_a_newer_glibc_raises_the_tag_and_fails_a_lower_target(tmp_path):
    src = "#include <stdlib.h>\nunsigned f(void) { return arc4random(); }\n"
    try:
        lib = _build(tmp_path, "needs236", src)
    except AssertionError:
        pytest.skip("this glibc has no arc4random (glibc 2.36 added it)")
    needs = manylinux.read_elf(lib)
    assert needs.symbols[("libc.so.6", "GLIBC_2.36")] == ["arc4random"]
    assert manylinux.wheel_platform_tag(lib) == "manylinux_2_36_" + ARCH
    with pytest.raises(manylinux.PolicyError) as e:
        manylinux.wheel_platform_tag(lib, target="manylinux_2_28")
    msg = str(e.value)
    assert "GLIBC_2.36" in msg and "arc4random" in msg and "manylinux_2_28" in msg, msg
    assert e.value.policy == "manylinux_2_28_" + ARCH
    # A glibc version or a legacy alias names the target too.
    with pytest.raises(manylinux.PolicyError):
        manylinux.wheel_platform_tag(lib, target="2.35")
    with pytest.raises(manylinux.PolicyError):
        manylinux.wheel_platform_tag(lib, target="manylinux2014")
    with pytest.raises(ValueError, match="manylinux_2_28"):
        manylinux.wheel_platform_tag(lib, target="manylinux_2_1x")


@need_cc
def test_a_plain_c_library_gets_the_lowest_tag_and_the_arch_is_checked(tmp_path):
    lib = _build(tmp_path, "plain", "#include <string.h>\nsize_t f(const char *s) { return strlen(s); }\n")
    tag = manylinux.wheel_platform_tag(lib)
    assert tag == manylinux.policy_names(ARCH)[0] + "_" + ARCH
    other = "aarch64" if ARCH != "aarch64" else "x86_64"
    with pytest.raises(manylinux.PolicyError, match="is an %s library, not %s" % (ARCH, other)):
        manylinux.wheel_platform_tag(lib, arch=other)


@need_cxx
def test_libstdcxx_versions_are_read(tmp_path):
    src = ('#include <string>\n#include <sstream>\n'
           'extern "C" int f(int x) { std::ostringstream o; o << x; return (int)std::string(o.str()).size(); }\n')
    lib = _build(tmp_path, "cxx", src, lang="c++")
    needs = manylinux.read_elf(lib)
    if b"libstdc++.so.6" not in open(lib, "rb").read():
        # g++ linked libstdc++.a (a toolchain without libstdc++.so, as on
        # the GPU machine): no GLIBCXX versions to read.
        pytest.skip("%s linked libstdc++ statically here (NEEDED: %s)" % (CXX, ", ".join(needs.needed)))
    assert "libstdc++.so.6" in needs.needed
    vs = needs.versions["libstdc++.so.6"]
    glibcxx = sorted((v for v in vs if v.startswith("GLIBCXX_3.4")), key=lambda v: manylinux._vkey(v[8:]))
    assert glibcxx, vs
    # The newest is named, with a symbol that needs it, when it is a
    # version manylinux_2_17 does not allow (GCC 5 and later's std::string).
    newest = glibcxx[-1]
    assert needs.symbols[("libstdc++.so.6", newest)]
    tag = manylinux.wheel_platform_tag(lib)
    assert manylinux._tag_glibc(tag) >= (2, 17)
    if manylinux._vkey(newest[8:]) > (3, 4, 19):
        with pytest.raises(manylinux.PolicyError, match=re.escape(newest)):
            manylinux.wheel_platform_tag(lib, target="manylinux2014")


def test_files_that_are_not_elf_libraries_get_a_clear_error(tmp_path):
    text = tmp_path / "notes.txt"
    text.write_text("not a library\n")
    with pytest.raises(manylinux.ELFError, match=r"notes\.txt is not an ELF file"):
        manylinux.wheel_platform_tag(str(text))
    empty = tmp_path / "empty.so"
    empty.write_bytes(b"")
    with pytest.raises(manylinux.ELFError, match="not an ELF file \\(empty\\)"):
        manylinux.wheel_platform_tag(str(empty))
    with pytest.raises(manylinux.ELFError, match="cannot be read"):
        manylinux.wheel_platform_tag(str(tmp_path / "missing.so"))
    cut = tmp_path / "cut.so"  # a real ELF header (this Python's), cut short
    with open(os.path.realpath(sys.executable), "rb") as f:
        cut.write_bytes(f.read(64))
    with pytest.raises(manylinux.ELFError, match="truncated or malformed"):
        manylinux.wheel_platform_tag(str(cut))
    # An ELFError is a PolicyError: one except clause catches both.
    assert issubclass(manylinux.ELFError, manylinux.PolicyError)


@need_cc
def test_an_object_file_is_not_a_library(tmp_path):
    src = tmp_path / "o.c"
    src.write_text("int f(void) { return 1; }\n")
    obj = tmp_path / "o.o"
    subprocess.run([CC, "-c", "-o", str(obj), str(src)], check=True)
    with pytest.raises(manylinux.ELFError, match="no dynamic section"):
        manylinux.wheel_platform_tag(str(obj))


def _wheel(tmp_path, name, lib, tags):
    whl = tmp_path / ("gfxcuda_test-1.0-py3-none-%s.whl" % name)
    with zipfile.ZipFile(str(whl), "w") as z:
        z.writestr("gfxcuda_test/__init__.py", "")
        z.write(lib, "gfxcuda_test/libtest.so")
        z.writestr("gfxcuda_test-1.0.dist-info/WHEEL", "Wheel-Version: 1.0\nGenerator: test\n"
                   "Root-Is-Purelib: false\n" + "".join("Tag: py3-none-%s\n" % t for t in tags))
    return str(whl)


@need_cc
def test_check_wheel_compares_the_claimed_tag_with_the_library(tmp_path):
    try:
        lib = _build(tmp_path, "needs236", "#include <stdlib.h>\nunsigned f(void) { return arc4random(); }\n")
    except AssertionError:
        pytest.skip("this glibc has no arc4random (glibc 2.36 added it)")
    good = "manylinux_2_36_" + ARCH
    assert manylinux.check_wheel(_wheel(tmp_path, good, lib, [good])) == good
    # A higher tag is honest too (the library runs there).
    higher = "manylinux_2_39_" + ARCH
    assert manylinux.check_wheel(_wheel(tmp_path, higher, lib, [higher])) == good
    low = "manylinux_2_28_" + ARCH
    with pytest.raises(manylinux.PolicyError) as e:
        manylinux.check_wheel(_wheel(tmp_path, low, lib, [low]))
    assert "claims %s" % low in str(e.value) and "arc4random" in str(e.value)
    plain = "linux_" + ARCH
    with pytest.raises(manylinux.PolicyError, match="package indexes refuse; its libraries allow %s" % good):
        manylinux.check_wheel(_wheel(tmp_path, plain, lib, [plain]))
    with pytest.raises(manylinux.PolicyError, match="file name"):
        manylinux.check_wheel(_wheel(tmp_path, good, lib, [higher]))


def test_wheel_tags_add_the_legacy_alias():
    """A wheel's platform tags: the PEP 600 tag, then its legacy alias
    where PEP 600 defines one for that architecture (older pip knows only
    that), as a compressed tag set in the file name."""
    assert manylinux.wheel_tag_set("manylinux_2_17_x86_64") == "manylinux_2_17_x86_64.manylinux2014_x86_64"
    assert manylinux.wheel_tags("manylinux_2_17_x86_64") == ["manylinux_2_17_x86_64", "manylinux2014_x86_64"]
    assert manylinux.wheel_tag_set("manylinux_2_17_aarch64") == "manylinux_2_17_aarch64.manylinux2014_aarch64"
    assert manylinux.wheel_tag_set("manylinux_2_5_x86_64") == "manylinux_2_5_x86_64.manylinux1_x86_64"
    assert manylinux.wheel_tag_set("manylinux_2_12_x86_64") == "manylinux_2_12_x86_64.manylinux2010_x86_64"
    # A legacy name, or a set already, gives the same set.
    assert manylinux.wheel_tag_set("manylinux2014_x86_64") == "manylinux_2_17_x86_64.manylinux2014_x86_64"
    assert manylinux.wheel_tag_set("manylinux_2_17_x86_64.manylinux2014_x86_64") == \
        "manylinux_2_17_x86_64.manylinux2014_x86_64"
    # No alias: newer glibcs, architectures PEP 600 gave none, non-manylinux tags.
    for t in ("manylinux_2_28_x86_64", "manylinux_2_34_aarch64", "manylinux_2_12_aarch64", "manylinux_2_17_riscv64",
              "linux_x86_64"):
        assert manylinux.wheel_tag_set(t) == t


@need_cc
def test_check_wheel_takes_a_compressed_tag_set(tmp_path):
    lib = _build(tmp_path, "plain", "int f(int x) { return x + 1; }\n")
    tags = manylinux.wheel_tags("manylinux_2_17_" + ARCH)
    name = ".".join(tags)
    whl = _wheel(tmp_path, name, lib, tags)
    assert manylinux.check_wheel(whl) == manylinux.wheel_platform_tag(lib)
    # The file name's set and WHEEL's Tag lines must agree, both ways.
    with pytest.raises(manylinux.PolicyError, match="WHEEL has no Tag line"):
        manylinux.check_wheel(_wheel(tmp_path, name, lib, tags[:1]))
    with pytest.raises(manylinux.PolicyError, match="file name"):
        manylinux.check_wheel(_wheel(tmp_path, tags[0], lib, tags))


@need_cc
def test_the_command_prints_the_tag_or_the_reasons(tmp_path):
    tool = os.path.join(BACKEND, "manylinux.py")
    lib = _build(tmp_path, "plain", "int f(int x) { return x + 1; }\n")
    p = subprocess.run([sys.executable, tool, lib], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       universal_newlines=True)
    assert p.returncode == 0 and p.stdout.strip() == manylinux.wheel_platform_tag(lib), (p.stdout, p.stderr)
    bad = tmp_path / "x.so"
    bad.write_text("text")
    p = subprocess.run([sys.executable, tool, lib, str(bad)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       universal_newlines=True)
    assert p.returncode == 1
    assert "x.so is not an ELF file" in p.stderr and lib in p.stdout


@need_cc
def test_the_link_directory_binds_moved_functions_to_their_old_library(tmp_path):
    """A library linked with manylinux.py's flags (what `make lib` and the
    backend use) asks pthread_create and dlopen of libpthread.so.0 and
    libdl.so.2 at GLIBC_2.2.5, needs no newer glibc, and loads and runs
    here (glibc 2.34 and later have them in libc)."""
    if ARCH != "x86_64":
        pytest.skip("the link directory's stand-ins are for x86_64")
    flags = manylinux.prepare_link(str(tmp_path / "link"))["CGO_LDFLAGS"]
    src = ("#include <pthread.h>\n#include <dlfcn.h>\n"
           "static void *run(void *p) { return (char *)p + 1; }\n"
           "long f(void) { pthread_t t; void *r = 0; if (pthread_create(&t, 0, run, (void *)41)) return -1;\n"
           "  pthread_join(t, &r); void *h = dlopen(\"libm.so.6\", RTLD_NOW); if (!h) return -2;\n"
           "  int ok = dlsym(h, \"cos\") != 0; dlclose(h); return ok ? (long)r : -3; }\n")
    lib = _build(tmp_path, "moved", src, *flags.split())
    needs = manylinux.read_elf(lib)
    assert needs.symbols.get(("libpthread.so.0", "GLIBC_2.2.5")) == ["pthread_create", "pthread_join"]
    assert needs.symbols.get(("libdl.so.2", "GLIBC_2.2.5")) == ["dlclose", "dlopen", "dlsym"]
    assert {"libpthread.so.0", "libdl.so.2"} <= set(needs.needed)
    assert manylinux.wheel_platform_tag(lib) == "manylinux_2_5_x86_64"
    f = ctypes.CDLL(lib).f
    f.restype = ctypes.c_long
    assert f() == 42


@need_cc
def test_an_old_version_asked_of_the_wrong_library_is_caught(tmp_path):
    """A .symver to pthread_create@GLIBC_2.2.5, linked on glibc 2.34 or
    later, asks libc.so.6 for it: its version is old, but glibc before 2.34
    has it in libpthread.so.0 and 2.17-2.29 stop at libc.so.6. The symbol
    versions alone would say manylinux_2_17; the check says 2.34."""
    if ARCH != "x86_64":
        pytest.skip("GLIBC_2.2.5 is x86_64's first glibc version")
    src = ('#include <pthread.h>\n__asm__(".symver old_create, pthread_create@GLIBC_2.2.5");\n'
           "extern int old_create(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);\n"
           "int f(pthread_t *t, void *(*r)(void *)) { return old_create(t, 0, r, 0); }\n")
    lib = _build(tmp_path, "symver", src)
    needs = manylinux.read_elf(lib)
    if "pthread_create" not in needs.symbols.get(("libc.so.6", "GLIBC_2.2.5"), []):
        pytest.skip("this glibc (before 2.34) binds pthread_create@GLIBC_2.2.5 to libpthread.so.0: %r" % needs.symbols)
    assert manylinux.wheel_platform_tag(lib) == "manylinux_2_34_x86_64"
    with pytest.raises(manylinux.PolicyError) as e:
        manylinux.wheel_platform_tag(lib, target="manylinux_2_28")
    msg = str(e.value)
    assert "asks libc.so.6 for pthread_create@GLIBC_2.2.5" in msg and "libpthread.so.0" in msg, msg


def test_the_makefile_links_the_library_as_the_backend_does():
    mk = open(_repo_file("Makefile")).read()
    recipe = re.search(r"(?ms)^lib:.*?(?=^\S)", mk).group(0)
    assert "--link-flags build/manylinux-link" in recipe and "CGO_LDFLAGS=" in recipe
    assert os.path.abspath(os.path.join(REPO, "build", "manylinux-link")) == manylinux.LINK_DIR
