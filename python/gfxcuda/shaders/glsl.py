"""GLSL compute shaders to SPIR-V (compiled in process)."""

from .. import _lib


def compile(source: "str | bytes", entry_point: str = "main") -> bytes:
    """Compiles a GLSL compute shader to SPIR-V, in process.

    source is the GLSL text (str, or UTF-8 bytes); without a #version
    line it is Vulkan GLSL 4.50, its diagnostics still numbered from its
    own first line. entry_point names the function to compile ("main").
    Returns the SPIR-V bytes, for gfxcuda.Compute. Raises
    gfxcuda.CompileError (a ValueError) with file:line diagnostics when
    the shader does not compile."""
    import re  # here: importing re costs `import gfxcuda` a third of its time

    if isinstance(source, str):
        source = source.encode()
    if not re.search(rb"^[ \t]*#[ \t]*version\b", source, re.M):
        # compushady's GLSL needs no #version: Vulkan GLSL 4.50 then, with
        # diagnostics still numbered from the source's first line.
        source = b"#version 450\n#line 1\n" + source
    return _lib.take_bytes("gfxcuda_shader_compile", source, len(source), 1, entry_point.encode())
