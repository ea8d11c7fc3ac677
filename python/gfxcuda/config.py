"""compushady's config module. set_debug(True) is accepted for
compatibility and recorded; gfxcuda switches the Vulkan validation layers
on with GFXCUDA_VALIDATION=1 in the environment the process starts with
(the library reads its environment once, when it loads)."""

_debug = False


def set_debug(enabled: bool) -> None:
    """Records compushady's debug flag: enabled (any truthy value: on) is
    what get_debug() returns from now on. It switches nothing in the
    library: the Vulkan validation layers follow GFXCUDA_VALIDATION=1 in
    the environment the process starts with (see the module's doc).
    Returns None; raises nothing."""
    global _debug
    _debug = bool(enabled)


def get_debug() -> bool:
    """Returns the flag set_debug() recorded (False until it is called).
    Raises nothing."""
    return _debug
