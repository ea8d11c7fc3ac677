package compute

import (
	"encoding/binary"
	"math"
	"strings"
	"testing"

	"github.com/gfxcuda/gfxcuda/shader"
	"github.com/gfxcuda/gfxcuda/spirv"
)

// constGLSL has specialization constants of each scalar type and a
// workgroup size set by one (SpecId 5); it writes, for each invocation,
// its local size and the constants.
const constGLSL = `#version 450
layout(local_size_x = 4, local_size_x_id = 5) in;
layout(constant_id = 0) const float scale = 1.5;
layout(constant_id = 1) const int offset = -3;
layout(constant_id = 2) const bool negate = false;
layout(constant_id = 3) const uint count = 7u;
layout(constant_id = 5) const uint wg = 4u;
layout(std430, binding = 0) buffer Out { float v[]; } outp;
void main() {
	uint i = gl_GlobalInvocationID.x;
	float x = float(i) * scale + float(offset) + float(count) * 100.0;
	outp.v[i] = negate ? -x : x;
	if (i == 0u) outp.v[63] = float(gl_WorkGroupSize.x);
}
`

// runConst dispatches enough workgroups for 16 invocations with the
// constants set and returns the first 16 values and the local size the
// shader saw.
func runConst(t *testing.T, d *Device, m *shader.Module, consts map[string]float64) ([]float32, float32, *Kernel) {
	t.Helper()
	k, err := d.KernelWith(m, KernelOptions{Constants: consts})
	if err != nil {
		t.Fatalf("KernelWith(%v): %v", consts, err)
	}
	t.Cleanup(func() { k.Close() })
	out, err := d.Buffer(64*4, HeapDefault)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	x, y, z := k.Groups(16, 1, 1)
	if err := k.Dispatch(x, y, z, At(0, out)); err != nil {
		t.Fatal(err)
	}
	b, err := out.Readback()
	if err != nil {
		t.Fatal(err)
	}
	vals := make([]float32, 64)
	for i := range vals {
		vals[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return vals[:16], vals[63], k
}

func TestKernelConstants(t *testing.T) {
	d := openTest(t)
	m, err := shader.Compile([]byte(constGLSL), shader.Options{Language: shader.GLSL, NoCache: true})
	if err != nil {
		t.Fatal(err)
	}
	want := func(scale, offset float32, negate bool, count float32) []float32 {
		out := make([]float32, 16)
		for i := range out {
			x := float32(i)*scale + offset + count*100
			if negate {
				x = -x
			}
			out[i] = x
		}
		return out
	}
	check := func(name string, got, want []float32) {
		t.Helper()
		for i := range want {
			if got[i] != want[i] {
				t.Errorf("%s: v[%d] = %v, want %v (all: %v)", name, i, got[i], want[i], got)
				return
			}
		}
	}

	// Defaults.
	got, ls, k := runConst(t, d, m, nil)
	check("defaults", got, want(1.5, -3, false, 7))
	if ls != 4 || k.LocalSize() != [3]uint32{4, 1, 1} {
		t.Errorf("defaults: shader saw local size %v, LocalSize %v; want 4", ls, k.LocalSize())
	}
	if x, _, _ := k.Groups(16, 1, 1); x != 4 {
		t.Errorf("Groups(16) = %d, want 4", x)
	}
	// Counts near 2³² round up without wrapping (the sum n+3 wrapped to 2
	// in 32 bits: 0 workgroups).
	if x, _, _ := k.Groups(math.MaxUint32, 1, 1); x != 1<<30 {
		t.Errorf("Groups(2³²-1) = %d, want 2³⁰", x)
	}

	// Set by name and by SpecId; the workgroup size follows.
	got, ls, k = runConst(t, d, m, map[string]float64{"scale": 0.25, "1": 10, "negate": 1, "count": 2, "wg": 8})
	check("set", got, want(0.25, 10, true, 2))
	if ls != 8 || k.LocalSize() != [3]uint32{8, 1, 1} {
		t.Errorf("wg = 8: shader saw local size %v, LocalSize %v", ls, k.LocalSize())
	}
	if x, _, _ := k.Groups(16, 1, 1); x != 2 {
		t.Errorf("wg = 8: Groups(16) = %d, want 2", x)
	}
	if s := k.Pipeline().Specialization(); s[5] != 8 || s[2] != 1 || s[1] != 10 {
		t.Errorf("Specialization() = %v", s)
	}

	// Mistakes name the constant and what the shader has.
	for consts, msg := range map[*map[string]float64]string{
		{"scael": 1}:           `no constant "scael"; it has scale (SpecId 0, float32, default 1.5), offset (SpecId 1, int32, default -3)`,
		{"count": -1}:          "-1 for count (uint32): out of the range of uint32",
		{"negate": 2}:          "a bool takes 0 (false) or 1 (true)",
		{"offset": 0.5}:        "an integer takes a whole number",
		{"9": 1}:               `no constant "9"`,
		{"wg": 1, "5": 2}:      "sets wg (SpecId 5, uint32, default 4) twice",
		{"wg": 0}:              "each dimension must be at least 1",
		{"wg": 1 << 20}:        "exceeds",
		{"scale": math.Inf(1)}: "",
	} {
		_, err := d.KernelWith(m, KernelOptions{Constants: *consts})
		if msg == "" {
			if err != nil {
				t.Errorf("%v: %v", *consts, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("%v: error %v, want one containing %q", *consts, err, msg)
		}
	}
}

// TestRequiredConstant: a constant marked as having no default (a WGSL
// override without an initializer) must be set.
func TestRequiredConstant(t *testing.T) {
	d := openTest(t)
	m, err := shader.Compile([]byte(constGLSL), shader.Options{Language: shader.GLSL, NoCache: true})
	if err != nil {
		t.Fatal(err)
	}
	b, err := spirv.Rewrite(m.SPIRV, spirv.Rewrites{Required: []uint32{3}})
	if err != nil {
		t.Fatal(err)
	}
	req, err := shader.Compile(b, shader.Options{Language: shader.SPIRV})
	if err != nil {
		t.Fatal(err)
	}
	const want = "compute: override 'count' has no default; set it with KernelOptions.Constants"
	if _, err := d.KernelWith(req, KernelOptions{}); err == nil || err.Error() != want {
		t.Errorf("unset: %v, want %q", err, want)
	}
	if _, err := d.Kernel(req, ""); err == nil || err.Error() != want {
		t.Errorf("Kernel: %v, want %q", err, want)
	}
	got, _, _ := runConst(t, d, req, map[string]float64{"count": 1})
	if got[1] != 1*1.5-3+100 {
		t.Errorf("count = 1: v[1] = %v", got[1])
	}
}
