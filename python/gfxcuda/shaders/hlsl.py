"""HLSL compute shaders to SPIR-V (compiled in process)."""


from .. import _lib


def compile(source: "str | bytes", entry_point: str = "main", target: str = "cs_6_0") -> bytes:
    """Compiles an HLSL compute shader to SPIR-V, in process.

    source is the HLSL text (str, or UTF-8 bytes); entry_point names the
    [numthreads] function to compile; target, a shader model such as
    "cs_6_0", is accepted for compushady's signature (SPIR-V is the only
    target). Returns the SPIR-V bytes, for gfxcuda.Compute. Raises
    gfxcuda.CompileError (a ValueError) with file:line diagnostics when
    the shader does not compile."""
    del target  # SPIR-V is the only target
    if isinstance(source, str):
        source = source.encode()
    return _lib.take_bytes("gfxcuda_shader_compile", source, len(source), 0, entry_point.encode())


