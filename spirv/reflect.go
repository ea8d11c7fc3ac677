package spirv

import (
	"math"
	"slices"
	"sort"
)

// Module is a SPIR-V module and what reflection found in it.
type Module struct {
	// SPIRV is the module's binary, little-endian 32-bit words.
	SPIRV     []byte
	Version   Version
	Generator uint32 // the generator magic number of the header
	Bound     uint32 // the id bound of the header

	EntryPoints []EntryPoint
	// Resources lists the descriptor-bound variables (those decorated with
	// Binding or DescriptorSet) that some entry point statically uses,
	// sorted by set and binding. A module without entry points lists all.
	Resources []Resource
	// PushConstants is the push constant block some entry point uses, or
	// nil.
	PushConstants *PushConstantBlock
	// SpecConstants lists the scalar specialization constants, sorted by
	// SpecId.
	SpecConstants []SpecConstant
	// Features names Vulkan device features the module needs beyond what
	// its capabilities declare, as package shader records them
	// (Rewrites.Features): "uniformBufferStandardLayout" for WGSL uniform
	// buffers whose layout std140 cannot express. Package vulkan checks
	// them.
	Features []string

	// Warnings holds the compiler's warnings for a module that package
	// shader compiled; Reflect leaves it empty.
	Warnings []Diagnostic
	// Cached reports that package shader's Compile took the module from its
	// on-disk cache instead of running the compiler; Reflect leaves it
	// false.
	Cached bool
}

// Words returns the module as 32-bit words, the form vkCreateShaderModule
// takes.
func (m *Module) Words() []uint32 {
	w := make([]uint32, len(m.SPIRV)/4)
	for i := range w {
		b := m.SPIRV[4*i:]
		w[i] = uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24
	}
	return w
}

// EntryPoint returns the entry point called name, or nil.
func (m *Module) EntryPoint(name string) *EntryPoint {
	for i := range m.EntryPoints {
		if m.EntryPoints[i].Name == name {
			return &m.EntryPoints[i]
		}
	}
	return nil
}

// LocalSize returns the workgroup size of the module's first compute entry
// point, or zeros if it has none.
func (m *Module) LocalSize() [3]uint32 {
	for _, e := range m.EntryPoints {
		if e.Model == ModelGLCompute || e.Model == ModelKernel {
			return e.LocalSize
		}
	}
	return [3]uint32{}
}

// Resource returns the resource whose Name is name, or failing that the
// first whose TypeName is name, or nil.
func (m *Module) Resource(name string) *Resource {
	for i := range m.Resources {
		if m.Resources[i].Name == name {
			return &m.Resources[i]
		}
	}
	for i := range m.Resources {
		if m.Resources[i].TypeName == name && name != "" {
			return &m.Resources[i]
		}
	}
	return nil
}

// ResourceAt returns the resource bound at (set, binding), or nil. Should
// several share the binding (aliasing), the first is returned.
func (m *Module) ResourceAt(set, binding uint32) *Resource {
	for i := range m.Resources {
		if m.Resources[i].Set == set && m.Resources[i].Binding == binding {
			return &m.Resources[i]
		}
	}
	return nil
}

// Reflect parses a SPIR-V binary, of either byte order, and describes its
// entry points and resources. Module.SPIRV is the binary in little-endian
// order. Reflect fails only on a malformed header or instruction stream;
// what it cannot make sense of beyond that it leaves out.
func Reflect(spirv []byte) (*Module, error) {
	w, err := decodeWords(spirv)
	if err != nil {
		return nil, err
	}
	return reflectWords(w)
}

func reflectWords(w []uint32) (*Module, error) {
	p := newParser()
	if err := instructions(w, p.inst); err != nil {
		return nil, err
	}
	m := &Module{
		SPIRV:     encodeWords(w),
		Version:   Version(w[1]),
		Generator: w[2],
		Bound:     w[3],
	}
	p.build(m)
	return m, nil
}

type memberKey struct{ id, member uint32 }

type entryInfo struct {
	model ExecutionModel
	fn    uint32
	name  string
	iface []uint32
}

type modeInfo struct {
	mode uint32
	args []uint32
	ids  bool // args are ids (OpExecutionModeId)
}

type funcInfo struct {
	refs  map[uint32]struct{} // global variables referenced
	calls []uint32            // functions called
}

type globalVar struct {
	id, typ, storage uint32
}

// parser gathers what reflection needs in one pass over the instructions.
type parser struct {
	names       map[uint32]string
	memberNames map[memberKey]string
	decos       map[uint32]map[uint32]uint32
	memberDecos map[memberKey]map[uint32]uint32
	types       map[uint32]inst // type declarations by result id; ops start after the result id
	consts      map[uint32]inst // constants by result id; ops[0] is the result type
	entries     []entryInfo
	modes       map[uint32][]modeInfo
	globals     []globalVar
	globalIDs   map[uint32]struct{}
	funcs       map[uint32]*funcInfo
	cur         *funcInfo
	structSizes map[uint32]uint64
	required    map[uint32]bool // SpecIds marked as having no default (Rewrites.Required)
	features    []string        // device features marked as needed (Rewrites.Features)
}

func newParser() *parser {
	return &parser{
		names:       map[uint32]string{},
		memberNames: map[memberKey]string{},
		decos:       map[uint32]map[uint32]uint32{},
		memberDecos: map[memberKey]map[uint32]uint32{},
		types:       map[uint32]inst{},
		consts:      map[uint32]inst{},
		modes:       map[uint32][]modeInfo{},
		globalIDs:   map[uint32]struct{}{},
		funcs:       map[uint32]*funcInfo{},
		structSizes: map[uint32]uint64{},
	}
}

// wantDeco reports whether reflection uses a decoration; others are not
// recorded, which also bounds the work OpGroupDecorate can cause.
func wantDeco(dec uint32) bool {
	switch dec {
	case decSpecID, decBlock, decBufferBlock, decRowMajor, decArrayStride, decMatrixStride,
		decBuiltIn, decNonWritable, decNonReadable, decBinding, decDescriptorSet, decOffset:
		return true
	}
	return false
}

func (p *parser) decorate(id, dec uint32, args []uint32) {
	if !wantDeco(dec) {
		return
	}
	d := p.decos[id]
	if d == nil {
		d = map[uint32]uint32{}
		p.decos[id] = d
	}
	d[dec] = first(args)
}

func (p *parser) decorateMember(id, member, dec uint32, args []uint32) {
	if !wantDeco(dec) {
		return
	}
	k := memberKey{id, member}
	d := p.memberDecos[k]
	if d == nil {
		d = map[uint32]uint32{}
		p.memberDecos[k] = d
	}
	d[dec] = first(args)
}

func first(a []uint32) uint32 {
	if len(a) > 0 {
		return a[0]
	}
	return 0
}

func (p *parser) inst(_ int, in inst) {
	ops := in.ops
	if p.cur != nil {
		p.functionInst(in)
		return
	}
	switch in.op {
	case opSourceExtension:
		p.sourceExtension(ops)
	case OpName:
		if len(ops) >= 1 {
			p.names[ops[0]], _ = DecodeString(ops[1:])
		}
	case opMemberName:
		if len(ops) >= 2 {
			p.memberNames[memberKey{ops[0], ops[1]}], _ = DecodeString(ops[2:])
		}
	case opEntryPoint:
		if len(ops) >= 2 {
			name, n := DecodeString(ops[2:])
			p.entries = append(p.entries, entryInfo{
				model: ExecutionModel(ops[0]),
				fn:    ops[1],
				name:  name,
				iface: ops[2+n:],
			})
		}
	case opExecutionMode, opExecutionModeId:
		if len(ops) >= 2 {
			p.modes[ops[0]] = append(p.modes[ops[0]], modeInfo{mode: ops[1], args: ops[2:], ids: in.op == opExecutionModeId})
		}
	case OpDecorate:
		if len(ops) >= 2 {
			p.decorate(ops[0], ops[1], ops[2:])
		}
	case opMemberDecorate:
		if len(ops) >= 3 {
			p.decorateMember(ops[0], ops[1], ops[2], ops[3:])
		}
	case opGroupDecorate:
		if len(ops) >= 1 {
			for _, t := range ops[1:] {
				for dec, v := range p.decos[ops[0]] {
					p.decorate(t, dec, []uint32{v})
				}
			}
		}
	case opGroupMemberDecor:
		if len(ops) >= 1 {
			for i := 1; i+1 < len(ops); i += 2 {
				for dec, v := range p.decos[ops[0]] {
					p.decorateMember(ops[i], ops[i+1], dec, []uint32{v})
				}
			}
		}
	case opTypeVoid, opTypeBool, opTypeInt, opTypeFloat, opTypeVector, opTypeMatrix,
		OpTypeImage, opTypeSampler, opTypeSampledImage, OpTypeArray, OpTypeRuntimeArray,
		opTypeStruct, OpTypePointer, opTypeAccelStruct:
		if len(ops) >= 1 {
			p.types[ops[0]] = inst{op: in.op, ops: ops[1:]}
		}
	case opConstant, opSpecConstant, opConstantComposite, opSpecConstComposite,
		opConstantTrue, opConstantFalse, opSpecConstantTrue, opSpecConstantFalse:
		if len(ops) >= 2 {
			p.consts[ops[1]] = inst{op: in.op, ops: append([]uint32{ops[0]}, ops[2:]...)}
		}
	case OpVariable:
		if len(ops) >= 3 {
			p.globals = append(p.globals, globalVar{id: ops[1], typ: ops[0], storage: ops[2]})
			p.globalIDs[ops[1]] = struct{}{}
		}
	case opFunction:
		if len(ops) >= 2 {
			f := p.funcs[ops[1]]
			if f == nil {
				f = &funcInfo{refs: map[uint32]struct{}{}}
				p.funcs[ops[1]] = f
			}
			p.cur = f
		}
	}
}

// functionInst records which global variables and functions an instruction
// in a function body refers to. Operands that are literals, not ids, are
// skipped for the instructions that have them, so that a literal that
// happens to equal a variable's id does not count as a use.
func (p *parser) functionInst(in inst) {
	ops := in.ops
	ref := func(idx ...int) {
		for _, i := range idx {
			if i < len(ops) {
				if _, ok := p.globalIDs[ops[i]]; ok {
					p.cur.refs[ops[i]] = struct{}{}
				}
			}
		}
	}
	refFrom := func(start int) {
		for i := start; i < len(ops); i++ {
			ref(i)
		}
	}
	switch {
	case in.op == opFunctionEnd:
		p.cur = nil
	case in.op == opFunction:
		// A function inside a function: malformed; start the new one.
		p.cur = nil
		p.inst(0, in)
	case in.op == opFunctionCall:
		if len(ops) >= 3 {
			p.cur.calls = append(p.cur.calls, ops[2])
		}
		refFrom(3)
	case in.op == opExtInst:
		ref(2)
		refFrom(4)
	case in.op == opCompositeExtract:
		ref(2)
	case in.op == opCompositeInsert, in.op == opVectorShuffle:
		ref(2, 3)
	case in.op == opLoad, in.op == opArrayLength, in.op == opImageTexelPointer:
		ref(2)
	case in.op == opStore, in.op == opCopyMemory:
		ref(0, 1)
	case in.op == opCopyMemorySized:
		ref(0, 1, 2)
	case in.op == OpVariable:
		ref(3)
	case in.op == opSwitch, in.op == opBranchConditional:
		ref(0)
	case in.op == opLine, in.op == opNoLine, in.op == opLoopMerge, in.op == opSelectionMerge, in.op == opBranch:
	case in.op >= opImageSampleFirst && in.op <= opImageWrite,
		in.op >= opImageSparseFirst && in.op <= opImageSparseGather,
		in.op == opImageSparseRead:
		// Image operations take image objects, never variables, and end in
		// an image-operands literal mask.
	case in.op >= opGroupIAdd && in.op <= opGroupSMax,
		in.op >= opGroupNUIAdd && in.op <= opGroupNULogicalXor:
		// Operand 3 is the group operation literal.
		ref(0, 1, 2)
		refFrom(4)
	default:
		refFrom(0)
	}
}

// constValue returns the value of a scalar integer or boolean constant or
// specialization constant (its default), and whether id is one.
func (p *parser) constValue(id uint32) (uint64, bool) {
	c, ok := p.consts[id]
	if !ok {
		return 0, false
	}
	switch c.op {
	case opConstantTrue, opSpecConstantTrue:
		return 1, true
	case opConstantFalse, opSpecConstantFalse:
		return 0, true
	case opConstant, opSpecConstant:
		t, ok := p.types[c.ops[0]]
		if !ok || t.op != opTypeInt || len(c.ops) < 2 {
			return 0, false
		}
		v := uint64(c.ops[1])
		if len(c.ops) >= 3 {
			v |= uint64(c.ops[2]) << 32
		}
		return v, true
	}
	return 0, false
}

func clamp32(v uint64) uint32 {
	if v > math.MaxUint32 {
		return math.MaxUint32
	}
	return uint32(v)
}

// satMul multiplies, saturating at MaxUint32 so that sizes never wrap.
func satMul(a, b uint64) uint64 {
	if a != 0 && b > math.MaxUint32/a {
		return math.MaxUint32
	}
	return a * b
}

const maxTypeDepth = 32

// sizeOf returns the byte size of a type laid out with explicit layout
// decorations. matrixStride and rowMajor come from the member decorations
// of the enclosing struct and apply to matrices, and arrays of them.
func (p *parser) sizeOf(id, matrixStride uint32, rowMajor bool, depth int) uint64 {
	if depth > maxTypeDepth {
		return 0
	}
	t, ok := p.types[id]
	if !ok {
		return 0
	}
	switch t.op {
	case opTypeBool:
		return 4
	case opTypeInt, opTypeFloat:
		if len(t.ops) >= 1 {
			return uint64(t.ops[0] / 8)
		}
	case opTypeVector:
		if len(t.ops) >= 2 {
			return satMul(p.sizeOf(t.ops[0], 0, false, depth+1), uint64(t.ops[1]))
		}
	case opTypeMatrix:
		if len(t.ops) >= 2 {
			cols := uint64(t.ops[1])
			if matrixStride == 0 {
				return satMul(p.sizeOf(t.ops[0], 0, false, depth+1), cols)
			}
			if rowMajor {
				rows := uint64(0)
				if col, ok := p.types[t.ops[0]]; ok && col.op == opTypeVector && len(col.ops) >= 2 {
					rows = uint64(col.ops[1])
				}
				return satMul(rows, uint64(matrixStride))
			}
			return satMul(cols, uint64(matrixStride))
		}
	case OpTypeArray:
		if len(t.ops) >= 2 {
			n, _ := p.constValue(t.ops[1])
			if s, ok := p.decos[id][decArrayStride]; ok {
				return satMul(n, uint64(s))
			}
			return satMul(n, p.sizeOf(t.ops[0], matrixStride, rowMajor, depth+1))
		}
	case opTypeStruct:
		return p.structSize(id, depth+1)
	case OpTypePointer:
		return 8 // a PhysicalStorageBuffer pointer
	}
	return 0
}

func (p *parser) hasDeco(id, dec uint32) bool {
	_, ok := p.decos[id][dec]
	return ok
}

func (p *parser) hasMemberDeco(id, member, dec uint32) bool {
	_, ok := p.memberDecos[memberKey{id, member}][dec]
	return ok
}

// structSize returns the size of a struct, memoised so that nested structs
// cost time linear in the module's size.
func (p *parser) structSize(id uint32, depth int) uint64 {
	if s, ok := p.structSizes[id]; ok {
		return s
	}
	p.structSizes[id] = 0 // a struct that contains itself is malformed; size 0
	size, _ := p.structLayout(id, depth, false)
	p.structSizes[id] = size
	return size
}

// structLayout returns the size of a struct (the end of its furthest
// member) and, if withMembers, its members.
func (p *parser) structLayout(id uint32, depth int, withMembers bool) (uint64, []Member) {
	t, ok := p.types[id]
	if !ok || t.op != opTypeStruct || depth > maxTypeDepth {
		return 0, nil
	}
	var size, next uint64
	var members []Member
	if withMembers {
		members = make([]Member, 0, len(t.ops))
	}
	for i, mt := range t.ops {
		md := p.memberDecos[memberKey{id, uint32(i)}]
		off := next
		if v, ok := md[decOffset]; ok {
			off = uint64(v)
		}
		_, rowMajor := md[decRowMajor]
		ms := md[decMatrixStride]
		sz := p.sizeOf(mt, ms, rowMajor, depth+1)
		end := off + sz
		next = end
		if end > size {
			size = end
		}
		if !withMembers {
			continue
		}
		members = append(members, Member{
			Name:   p.memberNames[memberKey{id, uint32(i)}],
			Offset: clamp32(off),
			Size:   clamp32(sz),
		})
	}
	return size, members
}

// allMembers reports whether the struct has members and every one carries
// the decoration.
func (p *parser) allMembers(id, dec uint32) bool {
	t, ok := p.types[id]
	if !ok || t.op != opTypeStruct || len(t.ops) == 0 {
		return false
	}
	for i := range t.ops {
		if !p.hasMemberDeco(id, uint32(i), dec) {
			return false
		}
	}
	return true
}

// used returns the global variables that the entry points statically use:
// those referenced from functions reachable from an entry point's function
// through calls, plus those in its interface list; nil when there are no
// entry points.
func (p *parser) used() map[uint32]bool {
	if len(p.entries) == 0 {
		return nil
	}
	used := map[uint32]bool{}
	seen := map[uint32]bool{}
	for _, e := range p.entries {
		for _, id := range e.iface {
			used[id] = true
		}
		stack := []uint32{e.fn}
		for len(stack) > 0 {
			fn := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if seen[fn] {
				continue
			}
			seen[fn] = true
			f := p.funcs[fn]
			if f == nil {
				continue
			}
			for id := range f.refs {
				used[id] = true
			}
			stack = append(stack, f.calls...)
		}
	}
	return used
}

// build fills in the module's entry points and resources.
func (p *parser) build(m *Module) {
	used := p.used()

	// The WorkgroupSize built-in, if declared, overrides LocalSize.
	var wgSize [3]uint32
	var wgSpec = [3]int32{-1, -1, -1}
	haveWG := false
	var wgIDs []uint32
	for id, d := range p.decos {
		if b, ok := d[decBuiltIn]; ok && b == builtInWorkgroupSize {
			wgIDs = append(wgIDs, id)
		}
	}
	slices.Sort(wgIDs)
	for _, id := range wgIDs {
		c, ok := p.consts[id]
		if !ok || (c.op != opConstantComposite && c.op != opSpecConstComposite) || len(c.ops) != 4 {
			continue
		}
		for i := 0; i < 3; i++ {
			wgSize[i], wgSpec[i] = p.sizeComponent(c.ops[1+i])
		}
		haveWG = true
		break
	}

	for _, e := range p.entries {
		ep := EntryPoint{Name: e.name, Model: e.model, LocalSizeSpecID: [3]int32{-1, -1, -1}}
		for _, md := range p.modes[e.fn] {
			if len(md.args) < 3 {
				continue
			}
			switch {
			case md.mode == modeLocalSize && !md.ids:
				copy(ep.LocalSize[:], md.args[:3])
			case md.mode == modeLocalSizeID && md.ids:
				for i := 0; i < 3; i++ {
					ep.LocalSize[i], ep.LocalSizeSpecID[i] = p.sizeComponent(md.args[i])
				}
			}
		}
		if haveWG && (e.model == ModelGLCompute || e.model == ModelKernel) {
			ep.LocalSize, ep.LocalSizeSpecID = wgSize, wgSpec
		}
		m.EntryPoints = append(m.EntryPoints, ep)
	}

	m.SpecConstants = p.specConstants()
	m.Features = p.features

	for _, v := range p.globals {
		if used != nil && !used[v.id] {
			continue
		}
		if v.storage == scPushConstant {
			if m.PushConstants == nil {
				m.PushConstants = p.pushConstants(v)
			}
			continue
		}
		if r, ok := p.resource(v); ok {
			m.Resources = append(m.Resources, r)
		}
	}
	sort.SliceStable(m.Resources, func(i, j int) bool {
		a, b := &m.Resources[i], &m.Resources[j]
		if a.Set != b.Set {
			return a.Set < b.Set
		}
		return a.Binding < b.Binding
	})
}

// sizeComponent evaluates one workgroup size component: its value and, for
// a specialization constant, its SpecId (else -1).
func (p *parser) sizeComponent(id uint32) (uint32, int32) {
	v, _ := p.constValue(id)
	spec := int32(-1)
	if c, ok := p.consts[id]; ok && c.op == opSpecConstant {
		if s, ok := p.decos[id][decSpecID]; ok && s <= math.MaxInt32 {
			spec = int32(s)
		}
	}
	return clamp32(v), spec
}

// pointee returns the type a variable of pointer type typ points to.
func (p *parser) pointee(typ uint32) (uint32, bool) {
	t, ok := p.types[typ]
	if !ok || t.op != OpTypePointer || len(t.ops) < 2 {
		return 0, false
	}
	return t.ops[1], true
}

func (p *parser) pushConstants(v globalVar) *PushConstantBlock {
	st, ok := p.pointee(v.typ)
	if !ok {
		return nil
	}
	size, members := p.structLayout(st, 0, true)
	pc := &PushConstantBlock{
		Name:     p.names[v.id],
		TypeName: p.names[st],
		Size:     clamp32(size),
		Members:  members,
	}
	if pc.Name == "" {
		pc.Name = pc.TypeName
	}
	if len(members) > 0 {
		pc.Offset = members[0].Offset
		for _, mb := range members {
			pc.Offset = min(pc.Offset, mb.Offset)
		}
	}
	return pc
}

// resource describes a descriptor-bound variable; ok is false for variables
// that are not.
func (p *parser) resource(v globalVar) (Resource, bool) {
	var r Resource
	if !p.hasDeco(v.id, decBinding) && !p.hasDeco(v.id, decDescriptorSet) {
		return r, false
	}
	t, ok := p.pointee(v.typ)
	if !ok {
		return r, false
	}
	r.Set = p.decos[v.id][decDescriptorSet]
	r.Binding = p.decos[v.id][decBinding]
	r.Name = p.names[v.id]

	// Peel descriptor arrays.
	count := uint64(1)
	for depth := 0; depth < maxTypeDepth; depth++ {
		a, ok := p.types[t]
		if !ok || (a.op != OpTypeArray && a.op != OpTypeRuntimeArray) || len(a.ops) < 1 {
			break
		}
		if a.op == OpTypeRuntimeArray {
			count = 0
		} else if len(a.ops) >= 2 {
			n, _ := p.constValue(a.ops[1])
			count = satMul(count, n)
		}
		t = a.ops[0]
	}
	r.ArraySize = clamp32(count)

	ty, ok := p.types[t]
	if !ok {
		return r, false
	}
	varNonWritable := p.hasDeco(v.id, decNonWritable)
	varNonReadable := p.hasDeco(v.id, decNonReadable)

	switch v.storage {
	case scUniform, scStorageBuffer:
		if ty.op != opTypeStruct {
			return r, false
		}
		switch {
		case v.storage == scStorageBuffer || p.hasDeco(t, decBufferBlock):
			r.Kind = StorageBuffer
			r.ReadOnly = varNonWritable || p.hasDeco(t, decNonWritable) || p.allMembers(t, decNonWritable)
			r.WriteOnly = varNonReadable || p.hasDeco(t, decNonReadable) || p.allMembers(t, decNonReadable)
		default:
			r.Kind = UniformBuffer
			r.ReadOnly = true
		}
		r.TypeName = p.names[t]
		if r.Name == "" {
			r.Name = r.TypeName
		}
		size, members := p.structLayout(t, 0, true)
		r.Members = members
		if n := len(ty.ops); n > 0 {
			if last, ok := p.types[ty.ops[n-1]]; ok && last.op == OpTypeRuntimeArray {
				r.Stride = p.decos[ty.ops[n-1]][decArrayStride]
			}
		}
		r.Size = clamp32(size)
		return r, true

	case scUniformConstant:
		r.TypeName = p.names[t]
		switch ty.op {
		case opTypeSampler:
			r.Kind = Sampler
			r.ReadOnly = true
			return r, true
		case opTypeAccelStruct:
			r.Kind = AccelerationStructure
			r.ReadOnly = true
			return r, true
		case opTypeSampledImage:
			if len(ty.ops) < 1 {
				return r, false
			}
			img, ok := p.types[ty.ops[0]]
			if !ok || img.op != OpTypeImage {
				return r, false
			}
			p.imageInfo(&r, img)
			r.Kind = CombinedImageSampler
			if r.Dim == DimBuffer {
				// GLSL samplerBuffer: Vulkan binds it as a uniform
				// texel buffer.
				r.Kind = UniformTexelBuffer
			}
			r.ReadOnly = true
			return r, true
		case OpTypeImage:
			if !p.imageInfo(&r, ty) {
				return r, false
			}
			sampled := ty.ops[5]
			switch {
			case r.Dim == DimSubpassData:
				r.Kind = InputAttachment
				r.ReadOnly = true
			case r.Dim == DimBuffer && sampled == 2:
				r.Kind = StorageTexelBuffer
				r.ReadOnly = varNonWritable
				r.WriteOnly = varNonReadable
			case r.Dim == DimBuffer:
				r.Kind = UniformTexelBuffer
				r.ReadOnly = true
			case sampled == 2:
				r.Kind = StorageImage
				r.ReadOnly = varNonWritable
				r.WriteOnly = varNonReadable
			default:
				r.Kind = SampledImage
				r.ReadOnly = true
			}
			return r, true
		}
	}
	return r, false
}

// imageInfo copies an OpTypeImage's properties into r.
func (p *parser) imageInfo(r *Resource, img inst) bool {
	if len(img.ops) < 7 {
		return false
	}
	if d := img.ops[1]; d <= 6 {
		r.Dim = ImageDim(d + 1)
	}
	r.Depth = img.ops[2] == 1
	r.Arrayed = img.ops[3] == 1
	r.Multisampled = img.ops[4] == 1
	r.Format = ImageFormat(img.ops[6])
	if st, ok := p.types[img.ops[0]]; ok {
		switch {
		case st.op == opTypeFloat:
			r.SampledType = ScalarFloat
		case st.op == opTypeInt && len(st.ops) >= 2 && st.ops[1] == 1:
			r.SampledType = ScalarInt
		case st.op == opTypeInt:
			r.SampledType = ScalarUint
		}
	}
	return true
}
