"""Texel formats, under compushady's names (R32G32B32A32_FLOAT, ...) and
gfxcuda's (rgba32_float, ...). Values are VkFormat numbers from gfxcuda's
one format table; get_pixel_size(f) is the size of a texel in bytes."""

from . import _lib

# The table (by_value, by_name and the constants) is read from the library
# on first use, not at import: `import gfxcuda` calls nothing in the
# library (whose first call waits for its runtime to start) and needs no
# json (which imports re): compushady's import loads its backend lazily too.
_loaded = False

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


def _load():
    """Reads the format table (once; idempotent, so threads may race)."""
    global _loaded
    if _loaded:
        return
    table = _lib.take_json("gfxcuda_formats_json")
    g = globals()
    for f in table:
        g[_compushady_name(f["vk_name"])] = f["value"]
        g[f["name"].upper()] = f["value"]
    g["_table"] = table
    g["by_value"] = {f["value"]: f for f in table}
    g["by_name"] = {f["name"]: f for f in table}
    _loaded = True


def __getattr__(attr):
    """The table's names (by_value, by_name, R8G8B8A8_UNORM, ...), loaded
    on first use; __all__ for `from gfxcuda.formats import *`."""
    if attr.startswith("__") and attr != "__all__":
        raise AttributeError("module %r has no attribute %r" % (__name__, attr))
    _load()
    g = globals()
    if attr == "__all__":
        return [n for n in g if not n.startswith("_")]
    try:
        return g[attr]
    except KeyError:
        raise AttributeError("module %r has no attribute %r" % (__name__, attr)) from None


def __dir__():
    _load()
    return sorted(globals())


def get_pixel_size(fmt):
    """Returns the size of one texel of fmt (a format's value, e.g.
    R8G8B8A8_UNORM) in bytes. Raises ValueError for a value that is not a
    format."""
    _load()
    try:
        return by_value[fmt]["bytes_per_texel"]
    except KeyError:
        raise ValueError("unknown format %r" % (fmt,)) from None


def name(fmt):
    """Returns gfxcuda's name of fmt (a format's value), e.g.
    'rgba32_float'; "format(N)" for a value that is not a format. Raises
    nothing."""
    _load()
    return by_value[fmt]["name"] if fmt in by_value else "format(%d)" % fmt


def lookup(fmt):
    """Returns the description of format fmt, given by value (37) or by
    gfxcuda's name ('rgba8_unorm', any case): a dict of value, name,
    vk_name, bytes_per_texel, channels, dl_code and dl_bits (DLPack's
    type of a channel), lanes and cuda_array. Raises ValueError for an
    unknown format."""
    _load()
    if isinstance(fmt, str):
        f = by_name.get(fmt.lower())
    else:
        try:
            f = by_value.get(fmt)
        except TypeError:  # unhashable: not a format
            f = None
    if f is None:
        raise ValueError("unknown format %r; see gfxcuda.formats" % (fmt,))
    return f


def for_dtype(code, bits, channels):
    """Returns the format (its value) of texels of `channels` elements (1,
    2 or 4) of a DLPack dtype, code (0 int, 1 uint, 2 float) and bits, as
    Gfx2Cuda's texture(tensor) picks it (8-bit integers UNORM/SNORM, wider
    integers UINT/SINT, floats FLOAT). Raises ValueError when no texture
    format holds such texels."""
    _load()
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
