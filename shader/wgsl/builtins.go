package wgsl

import (
	"github.com/gfxcuda/gfxcuda/shader/wgsl/internal/ast"

	"math"
	"math/bits"
	"strconv"

	"github.com/gfxcuda/gfxcuda/internal/half"
)

// This file types the built-in functions available to compute shaders and
// evaluates those that are const.

type builtinFn struct {
	mustUse bool
	// check types a call whose arguments are already checked (ats are their
	// types after the load rule), converting arguments as needed; it returns
	// the result type, or nil after reporting an error.
	check func(c *checker, e *ast.CallExpr, ats []*wtype) *wtype
	// eval evaluates the call on const arguments; nil when the function is
	// not const.
	eval func(args []*value, rt *wtype) (*value, error)
}

var builtinFuncs map[string]*builtinFn

// Argument classes.
const (
	clsFloat = 1 << iota // f32, f16, AbstractFloat
	clsSInt              // i32, AbstractInt
	clsUInt              // u32
	clsBool
	clsConcrete // abstract arguments are concretized
	clsScalar   // scalars allowed
	clsVector   // vectors allowed
)

const (
	clsNum = clsFloat | clsSInt | clsUInt
	clsInt = clsSInt | clsUInt
	clsSV  = clsScalar | clsVector
	fltSV  = clsFloat | clsSV
	numSV  = clsNum | clsSV
	cintSV = clsInt | clsConcrete | clsSV
	anySV  = clsNum | clsBool | clsSV
	fltVec = clsFloat | clsVector
	numVec = clsNum | clsVector
)

func inClass(s *wtype, cls int) bool {
	switch s.kind {
	case kF32, kF16, kAbsFloat:
		return cls&clsFloat != 0
	case kI32, kAbsInt:
		return cls&clsSInt != 0
	case kU32:
		return cls&clsUInt != 0
	case kBool:
		return cls&clsBool != 0
	}
	return false
}

func (c *checker) argCount(e *ast.CallExpr, ats []*wtype, n int) bool {
	if len(ats) != n {
		c.errorf(e.Pos, ruleType, "'%s' takes %d argument(s), found %d", e.Callee.Name, n, len(ats))
		return false
	}
	return true
}

func anyNonConst(c *checker, e *ast.CallExpr) bool {
	for _, a := range e.Args {
		if c.info[a].stage != stConst {
			return true
		}
	}
	return false
}

// sameArgs unifies n arguments of one type T in class cls and converts them;
// it returns T.
func (c *checker) sameArgs(e *ast.CallExpr, ats []*wtype, n, cls int) *wtype {
	if !c.argCount(e, ats, n) {
		return nil
	}
	return c.unifyArgs(e, e.Args, ats, cls)
}

func (c *checker) unifyArgs(e *ast.CallExpr, args []ast.Expr, ats []*wtype, cls int) *wtype {
	name := e.Callee.Name
	u := ats[0]
	for i := 1; i < len(ats); i++ {
		nu := unify(u, ats[i])
		if nu == nil {
			c.errorf(args[i].Position(), ruleType, "the arguments of '%s' must have the same type; found '%s' and '%s'", name, u, ats[i])
			return nil
		}
		u = nu
	}
	s := u.scalarOf()
	okShape := (u.isScalar() && cls&clsScalar != 0) || (u.kind == kVec && cls&clsVector != 0)
	if s == nil || !okShape {
		c.errorf(e.Pos, ruleType, "'%s' cannot take '%s'%s", name, u, classHint(cls))
		return nil
	}
	if s.kind == kAbsInt && cls&clsInt == 0 && cls&clsFloat != 0 {
		u = u.withScalar(tAbsFloat)
		s = tAbsFloat
	}
	if cls&clsConcrete != 0 || anyNonConst(c, e) {
		u = concreteOf(u)
		s = u.scalarOf()
	}
	if !inClass(s, cls) {
		c.errorf(e.Pos, ruleType, "'%s' cannot take '%s'%s", name, u, classHint(cls))
		return nil
	}
	for _, a := range args {
		if !c.convertTo(a, u, "argument of '"+name+"'") {
			return nil
		}
	}
	return u
}

func classHint(cls int) string {
	var s string
	switch {
	case cls&clsNum == clsFloat:
		s = "floating point"
	case cls&clsNum == clsInt:
		s = "integer"
	case cls&clsNum == clsSInt|clsFloat:
		s = "signed numeric"
	case cls&clsNum == clsNum && cls&clsBool != 0:
		s = "scalar"
	case cls&clsNum == clsNum:
		s = "numeric"
	default:
		return ""
	}
	switch cls & clsSV {
	case clsSV:
		return " (expected a " + s + " scalar or vector)"
	case clsVector:
		return " (expected a " + s + " vector)"
	}
	return " (expected a " + s + " scalar)"
}

// sig builds a check for functions of n arguments of one type T -> T.
func sig(n, cls int) func(c *checker, e *ast.CallExpr, ats []*wtype) *wtype {
	return func(c *checker, e *ast.CallExpr, ats []*wtype) *wtype { return c.sameArgs(e, ats, n, cls) }
}

// sigScalarResult is like sig but yields T's component type.
func sigScalarResult(n, cls int) func(c *checker, e *ast.CallExpr, ats []*wtype) *wtype {
	return func(c *checker, e *ast.CallExpr, ats []*wtype) *wtype {
		t := c.sameArgs(e, ats, n, cls)
		if t == nil {
			return nil
		}
		return t.scalarOf()
	}
}

// fixedSig checks arguments against fixed concrete types.
func fixedSig(ret *wtype, params ...*wtype) func(c *checker, e *ast.CallExpr, ats []*wtype) *wtype {
	return func(c *checker, e *ast.CallExpr, ats []*wtype) *wtype {
		if !c.argCount(e, ats, len(params)) {
			return nil
		}
		for i, p := range params {
			if !c.convertTo(e.Args[i], p, "argument "+strconv.Itoa(i+1)+" of '"+e.Callee.Name+"'") {
				return nil
			}
		}
		return ret
	}
}

// ---- const evaluation helpers ------------------------------------------------------

type f1 func(x float64) (float64, bool)

func evalF1(f f1) func(args []*value, rt *wtype) (*value, error) {
	return func(args []*value, rt *wtype) (*value, error) {
		return mapValue(args[0], rt, func(x *value) (*value, error) {
			r, ok := f(x.f)
			if !ok {
				return nil, evalError("argument " + formatFloat(x.f) + " is outside the domain")
			}
			return floatResult(x.t, r)
		})
	}
}

func plain(f func(float64) float64) f1 {
	return func(x float64) (float64, bool) { return f(x), true }
}

// evalMap2 applies a scalar function component-wise to two arguments.
func evalMap2(f func(x, y *value) (*value, error)) func(args []*value, rt *wtype) (*value, error) {
	return func(args []*value, rt *wtype) (*value, error) { return mapValues(args[0], args[1], rt, f) }
}

func evalMap3(f func(x, y, z *value) (*value, error)) func(args []*value, rt *wtype) (*value, error) {
	return func(args []*value, rt *wtype) (*value, error) {
		a, b, cc := args[0], args[1], args[2]
		if len(a.elems) == 0 {
			return f(a, b, cc)
		}
		out := &value{t: rt, elems: make([]*value, len(a.elems))}
		for i := range a.elems {
			z := cc
			if len(cc.elems) > 0 {
				z = cc.elems[i]
			}
			y := b
			if len(b.elems) > 0 {
				y = b.elems[i]
			}
			r, err := f(a.elems[i], y, z)
			if err != nil {
				return nil, err
			}
			out.elems[i] = r
		}
		return out, nil
	}
}

func u32v(x uint32) *value { return intValue(tU32, int64(x)) }

func fvec(t *wtype, fs ...float64) *value {
	v := &value{t: vecOf(t, len(fs)), elems: make([]*value, len(fs))}
	for i, f := range fs {
		v.elems[i] = floatValue(t, f)
	}
	return v
}

func ivec(t *wtype, is ...int64) *value {
	v := &value{t: vecOf(t, len(is)), elems: make([]*value, len(is))}
	for i, x := range is {
		v.elems[i] = intValue(t, x)
	}
	return v
}

func length(v *value) float64 {
	if len(v.elems) == 0 {
		return math.Abs(v.f)
	}
	s := 0.0
	for _, e := range v.elems {
		s += e.f * e.f
	}
	return math.Sqrt(s)
}

func clampF(x, lo, hi float64) float64 { return math.Max(lo, math.Min(x, hi)) }

func roundEvenHalf(x float64) float64 { return math.RoundToEven(x) }

// ---- the table ------------------------------------------------------------------------

func init() {
	fl := func(f func(float64) float64) *builtinFn {
		return &builtinFn{mustUse: true, check: sig(1, fltSV), eval: evalF1(plain(f))}
	}
	dom := func(f f1) *builtinFn {
		return &builtinFn{mustUse: true, check: sig(1, fltSV), eval: evalF1(f)}
	}
	b := map[string]*builtinFn{
		"acos":  dom(func(x float64) (float64, bool) { return math.Acos(x), x >= -1 && x <= 1 }),
		"asin":  dom(func(x float64) (float64, bool) { return math.Asin(x), x >= -1 && x <= 1 }),
		"atan":  fl(math.Atan),
		"acosh": dom(func(x float64) (float64, bool) { return math.Acosh(x), x >= 1 }),
		"asinh": fl(math.Asinh),
		"atanh": dom(func(x float64) (float64, bool) { return math.Atanh(x), x > -1 && x < 1 }),
		"cos":   fl(math.Cos),
		"cosh":  fl(math.Cosh),
		"sin":   fl(math.Sin),
		"sinh":  fl(math.Sinh),
		"tan":   fl(math.Tan),
		"tanh":  fl(math.Tanh),
		"exp":   fl(math.Exp),
		"exp2":  fl(math.Exp2),
		"log":   dom(func(x float64) (float64, bool) { return math.Log(x), x > 0 }),
		"log2":  dom(func(x float64) (float64, bool) { return math.Log2(x), x > 0 }),
		"sqrt":  dom(func(x float64) (float64, bool) { return math.Sqrt(x), x >= 0 }),
		"inverseSqrt": dom(func(x float64) (float64, bool) {
			return 1 / math.Sqrt(x), x > 0
		}),
		"ceil":     fl(math.Ceil),
		"floor":    fl(math.Floor),
		"fract":    fl(func(x float64) float64 { return x - math.Floor(x) }),
		"trunc":    fl(math.Trunc),
		"round":    fl(roundEvenHalf),
		"degrees":  fl(func(x float64) float64 { return x * (180 / math.Pi) }),
		"radians":  fl(func(x float64) float64 { return x * (math.Pi / 180) }),
		"saturate": fl(func(x float64) float64 { return clampF(x, 0, 1) }),
		"quantizeToF16": {mustUse: true, check: sig(1, clsFloat|clsConcrete|clsSV|clsF32Only), eval: evalF1(func(x float64) (float64, bool) {
			r := roundF16(x)
			return r, !math.IsInf(r, 0)
		})},
		"abs": {mustUse: true, check: sig(1, numSV), eval: func(args []*value, rt *wtype) (*value, error) {
			return mapValue(args[0], rt, func(x *value) (*value, error) {
				if x.t.isFloatScalar() {
					return floatValue(x.t, math.Abs(x.f)), nil
				}
				if x.i < 0 {
					return intResult(x.t, -x.i, x.i == math.MinInt64)
				}
				return x, nil
			})
		}},
		"sign": {mustUse: true, check: sig(1, clsFloat|clsSInt|clsSV), eval: func(args []*value, rt *wtype) (*value, error) {
			return mapValue(args[0], rt, func(x *value) (*value, error) {
				if x.t.isFloatScalar() {
					s := 0.0
					if x.f > 0 {
						s = 1
					} else if x.f < 0 {
						s = -1
					}
					return floatValue(x.t, s), nil
				}
				s := int64(0)
				if x.i > 0 {
					s = 1
				} else if x.i < 0 {
					s = -1
				}
				return intValue(x.t, s), nil
			})
		}},
		"atan2": {mustUse: true, check: sig(2, fltSV), eval: evalMap2(func(y, x *value) (*value, error) {
			return floatResult(y.t, math.Atan2(y.f, x.f))
		})},
		"pow": {mustUse: true, check: sig(2, fltSV), eval: evalMap2(func(x, y *value) (*value, error) {
			return floatResult(x.t, math.Pow(x.f, y.f))
		})},
		"step": {mustUse: true, check: sig(2, fltSV), eval: evalMap2(func(edge, x *value) (*value, error) {
			if edge.f <= x.f {
				return floatValue(x.t, 1), nil
			}
			return floatValue(x.t, 0), nil
		})},
		"min": {mustUse: true, check: sig(2, numSV), eval: evalMap2(func(x, y *value) (*value, error) {
			if x.t.isFloatScalar() {
				return floatValue(x.t, math.Min(x.f, y.f)), nil
			}
			return intValue(x.t, min(x.i, y.i)), nil
		})},
		"max": {mustUse: true, check: sig(2, numSV), eval: evalMap2(func(x, y *value) (*value, error) {
			if x.t.isFloatScalar() {
				return floatValue(x.t, math.Max(x.f, y.f)), nil
			}
			return intValue(x.t, max(x.i, y.i)), nil
		})},
		"clamp": {mustUse: true, check: sig(3, numSV), eval: evalMap3(func(x, lo, hi *value) (*value, error) {
			if x.t.isFloatScalar() {
				return floatValue(x.t, math.Min(math.Max(x.f, lo.f), hi.f)), nil
			}
			return intValue(x.t, min(max(x.i, lo.i), hi.i)), nil
		})},
		"fma": {mustUse: true, check: sig(3, fltSV), eval: evalMap3(func(a, b, cc *value) (*value, error) {
			return floatResult(a.t, a.f*b.f+cc.f)
		})},
		"smoothstep": {mustUse: true, check: sig(3, fltSV), eval: evalMap3(func(lo, hi, x *value) (*value, error) {
			if lo.f == hi.f {
				return nil, evalError("smoothstep with equal edges")
			}
			t := clampF((x.f-lo.f)/(hi.f-lo.f), 0, 1)
			return floatResult(x.t, t*t*(3-2*t))
		})},
		"mix":          {mustUse: true, check: checkMix, eval: evalMap3(func(a, b, t *value) (*value, error) { return floatResult(a.t, a.f*(1-t.f)+b.f*t.f) })},
		"cross":        {mustUse: true, check: checkCross, eval: evalCross},
		"dot":          {mustUse: true, check: sigScalarResult(2, numVec), eval: func(a []*value, _ *wtype) (*value, error) { return dotValues(a[0], a[1]) }},
		"length":       {mustUse: true, check: sigScalarResult(1, fltSV), eval: func(a []*value, rt *wtype) (*value, error) { return floatResult(rt, length(a[0])) }},
		"distance":     {mustUse: true, check: sigScalarResult(2, fltSV), eval: evalDistance},
		"normalize":    {mustUse: true, check: sig(1, fltVec), eval: evalNormalize},
		"reflect":      {mustUse: true, check: sig(2, fltVec), eval: evalReflect},
		"refract":      {mustUse: true, check: checkRefract, eval: evalRefract},
		"faceForward":  {mustUse: true, check: sig(3, fltVec), eval: evalFaceForward},
		"determinant":  {mustUse: true, check: checkDeterminant, eval: evalDeterminant},
		"transpose":    {mustUse: true, check: checkTranspose, eval: evalTranspose},
		"ldexp":        {mustUse: true, check: checkLdexp, eval: evalLdexp},
		"frexp":        {mustUse: true, check: checkFrexpModf, eval: evalFrexp},
		"modf":         {mustUse: true, check: checkFrexpModf, eval: evalModf},
		"countOneBits": {mustUse: true, check: sig(1, cintSV), eval: evalBits(func(x uint32, s bool) uint32 { return uint32(bits.OnesCount32(x)) })},
		"countLeadingZeros": {mustUse: true, check: sig(1, cintSV), eval: evalBits(func(x uint32, s bool) uint32 {
			return uint32(bits.LeadingZeros32(x))
		})},
		"countTrailingZeros": {mustUse: true, check: sig(1, cintSV), eval: evalBits(func(x uint32, s bool) uint32 {
			return uint32(bits.TrailingZeros32(x))
		})},
		"reverseBits": {mustUse: true, check: sig(1, cintSV), eval: evalBits(func(x uint32, s bool) uint32 { return bits.Reverse32(x) })},
		"firstTrailingBit": {mustUse: true, check: sig(1, cintSV), eval: evalBits(func(x uint32, s bool) uint32 {
			if x == 0 {
				return 0xffffffff
			}
			return uint32(bits.TrailingZeros32(x))
		})},
		"firstLeadingBit": {mustUse: true, check: sig(1, cintSV), eval: evalBits(func(x uint32, s bool) uint32 {
			if s && int32(x) < 0 {
				x = ^x
			}
			if x == 0 {
				return 0xffffffff
			}
			return uint32(31 - bits.LeadingZeros32(x))
		})},
		"extractBits": {mustUse: true, check: checkExtractBits, eval: evalExtractBits},
		"insertBits":  {mustUse: true, check: checkInsertBits, eval: evalInsertBits},
		"dot4U8Packed": {mustUse: true, check: fixedSig(tU32, tU32, tU32), eval: func(a []*value, _ *wtype) (*value, error) {
			x, y := uint32(a[0].i), uint32(a[1].i)
			s := uint32(0)
			for k := 0; k < 32; k += 8 {
				s += (x >> k & 0xff) * (y >> k & 0xff)
			}
			return u32v(s), nil
		}},
		"dot4I8Packed": {mustUse: true, check: fixedSig(tI32, tU32, tU32), eval: func(a []*value, _ *wtype) (*value, error) {
			x, y := uint32(a[0].i), uint32(a[1].i)
			s := int32(0)
			for k := 0; k < 32; k += 8 {
				s += int32(int8(x>>k)) * int32(int8(y>>k))
			}
			return intValue(tI32, int64(s)), nil
		}},
		"pack4x8snorm":    {mustUse: true, check: fixedSig(tU32, vecOf(tF32, 4)), eval: evalPack(8, func(f float64) uint32 { return uint32(int32(math.Floor(0.5+127*clampF(f, -1, 1)))) & 0xff })},
		"pack4x8unorm":    {mustUse: true, check: fixedSig(tU32, vecOf(tF32, 4)), eval: evalPack(8, func(f float64) uint32 { return uint32(math.Floor(0.5 + 255*clampF(f, 0, 1))) })},
		"pack2x16snorm":   {mustUse: true, check: fixedSig(tU32, vecOf(tF32, 2)), eval: evalPack(16, func(f float64) uint32 { return uint32(int32(math.Floor(0.5+32767*clampF(f, -1, 1)))) & 0xffff })},
		"pack2x16unorm":   {mustUse: true, check: fixedSig(tU32, vecOf(tF32, 2)), eval: evalPack(16, func(f float64) uint32 { return uint32(math.Floor(0.5 + 65535*clampF(f, 0, 1))) })},
		"pack2x16float":   {mustUse: true, check: fixedSig(tU32, vecOf(tF32, 2)), eval: evalPack(16, func(f float64) uint32 { return uint32(half.FromFloat32(float32(roundF16(f)))) })},
		"pack4xI8":        {mustUse: true, check: fixedSig(tU32, vecOf(tI32, 4)), eval: evalPackInt(func(i int64) uint32 { return uint32(i) & 0xff })},
		"pack4xU8":        {mustUse: true, check: fixedSig(tU32, vecOf(tU32, 4)), eval: evalPackInt(func(i int64) uint32 { return uint32(i) & 0xff })},
		"pack4xI8Clamp":   {mustUse: true, check: fixedSig(tU32, vecOf(tI32, 4)), eval: evalPackInt(func(i int64) uint32 { return uint32(min(max(i, -128), 127)) & 0xff })},
		"pack4xU8Clamp":   {mustUse: true, check: fixedSig(tU32, vecOf(tU32, 4)), eval: evalPackInt(func(i int64) uint32 { return uint32(min(i, 255)) })},
		"unpack4x8snorm":  {mustUse: true, check: fixedSig(vecOf(tF32, 4), tU32), eval: evalUnpack(8, func(u uint32) float64 { return math.Max(float64(int8(u))/127, -1) })},
		"unpack4x8unorm":  {mustUse: true, check: fixedSig(vecOf(tF32, 4), tU32), eval: evalUnpack(8, func(u uint32) float64 { return float64(u&0xff) / 255 })},
		"unpack2x16snorm": {mustUse: true, check: fixedSig(vecOf(tF32, 2), tU32), eval: evalUnpack(16, func(u uint32) float64 { return math.Max(float64(int16(u))/32767, -1) })},
		"unpack2x16unorm": {mustUse: true, check: fixedSig(vecOf(tF32, 2), tU32), eval: evalUnpack(16, func(u uint32) float64 { return float64(u&0xffff) / 65535 })},
		"unpack2x16float": {mustUse: true, check: fixedSig(vecOf(tF32, 2), tU32), eval: evalUnpack(16, func(u uint32) float64 { return float64(half.ToFloat32(uint16(u))) })},
		"unpack4xI8": {mustUse: true, check: fixedSig(vecOf(tI32, 4), tU32), eval: func(a []*value, _ *wtype) (*value, error) {
			x := uint32(a[0].i)
			return ivec(tI32, int64(int8(x)), int64(int8(x>>8)), int64(int8(x>>16)), int64(int8(x>>24))), nil
		}},
		"unpack4xU8": {mustUse: true, check: fixedSig(vecOf(tU32, 4), tU32), eval: func(a []*value, _ *wtype) (*value, error) {
			x := int64(uint32(a[0].i))
			return ivec(tU32, x&0xff, x>>8&0xff, x>>16&0xff, x>>24&0xff), nil
		}},
		"select": {mustUse: true, check: checkSelect, eval: evalSelect},
		"all":    {mustUse: true, check: checkAllAny, eval: evalAllAny(true)},
		"any":    {mustUse: true, check: checkAllAny, eval: evalAllAny(false)},

		"arrayLength": {mustUse: true, check: checkArrayLength},

		"atomicLoad":                {check: checkAtomic(0, false)},
		"atomicStore":               {check: checkAtomic(1, true)},
		"atomicAdd":                 {check: checkAtomic(1, false)},
		"atomicSub":                 {check: checkAtomic(1, false)},
		"atomicMax":                 {check: checkAtomic(1, false)},
		"atomicMin":                 {check: checkAtomic(1, false)},
		"atomicAnd":                 {check: checkAtomic(1, false)},
		"atomicOr":                  {check: checkAtomic(1, false)},
		"atomicXor":                 {check: checkAtomic(1, false)},
		"atomicExchange":            {check: checkAtomic(1, false)},
		"atomicCompareExchangeWeak": {check: checkAtomic(2, false)},

		"workgroupBarrier":     {check: fixedSig(tVoid)},
		"storageBarrier":       {check: fixedSig(tVoid)},
		"textureBarrier":       {check: fixedSig(tVoid)},
		"workgroupUniformLoad": {mustUse: true, check: checkWorkgroupUniformLoad},

		"textureDimensions":            {mustUse: true, check: checkTextureDimensions},
		"textureNumLayers":             {mustUse: true, check: checkTextureQuery},
		"textureNumLevels":             {mustUse: true, check: checkTextureQuery},
		"textureNumSamples":            {mustUse: true, check: checkTextureQuery},
		"textureLoad":                  {mustUse: true, check: checkTextureLoad},
		"textureStore":                 {check: checkTextureStore},
		"textureSampleLevel":           {mustUse: true, check: checkTextureSample},
		"textureSampleGrad":            {mustUse: true, check: checkTextureSample},
		"textureSampleCompareLevel":    {mustUse: true, check: checkTextureSample},
		"textureSampleBaseClampToEdge": {mustUse: true, check: checkTextureSample},
		"textureGather":                {mustUse: true, check: checkTextureGather},
		"textureGatherCompare":         {mustUse: true, check: checkTextureSample},
	}
	for _, n := range []string{"subgroupAdd", "subgroupMul", "subgroupMin", "subgroupMax", "subgroupExclusiveAdd", "subgroupInclusiveAdd",
		"subgroupExclusiveMul", "subgroupInclusiveMul"} {
		b[n] = &builtinFn{mustUse: true, check: checkSubgroup(numSV | clsConcrete)}
	}
	for _, n := range []string{"subgroupAnd", "subgroupOr", "subgroupXor"} {
		b[n] = &builtinFn{mustUse: true, check: checkSubgroup(cintSV)}
	}
	for _, n := range []string{"subgroupBroadcastFirst"} {
		b[n] = &builtinFn{mustUse: true, check: checkSubgroup(anySV | clsConcrete)}
	}
	for _, n := range []string{"subgroupBroadcast", "subgroupShuffle", "subgroupShuffleXor", "subgroupShuffleUp", "subgroupShuffleDown"} {
		b[n] = &builtinFn{mustUse: true, check: checkSubgroupShuffle}
	}
	for _, n := range []string{"quadSwapX", "quadSwapY", "quadSwapDiagonal"} {
		b[n] = &builtinFn{mustUse: true, check: checkSubgroup(anySV | clsConcrete)}
	}
	b["quadBroadcast"] = &builtinFn{mustUse: true, check: checkSubgroupShuffle}
	b["subgroupAll"] = &builtinFn{mustUse: true, check: subgroupFixed(tBool, tBool)}
	b["subgroupAny"] = &builtinFn{mustUse: true, check: subgroupFixed(tBool, tBool)}
	b["subgroupBallot"] = &builtinFn{mustUse: true, check: subgroupFixed(vecOf(tU32, 4), tBool)}
	b["subgroupElect"] = &builtinFn{mustUse: true, check: subgroupFixed(tBool)}
	builtinFuncs = b
}

// clsF32Only restricts a float class to f32 (quantizeToF16).
const clsF32Only = 1 << 10

func (c *checker) builtinCall(e *ast.CallExpr, name string, b *builtinFn) *exprInfo {
	args, ok := c.args(e)
	if !ok {
		return c.bad(e)
	}
	ats := make([]*wtype, len(args))
	for i, a := range e.Args {
		if args[i].t.kind == kPtr || isHandleType(args[i].t) {
			ats[i] = args[i].t
			continue
		}
		ats[i] = c.load(a)
		if ats[i].kind == kInvalid {
			return c.bad(e)
		}
	}
	rt := b.check(c, e, ats)
	if rt == nil {
		return c.bad(e)
	}
	if name == "pack2x16float" {
		c.packHalf = true
	}
	if name == "quantizeToF16" && rt.scalarOf().kind != kF32 {
		c.errorf(e.Pos, ruleType, "'quantizeToF16' takes f32 or vecN<f32>, found '%s'", rt)
		return c.bad(e)
	}
	stage := stConst
	for _, a := range e.Args {
		stage = max(stage, c.info[a].stage)
	}
	if b.eval == nil {
		stage = stRuntime
	}
	if c.fn == nil && stage == stRuntime {
		c.errorf(e.Pos, ruleConst, "'%s' cannot be used in a const-expression or module-scope initializer", name)
		return c.bad(e)
	}
	argTypes := make([]*wtype, len(e.Args))
	for i, a := range e.Args {
		argTypes[i] = c.info[a].t.unref()
	}
	ei := &exprInfo{t: rt, stage: stage, mem: -1, call: c.newCall(&callInfo{kind: callBuiltin, name: name, t: rt, args: argTypes})}
	if stage <= stOverride {
		vals := make([]*value, len(e.Args))
		for i, a := range e.Args {
			vals[i] = c.info[a].val
			if vals[i] == nil {
				return c.set(e, ei)
			}
		}
		v, err := b.eval(vals, rt)
		if err != nil {
			if stage == stConst {
				c.errorf(e.Pos, ruleConst, "%s: %v", name, err)
				return c.bad(e)
			}
		} else {
			v.t = rt
			ei.val = v
		}
	}
	return c.set(e, ei)
}

// ---- special signatures --------------------------------------------------------------

func checkMix(c *checker, e *ast.CallExpr, ats []*wtype) *wtype {
	if !c.argCount(e, ats, 3) {
		return nil
	}
	if ats[0].kind == kVec && ats[2].isScalar() {
		t := c.unifyArgs(e, e.Args[:2], ats[:2], fltVec)
		if t == nil {
			return nil
		}
		if !c.convertTo(e.Args[2], t.elem, "argument 3 of 'mix'") {
			return nil
		}
		return t
	}
	return c.unifyArgs(e, e.Args, ats, fltSV)
}

func checkCross(c *checker, e *ast.CallExpr, ats []*wtype) *wtype {
	t := c.sameArgs(e, ats, 2, fltVec)
	if t == nil {
		return nil
	}
	if t.n != 3 {
		c.errorf(e.Pos, ruleType, "'cross' takes vec3 arguments, found '%s'", t)
		return nil
	}
	return t
}

func evalCross(a []*value, rt *wtype) (*value, error) {
	x, y := a[0].elems, a[1].elems
	f := func(i, j int) float64 { return x[i].f*y[j].f - x[j].f*y[i].f }
	out := &value{t: rt, elems: make([]*value, 3)}
	for i, r := range []float64{f(1, 2), f(2, 0), f(0, 1)} {
		v, err := floatResult(rt.elem, r)
		if err != nil {
			return nil, err
		}
		out.elems[i] = v
	}
	return out, nil
}

func evalDistance(a []*value, rt *wtype) (*value, error) {
	d, err := binaryValue("-", a[0], a[1], a[0].t)
	if err != nil {
		return nil, err
	}
	return floatResult(rt, length(d))
}

func evalNormalize(a []*value, rt *wtype) (*value, error) {
	l := length(a[0])
	if l == 0 {
		return nil, evalError("normalize of a zero vector")
	}
	return mapValue(a[0], rt, func(x *value) (*value, error) { return floatResult(x.t, x.f/l) })
}

func evalReflect(a []*value, rt *wtype) (*value, error) {
	d, err := dotValues(a[0], a[1])
	if err != nil {
		return nil, err
	}
	out := &value{t: rt, elems: make([]*value, len(a[0].elems))}
	for i := range out.elems {
		v, err := floatResult(rt.elem, a[0].elems[i].f-2*d.f*a[1].elems[i].f)
		if err != nil {
			return nil, err
		}
		out.elems[i] = v
	}
	return out, nil
}

func checkRefract(c *checker, e *ast.CallExpr, ats []*wtype) *wtype {
	if !c.argCount(e, ats, 3) {
		return nil
	}
	t := c.unifyArgs(e, e.Args[:2], ats[:2], fltVec)
	if t == nil {
		return nil
	}
	if !c.convertTo(e.Args[2], t.elem, "argument 3 of 'refract'") {
		return nil
	}
	return t
}

func evalRefract(a []*value, rt *wtype) (*value, error) {
	d, err := dotValues(a[1], a[0])
	if err != nil {
		return nil, err
	}
	eta := a[2].f
	k := 1 - eta*eta*(1-d.f*d.f)
	out := &value{t: rt, elems: make([]*value, len(a[0].elems))}
	for i := range out.elems {
		r := 0.0
		if k >= 0 {
			r = eta*a[0].elems[i].f - (eta*d.f+math.Sqrt(k))*a[1].elems[i].f
		}
		v, err := floatResult(rt.elem, r)
		if err != nil {
			return nil, err
		}
		out.elems[i] = v
	}
	return out, nil
}

func evalFaceForward(a []*value, rt *wtype) (*value, error) {
	d, err := dotValues(a[2], a[1])
	if err != nil {
		return nil, err
	}
	if d.f < 0 {
		return a[0], nil
	}
	return unaryValue("-", a[0])
}

func checkDeterminant(c *checker, e *ast.CallExpr, ats []*wtype) *wtype {
	if !c.argCount(e, ats, 1) {
		return nil
	}
	t := ats[0]
	if t.kind != kMat || t.n != t.r {
		c.errorf(e.Pos, ruleType, "'determinant' takes a square matrix, found '%s'", t)
		return nil
	}
	if anyNonConst(c, e) && t.isAbstract() {
		t = concreteOf(t)
		c.convertTo(e.Args[0], t, "argument")
	}
	return t.elem
}

func evalDeterminant(a []*value, rt *wtype) (*value, error) {
	n := len(a[0].elems)
	m := make([][]float64, n)
	for c := 0; c < n; c++ {
		m[c] = make([]float64, n)
		for r := 0; r < n; r++ {
			m[c][r] = a[0].elems[c].elems[r].f
		}
	}
	var det func(m [][]float64) float64
	det = func(m [][]float64) float64 {
		if len(m) == 1 {
			return m[0][0]
		}
		s := 0.0
		for c := range m {
			sub := make([][]float64, 0, len(m)-1)
			for c2 := range m {
				if c2 == c {
					continue
				}
				sub = append(sub, m[c2][1:])
			}
			d := m[c][0] * det(sub)
			if c%2 == 1 {
				d = -d
			}
			s += d
		}
		return s
	}
	return floatResult(rt, det(m))
}

func checkTranspose(c *checker, e *ast.CallExpr, ats []*wtype) *wtype {
	if !c.argCount(e, ats, 1) {
		return nil
	}
	t := ats[0]
	if t.kind != kMat {
		c.errorf(e.Pos, ruleType, "'transpose' takes a matrix, found '%s'", t)
		return nil
	}
	if anyNonConst(c, e) && t.isAbstract() {
		t = concreteOf(t)
		c.convertTo(e.Args[0], t, "argument")
	}
	return matOf(t.elem, t.r, t.n)
}

func evalTranspose(a []*value, rt *wtype) (*value, error) {
	out := &value{t: rt, elems: make([]*value, rt.n)}
	for c := 0; c < rt.n; c++ {
		col := &value{t: vecOf(rt.elem, rt.r), elems: make([]*value, rt.r)}
		for r := 0; r < rt.r; r++ {
			col.elems[r] = a[0].elems[r].elems[c]
		}
		out.elems[c] = col
	}
	return out, nil
}

func checkLdexp(c *checker, e *ast.CallExpr, ats []*wtype) *wtype {
	if !c.argCount(e, ats, 2) {
		return nil
	}
	t := ats[0]
	s := t.scalarOf()
	if s == nil || !(t.isScalar() || t.kind == kVec) || !(s.isFloatScalar() || s.kind == kAbsInt) {
		c.errorf(e.Pos, ruleType, "'ldexp' takes a floating point scalar or vector first, found '%s'", t)
		return nil
	}
	if s.kind == kAbsInt {
		t = t.withScalar(tAbsFloat)
	}
	if anyNonConst(c, e) {
		t = concreteOf(t)
	}
	if !c.convertTo(e.Args[0], t, "argument 1 of 'ldexp'") {
		return nil
	}
	want := t.withScalar(tI32)
	if t.scalarOf().kind == kAbsFloat {
		want = t.withScalar(tAbsInt)
		if ats[1].scalarOf() != nil && ats[1].scalarOf().kind == kI32 {
			want = t.withScalar(tI32)
		}
	}
	if !c.convertTo(e.Args[1], want, "argument 2 of 'ldexp'") {
		return nil
	}
	if want.leaf().kind == kI32 && t.leaf().kind == kAbsFloat {
		t = concreteOf(t)
		c.convertTo(e.Args[0], t, "argument 1 of 'ldexp'")
	}
	return t
}

func evalLdexp(a []*value, rt *wtype) (*value, error) {
	return mapValues(a[0], a[1], rt, func(x, y *value) (*value, error) {
		if y.i > 1100 {
			return nil, evalError("ldexp exponent too large")
		}
		return floatResult(x.t, math.Ldexp(x.f, int(max(y.i, -1100))))
	})
}

func scalarSuffix(t *wtype) string {
	switch t.leaf().kind {
	case kAbsFloat, kAbsInt:
		return "abstract"
	case kF16:
		return "f16"
	}
	return "f32"
}

func resultName(prefix string, t *wtype) string {
	if t.kind == kVec {
		return prefix + "_vec" + strconv.Itoa(t.n) + "_" + scalarSuffix(t)
	}
	return prefix + "_" + scalarSuffix(t)
}

func checkFrexpModf(c *checker, e *ast.CallExpr, ats []*wtype) *wtype {
	t := c.sameArgs(e, ats, 1, fltSV)
	if t == nil {
		return nil
	}
	if e.Callee.Name == "frexp" {
		return c.resultStruct(resultName("__frexp_result", t), []*member{{name: "fract", t: t}, {name: "exp", t: t.withScalar(tI32OrAbs(t))}})
	}
	return c.resultStruct(resultName("__modf_result", t), []*member{{name: "fract", t: t}, {name: "whole", t: t}})
}

func tI32OrAbs(t *wtype) *wtype {
	if t.leaf().kind == kAbsFloat {
		return tAbsInt
	}
	return tI32
}

func evalFrexp(a []*value, rt *wtype) (*value, error) {
	fr, err := mapValue(a[0], a[0].t, func(x *value) (*value, error) {
		m, _ := math.Frexp(x.f)
		return floatValue(x.t, m), nil
	})
	if err != nil {
		return nil, err
	}
	et := rt.st.members[1].t
	ex, err := mapValue(a[0], et, func(x *value) (*value, error) {
		_, e := math.Frexp(x.f)
		return intValue(et.scalarOf(), int64(e)), nil
	})
	if err != nil {
		return nil, err
	}
	return &value{t: rt, elems: []*value{fr, ex}}, nil
}

func evalModf(a []*value, rt *wtype) (*value, error) {
	fr, err := mapValue(a[0], a[0].t, func(x *value) (*value, error) {
		_, f := math.Modf(x.f)
		return floatValue(x.t, f), nil
	})
	if err != nil {
		return nil, err
	}
	wh, err := mapValue(a[0], a[0].t, func(x *value) (*value, error) {
		w, _ := math.Modf(x.f)
		return floatValue(x.t, w), nil
	})
	if err != nil {
		return nil, err
	}
	return &value{t: rt, elems: []*value{fr, wh}}, nil
}

func evalBits(f func(x uint32, signed bool) uint32) func(args []*value, rt *wtype) (*value, error) {
	return func(args []*value, rt *wtype) (*value, error) {
		return mapValue(args[0], rt, func(x *value) (*value, error) {
			r := f(uint32(x.i), x.t.kind == kI32)
			if x.t.kind == kI32 {
				return intValue(x.t, int64(int32(r))), nil
			}
			return intValue(x.t, int64(r)), nil
		})
	}
}

func checkExtractBits(c *checker, e *ast.CallExpr, ats []*wtype) *wtype {
	if !c.argCount(e, ats, 3) {
		return nil
	}
	t := c.unifyArgs(e, e.Args[:1], ats[:1], cintSV)
	if t == nil {
		return nil
	}
	if !c.convertTo(e.Args[1], tU32, "offset of 'extractBits'") || !c.convertTo(e.Args[2], tU32, "count of 'extractBits'") {
		return nil
	}
	return t
}

func bitRange(off, cnt int64) (uint, uint) {
	o := min(uint64(off), 32)
	cc := min(uint64(cnt), 32-o)
	return uint(o), uint(cc)
}

func evalExtractBits(a []*value, rt *wtype) (*value, error) {
	o, n := bitRange(a[1].i, a[2].i)
	return mapValue(a[0], rt, func(x *value) (*value, error) {
		if n == 0 {
			return intValue(x.t, 0), nil
		}
		u := uint32(x.i) >> o
		if n < 32 {
			u &= 1<<n - 1
		}
		if x.t.kind == kI32 {
			sh := 32 - n
			return intValue(x.t, int64(int32(u<<sh)>>sh)), nil
		}
		return intValue(x.t, int64(u)), nil
	})
}

func checkInsertBits(c *checker, e *ast.CallExpr, ats []*wtype) *wtype {
	if !c.argCount(e, ats, 4) {
		return nil
	}
	t := c.unifyArgs(e, e.Args[:2], ats[:2], cintSV)
	if t == nil {
		return nil
	}
	if !c.convertTo(e.Args[2], tU32, "offset of 'insertBits'") || !c.convertTo(e.Args[3], tU32, "count of 'insertBits'") {
		return nil
	}
	return t
}

func evalInsertBits(a []*value, rt *wtype) (*value, error) {
	o, n := bitRange(a[2].i, a[3].i)
	return mapValues(a[0], a[1], rt, func(x, y *value) (*value, error) {
		var mask uint32
		if n == 32 {
			mask = 0xffffffff
		} else {
			mask = (1<<n - 1) << o
		}
		r := uint32(x.i)&^mask | (uint32(y.i)<<o)&mask
		if x.t.kind == kI32 {
			return intValue(x.t, int64(int32(r))), nil
		}
		return intValue(x.t, int64(r)), nil
	})
}

func evalPack(width int, f func(float64) uint32) func(a []*value, rt *wtype) (*value, error) {
	return func(a []*value, rt *wtype) (*value, error) {
		var r uint32
		for i, e := range a[0].elems {
			r |= (f(e.f) & (1<<width - 1)) << (i * width)
		}
		return u32v(r), nil
	}
}

func evalPackInt(f func(int64) uint32) func(a []*value, rt *wtype) (*value, error) {
	return func(a []*value, rt *wtype) (*value, error) {
		var r uint32
		for i, e := range a[0].elems {
			r |= (f(e.i) & 0xff) << (i * 8)
		}
		return u32v(r), nil
	}
}

func evalUnpack(width int, f func(uint32) float64) func(a []*value, rt *wtype) (*value, error) {
	return func(a []*value, rt *wtype) (*value, error) {
		x := uint32(a[0].i)
		n := 32 / width
		fs := make([]float64, n)
		for i := range fs {
			fs[i] = f(x >> (i * width))
		}
		v := fvec(tF32, fs...)
		for _, e := range v.elems {
			e.f = float64(float32(e.f))
		}
		return v, nil
	}
}

func checkSelect(c *checker, e *ast.CallExpr, ats []*wtype) *wtype {
	if !c.argCount(e, ats, 3) {
		return nil
	}
	t := c.unifyArgs(e, e.Args[:2], ats[:2], anySV)
	if t == nil {
		return nil
	}
	want := tBool
	if t.kind == kVec && ats[2].kind == kVec {
		want = vecOf(tBool, t.n)
	}
	if !c.convertTo(e.Args[2], want, "condition of 'select'") {
		return nil
	}
	return t
}

func evalSelect(a []*value, rt *wtype) (*value, error) {
	if len(a[2].elems) == 0 {
		if a[2].b() {
			return a[1], nil
		}
		return a[0], nil
	}
	out := &value{t: rt, elems: make([]*value, len(a[0].elems))}
	for i := range out.elems {
		if a[2].elems[i].b() {
			out.elems[i] = a[1].elems[i]
		} else {
			out.elems[i] = a[0].elems[i]
		}
	}
	return out, nil
}

func checkAllAny(c *checker, e *ast.CallExpr, ats []*wtype) *wtype {
	if !c.argCount(e, ats, 1) {
		return nil
	}
	if s := ats[0].scalarOf(); s == nil || s.kind != kBool || ats[0].kind == kMat {
		c.errorf(e.Pos, ruleType, "'%s' takes bool or vecN<bool>, found '%s'", e.Callee.Name, ats[0])
		return nil
	}
	return tBool
}

func evalAllAny(all bool) func(a []*value, rt *wtype) (*value, error) {
	return func(a []*value, rt *wtype) (*value, error) {
		if len(a[0].elems) == 0 {
			return a[0], nil
		}
		r := all
		for _, e := range a[0].elems {
			if all {
				r = r && e.b()
			} else {
				r = r || e.b()
			}
		}
		return boolValue(r), nil
	}
}

func checkArrayLength(c *checker, e *ast.CallExpr, ats []*wtype) *wtype {
	if !c.argCount(e, ats, 1) {
		return nil
	}
	t := ats[0]
	if t.kind != kPtr || t.elem.kind != kArray || t.elem.count != 0 || t.elem.countExpr != nil || t.space != asStorage {
		c.errorf(e.Pos, ruleType, "'arrayLength' takes a pointer to a runtime-sized array in var<storage> (&buf.items), found '%s'", t)
		return nil
	}
	return tU32
}

func (c *checker) atomicPtr(e *ast.CallExpr, ats []*wtype) *wtype {
	t := ats[0]
	if t.kind != kPtr || t.elem.kind != kAtomic {
		c.errorf(e.Args[0].Position(), ruleType, "'%s' takes a pointer to an atomic (&a), found '%s'", e.Callee.Name, t)
		return nil
	}
	if t.access != accReadWrite {
		c.errorf(e.Args[0].Position(), ruleAddr, "'%s' needs read_write access to the atomic", e.Callee.Name)
		return nil
	}
	return t.elem.elem
}

func checkAtomic(nvals int, void bool) func(c *checker, e *ast.CallExpr, ats []*wtype) *wtype {
	return func(c *checker, e *ast.CallExpr, ats []*wtype) *wtype {
		if !c.argCount(e, ats, 1+nvals) {
			return nil
		}
		t := c.atomicPtr(e, ats)
		if t == nil {
			return nil
		}
		for i := 1; i <= nvals; i++ {
			if !c.convertTo(e.Args[i], t, "argument "+strconv.Itoa(i+1)+" of '"+e.Callee.Name+"'") {
				return nil
			}
		}
		if void {
			return tVoid
		}
		if nvals == 2 {
			return c.resultStruct("__atomic_compare_exchange_result_"+t.String(), []*member{{name: "old_value", t: t}, {name: "exchanged", t: tBool}})
		}
		return t
	}
}

func checkWorkgroupUniformLoad(c *checker, e *ast.CallExpr, ats []*wtype) *wtype {
	if !c.argCount(e, ats, 1) {
		return nil
	}
	t := ats[0]
	if t.kind != kPtr || t.space != asWorkgroup {
		c.errorf(e.Pos, ruleType, "'workgroupUniformLoad' takes a pointer into var<workgroup>, found '%s'", t)
		return nil
	}
	if t.elem.kind == kAtomic {
		return t.elem.elem
	}
	if !t.elem.constructible() {
		c.errorf(e.Pos, ruleType, "'workgroupUniformLoad' needs a constructible type or an atomic, found '%s'", t.elem)
		return nil
	}
	return t.elem
}

func (c *checker) needSubgroups(e *ast.CallExpr) bool {
	if !c.subgroup {
		c.errorf(e.Pos, ruleExt, "'%s' needs 'enable subgroups;'", e.Callee.Name)
		return false
	}
	return true
}

func checkSubgroup(cls int) func(c *checker, e *ast.CallExpr, ats []*wtype) *wtype {
	return func(c *checker, e *ast.CallExpr, ats []*wtype) *wtype {
		if !c.needSubgroups(e) {
			return nil
		}
		return c.sameArgs(e, ats, 1, cls)
	}
}

func subgroupFixed(ret *wtype, params ...*wtype) func(c *checker, e *ast.CallExpr, ats []*wtype) *wtype {
	f := fixedSig(ret, params...)
	return func(c *checker, e *ast.CallExpr, ats []*wtype) *wtype {
		if !c.needSubgroups(e) {
			return nil
		}
		return f(c, e, ats)
	}
}

func checkSubgroupShuffle(c *checker, e *ast.CallExpr, ats []*wtype) *wtype {
	if !c.needSubgroups(e) || !c.argCount(e, ats, 2) {
		return nil
	}
	t := c.unifyArgs(e, e.Args[:1], ats[:1], anySV|clsConcrete)
	if t == nil {
		return nil
	}
	at := ats[1]
	if at.kind == kAbsInt {
		at = tU32
	}
	if at.kind != kI32 && at.kind != kU32 {
		c.errorf(e.Args[1].Position(), ruleType, "the second argument of '%s' must be i32 or u32, found '%s'", e.Callee.Name, at)
		return nil
	}
	if !c.convertTo(e.Args[1], at, "argument 2") {
		return nil
	}
	if (e.Callee.Name == "subgroupBroadcast" || e.Callee.Name == "quadBroadcast") && c.info[e.Args[1]].stage != stConst {
		c.errorf(e.Args[1].Position(), ruleConst, "the lane of 'subgroupBroadcast' must be a const-expression (use subgroupShuffle)")
		return nil
	}
	return t
}

// ---- textures ---------------------------------------------------------------------------

func (c *checker) texArg(e *ast.CallExpr, ats []*wtype, i int) *wtype {
	if i >= len(ats) {
		c.errorf(e.Pos, ruleType, "'%s' needs a texture argument", e.Callee.Name)
		return nil
	}
	t := ats[i]
	if t.kind != kTexture && t.kind != kStorageTexture {
		c.errorf(e.Args[i].Position(), ruleType, "'%s' takes a texture, found '%s'", e.Callee.Name, t)
		return nil
	}
	return t
}

// coordN is the number of coordinates of a texture.
func coordN(t *wtype) int {
	switch t.dim {
	case dim1D:
		return 1
	case dim2D:
		return 2
	}
	return 3
}

func vecOrScalar(s *wtype, n int) *wtype {
	if n == 1 {
		return s
	}
	return vecOf(s, n)
}

// intArg converts argument i to i32 or u32 (AbstractInt becomes i32) and
// optionally to n components.
func (c *checker) intArg(e *ast.CallExpr, ats []*wtype, i, n int, what string) bool {
	t := ats[i]
	s := t.scalarOf()
	if s == nil || (n == 1 && !t.isScalar()) || (n > 1 && (t.kind != kVec || t.n != n)) || !s.isIntScalar() {
		c.errorf(e.Args[i].Position(), ruleType, "%s of '%s' must be %s, found '%s'", what, e.Callee.Name, map[bool]string{true: "i32 or u32", false: "vec" + strconv.Itoa(n) + "<i32> or vec" + strconv.Itoa(n) + "<u32>"}[n == 1], t)
		return false
	}
	if s.kind == kAbsInt {
		return c.convertTo(e.Args[i], vecOrScalar(tI32, n), what)
	}
	return true
}

func (c *checker) floatArg(e *ast.CallExpr, i int, n int, what string) bool {
	if i >= len(e.Args) {
		c.errorf(e.Pos, ruleType, "'%s' is missing its %s argument", e.Callee.Name, what)
		return false
	}
	return c.convertTo(e.Args[i], vecOrScalar(tF32, n), what+" of '"+e.Callee.Name+"'")
}

func (c *checker) constOffset(e *ast.CallExpr, i, n int) bool {
	if !c.convertTo(e.Args[i], vecOf(tI32, n), "offset of '"+e.Callee.Name+"'") {
		return false
	}
	if ei := c.info[e.Args[i]]; ei.stage != stConst {
		c.errorf(e.Args[i].Position(), ruleConst, "the offset of '%s' must be a const-expression", e.Callee.Name)
		return false
	}
	return true
}

func (c *checker) wantArgs(e *ast.CallExpr, n ...int) bool {
	for _, k := range n {
		if len(e.Args) == k {
			return true
		}
	}
	c.errorf(e.Pos, ruleType, "wrong number of arguments for '%s' with this texture type (%d)", e.Callee.Name, len(e.Args))
	return false
}

func sampledResult(t *wtype) *wtype {
	if t.flavour == texDepth || t.flavour == texDepthMultisampled {
		return tF32
	}
	return vecOf(t.elem, 4)
}

func checkTextureDimensions(c *checker, e *ast.CallExpr, ats []*wtype) *wtype {
	t := c.texArg(e, ats, 0)
	if t == nil {
		return nil
	}
	n := coordN(t)
	if t.dim == dimCube {
		n = 2
	}
	rt := vecOrScalar(tU32, n)
	if len(ats) == 2 {
		if t.kind == kStorageTexture || t.flavour == texMultisampled || t.flavour == texDepthMultisampled {
			c.errorf(e.Args[1].Position(), ruleType, "'textureDimensions' of '%s' takes no level", t)
			return nil
		}
		if !c.intArg(e, ats, 1, 1, "the level") {
			return nil
		}
		return rt
	}
	if !c.wantArgs(e, 1) {
		return nil
	}
	return rt
}

func checkTextureQuery(c *checker, e *ast.CallExpr, ats []*wtype) *wtype {
	if !c.argCount(e, ats, 1) {
		return nil
	}
	t := c.texArg(e, ats, 0)
	if t == nil {
		return nil
	}
	ok := false
	switch e.Callee.Name {
	case "textureNumLayers":
		ok = t.arrayed
	case "textureNumLevels":
		ok = t.kind == kTexture && (t.flavour == texSampled || t.flavour == texDepth)
	case "textureNumSamples":
		ok = t.kind == kTexture && (t.flavour == texMultisampled || t.flavour == texDepthMultisampled)
	}
	if !ok {
		c.errorf(e.Args[0].Position(), ruleType, "'%s' cannot take '%s'", e.Callee.Name, t)
		return nil
	}
	return tU32
}

func checkTextureLoad(c *checker, e *ast.CallExpr, ats []*wtype) *wtype {
	t := c.texArg(e, ats, 0)
	if t == nil {
		return nil
	}
	n := coordN(t)
	if t.dim == dimCube {
		c.errorf(e.Args[0].Position(), ruleType, "'textureLoad' cannot take cube textures")
		return nil
	}
	if t.kind == kStorageTexture {
		if t.access == accWrite {
			c.errorf(e.Args[0].Position(), ruleAddr, "cannot textureLoad from a write-only storage texture '%s' (declare it read or read_write)", t)
			return nil
		}
		want := 2
		if t.arrayed {
			want = 3
		}
		if !c.wantArgs(e, want) || !c.intArg(e, ats, 1, n, "the coordinates") {
			return nil
		}
		if t.arrayed && !c.intArg(e, ats, 2, 1, "the array index") {
			return nil
		}
		return vecOf(t.elem, 4)
	}
	want := 3
	if t.arrayed {
		want = 4
	}
	if !c.wantArgs(e, want) || !c.intArg(e, ats, 1, n, "the coordinates") {
		return nil
	}
	if t.arrayed && !c.intArg(e, ats, 2, 1, "the array index") {
		return nil
	}
	what := "the level"
	if t.flavour == texMultisampled || t.flavour == texDepthMultisampled {
		what = "the sample index"
	}
	if !c.intArg(e, ats, want-1, 1, what) {
		return nil
	}
	return sampledResult(t)
}

func checkTextureStore(c *checker, e *ast.CallExpr, ats []*wtype) *wtype {
	t := c.texArg(e, ats, 0)
	if t == nil {
		return nil
	}
	if t.kind != kStorageTexture {
		c.errorf(e.Args[0].Position(), ruleType, "'textureStore' takes a storage texture, found '%s'", t)
		return nil
	}
	if t.access == accRead {
		c.errorf(e.Args[0].Position(), ruleAddr, "cannot textureStore to a read-only storage texture '%s'", t)
		return nil
	}
	want := 3
	if t.arrayed {
		want = 4
	}
	if !c.wantArgs(e, want) || !c.intArg(e, ats, 1, coordN(t), "the coordinates") {
		return nil
	}
	if t.arrayed && !c.intArg(e, ats, 2, 1, "the array index") {
		return nil
	}
	if !c.convertTo(e.Args[want-1], vecOf(t.elem, 4), "value of 'textureStore'") {
		return nil
	}
	return tVoid
}

func (c *checker) samplerArg(e *ast.CallExpr, ats []*wtype, i int, cmp bool) bool {
	if i >= len(ats) {
		c.errorf(e.Pos, ruleType, "'%s' needs a sampler", e.Callee.Name)
		return false
	}
	want := tSampler
	if cmp {
		want = tSamplerC
	}
	if !sameType(ats[i], want) {
		c.errorf(e.Args[i].Position(), ruleType, "'%s' takes a '%s' here, found '%s'", e.Callee.Name, want, ats[i])
		return false
	}
	return true
}

// checkTextureSample covers textureSampleLevel, textureSampleGrad,
// textureSampleCompareLevel, textureGatherCompare and
// textureSampleBaseClampToEdge: (t, s, coords, [array_index], extra...,
// [offset]).
func checkTextureSample(c *checker, e *ast.CallExpr, ats []*wtype) *wtype {
	name := e.Callee.Name
	t := c.texArg(e, ats, 0)
	if t == nil {
		return nil
	}
	if t.kind != kTexture || t.flavour == texMultisampled || t.flavour == texDepthMultisampled {
		c.errorf(e.Args[0].Position(), ruleType, "'%s' cannot take '%s'", name, t)
		return nil
	}
	depth := t.flavour == texDepth
	cmp := name == "textureSampleCompareLevel" || name == "textureGatherCompare"
	if cmp && !depth {
		c.errorf(e.Args[0].Position(), ruleType, "'%s' takes a depth texture, found '%s'", name, t)
		return nil
	}
	if !depth && t.elem.kind != kF32 {
		c.errorf(e.Args[0].Position(), ruleType, "'%s' needs a texture of f32 (integer textures cannot be sampled; use textureLoad), found '%s'", name, t)
		return nil
	}
	if !c.samplerArg(e, ats, 1, cmp) {
		return nil
	}
	n := coordN(t)
	extra := 0
	switch name {
	case "textureSampleLevel", "textureSampleCompareLevel", "textureGatherCompare":
		extra = 1
	case "textureSampleGrad":
		extra = 2
	case "textureSampleBaseClampToEdge":
		if t.dim != dim2D || t.arrayed || depth {
			c.errorf(e.Args[0].Position(), ruleType, "'textureSampleBaseClampToEdge' takes texture_2d<f32>, found '%s'", t)
			return nil
		}
	}
	if name == "textureGatherCompare" && (t.dim != dim2D && t.dim != dimCube) {
		c.errorf(e.Args[0].Position(), ruleType, "'%s' cannot take '%s'", name, t)
		return nil
	}
	if name == "textureSampleGrad" && depth {
		c.errorf(e.Args[0].Position(), ruleType, "'textureSampleGrad' cannot take depth textures")
		return nil
	}
	if (name == "textureSampleCompareLevel" || name == "textureGatherCompare") && t.dim == dimCube && t.arrayed && name == "textureSampleCompareLevel" {
		c.errorf(e.Pos, ruleSupport, "textureSampleCompareLevel on texture_depth_cube_array is not supported by this translator")
		return nil
	}
	fixed := 3
	if t.arrayed {
		fixed++
	}
	fixed += extra
	offsetOK := t.dim == dim2D || t.dim == dim3D
	if !(len(ats) == fixed || (offsetOK && len(ats) == fixed+1 && name != "textureSampleBaseClampToEdge")) {
		c.errorf(e.Pos, ruleType, "wrong number of arguments for '%s' with '%s' (%d)", name, t, len(ats))
		return nil
	}
	if !c.floatArg(e, 2, n, "the coordinates") {
		return nil
	}
	i := 3
	if t.arrayed {
		if !c.intArg(e, ats, i, 1, "the array index") {
			return nil
		}
		i++
	}
	switch name {
	case "textureSampleLevel":
		if depth {
			if !c.intArg(e, ats, i, 1, "the level") {
				return nil
			}
		} else if !c.floatArg(e, i, 1, "the level") {
			return nil
		}
		i++
	case "textureSampleCompareLevel", "textureGatherCompare":
		if !c.floatArg(e, i, 1, "the depth reference") {
			return nil
		}
		i++
	case "textureSampleGrad":
		if !c.floatArg(e, i, n, "ddx") || !c.floatArg(e, i+1, n, "ddy") {
			return nil
		}
		i += 2
	}
	if i < len(ats) && !c.constOffset(e, i, n) {
		return nil
	}
	switch name {
	case "textureSampleCompareLevel":
		return tF32
	case "textureGatherCompare":
		return vecOf(tF32, 4)
	}
	return sampledResult(t)
}

func checkTextureGather(c *checker, e *ast.CallExpr, ats []*wtype) *wtype {
	if len(ats) > 0 && (ats[0].kind == kTexture && ats[0].flavour == texDepth) {
		t := ats[0]
		if !c.samplerArg(e, ats, 1, false) {
			return nil
		}
		fixed := 3
		if t.arrayed {
			fixed++
		}
		if !(len(ats) == fixed || (t.dim == dim2D && len(ats) == fixed+1)) {
			c.errorf(e.Pos, ruleType, "wrong number of arguments for 'textureGather' with '%s'", t)
			return nil
		}
		if !c.floatArg(e, 2, coordN(t), "the coordinates") {
			return nil
		}
		if t.arrayed && !c.intArg(e, ats, 3, 1, "the array index") {
			return nil
		}
		if len(ats) > fixed && !c.constOffset(e, fixed, 2) {
			return nil
		}
		return vecOf(tF32, 4)
	}
	if len(ats) < 4 {
		c.errorf(e.Pos, ruleType, "'textureGather' takes (component, texture, sampler, coords, ...)")
		return nil
	}
	if !c.intArg(e, ats, 0, 1, "the component") {
		return nil
	}
	ci := c.info[e.Args[0]]
	if ci.stage != stConst || ci.val == nil || ci.val.i < 0 || ci.val.i > 3 {
		c.errorf(e.Args[0].Position(), ruleConst, "the component of 'textureGather' must be a const-expression in [0, 3]")
		return nil
	}
	t := c.texArg(e, ats, 1)
	if t == nil {
		return nil
	}
	if t.kind != kTexture || t.flavour != texSampled || (t.dim != dim2D && t.dim != dimCube) {
		c.errorf(e.Args[1].Position(), ruleType, "'textureGather' cannot take '%s'", t)
		return nil
	}
	if !c.samplerArg(e, ats, 2, false) {
		return nil
	}
	fixed := 4
	if t.arrayed {
		fixed++
	}
	if !(len(ats) == fixed || (t.dim == dim2D && len(ats) == fixed+1)) {
		c.errorf(e.Pos, ruleType, "wrong number of arguments for 'textureGather' with '%s'", t)
		return nil
	}
	if !c.floatArg(e, 3, coordN(t), "the coordinates") {
		return nil
	}
	if t.arrayed && !c.intArg(e, ats, 4, 1, "the array index") {
		return nil
	}
	if len(ats) > fixed && !c.constOffset(e, fixed, 2) {
		return nil
	}
	return vecOf(t.elem, 4)
}
