package wgsl

import (
	"github.com/gfxcuda/gfxcuda/shader/wgsl/internal/ast"

	"fmt"
	"sort"
	"strings"
)

// This file is the checker: name resolution, type checking and constant
// evaluation of a parsed module. It annotates the syntax tree (program.info)
// for the GLSL writer.

// Rules, the specification's terms, for Error.Rule.
const (
	ruleType     = "shader-creation error: type rules"
	ruleScope    = "shader-creation error: declaration and scope"
	ruleConst    = "shader-creation error: const-expression"
	ruleOverride = "shader-creation error: override-expression"
	ruleAddr     = "address spaces"
	ruleLayout   = "address space layout constraints"
	ruleResource = "resource interface"
	ruleEntry    = "entry point declaration"
	ruleFunc     = "restrictions on functions"
	ruleBehavior = "statement behaviors"
	ruleExt      = "extensions"
	ruleAttr     = "attributes"
	ruleStmt     = "statements"
	ruleAssert   = "const assertion"
	ruleAlias    = "alias analysis"
	ruleInternal = "internal error"
	ruleSupport  = "not supported by this translator"
)

// Expression stages.
const (
	stConst uint8 = iota
	stOverride
	stRuntime
)

type symKind uint8

const (
	symVar symKind = iota
	symLet
	symConst
	symOverride
	symParam
	symFunc
	symStruct
	symAlias
)

// symbol is a declared name.
type symbol struct {
	kind   symKind
	name   string // WGSL name
	glsl   string // GLSL name
	pos    ast.Pos
	global bool
	// t is a var's store type, a value's type, or the type a struct or alias
	// names.
	t *wtype
	// val is a const's value, or an override's default when known.
	val   *value
	decl  ast.Node
	state uint8 // module scope: 0 unresolved, 1 resolving, 2 resolved
	// Variables.
	space   addrSpace
	access  accessMode
	group   int64
	binding int64
	hasGB   bool // has both @group and @binding
	// Overrides.
	ovID     int64    // -1 until assigned
	ovExpr   ast.Expr // initializer, when it is an override-expression (then inlined)
	ovNoInit bool
	// Functions.
	fn *function
	// Let pointers: the initializer (a pointer expression).
	ptrInit ast.Expr
	// builtin names an entry-point parameter's @builtin value.
	builtin string
	// ref caches a variable's reference type.
	ref *wtype
}

type function struct {
	sym      *symbol
	decl     *ast.FuncDecl
	params   []*symbol
	ret      *wtype // nil: no return value
	calls    []*function
	callPos  []ast.Pos
	globals  map[*symbol]bool
	compute  bool
	mustUse  bool
	checked  bool
	sigDone  bool
	sigState uint8
	wgSize   [3]ast.Expr
	wgVal    [3]int64 // values (defaults for overrides)
	locals   map[string]bool
	// specialize: a pointer parameter outside the function and private
	// address spaces; the writer makes a copy per pointer argument.
	specialize bool
	// stageErrs are uses only fragment shaders allow, reported when the
	// compute entry point reaches the function.
	stageErrs []stageErr
}

type stageErr struct {
	pos ast.Pos
	msg string
}

// exprInfo is what the checker learned about an expression.
type exprInfo struct {
	t     *wtype // static type (ref<...> for references)
	val   *value // const-expression's value; an override-expression's with defaults
	stage uint8
	sym   *symbol
	call  *callInfo
	mem   int // struct member index of a MemberExpr, or -1 for a swizzle
	// typ is set when the expression names a type (callee of a constructor).
	typ *wtype
}

type callKind uint8

const (
	callUser callKind = iota
	callBuiltin
	callCtor    // value constructor (including zero value)
	callConvert // scalar/vector/matrix conversion
	callBitcast
)

type callInfo struct {
	kind callKind
	fn   *function
	name string   // builtin name
	t    *wtype   // constructed / converted / bitcast type, or builtin result
	args []*wtype // builtin: the argument types after conversion
	id   int      // call-site number, for writer temporaries
}

// program is a checked module.
type program struct {
	file    string
	mod     *ast.Module
	info    map[ast.Expr]*exprInfo
	globals []*symbol // module-scope declarations in source order
	byName  map[string]*symbol
	funcs   []*function
	entry   *function
	// reachable are the functions the entry point calls, directly or
	// not, and itself: callees first.
	reachable []*function
	f16       bool
	subgroup  bool
	// packHalf: the module calls pack2x16float, whose result
	// unpack2x16float must not give back unrounded (see unpackF16Helper).
	packHalf bool
	declSym  map[*ast.VarDecl]*symbol
	structs  []*structInfo
	bstructs map[string]*structInfo // predeclared result structures by name
	ncalls   int
}

type ctrl uint8

const (
	ctrlLoop ctrl = iota
	ctrlSwitch
	ctrlContinuing
)

type checker struct {
	*program
	errs   ErrorList
	scopes []map[string]*symbol
	fn     *function
	ctrl   []ctrl
	depth  int
	maxErr int
}

const maxErrors = 100

// maxConstScalars bounds the size of const values the checker builds.
const maxConstScalars = 1 << 16

func (c *checker) errorf(pos ast.Pos, rule, format string, args ...any) {
	if len(c.errs) >= maxErrors {
		return
	}
	msg := format
	if len(args) > 0 {
		msg = sprintf(format, args...)
	}
	c.errs = append(c.errs, &Error{File: c.file, Line: pos.Line, Col: pos.Col, Msg: msg, Rule: rule})
}

// check type-checks a module. entry picks the entry point ("" for the
// default rule).
func check(mod *ast.Module, file, entry string, sizeHint int) (*program, ErrorList) {
	p := &program{
		file:     file,
		mod:      mod,
		info:     make(map[ast.Expr]*exprInfo, sizeHint),
		byName:   map[string]*symbol{},
		declSym:  map[*ast.VarDecl]*symbol{},
		bstructs: map[string]*structInfo{},
	}
	c := &checker{program: p}
	c.directives()
	c.collect()
	for _, s := range p.globals {
		c.resolveGlobal(s)
	}
	for _, d := range mod.Decls {
		if ca, ok := d.(*ast.ConstAssert); ok {
			c.constAssert(ca)
		}
	}
	for _, f := range p.funcs {
		c.funcBody(f)
	}
	c.recursion()
	c.assignOverrideIDs()
	c.pickEntry(entry)
	sortErrors(c.errs)
	return p, c.errs
}

func sortErrors(l ErrorList) {
	sort.SliceStable(l, func(i, j int) bool {
		if l[i].Line != l[j].Line {
			return l[i].Line < l[j].Line
		}
		return l[i].Col < l[j].Col
	})
}

// ---- directives --------------------------------------------------------------

func (c *checker) directives() {
	for _, d := range c.mod.Directives {
		switch d.Kind {
		case "enable":
			for _, a := range d.Args {
				switch a {
				case "f16":
					c.f16 = true
				case "subgroups":
					c.subgroup = true
				default:
					c.errorf(d.Pos, ruleExt, "extension '%s' is not supported (supported: f16, subgroups)", a)
				}
			}
		case "requires":
			for _, a := range d.Args {
				switch a {
				case "readonly_and_readwrite_storage_textures", "packed_4x8_integer_dot_product", "pointer_composite_access",
					"unrestricted_pointer_parameters", "texture_and_sampler_let":
				default:
					c.errorf(d.Pos, ruleExt, "language extension '%s' is not supported", a)
				}
			}
		}
	}
}

// ---- module scope -------------------------------------------------------------

func (c *checker) collect() {
	for _, d := range c.mod.Decls {
		var s *symbol
		switch d := d.(type) {
		case *ast.VarDecl:
			k := symVar
			switch d.Kind {
			case "const":
				k = symConst
			case "override":
				k = symOverride
			case "let":
				c.errorf(d.Pos, ruleScope, "'let' declarations are only allowed in functions; use 'const' at module scope")
				k = symConst
			}
			s = &symbol{kind: k, name: d.Name, pos: d.NamePos, decl: d, global: true, ovID: -1}
			if s.pos.Line == 0 {
				s.pos = d.Pos
			}
			c.declSym[d] = s
		case *ast.StructDecl:
			s = &symbol{kind: symStruct, name: d.Name, pos: d.Pos, decl: d, global: true}
		case *ast.AliasDecl:
			s = &symbol{kind: symAlias, name: d.Name, pos: d.Pos, decl: d, global: true}
		case *ast.FuncDecl:
			s = &symbol{kind: symFunc, name: d.Name, pos: d.Pos, decl: d, global: true}
			s.fn = &function{sym: s, decl: d, globals: map[*symbol]bool{}}
			c.funcs = append(c.funcs, s.fn)
		default:
			continue
		}
		if prev, ok := c.byName[s.name]; ok {
			c.errorf(s.pos, ruleScope, "redeclaration of '%s' (previously declared at %d:%d)", s.name, prev.pos.Line, prev.pos.Col)
			continue
		}
		c.byName[s.name] = s
		c.globals = append(c.globals, s)
	}
}

func (c *checker) resolveGlobal(s *symbol) {
	if s.state == 2 {
		return
	}
	if s.state == 1 {
		c.errorf(s.pos, ruleScope, "'%s' refers to itself (a cycle of declarations)", s.name)
		s.t = tInvalid
		return
	}
	s.state = 1
	saved := c.scopes
	savedFn := c.fn
	c.scopes = nil
	c.fn = nil
	switch d := s.decl.(type) {
	case *ast.VarDecl:
		c.globalVar(s, d)
	case *ast.StructDecl:
		c.structDecl(s, d)
	case *ast.AliasDecl:
		s.t = c.resolveType(d.Type)
	case *ast.FuncDecl:
		c.funcSig(s.fn)
	}
	c.scopes = saved
	c.fn = savedFn
	s.state = 2
	if s.t == nil {
		s.t = tInvalid
	}
}

func attrInt(c *checker, a *ast.Attribute, what string) (int64, bool) {
	if len(a.Args) != 1 {
		c.errorf(a.Pos, ruleAttr, "@%s takes one argument", a.Name)
		return 0, false
	}
	ei := c.expr(a.Args[0])
	if ei.t.kind == kInvalid {
		return 0, false
	}
	t := ei.t.unref()
	if !(t.kind == kAbsInt || t.kind == kI32 || t.kind == kU32) {
		c.errorf(a.Args[0].Position(), ruleAttr, "@%s must be an integer, found '%s'", a.Name, t)
		return 0, false
	}
	if ei.stage != stConst || ei.val == nil {
		c.errorf(a.Args[0].Position(), ruleAttr, "@%s must be a const-expression", a.Name)
		return 0, false
	}
	return ei.val.i, true
}

func (c *checker) globalVar(s *symbol, d *ast.VarDecl) {
	switch d.Kind {
	case "const", "let":
		c.constDecl(s, d)
		return
	case "override":
		c.overrideDecl(s, d)
		return
	}
	var group, binding int64
	hasG, hasB := false, false
	for _, a := range d.Attrs {
		switch a.Name {
		case "group":
			if v, ok := attrInt(c, a, "group"); ok {
				group, hasG = v, true
				if v < 0 {
					c.errorf(a.Pos, ruleResource, "@group must be non-negative, found %d", v)
				}
			}
		case "binding":
			if v, ok := attrInt(c, a, "binding"); ok {
				binding, hasB = v, true
				if v < 0 || v > 65535 {
					c.errorf(a.Pos, ruleResource, "@binding must be in [0, 65535], found %d", v)
				}
			}
		default:
			c.errorf(a.Pos, ruleAttr, "attribute @%s does not apply to a variable", a.Name)
		}
	}
	var t *wtype
	if d.Type != nil {
		t = c.resolveType(d.Type)
	}
	space := asNone
	switch d.AddressSpace {
	case "":
		if t != nil && isHandleType(t) {
			space = asHandle
		} else if t != nil && t.kind != kInvalid {
			c.errorf(d.Pos, ruleAddr, "module-scope 'var' of type '%s' needs an address space: var<private>, var<workgroup>, var<uniform> or var<storage>", t)
		}
	case "private":
		space = asPrivate
	case "workgroup":
		space = asWorkgroup
	case "uniform":
		space = asUniform
	case "storage":
		space = asStorage
	case "function":
		c.errorf(d.Pos, ruleAddr, "module-scope variables cannot be in the 'function' address space")
		space = asPrivate
	case "handle":
		c.errorf(d.Pos, ruleAddr, "the 'handle' address space cannot be named")
		space = asHandle
	default:
		c.errorf(d.Pos, ruleAddr, "unknown address space '%s'", d.AddressSpace)
	}
	access := accReadWrite
	switch d.Access {
	case "":
		switch space {
		case asStorage, asUniform, asHandle:
			access = accRead
		}
	case "read":
		access = accRead
	case "write":
		access = accWrite
	case "read_write":
		access = accReadWrite
	default:
		c.errorf(d.Pos, ruleAddr, "unknown access mode '%s'", d.Access)
	}
	if d.Access != "" && space != asStorage {
		c.errorf(d.Pos, ruleAddr, "only var<storage> takes an access mode; var<%s> cannot be '%s'", space, d.Access)
		if space == asUniform {
			access = accRead
		}
	}
	if space == asStorage && access == accWrite {
		c.errorf(d.Pos, ruleAddr, "storage buffers are 'read' or 'read_write', not 'write'")
		access = accReadWrite
	}
	s.space, s.access = space, access
	s.group, s.binding = group, binding
	s.hasGB = hasG && hasB

	if d.Init != nil {
		ei := c.expr(d.Init)
		switch {
		case space != asPrivate:
			c.errorf(d.Init.Position(), ruleAddr, "var<%s> cannot have an initializer (only var<private> and function variables can)", space)
		case ei.stage == stRuntime:
			c.errorf(d.Init.Position(), ruleConst, "the initializer of a module-scope variable must be a const-expression or override-expression")
		}
		if t == nil {
			t = c.concretize(d.Init, ei)
		} else {
			c.convertTo(d.Init, t, "initializer")
		}
	}
	if t == nil {
		c.errorf(d.Pos, ruleType, "variable '%s' needs a type or an initializer", d.Name)
		t = tInvalid
	}
	s.t = t
	if t.kind == kInvalid {
		return
	}
	isRes := space == asUniform || space == asStorage || space == asHandle
	if isRes && !s.hasGB {
		missing := "@group and @binding"
		if hasG {
			missing = "@binding"
		} else if hasB {
			missing = "@group"
		}
		c.errorf(d.Pos, ruleResource, "resource variable '%s' needs %s attributes", d.Name, missing)
	}
	if !isRes && (hasG || hasB) {
		c.errorf(d.Pos, ruleResource, "@group and @binding only apply to resources (var<uniform>, var<storage>, textures and samplers), not var<%s>", space)
	}
	c.checkVarType(d.Pos, space, access, t, true)
}

func isHandleType(t *wtype) bool {
	switch t.kind {
	case kSampler, kSamplerCmp, kTexture, kStorageTexture:
		return true
	}
	return false
}

// checkVarType applies the address space rules to a variable's store type.
func (c *checker) checkVarType(pos ast.Pos, space addrSpace, access accessMode, t *wtype, global bool) {
	if t.kind == kInvalid {
		return
	}
	if isHandleType(t) {
		if space != asHandle {
			c.errorf(pos, ruleAddr, "textures and samplers are declared without an address space: 'var name: %s'", t)
		}
		return
	}
	if space == asHandle {
		c.errorf(pos, ruleAddr, "var<handle> must be a texture or sampler, not '%s'", t)
		return
	}
	if t.kind == kPtr || !t.storable() {
		c.errorf(pos, ruleType, "type '%s' cannot be the store type of a variable", t)
		return
	}
	switch space {
	case asFunction, asPrivate:
		if !t.constructible() {
			c.errorf(pos, ruleAddr, "var<%s> needs a constructible type (no atomics, runtime-sized or override-sized arrays), found '%s'", space, t)
		}
	case asWorkgroup:
		if !t.fixedFootprint() {
			c.errorf(pos, ruleAddr, "var<workgroup> needs a fixed-footprint type, found '%s'", t)
		}
	case asUniform:
		if !t.hostShareable() || !t.constructible() {
			c.errorf(pos, ruleAddr, "var<uniform> needs a constructible host-shareable type (no atomics, no runtime-sized arrays, no bool), found '%s'", t)
			return
		}
		c.checkLayout(pos, t, true)
	case asStorage:
		if !t.hostShareable() {
			c.errorf(pos, ruleAddr, "var<storage> needs a host-shareable type (numbers, vectors, matrices, atomics, arrays and structures of them; not bool), found '%s'", t)
			return
		}
		if t.hasAtomic() && access != accReadWrite {
			c.errorf(pos, ruleAddr, "atomics in var<storage> need 'read_write' access")
		}
		c.checkLayout(pos, t, false)
	}
	if space != asStorage && space != asWorkgroup && t.hasAtomic() {
		c.errorf(pos, ruleAddr, "atomic types are only allowed in var<storage, read_write> and var<workgroup>")
	}
	if space != asWorkgroup && hasOverrideArray(t) {
		c.errorf(pos, ruleAddr, "arrays sized by an override-expression are only allowed in var<workgroup>")
	}
}

func hasOverrideArray(t *wtype) bool {
	switch t.kind {
	case kArray:
		return t.countExpr != nil || hasOverrideArray(t.elem)
	case kStruct:
		for _, m := range t.st.members {
			if hasOverrideArray(m.t) {
				return true
			}
		}
	}
	return false
}

// checkLayout checks the address space layout constraints of uniform and
// storage buffers.
func (c *checker) checkLayout(pos ast.Pos, t *wtype, uniform bool) {
	switch t.kind {
	case kArray:
		stride := strideOf(t)
		req := requiredAlign(t.elem, uniform)
		if stride%req != 0 || (uniform && stride%16 != 0) {
			if uniform {
				c.errorf(pos, ruleLayout, "arrays in var<uniform> need an element stride that is a multiple of 16; '%s' has stride %d (wrap the element in a struct with @size(16) or use vec4)", t, stride)
			} else {
				c.errorf(pos, ruleLayout, "'%s' has stride %d, not a multiple of the element's alignment %d", t, stride, req)
			}
			return
		}
		c.checkLayout(pos, t.elem, uniform)
	case kStruct:
		st := t.st
		for i, m := range st.members {
			req := requiredAlign(m.t, uniform)
			if m.offset%req != 0 {
				c.errorf(m.pos, ruleLayout, "member '%s' of '%s' is at offset %d, which must be a multiple of %d in var<%s> (use @align(%d))", m.name, st.name, m.offset, req, map[bool]string{true: "uniform", false: "storage"}[uniform], req)
			}
			if uniform && m.t.kind == kStruct && i+1 < len(st.members) {
				next := st.members[i+1]
				if next.offset-m.offset < roundUp(16, sizeOf(m.t)) {
					c.errorf(next.pos, ruleLayout, "in var<uniform>, member '%s' of '%s' must start at least %d bytes after the structure member '%s' (use @align(16) on it or @size on '%s')", next.name, st.name, roundUp(16, sizeOf(m.t)), m.name, m.name)
				}
			}
			c.checkLayout(m.pos, m.t, uniform)
		}
	}
}

func requiredAlign(t *wtype, uniform bool) int {
	a := alignOf(t)
	if uniform && (t.kind == kArray || t.kind == kStruct) {
		return roundUp(16, a)
	}
	return a
}

func (c *checker) constDecl(s *symbol, d *ast.VarDecl) {
	if len(d.Attrs) > 0 {
		c.errorf(d.Attrs[0].Pos, ruleAttr, "'const' declarations take no attributes")
	}
	if d.Init == nil {
		c.errorf(d.Pos, ruleConst, "'const %s' needs an initializer", d.Name)
		s.t = tInvalid
		return
	}
	ei := c.expr(d.Init)
	if ei.t.kind == kInvalid {
		s.t = tInvalid
		return
	}
	if ei.stage != stConst || ei.val == nil {
		c.errorf(d.Init.Position(), ruleConst, "the initializer of 'const %s' must be a const-expression", d.Name)
		s.t = tInvalid
		return
	}
	if d.Type != nil {
		t := c.resolveType(d.Type)
		if t.kind == kInvalid {
			s.t = tInvalid
			return
		}
		if !t.constructible() {
			c.errorf(d.Type.Pos, ruleType, "const declarations need a constructible type, found '%s'", t)
		}
		c.convertTo(d.Init, t, "initializer")
		s.t = t
	} else {
		s.t = ei.t.unref()
		if !s.t.constructible() {
			c.errorf(d.Init.Position(), ruleType, "const declarations need a constructible type, found '%s'", s.t)
		}
	}
	s.val = c.info[d.Init].val
	if s.val == nil {
		s.t = tInvalid
	}
}

func (c *checker) overrideDecl(s *symbol, d *ast.VarDecl) {
	for _, a := range d.Attrs {
		switch a.Name {
		case "id":
			if v, ok := attrInt(c, a, "id"); ok {
				if v < 0 || v > 65535 {
					c.errorf(a.Pos, ruleAttr, "@id must be in [0, 65535], found %d", v)
				} else {
					s.ovID = v
				}
			}
		default:
			c.errorf(a.Pos, ruleAttr, "attribute @%s does not apply to an override", a.Name)
		}
	}
	var t *wtype
	if d.Type != nil {
		t = c.resolveType(d.Type)
	}
	if d.Init != nil {
		ei := c.expr(d.Init)
		if ei.t.kind != kInvalid {
			if ei.stage == stRuntime {
				c.errorf(d.Init.Position(), ruleOverride, "the initializer of 'override %s' must be a const-expression or override-expression", d.Name)
			}
			if t == nil {
				t = c.concretize(d.Init, ei)
			} else {
				c.convertTo(d.Init, t, "initializer")
			}
			ei = c.info[d.Init]
			if ei.stage == stOverride {
				s.ovExpr = d.Init
			}
			s.val = ei.val
		}
	} else {
		s.ovNoInit = true
	}
	if t == nil {
		if d.Init == nil {
			c.errorf(d.Pos, ruleType, "'override %s' needs a type or an initializer", d.Name)
		}
		s.t = tInvalid
		return
	}
	s.t = t
	switch t.kind {
	case kBool, kI32, kU32, kF32, kF16:
	case kInvalid:
	default:
		c.errorf(d.Pos, ruleType, "override declarations need a concrete scalar type (bool, i32, u32, f32 or f16), found '%s'", t)
		s.t = tInvalid
	}
}

func (c *checker) assignOverrideIDs() {
	used := map[int64]*symbol{}
	for _, s := range c.globals {
		if s.kind != symOverride || s.ovID < 0 {
			continue
		}
		if prev, ok := used[s.ovID]; ok {
			c.errorf(s.pos, ruleAttr, "@id(%d) of '%s' is already used by '%s'", s.ovID, s.name, prev.name)
			continue
		}
		used[s.ovID] = s
	}
	next := int64(0)
	for _, s := range c.globals {
		if s.kind != symOverride || s.ovID >= 0 {
			continue
		}
		for used[next] != nil {
			next++
		}
		s.ovID = next
		used[next] = s
	}
}

func (c *checker) structDecl(s *symbol, d *ast.StructDecl) {
	st := &structInfo{name: d.Name, pos: d.Pos, layoutOK: true}
	s.t = &wtype{kind: kStruct, st: st}
	if len(d.Members) == 0 {
		c.errorf(d.Pos, ruleType, "structure '%s' needs at least one member", d.Name)
	}
	seen := map[string]bool{}
	offset, align := 0, 1
	for i, m := range d.Members {
		if seen[m.Name] {
			c.errorf(m.Pos, ruleScope, "duplicate member '%s' in structure '%s'", m.Name, d.Name)
		}
		seen[m.Name] = true
		mt := c.resolveType(m.Type)
		mem := &member{name: m.Name, pos: m.Pos, t: mt}
		st.members = append(st.members, mem)
		if mt.kind == kInvalid {
			st.layoutOK = false
			continue
		}
		last := i == len(d.Members)-1
		switch {
		case mt.kind == kArray && mt.count == 0 && mt.countExpr == nil:
			if !last {
				c.errorf(m.Pos, ruleType, "a runtime-sized array can only be the last member of a structure")
			}
			st.runtime = true
		case mt.kind == kStruct && mt.st.runtime:
			c.errorf(m.Pos, ruleType, "structure '%s' ends in a runtime-sized array and cannot be a member of another structure", mt.st.name)
		case mt.kind == kArray && mt.countExpr != nil:
			c.errorf(m.Pos, ruleType, "arrays sized by an override-expression cannot be structure members")
		case !mt.isPlain() || mt.isAbstract():
			c.errorf(m.Pos, ruleType, "structure members need a concrete plain type (scalars, vectors, matrices, atomics, arrays, structures), found '%s'", mt)
		}
		ma, ms := alignOf(mt), sizeOf(mt)
		for _, a := range m.Attrs {
			switch a.Name {
			case "align":
				if v, ok := attrInt(c, a, "align"); ok {
					if v <= 0 || v&(v-1) != 0 || v > 1<<30 {
						c.errorf(a.Pos, ruleAttr, "@align must be a positive power of two, found %d", v)
					} else if int(v)%alignOf(mt) != 0 {
						c.errorf(a.Pos, ruleAttr, "@align(%d) must be a multiple of the alignment %d of '%s'", v, alignOf(mt), mt)
					} else {
						ma = int(v)
					}
				}
			case "size":
				if v, ok := attrInt(c, a, "size"); ok {
					if v < int64(sizeOf(mt)) || v > 1<<30 {
						c.errorf(a.Pos, ruleAttr, "@size must be at least the member's size %d, found %d", sizeOf(mt), v)
					} else {
						ms = int(v)
					}
					if mt.kind == kArray && mt.count == 0 {
						c.errorf(a.Pos, ruleAttr, "@size cannot apply to a runtime-sized array")
					}
				}
			case "builtin":
				mem.builtin = c.builtinName(a)
			case "location", "interpolate", "invariant", "blend_src":
			default:
				c.errorf(a.Pos, ruleAttr, "attribute @%s does not apply to a structure member", a.Name)
			}
		}
		offset = roundUp(ma, offset)
		mem.offset, mem.align, mem.size = offset, ma, ms
		offset += ms
		align = max(align, ma)
		if mt.kind == kStruct {
			st.deps = append(st.deps, mt.st)
		}
		for e := mt; e.kind == kArray; e = e.elem {
			if e.elem.kind == kStruct {
				st.deps = append(st.deps, e.elem.st)
			}
		}
	}
	st.align = align
	st.size = roundUp(align, offset)
	if !st.builtin {
		c.structs = append(c.structs, st)
	}
}

func (c *checker) builtinName(a *ast.Attribute) string {
	if len(a.Args) != 1 {
		c.errorf(a.Pos, ruleAttr, "@builtin takes one argument")
		return ""
	}
	id, ok := a.Args[0].(*ast.Ident)
	if !ok || id.Args != nil {
		c.errorf(a.Pos, ruleAttr, "@builtin needs the name of a built-in value")
		return ""
	}
	return id.Name
}

// ---- functions -------------------------------------------------------------------

func (c *checker) funcSig(f *function) {
	if f.sigDone {
		return
	}
	f.sigDone = true
	d := f.decl
	for _, a := range d.Attrs {
		switch a.Name {
		case "compute":
			f.compute = true
		case "workgroup_size":
		case "must_use":
			f.mustUse = true
		case "vertex", "fragment":
			// Checked loosely; only compute entry points are translated.
		case "diagnostic":
		default:
			c.errorf(a.Pos, ruleAttr, "attribute @%s does not apply to a function", a.Name)
		}
	}
	seen := map[string]bool{}
	for _, p := range d.Params {
		t := c.resolveType(p.Type)
		ps := &symbol{kind: symParam, name: p.Name, pos: p.Pos, t: t, decl: p}
		for _, a := range p.Attrs {
			switch a.Name {
			case "builtin":
				ps.builtin = c.builtinName(a)
			case "location", "interpolate", "invariant":
			default:
				c.errorf(a.Pos, ruleAttr, "attribute @%s does not apply to a parameter", a.Name)
			}
		}
		if seen[p.Name] {
			c.errorf(p.Pos, ruleScope, "duplicate parameter '%s'", p.Name)
		}
		seen[p.Name] = true
		f.params = append(f.params, ps)
		if t.kind == kInvalid {
			continue
		}
		switch {
		case t.kind == kPtr:
			if t.space != asFunction && t.space != asPrivate {
				// unrestricted_pointer_parameters
				f.specialize = true
			}
		case isHandleType(t):
		case !t.constructible() || t.isAbstract():
			c.errorf(p.Type.Pos, ruleFunc, "parameter '%s' needs a constructible type, a pointer, a texture or a sampler, found '%s'", p.Name, t)
		}
	}
	if d.Result != nil {
		t := c.resolveType(d.Result)
		f.ret = t
		if t.kind != kInvalid && (!t.constructible() || t.isAbstract()) {
			c.errorf(d.Result.Pos, ruleFunc, "the return type must be constructible, found '%s'", t)
		}
	}
}

func (c *checker) funcBody(f *function) {
	c.funcSig(f)
	if f.checked || f.decl.Body == nil {
		return
	}
	f.checked = true
	c.fn = f
	c.ctrl = c.ctrl[:0]
	c.scopes = []map[string]*symbol{{}}
	for _, p := range f.params {
		if p.name != "" {
			c.scopes[0][p.name] = p
		}
	}
	beh := c.blockNoScope(f.decl.Body)
	if f.ret != nil && beh&bNext != 0 {
		pos := f.decl.Body.Pos
		c.errorf(pos, ruleBehavior, "function '%s' must return a value of type '%s' on every path (missing return at the end)", f.sym.name, f.ret)
	}
	c.scopes = nil
	c.fn = nil
}

// recursion reports call cycles.
func (c *checker) recursion() {
	state := map[*function]uint8{}
	var visit func(f *function) bool
	visit = func(f *function) bool {
		switch state[f] {
		case 1:
			return true
		case 2:
			return false
		}
		state[f] = 1
		for i, g := range f.calls {
			if visit(g) {
				if state[f] == 1 {
					c.errorf(f.callPos[i], ruleFunc, "recursion is not allowed: '%s' calls '%s', which leads back to '%s'", f.sym.name, g.sym.name, f.sym.name)
				}
				state[f] = 2
				return false
			}
		}
		state[f] = 2
		return false
	}
	for _, f := range c.funcs {
		visit(f)
	}
}

// pickEntry chooses and checks the compute entry point.
func (c *checker) pickEntry(name string) {
	var computes []*function
	for _, f := range c.funcs {
		if f.compute {
			computes = append(computes, f)
		}
	}
	var e *function
	switch {
	case name != "":
		s := c.byName[name]
		if s == nil || s.kind != symFunc {
			names := make([]string, 0, len(computes))
			for _, f := range computes {
				names = append(names, f.sym.name)
			}
			c.errorf(ast.Pos{Line: 1, Col: 1}, ruleEntry, "no @compute function '%s' (compute entry points: %s)", name, listOrNone(names))
			return
		}
		e = s.fn
		if !e.compute {
			c.errorf(e.decl.Pos, ruleEntry, "function '%s' is not a @compute entry point", name)
			return
		}
	case len(computes) == 1:
		e = computes[0]
	case len(computes) == 0:
		if len(c.errs) == 0 {
			c.errorf(ast.Pos{Line: 1, Col: 1}, ruleEntry, "the module has no @compute entry point")
		}
		return
	default:
		for _, f := range computes {
			if f.sym.name == "main" {
				e = f
			}
		}
		if e == nil {
			names := make([]string, 0, len(computes))
			for _, f := range computes {
				names = append(names, f.sym.name)
			}
			c.errorf(computes[1].decl.Pos, ruleEntry, "the module has several @compute entry points (%s) and none is named 'main'; choose one with Options.EntryPoint", strings.Join(names, ", "))
			return
		}
	}
	c.entry = e
	c.checkEntry(e)
	seen := map[*function]bool{}
	var visit func(f *function)
	visit = func(f *function) {
		if seen[f] {
			return
		}
		seen[f] = true
		for _, se := range f.stageErrs {
			c.errorf(se.pos, ruleFunc, "%s", se.msg)
		}
		for _, g := range f.calls {
			visit(g)
		}
		c.reachable = append(c.reachable, f)
	}
	visit(e)
}

func listOrNone(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

var computeBuiltins = map[string]*wtype{
	"local_invocation_id":    vecOf(tU32, 3),
	"local_invocation_index": tU32,
	"global_invocation_id":   vecOf(tU32, 3),
	"workgroup_id":           vecOf(tU32, 3),
	"num_workgroups":         vecOf(tU32, 3),
	"subgroup_invocation_id": tU32,
	"subgroup_size":          tU32,
}

func (c *checker) checkBuiltinParam(pos ast.Pos, name string, t *wtype) {
	want, ok := computeBuiltins[name]
	if !ok {
		c.errorf(pos, ruleEntry, "@builtin(%s) is not a compute shader input (inputs: global_invocation_id, local_invocation_id, local_invocation_index, workgroup_id, num_workgroups, subgroup_invocation_id, subgroup_size)", name)
		return
	}
	if (name == "subgroup_invocation_id" || name == "subgroup_size") && !c.subgroup {
		c.errorf(pos, ruleExt, "@builtin(%s) needs 'enable subgroups;'", name)
	}
	if !sameType(want, t) {
		c.errorf(pos, ruleEntry, "@builtin(%s) must have type '%s', found '%s'", name, want, t)
	}
}

func (c *checker) checkEntry(e *function) {
	d := e.decl
	var wg *ast.Attribute
	for _, a := range d.Attrs {
		if a.Name == "workgroup_size" {
			wg = a
		}
	}
	if wg == nil {
		c.errorf(d.Pos, ruleEntry, "@compute function '%s' needs a @workgroup_size attribute", d.Name)
	} else {
		c.workgroupSize(e, wg)
	}
	if e.ret != nil {
		c.errorf(d.Pos, ruleEntry, "a @compute entry point cannot return a value")
	}
	seen := map[string]bool{}
	for _, p := range e.params {
		if p.t.kind == kInvalid {
			continue
		}
		if p.t.kind == kStruct {
			if p.builtin != "" {
				c.errorf(p.pos, ruleEntry, "@builtin(%s) must have type '%s', found '%s'", p.builtin, computeBuiltins[p.builtin], p.t)
				continue
			}
			for _, m := range p.t.st.members {
				if m.builtin == "" {
					c.errorf(m.pos, ruleEntry, "member '%s' of entry-point parameter structure '%s' needs a @builtin attribute (compute shaders have no user-defined inputs)", m.name, p.t.st.name)
					continue
				}
				if seen[m.builtin] {
					c.errorf(m.pos, ruleEntry, "@builtin(%s) appears twice in the entry point's inputs", m.builtin)
				}
				seen[m.builtin] = true
				c.checkBuiltinParam(m.pos, m.builtin, m.t)
			}
			continue
		}
		if p.builtin == "" {
			c.errorf(p.pos, ruleEntry, "entry-point parameter '%s' needs a @builtin attribute (compute shaders have no user-defined inputs)", p.name)
			continue
		}
		if seen[p.builtin] {
			c.errorf(p.pos, ruleEntry, "@builtin(%s) appears twice in the entry point's inputs", p.builtin)
		}
		seen[p.builtin] = true
		c.checkBuiltinParam(p.pos, p.builtin, p.t)
	}
	// Resource bindings of the statically used globals.
	used := c.usedGlobals(e)
	type gb struct{ g, b int64 }
	byGB := map[gb]*symbol{}
	for _, s := range used {
		if s.kind != symVar || !s.hasGB {
			continue
		}
		k := gb{s.group, s.binding}
		if prev, ok := byGB[k]; ok {
			c.errorf(s.pos, ruleResource, "'%s' and '%s' both use @group(%d) @binding(%d)", prev.name, s.name, s.group, s.binding)
			continue
		}
		byGB[k] = s
	}
}

// usedGlobals returns the module-scope variables and overrides that the
// function statically uses, directly or through calls, in declaration
// order.
func (c *checker) usedGlobals(e *function) []*symbol {
	seen := map[*function]bool{}
	set := map[*symbol]bool{}
	var visit func(f *function)
	visit = func(f *function) {
		if seen[f] {
			return
		}
		seen[f] = true
		for s := range f.globals {
			set[s] = true
		}
		for _, g := range f.calls {
			visit(g)
		}
	}
	visit(e)
	var out []*symbol
	for _, s := range c.globals {
		if set[s] {
			out = append(out, s)
		}
	}
	return out
}

func (c *checker) workgroupSize(e *function, a *ast.Attribute) {
	if len(a.Args) < 1 || len(a.Args) > 3 {
		c.errorf(a.Pos, ruleAttr, "@workgroup_size takes one to three arguments")
		return
	}
	var kind *wtype
	for i := 0; i < 3; i++ {
		e.wgVal[i] = 1
	}
	for i, x := range a.Args {
		ei := c.expr(x)
		if ei.t.kind == kInvalid {
			continue
		}
		t := ei.t.unref()
		if !(t.kind == kAbsInt || t.kind == kI32 || t.kind == kU32) {
			c.errorf(x.Position(), ruleAttr, "@workgroup_size arguments must be i32 or u32, found '%s'", t)
			continue
		}
		if t.kind != kAbsInt {
			if kind != nil && kind.kind != t.kind {
				c.errorf(x.Position(), ruleAttr, "@workgroup_size arguments must all have the same type (i32 or u32)")
			}
			kind = t
		}
		if ei.stage == stRuntime {
			c.errorf(x.Position(), ruleAttr, "@workgroup_size arguments must be const-expressions or override-expressions")
			continue
		}
		e.wgSize[i] = x
		if ei.val != nil {
			e.wgVal[i] = ei.val.i
			if ei.val.i <= 0 {
				if ei.stage == stConst {
					c.errorf(x.Position(), ruleAttr, "@workgroup_size arguments must be positive, found %d", ei.val.i)
				}
				e.wgVal[i] = 1
			}
		}
	}
	if kind == nil {
		kind = tI32
	}
	for _, x := range a.Args {
		if ei := c.info[x]; ei != nil && ei.t.kind == kAbsInt {
			c.convertTo(x, kind, "workgroup size")
		}
	}
}

// ---- scopes and lookup ---------------------------------------------------------

func (c *checker) push() { c.scopes = append(c.scopes, map[string]*symbol{}) }
func (c *checker) pop()  { c.scopes = c.scopes[:len(c.scopes)-1] }

func (c *checker) declareLocal(s *symbol) {
	top := c.scopes[len(c.scopes)-1]
	if prev, ok := top[s.name]; ok {
		c.errorf(s.pos, ruleScope, "redeclaration of '%s' in the same scope (previously declared at %d:%d)", s.name, prev.pos.Line, prev.pos.Col)
	}
	top[s.name] = s
	if c.fn != nil {
		if c.fn.locals == nil {
			c.fn.locals = map[string]bool{}
		}
		c.fn.locals[s.name] = true
	}
}

// lookup finds a declared name: function scopes innermost first, then
// module scope. It returns nil for predeclared and unknown names.
func (c *checker) lookup(name string) *symbol {
	for i := len(c.scopes) - 1; i >= 0; i-- {
		if s, ok := c.scopes[i][name]; ok {
			return s
		}
	}
	if s, ok := c.byName[name]; ok {
		c.resolveGlobal(s)
		return s
	}
	return nil
}

// suggest returns " did you mean 'x'?" for the nearest visible name.
func (c *checker) suggest(name string, types bool) string {
	best, bestD := "", 1<<30
	try := func(n string) {
		if n == name {
			return
		}
		d := editDistance(name, n)
		if d < bestD || (d == bestD && n < best) {
			best, bestD = n, d
		}
	}
	for i := len(c.scopes) - 1; i >= 0; i-- {
		for n := range c.scopes[i] {
			try(n)
		}
	}
	for n := range c.byName {
		try(n)
	}
	if types {
		for n := range predeclaredTypes {
			try(n)
		}
	} else {
		for n := range builtinFuncs {
			try(n)
		}
	}
	limit := max(1, len(name)/3)
	if best == "" || bestD > limit {
		return ""
	}
	return "; did you mean '" + best + "'?"
}

func editDistance(a, b string) int {
	if len(a) > 64 || len(b) > 64 {
		return 1 << 20
	}
	// Optimal string alignment: edits and adjacent transpositions.
	pp := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], pp[j-2]+1)
			}
		}
		pp, prev, cur = prev, cur, pp
	}
	return prev[len(b)]
}

// ---- types -----------------------------------------------------------------------

var predeclaredTypes = map[string]bool{
	"bool": true, "i32": true, "u32": true, "f32": true, "f16": true,
	"vec2": true, "vec3": true, "vec4": true,
	"mat2x2": true, "mat2x3": true, "mat2x4": true, "mat3x2": true, "mat3x3": true, "mat3x4": true, "mat4x2": true, "mat4x3": true, "mat4x4": true,
	"array": true, "atomic": true, "ptr": true, "sampler": true, "sampler_comparison": true,
	"texture_1d": true, "texture_2d": true, "texture_2d_array": true, "texture_3d": true, "texture_cube": true, "texture_cube_array": true,
	"texture_multisampled_2d": true, "texture_depth_2d": true, "texture_depth_2d_array": true, "texture_depth_cube": true,
	"texture_depth_cube_array": true, "texture_depth_multisampled_2d": true,
	"texture_storage_1d": true, "texture_storage_2d": true, "texture_storage_2d_array": true, "texture_storage_3d": true,
	"vec2i": true, "vec3i": true, "vec4i": true, "vec2u": true, "vec3u": true, "vec4u": true,
	"vec2f": true, "vec3f": true, "vec4f": true, "vec2h": true, "vec3h": true, "vec4h": true,
	"mat2x2f": true, "mat2x3f": true, "mat2x4f": true, "mat3x2f": true, "mat3x3f": true, "mat3x4f": true, "mat4x2f": true, "mat4x3f": true, "mat4x4f": true,
	"mat2x2h": true, "mat2x3h": true, "mat2x4h": true, "mat3x2h": true, "mat3x3h": true, "mat3x4h": true, "mat4x2h": true, "mat4x3h": true, "mat4x4h": true,
}

// resolveType resolves a type expression; errors yield tInvalid.
func (c *checker) resolveType(id *ast.Ident) *wtype {
	if id == nil {
		return tInvalid
	}
	c.depth++
	defer func() { c.depth-- }()
	if c.depth > 64 {
		c.errorf(id.Pos, ruleType, "type nested too deeply")
		return tInvalid
	}
	if s := c.lookup(id.Name); s != nil {
		switch s.kind {
		case symStruct, symAlias:
			if id.Args != nil {
				c.errorf(id.Pos, ruleType, "'%s' takes no template arguments", id.Name)
			}
			if s.t == nil {
				return tInvalid
			}
			return s.t
		}
		c.errorf(id.Pos, ruleType, "'%s' is not a type", id.Name)
		return tInvalid
	}
	t, ok := c.predeclaredType(id)
	if !ok {
		c.errorf(id.Pos, ruleScope, "unknown type '%s'%s", id.Name, c.suggest(id.Name, true))
		return tInvalid
	}
	return t
}

func (c *checker) scalarType(name string, pos ast.Pos) *wtype {
	switch name {
	case "bool":
		return tBool
	case "i32":
		return tI32
	case "u32":
		return tU32
	case "f32":
		return tF32
	case "f16":
		if !c.f16 {
			c.errorf(pos, ruleExt, "the f16 type needs 'enable f16;' at the top of the module")
		}
		return tF16
	}
	return nil
}

// typeArg resolves the i'th template argument as a type.
func (c *checker) typeArg(id *ast.Ident, i int) *wtype {
	if i >= len(id.Args) {
		c.errorf(id.Pos, ruleType, "'%s' needs %d template argument(s)", id.Name, i+1)
		return tInvalid
	}
	a, ok := id.Args[i].(*ast.Ident)
	if !ok {
		c.errorf(id.Args[i].Position(), ruleType, "expected a type as template argument %d of '%s'", i+1, id.Name)
		return tInvalid
	}
	return c.resolveType(a)
}

func enumArg(id *ast.Ident, i int) (string, ast.Pos, bool) {
	if i >= len(id.Args) {
		return "", id.Pos, false
	}
	a, ok := id.Args[i].(*ast.Ident)
	if !ok || a.Args != nil {
		return "", id.Args[i].Position(), false
	}
	return a.Name, a.Pos, true
}

// predeclaredType resolves a predeclared type or type generator; ok is false
// when the name is not one.
func (c *checker) predeclaredType(id *ast.Ident) (*wtype, bool) {
	name := id.Name
	noArgs := func() {
		if id.Args != nil {
			c.errorf(id.Pos, ruleType, "'%s' takes no template arguments", name)
		}
	}
	if s := c.scalarType(name, id.Pos); s != nil {
		noArgs()
		return s, true
	}
	// Aliases vec3f, mat4x4h...
	if len(name) == 5 && strings.HasPrefix(name, "vec") && name[3] >= '2' && name[3] <= '4' {
		var e *wtype
		switch name[4] {
		case 'i':
			e = tI32
		case 'u':
			e = tU32
		case 'f':
			e = tF32
		case 'h':
			e = c.scalarType("f16", id.Pos)
		}
		if e != nil {
			noArgs()
			return vecOf(e, int(name[3]-'0')), true
		}
	}
	if len(name) == 7 && strings.HasPrefix(name, "mat") && name[4] == 'x' && (name[6] == 'f' || name[6] == 'h') &&
		name[3] >= '2' && name[3] <= '4' && name[5] >= '2' && name[5] <= '4' {
		noArgs()
		e := tF32
		if name[6] == 'h' {
			e = c.scalarType("f16", id.Pos)
		}
		return matOf(e, int(name[3]-'0'), int(name[5]-'0')), true
	}
	switch name {
	case "vec2", "vec3", "vec4":
		if len(id.Args) != 1 {
			c.errorf(id.Pos, ruleType, "'%s' needs one template argument, the component type: %s<f32>", name, name)
			return tInvalid, true
		}
		e := c.typeArg(id, 0)
		if e.kind == kInvalid {
			return tInvalid, true
		}
		if !e.isScalar() {
			c.errorf(id.Pos, ruleType, "vector components must be scalars, found '%s'", e)
			return tInvalid, true
		}
		return vecOf(e, int(name[3]-'0')), true
	case "mat2x2", "mat2x3", "mat2x4", "mat3x2", "mat3x3", "mat3x4", "mat4x2", "mat4x3", "mat4x4":
		if len(id.Args) != 1 {
			c.errorf(id.Pos, ruleType, "'%s' needs one template argument: %s<f32>", name, name)
			return tInvalid, true
		}
		e := c.typeArg(id, 0)
		if e.kind == kInvalid {
			return tInvalid, true
		}
		if !e.isFloatScalar() {
			c.errorf(id.Pos, ruleType, "matrix components must be f32 or f16, found '%s'", e)
			return tInvalid, true
		}
		return matOf(e, int(name[3]-'0'), int(name[5]-'0')), true
	case "array":
		if len(id.Args) < 1 || len(id.Args) > 2 {
			c.errorf(id.Pos, ruleType, "'array' takes an element type and an optional element count: array<f32, 4>")
			return tInvalid, true
		}
		e := c.typeArg(id, 0)
		if e.kind == kInvalid {
			return tInvalid, true
		}
		if !e.isPlain() || !e.fixedFootprint() || e.isAbstract() {
			c.errorf(id.Pos, ruleType, "array elements need a concrete fixed-footprint plain type, found '%s'", e)
			return tInvalid, true
		}
		if len(id.Args) == 1 {
			return &wtype{kind: kArray, elem: e}, true
		}
		ce := id.Args[1]
		ei := c.expr(ce)
		if ei.t.kind == kInvalid {
			return tInvalid, true
		}
		ct := ei.t.unref()
		if !(ct.kind == kAbsInt || ct.kind == kI32 || ct.kind == kU32) {
			c.errorf(ce.Position(), ruleType, "the array element count must be an integer, found '%s'", ct)
			return tInvalid, true
		}
		switch ei.stage {
		case stConst:
			if ei.val == nil {
				return tInvalid, true
			}
			if ei.val.i <= 0 {
				c.errorf(ce.Position(), ruleType, "the array element count must be positive, found %d", ei.val.i)
				return tInvalid, true
			}
			if ei.val.i > 1<<24 {
				c.errorf(ce.Position(), ruleType, "the array element count %d is too large", ei.val.i)
				return tInvalid, true
			}
			if ct.kind == kAbsInt {
				c.convertTo(ce, tI32, "array count")
			}
			return arrayOf(e, int(ei.val.i)), true
		case stOverride:
			if c.fn != nil {
				c.errorf(ce.Position(), ruleType, "arrays sized by an override-expression are only allowed as the type of var<workgroup>")
				return tInvalid, true
			}
			if ct.kind == kAbsInt {
				c.convertTo(ce, tI32, "array count")
			}
			return &wtype{kind: kArray, elem: e, countExpr: ce}, true
		default:
			c.errorf(ce.Position(), ruleType, "the array element count must be a const-expression (or an override-expression for var<workgroup>); a function-scope array's size cannot depend on runtime values")
			return tInvalid, true
		}
	case "atomic":
		if len(id.Args) != 1 {
			c.errorf(id.Pos, ruleType, "'atomic' needs one template argument: atomic<u32> or atomic<i32>")
			return tInvalid, true
		}
		e := c.typeArg(id, 0)
		if e.kind != kI32 && e.kind != kU32 {
			if e.kind != kInvalid {
				c.errorf(id.Pos, ruleType, "atomics hold i32 or u32, found '%s'", e)
			}
			return tInvalid, true
		}
		return &wtype{kind: kAtomic, elem: e}, true
	case "ptr":
		if len(id.Args) < 2 || len(id.Args) > 3 {
			c.errorf(id.Pos, ruleType, "'ptr' takes an address space, a store type and an optional access mode: ptr<function, i32>")
			return tInvalid, true
		}
		asName, asPos, ok := enumArg(id, 0)
		space := asNone
		switch asName {
		case "function":
			space = asFunction
		case "private":
			space = asPrivate
		case "workgroup":
			space = asWorkgroup
		case "uniform":
			space = asUniform
		case "storage":
			space = asStorage
		}
		if !ok || space == asNone {
			c.errorf(asPos, ruleAddr, "expected an address space (function, private, workgroup, uniform, storage) as the first template argument of 'ptr'")
			return tInvalid, true
		}
		e := c.typeArg(id, 1)
		if e.kind == kInvalid {
			return tInvalid, true
		}
		acc := accReadWrite
		if space == asUniform || space == asStorage {
			acc = accRead
		}
		if len(id.Args) == 3 {
			an, apos, ok := enumArg(id, 2)
			switch {
			case !ok:
				c.errorf(apos, ruleAddr, "expected an access mode (read, write, read_write)")
			case space != asStorage:
				c.errorf(apos, ruleAddr, "only ptr<storage, ...> takes an access mode")
			case an == "read":
				acc = accRead
			case an == "read_write":
				acc = accReadWrite
			case an == "write":
				acc = accWrite
			default:
				c.errorf(apos, ruleAddr, "unknown access mode '%s'", an)
			}
		}
		return ptrOf(space, e, acc), true
	case "sampler":
		noArgs()
		return tSampler, true
	case "sampler_comparison":
		noArgs()
		return tSamplerC, true
	}
	if strings.HasPrefix(name, "texture_") {
		return c.textureType(id), true
	}
	return nil, false
}

func (c *checker) textureType(id *ast.Ident) *wtype {
	name := id.Name
	t := &wtype{kind: kTexture}
	rest := strings.TrimPrefix(name, "texture_")
	switch {
	case strings.HasPrefix(rest, "storage_"):
		t.kind = kStorageTexture
		rest = strings.TrimPrefix(rest, "storage_")
	case strings.HasPrefix(rest, "depth_multisampled_"):
		t.flavour = texDepthMultisampled
		rest = strings.TrimPrefix(rest, "depth_multisampled_")
	case strings.HasPrefix(rest, "depth_"):
		t.flavour = texDepth
		rest = strings.TrimPrefix(rest, "depth_")
	case strings.HasPrefix(rest, "multisampled_"):
		t.flavour = texMultisampled
		rest = strings.TrimPrefix(rest, "multisampled_")
	}
	switch rest {
	case "1d":
		t.dim = dim1D
	case "2d":
		t.dim = dim2D
	case "2d_array":
		t.dim, t.arrayed = dim2D, true
	case "3d":
		t.dim = dim3D
	case "cube":
		t.dim = dimCube
	case "cube_array":
		t.dim, t.arrayed = dimCube, true
	default:
		c.errorf(id.Pos, ruleScope, "unknown type '%s'%s", name, c.suggest(name, true))
		return tInvalid
	}
	bad := func() *wtype {
		c.errorf(id.Pos, ruleScope, "unknown type '%s'%s", name, c.suggest(name, true))
		return tInvalid
	}
	switch {
	case t.kind == kStorageTexture:
		if t.dim == dimCube {
			return bad()
		}
		if len(id.Args) != 2 {
			c.errorf(id.Pos, ruleType, "'%s' takes a texel format and an access mode: %s<rgba8unorm, write>", name, name)
			return tInvalid
		}
		f, fpos, ok := enumArg(id, 0)
		if !ok || texelFormats[f] == nil {
			c.errorf(fpos, ruleType, "unknown texel format '%s'", f)
			return tInvalid
		}
		t.format = f
		t.elem = texelFormats[f].sampled
		a, apos, ok := enumArg(id, 1)
		switch {
		case ok && a == "read":
			t.access = accRead
		case ok && a == "write":
			t.access = accWrite
		case ok && a == "read_write":
			t.access = accReadWrite
		default:
			c.errorf(apos, ruleType, "expected an access mode (read, write, read_write) for '%s'", name)
			return tInvalid
		}
		return t
	case t.flavour == texDepth || t.flavour == texDepthMultisampled:
		if t.flavour == texDepthMultisampled && (t.dim != dim2D || t.arrayed) {
			return bad()
		}
		if t.dim == dim1D || t.dim == dim3D {
			return bad()
		}
		if id.Args != nil {
			c.errorf(id.Pos, ruleType, "'%s' takes no template arguments", name)
		}
		t.elem = tF32
		return t
	default:
		if t.flavour == texMultisampled && (t.dim != dim2D || t.arrayed) {
			return bad()
		}
		if t.dim == dim1D && t.arrayed {
			return bad()
		}
		if len(id.Args) != 1 {
			c.errorf(id.Pos, ruleType, "'%s' needs the sampled type: %s<f32>", name, name)
			return tInvalid
		}
		e := c.typeArg(id, 0)
		if e.kind == kInvalid {
			return tInvalid
		}
		if e.kind != kF32 && e.kind != kI32 && e.kind != kU32 {
			c.errorf(id.Pos, ruleType, "the sampled type of a texture must be f32, i32 or u32, found '%s'", e)
			return tInvalid
		}
		t.elem = e
		return t
	}
}

type texelFormat struct {
	glsl    string
	sampled *wtype
}

var texelFormats = map[string]*texelFormat{
	"rgba8unorm":    {"rgba8", tF32},
	"rgba8snorm":    {"rgba8_snorm", tF32},
	"rgba8uint":     {"rgba8ui", tU32},
	"rgba8sint":     {"rgba8i", tI32},
	"rgba16uint":    {"rgba16ui", tU32},
	"rgba16sint":    {"rgba16i", tI32},
	"rgba16float":   {"rgba16f", tF32},
	"rgba16unorm":   {"rgba16", tF32},
	"rgba16snorm":   {"rgba16_snorm", tF32},
	"r32uint":       {"r32ui", tU32},
	"r32sint":       {"r32i", tI32},
	"r32float":      {"r32f", tF32},
	"rg32uint":      {"rg32ui", tU32},
	"rg32sint":      {"rg32i", tI32},
	"rg32float":     {"rg32f", tF32},
	"rgba32uint":    {"rgba32ui", tU32},
	"rgba32sint":    {"rgba32i", tI32},
	"rgba32float":   {"rgba32f", tF32},
	"bgra8unorm":    {"rgba8", tF32},
	"r8unorm":       {"r8", tF32},
	"r8snorm":       {"r8_snorm", tF32},
	"r8uint":        {"r8ui", tU32},
	"r8sint":        {"r8i", tI32},
	"rg8unorm":      {"rg8", tF32},
	"rg8snorm":      {"rg8_snorm", tF32},
	"rg8uint":       {"rg8ui", tU32},
	"rg8sint":       {"rg8i", tI32},
	"r16uint":       {"r16ui", tU32},
	"r16sint":       {"r16i", tI32},
	"r16float":      {"r16f", tF32},
	"r16unorm":      {"r16", tF32},
	"r16snorm":      {"r16_snorm", tF32},
	"rg16uint":      {"rg16ui", tU32},
	"rg16sint":      {"rg16i", tI32},
	"rg16float":     {"rg16f", tF32},
	"rg16unorm":     {"rg16", tF32},
	"rg16snorm":     {"rg16_snorm", tF32},
	"rgb10a2uint":   {"rgb10_a2ui", tU32},
	"rgb10a2unorm":  {"rgb10_a2", tF32},
	"rg11b10ufloat": {"r11f_g11f_b10f", tF32},
}

// ---- statements ---------------------------------------------------------------------

// Statement behaviors.
const (
	bNext uint8 = 1 << iota
	bReturn
	bBreak
	bContinue
)

func (c *checker) block(b *ast.BlockStmt) uint8 {
	c.push()
	beh := c.blockNoScope(b)
	c.pop()
	return beh
}

func (c *checker) blockNoScope(b *ast.BlockStmt) uint8 {
	beh := bNext
	if b == nil {
		return beh
	}
	for _, s := range b.Stmts {
		sb := c.stmt(s)
		if beh&bNext != 0 {
			beh = beh&^bNext | sb
		}
	}
	return beh
}

func (c *checker) inLoop() bool {
	for i := len(c.ctrl) - 1; i >= 0; i-- {
		if c.ctrl[i] == ctrlLoop {
			return true
		}
	}
	return false
}

func (c *checker) stmt(s ast.Stmt) uint8 {
	switch s := s.(type) {
	case *ast.BlockStmt:
		return c.block(s)
	case *ast.DeclStmt:
		c.localDecl(s.Decl)
		return bNext
	case *ast.AssignStmt:
		c.assign(s)
		return bNext
	case *ast.IncDecStmt:
		c.incDec(s)
		return bNext
	case *ast.CallStmt:
		c.callStmt(s.Call)
		return bNext
	case *ast.IfStmt:
		c.condition(s.Cond, "if")
		b := c.block(s.Body)
		if s.Else != nil {
			b |= c.stmt(s.Else)
		} else {
			b |= bNext
		}
		return b
	case *ast.SwitchStmt:
		return c.switchStmt(s)
	case *ast.LoopStmt:
		c.ctrl = append(c.ctrl, ctrlLoop)
		c.push()
		b := c.blockNoScope(s.Body)
		if s.Continuing != nil || s.BreakIf != nil {
			c.ctrl = append(c.ctrl, ctrlContinuing)
			c.push()
			c.blockNoScope(s.Continuing)
			if s.BreakIf != nil {
				c.condition(s.BreakIf, "break if")
				b |= bBreak
			}
			c.pop()
			c.ctrl = c.ctrl[:len(c.ctrl)-1]
		}
		c.pop()
		c.ctrl = c.ctrl[:len(c.ctrl)-1]
		if b&bBreak != 0 {
			return b&^(bBreak|bContinue) | bNext
		}
		return b &^ (bNext | bContinue)
	case *ast.ForStmt:
		c.push()
		if s.Init != nil {
			c.stmt(s.Init)
		}
		if s.Cond != nil {
			c.condition(s.Cond, "for")
		}
		if s.Update != nil {
			c.stmt(s.Update)
		}
		c.ctrl = append(c.ctrl, ctrlLoop)
		b := c.block(s.Body)
		c.ctrl = c.ctrl[:len(c.ctrl)-1]
		c.pop()
		if s.Cond == nil && b&bBreak == 0 {
			return b &^ (bNext | bContinue)
		}
		return b&^(bBreak|bContinue) | bNext
	case *ast.WhileStmt:
		c.condition(s.Cond, "while")
		c.ctrl = append(c.ctrl, ctrlLoop)
		b := c.block(s.Body)
		c.ctrl = c.ctrl[:len(c.ctrl)-1]
		return b&^(bBreak|bContinue) | bNext
	case *ast.BranchStmt:
		switch s.Kind {
		case "break":
			if len(c.ctrl) == 0 || c.ctrl[len(c.ctrl)-1] == ctrlContinuing {
				if len(c.ctrl) == 0 {
					c.errorf(s.Pos, ruleStmt, "'break' must be inside a loop or switch")
				} else {
					c.errorf(s.Pos, ruleStmt, "'break' cannot be used directly in a continuing block; use 'break if cond;' at its end")
				}
			}
			return bBreak
		case "continue":
			if !c.inLoop() {
				c.errorf(s.Pos, ruleStmt, "'continue' must be inside a loop")
			} else {
				for i := len(c.ctrl) - 1; i >= 0; i-- {
					if c.ctrl[i] == ctrlLoop {
						break
					}
					if c.ctrl[i] == ctrlContinuing {
						c.errorf(s.Pos, ruleStmt, "'continue' cannot be used in a continuing block")
						break
					}
				}
			}
			return bContinue
		case "discard":
			if c.fn != nil {
				c.fn.stageErrs = append(c.fn.stageErrs, stageErr{s.Pos, "'discard' is only allowed in fragment shaders"})
			}
			return bNext
		}
		return bNext
	case *ast.ReturnStmt:
		for _, k := range c.ctrl {
			if k == ctrlContinuing {
				c.errorf(s.Pos, ruleStmt, "'return' cannot be used in a continuing block")
				break
			}
		}
		if c.fn == nil {
			return bReturn
		}
		if s.Value == nil {
			if c.fn.ret != nil && c.fn.ret.kind != kInvalid {
				c.errorf(s.Pos, ruleType, "function '%s' must return a value of type '%s'", c.fn.sym.name, c.fn.ret)
			}
			return bReturn
		}
		ei := c.expr(s.Value)
		if c.fn.ret == nil {
			if ei.t.kind != kInvalid {
				c.errorf(s.Value.Position(), ruleType, "function '%s' has no return type but returns a value", c.fn.sym.name)
			}
			return bReturn
		}
		c.convertTo(s.Value, c.fn.ret, "return value")
		return bReturn
	case *ast.ConstAssertStmt:
		c.constAssert(s.Assert)
		return bNext
	}
	return bNext
}

func (c *checker) constAssert(a *ast.ConstAssert) {
	ei := c.expr(a.Cond)
	if ei.t.kind == kInvalid {
		return
	}
	if ei.t.unref().kind != kBool {
		c.errorf(a.Cond.Position(), ruleType, "const_assert needs a bool, found '%s'", ei.t.unref())
		return
	}
	if ei.stage != stConst || ei.val == nil {
		c.errorf(a.Cond.Position(), ruleConst, "const_assert needs a const-expression")
		return
	}
	if !ei.val.b() {
		c.errorf(a.Pos, ruleAssert, "const assertion failed")
	}
}

func (c *checker) condition(e ast.Expr, what string) {
	ei := c.expr(e)
	if ei.t.kind == kInvalid {
		return
	}
	if t := ei.t.unref(); t.kind != kBool {
		c.errorf(e.Position(), ruleType, "the condition of '%s' must be bool, found '%s'", what, t)
	}
}

func (c *checker) localDecl(d *ast.VarDecl) {
	s := &symbol{name: d.Name, pos: d.NamePos, decl: d, ovID: -1}
	if s.pos.Line == 0 {
		s.pos = d.Pos
	}
	c.declSym[d] = s
	switch d.Kind {
	case "const":
		s.kind = symConst
		c.constDecl(s, d)
	case "let":
		s.kind = symLet
		if d.Init == nil {
			c.errorf(d.Pos, ruleType, "'let %s' needs an initializer", d.Name)
			s.t = tInvalid
			break
		}
		ei := c.expr(d.Init)
		var t *wtype
		if d.Type != nil {
			t = c.resolveType(d.Type)
			c.convertTo(d.Init, t, "initializer")
		} else if ei.t.kind != kInvalid {
			t = c.concretize(d.Init, ei)
		}
		if t == nil {
			t = tInvalid
		}
		s.t = t
		if t.kind == kPtr {
			s.ptrInit = d.Init
		} else if t.kind != kInvalid && (!t.constructible() || t.isAbstract()) && !isHandleType(t) {
			c.errorf(d.Pos, ruleType, "'let' needs a constructible type or a pointer, found '%s'", t)
		}
	case "var":
		s.kind = symVar
		space := asFunction
		switch d.AddressSpace {
		case "", "function":
		default:
			c.errorf(d.Pos, ruleAddr, "function-scope variables are in the 'function' address space, not '%s'", d.AddressSpace)
		}
		if d.Access != "" {
			c.errorf(d.Pos, ruleAddr, "function-scope variables take no access mode")
		}
		for _, a := range d.Attrs {
			c.errorf(a.Pos, ruleAttr, "attribute @%s does not apply to a function-scope variable", a.Name)
		}
		var t *wtype
		if d.Type != nil {
			t = c.resolveType(d.Type)
		}
		if d.Init != nil {
			ei := c.expr(d.Init)
			if t == nil {
				if ei.t.kind != kInvalid {
					t = c.concretize(d.Init, ei)
				}
			} else {
				c.convertTo(d.Init, t, "initializer")
			}
		}
		if t == nil {
			if d.Type == nil && d.Init == nil {
				c.errorf(d.Pos, ruleType, "variable '%s' needs a type or an initializer", d.Name)
			}
			t = tInvalid
		}
		s.t, s.space, s.access = t, space, accReadWrite
		c.checkVarType(d.Pos, space, accReadWrite, t, false)
	default:
		c.errorf(d.Pos, ruleScope, "'%s' declarations are only allowed at module scope", d.Kind)
		s.t = tInvalid
	}
	c.declareLocal(s)
}

// lvalue checks the left side of an assignment: a reference with write
// access; it returns the store type.
func (c *checker) lvalue(e ast.Expr, what string) *wtype {
	ei := c.expr(e)
	if ei.t.kind == kInvalid {
		return tInvalid
	}
	if ei.t.kind != kRef {
		msg := "the left side of " + what + " must be a reference to memory (a variable, or a member, element or component of one)"
		if ei.sym != nil {
			switch ei.sym.kind {
			case symLet:
				msg = "cannot assign to 'let " + ei.sym.name + "': let-declarations are immutable (use 'var')"
			case symConst:
				msg = "cannot assign to 'const " + ei.sym.name + "'"
			case symOverride:
				msg = "cannot assign to 'override " + ei.sym.name + "'"
			case symParam:
				msg = "cannot assign to parameter '" + ei.sym.name + "': parameters are immutable (copy it into a 'var')"
			}
		}
		if ei.t.kind == kPtr {
			msg += "; dereference the pointer with '*'"
		}
		c.errorf(startPos(e), ruleType, "%s", msg)
		return tInvalid
	}
	if ei.t.access == accRead {
		c.errorf(startPos(e), ruleAddr, "cannot write through a read-only reference into var<%s> (declare it var<storage, read_write>)", ei.t.space)
		return tInvalid
	}
	if ei.t.elem.kind == kAtomic {
		c.errorf(startPos(e), ruleType, "atomics cannot be assigned; use atomicStore")
		return tInvalid
	}
	return ei.t.elem
}

// startPos is the position of an expression's first token.
func startPos(e ast.Expr) ast.Pos {
	for {
		switch x := e.(type) {
		case *ast.MemberExpr:
			e = x.X
		case *ast.IndexExpr:
			e = x.X
		case *ast.BinaryExpr:
			e = x.X
		default:
			return e.Position()
		}
	}
}

func (c *checker) assign(s *ast.AssignStmt) {
	if s.LHS == nil {
		ei := c.expr(s.RHS)
		if ei.t.kind == kInvalid {
			return
		}
		t := ei.t.unref()
		if t.kind == kVoid {
			c.errorf(s.RHS.Position(), ruleType, "'_ =' needs a value; the function returns nothing")
			return
		}
		if !(t.constructible() || t.kind == kPtr || isHandleType(t)) {
			c.errorf(s.RHS.Position(), ruleType, "'_ =' needs a constructible value, a pointer, a texture or a sampler, found '%s'", t)
		}
		if ei.t.kind == kRef {
			c.load(s.RHS)
		}
		return
	}
	lt := c.lvalue(s.LHS, "an assignment")
	if s.Op == "=" || s.Op == "" {
		c.expr(s.RHS)
		if lt.kind == kInvalid {
			return
		}
		if !lt.constructible() {
			c.errorf(s.Pos, ruleType, "cannot assign a value of type '%s' (not constructible)", lt)
			return
		}
		c.convertTo(s.RHS, lt, "assigned value")
		return
	}
	op := strings.TrimSuffix(s.Op, "=")
	c.expr(s.RHS)
	if lt.kind == kInvalid {
		return
	}
	rt := c.binaryTypes(s.Pos, op, s.LHS, s.RHS, true)
	if rt != nil && rt.kind != kInvalid && !sameType(rt, lt) {
		c.errorf(s.Pos, ruleType, "'%s' yields '%s', which cannot be stored in '%s'", s.Op, rt, lt)
	}
}

func (c *checker) incDec(s *ast.IncDecStmt) {
	lt := c.lvalue(s.LHS, "'"+s.Op+"'")
	if lt.kind == kInvalid {
		return
	}
	if lt.kind != kI32 && lt.kind != kU32 {
		c.errorf(s.Pos, ruleType, "'%s' needs an i32 or u32 variable, found '%s'", s.Op, lt)
	}
}

func (c *checker) callStmt(call *ast.CallExpr) {
	ei := c.expr(call)
	if ei.t.kind == kInvalid || ei.call == nil {
		return
	}
	ci := ei.call
	switch ci.kind {
	case callUser:
		if ci.fn != nil && ci.fn.mustUse {
			c.errorf(call.Pos, ruleFunc, "the result of '%s' (@must_use) must be used", ci.fn.sym.name)
		}
	case callBuiltin:
		if b := builtinFuncs[ci.name]; b != nil && b.mustUse && ei.t.kind != kVoid {
			c.errorf(call.Pos, ruleFunc, "the result of built-in '%s' must be used (assign it, or discard it with '_ = ...')", ci.name)
		}
	default:
		c.errorf(call.Pos, ruleFunc, "a value constructor cannot be used as a statement")
	}
}

func (c *checker) switchStmt(s *ast.SwitchStmt) uint8 {
	ei := c.expr(s.Tag)
	tt := ei.t.unref()
	if tt.kind != kInvalid && tt.kind != kI32 && tt.kind != kU32 && tt.kind != kAbsInt {
		c.errorf(s.Tag.Position(), ruleType, "the switch selector must be i32 or u32, found '%s'", tt)
		tt = tInvalid
	}
	// The common type of the selector and the case values.
	common := tt
	for _, cl := range s.Clauses {
		for _, sel := range cl.Selectors {
			if sel == nil {
				continue
			}
			si := c.expr(sel)
			st := si.t.unref()
			if st.kind == kInvalid || common.kind == kInvalid {
				continue
			}
			if st.kind != kI32 && st.kind != kU32 && st.kind != kAbsInt {
				c.errorf(sel.Position(), ruleType, "case values must be i32 or u32, found '%s'", st)
				continue
			}
			if si.stage != stConst {
				c.errorf(sel.Position(), ruleConst, "case values must be const-expressions")
				continue
			}
			if common.kind == kAbsInt {
				common = st
			} else if st.kind != kAbsInt && st.kind != common.kind {
				c.errorf(sel.Position(), ruleType, "case value of type '%s' does not match the selector type '%s'", st, common)
			}
		}
	}
	if common.kind == kAbsInt {
		common = tI32
	}
	if common.kind != kInvalid {
		c.convertTo(s.Tag, common, "switch selector")
	}
	seen := map[int64]ast.Pos{}
	defaults := 0
	beh := uint8(0)
	c.ctrl = append(c.ctrl, ctrlSwitch)
	for _, cl := range s.Clauses {
		if cl.Default {
			defaults++
		}
		for _, sel := range cl.Selectors {
			if sel == nil {
				defaults++
				continue
			}
			si := c.info[sel]
			if si == nil || si.stage != stConst || common.kind == kInvalid {
				continue
			}
			if !c.convertTo(sel, common, "case value") {
				continue
			}
			si = c.info[sel]
			if si.val == nil {
				continue
			}
			if p, ok := seen[si.val.i]; ok {
				c.errorf(sel.Position(), ruleStmt, "duplicate case value %d (also at %d:%d)", si.val.i, p.Line, p.Col)
			}
			seen[si.val.i] = sel.Position()
		}
		b := c.block(cl.Body)
		if b&bBreak != 0 {
			b = b&^bBreak | bNext
		}
		beh |= b
	}
	c.ctrl = c.ctrl[:len(c.ctrl)-1]
	if defaults != 1 {
		if defaults == 0 {
			c.errorf(s.Pos, ruleStmt, "a switch needs exactly one 'default' clause")
		} else {
			c.errorf(s.Pos, ruleStmt, "a switch has %d 'default' clauses; it needs exactly one", defaults)
		}
	}
	if beh == 0 {
		beh = bNext
	}
	return beh
}

// ---- helpers ----------------------------------------------------------------------

func sprintf(format string, args ...any) string { return fmt.Sprintf(format, args...) }
