# Types of gfxcuda.formats. Its constants are made at run time from the C library's format table (on first use);
# the list below is that table's names, checked against it by python/tests/test_typing.py, which rewrites it:
#   /usr/bin/python3 python/tests/test_typing.py --write-formats-stub

from typing import Any

by_value: dict[int, dict[str, Any]]
by_name: dict[str, dict[str, Any]]

def get_pixel_size(fmt: int) -> int: ...
def name(fmt: int) -> str: ...
def lookup(fmt: int | str) -> dict[str, Any]: ...
def for_dtype(code: int, bits: int, channels: int) -> int: ...

# The formats, under compushady's names (R8G8B8A8_UNORM) and gfxcuda's (RGBA8_UNORM): VkFormat numbers.
B8G8R8A8_UNORM: int
B8G8R8A8_UNORM_SRGB: int
BGRA8_SRGB: int
BGRA8_UNORM: int
R10G10B10A2_UINT: int
R10G10B10A2_UNORM: int
R11G11B10_FLOAT: int
R16G16B16A16_FLOAT: int
R16G16B16A16_SINT: int
R16G16B16A16_SNORM: int
R16G16B16A16_UINT: int
R16G16B16A16_UNORM: int
R16G16_FLOAT: int
R16G16_SINT: int
R16G16_SNORM: int
R16G16_UINT: int
R16G16_UNORM: int
R16_FLOAT: int
R16_SINT: int
R16_SNORM: int
R16_UINT: int
R16_UNORM: int
R32G32B32A32_FLOAT: int
R32G32B32A32_SINT: int
R32G32B32A32_UINT: int
R32G32B32_FLOAT: int
R32G32B32_SINT: int
R32G32B32_UINT: int
R32G32_FLOAT: int
R32G32_SINT: int
R32G32_UINT: int
R32_FLOAT: int
R32_SINT: int
R32_UINT: int
R8G8B8A8_SINT: int
R8G8B8A8_SNORM: int
R8G8B8A8_UINT: int
R8G8B8A8_UNORM: int
R8G8B8A8_UNORM_SRGB: int
R8G8_SINT: int
R8G8_SNORM: int
R8G8_UINT: int
R8G8_UNORM: int
R8G8_UNORM_SRGB: int
R8_SINT: int
R8_SNORM: int
R8_SRGB: int
R8_UINT: int
R8_UNORM: int
R8_UNORM_SRGB: int
RG11B10_FLOAT: int
RG16_FLOAT: int
RG16_SINT: int
RG16_SNORM: int
RG16_UINT: int
RG16_UNORM: int
RG32_FLOAT: int
RG32_SINT: int
RG32_UINT: int
RG8_SINT: int
RG8_SNORM: int
RG8_SRGB: int
RG8_UINT: int
RG8_UNORM: int
RGB10A2_UINT: int
RGB10A2_UNORM: int
RGB32_FLOAT: int
RGB32_SINT: int
RGB32_UINT: int
RGBA16_FLOAT: int
RGBA16_SINT: int
RGBA16_SNORM: int
RGBA16_UINT: int
RGBA16_UNORM: int
RGBA32_FLOAT: int
RGBA32_SINT: int
RGBA32_UINT: int
RGBA8_SINT: int
RGBA8_SNORM: int
RGBA8_SRGB: int
RGBA8_UINT: int
RGBA8_UNORM: int
