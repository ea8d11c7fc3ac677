# Types of the gfxcuda package. A stub because __init__.py gives many of its names on first use (its __getattr__:
# CudaBuffer, Ring, torch_pool, ... come from _cuda, _ring and _torch when first asked for); the code and the
# docstrings are in __init__.py and the modules named below.

from . import config as config
from . import errors as errors
from . import formats as formats
from . import gl as gl
from . import shaders as shaders
from ._compute import HEAP_DEFAULT as HEAP_DEFAULT
from ._compute import HEAP_READBACK as HEAP_READBACK
from ._compute import HEAP_UPLOAD as HEAP_UPLOAD
from ._compute import SAMPLER_ADDRESS_MODE_BORDER as SAMPLER_ADDRESS_MODE_BORDER
from ._compute import SAMPLER_ADDRESS_MODE_CLAMP as SAMPLER_ADDRESS_MODE_CLAMP
from ._compute import SAMPLER_ADDRESS_MODE_MIRROR as SAMPLER_ADDRESS_MODE_MIRROR
from ._compute import SAMPLER_ADDRESS_MODE_WRAP as SAMPLER_ADDRESS_MODE_WRAP
from ._compute import SAMPLER_FILTER_LINEAR as SAMPLER_FILTER_LINEAR
from ._compute import SAMPLER_FILTER_POINT as SAMPLER_FILTER_POINT
from ._compute import Buffer as Buffer
from ._compute import Compute as Compute
from ._compute import Device as Device
from ._compute import Heap as Heap
from ._compute import Resource as Resource
from ._compute import Sampler as Sampler
from ._compute import Texture1D as Texture1D
from ._compute import Texture2D as Texture2D
from ._compute import Texture3D as Texture3D
from ._compute import get_best_device as get_best_device
from ._compute import get_current_device as get_current_device
from ._compute import get_discovered_devices as get_discovered_devices
from ._compute import set_current_device as set_current_device
from ._cuda import CudaBuffer as CudaBuffer
from ._cuda import Handoff as Handoff
from ._cuda import Semaphore as Semaphore
from ._cuda import SharedBuffer as SharedBuffer
from ._cuda import Texture as Texture
from ._cuda import VulkanSemaphore as VulkanSemaphore
from ._cuda import after_cuda as after_cuda
from ._cuda import compute_device as compute_device
from ._cuda import cuda_available as cuda_available
from ._cuda import cuda_device_count as cuda_device_count
from ._cuda import cuda_cache_stats as cuda_cache_stats
from ._cuda import open_ipc_buffer as open_ipc_buffer
from ._cuda import open_ipc_texture as open_ipc_texture
from ._cuda import texture as texture
from ._cuda import to_cuda as to_cuda
from ._ring import Frame as Frame
from ._ring import Ring as Ring
from ._ring import RingReader as RingReader
from ._ring import Slot as Slot
from ._ring import open_ring as open_ring
from ._torch import from_torch as from_torch
from ._torch import torch_pool as torch_pool
from ._torch import torch_pool_stats as torch_pool_stats
from ._typing import DirLike, Ids, Rendezvous
from ._version import __version__ as __version__
from .errors import *
from .shaders import glsl as glsl
from .shaders import hlsl as hlsl
from .shaders import wgsl as wgsl

SHADER_BINARY_TYPE_SPIRV: int
SHADER_BINARY_TYPE_DXIL: int
SHADER_BINARY_TYPE_DXBC: int
SHADER_BINARY_TYPE_MSL: int
SHADER_BINARY_TYPE_GLSL: int

def share_options(dir: DirLike | None = None, rendezvous: Rendezvous | None = None, allow_uids: Ids = (),
                  allow_gids: Ids = ()) -> None: ...

class _Backend:
    name: str
    @staticmethod
    def get_shader_binary_type() -> int: ...

def get_backend() -> _Backend: ...
def alias_compushady() -> bool: ...
def live_handles() -> int: ...
def live_dlpack_tensors() -> int: ...
