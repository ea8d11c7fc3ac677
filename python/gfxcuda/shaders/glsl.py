"""GLSL compute shaders to SPIR-V (compiled in process)."""

from .. import _lib


def compile(source, entry_point="main"):
    """Compiles a GLSL compute shader; returns SPIR-V bytes. Raises
    gfxcuda.CompileError with file:line diagnostics."""
    if isinstance(source, str):
        source = source.encode()
    return _lib.take_bytes("gfxcuda_shader_compile", source, len(source), 1, entry_point.encode())
