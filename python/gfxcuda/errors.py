"""gfxcuda's exceptions: every error the library reports is a GfxcudaError."""


class GfxcudaError(Exception):
    """Base class of gfxcuda's errors. ``status`` is the C library's code
    (gfxcuda_status: 1 invalid argument, 2 out of range, ...; see
    BY_STATUS), or None for errors found in Python before a library call.

    GfxcudaError(message, status=None): message is what went wrong and
    how to fix it; status, when given, sets ``status``. The constructor
    raises nothing."""

    status: "int | None" = None

    def __init__(self, message: str, status: "int | None" = None) -> None:
        super().__init__(message)
        if status is not None:
            self.status = status


class InvalidArgumentError(GfxcudaError, ValueError):
    """A bad argument: zero size, unknown format, wrong kind of object."""


class OutOfRangeError(GfxcudaError, ValueError):
    """An offset, size or region outside a resource."""


class ArgumentTypeError(InvalidArgumentError, TypeError):
    """An argument of the wrong type (a str or a float where an integer
    goes, a list item that is not a gfxcuda resource); the message names
    the argument, what was given and what is expected. Also the builtin
    TypeError (and a ValueError, as every InvalidArgumentError)."""


class ArgumentOverflowError(InvalidArgumentError, OverflowError):
    """An integer argument larger than the C library's type of it holds (a
    workgroup count above 2**32 - 1, a size above 2**64 - 1): refused
    before the call, where ctypes would wrap it. Also the builtin
    OverflowError (and a ValueError, as every InvalidArgumentError)."""


class BadHandleError(GfxcudaError):
    """An object used after it was released."""


class UnsupportedError(GfxcudaError):
    """The device or this build cannot do it."""


class MissingFeatureError(UnsupportedError, ValueError):
    """The device lacks a feature the call needs (sparse binding,
    descriptor indexing); the message names it. Also a ValueError, as
    compushady raises."""


class NotImplementedYetError(GfxcudaError, NotImplementedError):
    """Not in this build yet; the message says what is coming."""


class NoDeviceError(GfxcudaError):
    """No such Vulkan or CUDA device."""


class NoCUDAError(NoDeviceError):
    """No usable NVIDIA CUDA driver."""


class CompileError(GfxcudaError, ValueError):
    """A shader did not compile; the message has file:line diagnostics
    (also a ValueError, which compushady raises)."""


class DeviceFailedError(GfxcudaError):
    """The GPU or its driver failed."""


class InternalError(GfxcudaError):
    """A bug in gfxcuda: please report the message."""


class LibraryNotFoundError(GfxcudaError, ImportError):
    """The C library (libgfxcuda.so) is missing or does not load; raised
    at first use (`import gfxcuda` does not load it). Also an ImportError;
    ``path`` is the library's path. The message says how to build it.

    LibraryNotFoundError(message, status=None, path=None): as
    GfxcudaError's, and path, the library's path (None: not found). The
    constructor raises nothing."""

    path: "str | None"

    def __init__(self, message: str, status: "int | None" = None, path: "str | None" = None) -> None:
        GfxcudaError.__init__(self, message, status)
        self.path = path


class ForkedProcessError(GfxcudaError, RuntimeError):
    """gfxcuda used in a child forked after `import gfxcuda`."""


class ClosedError(GfxcudaError, EOFError):
    """A ring's producer closed it and every frame was read."""


class WaitTimeoutError(GfxcudaError, TimeoutError):
    """A wait with a timeout ran out of time (also the builtin TimeoutError)."""


# compushady's exception names, as subclasses so that both spellings catch.
class BufferException(InvalidArgumentError):
    """compushady: a buffer could not be made."""


class Texture1DException(InvalidArgumentError):
    """compushady: a 1D texture could not be made."""


class Texture2DException(InvalidArgumentError):
    """compushady: a 2D texture could not be made."""


class Texture3DException(InvalidArgumentError):
    """compushady: a 3D texture could not be made."""


class HeapException(InvalidArgumentError):
    """compushady: a heap could not be made."""


class SamplerException(InvalidArgumentError):
    """compushady: a sampler could not be made."""


# The error class of each status the C library returns (gfxcuda_status).
BY_STATUS: "dict[int, type[GfxcudaError]]" = {
    1: InvalidArgumentError,
    2: OutOfRangeError,
    3: BadHandleError,
    4: UnsupportedError,
    5: NotImplementedYetError,
    6: NoDeviceError,
    7: NoCUDAError,
    8: CompileError,
    9: DeviceFailedError,
    10: InternalError,
    11: ClosedError,
    12: WaitTimeoutError,
}
