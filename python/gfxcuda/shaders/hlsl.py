"""HLSL compute shaders to SPIR-V (compiled in process)."""


from .. import _lib


def compile(source, entry_point="main", target="cs_6_0"):
    """Compiles an HLSL compute shader; returns SPIR-V bytes. Raises
    gfxcuda.CompileError with file:line diagnostics."""
    del target  # SPIR-V is the only target
    if isinstance(source, str):
        source = source.encode()
    return _lib.take_bytes("gfxcuda_shader_compile", source, len(source), 0, entry_point.encode())


