"""GLSL compute shaders to SPIR-V (compiled in process)."""

from .. import _lib


def compile(source, entry_point="main"):
    """Compiles a GLSL compute shader (without a #version line: 450);
    returns SPIR-V bytes. Raises
    gfxcuda.CompileError with file:line diagnostics."""
    import re  # here: importing re costs `import gfxcuda` a third of its time

    if isinstance(source, str):
        source = source.encode()
    if not re.search(rb"^[ \t]*#[ \t]*version\b", source, re.M):
        # compushady's GLSL needs no #version: Vulkan GLSL 4.50 then, with
        # diagnostics still numbered from the source's first line.
        source = b"#version 450\n#line 1\n" + source
    return _lib.take_bytes("gfxcuda_shader_compile", source, len(source), 1, entry_point.encode())
