package vulkan

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/gfxcuda/gfxcuda/internal/vk"
	"github.com/gfxcuda/gfxcuda/spirv"
)

// PipelineOptions configures NewComputePipeline.
type PipelineOptions struct {
	// EntryPoint names the compute entry point; empty means the module's
	// first compute entry point.
	EntryPoint string
	// Bindless, when not zero, lets the shader have runtime-sized arrays
	// of descriptors (HLSL Buffer<uint> bufs[]; GLSL uniform
	// texture2D texs[]), given Bindless elements each, and makes every
	// array of descriptors partially bound: a dispatch binds the elements
	// it wants (Binding.Element) and leaves the others unbound, which the
	// shader must not read. It needs the runtimeDescriptorArray and
	// descriptorBindingPartiallyBound features (Device.BindlessSupported).
	Bindless uint32
	// Specialization sets specialization constants, by SpecId, to the
	// value bits given (the low 1, 2, 4 or 8 bytes, as the constant's type
	// is wide; a bool is 0 or 1): those the module reflects
	// (spirv.Module.SpecConstants). A workgroup size made of
	// specialization constants follows (Pipeline.LocalSize). A constant
	// the module marks as having no default (SpecConstant.Required) must
	// be set; an id the module lacks is an error.
	Specialization map[uint32]uint64
}

// Pipeline is a compute pipeline: a shader module's compute entry point
// with the descriptor set layouts and push constant range its reflection
// describes. Commands.Dispatch binds resources to it by set and binding or
// by name, and checks them against the shader. Its methods are safe for
// concurrent use.
type Pipeline struct {
	resource
	d      *Device
	module *spirv.Module
	entry  string
	local  [3]uint32
	spec   []vk.SpecConstant // PipelineOptions.Specialization, by SpecId
	// res holds the shader's resources, one per (set, binding): of
	// aliased variables (several at one binding, of one kind), the first.
	res   []spirv.Resource
	names map[string]int // resource index by variable and block type name
	push  uint32         // push constant range size, a multiple of 4; 0: none
	// setRes lists, for each set number below len(sets), the indices into
	// res of its resources.
	setRes [][]int
	sets   []vk.DescriptorSetLayout
	// partial marks the resources (indices into res) whose arrays are
	// partially bound (PipelineOptions.Bindless); setNeed counts each
	// set layout's descriptors by type, what allocating a set takes.
	partial map[int]bool
	setNeed [][8]uint32
	layout  vk.PipelineLayout
	spirv   []uint32
	formats map[uint64]imageTypeInfo // image types of descriptors, by binding key

	mu       sync.Mutex
	variants map[string]vk.Pipeline // "" is the module as compiled
	modules  []vk.ShaderModule
}

// bindingKey packs a set and binding into one map key.
func bindingKey(set, binding uint32) uint64 { return uint64(set)<<32 | uint64(binding) }

// capabilityFeatures maps the SPIR-V capabilities that need a device
// feature to that feature: its name and whether the device has it.
var capabilityFeatures = map[uint32]struct {
	name string
	has  func(f *vk.Features) bool
}{
	9:    {"shaderFloat16", func(f *vk.Features) bool { return f.ShaderFloat16 }},
	10:   {"shaderFloat64", func(f *vk.Features) bool { return f.ShaderFloat64 }},
	11:   {"shaderInt64", func(f *vk.Features) bool { return f.ShaderInt64 }},
	22:   {"shaderInt16", func(f *vk.Features) bool { return f.ShaderInt16 }},
	39:   {"shaderInt8", func(f *vk.Features) bool { return f.ShaderInt8 }},
	49:   {"shaderStorageImageExtendedFormats", func(f *vk.Features) bool { return f.StorageImageExtendedFormats }},
	55:   {"shaderStorageImageReadWithoutFormat", func(f *vk.Features) bool { return f.StorageImageReadWithoutFormat }},
	56:   {"shaderStorageImageWriteWithoutFormat", func(f *vk.Features) bool { return f.StorageImageWriteWithoutFormat }},
	4433: {"storageBuffer16BitAccess", func(f *vk.Features) bool { return f.StorageBuffer16BitAccess }},
	4434: {"uniformAndStorageBuffer16BitAccess", func(f *vk.Features) bool { return f.UniformAndStorageBuffer16BitAccess }},
	4448: {"storageBuffer8BitAccess", func(f *vk.Features) bool { return f.StorageBuffer8BitAccess }},
	4449: {"uniformAndStorageBuffer8BitAccess", func(f *vk.Features) bool { return f.UniformAndStorageBuffer8BitAccess }},
}

// namedFeatures are the device features a module may name as needed
// beyond its capabilities (spirv.Module.Features).
var namedFeatures = map[string]func(f *vk.Features) bool{
	"uniformBufferStandardLayout": func(f *vk.Features) bool { return f.UniformBufferStandardLayout },
}

// capabilityNames names the capabilities of capabilityFeatures.
var capabilityNames = map[uint32]string{
	9: "Float16", 10: "Float64", 11: "Int64", 22: "Int16", 39: "Int8", 49: "StorageImageExtendedFormats",
	55: "StorageImageReadWithoutFormat", 56: "StorageImageWriteWithoutFormat",
	4433: "StorageBuffer16BitAccess", 4434: "UniformAndStorageBuffer16BitAccess",
	4448: "StorageBuffer8BitAccess", 4449: "UniformAndStorageBuffer8BitAccess",
}

// describe names a resource for error messages: its name, kind, set and
// binding.
func describe(r *spirv.Resource) string {
	name := r.Name
	if name == "" {
		name = "(unnamed)"
	}
	return fmt.Sprintf("%s (%s at set %d, binding %d)", name, r.Kind, r.Set, r.Binding)
}

// NewComputePipeline creates a compute pipeline from a compiled or
// reflected module (shader.Compile, spirv.Reflect). The descriptor set
// layouts and push constant range come from the module's reflection: one
// descriptor per resource, visible to the compute stage. It checks the
// workgroup size against the device's limits, the module's capabilities
// against the device's features, and that no two resources of different
// kinds share a binding (HLSL registers of different classes with the same
// number do: see package shader), and fails with an error saying what to
// change.
func (d *Device) NewComputePipeline(m *spirv.Module, opts ...PipelineOptions) (*Pipeline, error) {
	if err := d.acquire(); err != nil {
		return nil, err
	}
	defer d.life.release()
	var o PipelineOptions
	if len(opts) > 0 {
		o = opts[len(opts)-1]
	}
	p, err := d.newPipeline(m, o)
	if err != nil {
		return nil, fmt.Errorf("vulkan: NewComputePipeline: %w", err)
	}
	d.register(p)
	return p, nil
}

func (d *Device) newPipeline(m *spirv.Module, o PipelineOptions) (*Pipeline, error) {
	if m == nil || len(m.SPIRV) < 20 {
		return nil, errors.New("no SPIR-V module")
	}
	var ep *spirv.EntryPoint
	for i := range m.EntryPoints {
		e := &m.EntryPoints[i]
		if e.Model == spirv.ModelGLCompute && (o.EntryPoint == "" || e.Name == o.EntryPoint) {
			ep = e
			break
		}
	}
	if ep == nil {
		var names []string
		for _, e := range m.EntryPoints {
			names = append(names, fmt.Sprintf("%s (%s)", e.Name, e.Model))
		}
		want := "compute entry point"
		if o.EntryPoint != "" {
			want = fmt.Sprintf("compute entry point %q", o.EntryPoint)
		}
		return nil, fmt.Errorf("the module has no %s (it has: %s)", want, strings.Join(names, ", "))
	}
	spec, err := specialization(m, o.Specialization)
	if err != nil {
		return nil, err
	}
	lim := &d.pd.Limits
	ls := ep.LocalSizeWith(o.Specialization)
	if ls[0] == 0 || ls[1] == 0 || ls[2] == 0 {
		if ls != ep.LocalSize {
			return nil, fmt.Errorf("entry point %s: the specialization constants make the workgroup size %d×%d×%d; each dimension must be at least 1", ep.Name, ls[0], ls[1], ls[2])
		}
		return nil, fmt.Errorf("entry point %s declares no workgroup size", ep.Name)
	}
	for i, axis := range []string{"x", "y", "z"} {
		if ls[i] > lim.MaxComputeWorkGroupSize[i] {
			return nil, fmt.Errorf("workgroup size %d×%d×%d: %s = %d exceeds %s's maxComputeWorkGroupSize (%d, %d, %d)",
				ls[0], ls[1], ls[2], axis, ls[i], d.pd.Name, lim.MaxComputeWorkGroupSize[0], lim.MaxComputeWorkGroupSize[1], lim.MaxComputeWorkGroupSize[2])
		}
	}
	if n := uint64(ls[0]) * uint64(ls[1]) * uint64(ls[2]); n > uint64(lim.MaxComputeWorkGroupInvocations) {
		return nil, fmt.Errorf("workgroup size %d×%d×%d = %d invocations exceeds %s's maxComputeWorkGroupInvocations %d",
			ls[0], ls[1], ls[2], n, d.pd.Name, lim.MaxComputeWorkGroupInvocations)
	}
	words := m.Words()
	for _, c := range spirvCapabilities(words) {
		if f, ok := capabilityFeatures[c]; ok && !f.has(&d.pd.features) {
			return nil, fmt.Errorf("the shader uses SPIR-V capability %s, which needs the device feature %s; %s does not have it",
				capabilityNames[c], f.name, d.pd.Name)
		}
	}

	for _, name := range m.Features {
		has, known := namedFeatures[name]
		switch {
		case !known:
			return nil, fmt.Errorf("the shader needs the device feature %s, which gfxcuda does not know how to enable", name)
		case !has(&d.pd.features):
			return nil, fmt.Errorf("the shader needs the device feature %s, which %s does not have", name, d.pd.Name)
		}
	}

	p := &Pipeline{d: d, module: m, entry: ep.Name, local: ls, spec: spec, names: map[string]int{}, spirv: words,
		variants: map[string]vk.Pipeline{}}
	byKey := map[uint64]int{}
	for _, r := range m.Resources {
		k := bindingKey(r.Set, r.Binding)
		if i, dup := byKey[k]; dup {
			first := &p.res[i]
			if first.Kind != r.Kind {
				return nil, fmt.Errorf("%s and %s share a binding but differ in kind: give each resource its own binding "+
					"(in HLSL registers of different classes with the same number, such as t0 and u0, land on the same binding; "+
					"number them apart, or use [[vk::binding(N)]])", describe(first), describe(&r))
			}
			if r.Name != "" {
				if _, taken := p.names[r.Name]; !taken {
					p.names[r.Name] = i
				}
			}
			continue
		}
		switch {
		case r.Kind.VkDescriptorType() < 0 || r.Kind == spirv.InputAttachment || r.Kind == spirv.AccelerationStructure:
			return nil, fmt.Errorf("%s: resources of this kind are not supported in compute pipelines", describe(&r))
		case r.ArraySize == 0 && o.Bindless == 0:
			return nil, fmt.Errorf("%s is a runtime-sized array of descriptors: give the array a size, or make the pipeline bindless (PipelineOptions.Bindless)", describe(&r))
		case r.Set >= lim.MaxBoundDescriptorSets:
			return nil, fmt.Errorf("%s: set %d is beyond %s's maxBoundDescriptorSets %d", describe(&r), r.Set, d.pd.Name, lim.MaxBoundDescriptorSets)
		}
		if o.Bindless > 0 && (r.ArraySize == 0 || r.ArraySize > 1) {
			if !d.BindlessSupported() {
				return nil, fmt.Errorf("%s: a bindless pipeline needs the runtimeDescriptorArray and descriptorBindingPartiallyBound features (descriptor indexing), which %s lacks: %w",
					describe(&r), d.pd.Name, ErrUnsupported)
			}
			if r.ArraySize == 0 {
				r.ArraySize = o.Bindless
			}
			if p.partial == nil {
				p.partial = map[int]bool{}
			}
			p.partial[len(p.res)] = true
		}
		byKey[k] = len(p.res)
		p.res = append(p.res, r)
	}
	for i, r := range p.res {
		for _, n := range []string{r.Name, r.TypeName} {
			if _, taken := p.names[n]; n != "" && !taken {
				p.names[n] = i
			}
		}
	}
	// Members of blocks without an instance name (GLSL's buffer Out {
	// float outp[]; }) name their block too, where no resource has the name.
	for i, r := range p.res {
		if r.Kind.IsBuffer() && r.Name == r.TypeName {
			for _, mb := range r.Members {
				if _, taken := p.names[mb.Name]; mb.Name != "" && !strings.HasPrefix(mb.Name, "@") && !taken {
					p.names[mb.Name] = i
				}
			}
		}
	}
	if pc := m.PushConstants; pc != nil && pc.Size > 0 {
		p.push = (pc.Size + 3) &^ 3
		if p.push > lim.MaxPushConstantsSize {
			return nil, fmt.Errorf("push constant block %s of %d bytes exceeds %s's maxPushConstantsSize %d",
				pc.Name, pc.Size, d.pd.Name, lim.MaxPushConstantsSize)
		}
	}
	p.formats = storageImageTypes(words)

	fail := func(err error) (*Pipeline, error) {
		p.free()
		return nil, err
	}
	nsets := 0
	for _, r := range p.res {
		nsets = max(nsets, int(r.Set)+1)
	}
	p.setRes = make([][]int, nsets)
	for i, r := range p.res {
		p.setRes[r.Set] = append(p.setRes[r.Set], i)
	}
	for s := range nsets {
		var bs []vk.DescriptorSetLayoutBinding
		var need [8]uint32
		for _, i := range p.setRes[s] {
			r := &p.res[i]
			var flags uint32
			if p.partial[i] {
				flags = vk.DescriptorBindingPartiallyBound
			}
			bs = append(bs, vk.DescriptorSetLayoutBinding{Binding: r.Binding, Type: uint32(r.Kind.VkDescriptorType()),
				Count: r.ArraySize, Stages: vk.ShaderStageCompute, Flags: flags})
			if t := r.Kind.VkDescriptorType(); t >= 0 && t < len(need) {
				need[t] += r.ArraySize
			}
		}
		p.setNeed = append(p.setNeed, need)
		l, err := d.raw.CreateDescriptorSetLayout(bs)
		if err != nil {
			return fail(err)
		}
		p.sets = append(p.sets, l)
	}
	var ranges []vk.PushConstantRange
	if p.push > 0 {
		ranges = []vk.PushConstantRange{{Stages: vk.ShaderStageCompute, Size: p.push}}
	}
	if p.layout, err = d.raw.CreatePipelineLayout(p.sets, ranges); err != nil {
		return fail(err)
	}
	if _, err := p.variant(nil); err != nil {
		return fail(err)
	}
	return p, nil
}

// variant returns the pipeline for the module with the image formats of
// patch (OpTypeImage result id → SPIR-V image format) replaced and the
// capabilities caps added, creating it on first use.
func (p *Pipeline) variant(patch map[uint32]uint32, caps ...uint32) (vk.Pipeline, error) {
	key := ""
	if len(patch) > 0 {
		ids := make([]uint32, 0, len(patch))
		for id := range patch {
			ids = append(ids, id)
		}
		slices.Sort(ids)
		var b strings.Builder
		for _, id := range ids {
			fmt.Fprintf(&b, "%d:%d,", id, patch[id])
		}
		slices.Sort(caps)
		fmt.Fprint(&b, caps)
		key = b.String()
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if h, ok := p.variants[key]; ok {
		return h, nil
	}
	words := p.spirv
	if len(patch) > 0 {
		words = patchImageFormats(words, patch, caps)
	}
	sm, err := p.d.raw.CreateShaderModule(words)
	if err != nil {
		return 0, err
	}
	h, err := p.d.raw.CreateComputePipeline(sm, p.entry, p.layout, p.spec)
	if err != nil {
		p.d.raw.DestroyShaderModule(sm)
		return 0, err
	}
	p.modules = append(p.modules, sm)
	p.variants[key] = h
	return h, nil
}

// Module returns the module the pipeline was made from.
func (p *Pipeline) Module() *spirv.Module { return p.module }

// EntryPoint returns the name of the pipeline's entry point.
func (p *Pipeline) EntryPoint() string { return p.entry }

// LocalSize returns the workgroup size of the entry point, with the
// specialization constants of PipelineOptions.Specialization set.
func (p *Pipeline) LocalSize() [3]uint32 { return p.local }

// Specialization returns the specialization constants the pipeline sets:
// SpecId → value bits (nil when none).
func (p *Pipeline) Specialization() map[uint32]uint64 {
	if len(p.spec) == 0 {
		return nil
	}
	out := make(map[uint32]uint64, len(p.spec))
	for _, s := range p.spec {
		out[s.ID] = s.Bits
	}
	return out
}

// specialization checks values (SpecId → bits) against the module's
// specialization constants and returns them as map entries, by SpecId.
func specialization(m *spirv.Module, values map[uint32]uint64) ([]vk.SpecConstant, error) {
	byID := map[uint32]*spirv.SpecConstant{}
	for i := range m.SpecConstants {
		byID[m.SpecConstants[i].ID] = &m.SpecConstants[i]
	}
	for _, c := range m.SpecConstants {
		if _, set := values[c.ID]; c.Required && !set {
			return nil, fmt.Errorf("specialization constant %s has no default: set it (PipelineOptions.Specialization)", c)
		}
	}
	ids := make([]uint32, 0, len(values))
	for id := range values {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	var out []vk.SpecConstant
	for _, id := range ids {
		c := byID[id]
		if c == nil {
			return nil, fmt.Errorf("PipelineOptions.Specialization sets SpecId %d, which the module does not have (%s)", id, specList(m))
		}
		v := values[id]
		if c.Type == spirv.ScalarBool && v > 1 {
			return nil, fmt.Errorf("PipelineOptions.Specialization sets %s to %d; a bool takes 0 or 1", c, v)
		}
		switch c.Bits {
		case 8, 16, 32, 64:
		default:
			return nil, fmt.Errorf("specialization constant %s is %d bits wide; Vulkan sets 8-, 16-, 32- and 64-bit ones", c, c.Bits)
		}
		out = append(out, vk.SpecConstant{ID: id, Size: uint32(c.Bits / 8), Bits: v})
	}
	return out, nil
}

// specList lists a module's specialization constants for messages.
func specList(m *spirv.Module) string {
	if len(m.SpecConstants) == 0 {
		return "it has no specialization constants"
	}
	parts := make([]string, len(m.SpecConstants))
	for i, c := range m.SpecConstants {
		parts[i] = c.String()
	}
	return "it has " + strings.Join(parts, ", ")
}

// Resources lists the resources a dispatch binds, one per set and binding,
// sorted by set and binding.
func (p *Pipeline) Resources() []spirv.Resource { return slices.Clone(p.res) }

// PushConstantSize is the size in bytes of the push constants a dispatch
// passes (the block's size rounded up to a multiple of 4), or 0 when the
// shader has none.
func (p *Pipeline) PushConstantSize() uint32 { return p.push }

// Resource returns the resource bound at set and binding, or nil.
func (p *Pipeline) Resource(set, binding uint32) *spirv.Resource {
	for i := range p.res {
		if p.res[i].Set == set && p.res[i].Binding == binding {
			r := p.res[i]
			return &r
		}
	}
	return nil
}

// ResourceNamed returns the resource whose variable or block type is
// called name, or failing that the block without an instance name that
// has a member called name, or nil.
func (p *Pipeline) ResourceNamed(name string) *spirv.Resource {
	if i, ok := p.names[name]; ok {
		r := p.res[i]
		return &r
	}
	return nil
}

// Close waits for the batches submitted through Commands that use the
// pipeline, then destroys it. Close is idempotent and returns nil.
func (p *Pipeline) Close() error {
	if p == nil || p.d == nil {
		return nil
	}
	p.d.closeChild(&p.life, p.destroyHandles)
	return nil
}

func (p *Pipeline) closeOrder() int { return orderPipeline }
func (p *Pipeline) destroy()        { p.life.shut(p.destroyHandles) }

func (p *Pipeline) destroyHandles() {
	p.d.waitSerial(p.lastUse.Load())
	p.free()
	p.d.unregister(p)
}

// free destroys the handles made so far.
func (p *Pipeline) free() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, h := range p.variants {
		p.d.raw.DestroyPipeline(h)
	}
	clear(p.variants)
	for _, m := range p.modules {
		p.d.raw.DestroyShaderModule(m)
	}
	p.modules = nil
	p.d.raw.DestroyPipelineLayout(p.layout)
	p.layout = 0
	for _, l := range p.sets {
		p.d.raw.DestroyDescriptorSetLayout(l)
	}
	p.sets = nil
}
