"""compushady's config module. set_debug(True) is accepted for
compatibility and recorded; gfxcuda switches the Vulkan validation layers
on with GFXCUDA_VALIDATION=1 in the environment the process starts with
(the library reads its environment once, when it loads)."""

_debug = False


def set_debug(enabled):
    """Records compushady's debug flag (see the module's doc for validation)."""
    global _debug
    _debug = bool(enabled)


def get_debug():
    """Whether set_debug(True) was called."""
    return _debug
