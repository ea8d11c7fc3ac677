"""gfxcuda's command line: ``python -m gfxcuda COMMAND …`` and the ``gfxcuda``
command that ``pip install`` puts on PATH.

The commands are the gfxcuda binary's (devices, doctor, run, bench, demo,
share, open, version; ``gfxcuda --help`` lists them), run by the C library
this package loads anyway (gfxcuda_cli_main in libgfxcuda.so): there is
no second copy of gfxcuda in the wheel. They write to file descriptors 1
and 2 themselves (sys.stdout and sys.stderr are flushed first) and return
the binary's exit status. While a command runs, Ctrl-C does what it does
to the binary (share and open end with their summary; the other commands
end at once), not raise KeyboardInterrupt; Python's handler is back when
the command returns.
"""

import ctypes
import os
import sys

from . import _lib, errors

TYPE_CHECKING = False  # typing is not imported at run time: the annotations are strings
if TYPE_CHECKING:
    from collections.abc import Sequence as _Sequence

__all__ = ["main"]


def main(argv: "_Sequence[str | bytes] | None" = None) -> int:
    """Runs gfxcuda's command line with ``argv`` (the arguments after the
    program's name; default ``sys.argv[1:]``) and returns its exit status:
    0 done, 1 failed, 2 a usage error, 130/143 for share and open ended by
    SIGINT/SIGTERM before their --frames. The console script exits with it.
    A library that does not load is a message and exit status 1: it raises
    nothing but TypeError, for an argument that is not a str or bytes.
    """
    args: "list[str | bytes]" = list(sys.argv[1:] if argv is None else argv)
    try:
        lib = _lib.load()
        # Commands that run hidden commands of their own in a new process
        # (gfxcuda bench) start this interpreter with -m gfxcuda, not the
        # process's executable (python, which would not know them).
        _lib.call("gfxcuda_cli_set_command", *_argv([sys.executable or "python3", "-m", "gfxcuda"]))
    except AttributeError as e:  # a library without gfxcuda_cli_main
        print("gfxcuda: the C library %s is older than this package (%s); reinstall gfxcuda with pip "
              "(`pip install gfxcuda`, or `pip install .` from a checkout of its source); "
              "developing gfxcuda: `make lib`" % (_lib._path, e), file=sys.stderr)
        return 1
    except errors.GfxcudaError as e:  # LibraryNotFoundError, ForkedProcessError
        print(e, file=sys.stderr)
        return 1
    for f in (sys.stdout, sys.stderr):
        if f is not None:
            try:
                f.flush()
            except (OSError, ValueError):
                pass
    return lib.gfxcuda_cli_main(*_argv(["gfxcuda"] + args))


def _argv(strings: "_Sequence[str | bytes]") -> "tuple[int, ctypes.Array[ctypes.c_char_p]]":
    """argc and argv of strings as C takes them (in the file system
    encoding: what the shell gave Python comes back byte for byte)."""
    return len(strings), (ctypes.c_char_p * (len(strings) + 1))(*[os.fsencode(s) for s in strings])


if __name__ == "__main__":
    sys.exit(main())
