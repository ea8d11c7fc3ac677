# Types of gfxcuda._torch (PyTorch's tensors in Vulkan). The code and its docstrings are in _torch.py. torch's own
# types are Any here: gfxcuda does not need torch installed to be checked.

from typing import Any

from ._cuda import SharedBuffer
from ._typing import StreamLike

def torch_pool(device: Any = None, new: bool = False) -> Any: ...
def torch_pool_stats(device: Any = None) -> dict[str, int]: ...
def from_torch(t: Any, copy: bool = False, stream: StreamLike = None, device: Any = None) -> SharedBuffer: ...
