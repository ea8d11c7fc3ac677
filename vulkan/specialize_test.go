package vulkan

import (
	"strings"
	"testing"

	"github.com/gfxcuda/gfxcuda/spirv"
)

// TestPipelineSpecialization: a pipeline's workgroup size follows the
// specialization constants set, and PipelineOptions.Specialization is
// checked against the module's constants.
func TestPipelineSpecialization(t *testing.T) {
	d := computeDevice(t)
	m := compileModule(t, "spec.comp", `#version 450
layout(local_size_x = 4, local_size_x_id = 3, local_size_y = 2) in;
layout(constant_id = 0) const bool flag = false;
layout(constant_id = 1) const float gain = 1.0;
layout(std430, binding = 0) buffer O { float o[]; };
void main() { o[gl_GlobalInvocationID.x] = flag ? gain : 0.0; }`)
	p, err := d.NewComputePipeline(m)
	if err != nil {
		t.Fatal(err)
	}
	if ls := p.LocalSize(); ls != [3]uint32{4, 2, 1} || p.Specialization() != nil {
		t.Errorf("defaults: LocalSize %v, Specialization %v", ls, p.Specialization())
	}
	p.Close()
	p, err = d.NewComputePipeline(m, PipelineOptions{Specialization: map[uint32]uint64{3: 32, 0: 1, 1: 0x40000000}})
	if err != nil {
		t.Fatal(err)
	}
	if ls := p.LocalSize(); ls != [3]uint32{32, 2, 1} {
		t.Errorf("x = 32: LocalSize %v", ls)
	}
	p.Close()
	for _, c := range []struct {
		spec map[uint32]uint64
		want string
	}{
		{map[uint32]uint64{9: 1}, "sets SpecId 9, which the module does not have (it has flag (SpecId 0, bool, default false), gain (SpecId 1, float32, default 1)"},
		{map[uint32]uint64{0: 2}, "a bool takes 0 or 1"},
		{map[uint32]uint64{3: 0}, "the specialization constants make the workgroup size 0×2×1"},
		{map[uint32]uint64{3: 1 << 20}, "maxComputeWorkGroup"},
	} {
		if _, err := d.NewComputePipeline(m, PipelineOptions{Specialization: c.spec}); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v, want an error containing %q", c.spec, err, c.want)
		}
	}
}

// TestPipelineFeatures: a module naming a device feature it needs
// (spirv.Module.Features) is checked against the device.
func TestPipelineFeatures(t *testing.T) {
	d := computeDevice(t)
	m := compileModule(t, "add.comp", addShader)
	b, err := spirv.Rewrite(m.SPIRV, spirv.Rewrites{Features: []string{"noSuchFeature"}})
	if err != nil {
		t.Fatal(err)
	}
	bad, err := spirv.Reflect(b)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.NewComputePipeline(bad); err == nil || !strings.Contains(err.Error(), "device feature noSuchFeature, which gfxcuda does not know") {
		t.Errorf("unknown feature: %v", err)
	}
	b, err = spirv.Rewrite(m.SPIRV, spirv.Rewrites{Features: []string{"uniformBufferStandardLayout"}})
	if err != nil {
		t.Fatal(err)
	}
	std, err := spirv.Reflect(b)
	if err != nil {
		t.Fatal(err)
	}
	p, err := d.NewComputePipeline(std)
	if d.pd.features.UniformBufferStandardLayout {
		if err != nil {
			t.Errorf("uniformBufferStandardLayout on %s: %v", d.pd.Name, err)
		}
		p.Close()
	} else if err == nil || !strings.Contains(err.Error(), "uniformBufferStandardLayout") {
		t.Errorf("without uniformBufferStandardLayout: %v", err)
	}
}
