package wgsl

import (
	"github.com/gfxcuda/gfxcuda/shader/wgsl/internal/ast"

	"math"
	"strconv"
	"strings"

	"github.com/gfxcuda/gfxcuda/internal/half"
)

// This file type-checks and const-evaluates expressions.

var invalidInfo = &exprInfo{t: tInvalid, stage: stRuntime, mem: -1}

func (c *checker) set(e ast.Expr, ei *exprInfo) *exprInfo {
	c.info[e] = ei
	return ei
}

func (c *checker) bad(e ast.Expr) *exprInfo {
	return c.set(e, &exprInfo{t: tInvalid, stage: stRuntime, mem: -1})
}

// expr checks an expression once; later calls return the recorded result.
func (c *checker) expr(e ast.Expr) *exprInfo {
	if e == nil {
		return invalidInfo
	}
	if ei, ok := c.info[e]; ok {
		return ei
	}
	c.depth++
	defer func() { c.depth-- }()
	if c.depth > 512 {
		c.errorf(e.Position(), ruleType, "expression nested too deeply")
		return c.bad(e)
	}
	switch e := e.(type) {
	case *ast.Literal:
		return c.literal(e)
	case *ast.Ident:
		return c.ident(e)
	case *ast.ParenExpr:
		in := c.expr(e.X)
		cp := *in
		cp.call = nil
		return c.set(e, &cp)
	case *ast.UnaryExpr:
		return c.unary(e)
	case *ast.BinaryExpr:
		return c.binary(e)
	case *ast.MemberExpr:
		return c.memberExpr(e)
	case *ast.IndexExpr:
		return c.indexExpr(e)
	case *ast.CallExpr:
		return c.call(e)
	}
	c.errorf(e.Position(), ruleInternal, "unknown expression")
	return c.bad(e)
}

// valueType is the type of an expression after the load rule.
func valueType(ei *exprInfo) *wtype { return ei.t.unref() }

// load applies the load rule to a reference expression.
func (c *checker) load(e ast.Expr) *wtype {
	ei := c.expr(e)
	if ei.t.kind != kRef {
		return ei.t
	}
	if ei.t.access == accWrite {
		c.errorf(e.Position(), ruleAddr, "cannot read from a write-only reference")
	}
	if ei.t.elem.kind == kAtomic {
		c.errorf(e.Position(), ruleType, "atomics cannot be read directly; use atomicLoad")
	}
	return ei.t.elem
}

// rank returns the conversion rank from a to b, or -1 when infeasible.
func rank(a, b *wtype) int {
	if sameType(a, b) {
		return 0
	}
	if a.kind != b.kind {
		switch a.kind {
		case kAbsFloat:
			switch b.kind {
			case kF32:
				return 1
			case kF16:
				return 2
			}
		case kAbsInt:
			switch b.kind {
			case kI32:
				return 3
			case kU32:
				return 4
			case kAbsFloat:
				return 5
			case kF32:
				return 6
			case kF16:
				return 7
			}
		}
		return -1
	}
	switch a.kind {
	case kVec:
		if a.n == b.n {
			return rank(a.elem, b.elem)
		}
	case kMat:
		if a.n == b.n && a.r == b.r {
			return rank(a.elem, b.elem)
		}
	case kArray:
		if a.count == b.count && a.count > 0 && a.countExpr == nil && b.countExpr == nil {
			return rank(a.elem, b.elem)
		}
	case kStruct:
		if a.st.builtin && b.st.builtin && len(a.st.members) == len(b.st.members) {
			r := 0
			for i := range a.st.members {
				x := rank(a.st.members[i].t, b.st.members[i].t)
				if x < 0 {
					return -1
				}
				r = max(r, x)
			}
			if r > 0 && strings.Contains(a.st.name, "abstract") {
				return r
			}
		}
	}
	return -1
}

// concreteOf is the concretization of a type.
func concreteOf(t *wtype) *wtype {
	switch t.kind {
	case kAbsInt:
		return tI32
	case kAbsFloat:
		return tF32
	case kVec, kMat, kArray:
		if t.isAbstract() {
			return t.withScalar(concreteOf(t.leaf()))
		}
	}
	return t
}

// convertTo converts expression e to type want (load rule, then abstract
// conversion), reporting a type mismatch. It returns false on failure.
func (c *checker) convertTo(e ast.Expr, want *wtype, what string) bool {
	ei := c.expr(e)
	if ei.t.kind == kInvalid || want.kind == kInvalid {
		return false
	}
	t := ei.t
	if t.kind == kRef && want.kind != kRef {
		t = c.load(e)
	}
	if sameType(t, want) {
		return true
	}
	r := rank(t, want)
	if r < 0 || !t.isAbstract() {
		c.errorf(e.Position(), ruleType, "%s: expected '%s', found '%s'", what, want, t)
		return false
	}
	if ei.val == nil {
		// An abstract override-expression cannot exist; be safe.
		ei.t = want
		return true
	}
	v, err := convertAuto(ei.val, want)
	if err != nil {
		c.errorf(e.Position(), ruleConst, "%s: %v", what, err)
		return false
	}
	nei := *ei
	nei.t, nei.val = want, v
	c.info[e] = &nei
	c.propagateParen(e, &nei)
	return true
}

// propagateParen updates the inner expressions of parentheses after a
// conversion so that the writer sees one type throughout.
func (c *checker) propagateParen(e ast.Expr, ei *exprInfo) {
	for {
		p, ok := e.(*ast.ParenExpr)
		if !ok {
			return
		}
		e = p.X
		cp := *ei
		c.info[e] = &cp
	}
}

// concretize converts an expression to its concretized type and returns it.
func (c *checker) concretize(e ast.Expr, ei *exprInfo) *wtype {
	t := ei.t.unref()
	if ei.t.kind == kRef {
		t = c.load(e)
	}
	if t.isAbstract() {
		ct := concreteOf(t)
		if t.kind == kStruct {
			ct = c.concreteResultStruct(t)
		}
		c.convertTo(e, ct, "value")
		return ct
	}
	return t
}

// unify returns the common type of a and b (after abstract conversion), or
// nil.
func unify(a, b *wtype) *wtype {
	if sameType(a, b) {
		return a
	}
	if rank(a, b) >= 0 {
		return b
	}
	if rank(b, a) >= 0 {
		return a
	}
	// Both abstract with different leaves: AbstractInt and AbstractFloat.
	if a.isAbstract() && b.isAbstract() {
		fa := a.withScalar(tAbsFloat)
		if rank(a, fa) >= 0 && rank(b, fa) >= 0 {
			return fa
		}
	}
	return nil
}

// ---- literals and identifiers --------------------------------------------------

func (c *checker) literal(e *ast.Literal) *exprInfo {
	ei := &exprInfo{stage: stConst, mem: -1}
	text := strings.TrimSuffix(e.Text, e.Suffix)
	switch e.Kind {
	case ast.LitBool:
		ei.t = tBool
		ei.val = boolValue(e.Text == "true")
	case ast.LitInt:
		neg := false
		var u uint64
		var err error
		if strings.HasPrefix(text, "0x") || strings.HasPrefix(text, "0X") {
			u, err = strconv.ParseUint(text[2:], 16, 64)
		} else {
			u, err = strconv.ParseUint(text, 10, 64)
		}
		_ = neg
		switch e.Suffix {
		case "i":
			ei.t = tI32
			if err != nil || u > math.MaxInt32 {
				c.errorf(e.Pos, ruleType, "integer literal %s does not fit in i32", e.Text)
				return c.bad(e)
			}
		case "u":
			ei.t = tU32
			if err != nil || u > math.MaxUint32 {
				c.errorf(e.Pos, ruleType, "integer literal %s does not fit in u32", e.Text)
				return c.bad(e)
			}
		default:
			ei.t = tAbsInt
			if err != nil || u > math.MaxInt64 {
				c.errorf(e.Pos, ruleType, "integer literal %s does not fit in a 64-bit AbstractInt", e.Text)
				return c.bad(e)
			}
		}
		ei.val = intValue(ei.t, int64(u))
	case ast.LitFloat:
		s := text
		if strings.HasPrefix(s, "0x") || strings.HasPrefix(s, "0X") {
			if !strings.ContainsAny(s, "pP") {
				s += "p0"
			}
		}
		f, err := strconv.ParseFloat(s, 64)
		if err != nil && !strings.Contains(err.Error(), "range") {
			c.errorf(e.Pos, ruleType, "malformed floating point literal %s", e.Text)
			return c.bad(e)
		}
		switch e.Suffix {
		case "f":
			ei.t = tF32
		case "h":
			ei.t = c.scalarType("f16", e.Pos)
		default:
			ei.t = tAbsFloat
		}
		r, ok := representFloat(ei.t, f)
		if !ok || err != nil {
			c.errorf(e.Pos, ruleType, "floating point literal %s overflows '%s'", e.Text, ei.t)
			return c.bad(e)
		}
		ei.val = floatValue(ei.t, r)
	}
	return c.set(e, ei)
}

func (c *checker) ident(e *ast.Ident) *exprInfo {
	if e.Args != nil {
		c.errorf(e.Pos, ruleType, "type '%s' cannot be used as a value (did you mean to construct one: %s(...)?)", e.Name, e.Name)
		return c.bad(e)
	}
	s := c.lookup(e.Name)
	if s == nil {
		switch {
		case predeclaredTypes[e.Name]:
			c.errorf(e.Pos, ruleType, "type '%s' cannot be used as a value", e.Name)
		case builtinFuncs[e.Name] != nil:
			c.errorf(e.Pos, ruleType, "built-in function '%s' must be called: %s(...)", e.Name, e.Name)
		default:
			c.errorf(e.Pos, ruleScope, "unknown identifier '%s'%s", e.Name, c.suggest(e.Name, false))
		}
		return c.bad(e)
	}
	ei := &exprInfo{sym: s, mem: -1, stage: stRuntime}
	if s.t == nil || s.t.kind == kInvalid {
		ei.t = tInvalid
		return c.set(e, ei)
	}
	switch s.kind {
	case symVar:
		if s.ref == nil {
			s.ref = refOf(s.space, s.t, s.access)
			if s.space == asHandle {
				s.ref = s.t
			}
		}
		ei.t = s.ref
		if c.fn == nil {
			c.errorf(e.Pos, ruleConst, "variable '%s' cannot be used in a module-scope initializer or const-expression", s.name)
			ei.t = tInvalid
		} else if s.global {
			c.fn.globals[s] = true
		}
	case symLet, symParam:
		ei.t = s.t
	case symConst:
		ei.t = s.t
		ei.val = s.val
		ei.stage = stConst
	case symOverride:
		ei.t = s.t
		ei.val = s.val
		ei.stage = stOverride
		if c.fn != nil {
			c.fn.globals[s] = true
		}
	case symFunc:
		c.errorf(e.Pos, ruleType, "function '%s' must be called: %s(...)", s.name, s.name)
		ei.t = tInvalid
	case symStruct, symAlias:
		c.errorf(e.Pos, ruleType, "type '%s' cannot be used as a value", s.name)
		ei.t = tInvalid
	}
	return c.set(e, ei)
}

// ---- operators ----------------------------------------------------------------------

// isVectorComponentRef reports whether a reference expression names a vector
// component (v.x, v[i]), whose address cannot be taken.
func (c *checker) isVectorComponentRef(e ast.Expr) bool {
	for {
		switch x := e.(type) {
		case *ast.ParenExpr:
			e = x.X
			continue
		case *ast.MemberExpr:
			bi := c.info[x.X]
			return bi != nil && bi.t.unref().kind == kVec || bi != nil && bi.t.kind == kPtr && bi.t.elem.kind == kVec
		case *ast.IndexExpr:
			bi := c.info[x.X]
			return bi != nil && bi.t.unref().kind == kVec || bi != nil && bi.t.kind == kPtr && bi.t.elem.kind == kVec
		}
		return false
	}
}

func (c *checker) unary(e *ast.UnaryExpr) *exprInfo {
	x := c.expr(e.X)
	if x.t.kind == kInvalid {
		return c.bad(e)
	}
	switch e.Op {
	case "&":
		if x.t.kind != kRef {
			c.errorf(e.Pos, ruleType, "'&' needs a reference (a variable or a part of one), found a value of type '%s'", x.t)
			return c.bad(e)
		}
		if x.t.space == asHandle {
			c.errorf(e.Pos, ruleAddr, "cannot take the address of a texture or sampler")
			return c.bad(e)
		}
		if c.isVectorComponentRef(e.X) {
			c.errorf(e.Pos, ruleType, "cannot take the address of a vector component")
			return c.bad(e)
		}
		return c.set(e, &exprInfo{t: ptrOf(x.t.space, x.t.elem, x.t.access), stage: stRuntime, mem: -1, sym: x.sym})
	case "*":
		if x.t.kind != kPtr {
			c.errorf(e.Pos, ruleType, "'*' needs a pointer, found '%s'", x.t)
			return c.bad(e)
		}
		return c.set(e, &exprInfo{t: refOf(x.t.space, x.t.elem, x.t.access), stage: stRuntime, mem: -1, sym: x.sym})
	}
	t := c.load(e.X)
	s := t.scalarOf()
	ok := false
	switch e.Op {
	case "-":
		ok = s != nil && s.isNumericScalar() && s.kind != kU32 && t.kind != kMat
	case "!":
		ok = s != nil && s.kind == kBool && t.kind != kMat
	case "~":
		ok = s != nil && s.isIntScalar() && t.kind != kMat
	}
	if !ok {
		c.errorf(e.Pos, ruleType, "operator '%s' cannot be applied to '%s'", e.Op, t)
		return c.bad(e)
	}
	ei := &exprInfo{t: t, stage: x.stage, mem: -1}
	if x.val != nil && x.stage <= stOverride {
		v, err := unaryValue(e.Op, x.val)
		if err != nil {
			if x.stage == stConst {
				c.errorf(e.Pos, ruleConst, "%v", err)
				return c.bad(e)
			}
		} else {
			ei.val = v
		}
	}
	return c.set(e, ei)
}

func (c *checker) binary(e *ast.BinaryExpr) *exprInfo {
	x := c.expr(e.X)
	y := c.expr(e.Y)
	if x.t.kind == kInvalid || y.t.kind == kInvalid {
		return c.bad(e)
	}
	rt := c.binaryTypes(e.Pos, e.Op, e.X, e.Y, false)
	if rt == nil || rt.kind == kInvalid {
		return c.bad(e)
	}
	x, y = c.info[e.X], c.info[e.Y]
	ei := &exprInfo{t: rt, stage: max(x.stage, y.stage), mem: -1}
	if ei.stage <= stOverride && x.val != nil && y.val != nil {
		v, err := binaryValue(e.Op, x.val, y.val, rt)
		if err != nil {
			if ei.stage == stConst {
				c.errorf(e.Pos, ruleConst, "%v", err)
				return c.bad(e)
			}
		} else {
			ei.val = v
		}
	}
	return c.set(e, ei)
}

// binaryTypes types `x op y`, converting abstract operands; it returns the
// result type, or nil after reporting an error.
func (c *checker) binaryTypes(pos ast.Pos, op string, xe, ye ast.Expr, compound bool) *wtype {
	lt := c.load(xe)
	rt := c.load(ye)
	if lt.kind == kInvalid || rt.kind == kInvalid {
		return nil
	}
	mismatch := func() *wtype {
		c.errorf(pos, ruleType, "operator '%s' cannot be applied to '%s' and '%s'", op, lt, rt)
		return nil
	}
	x, y := c.info[xe], c.info[ye]
	mixedStage := x.stage != stConst || y.stage != stConst
	conv := func(e ast.Expr, t *wtype) bool {
		if mixedStage {
			t = concreteOf(t)
		}
		return c.convertTo(e, t, "operand")
	}
	switch op {
	case "&&", "||":
		if lt.kind != kBool || rt.kind != kBool {
			return mismatch()
		}
		return tBool
	case "<<", ">>":
		ls := lt.scalarOf()
		if ls == nil || !ls.isIntScalar() || lt.kind == kMat {
			return mismatch()
		}
		want := tU32
		if lt.kind == kVec {
			want = vecOf(tU32, lt.n)
		}
		if rank(rt, want) < 0 {
			return mismatch()
		}
		if !c.convertTo(ye, want, "shift amount") {
			return nil
		}
		y = c.info[ye]
		if y.stage == stConst && y.val != nil && ls.kind != kAbsInt {
			bad := false
			forEachScalar(y.val, func(v *value) {
				if v.i >= 32 {
					bad = true
				}
			})
			if bad {
				c.errorf(ye.Position(), ruleConst, "the shift amount must be less than 32, the bit width of '%s'", ls)
				return nil
			}
		}
		if ls.kind == kAbsInt && x.stage != stConst || ls.kind == kAbsInt && y.stage != stConst {
			lt = lt.withScalar(tI32)
			c.convertTo(xe, lt, "operand")
		}
		return lt
	}
	// Matrix arithmetic.
	if lt.kind == kMat || rt.kind == kMat {
		switch op {
		case "+", "-":
			u := unify(lt, rt)
			if u == nil || u.kind != kMat {
				return mismatch()
			}
			if !conv(xe, u) || !conv(ye, u) {
				return nil
			}
			return c.info[xe].t.unref()
		case "*":
			ls, rs := lt.scalarOf(), rt.scalarOf()
			if ls == nil || rs == nil {
				return mismatch()
			}
			s := unify(ls, rs)
			if s == nil || !s.isFloatScalar() {
				if s != nil && s.kind == kAbsInt {
					s = tAbsFloat
				} else {
					return mismatch()
				}
			}
			if mixedStage {
				s = concreteOf(s)
			}
			var res *wtype
			switch {
			case lt.kind == kMat && rt.kind == kMat:
				if lt.n != rt.r {
					return mismatch()
				}
				res = matOf(s, rt.n, lt.r)
			case lt.kind == kMat && rt.kind == kVec:
				if lt.n != rt.n {
					return mismatch()
				}
				res = vecOf(s, lt.r)
			case lt.kind == kVec && rt.kind == kMat:
				if lt.n != rt.r {
					return mismatch()
				}
				res = vecOf(s, rt.n)
			case lt.kind == kMat && rt.isScalar():
				res = lt.withScalar(s)
			case lt.isScalar() && rt.kind == kMat:
				res = rt.withScalar(s)
			default:
				return mismatch()
			}
			if !c.convertTo(xe, lt.withScalar(s), "operand") || !c.convertTo(ye, rt.withScalar(s), "operand") {
				return nil
			}
			return res
		}
		return mismatch()
	}
	ls, rs := lt.scalarOf(), rt.scalarOf()
	if ls == nil || rs == nil {
		return mismatch()
	}
	// Scalar/vector shapes.
	n := 0
	switch {
	case lt.kind == kVec && rt.kind == kVec:
		if lt.n != rt.n {
			return mismatch()
		}
		n = lt.n
	case lt.kind == kVec:
		n = lt.n
	case rt.kind == kVec:
		n = rt.n
	}
	isArith := op == "+" || op == "-" || op == "*" || op == "/" || op == "%"
	if n > 0 && (lt.kind != kVec || rt.kind != kVec) && !isArith {
		return mismatch()
	}
	if compound && n > 0 && lt.kind != kVec {
		return mismatch()
	}
	s := unify(ls, rs)
	if s == nil {
		return mismatch()
	}
	if mixedStage {
		s = concreteOf(s)
	}
	switch op {
	case "+", "-", "*", "/", "%":
		if !s.isNumericScalar() {
			return mismatch()
		}
	case "&", "|":
		if !s.isIntScalar() && s.kind != kBool {
			return mismatch()
		}
	case "^":
		if !s.isIntScalar() {
			return mismatch()
		}
	case "==", "!=":
	case "<", "<=", ">", ">=":
		if s.kind == kBool {
			return mismatch()
		}
	default:
		return mismatch()
	}
	if !c.convertTo(xe, lt.withScalar(s), "operand") || !c.convertTo(ye, rt.withScalar(s), "operand") {
		return nil
	}
	// Division by a const zero is an error even with a runtime dividend.
	if (op == "/" || op == "%") && s.isIntScalar() {
		if yi := c.info[ye]; yi.stage == stConst && yi.val != nil {
			zero := false
			forEachScalar(yi.val, func(v *value) {
				if v.i == 0 {
					zero = true
				}
			})
			if zero {
				c.errorf(ye.Position(), ruleConst, "integer division by zero")
				return nil
			}
		}
	}
	var res *wtype = s
	if n > 0 {
		res = vecOf(s, n)
	}
	switch op {
	case "==", "!=", "<", "<=", ">", ">=":
		if n > 0 {
			return vecOf(tBool, n)
		}
		return tBool
	}
	return res
}

func forEachScalar(v *value, f func(*value)) {
	if len(v.elems) == 0 {
		f(v)
		return
	}
	for _, e := range v.elems {
		forEachScalar(e, f)
	}
}

// ---- member and index access ----------------------------------------------------------

// accessBase returns the type being accessed, whether it is a reference,
// and the reference's address space and access.
func accessBase(t *wtype) (base *wtype, ref bool, space addrSpace, acc accessMode) {
	switch t.kind {
	case kRef, kPtr:
		return t.elem, true, t.space, t.access
	}
	return t, false, asNone, accNone
}

func swizzleIndex(ch byte) (int, int) {
	switch ch {
	case 'x':
		return 0, 1
	case 'y':
		return 1, 1
	case 'z':
		return 2, 1
	case 'w':
		return 3, 1
	case 'r':
		return 0, 2
	case 'g':
		return 1, 2
	case 'b':
		return 2, 2
	case 'a':
		return 3, 2
	}
	return -1, 0
}

func (c *checker) memberExpr(e *ast.MemberExpr) *exprInfo {
	x := c.expr(e.X)
	if x.t.kind == kInvalid {
		return c.bad(e)
	}
	base, isRef, space, acc := accessBase(x.t)
	switch base.kind {
	case kStruct:
		for i, m := range base.st.members {
			if m.name != e.Member {
				continue
			}
			ei := &exprInfo{t: m.t, stage: x.stage, mem: i, sym: x.sym}
			if isRef {
				ei.t = refOf(space, m.t, acc)
				ei.stage = stRuntime
			} else if x.val != nil && i < len(x.val.elems) {
				ei.val = x.val.elems[i]
			}
			return c.set(e, ei)
		}
		names := make([]string, len(base.st.members))
		for i, m := range base.st.members {
			names[i] = m.name
		}
		hint := ""
		best, bd := "", 1<<30
		for _, n := range names {
			if d := editDistance(e.Member, n); d < bd {
				best, bd = n, d
			}
		}
		if best != "" && bd <= max(1, len(e.Member)/3) {
			hint = "; did you mean '" + best + "'?"
		}
		c.errorf(e.Pos, ruleType, "'%s' has no member '%s'%s", base, e.Member, hint)
		return c.bad(e)
	case kVec:
		sw := e.Member
		if len(sw) < 1 || len(sw) > 4 {
			c.errorf(e.Pos, ruleType, "invalid swizzle '.%s' on '%s'", sw, base)
			return c.bad(e)
		}
		set := 0
		idx := make([]int, len(sw))
		for i := 0; i < len(sw); i++ {
			k, s := swizzleIndex(sw[i])
			if k < 0 || (set != 0 && s != set) || k >= base.n {
				c.errorf(e.Pos, ruleType, "invalid swizzle '.%s' on '%s' (use x, y, z, w or r, g, b, a, without mixing the two sets, within the vector's size)", sw, base)
				return c.bad(e)
			}
			set = s
			idx[i] = k
		}
		ei := &exprInfo{stage: x.stage, mem: -1, sym: x.sym}
		if len(sw) == 1 {
			ei.t = base.elem
			if isRef {
				ei.t = refOf(space, base.elem, acc)
				ei.stage = stRuntime
			}
		} else {
			ei.t = vecOf(base.elem, len(sw))
			if isRef {
				if x.t.kind == kRef {
					c.load(e.X)
				}
				ei.stage = stRuntime
			}
		}
		if !isRef && x.val != nil {
			if len(sw) == 1 {
				ei.val = x.val.elems[idx[0]]
			} else {
				v := &value{t: ei.t, elems: make([]*value, len(sw))}
				for i, k := range idx {
					v.elems[i] = x.val.elems[k]
				}
				ei.val = v
			}
		}
		return c.set(e, ei)
	}
	c.errorf(e.Pos, ruleType, "'%s' has no members (accessing '.%s')", base, e.Member)
	return c.bad(e)
}

func (c *checker) indexExpr(e *ast.IndexExpr) *exprInfo {
	x := c.expr(e.X)
	ix := c.expr(e.Index)
	if x.t.kind == kInvalid || ix.t.kind == kInvalid {
		return c.bad(e)
	}
	it := c.load(e.Index)
	if it.kind != kI32 && it.kind != kU32 && it.kind != kAbsInt {
		c.errorf(e.Index.Position(), ruleType, "an index must be i32 or u32, found '%s'", it)
		return c.bad(e)
	}
	if it.kind == kAbsInt && ix.stage != stConst {
		c.convertTo(e.Index, tI32, "index")
	}
	ix = c.info[e.Index]
	base, isRef, space, acc := accessBase(x.t)
	var elem *wtype
	count := 0
	switch base.kind {
	case kArray:
		elem, count = base.elem, base.count
		if base.countExpr != nil {
			count = 0
		}
	case kVec:
		elem, count = base.elem, base.n
	case kMat:
		elem, count = vecOf(base.elem, base.r), base.n
	default:
		c.errorf(e.Pos, ruleType, "'%s' cannot be indexed", base)
		return c.bad(e)
	}
	if ix.stage == stConst && ix.val != nil {
		i := ix.val.i
		if i < 0 || (count > 0 && i >= int64(count)) {
			c.errorf(e.Index.Position(), ruleConst, "index %d is out of bounds for '%s'", i, base)
			return c.bad(e)
		}
	}
	ei := &exprInfo{t: elem, stage: max(x.stage, ix.stage), mem: -1, sym: x.sym}
	if isRef {
		ei.t = refOf(space, elem, acc)
		ei.stage = stRuntime
		return c.set(e, ei)
	}
	if ix.stage != stConst && base.isAbstract() {
		// A runtime index concretizes the (const) composite.
		ct := concreteOf(base)
		c.convertTo(e.X, ct, "value")
		ei.t = concreteOf(elem)
		ei.stage = stRuntime
		return c.set(e, ei)
	}
	if x.val != nil && ix.val != nil && ei.stage <= stOverride {
		i := ix.val.i
		if i >= 0 && i < int64(len(x.val.elems)) {
			ei.val = x.val.elems[i]
		} else if ei.stage == stOverride {
			ei.val = nil
		}
	}
	return c.set(e, ei)
}

// ---- calls ----------------------------------------------------------------------------

func (c *checker) call(e *ast.CallExpr) *exprInfo {
	callee := e.Callee
	if callee == nil {
		return c.bad(e)
	}
	if s := c.lookup(callee.Name); s != nil {
		switch s.kind {
		case symFunc:
			if callee.Args != nil {
				c.errorf(callee.Pos, ruleType, "function '%s' takes no template arguments", s.name)
			}
			return c.userCall(e, s.fn)
		case symStruct, symAlias:
			if callee.Args != nil {
				c.errorf(callee.Pos, ruleType, "'%s' takes no template arguments", s.name)
			}
			if s.t == nil || s.t.kind == kInvalid {
				c.args(e)
				return c.bad(e)
			}
			return c.construct(e, s.t, "")
		}
		c.args(e)
		c.errorf(callee.Pos, ruleType, "'%s' is not a function", callee.Name)
		return c.bad(e)
	}
	name := callee.Name
	if predeclaredTypes[name] {
		if callee.Args == nil {
			switch name {
			case "vec2", "vec3", "vec4", "array", "mat2x2", "mat2x3", "mat2x4", "mat3x2", "mat3x3", "mat3x4", "mat4x2", "mat4x3", "mat4x4":
				return c.construct(e, nil, name)
			}
		}
		t := c.resolveType(callee)
		if t.kind == kInvalid {
			c.args(e)
			return c.bad(e)
		}
		return c.construct(e, t, "")
	}
	if name == "bitcast" {
		return c.bitcast(e)
	}
	if b := builtinFuncs[name]; b != nil {
		if callee.Args != nil {
			c.errorf(callee.Pos, ruleType, "built-in '%s' takes no template arguments", name)
		}
		return c.builtinCall(e, name, b)
	}
	if fragmentOnly[name] {
		return c.fragmentCall(e, name)
	}
	c.args(e)
	c.errorf(callee.Pos, ruleScope, "unknown function '%s'%s", name, c.suggest(name, false))
	return c.bad(e)
}

var fragmentOnly = map[string]bool{
	"textureSample": true, "textureSampleBias": true, "textureSampleCompare": true,
	"dpdx": true, "dpdy": true, "fwidth": true, "dpdxCoarse": true, "dpdxFine": true, "dpdyCoarse": true,
	"dpdyFine": true, "fwidthCoarse": true, "fwidthFine": true,
}

// fragmentCall types a built-in that only fragment shaders may call. A
// module may hold fragment entry points next to the compute one; the call
// is an error only in a function the compute entry point reaches
// (reportStageErrors).
func (c *checker) fragmentCall(e *ast.CallExpr, name string) *exprInfo {
	args, ok := c.args(e)
	if !ok {
		return c.bad(e)
	}
	var rt *wtype
	switch {
	case len(args) == 0:
	case name == "textureSample" || name == "textureSampleBias":
		if t := args[0].t; t.kind == kTexture {
			rt = sampledResult(t)
		}
	case name == "textureSampleCompare":
		rt = tF32
	default:
		if t := c.load(e.Args[0]); t.leaf() != nil && (t.isScalar() || t.kind == kVec) {
			rt = concreteOf(t.withScalar(tAbsFloat))
			if t.leaf().kind == kF16 {
				rt = t
			}
			c.convertTo(e.Args[0], rt, "argument of '"+name+"'")
		}
	}
	if rt == nil {
		c.errorf(e.Pos, ruleType, "invalid arguments for '%s'", name)
		return c.bad(e)
	}
	if c.fn != nil {
		c.fn.stageErrs = append(c.fn.stageErrs, stageErr{e.Pos, "'" + name + "' is only allowed in fragment shaders (compute shaders have no derivatives or implicit levels of detail); use textureSampleLevel or textureSampleGrad"})
	}
	return c.set(e, &exprInfo{t: rt, stage: stRuntime, mem: -1})
}

// args checks every argument and returns their infos.
func (c *checker) args(e *ast.CallExpr) ([]*exprInfo, bool) {
	out := make([]*exprInfo, len(e.Args))
	ok := true
	for i, a := range e.Args {
		out[i] = c.expr(a)
		if out[i].t.kind == kInvalid {
			ok = false
		}
	}
	return out, ok
}

func (c *checker) newCall(ci *callInfo) *callInfo {
	c.ncalls++
	ci.id = c.ncalls
	return ci
}

func (c *checker) userCall(e *ast.CallExpr, f *function) *exprInfo {
	c.funcSig(f)
	args, ok := c.args(e)
	if !ok {
		return c.bad(e)
	}
	if f.compute {
		c.errorf(e.Pos, ruleFunc, "entry point '%s' cannot be called", f.sym.name)
		return c.bad(e)
	}
	if len(args) != len(f.params) {
		c.errorf(e.Pos, ruleType, "'%s' takes %d argument(s), found %d", f.sym.name, len(f.params), len(args))
		return c.bad(e)
	}
	for i, a := range e.Args {
		pt := f.params[i].t
		if !c.convertTo(a, pt, "argument "+strconv.Itoa(i+1)+" of '"+f.sym.name+"'") {
			continue
		}
		// Pointer arguments may be any memory view
		// (unrestricted_pointer_parameters): function and private pointers
		// are GLSL inout parameters, others specialize the function.
	}
	if c.fn == nil {
		c.errorf(e.Pos, ruleConst, "user-defined function '%s' cannot be called in a const-expression or module-scope initializer", f.sym.name)
		return c.bad(e)
	}
	found := false
	for _, g := range c.fn.calls {
		if g == f {
			found = true
		}
	}
	if !found {
		c.fn.calls = append(c.fn.calls, f)
		c.fn.callPos = append(c.fn.callPos, e.Pos)
	}
	rt := f.ret
	if rt == nil {
		rt = tVoid
	}
	return c.set(e, &exprInfo{t: rt, stage: stRuntime, mem: -1, call: c.newCall(&callInfo{kind: callUser, fn: f})})
}

// construct checks a value constructor or conversion T(args). gen names an
// inferred generator (vec3, array, mat2x2) when t is nil.
func (c *checker) construct(e *ast.CallExpr, t *wtype, gen string) *exprInfo {
	args, ok := c.args(e)
	if !ok {
		return c.bad(e)
	}
	stage := stConst
	for _, a := range args {
		stage = max(stage, a.stage)
	}
	ats := make([]*wtype, len(args))
	for i, a := range e.Args {
		ats[i] = c.load(a)
	}
	if t == nil {
		t = c.inferCtor(e, gen, ats)
		if t == nil {
			return c.bad(e)
		}
	}
	if stage != stConst && t.isAbstract() {
		t = concreteOf(t)
	}
	ci := c.newCall(&callInfo{kind: callCtor, t: t})
	ei := &exprInfo{t: t, stage: stage, mem: -1, call: ci}
	name := t.String()
	if len(args) == 0 {
		if !t.constructible() {
			c.errorf(e.Pos, ruleType, "'%s' cannot be constructed", t)
			return c.bad(e)
		}
		if elemCount(t) > maxConstScalars {
			c.errorf(e.Pos, ruleSupport, "the zero value of '%s' is too large to evaluate (more than %d scalars); declare a variable instead", t, maxConstScalars)
			return c.bad(e)
		}
		ei.val = zeroValue(t)
		ei.stage = stConst
		return c.set(e, ei)
	}
	switch t.kind {
	case kBool, kI32, kU32, kF32, kF16, kAbsInt, kAbsFloat:
		if len(args) != 1 {
			c.errorf(e.Pos, ruleType, "'%s(...)' takes one argument, found %d", name, len(args))
			return c.bad(e)
		}
		at := ats[0]
		if !at.isScalar() {
			c.errorf(e.Args[0].Position(), ruleType, "cannot convert '%s' to '%s'", at, t)
			return c.bad(e)
		}
		if !sameType(at, t) {
			ci.kind = callConvert
			if stage != stConst && at.isAbstract() {
				c.concretize(e.Args[0], args[0])
			}
		}
		return c.finishConvert(e, ei, t)
	case kVec:
		if len(args) == 1 && ats[0].kind == kVec {
			if ats[0].n != t.n {
				c.errorf(e.Pos, ruleType, "cannot convert '%s' to '%s'", ats[0], t)
				return c.bad(e)
			}
			if !sameType(ats[0], t) {
				if rank(ats[0], t) >= 0 {
					c.convertTo(e.Args[0], t, "argument")
				} else {
					ci.kind = callConvert
				}
			}
			return c.finishConvert(e, ei, t)
		}
		total := 0
		for i, at := range ats {
			switch {
			case at.isScalar():
				total++
				c.convertTo(e.Args[i], t.elem, "component of "+name)
			case at.kind == kVec:
				total += at.n
				c.convertTo(e.Args[i], vecOf(t.elem, at.n), "component of "+name)
			default:
				c.errorf(e.Args[i].Position(), ruleType, "'%s' takes scalars and vectors, found '%s'", name, at)
				return c.bad(e)
			}
		}
		if !(total == t.n || (len(args) == 1 && total == 1)) {
			c.errorf(e.Pos, ruleType, "'%s' needs %d components, found %d", name, t.n, total)
			return c.bad(e)
		}
	case kMat:
		if len(args) == 1 && ats[0].kind == kMat {
			if ats[0].n != t.n || ats[0].r != t.r {
				c.errorf(e.Pos, ruleType, "cannot convert '%s' to '%s'", ats[0], t)
				return c.bad(e)
			}
			if !sameType(ats[0], t) {
				if rank(ats[0], t) >= 0 {
					c.convertTo(e.Args[0], t, "argument")
				} else {
					ci.kind = callConvert
				}
			}
			return c.finishConvert(e, ei, t)
		}
		switch len(args) {
		case t.n:
			for i := range args {
				c.convertTo(e.Args[i], vecOf(t.elem, t.r), "column of "+name)
			}
		case t.n * t.r:
			for i := range args {
				c.convertTo(e.Args[i], t.elem, "element of "+name)
			}
		default:
			c.errorf(e.Pos, ruleType, "'%s' takes %d column vectors or %d scalars, found %d arguments", name, t.n, t.n*t.r, len(args))
			return c.bad(e)
		}
	case kArray:
		if !t.constructible() {
			c.errorf(e.Pos, ruleType, "'%s' cannot be constructed", t)
			return c.bad(e)
		}
		if len(args) != t.count {
			c.errorf(e.Pos, ruleType, "'%s' needs %d elements, found %d", name, t.count, len(args))
			return c.bad(e)
		}
		for i := range args {
			c.convertTo(e.Args[i], t.elem, "element "+strconv.Itoa(i)+" of "+name)
		}
	case kStruct:
		if !t.constructible() {
			c.errorf(e.Pos, ruleType, "'%s' cannot be constructed (it holds atomics or a runtime-sized array)", t)
			return c.bad(e)
		}
		if len(args) != len(t.st.members) {
			c.errorf(e.Pos, ruleType, "'%s' has %d members, found %d arguments", name, len(t.st.members), len(args))
			return c.bad(e)
		}
		for i := range args {
			c.convertTo(e.Args[i], t.st.members[i].t, "member '"+t.st.members[i].name+"' of "+name)
		}
	default:
		c.errorf(e.Pos, ruleType, "'%s' cannot be constructed", t)
		return c.bad(e)
	}
	// Const value.
	if stage <= stOverride {
		vals := make([]*value, len(args))
		for i, a := range e.Args {
			vals[i] = c.info[a].val
			if vals[i] == nil {
				return c.set(e, ei)
			}
		}
		ei.val = buildComposite(t, vals)
	}
	return c.set(e, ei)
}

// finishConvert evaluates a one-argument conversion.
func (c *checker) finishConvert(e *ast.CallExpr, ei *exprInfo, t *wtype) *exprInfo {
	a := c.info[e.Args[0]]
	if ei.stage <= stOverride && a.val != nil {
		v, err := convertExplicit(a.val, t)
		if err != nil {
			if ei.stage == stConst {
				c.errorf(e.Pos, ruleConst, "%v", err)
				return c.bad(e)
			}
		} else {
			v.t = t
			ei.val = v
		}
	}
	return c.set(e, ei)
}

// buildComposite assembles a constructor's value from its (converted)
// argument values.
func buildComposite(t *wtype, vals []*value) *value {
	switch t.kind {
	case kVec:
		if len(vals) == 1 && len(vals[0].elems) == 0 {
			return splat(vals[0], t.n).withType(t)
		}
		v := &value{t: t}
		for _, a := range vals {
			if len(a.elems) > 0 {
				v.elems = append(v.elems, a.elems...)
			} else {
				v.elems = append(v.elems, a)
			}
		}
		return v
	case kMat:
		v := &value{t: t, elems: make([]*value, t.n)}
		if len(vals) == t.n {
			copy(v.elems, vals)
			return v
		}
		for col := 0; col < t.n; col++ {
			cv := &value{t: vecOf(t.elem, t.r), elems: make([]*value, t.r)}
			copy(cv.elems, vals[col*t.r:(col+1)*t.r])
			v.elems[col] = cv
		}
		return v
	}
	return &value{t: t, elems: vals}
}

func (v *value) withType(t *wtype) *value { v.t = t; return v }

// inferCtor infers the type of vecN(...), matCxR(...) and array(...).
func (c *checker) inferCtor(e *ast.CallExpr, gen string, ats []*wtype) *wtype {
	if len(ats) == 0 {
		switch {
		case strings.HasPrefix(gen, "vec"):
			return vecOf(tAbsInt, int(gen[3]-'0'))
		case strings.HasPrefix(gen, "mat"):
			return matOf(tAbsFloat, int(gen[3]-'0'), int(gen[5]-'0'))
		}
		c.errorf(e.Pos, ruleType, "'%s()' needs a template argument or arguments to infer its type from", gen)
		return nil
	}
	if gen == "array" {
		var u *wtype
		for i, at := range ats {
			if i == 0 {
				u = at
				continue
			}
			if u = unify(u, at); u == nil {
				c.errorf(e.Args[i].Position(), ruleType, "array elements must have one type; element %d is '%s', element 0 '%s'", i, at, ats[0])
				return nil
			}
		}
		if !u.constructible() {
			c.errorf(e.Pos, ruleType, "array elements must be constructible, found '%s'", u)
			return nil
		}
		return arrayOf(u, len(ats))
	}
	var s *wtype
	for i, at := range ats {
		l := at.scalarOf()
		if l == nil {
			c.errorf(e.Args[i].Position(), ruleType, "'%s' takes scalars, vectors or matrices, found '%s'", gen, at)
			return nil
		}
		if s == nil {
			s = l
		} else if s = unify(s, l); s == nil {
			c.errorf(e.Args[i].Position(), ruleType, "the components of '%s' must have one type; found '%s' and '%s'", gen, ats[0].scalarOf(), l)
			return nil
		}
	}
	if strings.HasPrefix(gen, "vec") {
		return vecOf(s, int(gen[3]-'0'))
	}
	if s.kind == kAbsInt {
		s = tAbsFloat
	}
	if !s.isFloatScalar() {
		c.errorf(e.Pos, ruleType, "matrix components must be floating point, found '%s'", s)
		return nil
	}
	return matOf(s, int(gen[3]-'0'), int(gen[5]-'0'))
}

func (c *checker) bitcast(e *ast.CallExpr) *exprInfo {
	args, ok := c.args(e)
	if !ok {
		return c.bad(e)
	}
	if len(e.Callee.Args) != 1 {
		c.errorf(e.Pos, ruleType, "bitcast needs the target type: bitcast<u32>(x)")
		return c.bad(e)
	}
	t := c.typeArg(e.Callee, 0)
	if t.kind == kInvalid {
		return c.bad(e)
	}
	if len(args) != 1 {
		c.errorf(e.Pos, ruleType, "bitcast takes one argument")
		return c.bad(e)
	}
	if at := c.load(e.Args[0]); sameType(at, t) {
		return c.set(e, &exprInfo{t: t, stage: args[0].stage, val: c.info[e.Args[0]].val, mem: -1,
			call: c.newCall(&callInfo{kind: callBitcast, t: t, args: []*wtype{t}})})
	}
	at := c.load(e.Args[0])
	if at.isAbstract() {
		// AbstractInt to i32/u32 or matching width; concretize like the
		// overload for T.
		switch {
		case at.leaf().kind == kAbsInt && t.leaf() != nil && t.leaf().kind == kU32 && at.kind == t.kind:
			c.convertTo(e.Args[0], at.withScalar(tU32), "bitcast argument")
		default:
			at = c.concretize(e.Args[0], args[0])
		}
		at = c.info[e.Args[0]].t.unref()
	}
	width := func(t *wtype) int {
		n := 1
		if t.kind == kVec {
			n = t.n
		}
		s := t.scalarOf()
		if s == nil || !s.isNumericScalar() {
			return -1
		}
		if s.kind == kF16 {
			return 16 * n
		}
		return 32 * n
	}
	wa, wt := width(at), width(t)
	if wa < 0 || wt < 0 || wa != wt || t.kind == kMat || at.kind == kMat {
		c.errorf(e.Pos, ruleType, "cannot bitcast '%s' to '%s' (the bit widths must match)", at, t)
		return c.bad(e)
	}
	ei := &exprInfo{t: t, stage: c.info[e.Args[0]].stage, mem: -1, call: c.newCall(&callInfo{kind: callBitcast, t: t, args: []*wtype{at}})}
	if a := c.info[e.Args[0]]; a.val != nil && ei.stage <= stOverride {
		if v, err := bitcastValue(a.val, at, t); err == nil {
			ei.val = v
		} else if ei.stage == stConst {
			c.errorf(e.Pos, ruleConst, "%v", err)
			return c.bad(e)
		}
	}
	return c.set(e, ei)
}

// bitcastValue reinterprets the bits of a 32-bit-per-component value.
func bitcastValue(v *value, from, to *wtype) (*value, error) {
	var words []uint32
	var halves []uint16
	fs := from.scalarOf()
	comps := []*value{v}
	if from.kind == kVec {
		comps = v.elems
	}
	for _, c := range comps {
		switch fs.kind {
		case kF32:
			words = append(words, math.Float32bits(float32(c.f)))
		case kF16:
			halves = append(halves, half.FromFloat32(float32(c.f)))
		default:
			words = append(words, uint32(c.i))
		}
	}
	if len(halves) > 0 {
		for i := 0; i+1 < len(halves); i += 2 {
			words = append(words, uint32(halves[i])|uint32(halves[i+1])<<16)
		}
		if len(halves) == 1 {
			return nil, evalError("bad f16 bitcast")
		}
	}
	ts := to.scalarOf()
	var out []*value
	for _, w := range words {
		switch ts.kind {
		case kF32:
			f := float64(math.Float32frombits(w))
			if math.IsInf(f, 0) || math.IsNaN(f) {
				return nil, evalError("bitcast produces a non-finite f32")
			}
			out = append(out, floatValue(tF32, f))
		case kF16:
			for _, h := range []uint16{uint16(w), uint16(w >> 16)} {
				f := float64(half.ToFloat32(h))
				if math.IsInf(f, 0) || math.IsNaN(f) {
					return nil, evalError("bitcast produces a non-finite f16")
				}
				out = append(out, floatValue(tF16, f))
			}
		case kI32:
			out = append(out, intValue(tI32, int64(int32(w))))
		default:
			out = append(out, intValue(tU32, int64(w)))
		}
	}
	if to.kind == kVec {
		return &value{t: to, elems: out}, nil
	}
	if len(out) != 1 {
		return nil, evalError("bitcast shape")
	}
	return out[0], nil
}

// concreteResultStruct maps an abstract frexp/modf result structure to its
// f32 version.
func (c *checker) concreteResultStruct(t *wtype) *wtype {
	name := strings.Replace(t.st.name, "abstract", "f32", 1)
	if st, ok := c.bstructs[name]; ok {
		return &wtype{kind: kStruct, st: st}
	}
	ms := make([]*member, len(t.st.members))
	for i, m := range t.st.members {
		ms[i] = &member{name: m.name, t: concreteOf(m.t)}
	}
	return c.resultStruct(name, ms)
}

// resultStruct returns the predeclared structure of that name, creating it.
func (c *checker) resultStruct(name string, ms []*member) *wtype {
	if st, ok := c.bstructs[name]; ok {
		return &wtype{kind: kStruct, st: st}
	}
	st := &structInfo{name: name, builtin: true, layoutOK: true, members: ms}
	off, al := 0, 1
	for _, m := range ms {
		a := alignOf(m.t)
		off = roundUp(a, off)
		m.offset, m.align, m.size = off, a, sizeOf(m.t)
		off += m.size
		al = max(al, a)
	}
	st.align, st.size = al, roundUp(al, off)
	c.bstructs[name] = st
	return &wtype{kind: kStruct, st: st}
}
