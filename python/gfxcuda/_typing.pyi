"""Types that gfxcuda's stubs share. A stub-only module: there is no
gfxcuda._typing at run time (only type checkers read it)."""

from os import PathLike
from typing import Any, Iterable, Mapping, Sequence, SupportsIndex, Union

from _typeshed import ReadableBuffer as ReadableBuffer
from _typeshed import WriteableBuffer as WriteableBuffer

# An integer argument: an int, or what operator.index takes (a NumPy integer).
Int = SupportsIndex

# An array's shape: an int or a sequence of ints, each from 0.
Shape = Union[SupportsIndex, Sequence[SupportsIndex]]

# An element type: what numpy.dtype() takes ("float32", "uint8", numpy.float16, a NumPy dtype).
DTypeLike = Any

# A CUDA stream: None (the legacy default stream), an int cudaStream_t (1: legacy, 2: per-thread default), or a
# torch, CuPy, Numba or cuda-python stream object.
StreamLike = Any

# A CUDA array of another library (torch, CuPy, Numba: anything with __cuda_array_interface__ or __dlpack__).
CUDAArrayLike = Any

# A DLPack capsule (types.CapsuleType from Python 3.13).
Capsule = Any

# A share token: the bytes (or str) that ipc_handle or Ring.token gave.
Token = Union[str, bytes, bytearray, memoryview]

# share_options's dir: a directory as a str, bytes or path object.
DirLike = Union[str, bytes, PathLike[str], PathLike[bytes]]

# share_options's rendezvous: "abstract,fs,pidfd", "auto", "all", or a list of such names.
Rendezvous = Union[str, Iterable[str]]

# share_options's allow_uids and allow_gids: one numeric id or a list of them.
Ids = Union[SupportsIndex, Iterable[SupportsIndex]]

# Compute(constants=...): a value (a number or a bool) per constant's name (a str) or SpecId (an int).
Constants = Union[Mapping[str, float], Mapping[int, float], Mapping[Union[str, int], float]]
