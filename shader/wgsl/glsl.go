package wgsl

import (
	"github.com/gfxcuda/gfxcuda/shader/wgsl/internal/ast"

	"math"
	"sort"
	"strconv"
	"strings"
)

// This file writes a checked program as GLSL 4.50 for Vulkan (glslang's
// dialect). The translation is type-directed: every expression is printed
// from its checked type, with helper functions for WGSL semantics GLSL
// lacks (see the package documentation).

type loopCtx struct {
	cont     []ast.Stmt // the continuing statements, inlined before each continue
	breakIf  ast.Expr
	flag     string // set when a continue inside a switch must break the loop
	switches int    // switch nesting inside this loop
}

type writer struct {
	p    *program
	res  *Result
	b    *strings.Builder
	ind  int
	line int

	exts       map[string]bool
	helperDone map[string]bool
	helpers    strings.Builder
	temps      strings.Builder // private globals used as expression temporaries
	structDone map[*structInfo]bool
	structs    strings.Builder

	names map[string]string // GLSL -> WGSL, for renamed identifiers
	taken map[string]bool   // module-scope GLSL names
	local map[string]bool   // names taken in the current function
	fn    *function
	tmp   int
	paths map[*symbol]*accessPath // let pointers and specialized pointer parameters
	loops []*loopCtx
	// funcs are the function definitions written so far, callees first;
	// specs names the specializations of functions with pointer
	// parameters outside the function and private address spaces.
	funcs []string
	specs map[string]string

	used     map[*symbol]bool
	features map[string]bool
	// zeroInit lists the workgroup variables main zeroes, and the private
	// ones too large for an initializer.
	wgZero, privZero []*symbol
}

const bigArray = 16 // arrays with more elements are zeroed by a loop

func write(p *program) (*Result, error) {
	w := &writer{
		p:          p,
		res:        &Result{EntryPoint: p.entry.sym.name, Names: map[string]string{}},
		exts:       map[string]bool{},
		helperDone: map[string]bool{},
		structDone: map[*structInfo]bool{},
		names:      map[string]string{},
		taken:      map[string]bool{},
		paths:      map[*symbol]*accessPath{},
		specs:      map[string]string{},
		features:   map[string]bool{},
	}
	w.res.Names = w.names
	w.assignNames()

	order := p.reachable // callees first
	w.used = map[*symbol]bool{}
	for _, f := range order {
		for s := range f.globals {
			w.used[s] = true
		}
	}
	w.markOverrides(order)

	var globals strings.Builder
	w.b = &globals
	w.declareGlobals()
	for _, f := range order {
		if !f.specialize {
			w.function(f, nil)
		}
	}
	var funcs strings.Builder
	for _, t := range w.funcs {
		funcs.WriteString(t)
	}
	w.b = &w.structs
	w.declareStructs()

	var out strings.Builder
	out.Grow(globals.Len() + funcs.Len() + w.helpers.Len() + w.structs.Len() + 512)
	out.WriteString("#version 450\n")
	exts := make([]string, 0, len(w.exts))
	for e := range w.exts {
		exts = append(exts, e)
	}
	sort.Strings(exts)
	for _, e := range exts {
		out.WriteString("#extension ")
		out.WriteString(e)
		out.WriteString(" : require\n")
	}
	w.workgroupLayout(&out)
	out.WriteString(w.structs.String())
	out.WriteString(w.temps.String())
	out.WriteString(globals.String())
	out.WriteString(w.helpers.String())
	out.WriteString(funcs.String())
	w.res.GLSL = out.String()
	for f := range w.features {
		w.res.Features = append(w.res.Features, f)
	}
	sort.Strings(w.res.Features)
	w.overrides()
	for i := 0; i < 3; i++ {
		w.res.WorkgroupSize[i] = uint32(p.entry.wgVal[i])
	}
	return w.res, nil
}

// ---- names --------------------------------------------------------------------------

func (w *writer) uniqueGlobal(base, wgsl string) string {
	name := base
	for i := 1; w.taken[name]; i++ {
		name = base + "_" + strconv.Itoa(i)
	}
	w.taken[name] = true
	if name != wgsl {
		w.names[name] = wgsl
	}
	return name
}

func (w *writer) assignNames() {
	// WGSL names that keep their spelling are taken first, so that renamed
	// ones cannot collide with them.
	for _, s := range w.p.globals {
		if !needsRename(s.name) {
			w.taken[s.name] = true
		}
	}
	w.taken["main"] = true
	for _, s := range w.p.globals {
		switch {
		case s.kind == symFunc && s.fn == w.p.entry:
			s.glsl = "main"
			if s.name != "main" {
				w.names["main"] = s.name
			}
		case needsRename(s.name):
			s.glsl = w.uniqueGlobal(renamed(s.name), s.name)
		default:
			s.glsl = s.name
		}
		if s.kind == symStruct && s.t != nil && s.t.kind == kStruct {
			s.t.st.glsl = s.glsl
		}
	}
	for _, st := range w.p.structs {
		for _, m := range st.members {
			m.glsl = m.name
			if needsRename(m.name) {
				m.glsl = renamed(m.name)
				w.names[m.glsl] = m.name
			}
		}
	}
	names := make([]string, 0, len(w.p.bstructs))
	for n := range w.p.bstructs {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		st := w.p.bstructs[n]
		st.glsl = w.uniqueGlobal("_w"+strings.TrimPrefix(n, "__"), n)
		for _, m := range st.members {
			m.glsl = m.name
		}
	}
}

// localName gives a function-scope symbol a GLSL name unique in the
// function, so that inlined continuing blocks see the right variables.
func (w *writer) localName(s *symbol) string {
	base := s.name
	if needsRename(base) {
		base = renamed(base)
	}
	name := base
	if w.local[name] || w.taken[name] {
		// A shadowing name: _wl_<name>_N, in the translator's namespace so
		// that Result.Names cannot rename a WGSL identifier by mistake.
		stem := "_wl_" + strings.TrimLeft(base, "_")
		name = stem
		for i := 1; w.local[name] || w.taken[name]; i++ {
			name = stem + "_" + strconv.Itoa(i)
		}
	}
	w.local[name] = true
	if name != s.name {
		w.names[name] = s.name
	}
	s.glsl = name
	return name
}

func (w *writer) newTemp(prefix string) string {
	w.tmp++
	return "_w" + prefix + strconv.Itoa(w.tmp)
}

// ---- output helpers -----------------------------------------------------------------

func (w *writer) s(s string) { w.b.WriteString(s) }

func (w *writer) nl() {
	w.b.WriteByte('\n')
}

func (w *writer) indent() {
	for i := 0; i < w.ind; i++ {
		w.b.WriteString("    ")
	}
}

// lineDirective emits #line so that the next line is WGSL line n.
func (w *writer) lineDirective(pos ast.Pos) {
	if pos.Line <= 0 || pos.Line == w.line {
		return
	}
	w.b.WriteString("#line ")
	w.b.WriteString(strconv.Itoa(pos.Line))
	w.b.WriteByte('\n')
	w.line = pos.Line
}

// startLine begins a statement at a WGSL position.
func (w *writer) startLine(pos ast.Pos) {
	w.lineDirective(pos)
	w.indent()
}

func (w *writer) endLine() {
	w.b.WriteByte('\n')
	if w.line > 0 {
		w.line++
	}
}

func (w *writer) ext(name string) { w.exts[name] = true }

// ---- types ----------------------------------------------------------------------------

func (w *writer) scalarName(t *wtype) string {
	switch t.kind {
	case kBool:
		return "bool"
	case kI32, kAbsInt:
		return "int"
	case kU32:
		return "uint"
	case kF32, kAbsFloat:
		return "float"
	case kF16:
		w.ext("GL_EXT_shader_explicit_arithmetic_types_float16")
		return "float16_t"
	case kAtomic:
		return w.scalarName(t.elem)
	}
	return "float"
}

func (w *writer) vecPrefix(s *wtype) string {
	switch s.kind {
	case kBool:
		return "b"
	case kI32, kAbsInt:
		return "i"
	case kU32:
		return "u"
	case kF16:
		w.ext("GL_EXT_shader_explicit_arithmetic_types_float16")
		return "f16"
	}
	return ""
}

// typeBase is a type's GLSL name without array dimensions.
func (w *writer) typeBase(t *wtype) string {
	switch t.kind {
	case kVec:
		return w.vecPrefix(t.elem) + "vec" + strconv.Itoa(t.n)
	case kMat:
		p := ""
		if t.elem.kind == kF16 {
			p = w.vecPrefix(t.elem)
		}
		if t.n == t.r {
			return p + "mat" + strconv.Itoa(t.n)
		}
		return p + "mat" + strconv.Itoa(t.n) + "x" + strconv.Itoa(t.r)
	case kArray:
		return w.typeBase(t.elem)
	case kStruct:
		return t.st.glsl
	case kVoid:
		return "void"
	case kSampler:
		return "sampler"
	case kSamplerCmp:
		return "samplerShadow"
	case kTexture:
		return w.vecPrefix(t.elem) + "texture" + w.dimSuffix(t)
	case kStorageTexture:
		return w.vecPrefix(t.elem) + "image" + w.dimSuffix(t)
	}
	return w.scalarName(t)
}

func (w *writer) dimSuffix(t *wtype) string {
	s := ""
	switch t.dim {
	case dim1D:
		s = "1D"
	case dim2D:
		s = "2D"
	case dim3D:
		s = "3D"
	case dimCube:
		s = "Cube"
	}
	if t.flavour == texMultisampled || t.flavour == texDepthMultisampled {
		s += "MS"
	}
	if t.arrayed {
		s += "Array"
	}
	return s
}

// typeDims is the array dimensions of a type, outermost first.
func (w *writer) typeDims(t *wtype) string {
	var b strings.Builder
	for t.kind == kArray {
		b.WriteByte('[')
		switch {
		case t.countExpr != nil:
			saved := w.b
			w.b = &b
			w.expr(t.countExpr)
			w.b = saved
		case t.count > 0:
			b.WriteString(strconv.Itoa(t.count))
		}
		b.WriteByte(']')
		t = t.elem
	}
	return b.String()
}

func (w *writer) typeName(t *wtype) string { return w.typeBase(t) + w.typeDims(t) }

// decl writes "T name[dims]".
func (w *writer) decl(t *wtype, name string) string {
	return w.typeBase(t) + " " + name + w.typeDims(t)
}

// ---- structures -----------------------------------------------------------------------

// glslAlign is the std430 alignment GLSL gives the translated type.
func glslAlign(t *wtype) int {
	switch t.kind {
	case kStruct:
		a := 1
		for _, m := range t.st.members {
			a = max(a, glslAlign(m.t))
		}
		for _, gap := range t.st.padLayout() {
			for _, is16 := range gap {
				if is16 {
					a = max(a, 2)
				} else {
					a = max(a, 4)
				}
			}
		}
		return a
	case kArray:
		return glslAlign(t.elem)
	}
	return alignOf(t)
}

func (w *writer) declareStructs() {
	var order []*structInfo
	seen := map[*structInfo]bool{}
	var visit func(st *structInfo)
	visit = func(st *structInfo) {
		if seen[st] {
			return
		}
		seen[st] = true
		for _, d := range st.deps {
			visit(d)
		}
		order = append(order, st)
	}
	for _, st := range w.p.structs {
		visit(st)
	}
	names := make([]string, 0, len(w.p.bstructs))
	for n := range w.p.bstructs {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if !strings.Contains(n, "abstract") {
			order = append(order, w.p.bstructs[n])
		}
	}
	for _, st := range order {
		if st.runtime || !st.layoutOK {
			continue
		}
		w.structDecl(st)
	}
}

func (w *writer) structDecl(st *structInfo) {
	w.s("struct ")
	w.s(st.glsl)
	w.s(" {\n")
	pads := st.padLayout()
	np := 0
	emitPads := func(i int) {
		for _, is16 := range pads[i] {
			if is16 {
				w.ext("GL_EXT_shader_explicit_arithmetic_types_float16")
				w.s("    float16_t _wpad" + strconv.Itoa(np) + ";\n")
			} else {
				w.s("    uint _wpad" + strconv.Itoa(np) + ";\n")
			}
			np++
		}
	}
	for i, m := range st.members {
		emitPads(i)
		w.s("    ")
		w.s(w.decl(m.t, m.glsl))
		w.s(";\n")
	}
	emitPads(len(st.members))
	w.s("};\n")
}

// padLayout returns, for each gap (before member i, and after the last
// member at index len(members)), the padding members the GLSL declaration
// needs so that its std430 (and, for valid uniform types, std140) layout
// equals WGSL's: true for a 2-byte float16_t, false for a 4-byte uint.
func (st *structInfo) padLayout() [][]bool {
	if st.pads != nil {
		return st.pads
	}
	pads := make([][]bool, len(st.members)+1)
	off, a := 0, 1
	padTo := func(i, to int) {
		for off < to {
			if off%4 == 0 && to-off >= 4 {
				pads[i] = append(pads[i], false)
				off += 4
			} else {
				pads[i] = append(pads[i], true)
				off += 2
			}
		}
	}
	for i, m := range st.members {
		ga := glslAlign(m.t)
		a = max(a, ga)
		if roundUp(ga, off) != m.offset {
			padTo(i, m.offset)
		}
		off = m.offset + sizeOf(m.t)
	}
	if !st.builtin && !st.runtime && roundUp(a, off) != st.size {
		padTo(len(st.members), st.size)
	}
	st.pads = pads
	return pads
}

// padZeros writes the zero values of the padding before member i, each
// followed by ", ".
func (w *writer) padZeros(st *structInfo, i int) {
	for _, is16 := range st.padLayout()[i] {
		if is16 {
			w.s("0.0hf, ")
		} else {
			w.s("0u, ")
		}
	}
}

// ---- globals ------------------------------------------------------------------------

func (w *writer) declareGlobals() {
	// Overrides first: variables' initializers and array sizes may use
	// overrides declared after them.
	for _, s := range w.p.globals {
		if w.used[s] && s.kind == symOverride {
			w.overrideDecl(s)
		}
	}
	for _, s := range w.p.globals {
		if w.used[s] && s.kind == symVar {
			w.globalVarDecl(s)
		}
	}
}

func (w *writer) overrideDecl(s *symbol) {
	if s.ovExpr != nil || s.t.kind == kInvalid {
		return // inlined where used
	}
	w.lineDirective(s.pos)
	w.s("layout(constant_id = ")
	w.s(strconv.FormatInt(s.ovID, 10))
	w.s(") const ")
	w.s(w.typeName(s.t))
	w.s(" ")
	w.s(s.glsl)
	w.s(" = ")
	v := s.val
	if v == nil {
		// No default: the pipeline must set it. 1 keeps array sizes valid.
		v = zeroValue(s.t)
		if s.t.isIntScalar() {
			v = intValue(s.t, 1)
		}
	}
	w.value(v, s.t)
	w.s(";")
	w.endLine()
}

// blockKind classifies a buffer variable.
func isBuffer(s *symbol) bool {
	return s.kind == symVar && s.global && (s.space == asUniform || s.space == asStorage)
}

// flatBlock: a buffer whose store type is a structure, whose members become
// the block's members.
func flatBlock(s *symbol) bool {
	return isBuffer(s) && s.t.kind == kStruct
}

// needsStd430Uniform reports whether a uniform buffer's WGSL layout cannot
// be expressed in std140: a matrix whose column stride is not 16 (matCx2
// of f32, f16 matrices), or padding after a nested structure or array
// member (std140 rounds their sizes up to 16, which would shift it).
func needsStd430Uniform(t *wtype) bool {
	switch t.kind {
	case kMat:
		return matStride(t)%16 != 0
	case kArray:
		return needsStd430Uniform(t.elem)
	case kStruct:
		return structNeedsStd430(t.st, false)
	}
	return false
}

func structNeedsStd430(st *structInfo, root bool) bool {
	pads := st.padLayout()
	for i, m := range st.members {
		if needsStd430Uniform(m.t) {
			return true
		}
		if !root && len(pads[i+1]) > 0 && (m.t.kind == kStruct || m.t.kind == kArray) {
			return true
		}
	}
	return false
}

func (w *writer) globalVarDecl(s *symbol) {
	t := s.t
	if t.kind == kInvalid {
		return
	}
	w.lineDirective(s.pos)
	switch s.space {
	case asUniform, asStorage:
		if t.hasF16() {
			w.ext("GL_EXT_shader_16bit_storage")
		}
		layout := "std430"
		if s.space == asUniform {
			layout = "std140"
			if (t.kind == kStruct && structNeedsStd430(t.st, true)) || (t.kind != kStruct && needsStd430Uniform(t)) {
				layout = "std430"
				w.ext("GL_EXT_scalar_block_layout")
				w.features["uniformBufferStandardLayout"] = true
			}
		}
		w.s("layout(" + layout + ", set = " + strconv.FormatInt(s.group, 10) + ", binding = " + strconv.FormatInt(s.binding, 10) + ") ")
		switch {
		case s.space == asUniform:
			w.s("uniform ")
		case s.access == accRead:
			w.s("readonly buffer ")
		default:
			w.s("buffer ")
		}
		block := w.uniqueGlobal("_wB_"+strings.TrimLeft(s.glsl, "_"), "")
		if t.kind == kStruct {
			w.names[block] = t.st.name
		} else {
			w.names[block] = s.name
		}
		w.s(block)
		w.s(" {\n")
		if t.kind == kStruct {
			for _, m := range t.st.members {
				w.s("    layout(offset = " + strconv.Itoa(m.offset) + ") ")
				w.s(w.decl(m.t, m.glsl))
				w.s(";\n")
			}
		} else {
			w.s("    ")
			w.s(w.decl(t, s.glsl))
			w.s(";\n")
		}
		w.s("} ")
		w.s(s.glsl)
		w.s(";")
		w.endLine()
	case asHandle:
		w.s("layout(set = " + strconv.FormatInt(s.group, 10) + ", binding = " + strconv.FormatInt(s.binding, 10))
		if t.kind == kStorageTexture {
			w.s(", " + texelFormats[t.format].glsl)
		}
		w.s(") uniform ")
		if t.kind == kStorageTexture {
			switch t.access {
			case accRead:
				w.s("readonly ")
			case accWrite:
				w.s("writeonly ")
			}
		}
		w.s(w.typeName(t))
		w.s(" ")
		w.s(s.glsl)
		w.s(";")
		w.endLine()
	case asWorkgroup:
		w.s("shared ")
		w.s(w.decl(t, s.glsl))
		w.s(";")
		w.endLine()
		w.wgZero = append(w.wgZero, s)
	case asPrivate:
		w.s(w.decl(t, s.glsl))
		d := s.decl.(*ast.VarDecl)
		switch {
		case d.Init != nil:
			w.s(" = ")
			w.expr(d.Init)
		case elemCount(t) > bigArray:
			w.privZero = append(w.privZero, s)
		default:
			w.s(" = ")
			w.value(zeroValue(t), t)
		}
		w.s(";")
		w.endLine()
	}
}

// elemCount is the number of scalars in a type, for deciding how to zero it.
func elemCount(t *wtype) int {
	const limit = 1 << 40 // saturate: nested arrays must not overflow
	switch t.kind {
	case kArray:
		n := t.count
		if t.countExpr != nil || n <= 0 {
			n = 1 << 20
		}
		e := max(1, elemCount(t.elem))
		if e > limit/n {
			return limit
		}
		return n * e
	case kStruct:
		n := 0
		for _, m := range t.st.members {
			n = min(limit, n+elemCount(m.t))
		}
		return n
	case kVec:
		return t.n
	case kMat:
		return t.n * t.r
	}
	return 1
}

func (w *writer) workgroupLayout(out *strings.Builder) {
	e := w.p.entry
	out.WriteString("layout(")
	axes := [3]string{"x", "y", "z"}
	for i := 0; i < 3; i++ {
		if i > 0 {
			out.WriteString(", ")
		}
		val := e.wgVal[i]
		if x := e.wgSize[i]; x != nil {
			if s := overrideIdent(w.p, x); s != nil && s.ovExpr == nil {
				out.WriteString("local_size_" + axes[i] + "_id = " + strconv.FormatInt(s.ovID, 10) + ", ")
			}
		}
		out.WriteString("local_size_" + axes[i] + " = " + strconv.FormatInt(val, 10))
	}
	out.WriteString(") in;\n")
}

// overrideIdent returns the override an expression names directly.
func overrideIdent(p *program, e ast.Expr) *symbol {
	for {
		switch x := e.(type) {
		case *ast.ParenExpr:
			e = x.X
			continue
		case *ast.Ident:
			if ei := p.info[x]; ei != nil && ei.sym != nil && ei.sym.kind == symOverride {
				return ei.sym
			}
		}
		return nil
	}
}

// markOverrides adds to w.used the overrides the entry point statically
// uses beyond those its functions name: through @workgroup_size, the
// array sizes of the variables it uses (and of its functions' parameter
// types), the initializers of those variables and of the overrides used.
// Only these are declared and reported: WebGPU requires values for the
// overrides the entry point uses, and no others.
func (w *writer) markOverrides(order []*function) {
	var work []*symbol
	mark := func(s *symbol) {
		if s != nil && !w.used[s] {
			w.used[s] = true
			work = append(work, s)
		}
	}
	var expr func(e ast.Expr)
	expr = func(e ast.Expr) {
		for e != nil {
			switch x := e.(type) {
			case *ast.Ident:
				if ei := w.p.info[x]; ei != nil && ei.sym != nil && ei.sym.kind == symOverride {
					mark(ei.sym)
				}
				for _, a := range x.Args {
					expr(a)
				}
				return
			case *ast.CallExpr:
				expr(x.Callee)
				for _, a := range x.Args {
					expr(a)
				}
				return
			case *ast.ParenExpr:
				e = x.X
			case *ast.MemberExpr:
				e = x.X
			case *ast.IndexExpr:
				expr(x.Index)
				e = x.X
			case *ast.UnaryExpr:
				e = x.X
			case *ast.BinaryExpr:
				expr(x.Y)
				e = x.X
			default:
				return
			}
		}
	}
	seenSt := map[*structInfo]bool{}
	var typ func(t *wtype)
	typ = func(t *wtype) {
		for t != nil {
			switch t.kind {
			case kArray:
				expr(t.countExpr)
				t = t.elem
				continue
			case kPtr, kRef:
				t = t.elem
				continue
			case kStruct:
				if t.st != nil && !seenSt[t.st] {
					seenSt[t.st] = true
					for _, m := range t.st.members {
						typ(m.t)
					}
				}
			}
			return
		}
	}
	for s := range w.used {
		work = append(work, s)
	}
	for _, x := range w.p.entry.wgSize {
		expr(x)
	}
	for _, f := range order {
		for _, prm := range f.params {
			typ(prm.t)
		}
	}
	for len(work) > 0 {
		s := work[len(work)-1]
		work = work[:len(work)-1]
		switch s.kind {
		case symVar:
			typ(s.t)
			if d, ok := s.decl.(*ast.VarDecl); ok {
				expr(d.Init)
			}
		case symOverride:
			if d, ok := s.decl.(*ast.VarDecl); ok {
				expr(d.Init)
			}
		}
	}
}

func (w *writer) overrides() {
	for _, s := range w.p.globals {
		if s.kind != symOverride || !w.used[s] || s.t == nil || s.t.kind == kInvalid {
			continue
		}
		o := Override{Name: s.name, ID: uint32(s.ovID), Type: s.t.String(), HasDefault: !s.ovNoInit, Specializable: s.ovExpr == nil}
		if s.val != nil {
			switch {
			case s.t.kind == kBool:
				o.Default = float64(s.val.i)
			case s.t.isIntScalar():
				o.Default = float64(s.val.i)
			default:
				o.Default = s.val.f
			}
		}
		w.res.Overrides = append(w.res.Overrides, o)
	}
}

// ---- functions ------------------------------------------------------------------------

// specialization is a copy of a function whose pointer parameters into
// buffers or workgroup memory are replaced by the memory views a call
// passes (GLSL has no pointers); dynamic indices of those views are extra
// parameters.
type specialization struct {
	name  string
	paths map[*symbol]*accessPath
	extra []string // declarations of the extra parameters
}

// isSpecParam: a pointer parameter a GLSL inout parameter cannot express.
func isSpecParam(p *symbol) bool {
	return p.t.kind == kPtr && p.t.space != asFunction && p.t.space != asPrivate
}

// function writes a function definition (or a specialization of one) and
// appends it to w.funcs; functions it needs first are appended before it.
func (w *writer) function(f *function, spec *specialization) {
	// Save the state of the function being written, if any.
	savedB, savedInd, savedLine, savedFn, savedLocal, savedTmp, savedLoops := w.b, w.ind, w.line, w.fn, w.local, w.tmp, w.loops
	defer func() {
		w.b, w.ind, w.line, w.fn, w.local, w.tmp, w.loops = savedB, savedInd, savedLine, savedFn, savedLocal, savedTmp, savedLoops
	}()
	var b strings.Builder
	w.b, w.ind, w.line, w.fn, w.local, w.tmp, w.loops = &b, 0, 0, f, map[string]bool{}, 0, nil
	d := f.decl
	w.lineDirective(d.Pos)
	entry := f == w.p.entry
	if entry {
		w.s("void main()")
	} else {
		if f.ret == nil {
			w.s("void")
		} else {
			w.s(w.typeName(f.ret))
		}
		w.s(" ")
		if spec != nil {
			w.s(spec.name)
		} else {
			w.s(f.sym.glsl)
		}
		w.s("(")
		n := 0
		for _, p := range f.params {
			if spec != nil && isSpecParam(p) {
				w.paths[p] = spec.paths[p]
				continue
			}
			if n > 0 {
				w.s(", ")
			}
			n++
			name := w.localName(p)
			switch {
			case p.t.kind == kPtr:
				w.s("inout ")
				w.s(w.decl(p.t.elem, name))
			case p.t.kind == kStorageTexture:
				switch p.t.access {
				case accRead:
					w.s("readonly ")
				case accWrite:
					w.s("writeonly ")
				}
				w.s(w.decl(p.t, name))
			default:
				w.s(w.decl(p.t, name))
			}
		}
		if spec != nil {
			for _, x := range spec.extra {
				if n > 0 {
					w.s(", ")
				}
				n++
				w.s(x)
			}
		}
		w.s(")")
	}
	w.s(" {")
	w.endLine()
	w.ind++
	if entry {
		w.entryPrologue(f)
	}
	w.stmts(d.Body.Stmts)
	w.ind--
	w.s("}")
	w.nl()
	w.funcs = append(w.funcs, b.String())
}

// userCall writes a call of a user-defined function, specializing it for
// pointer arguments into buffers or workgroup memory.
func (w *writer) userCall(x *ast.CallExpr, f *function) {
	if !f.specialize {
		w.s(f.sym.glsl + "(")
		w.args(x.Args, 0)
		w.s(")")
		return
	}
	var key strings.Builder
	key.WriteString(f.sym.glsl)
	paths := map[*symbol]*accessPath{}
	var dynArgs, extra []string
	for i, p := range f.params {
		if !isSpecParam(p) || i >= len(x.Args) {
			continue
		}
		cp := w.viewPath(x.Args[i], false)
		tmpl := &accessPath{root: cp.root, rootSym: cp.rootSym}
		for _, sg := range cp.segs {
			if sg.dyn {
				name := "_wp" + strconv.Itoa(len(dynArgs))
				dynArgs = append(dynArgs, sg.text)
				extra = append(extra, sg.typ+" "+name)
				sg = pathSeg{text: name, dyn: true, typ: sg.typ}
			}
			tmpl.segs = append(tmpl.segs, sg)
		}
		paths[p] = tmpl
		key.WriteString("|" + strconv.Itoa(i) + ":" + tmpl.String())
	}
	for _, e := range extra {
		key.WriteString("|" + e)
	}
	name, ok := w.specs[key.String()]
	if !ok {
		name = w.uniqueGlobal("_ws_"+strings.TrimLeft(f.sym.glsl, "_"), f.sym.name)
		w.specs[key.String()] = name
		w.function(f, &specialization{name: name, paths: paths, extra: extra})
	}
	w.s(name + "(")
	n := 0
	for i, a := range x.Args {
		if i < len(f.params) && isSpecParam(f.params[i]) {
			continue
		}
		if n > 0 {
			w.s(", ")
		}
		n++
		w.arg(a)
	}
	for _, a := range dynArgs {
		if n > 0 {
			w.s(", ")
		}
		n++
		w.s(a)
	}
	w.s(")")
}

var builtinGL = map[string]string{
	"local_invocation_id":    "gl_LocalInvocationID",
	"local_invocation_index": "gl_LocalInvocationIndex",
	"global_invocation_id":   "gl_GlobalInvocationID",
	"workgroup_id":           "gl_WorkGroupID",
	"num_workgroups":         "gl_NumWorkGroups",
	"subgroup_invocation_id": "gl_SubgroupInvocationID",
	"subgroup_size":          "gl_SubgroupSize",
}

func (w *writer) builtinValue(name string) string {
	if name == "subgroup_invocation_id" || name == "subgroup_size" {
		w.ext("GL_KHR_shader_subgroup_basic")
	}
	return builtinGL[name]
}

func (w *writer) entryPrologue(f *function) {
	for _, p := range f.params {
		name := w.localName(p)
		w.indent()
		if p.t.kind == kStruct {
			w.s(w.typeName(p.t) + " " + name + " = " + p.t.st.glsl + "(")
			for i, m := range p.t.st.members {
				if i > 0 {
					w.s(", ")
				}
				w.s(w.builtinValue(m.builtin))
			}
			w.s(");")
		} else {
			w.s(w.typeName(p.t) + " " + name + " = " + w.builtinValue(p.builtin) + ";")
		}
		w.endLine()
	}
	// Zero the workgroup variables the entry point uses (WGSL zero-initializes
	// them), spreading the work over the workgroup, then synchronize.
	var wg []*symbol
	for _, s := range w.wgZero {
		if w.used[s] {
			wg = append(wg, s)
		}
	}
	if len(wg) > 0 {
		for _, s := range wg {
			w.zeroWorkgroup(s)
		}
		w.indent()
		w.s("barrier();")
		w.endLine()
	}
	for _, s := range w.privZero {
		w.zeroInto(s.glsl, s.t, "")
	}
}

func (w *writer) zeroWorkgroup(s *symbol) {
	t := s.t
	if t.kind == kArray && (elemCount(t) > bigArray || t.countExpr != nil) {
		i := w.newTemp("i")
		w.indent()
		w.s("for (uint " + i + " = gl_LocalInvocationIndex; " + i + " < uint(")
		if t.countExpr != nil {
			w.expr(t.countExpr)
		} else {
			w.s(strconv.Itoa(t.count))
		}
		w.s("); " + i + " += gl_WorkGroupSize.x * gl_WorkGroupSize.y * gl_WorkGroupSize.z) {")
		w.endLine()
		w.ind++
		w.zeroInto(s.glsl+"["+i+"]", t.elem, "")
		w.ind--
		w.indent()
		w.s("}")
		w.endLine()
		return
	}
	w.indent()
	w.s("if (gl_LocalInvocationIndex == 0u) {")
	w.endLine()
	w.ind++
	w.zeroInto(s.glsl, t, "")
	w.ind--
	w.indent()
	w.s("}")
	w.endLine()
}

// zeroInto writes statements storing the zero value of t into target,
// with loops for large arrays.
func (w *writer) zeroInto(target string, t *wtype, _ string) {
	if t.kind == kArray && elemCount(t) > bigArray {
		i := w.newTemp("i")
		w.indent()
		w.s("for (int " + i + " = 0; " + i + " < " + strconv.Itoa(t.count) + "; " + i + "++) {")
		w.endLine()
		w.ind++
		w.zeroInto(target+"["+i+"]", t.elem, "")
		w.ind--
		w.indent()
		w.s("}")
		w.endLine()
		return
	}
	if t.kind == kStruct && elemCount(t) > bigArray {
		for _, m := range t.st.members {
			w.zeroInto(target+"."+m.glsl, m.t, "")
		}
		return
	}
	w.indent()
	w.s(target + " = ")
	w.value(zeroValue(t), t)
	w.s(";")
	w.endLine()
}

// ---- statements --------------------------------------------------------------------------

func (w *writer) stmts(list []ast.Stmt) {
	for _, s := range list {
		w.stmt(s)
	}
}

func (w *writer) block(b *ast.BlockStmt) {
	w.s("{")
	w.endLine()
	w.ind++
	if b != nil {
		w.stmts(b.Stmts)
	}
	w.ind--
	w.indent()
	w.s("}")
}

func (w *writer) stmt(s ast.Stmt) {
	switch s := s.(type) {
	case *ast.BlockStmt:
		w.startLine(s.Pos)
		w.block(s)
		w.endLine()
	case *ast.DeclStmt:
		w.localDecl(s.Decl)
	case *ast.AssignStmt:
		w.assign(s)
	case *ast.IncDecStmt:
		w.startLine(s.Pos)
		w.base(s.LHS)
		w.s(s.Op)
		w.s(";")
		w.endLine()
	case *ast.CallStmt:
		w.startLine(s.Call.Pos)
		w.expr(s.Call)
		w.s(";")
		w.endLine()
	case *ast.IfStmt:
		w.startLine(s.Pos)
		w.ifStmt(s)
		w.endLine()
	case *ast.SwitchStmt:
		w.switchStmt(s)
	case *ast.LoopStmt:
		var cont []ast.Stmt
		if s.Continuing != nil {
			cont = s.Continuing.Stmts
		}
		w.loop(s.Pos, nil, s.Body.Stmts, cont, s.BreakIf)
	case *ast.ForStmt:
		w.forStmt(s)
	case *ast.WhileStmt:
		w.startLine(s.Pos)
		w.s("while (")
		w.expr(s.Cond)
		w.s(") ")
		w.loops = append(w.loops, &loopCtx{})
		w.block(s.Body)
		w.loops = w.loops[:len(w.loops)-1]
		w.endLine()
	case *ast.BranchStmt:
		switch s.Kind {
		case "break":
			w.startLine(s.Pos)
			w.s("break;")
			w.endLine()
		case "continue":
			w.continueStmt(s.Pos)
		}
	case *ast.ReturnStmt:
		w.startLine(s.Pos)
		w.s("return")
		if s.Value != nil {
			w.s(" ")
			w.expr(s.Value)
		}
		w.s(";")
		w.endLine()
	case *ast.ConstAssertStmt:
	}
}

func (w *writer) ifStmt(s *ast.IfStmt) {
	w.s("if (")
	w.expr(s.Cond)
	w.s(") ")
	w.block(s.Body)
	switch e := s.Else.(type) {
	case *ast.IfStmt:
		w.s(" else ")
		w.ifStmt(e)
	case *ast.BlockStmt:
		w.s(" else ")
		w.block(e)
	}
}

func (w *writer) localDecl(d *ast.VarDecl) {
	s := w.p.declSym[d]
	if s == nil || s.t == nil || s.t.kind == kInvalid {
		return
	}
	switch s.kind {
	case symConst:
		return // uses print the value
	case symLet:
		if s.t.kind == kPtr {
			w.paths[s] = w.viewPath(d.Init, true)
			return
		}
		if isHandleType(s.t) {
			w.paths[s] = &accessPath{root: w.exprString(d.Init)}
			return
		}
		name := w.localName(s)
		w.startLine(d.Pos)
		w.s(w.decl(s.t, name))
		w.s(" = ")
		w.expr(d.Init)
		w.s(";")
		w.endLine()
	case symVar:
		name := w.localName(s)
		w.startLine(d.Pos)
		w.s(w.decl(s.t, name))
		switch {
		case d.Init != nil:
			w.s(" = ")
			w.expr(d.Init)
			w.s(";")
			w.endLine()
		case elemCount(s.t) > bigArray:
			w.s(";")
			w.endLine()
			w.zeroInto(name, s.t, "")
		default:
			w.s(" = ")
			w.value(zeroValue(s.t), s.t)
			w.s(";")
			w.endLine()
		}
	}
}

// exprString renders an expression to a string.
func (w *writer) exprString(e ast.Expr) string {
	var b strings.Builder
	saved := w.b
	w.b = &b
	w.expr(e)
	w.b = saved
	return b.String()
}

// accessPath is a memory view: a root variable and member and index
// steps, for let pointers and specialized pointer parameters.
type accessPath struct {
	root    string
	rootSym *symbol // the root variable, when it is a module-scope one
	segs    []pathSeg
}

type pathSeg struct {
	text string // ".m" or "[3]"; for a dynamic index, the index expression
	dyn  bool
	typ  string // a dynamic index's GLSL type
}

func (p *accessPath) String() string {
	if len(p.segs) == 0 {
		return p.root
	}
	var b strings.Builder
	b.WriteString(p.root)
	for _, sg := range p.segs {
		if sg.dyn {
			b.WriteString("[" + sg.text + "]")
		} else {
			b.WriteString(sg.text)
		}
	}
	return b.String()
}

// viewPath returns the memory view of a reference or pointer expression.
// With hoist, non-constant indices are first stored in temporaries
// (written as statements here), so that later uses see the location
// computed now; without, a dynamic index keeps its expression.
func (w *writer) viewPath(e ast.Expr, hoist bool) *accessPath {
	switch x := e.(type) {
	case *ast.ParenExpr:
		return w.viewPath(x.X, hoist)
	case *ast.UnaryExpr:
		if x.Op == "&" || x.Op == "*" {
			return w.viewPath(x.X, hoist)
		}
	case *ast.MemberExpr:
		ei := w.p.info[x]
		p := w.viewPath(x.X, hoist)
		if ei.mem >= 0 {
			bt, _, _, _ := accessBase(w.p.info[x.X].t)
			return p.with(pathSeg{text: "." + bt.st.members[ei.mem].glsl})
		}
		return p.with(pathSeg{text: "." + x.Member})
	case *ast.IndexExpr:
		p := w.viewPath(x.X, hoist)
		ii := w.p.info[x.Index]
		if ii.stage == stConst && ii.val != nil {
			return p.with(pathSeg{text: "[" + w.valueString(ii.val, ii.t.unref()) + "]"})
		}
		typ := w.typeName(ii.t.unref())
		if !hoist {
			return p.with(pathSeg{text: w.exprString(x.Index), dyn: true, typ: typ})
		}
		t := w.newTemp("i")
		w.indent()
		w.s(typ + " " + t + " = ")
		w.expr(x.Index)
		w.s(";")
		w.endLine()
		return p.with(pathSeg{text: t, dyn: true, typ: typ})
	case *ast.Ident:
		ei := w.p.info[x]
		if ei != nil && ei.sym != nil {
			s := ei.sym
			if p, ok := w.paths[s]; ok {
				cp := *p
				cp.segs = append([]pathSeg(nil), p.segs...)
				return &cp
			}
			if s.kind == symVar && s.global {
				root := s.glsl
				if isBuffer(s) && !flatBlock(s) {
					root += "." + s.glsl
				}
				return &accessPath{root: root, rootSym: s}
			}
			return &accessPath{root: s.glsl}
		}
	}
	return &accessPath{root: w.exprString(e)}
}

func (p *accessPath) with(sg pathSeg) *accessPath {
	p.segs = append(p.segs, sg)
	return p
}

// stableBase is the text of viewPath with hoisted indices.
func (w *writer) stableBase(e ast.Expr) string { return w.viewPath(e, true).String() }

func (w *writer) assign(s *ast.AssignStmt) {
	if s.LHS == nil {
		// Phony assignment: evaluate for side effects only.
		if ri := w.p.info[s.RHS]; ri != nil && ri.stage == stConst {
			return
		}
		if hasCall(s.RHS) {
			w.startLine(s.Pos)
			w.expr(s.RHS)
			w.s(";")
			w.endLine()
			return
		}
		// `_ = &buf;` makes a resource part of the interface: reference it.
		if root := w.resourceRoot(s.RHS); root != nil {
			w.startLine(s.Pos)
			w.keepAlive(root)
			w.endLine()
		}
		return
	}
	if root := w.wholeBlock(s.LHS); root != nil {
		// Storing a whole structure into a buffer whose members are the
		// block's: member by member from a temporary.
		st := root.t.st
		t := w.newTemp("s")
		w.startLine(s.Pos)
		w.s("{ " + st.glsl + " " + t + " = ")
		w.expr(s.RHS)
		w.s(";")
		for _, m := range st.members {
			w.s(" " + root.glsl + "." + m.glsl + " = " + t + "." + m.glsl + ";")
		}
		w.s(" }")
		w.endLine()
		return
	}
	if s.Op == "=" || s.Op == "" {
		w.startLine(s.Pos)
		w.base(s.LHS)
		w.s(" = ")
		w.expr(s.RHS)
		w.s(";")
		w.endLine()
		return
	}
	op := strings.TrimSuffix(s.Op, "=")
	lt := w.p.info[s.LHS].t.unref()
	rt := w.p.info[s.RHS].t.unref()
	if !w.needsPolyfill(op, lt, rt, s.RHS) {
		w.startLine(s.Pos)
		w.base(s.LHS)
		w.s(" " + s.Op + " ")
		w.expr(s.RHS)
		w.s(";")
		w.endLine()
		return
	}
	w.startLine(s.Pos)
	w.s("{")
	w.endLine()
	w.ind++
	lhs := w.stableBase(s.LHS)
	w.indent()
	w.s(lhs + " = ")
	w.binaryOp(op, lt, rt, func() { w.s(lhs) }, func() { w.expr(s.RHS) }, s.RHS)
	w.s(";")
	w.endLine()
	w.ind--
	w.indent()
	w.s("}")
	w.endLine()
}

// resourceRoot returns the resource variable an expression is rooted at.
func (w *writer) resourceRoot(e ast.Expr) *symbol {
	for {
		switch x := e.(type) {
		case *ast.ParenExpr:
			e = x.X
		case *ast.UnaryExpr:
			e = x.X
		case *ast.MemberExpr:
			e = x.X
		case *ast.IndexExpr:
			e = x.X
		case *ast.Ident:
			ei := w.p.info[x]
			if ei == nil || ei.sym == nil {
				return nil
			}
			s := ei.sym
			if s.kind == symLet && s.ptrInit != nil {
				e = s.ptrInit
				continue
			}
			if p, ok := w.paths[s]; ok && p.rootSym != nil {
				s = p.rootSym
			}
			if s.kind == symVar && s.global && (s.space == asUniform || s.space == asStorage || s.space == asHandle) {
				return s
			}
			return nil
		default:
			return nil
		}
	}
}

// keepAlive writes a statement that references a resource without
// observable effect, so that the compiler keeps it in the interface.
func (w *writer) keepAlive(s *symbol) {
	t := s.t
	switch t.kind {
	case kSampler, kSamplerCmp:
		tn := w.typeName(t)
		w.helper("_wkeep"+tn, "void _wkeep("+tn+" s) {}\n")
		w.s("_wkeep(" + s.glsl + ");")
		return
	case kTexture:
		w.ext("GL_EXT_samplerless_texture_functions")
		tmp := w.newGlobalTemp("keep", "int")
		lod := ", 0"
		if t.flavour == texMultisampled || t.flavour == texDepthMultisampled {
			lod = ""
		}
		sz := "textureSize(" + s.glsl + lod + ")"
		if t.dim != dim1D || t.arrayed {
			sz += ".x"
		}
		w.s(tmp + " = " + sz + ";")
		return
	case kStorageTexture:
		tmp := w.newGlobalTemp("keep", "int")
		sz := "imageSize(" + s.glsl + ")"
		if t.dim != dim1D || t.arrayed {
			sz += ".x"
		}
		w.s(tmp + " = " + sz + ";")
		return
	}
	path := s.glsl
	if !flatBlock(s) {
		path += "." + s.glsl
	} else {
		path += "." + t.st.members[0].glsl
		t = t.st.members[0].t
	}
	for {
		switch t.kind {
		case kArray:
			if t.count == 0 && t.countExpr == nil {
				tmp := w.newGlobalTemp("keep", "uint")
				w.s(tmp + " = uint(" + path + ".length());")
				return
			}
			path += "[0]"
			t = t.elem
			continue
		case kStruct:
			path += "." + t.st.members[0].glsl
			t = t.st.members[0].t
			continue
		case kVec, kMat:
			path += "[0]"
			if t.kind == kMat {
				t = vecOf(t.elem, t.r)
			} else {
				t = t.elem
			}
			continue
		case kAtomic:
			w.ext("GL_KHR_memory_scope_semantics")
			tmp := w.newGlobalTemp("keep", w.typeName(t.elem))
			w.s(tmp + " = atomicLoad(" + path + ", gl_ScopeDevice, gl_StorageSemanticsBuffer, gl_SemanticsRelaxed);")
			return
		}
		tmp := w.newGlobalTemp("keep", w.typeName(t))
		w.s(tmp + " = " + path + ";")
		return
	}
}

// wholeBlock returns the buffer variable a reference expression names as a
// whole when its members are the block's (so that it has no GLSL value).
func (w *writer) wholeBlock(e ast.Expr) *symbol {
	for {
		switch x := e.(type) {
		case *ast.ParenExpr:
			e = x.X
			continue
		case *ast.UnaryExpr:
			if x.Op == "*" || x.Op == "&" {
				e = x.X
				continue
			}
		case *ast.Ident:
			ei := w.p.info[x]
			if ei == nil || ei.sym == nil {
				return nil
			}
			if flatBlock(ei.sym) {
				return ei.sym
			}
			if ei.sym.kind == symLet && ei.sym.ptrInit != nil {
				e = ei.sym.ptrInit
				continue
			}
			if p, ok := w.paths[ei.sym]; ok && len(p.segs) == 0 && p.rootSym != nil && flatBlock(p.rootSym) {
				return p.rootSym
			}
		}
		return nil
	}
}

func hasCall(e ast.Expr) bool {
	switch x := e.(type) {
	case *ast.CallExpr:
		return true
	case *ast.ParenExpr:
		return hasCall(x.X)
	case *ast.UnaryExpr:
		return hasCall(x.X)
	case *ast.BinaryExpr:
		return hasCall(x.X) || hasCall(x.Y)
	case *ast.MemberExpr:
		return hasCall(x.X)
	case *ast.IndexExpr:
		return hasCall(x.X) || hasCall(x.Index)
	}
	return false
}

func (w *writer) switchStmt(s *ast.SwitchStmt) {
	w.startLine(s.Pos)
	w.s("switch (")
	w.expr(s.Tag)
	w.s(") {")
	w.endLine()
	for _, l := range w.loops {
		l.switches++
	}
	tt := w.p.info[s.Tag].t.unref()
	for _, cl := range s.Clauses {
		w.lineDirective(cl.Pos)
		w.indent()
		for i, sel := range cl.Selectors {
			if i > 0 {
				w.s(" ")
			}
			if sel == nil {
				w.s("default:")
				continue
			}
			w.s("case ")
			si := w.p.info[sel]
			if si != nil && si.val != nil {
				w.value(si.val, tt)
			} else {
				w.expr(sel)
			}
			w.s(":")
		}
		if cl.Default {
			if len(cl.Selectors) > 0 {
				w.s(" ")
			}
			w.s("default:")
		}
		w.s(" {")
		w.endLine()
		w.ind++
		w.stmts(cl.Body.Stmts)
		w.indent()
		w.s("break;")
		w.endLine()
		w.ind--
		w.indent()
		w.s("}")
		w.endLine()
	}
	for _, l := range w.loops {
		l.switches--
	}
	w.indent()
	w.s("}")
	w.endLine()
	// A continue inside the switch whose break-if fired set the loop's
	// flag and left the switch; leave the next level too.
	if n := len(w.loops); n > 0 && w.loops[n-1].flag != "" && w.containsContinue(s) {
		w.indent()
		w.s("if (" + w.loops[n-1].flag + ") break;")
		w.endLine()
	}
}

// containsContinue reports whether a statement contains a continue that
// belongs to the enclosing loop.
func (w *writer) containsContinue(s ast.Stmt) bool {
	found := false
	var walk func(s ast.Stmt)
	walk = func(s ast.Stmt) {
		if found || s == nil {
			return
		}
		switch s := s.(type) {
		case *ast.BranchStmt:
			if s.Kind == "continue" {
				found = true
			}
		case *ast.BlockStmt:
			if s != nil {
				for _, x := range s.Stmts {
					walk(x)
				}
			}
		case *ast.IfStmt:
			walk(s.Body)
			walk(s.Else)
		case *ast.SwitchStmt:
			for _, cl := range s.Clauses {
				walk(cl.Body)
			}
		}
	}
	walk(s)
	return found
}

// continueInSwitch reports whether the loop body has a continue nested in
// a switch (of this loop).
func (w *writer) continueInSwitch(list []ast.Stmt) bool {
	found := false
	var walk func(s ast.Stmt, inSwitch bool)
	walk = func(s ast.Stmt, inSwitch bool) {
		if found || s == nil {
			return
		}
		switch s := s.(type) {
		case *ast.BranchStmt:
			if s.Kind == "continue" && inSwitch {
				found = true
			}
		case *ast.BlockStmt:
			if s != nil {
				for _, x := range s.Stmts {
					walk(x, inSwitch)
				}
			}
		case *ast.IfStmt:
			walk(s.Body, inSwitch)
			walk(s.Else, inSwitch)
		case *ast.SwitchStmt:
			for _, cl := range s.Clauses {
				walk(cl.Body, true)
			}
		}
	}
	for _, s := range list {
		walk(s, false)
	}
	return found
}

// loop writes `for (;;) { [if (!cond) break;] body; continuing; if (breakIf)
// break; }`, inlining the continuing statements before every continue.
func (w *writer) loop(pos ast.Pos, cond ast.Expr, body, cont []ast.Stmt, breakIf ast.Expr) {
	lc := &loopCtx{cont: cont, breakIf: breakIf}
	w.startLine(pos)
	if breakIf != nil && w.continueInSwitch(body) {
		lc.flag = w.newTemp("lb")
		w.s("bool " + lc.flag + " = false;")
		w.endLine()
		w.indent()
	}
	w.s("for (;;) {")
	w.endLine()
	w.ind++
	if cond != nil {
		w.indent()
		w.s("if (!(")
		w.expr(cond)
		w.s(")) break;")
		w.endLine()
	}
	w.loops = append(w.loops, lc)
	w.stmts(body)
	w.loops = w.loops[:len(w.loops)-1]
	w.continuing(lc, false)
	w.ind--
	w.indent()
	w.s("}")
	w.endLine()
}

// continuing writes the loop's continuing statements and break-if; inSwitch
// means control is inside a switch of the loop.
func (w *writer) continuing(lc *loopCtx, inSwitch bool) {
	if len(lc.cont) == 0 && lc.breakIf == nil {
		return
	}
	// One block: the break-if may use the continuing block's declarations.
	w.indent()
	w.s("{")
	w.endLine()
	w.ind++
	saved := w.loops
	w.loops = nil // continuing has no continue of its own
	w.stmts(lc.cont)
	w.loops = saved
	if lc.breakIf != nil {
		w.indent()
		w.s("if (")
		w.expr(lc.breakIf)
		if inSwitch && lc.flag != "" {
			w.s(") { " + lc.flag + " = true; break; }")
		} else {
			w.s(") break;")
		}
		w.endLine()
	}
	w.ind--
	w.indent()
	w.s("}")
	w.endLine()
}

func (w *writer) continueStmt(pos ast.Pos) {
	n := len(w.loops)
	if n == 0 {
		w.startLine(pos)
		w.s("continue;")
		w.endLine()
		return
	}
	lc := w.loops[n-1]
	if len(lc.cont) == 0 && lc.breakIf == nil {
		w.startLine(pos)
		w.s("continue;")
		w.endLine()
		return
	}
	w.startLine(pos)
	w.s("{")
	w.endLine()
	w.ind++
	w.continuing(lc, lc.switches > 0)
	w.indent()
	w.s("continue;")
	w.endLine()
	w.ind--
	w.indent()
	w.s("}")
	w.endLine()
}

func (w *writer) forStmt(s *ast.ForStmt) {
	// `for (init; cond; update)` maps to GLSL's for when the update is an
	// expression; otherwise it is a loop with the update as continuing.
	w.startLine(s.Pos)
	w.s("{")
	w.endLine()
	w.ind++
	if s.Init != nil {
		w.stmt(s.Init)
	}
	upd, ok := w.updateExpr(s.Update)
	if !ok {
		w.loop(s.Pos, s.Cond, s.Body.Stmts, []ast.Stmt{s.Update}, nil)
	} else {
		w.indent()
		w.s("for (; ")
		if s.Cond != nil {
			w.expr(s.Cond)
		}
		w.s("; ")
		w.s(upd)
		w.s(") ")
		w.loops = append(w.loops, &loopCtx{})
		w.block(s.Body)
		w.loops = w.loops[:len(w.loops)-1]
		w.endLine()
	}
	w.ind--
	w.indent()
	w.s("}")
	w.endLine()
}

// updateExpr renders a for loop's update statement as an expression.
func (w *writer) updateExpr(s ast.Stmt) (string, bool) {
	var b strings.Builder
	saved := w.b
	w.b = &b
	defer func() { w.b = saved }()
	switch s := s.(type) {
	case nil:
		return "", true
	case *ast.IncDecStmt:
		w.base(s.LHS)
		w.s(s.Op)
	case *ast.CallStmt:
		w.expr(s.Call)
	case *ast.AssignStmt:
		if s.LHS == nil || w.wholeBlock(s.LHS) != nil {
			return "", false
		}
		op := strings.TrimSuffix(s.Op, "=")
		if s.Op != "=" && s.Op != "" {
			lt := w.p.info[s.LHS].t.unref()
			rt := w.p.info[s.RHS].t.unref()
			if w.needsPolyfill(op, lt, rt, s.RHS) {
				return "", false
			}
		}
		w.base(s.LHS)
		w.s(" " + s.Op + " ")
		w.expr(s.RHS)
	default:
		return "", false
	}
	return b.String(), true
}

// ---- expressions ---------------------------------------------------------------------------

func (w *writer) valueString(v *value, t *wtype) string {
	var b strings.Builder
	saved := w.b
	w.b = &b
	w.value(v, t)
	w.b = saved
	return b.String()
}

// value writes a constant of type t.
func (w *writer) value(v *value, t *wtype) {
	if t.kind == kRef {
		t = t.elem
	}
	if t.isAbstract() {
		t = concreteOf(t)
	}
	if t.kind == kAtomic {
		t = t.elem
	}
	switch t.kind {
	case kBool:
		if v.b() {
			w.s("true")
		} else {
			w.s("false")
		}
	case kI32, kAbsInt:
		i := int32(v.i)
		switch {
		case i == math.MinInt32:
			w.s("(-2147483647 - 1)")
		case i < 0:
			w.s("(" + strconv.Itoa(int(i)) + ")")
		default:
			w.s(strconv.Itoa(int(i)))
		}
	case kU32:
		w.s(strconv.FormatUint(uint64(uint32(v.i)), 10) + "u")
	case kF32, kAbsFloat:
		w.s(glslFloat(float32(v.f), ""))
	case kF16:
		w.ext("GL_EXT_shader_explicit_arithmetic_types_float16")
		w.s(glslFloat(float32(v.f), "hf"))
	case kVec:
		w.s(w.typeBase(t) + "(")
		same := len(v.elems) > 0
		for _, e := range v.elems {
			if !equalValues(e, v.elems[0]) {
				same = false
			}
		}
		if same {
			w.value(v.elems[0], t.elem)
		} else {
			for i, e := range v.elems {
				if i > 0 {
					w.s(", ")
				}
				w.value(e, t.elem)
			}
		}
		w.s(")")
	case kMat:
		w.s(w.typeBase(t) + "(")
		ct := vecOf(t.elem, t.r)
		for i, e := range v.elems {
			if i > 0 {
				w.s(", ")
			}
			w.value(e, ct)
		}
		w.s(")")
	case kArray:
		w.s(w.typeName(t) + "(")
		for i, e := range v.elems {
			if i > 0 {
				w.s(", ")
			}
			w.value(e, t.elem)
		}
		w.s(")")
	case kStruct:
		w.s(t.st.glsl + "(")
		for i, m := range t.st.members {
			w.padZeros(t.st, i)
			if i < len(v.elems) {
				w.value(v.elems[i], m.t)
			}
			if i+1 < len(t.st.members) {
				w.s(", ")
			}
		}
		w.trailingPads(t.st)
		w.s(")")
	default:
		w.s("0")
	}
}

// trailingPads writes ", 0u"... for the padding after the last member.
func (w *writer) trailingPads(st *structInfo) {
	for _, is16 := range st.padLayout()[len(st.members)] {
		if is16 {
			w.s(", 0.0hf")
		} else {
			w.s(", 0u")
		}
	}
}

func glslFloat(f float32, suffix string) string {
	s := strconv.FormatFloat(float64(f), 'g', -1, 32)
	if !strings.ContainsAny(s, ".eE") {
		s += ".0"
	}
	if strings.HasPrefix(s, "-") {
		return "(" + s + suffix + ")"
	}
	return s + suffix
}

func (w *writer) expr(e ast.Expr) {
	ei := w.p.info[e]
	if ei == nil {
		w.s("0")
		return
	}
	if ei.stage == stConst && ei.val != nil && ei.t.kind != kPtr {
		w.value(ei.val, ei.t)
		return
	}
	switch x := e.(type) {
	case *ast.ParenExpr:
		switch x.X.(type) {
		case *ast.BinaryExpr, *ast.ParenExpr, *ast.Ident, *ast.CallExpr, *ast.MemberExpr, *ast.IndexExpr:
			w.expr(x.X)
		default:
			w.s("(")
			w.expr(x.X)
			w.s(")")
		}
	case *ast.Ident:
		w.ident(x, ei)
	case *ast.Literal:
		if ei.val != nil {
			w.value(ei.val, ei.t)
		} else {
			w.s(x.Text)
		}
	case *ast.UnaryExpr:
		w.unary(x, ei)
	case *ast.BinaryExpr:
		xi, yi := w.p.info[x.X], w.p.info[x.Y]
		w.binaryOp(x.Op, xi.t.unref(), yi.t.unref(), func() { w.expr(x.X) }, func() { w.expr(x.Y) }, x.Y)
	case *ast.MemberExpr:
		w.member(x, ei)
	case *ast.IndexExpr:
		w.baseOrValue(x.X)
		w.s("[")
		w.expr(x.Index)
		w.s("]")
	case *ast.CallExpr:
		w.call(x, ei)
	default:
		w.s("0")
	}
}

// baseOrValue writes the base of a member or index access: a memory view
// where it is a reference or pointer, else the value.
func (w *writer) baseOrValue(e ast.Expr) {
	ei := w.p.info[e]
	if ei != nil && (ei.t.kind == kRef || ei.t.kind == kPtr) {
		w.base(e)
		return
	}
	if ei != nil && ei.stage == stConst && ei.val != nil && ei.t.unref().kind == kArray {
		// A const array indexed at runtime: wrap the constructor.
		w.s("(")
		w.expr(e)
		w.s(")")
		return
	}
	w.expr(e)
}

// base writes the memory view a reference or pointer expression denotes
// (an lvalue), without loading a whole buffer structure.
func (w *writer) base(e ast.Expr) {
	switch x := e.(type) {
	case *ast.ParenExpr:
		w.base(x.X)
	case *ast.UnaryExpr:
		if x.Op == "&" || x.Op == "*" {
			w.base(x.X)
			return
		}
		w.expr(e)
	case *ast.Ident:
		ei := w.p.info[x]
		if ei == nil || ei.sym == nil {
			w.s("0")
			return
		}
		s := ei.sym
		if p, ok := w.paths[s]; ok {
			w.s(p.String())
			return
		}
		switch {
		case isBuffer(s) && !flatBlock(s):
			w.s(s.glsl + "." + s.glsl)
		default:
			w.s(s.glsl)
		}
	case *ast.MemberExpr:
		w.member(x, w.p.info[x])
	case *ast.IndexExpr:
		w.base(x.X)
		w.s("[")
		w.expr(x.Index)
		w.s("]")
	default:
		w.expr(e)
	}
}

func (w *writer) ident(x *ast.Ident, ei *exprInfo) {
	s := ei.sym
	if s == nil {
		w.s("0")
		return
	}
	switch s.kind {
	case symOverride:
		if s.ovExpr != nil {
			w.s("(")
			w.expr(s.ovExpr)
			w.s(")")
			return
		}
		w.s(s.glsl)
	case symVar:
		if flatBlock(s) {
			w.loadBlock(s)
			return
		}
		w.base(x)
	case symLet:
		if p, ok := w.paths[s]; ok {
			w.s(p.String())
			return
		}
		w.s(s.glsl)
	case symParam:
		if p, ok := w.paths[s]; ok {
			w.s(p.String())
			return
		}
		w.s(s.glsl)
	default:
		w.s(s.glsl)
	}
}

// loadBlock writes the value of a whole buffer structure.
func (w *writer) loadBlock(s *symbol) {
	st := s.t.st
	w.s(st.glsl + "(")
	for i, m := range st.members {
		w.padZeros(st, i)
		w.s(s.glsl + "." + m.glsl)
		if i+1 < len(st.members) {
			w.s(", ")
		}
	}
	w.trailingPads(st)
	w.s(")")
}

func (w *writer) member(x *ast.MemberExpr, ei *exprInfo) {
	if ei.mem >= 0 {
		bt, _, _, _ := accessBase(w.p.info[x.X].t)
		w.baseOrValue(x.X)
		w.s("." + bt.st.members[ei.mem].glsl)
		return
	}
	w.baseOrValue(x.X)
	w.s("." + x.Member)
}

func (w *writer) unary(x *ast.UnaryExpr, ei *exprInfo) {
	switch x.Op {
	case "&":
		w.base(x.X)
	case "*":
		if root := w.wholeBlock(x.X); root != nil {
			w.loadBlock(root)
			return
		}
		w.base(x.X)
	case "!":
		if ei.t.kind == kVec {
			w.s("not(")
			w.expr(x.X)
			w.s(")")
			return
		}
		w.s("(!")
		w.expr(x.X)
		w.s(")")
	default:
		w.s("(" + x.Op)
		w.expr(x.X)
		w.s(")")
	}
}

// needsPolyfill reports whether `x op y` cannot be GLSL's operator.
func (w *writer) needsPolyfill(op string, lt, rt *wtype, y ast.Expr) bool {
	s := lt.scalarOf()
	if s == nil {
		return false
	}
	yi := w.p.info[y]
	switch op {
	case "/":
		if !s.isIntScalar() {
			return false
		}
		return !safeDivisor(yi, s)
	case "%":
		if s.isFloatScalar() {
			return true
		}
		return s.kind != kU32 || !safeDivisor(yi, s)
	case "<<", ">>":
		return yi == nil || yi.stage != stConst
	}
	return false
}

// safeDivisor: a const divisor that is neither zero nor (signed) -1.
func safeDivisor(yi *exprInfo, s *wtype) bool {
	if yi == nil || yi.stage != stConst || yi.val == nil {
		return false
	}
	ok := true
	forEachScalar(yi.val, func(v *value) {
		if v.i == 0 || (s.kind != kU32 && v.i == -1) {
			ok = false
		}
	})
	return ok
}

// binaryOp writes `x op y` with operand types lt and rt.
func (w *writer) binaryOp(op string, lt, rt *wtype, x, y func(), ye ast.Expr) {
	ls := lt.scalarOf()
	vec := lt.kind == kVec || rt.kind == kVec
	// splat writes an operand as a vector when the other one is.
	splat := func(t *wtype, f func()) func() {
		if !vec || t.kind == kVec || lt.kind == kMat || rt.kind == kMat {
			return f
		}
		n := lt.n
		if rt.kind == kVec {
			n = rt.n
		}
		return func() {
			w.s(w.typeBase(vecOf(t, n)) + "(")
			f()
			w.s(")")
		}
	}
	vt := lt
	if rt.kind == kVec {
		vt = rt
	}
	switch op {
	case "==", "!=", "<", "<=", ">", ">=":
		if lt.kind == kVec {
			w.s(vecCompare(op))
			w.s("(")
			x()
			w.s(", ")
			y()
			w.s(")")
			return
		}
	case "&", "|":
		if ls != nil && ls.kind == kBool {
			if lt.kind == kVec {
				u := w.typeBase(vecOf(tU32, lt.n))
				w.s(w.typeBase(lt) + "(" + u + "(")
				x()
				w.s(") " + op + " " + u + "(")
				y()
				w.s("))")
				return
			}
			w.s("bool(uint(")
			x()
			w.s(") " + op + " uint(")
			y()
			w.s("))")
			return
		}
	case "/", "%", "<<", ">>":
		if w.needsPolyfill(op, lt, rt, ye) {
			switch op {
			case "<<", ">>":
				w.s("(")
				x()
				w.s(" " + op + " (")
				y()
				w.s(" & 31u))")
				return
			}
			name := w.arithHelper(op, vt)
			w.s(name + "(")
			splat(ls, x)()
			w.s(", ")
			splat(rt.scalarOf(), y)()
			w.s(")")
			return
		}
	}
	w.s("(")
	x()
	w.s(" " + op + " ")
	y()
	w.s(")")
}

// ---- helper functions -----------------------------------------------------------------------

func (w *writer) helper(key, code string) {
	if w.helperDone[key] {
		return
	}
	w.helperDone[key] = true
	w.helpers.WriteString(code)
}

// arithHelper defines the division, remainder or float-remainder helper
// for type t and returns its name.
func (w *writer) arithHelper(op string, t *wtype) string {
	tn := w.typeBase(t)
	s := t.scalarOf()
	n := 1
	if t.kind == kVec {
		n = t.n
	}
	bv := "bool"
	if n > 1 {
		bv = "bvec" + strconv.Itoa(n)
	}
	one := w.valueString(intValue(s, 1), s)
	zero := w.valueString(intValue(s, 0), s)
	if n > 1 {
		one = tn + "(" + one + ")"
		zero = tn + "(" + zero + ")"
	}
	eq := func(a, b string) string {
		if n > 1 {
			return "equal(" + a + ", " + b + ")"
		}
		return "(" + a + " == " + b + ")"
	}
	sel := func(cond, a, b string) string { // cond ? a : b
		if n > 1 {
			return "mix(" + b + ", " + a + ", " + cond + ")"
		}
		return "(" + cond + " ? " + a + " : " + b + ")"
	}
	or := func(a, b string) string {
		if n > 1 {
			return bv + "(uvec" + strconv.Itoa(n) + "(" + a + ") | uvec" + strconv.Itoa(n) + "(" + b + "))"
		}
		return "(" + a + " || " + b + ")"
	}
	and := func(a, b string) string {
		if n > 1 {
			return bv + "(uvec" + strconv.Itoa(n) + "(" + a + ") & uvec" + strconv.Itoa(n) + "(" + b + "))"
		}
		return "(" + a + " && " + b + ")"
	}
	if s.isFloatScalar() {
		name := "_wfmod"
		w.helper(name+tn, tn+" "+name+"("+tn+" a, "+tn+" b) { return a - b * trunc(a / b); }\n")
		return name
	}
	var bad string
	if s.kind == kU32 {
		bad = eq("b", zero)
	} else {
		minv := "(-2147483647 - 1)"
		m1 := "(-1)"
		if n > 1 {
			minv = tn + "(" + minv + ")"
			m1 = tn + "(" + m1 + ")"
		}
		bad = or(eq("b", zero), and(eq("a", minv), eq("b", m1)))
	}
	d := sel(bad, one, "b")
	if op == "/" {
		w.helper("_wdiv"+tn, tn+" _wdiv("+tn+" a, "+tn+" b) { return a / "+d+"; }\n")
		return "_wdiv"
	}
	if s.kind == kU32 {
		w.helper("_wmod"+tn, tn+" _wmod("+tn+" a, "+tn+" b) { return a % "+d+"; }\n")
	} else {
		w.helper("_wmod"+tn, tn+" _wmod("+tn+" a, "+tn+" b) { "+tn+" d = "+d+"; return a - (a / d) * d; }\n")
	}
	return "_wmod"
}

// ---- calls ---------------------------------------------------------------------------------

func (w *writer) args(args []ast.Expr, from int) {
	for i := from; i < len(args); i++ {
		if i > from {
			w.s(", ")
		}
		w.arg(args[i])
	}
}

// arg writes a call argument: pointers pass their memory view.
func (w *writer) arg(e ast.Expr) {
	ei := w.p.info[e]
	if ei != nil && ei.t.kind == kPtr {
		w.base(e)
		return
	}
	w.expr(e)
}

func (w *writer) call(x *ast.CallExpr, ei *exprInfo) {
	ci := ei.call
	if ci == nil {
		w.s("0")
		return
	}
	switch ci.kind {
	case callUser:
		w.userCall(x, ci.fn)
	case callCtor:
		w.construct(x, ci.t)
	case callConvert:
		w.convert(x.Args[0], ci.t)
	case callBitcast:
		w.bitcast(x.Args[0], ci.args[0], ci.t)
	case callBuiltin:
		w.builtin(x, ci)
	}
}

func (w *writer) construct(x *ast.CallExpr, t *wtype) {
	switch t.kind {
	case kStruct:
		st := t.st
		w.s(st.glsl + "(")
		for i := range st.members {
			w.padZeros(st, i)
			if i < len(x.Args) {
				w.expr(x.Args[i])
			}
			if i+1 < len(st.members) {
				w.s(", ")
			}
		}
		w.trailingPads(st)
		w.s(")")
		return
	}
	w.s(w.typeName(t) + "(")
	w.args(x.Args, 0)
	w.s(")")
}

// convert writes a value conversion T(e), saturating float to integer
// conversions as WGSL requires.
func (w *writer) convert(e ast.Expr, t *wtype) {
	from := w.p.info[e].t.unref()
	fs, ts := from.scalarOf(), t.scalarOf()
	tn := w.typeName(t)
	if fs != nil && ts != nil && fs.isFloatScalar() && ts.isIntScalar() {
		lo, hi := "-2147483648.0", "2147483520.0"
		if ts.kind == kU32 {
			lo, hi = "0.0", "4294967040.0"
		}
		if fs.kind == kF16 {
			if ts.kind == kI32 {
				w.s(tn + "(")
				w.expr(e)
				w.s(")")
				return
			}
			lo, hi = "0.0hf", "65504.0hf"
		}
		w.s(tn + "(clamp(")
		w.expr(e)
		w.s(", " + lo + ", " + hi + "))")
		return
	}
	w.s(tn + "(")
	w.expr(e)
	w.s(")")
}

func (w *writer) bitcast(e ast.Expr, from, to *wtype) {
	if sameType(from, to) {
		w.expr(e)
		return
	}
	fs, ts := from.scalarOf(), to.scalarOf()
	if fs.kind != kF16 && ts.kind != kF16 {
		fn := ""
		switch {
		case fs.kind == kF32 && ts.kind == kI32:
			fn = "floatBitsToInt"
		case fs.kind == kF32 && ts.kind == kU32:
			fn = "floatBitsToUint"
		case ts.kind == kF32 && fs.kind == kI32:
			fn = "intBitsToFloat"
		case ts.kind == kF32 && fs.kind == kU32:
			fn = "uintBitsToFloat"
		default:
			fn = w.typeName(to)
		}
		w.s(fn + "(")
		w.expr(e)
		w.s(")")
		return
	}
	// f16 pairs <-> 32-bit words, through a helper.
	fn, tn := w.typeName(from), w.typeName(to)
	name := "_wbitcast_" + strings.ReplaceAll(tn, "_", "")
	var body string
	word := func(s string) string { // uint word -> 32-bit scalar of ts
		switch ts.kind {
		case kF32:
			return "uintBitsToFloat(" + s + ")"
		case kI32:
			return "int(" + s + ")"
		}
		return s
	}
	toUint := func(s string) string {
		switch fs.kind {
		case kF32:
			return "floatBitsToUint(" + s + ")"
		case kI32:
			return "uint(" + s + ")"
		}
		return s
	}
	switch {
	case fs.kind == kF16 && from.n == 2: // vec2<f16> -> 32-bit scalar
		body = "return " + word("packFloat2x16(v)") + ";"
	case fs.kind == kF16: // vec4<f16> -> vec2 of 32-bit
		body = "return " + tn + "(" + word("packFloat2x16(v.xy)") + ", " + word("packFloat2x16(v.zw)") + ");"
	case to.n == 2: // 32-bit scalar -> vec2<f16>
		body = "return unpackFloat2x16(" + toUint("v") + ");"
	default: // vec2 of 32-bit -> vec4<f16>
		body = "return " + tn + "(unpackFloat2x16(" + toUint("v.x") + "), unpackFloat2x16(" + toUint("v.y") + "));"
	}
	w.helper(name+fn, tn+" "+name+"("+fn+" v) { "+body+" }\n")
	w.s(name + "(")
	w.expr(e)
	w.s(")")
}

// vecCompare is the GLSL function comparing vectors component-wise with op.
func vecCompare(op string) string {
	switch op {
	case "==":
		return "equal"
	case "!=":
		return "notEqual"
	case "<":
		return "lessThan"
	case "<=":
		return "lessThanEqual"
	case ">":
		return "greaterThan"
	}
	return "greaterThanEqual"
}
