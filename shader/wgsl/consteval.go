package wgsl

import (
	"math"
	"math/bits"
	"strconv"
	"strings"
)

// This file evaluates const-expressions: values of every constructible
// type, conversions, and the operators. Built-in functions are evaluated in
// builtins.go.

// value is a constant. Scalars use i (bool as 0/1, AbstractInt, i32 and
// u32, each held as its mathematical value) or f (AbstractFloat, f32 and
// f16, rounded to their type); composites hold their components (matrix:
// columns) in elems.
type value struct {
	t     *wtype
	i     int64
	f     float64
	elems []*value
}

// evalError is a const-evaluation failure; the caller positions it.
type evalError string

func (e evalError) Error() string { return string(e) }

func boolValue(b bool) *value {
	if b {
		return &value{t: tBool, i: 1}
	}
	return &value{t: tBool}
}

func intValue(t *wtype, i int64) *value     { return &value{t: t, i: i} }
func floatValue(t *wtype, f float64) *value { return &value{t: t, f: f} }

func (v *value) b() bool { return v.i != 0 }

// zeroValue is the zero value of a constructible type.
func zeroValue(t *wtype) *value {
	switch t.kind {
	case kVec:
		v := &value{t: t, elems: make([]*value, t.n)}
		z := zeroValue(t.elem)
		for i := range v.elems {
			v.elems[i] = z
		}
		return v
	case kMat:
		v := &value{t: t, elems: make([]*value, t.n)}
		z := zeroValue(vecOf(t.elem, t.r))
		for i := range v.elems {
			v.elems[i] = z
		}
		return v
	case kArray:
		v := &value{t: t, elems: make([]*value, t.count)}
		z := zeroValue(t.elem)
		for i := range v.elems {
			v.elems[i] = z
		}
		return v
	case kStruct:
		v := &value{t: t, elems: make([]*value, len(t.st.members))}
		for i, m := range t.st.members {
			v.elems[i] = zeroValue(m.t)
		}
		return v
	}
	return &value{t: t}
}

// splat makes a vector of n copies of scalar s.
func splat(s *value, n int) *value {
	v := &value{t: vecOf(s.t, n), elems: make([]*value, n)}
	for i := range v.elems {
		v.elems[i] = s
	}
	return v
}

func equalValues(a, b *value) bool {
	if len(a.elems) != len(b.elems) {
		return false
	}
	if len(a.elems) > 0 {
		for i := range a.elems {
			if !equalValues(a.elems[i], b.elems[i]) {
				return false
			}
		}
		return true
	}
	if a.t.isFloatScalar() {
		return a.f == b.f
	}
	return a.i == b.i
}

// ---- scalar representation ---------------------------------------------------

const (
	maxF32 = 3.40282346638528859811704183484516925440e+38
)

// roundF16 rounds x to the nearest binary16 value (ties to even); values
// beyond the finite range become infinities.
func roundF16(x float64) float64 {
	if x == 0 || math.IsNaN(x) || math.IsInf(x, 0) {
		return x
	}
	a := math.Abs(x)
	if a >= 65520 {
		return math.Copysign(math.Inf(1), x)
	}
	_, e := math.Frexp(a) // a = m * 2^e, m in [0.5, 1)
	exp := e - 1          // a = 1.f * 2^exp
	if exp < -14 {
		exp = -14 // subnormal quantum 2^-24
	}
	q := math.Ldexp(1, exp-10)
	return math.Copysign(math.RoundToEven(a/q)*q, x)
}

// representFloat rounds f to t's precision; ok is false when the result
// is not finite.
func representFloat(t *wtype, f float64) (float64, bool) {
	switch t.kind {
	case kF32:
		if math.Abs(f) > maxF32 {
			r := float64(float32(f))
			return r, !math.IsInf(r, 0)
		}
		f = float64(float32(f))
	case kF16:
		f = roundF16(f)
	}
	return f, !math.IsInf(f, 0) && !math.IsNaN(f)
}

// wrapInt reduces an integer to t's range, modulo 2^32 for i32 and u32.
func wrapInt(t *wtype, i int64) int64 {
	switch t.kind {
	case kI32:
		return int64(int32(i))
	case kU32:
		return int64(uint32(i))
	}
	return i
}

func intInRange(t *wtype, i int64) bool {
	switch t.kind {
	case kI32:
		return i >= math.MinInt32 && i <= math.MaxInt32
	case kU32:
		return i >= 0 && i <= math.MaxUint32
	}
	return true
}

// ---- conversions --------------------------------------------------------------

// convertAuto applies a feasible automatic conversion (abstract to a
// concrete or wider type, component-wise), checking that the value is
// representable.
func convertAuto(v *value, to *wtype) (*value, error) {
	if sameType(v.t, to) {
		return v, nil
	}
	if len(v.elems) > 0 || to.kind == kVec || to.kind == kMat || to.kind == kArray || to.kind == kStruct {
		out := &value{t: to, elems: make([]*value, len(v.elems))}
		for i, e := range v.elems {
			var et *wtype
			switch to.kind {
			case kVec, kArray:
				et = to.elem
			case kMat:
				et = vecOf(to.elem, to.r)
			case kStruct:
				if i >= len(to.st.members) {
					return nil, evalError("internal: struct value shape")
				}
				et = to.st.members[i].t
			default:
				return nil, evalError("cannot convert " + v.t.String() + " to " + to.String())
			}
			c, err := convertAuto(e, et)
			if err != nil {
				return nil, err
			}
			out.elems[i] = c
		}
		return out, nil
	}
	switch {
	case v.t.kind == kAbsInt && to.isIntScalar():
		if !intInRange(to, v.i) {
			return nil, evalError("value " + strconv.FormatInt(v.i, 10) + " cannot be represented as '" + to.String() + "'")
		}
		return intValue(to, v.i), nil
	case v.t.kind == kAbsInt && to.isFloatScalar():
		f, ok := representFloat(to, float64(v.i))
		if !ok {
			return nil, evalError("value " + strconv.FormatInt(v.i, 10) + " cannot be represented as '" + to.String() + "'")
		}
		return floatValue(to, f), nil
	case v.t.kind == kAbsFloat && to.isFloatScalar():
		f, ok := representFloat(to, v.f)
		if !ok {
			return nil, evalError("value " + formatFloat(v.f) + " cannot be represented as '" + to.String() + "'")
		}
		return floatValue(to, f), nil
	}
	return nil, evalError("cannot convert " + v.t.String() + " to " + to.String())
}

// convertExplicit is a value conversion T(e) between scalar types (or
// component-wise between vectors and matrices).
func convertExplicit(v *value, to *wtype) (*value, error) {
	if len(v.elems) > 0 {
		out := &value{t: to, elems: make([]*value, len(v.elems))}
		for i, e := range v.elems {
			et := to.elem
			if to.kind == kMat {
				et = vecOf(to.elem, to.r)
			}
			c, err := convertExplicit(e, et)
			if err != nil {
				return nil, err
			}
			out.elems[i] = c
		}
		return out, nil
	}
	from := v.t
	switch {
	case from.kind == kBool:
		switch {
		case to.kind == kBool:
			return v, nil
		case to.isIntScalar():
			return intValue(to, v.i), nil
		default:
			return floatValue(to, float64(v.i)), nil
		}
	case from.isIntScalar():
		switch {
		case to.kind == kBool:
			return boolValue(v.i != 0), nil
		case to.kind == kAbsInt:
			return intValue(to, v.i), nil
		case to.isIntScalar():
			if from.kind == kAbsInt && !intInRange(to, v.i) {
				return nil, evalError("value " + strconv.FormatInt(v.i, 10) + " cannot be represented as '" + to.String() + "'")
			}
			return intValue(to, wrapInt(to, v.i)), nil
		default:
			f, ok := representFloat(to, float64(v.i))
			if !ok {
				return nil, evalError("value " + strconv.FormatInt(v.i, 10) + " cannot be represented as '" + to.String() + "'")
			}
			return floatValue(to, f), nil
		}
	default: // float
		switch {
		case to.kind == kBool:
			return boolValue(v.f != 0), nil
		case to.isIntScalar():
			return intValue(to, floatToInt(from, to, v.f)), nil
		default:
			f, ok := representFloat(to, v.f)
			if !ok {
				return nil, evalError("value " + formatFloat(v.f) + " cannot be represented as '" + to.String() + "'")
			}
			return floatValue(to, f), nil
		}
	}
}

// floatToInt converts with the specification's clamping: the value in T
// closest to trunc(f) that is also exactly representable in the source
// type (f32 cannot represent 2147483647 or 4294967295).
func floatToInt(from, t *wtype, f float64) int64 {
	if math.IsNaN(f) {
		return 0
	}
	f = math.Trunc(f)
	maxI, maxU := 2147483647.0, 4294967295.0
	if from.kind == kF32 {
		maxI, maxU = 2147483520, 4294967040
	}
	switch t.kind {
	case kI32:
		return int64(math.Max(-2147483648, math.Min(f, maxI)))
	case kU32:
		return int64(math.Max(0, math.Min(f, maxU)))
	}
	if f >= 9.223372036854775807e18 {
		return math.MaxInt64 - 1023
	}
	if f <= -9.223372036854775808e18 {
		return math.MinInt64
	}
	return int64(f)
}

// ---- operators ------------------------------------------------------------------

// mapValues applies f component-wise to scalars or vectors a and b, splatting
// a scalar against a vector.
func mapValues(a, b *value, rt *wtype, f func(x, y *value) (*value, error)) (*value, error) {
	if len(a.elems) == 0 && len(b.elems) == 0 {
		return f(a, b)
	}
	n := max(len(a.elems), len(b.elems))
	out := &value{t: rt, elems: make([]*value, n)}
	for i := 0; i < n; i++ {
		x, y := a, b
		if len(a.elems) > 0 {
			x = a.elems[i]
		}
		if len(b.elems) > 0 {
			y = b.elems[i]
		}
		var et *wtype
		if rt.kind == kVec || rt.kind == kArray {
			et = rt.elem
		} else if rt.kind == kMat {
			et = vecOf(rt.elem, rt.r)
		} else {
			et = rt
		}
		r, err := mapValues(x, y, et, f)
		if err != nil {
			return nil, err
		}
		out.elems[i] = r
	}
	return out, nil
}

func mapValue(a *value, rt *wtype, f func(x *value) (*value, error)) (*value, error) {
	return mapValues(a, a, rt, func(x, _ *value) (*value, error) { return f(x) })
}

func floatResult(t *wtype, f float64) (*value, error) {
	r, ok := representFloat(t, f)
	if !ok {
		return nil, evalError("the result " + formatFloat(f) + " is not representable as '" + t.String() + "'")
	}
	return floatValue(t, r), nil
}

func intResult(t *wtype, i int64, overflow bool) (*value, error) {
	if t.kind == kAbsInt {
		if overflow {
			return nil, evalError("AbstractInt overflow")
		}
		return intValue(t, i), nil
	}
	return intValue(t, wrapInt(t, i)), nil
}

// scalarBinary evaluates a binary operator on two scalars of type t (the
// comparison and logical operators yield bool).
func scalarBinary(op string, x, y *value) (*value, error) {
	t := x.t
	if t.kind == kBool {
		switch op {
		case "&", "&&":
			return boolValue(x.b() && y.b()), nil
		case "|", "||":
			return boolValue(x.b() || y.b()), nil
		case "==":
			return boolValue(x.i == y.i), nil
		case "!=":
			return boolValue(x.i != y.i), nil
		}
		return nil, evalError("operator " + op + " on bool")
	}
	if t.isFloatScalar() {
		a, b := x.f, y.f
		switch op {
		case "+":
			return floatResult(t, a+b)
		case "-":
			return floatResult(t, a-b)
		case "*":
			return floatResult(t, a*b)
		case "/":
			if b == 0 {
				return nil, evalError("division by zero")
			}
			return floatResult(t, a/b)
		case "%":
			if b == 0 {
				return nil, evalError("remainder by zero")
			}
			return floatResult(t, a-b*math.Trunc(a/b))
		case "==", "!=", "<", "<=", ">", ">=":
			return boolValue(compare(op, a, b)), nil
		}
		return nil, evalError("operator " + op + " on " + t.String())
	}
	a, b := x.i, y.i
	switch op {
	case "+":
		r, ovf := addOvf(a, b)
		return intResult(t, r, ovf)
	case "-":
		r, ovf := subOvf(a, b)
		return intResult(t, r, ovf)
	case "*":
		r, ovf := mulOvf(a, b)
		return intResult(t, r, ovf)
	case "/", "%":
		if b == 0 {
			if op == "/" {
				return nil, evalError("integer division by zero")
			}
			return nil, evalError("integer remainder by zero")
		}
		if (t.kind == kI32 && a == math.MinInt32 && b == -1) || (t.kind == kAbsInt && a == math.MinInt64 && b == -1) {
			return nil, evalError("integer division overflow")
		}
		if op == "/" {
			return intValue(t, a/b), nil
		}
		return intValue(t, a%b), nil
	case "&":
		return intValue(t, wrapInt(t, a&b)), nil
	case "|":
		return intValue(t, wrapInt(t, a|b)), nil
	case "^":
		return intValue(t, wrapInt(t, a^b)), nil
	case "==", "!=", "<", "<=", ">", ">=":
		return boolValue(compare(op, a, b)), nil
	case "<<", ">>":
		return shiftValue(op, x, y)
	}
	return nil, evalError("operator " + op + " on " + t.String())
}

func shiftValue(op string, x, y *value) (*value, error) {
	t := x.t
	s := y.i
	width := int64(32)
	if t.kind == kAbsInt {
		width = 64
	}
	if t.kind != kAbsInt && s >= width {
		return nil, evalError("shift amount " + strconv.FormatInt(s, 10) + " is not less than the bit width of '" + t.String() + "' (32)")
	}
	if op == ">>" {
		if s >= 64 {
			s = 63
		}
		if t.kind == kU32 {
			return intValue(t, int64(uint32(x.i)>>uint(s))), nil
		}
		return intValue(t, x.i>>uint(s)), nil
	}
	switch t.kind {
	case kAbsInt:
		if s >= 64 {
			if x.i != 0 {
				return nil, evalError("AbstractInt overflow in shift")
			}
			return intValue(t, 0), nil
		}
		r := x.i << uint(s)
		if r>>uint(s) != x.i || (s > 0 && (r < 0) != (x.i < 0)) {
			return nil, evalError("AbstractInt overflow in shift")
		}
		return intValue(t, r), nil
	case kI32:
		r := int64(int32(uint32(x.i) << uint(s)))
		// The s+1 most significant bits must agree.
		if int64(int32(r)>>uint(s)) != x.i {
			return nil, evalError("shift overflows 'i32'")
		}
		return intValue(t, r), nil
	default:
		u := uint32(x.i)
		if s > 0 && u>>(32-uint(s)) != 0 {
			return nil, evalError("shift overflows 'u32'")
		}
		return intValue(t, int64(u<<uint(s))), nil
	}
}

func addOvf(a, b int64) (int64, bool) {
	r := a + b
	return r, (a >= 0) == (b >= 0) && (r >= 0) != (a >= 0)
}

func subOvf(a, b int64) (int64, bool) {
	r := a - b
	return r, (a >= 0) != (b >= 0) && (r >= 0) != (a >= 0)
}

func mulOvf(a, b int64) (int64, bool) {
	if a == 0 || b == 0 {
		return 0, false
	}
	hi, lo := bits.Mul64(uint64(absI(a)), uint64(absI(b)))
	neg := (a < 0) != (b < 0)
	if hi != 0 || (!neg && lo > math.MaxInt64) || (neg && lo > 1<<63) {
		return a * b, true
	}
	return a * b, false
}

func absI(a int64) int64 {
	if a < 0 {
		return -a
	}
	return a
}

// unaryValue evaluates -, !, ~ component-wise.
func unaryValue(op string, v *value) (*value, error) {
	return mapValue(v, v.t, func(x *value) (*value, error) {
		t := x.t
		switch op {
		case "-":
			if t.isFloatScalar() {
				return floatValue(t, -x.f), nil
			}
			if t.kind == kAbsInt && x.i == math.MinInt64 {
				return nil, evalError("AbstractInt overflow in negation")
			}
			return intValue(t, wrapInt(t, -x.i)), nil
		case "!":
			return boolValue(!x.b()), nil
		case "~":
			if t.kind == kU32 {
				return intValue(t, int64(^uint32(x.i))), nil
			}
			return intValue(t, ^x.i), nil
		}
		return nil, evalError("unary " + op)
	})
}

// binaryValue evaluates a binary operator on operands already converted to
// their operation types; rt is the result type.
func binaryValue(op string, a, b *value, rt *wtype) (*value, error) {
	at, bt := a.t, b.t
	if op == "*" && (at.kind == kMat || bt.kind == kMat) {
		return matMul(a, b, rt)
	}
	if (op == "+" || op == "-") && at.kind == kMat {
		return mapValues(a, b, rt, func(x, y *value) (*value, error) { return scalarBinary(op, x, y) })
	}
	return mapValues(a, b, rt, func(x, y *value) (*value, error) { return scalarBinary(op, x, y) })
}

// matMul evaluates matrix-scalar, matrix-vector, vector-matrix and
// matrix-matrix products.
func matMul(a, b *value, rt *wtype) (*value, error) {
	at, bt := a.t, b.t
	mul := func(x, y *value) (*value, error) { return scalarBinary("*", x, y) }
	add := func(x, y *value) (*value, error) { return scalarBinary("+", x, y) }
	switch {
	case at.kind == kMat && bt.isScalar():
		return mapValues(a, &value{t: a.t, elems: repeatCols(b, at)}, rt, mul)
	case at.isScalar() && bt.kind == kMat:
		return mapValues(&value{t: b.t, elems: repeatCols(a, bt)}, b, rt, mul)
	case at.kind == kMat && bt.kind == kVec:
		// result[r] = sum_c a[c][r] * b[c]
		out := &value{t: rt, elems: make([]*value, at.r)}
		for r := 0; r < at.r; r++ {
			var acc *value
			for c := 0; c < at.n; c++ {
				p, err := mul(a.elems[c].elems[r], b.elems[c])
				if err != nil {
					return nil, err
				}
				if acc == nil {
					acc = p
				} else if acc, err = add(acc, p); err != nil {
					return nil, err
				}
			}
			out.elems[r] = acc
		}
		return out, nil
	case at.kind == kVec && bt.kind == kMat:
		out := &value{t: rt, elems: make([]*value, bt.n)}
		for c := 0; c < bt.n; c++ {
			d, err := dotValues(a, b.elems[c])
			if err != nil {
				return nil, err
			}
			out.elems[c] = d
		}
		return out, nil
	case at.kind == kMat && bt.kind == kMat:
		out := &value{t: rt, elems: make([]*value, bt.n)}
		for c := 0; c < bt.n; c++ {
			col, err := matMul(a, b.elems[c], vecOf(rt.elem, at.r))
			if err != nil {
				return nil, err
			}
			out.elems[c] = col
		}
		return out, nil
	}
	return nil, evalError("matrix product of " + at.String() + " and " + bt.String())
}

func repeatCols(s *value, m *wtype) []*value {
	cols := make([]*value, m.n)
	for i := range cols {
		cols[i] = splat(s, m.r)
	}
	return cols
}

func dotValues(a, b *value) (*value, error) {
	var acc *value
	for i := range a.elems {
		p, err := scalarBinary("*", a.elems[i], b.elems[i])
		if err != nil {
			return nil, err
		}
		if acc == nil {
			acc = p
		} else if acc, err = scalarBinary("+", acc, p); err != nil {
			return nil, err
		}
	}
	if acc == nil {
		return nil, evalError("empty dot product")
	}
	return acc, nil
}

// ---- formatting -------------------------------------------------------------------

func formatFloat(f float64) string {
	return strconv.FormatFloat(f, 'g', -1, 64)
}

// String formats a value in WGSL syntax (for messages).
func (v *value) String() string {
	var b strings.Builder
	v.write(&b)
	return b.String()
}

func (v *value) write(b *strings.Builder) {
	if len(v.elems) > 0 || v.t.kind == kArray || v.t.kind == kStruct || v.t.kind == kVec || v.t.kind == kMat {
		b.WriteString(v.t.String())
		b.WriteByte('(')
		for i, e := range v.elems {
			if i > 0 {
				b.WriteString(", ")
			}
			e.write(b)
		}
		b.WriteByte(')')
		return
	}
	switch {
	case v.t.kind == kBool:
		if v.b() {
			b.WriteString("true")
		} else {
			b.WriteString("false")
		}
	case v.t.isIntScalar():
		b.WriteString(strconv.FormatInt(v.i, 10))
		switch v.t.kind {
		case kI32:
			b.WriteByte('i')
		case kU32:
			b.WriteByte('u')
		}
	default:
		s := formatFloat(v.f)
		b.WriteString(s)
		switch v.t.kind {
		case kF32:
			b.WriteByte('f')
		case kF16:
			b.WriteByte('h')
		}
	}
}

// compare applies a relational operator (==, !=, <, <=, >, >=) to a and
// b; floats compare as IEEE 754 does (a NaN is unequal to everything).
func compare[T float64 | int64](op string, a, b T) bool {
	switch op {
	case "==":
		return a == b
	case "!=":
		return a != b
	case "<":
		return a < b
	case "<=":
		return a <= b
	case ">":
		return a > b
	}
	return a >= b
}
