"""Checks of the Python API's arguments before they cross into C.

ctypes wraps integers silently (2**32 + 2 passed as a uint32 is 2, -1 is
4294967295) and reports a float or a str as "argument 3: TypeError: wrong
type": every integer a public function hands to the library is checked
here first, with an error that names the call, the argument and the value
the user gave. Hot paths (Buffer(), Compute.dispatch, Buffer.upload) test
their ints inline and call these only when a value is wrong or unusual."""

import operator

from . import errors

U32 = 0xFFFFFFFF
U64 = 0xFFFFFFFFFFFFFFFF
I32 = 0x7FFFFFFF
I64 = 0x7FFFFFFFFFFFFFFF

_C_TYPES = {U32: "2**32 - 1, a uint32", U64: "2**64 - 1, a uint64", I32: "2**31 - 1, an int32",
            I64: "2**63 - 1, an int64"}


def kind(value):
    """What value is, in words: "a str", "an int", "None"."""
    if value is None:
        return "None"
    name = type(value).__name__
    return ("an " if name[:1].lower() in "aeiou" else "a ") + name


def human(n):
    """A byte count in binary units: "4 EiB", "1.5 GiB", "512 bytes"."""
    if n < 1024:
        return "%d bytes" % n
    for unit in ("KiB", "MiB", "GiB", "TiB", "PiB", "EiB", "ZiB", "YiB"):
        n /= 1024.0
        if n < 1024 or unit == "YiB":
            return ("%.0f %s" if n == int(n) else "%.1f %s") % (n, unit)


def integer(value, where, name, lo=0, hi=U64, exc=None, what="an integer", hi_why=None):
    """value as an int from lo to hi: TypeError for what is not an integer
    (floats and strs included; bools and objects with __index__, NumPy's
    integers, are integers), exc (InvalidArgumentError by default) below
    lo, ArgumentOverflowError above hi (hi_why says why: "the ring has
    3 slots"; by default the C type's limit). where names the call ("Buffer",
    "Compute.dispatch"), name the argument; messages read
    "gfxcuda: Compute.dispatch(x=-1): x must be 0 or more"."""
    if value.__class__ is not int:
        try:
            value = operator.index(value)
        except TypeError:
            raise errors.ArgumentTypeError("gfxcuda: %s(%s=%r): %s is %s; expected %s"
                                           % (where, name, value, name, kind(value), what)) from None
    if value < lo:
        raise (exc or errors.InvalidArgumentError)(
            "gfxcuda: %s(%s=%d): %s must be %s" % (where, name, value, name,
                                                   "0 or more" if lo == 0 else "at least %d" % lo))
    if value > hi:
        raise errors.ArgumentOverflowError(
            "gfxcuda: %s(%s=%d): %s must be at most %d (%s)"
            % (where, name, value, name, hi, hi_why or _C_TYPES.get(hi, "the largest value the library takes")))
    return value


def u32(value, where, name, lo=0):
    """integer() for a uint32 argument."""
    if value.__class__ is int and lo <= value <= U32:
        return value
    return integer(value, where, name, lo, U32)


def u64(value, where, name, lo=0):
    """integer() for a uint64 argument."""
    if value.__class__ is int and lo <= value <= U64:
        return value
    return integer(value, where, name, lo, U64)


def device(value, where, name="device"):
    """A CUDA or Vulkan device ordinal (an int32 from 0)."""
    if value.__class__ is int and 0 <= value <= I32:
        return value
    return integer(value, where, name, 0, I32, what="a device ordinal (0, 1, ...)")


def fd(value, where, name="fd"):
    """A file descriptor (an int32 from 0)."""
    return integer(value, where, name, 0, I32, what="a file descriptor")


def shape(value, where, itemsize, name="shape"):
    """(shape as a tuple of ints, its size in bytes) for an array of
    elements of itemsize bytes: an int or a sequence of ints from 0, whose
    size fits a uint64."""
    if value.__class__ is int or hasattr(type(value), "__index__"):
        value = (value,)
    try:
        dims = tuple(value)
    except TypeError:
        raise errors.ArgumentTypeError("gfxcuda: %s(%s=%r): %s is %s; expected a tuple of ints (or an int)"
                                       % (where, name, value, name, kind(value))) from None
    out = []
    n = itemsize
    for i, d in enumerate(dims):
        if d.__class__ is not int:
            try:
                d = operator.index(d)
            except TypeError:
                raise errors.ArgumentTypeError("gfxcuda: %s(%s=%r): dimension %d is %s; expected an int"
                                               % (where, name, value, i, kind(d))) from None
        if d < 0:
            raise errors.InvalidArgumentError("gfxcuda: %s(%s=%r): dimension %d is %d; dimensions must be 0 or more"
                                              % (where, name, value, i, d))
        out.append(d)
        n *= d
    if n > U64:
        raise errors.ArgumentOverflowError("gfxcuda: %s(%s=%r): %d bytes; at most 2**64 - 1"
                                           % (where, name, value, n))
    return tuple(out), n


def tiles(value, where, width, height, what):
    """(cols, rows, n) of a tiles argument ((cols, rows) or (cols, rows,
    n); n defaults to every tile), checked against a width x height frame
    (what names it in the error)."""
    try:
        t = tuple(value)
    except TypeError:
        t = ()
    if len(t) not in (2, 3):
        raise errors.ArgumentTypeError("gfxcuda: %s(tiles=%r): give (cols, rows) or (cols, rows, n)" % (where, value))
    cols = integer(t[0], where, "tiles[0] (columns)", 1, I32)
    rows = integer(t[1], where, "tiles[1] (rows)", 1, I32)
    n = integer(t[2], where, "tiles[2] (views)", 1, cols * rows,
                what="1 to %d (the tiles)" % (cols * rows)) if len(t) == 3 else cols * rows
    if width % cols or height % rows:
        raise errors.InvalidArgumentError("gfxcuda: %s(tiles=%r): %s does not divide into %d x %d tiles of equal size"
                                          % (where, value, what, cols, rows))
    return cols, rows, n


def timeout_ms(value, where, name="timeout"):
    """A timeout in seconds (None or math.inf: no limit) as the library's
    milliseconds (-1: no limit)."""
    if value is None:
        return -1
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        try:
            if not hasattr(type(value), "__float__"):  # a str is not a number of seconds
                raise TypeError
            value = float(value)
        except (TypeError, ValueError):
            raise errors.ArgumentTypeError("gfxcuda: %s(%s=%r): %s is %s; expected seconds (an int or a float) or None"
                                           % (where, name, value, name, kind(value))) from None
    if value != value:  # NaN
        raise errors.InvalidArgumentError("gfxcuda: %s(%s=nan): give seconds, or None for no limit" % (where, name))
    if value < 0:
        raise errors.InvalidArgumentError("gfxcuda: %s(%s=%r): a timeout must be 0 or more seconds (None: no limit)"
                                          % (where, name, value))
    if value == float("inf"):
        return -1
    ms = int(value * 1000)
    if ms > I64:
        raise errors.ArgumentOverflowError("gfxcuda: %s(%s=%r): at most %d seconds (None: no limit)"
                                           % (where, name, value, I64 // 1000))
    return ms

