"""gfxcuda: zero-copy GPU interop for Python.

- compushady's API (``import gfxcuda as compushady``): devices, Buffer,
  Texture1D/2D/3D, Sampler, Compute, shaders.hlsl/glsl/wgsl.compile, formats;
  ``gfxcuda.alias_compushady()`` (or ``python3 -m gfxcuda.compushady_alias
  install``) makes ``from compushady import ...`` work too.
- Gfx2Cuda's API: texture(), Texture.copy_to/copy_from, open_ipc_texture.
- Sharing: ipc_handle/open_ipc_buffer, rings (Ring, open_ring), across
  containers and users (share_options, Ring(allow_uids=..., dir=...)),
  foreign renderers (import_fd, Semaphore, to_cuda/to_vulkan hand-offs).
- Zero-copy arrays: CudaBuffer and SharedBuffer expose
  __cuda_array_interface__ (v3) and DLPack (__dlpack__, __dlpack_device__).
- PyTorch's own tensors in Vulkan: torch_pool() (a torch.cuda.MemPool whose
  memory gfxcuda allocates) and from_torch(t) (a SharedBuffer over a tensor
  in it, no copy).

Errors are gfxcuda.GfxcudaError subclasses (gfxcuda.errors), many also a
builtin (ValueError, TypeError, ...). Besides those each function's
docstring names, any call that uses the C library can raise
LibraryNotFoundError (it does not load; `import gfxcuda` alone never
loads it) and ForkedProcessError.

The library is not usable in a child process forked after import: start
children with the 'spawn' or 'forkserver' start method.

Types: the package is typed (PEP 561's py.typed): inline annotations in
the plain modules, stubs (.pyi) where names are made at run time
(gfxcuda's lazy names, formats' constants) and for the modules whose hot
paths stay as they are.
"""

from . import _lib, config, errors, formats, shaders  # noqa: F401
from ._version import __version__  # noqa: F401  (gfxcuda_version()'s string, without loading the library)
from .shaders import glsl, hlsl, wgsl  # noqa: F401
from .errors import *  # noqa: F401,F403
from ._compute import (  # noqa: F401
    HEAP_DEFAULT, HEAP_UPLOAD, HEAP_READBACK,
    SAMPLER_FILTER_POINT, SAMPLER_FILTER_LINEAR,
    SAMPLER_ADDRESS_MODE_WRAP, SAMPLER_ADDRESS_MODE_MIRROR, SAMPLER_ADDRESS_MODE_CLAMP, SAMPLER_ADDRESS_MODE_BORDER,
    Device, Resource, Buffer, Texture1D, Texture2D, Texture3D, Sampler, Compute,
    get_discovered_devices, get_best_device, get_current_device, set_current_device,
)
from ._compute import Heap  # noqa: F401

# CUDA and the rings are imported on first use (gfxcuda.CudaBuffer, ...),
# and the C library is loaded on first use (_lib.load): `import gfxcuda`
# stays as cheap as compushady's import, which loads its backend lazily.
_LAZY = dict.fromkeys((
    "compute_device", "CudaBuffer", "SharedBuffer", "Texture", "texture", "open_ipc_texture", "open_ipc_buffer",
    "cuda_available", "cuda_device_count", "cuda_cache_stats", "Handoff", "to_cuda", "after_cuda", "Semaphore", "VulkanSemaphore",
), "_cuda")
_LAZY.update(dict.fromkeys(("torch_pool", "torch_pool_stats", "from_torch"), "_torch"))
_LAZY.update(dict.fromkeys(("Ring", "RingReader", "Frame", "Slot", "open_ring"), "_ring"))


def __getattr__(name):
    if name in ("_cuda", "_ring", "_torch", "gl"):
        mod = name
    else:
        mod = _LAZY.get(name)
        if mod is None:
            raise AttributeError("module %r has no attribute %r" % (__name__, name))
    import importlib  # not `from . import`: that asks this __getattr__ again

    m = importlib.import_module(__name__ + "." + mod)
    if name == mod:
        return m
    value = globals()[name] = getattr(m, name)
    return value


def share_options(dir=None, rendezvous=None, allow_uids=(), allow_gids=()):
    """Sets how this process's tokens can be opened from other containers
    (docs/sharing.md, "Containers"), for every export made from now on:
    dir, the filesystem socket's directory (None: $GFXCUDA_SHARE_DIR, else
    /dev/shm/gfxcuda; openers here also look for sockets there);
    rendezvous, "abstract", "fs", "pidfd" (comma-separated or a list),
    "auto" or "all"; allow_uids and allow_gids, the other users and groups
    that may open them (the token's secret is required from them too):
    each an int or a list of ints. Ring(..., allow_uids=...) and
    SharedBuffer/Texture.share_options set them for one resource.

    Returns None. Raises gfxcuda.ArgumentTypeError for an argument of the
    wrong type (naming it), gfxcuda.InvalidArgumentError for an unknown
    rendezvous or an id out of range."""
    _lib.call("gfxcuda_share_options", 0, *_lib.share_args(dir, rendezvous, allow_uids, allow_gids))


def __dir__():
    return sorted(set(globals()) | set(_LAZY) | {"gl"})


# compushady's shader binary types; gfxcuda runs SPIR-V (Vulkan) only.
SHADER_BINARY_TYPE_SPIRV = 0
SHADER_BINARY_TYPE_DXIL = 1
SHADER_BINARY_TYPE_DXBC = 2
SHADER_BINARY_TYPE_MSL = 3
SHADER_BINARY_TYPE_GLSL = 4


class _Backend:
    """compushady's backend object: gfxcuda's is always Vulkan."""

    name = "vulkan"

    @staticmethod
    def get_shader_binary_type():
        """Returns SHADER_BINARY_TYPE_SPIRV: gfxcuda runs SPIR-V shaders."""
        return SHADER_BINARY_TYPE_SPIRV

    def __repr__(self):
        return "<gfxcuda backend vulkan>"


def get_backend():
    """compushady's get_backend(): returns the backend object, whose
    ``name`` is "vulkan" and whose get_shader_binary_type() is
    SHADER_BINARY_TYPE_SPIRV. Raises nothing (the library is not
    loaded)."""
    return _Backend()


def alias_compushady():
    """Makes ``import compushady`` give gfxcuda in this process: the name
    ``compushady`` and its submodules (compushady.formats, .config,
    .shaders.hlsl, ...) become the gfxcuda modules themselves, so code
    written for compushady runs unchanged. Idempotent. Returns True when
    the alias is on; when a real compushady is installed it never shadows
    it: it warns (CompushadyAliasWarning, naming where it lives) and
    returns False. ``python3 -m gfxcuda.compushady_alias install`` does
    the same at every interpreter start (see gfxcuda.compushady_alias).
    Raises nothing."""
    from . import compushady_alias
    return compushady_alias.enable()


def live_handles():
    """Returns the number of live library objects (handles: devices,
    buffers, textures, pipelines, ...), for leak checks. Raises
    gfxcuda.LibraryNotFoundError when the C library does not load."""
    return _lib.live_handles()


def live_dlpack_tensors():
    """Returns the number of exported DLPack tensors whose deleter has not
    run yet (consumers such as torch.from_dlpack still hold them), for
    leak checks. Raises gfxcuda.LibraryNotFoundError when the C library
    does not load."""
    return _lib.dlpack_live()
