"""The opt-in compushady alias (gfxcuda.compushady_alias): `from compushady
import ...` in fresh interpreters, in process and through the .pth; it steps
aside for a real compushady; without it `import compushady` fails; and
compushady's README examples run verbatim through it."""

import os
import re
import subprocess
import sys
import textwrap

import pytest

import gfxcuda

PKG_PARENT = os.path.dirname(os.path.dirname(os.path.abspath(gfxcuda.__file__)))
REPO = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
README = os.environ.get("COMPUSHADY_README") or os.path.join(REPO, "..", "shared", "seeds", "compushady-readme.txt")

# Random bytes through an upload buffer, a texture and a readback buffer,
# with compushady's names only.
ROUND_TRIP = textwrap.dedent("""
    import os, sys
    from compushady import Buffer, HEAP_UPLOAD, HEAP_READBACK, Texture2D
    from compushady.formats import R8G8B8A8_UINT
    t = Texture2D(16, 8, R8G8B8A8_UINT)
    data = os.urandom(t.size)
    up = Buffer(t.size, HEAP_UPLOAD)
    up.upload(data)
    up.copy_to(t)
    back = Buffer(t.size, HEAP_READBACK)
    t.copy_to(back)
    assert back.readback() == data
    b = Buffer(4096, HEAP_UPLOAD)
    d = os.urandom(4096)
    b.upload(d)
    r = Buffer(4096, HEAP_READBACK)
    b.copy_to(r)
    assert r.readback() == d
    import gfxcuda, compushady, compushady.formats, compushady.config, compushady.shaders.hlsl
    import compushady.shaders.wgsl
    assert compushady is gfxcuda and compushady.formats is gfxcuda.formats
    assert compushady.shaders.hlsl is gfxcuda.shaders.hlsl and compushady.config is gfxcuda.config
    assert compushady.shaders.wgsl is gfxcuda.shaders.wgsl
    from compushady.shaders import wgsl
    assert wgsl.compile is gfxcuda.shaders.wgsl.compile
    assert gfxcuda.formats.__spec__.name == "gfxcuda.formats"
    for missing in ("compushady.shaders.msl",):
        try:
            __import__(missing)
        except ModuleNotFoundError as e:
            assert e.name == missing, e
        else:
            raise AssertionError(missing + " imported")
    print("ok")
""")


def _env(tmp_path, *paths, userbase=None):
    """An environment whose PYTHONPATH has gfxcuda (and paths) and whose
    user site is a folder of the test's own."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(list(paths) + [PKG_PARENT])
    env["PYTHONUSERBASE"] = str(userbase or tmp_path / "userbase")
    env.pop("PYTHONNOUSERSITE", None)
    return env


def _run(args, env, cwd, check=True):
    r = subprocess.run([sys.executable] + args, env=env, cwd=str(cwd), capture_output=True, text=True, timeout=300)
    if check:
        assert r.returncode == 0, "rc %d\nstdout:\n%s\nstderr:\n%s" % (r.returncode, r.stdout, r.stderr)
    return r


def _install_pth(tmp_path, env):
    """Runs the persistent step (--user, into this test's user site);
    skips where this interpreter reads no user site."""
    r = _run(["-c", "import site; print(site.ENABLE_USER_SITE)"], env, tmp_path)
    if r.stdout.strip() != "True":
        pytest.skip("%s reads no user site here (a venv without system site packages?)" % sys.executable)
    r = _run(["-m", "gfxcuda.compushady_alias", "install", "--user"], env, tmp_path)
    assert "installed" in r.stdout, r.stdout
    return r


def _fake_compushady(tmp_path):
    d = tmp_path / "fake"
    (d / "compushady").mkdir(parents=True)
    (d / "compushady" / "__init__.py").write_text("REAL = True\n")
    return d


def test_without_the_step_compushady_is_missing(tmp_path):
    r = _run(["-c", "import compushady"], _env(tmp_path), tmp_path, check=False)
    assert r.returncode != 0 and "ModuleNotFoundError: No module named 'compushady'" in r.stderr, r.stderr


def test_in_process(tmp_path):
    code = ("import gfxcuda, sys\n"
            "assert gfxcuda.alias_compushady() is True\n"
            "assert gfxcuda.alias_compushady() is True\n"  # idempotent
            "assert sum(getattr(f, '_gfxcuda_compushady_alias', False) is True for f in sys.meta_path) == 1\n"
            + ROUND_TRIP +
            "from gfxcuda import compushady_alias\n"
            "assert compushady_alias.disable() and 'compushady' not in sys.modules\n"
            "try:\n    import compushady\nexcept ModuleNotFoundError:\n    print('off')\n")
    r = _run(["-c", code], _env(tmp_path), tmp_path)
    assert r.stdout.split() == ["ok", "off"], r.stdout


def test_pth_step(tmp_path):
    env = _env(tmp_path)
    _install_pth(tmp_path, env)
    # Start-up loads the finder, not gfxcuda (its C library).
    r = _run(["-c", "import sys; print('gfxcuda' in sys.modules, '_gfxcuda_compushady_alias' in sys.modules, "
                    "[m for m in sys.modules if m.startswith('gfxcuda')])"], env, tmp_path)
    assert r.stdout.strip() == "False True []", r.stdout
    r = _run(["-c", ROUND_TRIP], env, tmp_path)
    assert r.stdout.strip() == "ok" and not r.stderr, r.stderr
    r = _run(["-m", "gfxcuda.compushady_alias", "status"], env, tmp_path)
    assert "alias in this run:  on" in r.stdout and "gfxcuda_compushady_alias.pth" in r.stdout, r.stdout
    assert "RuntimeWarning" not in r.stderr, r.stderr
    _run(["-m", "gfxcuda.compushady_alias", "install", "--user"], env, tmp_path)  # again: the same file
    r = _run(["-m", "gfxcuda.compushady_alias", "uninstall", "--user"], env, tmp_path)
    assert "removed" in r.stdout, r.stdout
    r = _run(["-c", "import compushady"], env, tmp_path, check=False)
    assert r.returncode != 0 and "No module named 'compushady'" in r.stderr, r.stderr


def test_install_outside_a_site_dir_says_what_to_do(tmp_path):
    if any(os.path.samefile(PKG_PARENT, d) for d in _site_dirs() if os.path.isdir(d)):
        pytest.skip("gfxcuda is installed in a site directory here")
    r = _run(["-m", "gfxcuda.compushady_alias", "install"], _env(tmp_path), tmp_path, check=False)
    assert r.returncode == 2 and "--user" in r.stderr, r.stderr


def _site_dirs():
    import site
    return list(site.getsitepackages()) + [site.getusersitepackages()]


def test_steps_aside_for_a_real_compushady(tmp_path):
    fake = _fake_compushady(tmp_path)
    code = ("import warnings, sys, gfxcuda\n"
            "from gfxcuda.compushady_alias import CompushadyAliasWarning\n"
            "with warnings.catch_warnings(record=True) as w:\n"
            "    warnings.simplefilter('always')\n"
            "    assert gfxcuda.alias_compushady() is False\n"
            "assert len(w) == 1 and w[0].category is CompushadyAliasWarning, w\n"
            "assert sys.argv[1] in str(w[0].message), w[0].message\n"
            "import compushady\n"
            "assert compushady.REAL and compushady is not gfxcuda\n"
            "print('ok')\n")
    r = _run(["-c", code, str(fake / "compushady")], _env(tmp_path, str(fake)), tmp_path)
    assert r.stdout.strip() == "ok"


def test_steps_aside_when_a_real_one_appears_later(tmp_path):
    """The check runs at import: a real compushady put on sys.path after
    the alias was turned on still wins, with the warning."""
    fake = _fake_compushady(tmp_path)
    code = ("import warnings, sys, gfxcuda\n"
            "assert gfxcuda.alias_compushady()\n"
            "sys.path.insert(0, sys.argv[1])\n"
            "with warnings.catch_warnings(record=True) as w:\n"
            "    warnings.simplefilter('always')\n"
            "    import compushady\n"
            "assert compushady.REAL and len(w) == 1 and sys.argv[1] in str(w[0].message), w\n"
            "try:\n    import compushady.formats\nexcept ModuleNotFoundError:\n    print('ok')\n")
    r = _run(["-c", code, str(fake)], _env(tmp_path), tmp_path)
    assert r.stdout.strip() == "ok"


def test_pth_steps_aside_for_a_real_compushady(tmp_path):
    env = _env(tmp_path)
    _install_pth(tmp_path, env)
    fake = _fake_compushady(tmp_path)
    env = _env(tmp_path, str(fake))
    r = _run(["-c", "import sys, compushady; print(compushady.REAL, 'gfxcuda' in sys.modules)"], env, tmp_path)
    assert r.stdout.strip() == "True False", r.stdout
    assert "CompushadyAliasWarning" in r.stderr and str(fake / "compushady") in r.stderr, r.stderr
    r = _run(["-m", "gfxcuda.compushady_alias", "status"], env, tmp_path)
    assert "real compushady:    " + str(fake / "compushady") in r.stdout, r.stdout


def _readme_blocks():
    if not os.path.exists(README):
        return []
    text = open(README, encoding="utf-8").read()
    return re.findall(r"```(?:py|python)\n(.*?)```", text, re.S)


@pytest.mark.parametrize("index", range(max(len(_readme_blocks()), 1)))
def test_readme_examples_verbatim(tmp_path, index):
    """compushady's README examples (the seeds copy), unchanged, in a
    fresh interpreter with the .pth alias."""
    blocks = _readme_blocks()
    if not blocks:
        pytest.skip("compushady's README is not here (%s; set COMPUSHADY_README)" % README)
    code = blocks[index]
    if re.search(r"Swapchain|pyglet|glfw|PIL", code):
        pytest.skip("needs a window or a swapchain (or Pillow): lavapipe here has no display")
    env = _env(tmp_path)
    _install_pth(tmp_path, env)
    (tmp_path / "example.py").write_text(code)
    r = _run(["example.py"], env, tmp_path)
    if "readback()" in code:  # the first texel, uploaded as red, read back
        assert r.stdout.startswith("b'\\xff\\x00\\x00\\xff"), r.stdout
    if "get_discovered_devices" in code:
        assert re.search(r"Name: .+ Dedicated Memory: \d+ MB", r.stdout), r.stdout
