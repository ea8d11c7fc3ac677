package spirv

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/gfxcuda/gfxcuda/internal/half"
)

// SpecConstant is a scalar specialization constant of a module: an
// OpSpecConstant, OpSpecConstantTrue or OpSpecConstantFalse decorated with
// a SpecId (a WGSL override, a GLSL layout(constant_id = N) const, an HLSL
// [[vk::constant_id(N)]] constant). A pipeline sets it by its SpecId
// (vulkan.PipelineOptions.Specialization).
type SpecConstant struct {
	// Name is the constant's OpName, "" when it has none (glslang leaves
	// the constants of layout(local_size_x_id = N) unnamed).
	Name string
	// ID is the SpecId.
	ID uint32
	// Type is ScalarBool, ScalarInt, ScalarUint or ScalarFloat.
	Type ScalarType
	// Bits is the width of the value: 16, 32 or 64; 32 for a bool, which
	// Vulkan passes as a VkBool32.
	Bits int
	// Default is the default value's bits (the literal's words, low word
	// first; a bool's 0 or 1).
	Default uint64
	// Required reports that the source gives the constant no default (a
	// WGSL override declared without an initializer): Default is a
	// placeholder and a pipeline must set the constant. Package shader
	// records it in the module (see Rewrites.Required).
	Required bool
}

// String describes the constant: "scale (SpecId 0, float32, default
// 1.5)".
func (c SpecConstant) String() string {
	name := c.Name
	if name == "" {
		name = "(unnamed)"
	}
	def := "no default"
	if !c.Required {
		def = "default " + c.Format(c.Default)
	}
	return fmt.Sprintf("%s (SpecId %d, %s, %s)", name, c.ID, c.TypeName(), def)
}

// TypeName is the constant's type as "bool", "int32", "uint32",
// "float32" and so on.
func (c SpecConstant) TypeName() string {
	if c.Type == ScalarBool {
		return "bool"
	}
	return c.Type.String() + strconv.Itoa(c.Bits)
}

// Format writes value bits of the constant's type as a number: "true",
// "-3", "1.5".
func (c SpecConstant) Format(bits uint64) string {
	switch c.Type {
	case ScalarBool:
		return strconv.FormatBool(bits != 0)
	case ScalarInt:
		sh := 64 - uint(c.Bits)
		return strconv.FormatInt(int64(bits<<sh)>>sh, 10)
	case ScalarFloat:
		switch c.Bits {
		case 16:
			return strconv.FormatFloat(float64(half.ToFloat32(uint16(bits))), 'g', -1, 32)
		case 32:
			return strconv.FormatFloat(float64(math.Float32frombits(uint32(bits))), 'g', -1, 32)
		}
		return strconv.FormatFloat(math.Float64frombits(bits), 'g', -1, 64)
	}
	return strconv.FormatUint(bits, 10)
}

// SpecConstant returns the specialization constant called name, or nil.
func (m *Module) SpecConstant(name string) *SpecConstant {
	for i := range m.SpecConstants {
		if m.SpecConstants[i].Name == name && name != "" {
			return &m.SpecConstants[i]
		}
	}
	return nil
}

// LocalSizeWith returns the workgroup size of a compute entry point once
// the specialization constants in values (SpecId → value bits) are set:
// a dimension that a specialization constant sets (LocalSizeSpecID) takes
// its value from values when there, else its default.
func (e *EntryPoint) LocalSizeWith(values map[uint32]uint64) [3]uint32 {
	ls := e.LocalSize
	for i, id := range e.LocalSizeSpecID {
		if id < 0 {
			continue
		}
		if v, ok := values[uint32(id)]; ok {
			ls[i] = uint32(v)
		}
	}
	return ls
}

// LocalSizeWith is LocalSize with specialization constants set: the
// workgroup size of the module's first compute entry point, or zeros if it
// has none (see EntryPoint.LocalSizeWith).
func (m *Module) LocalSizeWith(values map[uint32]uint64) [3]uint32 {
	for i := range m.EntryPoints {
		if e := &m.EntryPoints[i]; e.Model == ModelGLCompute || e.Model == ModelKernel {
			return e.LocalSizeWith(values)
		}
	}
	return [3]uint32{}
}

// requiredMark starts the OpSourceExtension text with which Rewrite marks
// a specialization constant as having no default: the mark, a space, the
// SpecId in decimal. featureMark starts the one that names a device
// feature the module needs (Rewrites.Features). OpSourceExtension has no
// semantic effect, and StripDebug keeps it.
const (
	requiredMark = "gfxcuda.spec-constant-without-default"
	featureMark  = "gfxcuda.requires-device-feature"
)

// specConstants lists the module's scalar specialization constants, by
// SpecId; of several with one SpecId, the first named one.
func (p *parser) specConstants() []SpecConstant {
	var out []SpecConstant
	ids := make([]uint32, 0, len(p.consts))
	for id := range p.consts {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	byID := map[uint32]int{}
	for _, id := range ids {
		c := p.consts[id]
		if c.op != opSpecConstant && c.op != opSpecConstantTrue && c.op != opSpecConstantFalse {
			continue
		}
		sid, ok := p.decos[id][decSpecID]
		if !ok {
			continue
		}
		t, ok := p.types[c.ops[0]]
		if !ok {
			continue
		}
		sc := SpecConstant{Name: p.names[id], ID: sid, Required: p.required[sid]}
		switch {
		case t.op == opTypeBool:
			sc.Type, sc.Bits = ScalarBool, 32
			if c.op == opSpecConstantTrue {
				sc.Default = 1
			}
		case t.op == opTypeInt && len(t.ops) >= 2 && c.op == opSpecConstant:
			sc.Type, sc.Bits = ScalarUint, int(t.ops[0])
			if t.ops[1] == 1 {
				sc.Type = ScalarInt
			}
		case t.op == opTypeFloat && len(t.ops) >= 1 && c.op == opSpecConstant:
			sc.Type, sc.Bits = ScalarFloat, int(t.ops[0])
		default:
			continue
		}
		if c.op == opSpecConstant && len(c.ops) >= 2 {
			sc.Default = uint64(c.ops[1])
			if len(c.ops) >= 3 && sc.Bits > 32 {
				sc.Default |= uint64(c.ops[2]) << 32
			}
		}
		if i, dup := byID[sid]; dup {
			if out[i].Name == "" && sc.Name != "" {
				out[i] = sc
			}
			continue
		}
		byID[sid] = len(out)
		out = append(out, sc)
	}
	slices.SortFunc(out, func(a, b SpecConstant) int { return int(a.ID) - int(b.ID) })
	return out
}

// sourceExtension records an OpSourceExtension: gfxcuda's marks of
// constants without a default go to p.required, of device features to
// p.features.
func (p *parser) sourceExtension(ops []uint32) {
	s, _ := DecodeString(ops)
	if name, ok := strings.CutPrefix(s, featureMark+" "); ok {
		if name != "" && !slices.Contains(p.features, name) {
			p.features = append(p.features, name)
		}
		return
	}
	rest, ok := strings.CutPrefix(s, requiredMark+" ")
	if !ok {
		return
	}
	if id, err := strconv.ParseUint(rest, 10, 32); err == nil {
		if p.required == nil {
			p.required = map[uint32]bool{}
		}
		p.required[uint32(id)] = true
	}
}

// Rewrites are the changes Rewrite makes to a module's debug information.
// None changes what the module computes.
type Rewrites struct {
	// EntryPoints renames entry points: old name → new name. The OpName of
	// the entry point's function follows when it was the old name.
	EntryPoints map[string]string
	// Names renames the OpName and OpMemberName strings that are keys to
	// their values (the entry points' functions excepted).
	Names map[string]string
	// Required marks the specialization constants with these SpecIds as
	// having no default (SpecConstant.Required), with an OpSourceExtension
	// each.
	Required []uint32
	// Features names Vulkan device features the module needs beyond what
	// its capabilities declare (Module.Features), with an
	// OpSourceExtension each: "uniformBufferStandardLayout" for uniform
	// blocks laid out as storage blocks are.
	Features []string
	// SpecNames names, with an OpName, the specialization constants
	// decorated with these SpecIds that have no name: SpecId → name.
	// (glslang gives the constant of layout(local_size_x_id = N) no name,
	// and the optimiser may drop the named one of the same SpecId.)
	SpecNames map[uint32]string
}

// Rewrite returns b, in little-endian order, with the changes of r made.
// It fails, wrapping ErrInvalid, on a malformed binary.
func Rewrite(b []byte, r Rewrites) ([]byte, error) {
	w, err := decodeWords(b)
	if err != nil {
		return nil, err
	}
	type rename struct{ from, to string }
	entryFns := map[uint32]rename{} // the functions of renamed entry points
	marked := map[string]bool{}     // the marks the module has
	named := map[uint32]bool{}      // ids with an OpName
	var specIDs [][2]uint32         // (result id, SpecId) of SpecId decorations
	err = instructions(w, func(_ int, in inst) {
		switch in.op {
		case OpName:
			if len(in.ops) >= 1 {
				named[in.ops[0]] = true
			}
		case OpDecorate:
			if len(in.ops) >= 3 && in.ops[1] == decSpecID {
				specIDs = append(specIDs, [2]uint32{in.ops[0], in.ops[2]})
			}
		case opEntryPoint:
			if len(in.ops) >= 3 {
				name, _ := DecodeString(in.ops[2:])
				if to, ok := r.EntryPoints[name]; ok {
					entryFns[in.ops[1]] = rename{name, to}
				}
			}
		case opSourceExtension:
			s, _ := DecodeString(in.ops)
			marked[s] = true
		}
	})
	if err != nil {
		return nil, err
	}
	var ids []uint32
	for _, id := range r.Required {
		if !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	var marks []string
	mark := func(m string) {
		if !marked[m] {
			marked[m] = true
			marks = append(marks, m)
		}
	}
	for _, id := range ids {
		mark(fmt.Sprintf("%s %d", requiredMark, id))
	}
	for _, f := range r.Features {
		if f != "" {
			mark(featureMark + " " + f)
		}
	}

	var names [][2]uint32 // (result id, SpecId) to name
	for _, s := range specIDs {
		if _, ok := r.SpecNames[s[1]]; ok && !named[s[0]] && s[0] != 0 {
			named[s[0]] = true
			names = append(names, s)
		}
	}

	out := make([]uint32, 5, len(w)+16)
	copy(out, w[:5])
	str := func(op uint32, head []uint32, s string, tail []uint32) {
		sw := EncodeString(s)
		out = append(out, uint32(1+len(head)+len(sw)+len(tail))<<16|op)
		out = append(out, head...)
		out = append(out, sw...)
		out = append(out, tail...)
	}
	_ = instructions(w, func(pos int, in inst) {
		if len(marks) > 0 && !preamble(in.op) {
			// The marks go first in the debug section (OpSourceExtension
			// may come in any order with OpString and OpSource).
			for _, m := range marks {
				str(opSourceExtension, nil, m, nil)
			}
			marks = nil
		}
		if len(names) > 0 && !preamble(in.op) && !sourceInst(in.op) {
			// The names go first among OpName and OpMemberName.
			for _, n := range names {
				str(OpName, []uint32{n[0]}, r.SpecNames[n[1]], nil)
			}
			names = nil
		}
		switch in.op {
		case opEntryPoint:
			if len(in.ops) >= 3 {
				name, n := DecodeString(in.ops[2:])
				if to, ok := r.EntryPoints[name]; ok {
					str(opEntryPoint, in.ops[:2], to, in.ops[2+n:])
					return
				}
			}
		case OpName:
			if len(in.ops) >= 2 {
				name, _ := DecodeString(in.ops[1:])
				var to string
				ok := false
				if e, isEntry := entryFns[in.ops[0]]; isEntry {
					to, ok = e.to, name == e.from
				} else {
					to, ok = r.Names[name]
				}
				if ok && to != name {
					str(OpName, in.ops[:1], to, nil)
					return
				}
			}
		case opMemberName:
			if len(in.ops) >= 3 {
				name, _ := DecodeString(in.ops[2:])
				if to, ok := r.Names[name]; ok && to != name {
					str(opMemberName, in.ops[:2], to, nil)
					return
				}
			}
		}
		out = append(out, w[pos:pos+1+len(in.ops)]...)
	})
	for _, m := range marks { // a module of nothing but its preamble
		str(opSourceExtension, nil, m, nil)
	}
	for _, n := range names {
		str(OpName, []uint32{n[0]}, r.SpecNames[n[1]], nil)
	}
	return encodeWords(out), nil
}

// preamble reports whether op belongs to the sections before the debug
// instructions (capabilities, extensions, imports, the memory model, entry
// points, execution modes).
func preamble(op uint32) bool {
	switch op {
	case OpCapability, OpExtension, opExtInstImport, opMemoryModel, opEntryPoint, opExecutionMode, opExecutionModeId:
		return true
	}
	return false
}

// sourceInst reports whether op is one of the debug instructions that come
// before OpName: OpString, OpSourceExtension, OpSource, OpSourceContinued.
func sourceInst(op uint32) bool {
	switch op {
	case opString, opSourceExtension, opSource, opSourceContinued:
		return true
	}
	return false
}

// Encode converts a number to value bits of the constant's type, for
// vulkan.PipelineOptions.Specialization: a bool takes 0 or 1; an integer a
// whole number within its type's range; a float is rounded to its width
// (a finite number beyond the width's range is an error).
func (c SpecConstant) Encode(v float64) (uint64, error) {
	bad := func(why string) (uint64, error) {
		return 0, fmt.Errorf("%s for %s: %s", strconv.FormatFloat(v, 'g', -1, 64), c.describe(), why)
	}
	switch c.Type {
	case ScalarBool:
		if v != 0 && v != 1 {
			return bad("a bool takes 0 (false) or 1 (true)")
		}
		return uint64(v), nil
	case ScalarInt, ScalarUint:
		if v != math.Trunc(v) || math.IsInf(v, 0) {
			return bad("an integer takes a whole number")
		}
		bits := c.Bits
		if bits <= 0 || bits > 64 {
			bits = 32
		}
		lo, hi := 0.0, math.Ldexp(1, bits) // [lo, hi)
		if c.Type == ScalarInt {
			lo, hi = -math.Ldexp(1, bits-1), math.Ldexp(1, bits-1)
		}
		if v < lo || v >= hi {
			return bad(fmt.Sprintf("out of the range of %s [%s, %s]", c.TypeName(),
				strconv.FormatFloat(lo, 'f', -1, 64), strconv.FormatFloat(hi-1, 'f', -1, 64)))
		}
		mask := ^uint64(0) >> (64 - uint(bits))
		if c.Type == ScalarInt {
			return uint64(int64(v)) & mask, nil
		}
		return uint64(v) & mask, nil
	case ScalarFloat:
		switch c.Bits {
		case 64:
			return math.Float64bits(v), nil
		case 16:
			if !math.IsInf(v, 0) && !math.IsNaN(v) && math.Abs(v) >= 65520 {
				return bad("out of the range of float16 (±65504)")
			}
			return uint64(half.FromFloat32(float32(v))), nil
		}
		f := float32(v)
		if math.IsInf(float64(f), 0) && !math.IsInf(v, 0) {
			return bad("out of the range of float32")
		}
		return uint64(math.Float32bits(f)), nil
	}
	return bad("a constant of an unknown type")
}

// describe names the constant for messages: its name, or its SpecId.
func (c SpecConstant) describe() string {
	if c.Name != "" {
		return fmt.Sprintf("%s (%s)", c.Name, c.TypeName())
	}
	return fmt.Sprintf("SpecId %d (%s)", c.ID, c.TypeName())
}
