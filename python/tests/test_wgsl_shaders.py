"""gfxcuda.shaders.wgsl beyond compushady's tests: errors with file, line
and column, and override constants set with Compute(constants=...)."""

import numpy
import pytest

import gfxcuda
from gfxcuda import Buffer, Compute, HEAP_DEFAULT, HEAP_READBACK
from gfxcuda.shaders import wgsl


def _readback(buf):
    out = Buffer(buf.size, HEAP_READBACK)
    buf.copy_to(out)
    return out.readback()


def test_error_has_line_and_column():
    src = ("@group(0) @binding(0) var<storage, read_write> out: array<u32>;\n"
           "@compute @workgroup_size(1)\n"
           "fn main() {\n"
           "    out[0] = not_declared;\n"
           "}\n")
    with pytest.raises(gfxcuda.CompileError) as e:
        wgsl.compile(src)
    msg = str(e.value)
    assert "shader.wgsl:4:14:" in msg and "not_declared" in msg, msg
    # compushady raises ValueError; so does gfxcuda.
    assert isinstance(e.value, ValueError)


def test_several_errors_and_syntax():
    with pytest.raises(ValueError, match=r"shader\.wgsl:2:\d+:"):
        wgsl.compile("@compute @workgroup_size(1)\nfn main() { let x = ; }\n")


def test_missing_entry_point():
    src = "@compute @workgroup_size(1) fn first() {}\n@compute @workgroup_size(1) fn second() {}\n"
    with pytest.raises(gfxcuda.CompileError, match="third"):
        wgsl.compile(src, "third")
    assert wgsl.compile(src, "second")[:4] == b"\x03\x02\x23\x07"  # SPIR-V


_OVERRIDES = """
@group(0) @binding(0) var<storage, read_write> data: array<f32>;

override factor: f32 = 1.0;
override offset: f32;
@id(9) override wg: u32 = 64;

@compute @workgroup_size(wg)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    data[id.x] = f32(id.x) * factor + offset;
}
"""


def test_override_constants(rng):
    n = 64
    shader = wgsl.compile(_OVERRIDES)
    factor = float(rng.integers(2, 9))
    buf = Buffer(4 * n, HEAP_DEFAULT, stride=4)
    # wg by its @id: 16 threads per workgroup, so 4 workgroups cover n.
    Compute(shader, uav=[buf], constants={"factor": factor, "offset": 0.5, 9: 16}).dispatch(n // 16, 1, 1)
    got = numpy.frombuffer(_readback(buf), dtype=numpy.float32)
    assert (got == numpy.arange(n, dtype=numpy.float32) * factor + 0.5).all(), got


def test_override_without_default_must_be_set():
    buf = Buffer(256, HEAP_DEFAULT, stride=4)
    shader = wgsl.compile(_OVERRIDES)
    with pytest.raises(gfxcuda.InvalidArgumentError, match="override 'offset' has no default; set it with Compute"):
        Compute(shader, uav=[buf], constants={"factor": 2})
    with pytest.raises(ValueError, match="override 'offset' has no default"):
        Compute(shader, uav=[buf])
    with pytest.raises(gfxcuda.InvalidArgumentError, match='no constant "factr"; it has factor'):
        Compute(shader, uav=[buf], constants={"factr": 2, "offset": 0})
    with pytest.raises(gfxcuda.InvalidArgumentError, match="out of the range of uint32"):
        Compute(shader, uav=[buf], constants={"wg": -1, "offset": 0})
