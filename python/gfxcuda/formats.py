"""Texel formats, under compushady's names (R32G32B32A32_FLOAT, ...) and
gfxcuda's (rgba32_float, ...). Values are VkFormat numbers from gfxcuda's
one format table; get_pixel_size(f) is the size of a texel in bytes."""

from . import _lib

_table = _lib.take_json("gfxcuda_formats_json")
by_value = {f["value"]: f for f in _table}
by_name = {f["name"]: f for f in _table}

_special = {
    "A2B10G10R10_UNORM_PACK32": "R10G10B10A2_UNORM",
    "A2B10G10R10_UINT_PACK32": "R10G10B10A2_UINT",
    "B10G11R11_UFLOAT_PACK32": "R11G11B10_FLOAT",
}


def _compushady_name(vk):
    n = vk[len("VK_FORMAT_"):]
    if n in _special:
        return _special[n]
    n = n.replace("_SFLOAT", "_FLOAT")
    if n.endswith("_SRGB"):
        n = n[: -len("_SRGB")] + "_UNORM_SRGB"
    return n


for _f in _table:
    globals()[_compushady_name(_f["vk_name"])] = _f["value"]
    globals()[_f["name"].upper()] = _f["value"]


def get_pixel_size(fmt):
    """The size of one texel of fmt in bytes."""
    try:
        return by_value[fmt]["bytes_per_texel"]
    except KeyError:
        raise ValueError("unknown format %r" % (fmt,)) from None


def name(fmt):
    """gfxcuda's name of fmt, e.g. 'rgba32_float'."""
    return by_value[fmt]["name"] if fmt in by_value else "format(%d)" % fmt


def lookup(fmt):
    """Format description by value or gfxcuda name."""
    if isinstance(fmt, str):
        f = by_name.get(fmt.lower())
    else:
        f = by_value.get(fmt)
    if f is None:
        raise ValueError("unknown format %r; see gfxcuda.formats" % (fmt,))
    return f


def for_dtype(code, bits, channels):
    """The format of texels of `channels` elements of a DLPack dtype, as
    Gfx2Cuda's texture(tensor) picks it (8-bit integers UNORM/SNORM, wider
    integers UINT/SINT, floats FLOAT)."""
    prefix = {1: "r", 2: "rg", 4: "rgba"}.get(channels)
    if prefix is None:
        raise ValueError("a texture texel has 1, 2 or 4 channels, not %d" % channels)
    if code == 2:
        kind = "float"
    elif bits == 8:
        kind = "unorm" if code == 1 else "snorm"
    else:
        kind = "uint" if code == 1 else "sint"
    n = "%s%d_%s" % (prefix, bits, kind)
    if n not in by_name:
        raise ValueError("no texture format holds %d channels of %d-bit %s" % (channels, bits, kind))
    return by_name[n]["value"]
