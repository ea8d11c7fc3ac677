package wgsl

import (
	"github.com/gfxcuda/gfxcuda/shader/wgsl/internal/ast"

	"strconv"
	"strings"
)

// This file writes built-in function calls as GLSL.

// sameName maps WGSL built-ins to the GLSL function of the same meaning.
var sameName = map[string]string{
	"acos": "acos", "asin": "asin", "atan": "atan", "acosh": "acosh", "asinh": "asinh", "atanh": "atanh",
	"cos": "cos", "cosh": "cosh", "sin": "sin", "sinh": "sinh", "tan": "tan", "tanh": "tanh",
	"exp": "exp", "exp2": "exp2", "log": "log", "log2": "log2", "sqrt": "sqrt", "inverseSqrt": "inversesqrt",
	"ceil": "ceil", "floor": "floor", "fract": "fract", "trunc": "trunc", "round": "roundEven",
	"degrees": "degrees", "radians": "radians", "sign": "sign", "atan2": "atan", "pow": "pow", "step": "step",
	"min": "min", "max": "max", "clamp": "clamp", "fma": "fma", "smoothstep": "smoothstep", "mix": "mix",
	"cross": "cross", "length": "length", "distance": "distance", "normalize": "normalize",
	"reflect": "reflect", "refract": "refract", "faceForward": "faceforward", "determinant": "determinant",
	"transpose": "transpose", "ldexp": "ldexp", "reverseBits": "bitfieldReverse",
	"pack4x8snorm": "packSnorm4x8", "pack4x8unorm": "packUnorm4x8", "pack2x16snorm": "packSnorm2x16",
	"pack2x16unorm": "packUnorm2x16", "pack2x16float": "packHalf2x16",
	"unpack4x8snorm": "unpackSnorm4x8", "unpack4x8unorm": "unpackUnorm4x8", "unpack2x16snorm": "unpackSnorm2x16",
	"unpack2x16unorm": "unpackUnorm2x16", "unpack2x16float": "unpackHalf2x16",
	"atomicAdd": "atomicAdd", "atomicMax": "atomicMax", "atomicMin": "atomicMin", "atomicAnd": "atomicAnd",
	"atomicOr": "atomicOr", "atomicXor": "atomicXor", "atomicExchange": "atomicExchange",
}

// subgroupExt names the extension of each subgroup built-in.
var subgroupExt = map[string]string{
	"subgroupAdd": "arithmetic", "subgroupMul": "arithmetic", "subgroupMin": "arithmetic", "subgroupMax": "arithmetic",
	"subgroupAnd": "arithmetic", "subgroupOr": "arithmetic", "subgroupXor": "arithmetic",
	"subgroupExclusiveAdd": "arithmetic", "subgroupInclusiveAdd": "arithmetic",
	"subgroupExclusiveMul": "arithmetic", "subgroupInclusiveMul": "arithmetic",
	"subgroupBroadcastFirst": "ballot", "subgroupBroadcast": "ballot", "subgroupBallot": "ballot",
	"subgroupShuffle": "shuffle", "subgroupShuffleXor": "shuffle",
	"subgroupShuffleUp": "shuffle_relative", "subgroupShuffleDown": "shuffle_relative",
	"subgroupAll": "vote", "subgroupAny": "vote", "subgroupElect": "basic",
}

var quadName = map[string]string{
	"quadBroadcast": "subgroupQuadBroadcast", "quadSwapX": "subgroupQuadSwapHorizontal",
	"quadSwapY": "subgroupQuadSwapVertical", "quadSwapDiagonal": "subgroupQuadSwapDiagonal",
}

func (w *writer) call1(fn string, x *ast.CallExpr) {
	w.s(fn + "(")
	w.args(x.Args, 0)
	w.s(")")
}

// typedConst writes the scalar constant f in type t's scalar type.
func (w *writer) typedConst(t *wtype, f float64) string {
	s := t.scalarOf()
	if s.isIntScalar() {
		return w.valueString(intValue(s, int64(f)), s)
	}
	return w.valueString(floatValue(s, f), s)
}

func (w *writer) builtin(x *ast.CallExpr, ci *callInfo) {
	name := ci.name
	rt := ci.t
	var at *wtype
	if len(ci.args) > 0 {
		at = ci.args[0]
	}
	if _, sg := subgroupExt[name]; sg || quadName[name] != "" {
		if at != nil && at.hasF16() {
			w.ext("GL_EXT_shader_subgroup_extended_types_float16")
			w.features["shaderSubgroupExtendedTypes"] = true
		}
	}
	if q, ok := quadName[name]; ok {
		w.ext("GL_KHR_shader_subgroup_quad")
		w.call1(q, x)
		return
	}
	if ext, ok := subgroupExt[name]; ok {
		w.ext("GL_KHR_shader_subgroup_" + ext)
		w.call1(name, x)
		return
	}
	switch name {
	case "abs":
		if at.scalarOf().kind == kU32 {
			w.s("(")
			w.expr(x.Args[0])
			w.s(")")
			return
		}
		w.call1("abs", x)
	case "saturate":
		w.s("clamp(")
		w.expr(x.Args[0])
		w.s(", " + w.typedConst(at, 0) + ", " + w.typedConst(at, 1) + ")")
	case "dot":
		if at.elem.isFloatScalar() {
			w.call1("dot", x)
			return
		}
		tn := w.typeBase(at)
		en := w.typeName(at.elem)
		body := "return "
		for i := 0; i < at.n; i++ {
			if i > 0 {
				body += " + "
			}
			c := "xyzw"[i : i+1]
			body += "a." + c + " * b." + c
		}
		w.helper("_wdot"+tn, en+" _wdot("+tn+" a, "+tn+" b) { "+body+"; }\n")
		w.call1("_wdot", x)
	case "countOneBits":
		w.s(w.typeName(rt) + "(bitCount(")
		w.expr(x.Args[0])
		w.s("))")
	case "countLeadingZeros":
		w.s(w.typeName(rt) + "(31 - findMSB(" + w.typeBase(at.withScalar(tU32)) + "(")
		w.expr(x.Args[0])
		w.s(")))")
	case "countTrailingZeros":
		w.s(w.typeName(rt) + "(min(" + w.typeBase(at.withScalar(tU32)) + "(findLSB(")
		w.expr(x.Args[0])
		w.s(")), 32u))")
	case "firstLeadingBit":
		w.s(w.typeName(rt) + "(findMSB(")
		w.expr(x.Args[0])
		w.s("))")
	case "firstTrailingBit":
		w.s(w.typeName(rt) + "(findLSB(")
		w.expr(x.Args[0])
		w.s("))")
	case "extractBits":
		tn := w.typeName(at)
		w.helper("_wextractBits"+tn, tn+" _wextractBits("+tn+" e, uint o, uint c) { uint s = min(o, 32u); return bitfieldExtract(e, int(s), int(min(c, 32u - s))); }\n")
		w.call1("_wextractBits", x)
	case "insertBits":
		tn := w.typeName(at)
		w.helper("_winsertBits"+tn, tn+" _winsertBits("+tn+" e, "+tn+" n, uint o, uint c) { uint s = min(o, 32u); return bitfieldInsert(e, n, int(s), int(min(c, 32u - s))); }\n")
		w.call1("_winsertBits", x)
	case "dot4U8Packed":
		w.helper("_wdot4U8Packed", "uint _wdot4U8Packed(uint a, uint b) { uvec4 x = (uvec4(a) >> uvec4(0u, 8u, 16u, 24u)) & 0xFFu; uvec4 y = (uvec4(b) >> uvec4(0u, 8u, 16u, 24u)) & 0xFFu; return x.x * y.x + x.y * y.y + x.z * y.z + x.w * y.w; }\n")
		w.call1("_wdot4U8Packed", x)
	case "dot4I8Packed":
		w.helper("_wdot4I8Packed", "int _wdot4I8Packed(uint a, uint b) { ivec4 x = ivec4(uvec4(a) << uvec4(24u, 16u, 8u, 0u)) >> 24; ivec4 y = ivec4(uvec4(b) << uvec4(24u, 16u, 8u, 0u)) >> 24; return x.x * y.x + x.y * y.y + x.z * y.z + x.w * y.w; }\n")
		w.call1("_wdot4I8Packed", x)
	case "pack4xI8", "pack4xU8", "pack4xI8Clamp", "pack4xU8Clamp":
		in := "ivec4"
		conv := "uvec4(v)"
		switch name {
		case "pack4xU8":
			in = "uvec4"
			conv = "v"
		case "pack4xI8Clamp":
			conv = "uvec4(clamp(v, -128, 127))"
		case "pack4xU8Clamp":
			in = "uvec4"
			conv = "min(v, uvec4(255u))"
		}
		w.helper("_w"+name, "uint _w"+name+"("+in+" v) { uvec4 u = "+conv+" & 0xFFu; return u.x | (u.y << 8u) | (u.z << 16u) | (u.w << 24u); }\n")
		w.call1("_w"+name, x)
	case "unpack4xI8":
		w.helper("_wunpack4xI8", "ivec4 _wunpack4xI8(uint x) { return ivec4(uvec4(x) << uvec4(24u, 16u, 8u, 0u)) >> 24; }\n")
		w.call1("_wunpack4xI8", x)
	case "unpack4xU8":
		w.helper("_wunpack4xU8", "uvec4 _wunpack4xU8(uint x) { return (uvec4(x) >> uvec4(0u, 8u, 16u, 24u)) & 0xFFu; }\n")
		w.call1("_wunpack4xU8", x)
	case "frexp", "modf":
		w.frexpModf(x, name, at, rt)
	case "quantizeToF16":
		w.quantizeHelper(at)
		w.call1("_wquantizeToF16", x)
	case "unpack2x16float":
		if !w.p.packHalf {
			w.call1("unpackHalf2x16", x)
			return
		}
		w.helper("_wunpack2x16float", unpackF16Helper)
		w.call1("_wunpack2x16float", x)
	case "select":
		if len(ci.args) == 3 && ci.args[2].kind == kVec {
			w.s("mix(")
			w.args(x.Args, 0)
			w.s(")")
			return
		}
		w.s("(")
		w.expr(x.Args[2])
		w.s(" ? ")
		w.expr(x.Args[1])
		w.s(" : ")
		w.expr(x.Args[0])
		w.s(")")
	case "all", "any":
		if at.kind != kVec {
			w.s("(")
			w.expr(x.Args[0])
			w.s(")")
			return
		}
		w.call1(name, x)
	case "arrayLength":
		w.s("uint(")
		w.base(x.Args[0])
		w.s(".length())")
	case "atomicLoad", "atomicStore":
		w.ext("GL_KHR_memory_scope_semantics")
		scope, sem := w.atomicScope(at)
		w.s(name + "(")
		w.base(x.Args[0])
		if name == "atomicStore" {
			w.s(", ")
			w.expr(x.Args[1])
		}
		w.s(", " + scope + ", " + sem + ", gl_SemanticsRelaxed)")
	case "atomicSub":
		w.s("atomicAdd(")
		w.base(x.Args[0])
		w.s(", -(")
		w.expr(x.Args[1])
		w.s("))")
	case "atomicCompareExchangeWeak":
		vt := at.elem.elem
		tn := w.typeName(vt)
		cmp := w.newGlobalTemp("cmp", tn)
		old := w.newGlobalTemp("old", tn)
		w.s("(" + cmp + " = ")
		w.expr(x.Args[1])
		w.s(", " + old + " = atomicCompSwap(")
		w.base(x.Args[0])
		w.s(", " + cmp + ", ")
		w.expr(x.Args[2])
		w.s("), " + rt.st.glsl + "(" + old + ", " + old + " == " + cmp + "))")
	case "workgroupBarrier":
		w.s("barrier()")
	case "storageBarrier":
		w.ext("GL_KHR_memory_scope_semantics")
		w.s("controlBarrier(gl_ScopeWorkgroup, gl_ScopeWorkgroup, gl_StorageSemanticsBuffer, gl_SemanticsAcquireRelease)")
	case "textureBarrier":
		w.ext("GL_KHR_memory_scope_semantics")
		w.s("controlBarrier(gl_ScopeWorkgroup, gl_ScopeWorkgroup, gl_StorageSemanticsImage, gl_SemanticsAcquireRelease)")
	case "workgroupUniformLoad":
		tmp := w.newGlobalTemp("wul", w.typeBase(rt))
		if dims := w.typeDims(rt); dims != "" {
			w.retypeTemp(tmp, w.decl(rt, tmp))
		}
		w.s("(barrier(), " + tmp + " = ")
		if at.elem.kind == kAtomic {
			w.ext("GL_KHR_memory_scope_semantics")
			w.s("atomicLoad(")
			w.base(x.Args[0])
			w.s(", gl_ScopeWorkgroup, gl_StorageSemanticsShared, gl_SemanticsRelaxed)")
		} else {
			w.base(x.Args[0])
		}
		w.s(", barrier(), " + tmp + ")")
	case "textureDimensions", "textureNumLayers", "textureNumLevels", "textureNumSamples",
		"textureLoad", "textureStore", "textureSampleLevel", "textureSampleGrad", "textureSampleCompareLevel",
		"textureSampleBaseClampToEdge", "textureGather", "textureGatherCompare":
		w.texture(x, ci)
	default:
		if fn, ok := sameName[name]; ok {
			if strings.HasPrefix(name, "atomic") {
				w.s(fn + "(")
				w.base(x.Args[0])
				w.s(", ")
				w.args(x.Args, 1)
				w.s(")")
				return
			}
			w.call1(fn, x)
			return
		}
		w.s("0")
	}
}

func (w *writer) atomicScope(p *wtype) (string, string) {
	if p.space == asWorkgroup {
		return "gl_ScopeWorkgroup", "gl_StorageSemanticsShared"
	}
	return "gl_ScopeDevice", "gl_StorageSemanticsBuffer"
}

// newGlobalTemp declares a private global used as an expression temporary.
func (w *writer) newGlobalTemp(prefix, typ string) string {
	name := w.newTempGlobal(prefix)
	w.temps.WriteString(typ + " " + name + ";\n")
	return name
}

func (w *writer) newTempGlobal(prefix string) string {
	for i := len(w.taken); ; i++ {
		name := "_w" + prefix + strconv.Itoa(i)
		if !w.taken[name] {
			w.taken[name] = true
			return name
		}
	}
}

// retypeTemp replaces the last declared temporary with a full declaration
// (for array types).
func (w *writer) retypeTemp(name, decl string) {
	s := w.temps.String()
	i := strings.LastIndex(s, "\n"+" "+name+";\n")
	_ = i
	lines := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
	for k := len(lines) - 1; k >= 0; k-- {
		if strings.HasSuffix(lines[k], " "+name+";") {
			lines[k] = decl + ";"
			break
		}
	}
	w.temps.Reset()
	w.temps.WriteString(strings.Join(lines, "\n") + "\n")
}

func (w *writer) frexpModf(x *ast.CallExpr, name string, at, rt *wtype) {
	st := rt.st
	tn := w.typeBase(at)
	it := w.typeBase(at.withScalar(tI32))
	fn := "_w" + name
	key := fn + tn
	var body string
	switch {
	case name == "frexp" && at.scalarOf().kind == kF16:
		ft := w.typeBase(at.withScalar(tF32))
		body = st.glsl + " r; r.fract = " + tn + "(frexp(" + ft + "(x), r.exp)); return r;"
	case name == "frexp":
		body = st.glsl + " r; r.fract = frexp(x, r.exp); return r;"
	default:
		body = st.glsl + " r; r.fract = modf(x, r.whole); return r;"
	}
	_ = it
	w.helper(key, st.glsl+" "+fn+"("+tn+" x) { "+body+" }\n")
	w.call1(fn, x)
}

// ---- textures --------------------------------------------------------------------------------

// samplerType is the combined sampler type for a texture.
func (w *writer) samplerType(t *wtype, shadow bool) string {
	p := w.vecPrefix(t.elem)
	if t.flavour == texDepth || t.flavour == texDepthMultisampled {
		p = ""
	}
	s := p + "sampler" + w.dimSuffix(t)
	if shadow {
		s += "Shadow"
	}
	return s
}

// coords writes texture coordinates of n components, with an optional
// array index appended, converted to the GLSL type (int or float based).
func (w *writer) coords(c ast.Expr, n int, layer ast.Expr, float bool) {
	total := n
	if layer != nil {
		total++
	}
	if !float {
		switch {
		case layer == nil && n == 1:
			w.s("int(")
			w.expr(c)
			w.s(")")
		case layer == nil:
			w.s("ivec" + strconv.Itoa(n) + "(")
			w.expr(c)
			w.s(")")
		default:
			w.s("ivec" + strconv.Itoa(total) + "(")
			if n == 1 {
				w.s("int(")
			} else {
				w.s("ivec" + strconv.Itoa(n) + "(")
			}
			w.expr(c)
			w.s("), int(")
			w.expr(layer)
			w.s("))")
		}
		return
	}
	if layer == nil {
		w.expr(c)
		return
	}
	w.s("vec" + strconv.Itoa(total) + "(")
	w.expr(c)
	w.s(", float(")
	w.expr(layer)
	w.s("))")
}

func (w *writer) texture(x *ast.CallExpr, ci *callInfo) {
	name := ci.name
	args := x.Args
	ti := 0
	if name == "textureGather" && len(args) > 0 && w.p.info[args[0]].t.kind != kTexture {
		ti = 1
	}
	t := w.p.info[args[ti]].t
	n := coordN(t)
	switch name {
	case "textureDimensions", "textureNumLayers":
		w.ext("GL_EXT_samplerless_texture_functions")
		rt := ci.t
		w.s(w.typeName(rt) + "(")
		switch {
		case t.kind == kStorageTexture:
			w.s("imageSize(")
			w.expr(args[0])
			w.s(")")
		case t.flavour == texMultisampled || t.flavour == texDepthMultisampled:
			w.s("textureSize(")
			w.expr(args[0])
			w.s(")")
		default:
			w.s("textureSize(")
			w.expr(args[0])
			if len(args) > 1 {
				w.s(", int(")
				w.expr(args[1])
				w.s("))")
			} else {
				w.s(", 0)")
			}
		}
		switch {
		case name == "textureNumLayers":
			w.s(".z")
		case t.arrayed || (t.dim == dimCube && false):
			w.s(".xy")
		}
		w.s(")")
	case "textureNumLevels":
		w.ext("GL_EXT_samplerless_texture_functions")
		w.s("uint(textureQueryLevels(")
		w.expr(args[0])
		w.s("))")
	case "textureNumSamples":
		w.ext("GL_EXT_samplerless_texture_functions")
		w.s("uint(textureSamples(")
		w.expr(args[0])
		w.s("))")
	case "textureLoad":
		var layer ast.Expr
		if t.arrayed {
			layer = args[2]
		}
		if t.kind == kStorageTexture {
			w.s("imageLoad(")
			w.expr(args[0])
			w.s(", ")
			w.coords(args[1], n, layer, false)
			w.s(")")
			return
		}
		w.ext("GL_EXT_samplerless_texture_functions")
		w.s("texelFetch(")
		w.expr(args[0])
		w.s(", ")
		w.coords(args[1], n, layer, false)
		w.s(", int(")
		w.expr(args[len(args)-1])
		w.s("))")
		if t.flavour == texDepth || t.flavour == texDepthMultisampled {
			w.s(".x")
		}
	case "textureStore":
		var layer ast.Expr
		if t.arrayed {
			layer = args[2]
		}
		w.s("imageStore(")
		w.expr(args[0])
		w.s(", ")
		w.coords(args[1], n, layer, false)
		w.s(", ")
		w.expr(args[len(args)-1])
		w.s(")")
	case "textureSampleLevel", "textureSampleGrad":
		depth := t.flavour == texDepth
		i := 3
		var layer ast.Expr
		if t.arrayed {
			layer = args[3]
			i++
		}
		fn := "textureLod"
		if name == "textureSampleGrad" {
			fn = "textureGrad"
		}
		extra := 1
		if name == "textureSampleGrad" {
			extra = 2
		}
		hasOffset := len(args) > i+extra
		if hasOffset {
			fn += "Offset"
		}
		w.s(fn + "(" + w.samplerType(t, false) + "(")
		w.expr(args[0])
		w.s(", ")
		w.expr(args[1])
		w.s("), ")
		w.coords(args[2], n, layer, true)
		for k := 0; k < extra; k++ {
			w.s(", ")
			if depth {
				w.s("float(")
				w.expr(args[i+k])
				w.s(")")
			} else {
				w.expr(args[i+k])
			}
		}
		if hasOffset {
			w.s(", ")
			w.expr(args[i+extra])
		}
		w.s(")")
		if depth {
			w.s(".x")
		}
	case "textureSampleCompareLevel":
		i := 3
		var layer ast.Expr
		if t.arrayed {
			layer = args[3]
			i++
		}
		ref := args[i]
		hasOffset := len(args) > i+1
		st := w.samplerType(t, true)
		useGrad := t.arrayed || t.dim == dimCube
		fn := "textureLod"
		if useGrad {
			fn = "textureGrad"
		}
		if hasOffset {
			fn += "Offset"
		}
		w.s(fn + "(" + st + "(")
		w.expr(args[0])
		w.s(", ")
		w.expr(args[1])
		w.s("), vec" + strconv.Itoa(n+1+btoi(layer != nil)) + "(")
		w.expr(args[2])
		if layer != nil {
			w.s(", float(")
			w.expr(layer)
			w.s(")")
		}
		w.s(", ")
		w.expr(ref)
		w.s(")")
		if useGrad {
			z := "vec" + strconv.Itoa(n) + "(0.0)"
			w.s(", " + z + ", " + z)
		} else {
			w.s(", 0.0")
		}
		if hasOffset {
			w.s(", ")
			w.expr(args[i+1])
		}
		w.s(")")
	case "textureGatherCompare":
		i := 3
		var layer ast.Expr
		if t.arrayed {
			layer = args[3]
			i++
		}
		hasOffset := len(args) > i+1
		fn := "textureGather"
		if hasOffset {
			fn = "textureGatherOffset"
		}
		w.s(fn + "(" + w.samplerType(t, true) + "(")
		w.expr(args[0])
		w.s(", ")
		w.expr(args[1])
		w.s("), ")
		w.coords(args[2], n, layer, true)
		w.s(", ")
		w.expr(args[i])
		if hasOffset {
			w.s(", ")
			w.expr(args[i+1])
		}
		w.s(")")
	case "textureGather":
		comp := "0"
		if ti == 1 {
			if v := w.p.info[args[0]].val; v != nil {
				comp = strconv.FormatInt(v.i, 10)
			}
		}
		var layer ast.Expr
		i := ti + 3
		if t.arrayed {
			layer = args[i]
			i++
		}
		hasOffset := len(args) > i
		fn := "textureGather"
		if hasOffset {
			fn = "textureGatherOffset"
		}
		w.s(fn + "(" + w.samplerType(t, false) + "(")
		w.expr(args[ti])
		w.s(", ")
		w.expr(args[ti+1])
		w.s("), ")
		w.coords(args[ti+2], n, layer, true)
		if hasOffset {
			w.s(", ")
			w.expr(args[i])
		}
		if t.flavour != texDepth {
			w.s(", " + comp)
		}
		w.s(")")
	case "textureSampleBaseClampToEdge":
		w.helper("_wsampleClamp", "vec4 _wsampleClamp(texture2D t, sampler s, vec2 c) { vec2 h = vec2(0.5) / vec2(textureSize(t, 0)); return textureLod(sampler2D(t, s), clamp(c, h, vec2(1.0) - h), 0.0); }\n")
		w.ext("GL_EXT_samplerless_texture_functions")
		w.call1("_wsampleClamp", x)
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// quantizeF16Scalar rounds an f32 to the nearest f16 value (ties to even)
// with integer operations on its bits: rounding the mantissa to 10 bits
// in place keeps every f16 normal value an f32 of the same exponent.
// unpackHalf2x16(packHalf2x16(x)) would say the same, but NVIDIA's driver
// folds that round trip into x. Below 2^-14 (f16 subnormals, steps of
// 2^-24) the scaling by powers of two is exact. Beyond f16's largest
// finite value (65504, or from 65520 after rounding) the result is
// infinity, as for a conversion; infinities and NaNs stay as they are.
const quantizeF16Scalar = `float _wquantizeToF16(float x) {
    uint u = floatBitsToUint(x);
    uint a = u & 0x7FFFFFFFu;
    if (a >= 0x7F800000u) {
        return x;
    }
    if (a < 0x38800000u) {
        return roundEven(x * 16777216.0) * 5.9604644775390625e-8;
    }
    a = (a + 0xFFFu + ((a >> 13u) & 1u)) & 0xFFFFE000u;
    if (a > 0x477FE000u) {
        a = 0x7F800000u;
    }
    return uintBitsToFloat((u & 0x80000000u) | a);
}
`

// unpackF16Helper is unpack2x16float with integer operations on the bits,
// for modules that also call pack2x16float: NVIDIA's driver folds
// unpackHalf2x16(packHalf2x16(v)) into v, losing the rounding to f16
// that WGSL's unpack2x16float(pack2x16float(v)) has (and that
// quantizeToF16 is defined by). f16 normal values, infinities and NaNs
// move their exponent and mantissa into the f32's (the exponent bias
// grows by 112, twice for the all-ones exponent); subnormals and zero are
// the mantissa times 2^-24, exactly. The sign is put back last.
const unpackF16Helper = `vec2 _wunpack2x16float(uint x) {
    uvec2 h = uvec2(x & 0xFFFFu, x >> 16u);
    uvec2 a = h & 0x7FFFu;
    uvec2 n = (a << 13u) + 0x38000000u;
    n = mix(n, n + 0x38000000u, greaterThanEqual(a, uvec2(0x7C00u)));
    vec2 r = mix(uintBitsToFloat(n), vec2(a) * 5.9604644775390625e-8, lessThan(a, uvec2(0x0400u)));
    return uintBitsToFloat(floatBitsToUint(r) | ((h & 0x8000u) << 16u));
}
`

// quantizeHelper defines _wquantizeToF16 for t (f32 or vecN<f32>): the
// scalar function, and for vectors an overload applying it per component.
func (w *writer) quantizeHelper(t *wtype) {
	w.helper("_wquantizeToF16", quantizeF16Scalar)
	if t.kind != kVec {
		return
	}
	tn := w.typeBase(t)
	var b strings.Builder
	b.WriteString(tn + " _wquantizeToF16(" + tn + " v) { return " + tn + "(")
	for i := 0; i < t.n; i++ {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString("_wquantizeToF16(v." + "xyzw"[i:i+1] + ")")
	}
	b.WriteString("); }\n")
	w.helper("_wquantizeToF16"+tn, b.String())
}
