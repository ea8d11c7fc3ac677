"""WGSL compute shaders to SPIR-V (compiled in process, no naga)."""

from .. import _lib


def compile(source: "str | bytes", entry_point: "str | None" = "main", target: str = "cs_6_0") -> bytes:
    """Compiles a WGSL compute shader to SPIR-V, in process (gfxcuda's own
    front end, not naga).

    source is the WGSL text (str, or UTF-8 bytes). entry_point names the
    @compute function to compile; the default, "main" (or None), also
    takes a module's only @compute function whatever its name. target is
    accepted for compushady's signature (SPIR-V is the only target).
    Returns SPIR-V bytes whose entry point is the @compute function's
    name, for gfxcuda.Compute. Raises gfxcuda.CompileError (a ValueError)
    with shader.wgsl:line:col diagnostics when the shader does not compile.

    @group(G) @binding(B) is descriptor set G, binding B; Compute binds the
    lists as for GLSL: entry i of cbv, srv, uav or samplers at binding i, or
    else the class's i-th resource in binding order (compushady's rule).
    override declarations are specialization constants, set with
    Compute(..., constants={"name": value})."""
    del target  # SPIR-V is the only target
    if isinstance(source, str):
        source = source.encode()
    # NULL: the only @compute function, or the one called main.
    entry = None if entry_point in (None, "", "main") else entry_point.encode()  # type: ignore[union-attr]
    return _lib.take_bytes("gfxcuda_shader_compile", source, len(source), 2, entry)
