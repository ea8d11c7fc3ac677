"""An opt-in alias: ``import compushady`` gives gfxcuda.

``import gfxcuda as compushady`` needs no alias. Code written for
compushady (``from compushady import Buffer``, ``from compushady.formats
import R8G8B8A8_UINT``, ``from compushady.shaders import hlsl``, its test
suite, its README) imports the name ``compushady`` itself; this module maps
that name, and ``compushady.<sub>``, to the gfxcuda modules: the same module
objects (``compushady.formats is gfxcuda.formats``,
``compushady.shaders.hlsl is gfxcuda.shaders.hlsl``, and ``.glsl``,
``.wgsl``). A submodule gfxcuda lacks (``compushady.shaders.msl``,
``.utils``) raises the usual ModuleNotFoundError.

It never shadows a real compushady: when another finder on
``sys.meta_path`` (the ordinary ``sys.path`` search, an editable install)
can find a ``compushady`` module or regular package, the alias steps aside
and warns (CompushadyAliasWarning) naming where the real one lives. A
namespace-package portion (a bare directory named ``compushady``, such as a
checkout's root) does not count. The check runs when ``compushady`` is
imported, without importing the real one.

In one process::

    import gfxcuda
    gfxcuda.alias_compushady()          # True: the alias is on
    from compushady import Buffer, HEAP_UPLOAD

For every interpreter start (running compushady's code verbatim)::

    python3 -m gfxcuda.compushady_alias install      # site-packages that holds gfxcuda
    python3 -m gfxcuda.compushady_alias install --user
    python3 -m gfxcuda.compushady_alias install --target DIR
    python3 -m gfxcuda.compushady_alias status
    python3 -m gfxcuda.compushady_alias uninstall    # [--user | --target DIR]

``install`` writes ``gfxcuda_compushady_alias.pth`` (one line) into a site
directory; Python runs it at start-up. It loads this file (by its path,
under the name ``_gfxcuda_compushady_alias``) and puts the finder on
``sys.meta_path``: nothing else. This module imports only ``sys`` at load
time; gfxcuda itself (its C library) is loaded when ``compushady`` is first
imported, never at start-up. Python reads .pth files only in site
directories (site-packages, the user site, a venv's), not in PYTHONPATH
folders nor ``pip install --target`` ones; ``--user`` (with PYTHONUSERBASE
where wanted) is the step for those. ``pip uninstall gfxcuda`` leaves the
.pth behind: run ``uninstall`` first (a .pth whose module is gone does
nothing).
"""

import sys

__all__ = ["CompushadyAliasWarning", "enable", "disable", "is_enabled", "real_compushady", "PTH_NAME"]

PTH_NAME: str = "gfxcuda_compushady_alias.pth"  # the file `install` writes
_MARK = "_gfxcuda_compushady_alias"  # the attribute that marks our finders, whichever copy made them
_warned = set()


class CompushadyAliasWarning(UserWarning):
    """A real compushady is installed: the alias steps aside."""


def _target_name(fullname):
    return "gfxcuda" + fullname[len("compushady"):]


def _ours(finder):
    return getattr(finder, _MARK, False) is True


def real_compushady() -> "str | None":
    """Returns where a real compushady lives (its file or folder), or None
    when there is none. Asks the other finders on sys.meta_path (the
    sys.path search among them) without importing anything; a
    namespace-package portion does not count. An already imported
    compushady that is not the alias counts. Raises nothing (a finder
    that raises is skipped)."""
    mod = sys.modules.get("compushady")
    if mod is not None and mod is not sys.modules.get("gfxcuda"):
        return getattr(mod, "__file__", None) or repr(mod)
    for finder in list(sys.meta_path):
        find = getattr(finder, "find_spec", None)
        if _ours(finder) or find is None:
            continue
        try:
            spec = find("compushady", None)
        except Exception:  # a broken finder is not a real compushady
            continue
        if spec is not None and spec.origin not in (None, "namespace"):
            return spec.origin
    return None


def _warn(where):
    """Warns once per process and place that a real compushady wins,
    attributed to the code that imported or enabled (past the import
    machinery's frames and this module's)."""
    if where in _warned:
        return
    _warned.add(where)
    import warnings
    # warnings.warn counts frames past the import machinery's own.
    here = _warn.__code__.co_filename.rpartition("/")[0] + "/"
    level, f = 1, sys._getframe(0)
    while f.f_back is not None:
        name = f.f_code.co_filename
        if name.startswith("<frozen importlib"):
            f = f.f_back
            continue
        if not name.startswith(here):
            break
        f, level = f.f_back, level + 1
    warnings.warn("gfxcuda: a real compushady is installed (%s); `import compushady` loads it, not gfxcuda: the "
                  "compushady alias steps aside. Uninstall it (pip uninstall compushady) or write "
                  "`import gfxcuda as compushady`." % where, CompushadyAliasWarning, stacklevel=level)


class _Finder:
    """Finds ``compushady`` and ``compushady.<sub>`` as the gfxcuda modules
    (same objects) and loads them by handing those back."""

    _gfxcuda_compushady_alias = True

    def __init__(self, source=None):
        self.source = source  # the .pth that installed it, or None

    def __repr__(self):
        return "<gfxcuda compushady alias%s>" % (" from " + self.source if self.source else "")

    def find_spec(self, fullname, path=None, target=None):
        if fullname != "compushady" and not fullname.startswith("compushady."):
            return None
        import importlib
        from importlib.machinery import ModuleSpec
        name = _target_name(fullname)
        if fullname == "compushady":
            real = real_compushady()
            if real is not None:
                _warn(real)
                return None
            try:
                mod = importlib.import_module("gfxcuda")
            except ImportError as e:
                raise ImportError("gfxcuda: `compushady` is an alias of gfxcuda here%s, but gfxcuda cannot be "
                                  "imported: %s" % (" (" + self.source + ")" if self.source else "", e),
                                  name=fullname) from e
        else:
            parent = fullname.rpartition(".")[0]
            if sys.modules.get(parent) is None or sys.modules.get(parent) is not sys.modules.get(_target_name(parent)):
                return None  # a real compushady's submodule
            try:
                mod = importlib.import_module(name)
            except ModuleNotFoundError as e:
                if e.name == name:
                    return None  # gfxcuda has no such module: the usual ModuleNotFoundError
                raise
        spec = ModuleSpec(fullname, self, origin=getattr(mod, "__file__", None),
                          loader_state=(mod, getattr(mod, "__spec__", None)),
                          is_package=hasattr(mod, "__path__"))
        if hasattr(mod, "__path__"):
            spec.submodule_search_locations = list(mod.__path__)
        return spec

    def create_module(self, spec):
        return spec.loader_state[0]

    def exec_module(self, module):
        # The import system set module.__spec__ to the alias's spec: give
        # the gfxcuda module its own back (reload, pickling by name).
        original = module.__spec__.loader_state[1] if module.__spec__ is not None else None
        if original is not None:
            module.__spec__ = original


def is_enabled() -> bool:
    """Returns whether the alias's finder is on sys.meta_path (enable(),
    gfxcuda.alias_compushady() or the installed .pth put it there). Raises
    nothing."""
    return any(_ours(f) for f in sys.meta_path)


def enable() -> bool:
    """Turns the alias on in this process: ``import compushady`` (and its
    submodules) then gives gfxcuda's modules. Idempotent. Returns True when
    the alias is on; False, with a CompushadyAliasWarning naming where it
    lives, when a real compushady is installed (the alias stays off).
    Raises nothing (the warning is a warning, unless the warnings filter
    makes it an error)."""
    real = real_compushady()
    if real is not None:
        _warn(real)
        return False
    if not is_enabled():
        sys.meta_path.insert(0, _Finder())
    return True


def disable() -> bool:
    """Turns the alias off: removes the finder and forgets the
    ``compushady`` modules it gave (gfxcuda's stay imported). Returns
    whether the alias was on. Raises nothing."""
    was = is_enabled()
    sys.meta_path[:] = [f for f in sys.meta_path if not _ours(f)]
    for name in [n for n in list(sys.modules) if n == "compushady" or n.startswith("compushady.")]:
        if sys.modules[name] is sys.modules.get(_target_name(name)):
            del sys.modules[name]
    return was


def _boot(source):
    """Run by the .pth at interpreter start: puts the finder first on
    sys.meta_path without checking (sys.path is not complete yet; the
    finder checks for a real compushady when it is imported)."""
    if not is_enabled():
        sys.meta_path.insert(0, _Finder(source))


# ---- the .pth file ----------------------------------------------------------

def _pth_text(module_path, pth_path):
    """The .pth file: a comment and one line that Python runs at start-up.
    It loads this file (if it is still there) by path, not the gfxcuda
    package, and calls _boot."""
    code = ("try:\n"
            " import os\n"
            " if os.path.isfile(%r):\n"
            "  try:\n"  # importlib.util's functions, without importing it (a few ms)
            "   from _frozen_importlib_external import spec_from_file_location as f\n"
            "   from _frozen_importlib import module_from_spec as n\n"
            "  except ImportError:\n"
            "   from importlib.util import spec_from_file_location as f, module_from_spec as n\n"
            "  s = f(%r, %r)\n"
            "  m = n(s)\n"
            "  s.loader.exec_module(m)\n"
            "  sys.modules[s.name] = m\n"
            "  m._boot(%r)\n"
            "except Exception as e:\n"
            " sys.stderr.write('gfxcuda: the compushady alias (%%s) is off: %%s\\n' %% (%r, e))\n"
            % (module_path, _MARK, module_path, pth_path, pth_path))
    return ("# gfxcuda: `import compushady` gives gfxcuda. Remove with: python3 -m gfxcuda.compushady_alias uninstall\n"
            "import sys; exec(%r)\n" % code)


def _site_dirs():
    import site
    dirs = list(site.getsitepackages()) if hasattr(site, "getsitepackages") else []
    user = site.getusersitepackages() if site.ENABLE_USER_SITE else None
    return dirs, user


def _norm(p):
    import os
    return os.path.normcase(os.path.realpath(p))


def main(argv: "list[str] | None" = None) -> int:
    """The command line, ``python3 -m gfxcuda.compushady_alias COMMAND``:
    install (writes the .pth into a site directory), uninstall (removes
    it), status (says where gfxcuda, a real compushady and the .pth are).
    argv is the arguments after the program's name (None: sys.argv[1:]);
    --user and --target DIR choose the site directory. Returns the exit
    status: 0, or 2 when gfxcuda is not in a site directory and neither
    option was given (the message says what to pass). Raises SystemExit
    for arguments argparse refuses, OSError when the directory cannot be
    written."""
    import argparse
    import os
    ap = argparse.ArgumentParser(prog="python3 -m gfxcuda.compushady_alias",
                                 description="Make `import compushady` give gfxcuda at every start of this "
                                             "interpreter (a .pth file), or undo it.")
    ap.add_argument("command", choices=["install", "uninstall", "status"])
    where = ap.add_mutually_exclusive_group()
    where.add_argument("--user", action="store_true", help="the user site-packages (PYTHONUSERBASE)")
    where.add_argument("--target", metavar="DIR", help="a site directory of your choice")
    args = ap.parse_args(argv)

    module_path = os.path.abspath(__file__)
    pkg_parent = os.path.dirname(os.path.dirname(module_path))
    sites, user = _site_dirs()
    known = [d for d in sites + ([user] if user else [])]

    def chosen():
        if args.target:
            return os.path.abspath(args.target)
        if args.user:
            import site
            return site.getusersitepackages()
        return None

    if args.command == "status":
        real = real_compushady()
        print("gfxcuda package:    %s" % os.path.dirname(module_path))
        print("real compushady:    %s" % (real or "none found"))
        print("alias in this run:  %s" % ("on (%r)" % next(f for f in sys.meta_path if _ours(f))
                                          if is_enabled() else "off"))
        found = 0
        for d in known + ([chosen()] if chosen() and chosen() not in known else []):
            p = os.path.join(d, PTH_NAME)
            if os.path.isfile(p):
                found += 1
                print(".pth:               %s" % p)
        if not found:
            print(".pth:               none in %s" % ", ".join(known))
        if real:
            print("The alias steps aside while a real compushady is installed.")
        return 0

    if args.command == "install":
        d = chosen()
        if d is None:
            if not any(_norm(pkg_parent) == _norm(k) for k in known):
                print("gfxcuda (%s) is not in a site-packages directory of %s (PYTHONPATH or pip --target), and "
                      "Python reads .pth files only there: use --user (with PYTHONUSERBASE to choose where), or "
                      "--target with a site directory." % (pkg_parent, sys.executable), file=sys.stderr)
                return 2
            d = pkg_parent
        if args.user and not user:
            print("warning: the user site is disabled in this interpreter (python -s, PYTHONNOUSERSITE or a venv): "
                  "the .pth will not be read", file=sys.stderr)
        elif not any(_norm(d) == _norm(k) for k in known):
            print("warning: %s is not a site directory of %s: the .pth is read only where it is one (a venv, "
                  "site.addsitedir)" % (d, sys.executable), file=sys.stderr)
        os.makedirs(d, exist_ok=True)
        p = os.path.join(d, PTH_NAME)
        tmp = p + ".tmp"
        with open(tmp, "w") as f:
            f.write(_pth_text(module_path, p))
        os.replace(tmp, p)
        print("installed %s: `import compushady` gives gfxcuda (%s) in new interpreters" % (p, module_path))
        real = real_compushady()
        if real:
            print("warning: a real compushady is installed (%s): the alias steps aside while it is" % real,
                  file=sys.stderr)
        return 0

    # uninstall
    d = chosen()
    removed = 0
    for dd in ([d] if d else known):
        p = os.path.join(dd, PTH_NAME)
        if os.path.isfile(p):
            os.remove(p)
            removed += 1
            print("removed %s" % p)
    if not removed:
        print("no %s in %s" % (PTH_NAME, d or ", ".join(known)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
