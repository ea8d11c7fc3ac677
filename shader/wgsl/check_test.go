package wgsl

import (
	"strings"
	"testing"
)

// head is prepended to the invalid programs (two lines).
const head = "@group(0) @binding(0) var<storage, read_write> out: array<u32>;\n" +
	"@compute @workgroup_size(1) fn main() { out[0] = f(); }\n"

// checkErr is an invalid program and the first error it must produce.
type checkErr struct {
	name      string
	src       string // head is prepended unless noHead
	noHead    bool
	line, col int
	msg       string // a substring of the message
	rule      string
}

var invalidPrograms = []checkErr{
	// Names.
	{name: "unknown identifier", src: "fn f() -> u32 { let color = 1u; return colr; }", line: 3, col: 40, msg: "unknown identifier 'colr'; did you mean 'color'?", rule: ruleScope},
	{name: "unknown function", src: "fn f() -> u32 { return u32(sqrtt(2.0)); }", line: 3, col: 28, msg: "unknown function 'sqrtt'; did you mean 'sqrt'?", rule: ruleScope},
	{name: "unknown type", src: "fn f() -> u32 { var x: vec3<f23>; return 0u; }", line: 3, col: 29, msg: "unknown type 'f23'; did you mean 'f32'?", rule: ruleScope},
	{name: "redeclaration", src: "fn f() -> u32 { return 0u; }\nfn f() -> u32 { return 1u; }", line: 4, col: 1, msg: "redeclaration of 'f'", rule: ruleScope},
	{name: "local redeclaration", src: "fn f() -> u32 { let a = 1u; let a = 2u; return a; }", line: 3, col: 33, msg: "redeclaration of 'a' in the same scope", rule: ruleScope},
	{name: "declaration cycle", src: "const a = b;\nconst b = a;\nfn f() -> u32 { return u32(a); }", line: 3, col: 7, msg: "cycle", rule: ruleScope},

	// Types.
	{name: "type mismatch", src: "fn f() -> u32 { let x: f32 = 1u; return 0u; }", line: 3, col: 30, msg: "expected 'f32', found 'u32'", rule: ruleType},
	{name: "binary mismatch", src: "fn f() -> u32 { return 1u + 2i; }", line: 3, col: 27, msg: "operator '+' cannot be applied to 'u32' and 'i32'", rule: ruleType},
	{name: "return type mismatch", src: "fn f() -> u32 { return 1.5; }", line: 3, col: 24, msg: "return value: expected 'u32', found 'AbstractFloat'", rule: ruleType},
	{name: "abstract out of range", src: "fn f() -> u32 { return 5000000000; }", line: 3, col: 24, msg: "cannot be represented as 'u32'", rule: ruleConst},
	{name: "no member", src: "struct S { color: u32 }\nfn f() -> u32 { let s = S(1u); return s.colour; }", line: 4, col: 40, msg: "'S' has no member 'colour'; did you mean 'color'?", rule: ruleType},
	{name: "bad swizzle", src: "fn f() -> u32 { let v = vec2u(1u); return v.z; }", line: 3, col: 44, msg: "invalid swizzle '.z'", rule: ruleType},
	{name: "mixed swizzle", src: "fn f() -> u32 { let v = vec4u(1u); return v.xg.x; }", line: 3, col: 44, msg: "invalid swizzle '.xg'", rule: ruleType},
	{name: "swizzle assignment", src: "fn f() -> u32 { var v = vec4u(1u); v.xy = vec2u(2u); return 0u; }", line: 3, col: 36, msg: "must be a reference", rule: ruleType},
	{name: "constant index out of bounds", src: "fn f() -> u32 { var a: array<u32, 4>; return a[4]; }", line: 3, col: 48, msg: "index 4 is out of bounds", rule: ruleConst},
	{name: "constructor arity", src: "fn f() -> u32 { let v = vec3<f32>(1.0, 2.0); return 0u; }", line: 3, col: 25, msg: "needs 3 components, found 2", rule: ruleType},
	{name: "call arity", src: "fn g(a: u32) -> u32 { return a; }\nfn f() -> u32 { return g(); }", line: 4, col: 24, msg: "'g' takes 1 argument(s), found 0", rule: ruleType},
	{name: "builtin mismatch", src: "fn f() -> u32 { return u32(sqrt(4u)); }", line: 3, col: 28, msg: "'sqrt' cannot take 'u32'", rule: ruleType},
	{name: "if condition", src: "fn f() -> u32 { if 1u { return 1u; } return 0u; }", line: 3, col: 20, msg: "the condition of 'if' must be bool", rule: ruleType},
	{name: "must use", src: "fn f() -> u32 { sqrt(2.0); return 0u; }", line: 3, col: 17, msg: "must be used", rule: ruleFunc},
	{name: "const division by zero", src: "fn f() -> u32 { let a = 1u; return a / 0u; }", line: 3, col: 40, msg: "integer division by zero", rule: ruleConst},
	{name: "shift too far", src: "fn f() -> u32 { let a = 1u; return a << 32u; }", line: 3, col: 41, msg: "shift amount must be less than 32", rule: ruleConst},
	{name: "const assert", src: "const_assert 1 + 1 == 3;\nfn f() -> u32 { return 0u; }", line: 3, col: 1, msg: "const assertion failed", rule: ruleAssert},
	{name: "abstract overflow", src: "const big = 9223372036854775807 + 1;\nfn f() -> u32 { return 0u; }", line: 3, col: 33, msg: "AbstractInt overflow", rule: ruleConst},

	// Assignment.
	{name: "assign to let", src: "fn f() -> u32 { let a = 1u; a = 2u; return a; }", line: 3, col: 29, msg: "cannot assign to 'let a'", rule: ruleType},
	{name: "assign to const", src: "const c = 1u;\nfn f() -> u32 { c = 2u; return c; }", line: 4, col: 17, msg: "cannot assign to 'const c'", rule: ruleType},
	{name: "assign to param", src: "fn f() -> u32 { return g(1u); }\nfn g(p: u32) -> u32 { p = 2u; return p; }", line: 4, col: 23, msg: "cannot assign to parameter 'p'", rule: ruleType},
	{name: "write read-only storage", src: "@group(0) @binding(1) var<storage> ro: array<u32>;\nfn f() -> u32 { ro[0] = 1u; return 0u; }", line: 4, col: 17, msg: "read-only", rule: ruleAddr},
	{name: "increment float", src: "fn f() -> u32 { var x = 1.0; x++; return 0u; }", line: 3, col: 30, msg: "'++' needs an i32 or u32 variable", rule: ruleType},

	// Address spaces and resources.
	{name: "uniform read_write", src: "@group(0) @binding(1) var<uniform, read_write> u: vec4<f32>;\nfn f() -> u32 { return u32(u.x); }", line: 3, col: 23, msg: "only var<storage> takes an access mode", rule: ruleAddr},
	{name: "runtime array in uniform", src: "@group(0) @binding(1) var<uniform> u: array<vec4<f32>>;\nfn f() -> u32 { return 0u; }", line: 3, col: 23, msg: "var<uniform> needs a constructible host-shareable type", rule: ruleAddr},
	{name: "missing binding", src: "@group(0) var<storage> s: array<u32>;\nfn f() -> u32 { return s[0]; }", line: 3, col: 11, msg: "needs @binding", rule: ruleResource},
	{name: "missing group and binding", src: "var t: texture_2d<f32>;\nfn f() -> u32 { return textureDimensions(t).x; }", line: 3, col: 1, msg: "needs @group and @binding", rule: ruleResource},
	{name: "binding out of range", src: "@group(0) @binding(65536) var<storage> s: array<u32>;\nfn f() -> u32 { return s[0]; }", line: 3, col: 11, msg: "@binding must be in [0, 65535], found 65536", rule: ruleResource},
	{name: "negative binding", src: "@group(0) @binding(-1) var<storage> s: array<u32>;\nfn f() -> u32 { return s[0]; }", line: 3, col: 11, msg: "@binding must be in [0, 65535], found -1", rule: ruleResource},
	{name: "duplicate binding", src: "@group(0) @binding(0) var<storage> s: array<u32>;\nfn f() -> u32 { return s[0]; }", line: 3, col: 36, msg: "both use @group(0) @binding(0)", rule: ruleResource},
	{name: "binding on private", src: "@group(0) @binding(1) var<private> p: u32;\nfn f() -> u32 { return p; }", line: 3, col: 23, msg: "only apply to resources", rule: ruleResource},
	{name: "no address space", src: "var g: u32;\nfn f() -> u32 { return g; }", line: 3, col: 1, msg: "needs an address space", rule: ruleAddr},
	{name: "atomic in private", src: "var<private> a: atomic<u32>;\nfn f() -> u32 { return 0u; }", line: 3, col: 1, msg: "var<private> needs a constructible type", rule: ruleAddr},
	{name: "atomic in read-only storage", src: "@group(0) @binding(1) var<storage> a: atomic<u32>;\nfn f() -> u32 { return 0u; }", line: 3, col: 23, msg: "need 'read_write' access", rule: ruleAddr},
	{name: "bool in storage", src: "@group(0) @binding(1) var<storage> b: array<bool>;\nfn f() -> u32 { return 0u; }", line: 3, col: 23, msg: "host-shareable", rule: ruleAddr},
	{name: "uniform array stride", src: "@group(0) @binding(1) var<uniform> u: array<f32, 4>;\nfn f() -> u32 { return u32(u[0]); }", line: 3, col: 23, msg: "multiple of 16", rule: ruleLayout},
	{name: "uniform struct follower", src: "struct S { a: f32 }\nstruct U { s: S, b: f32 }\n@group(0) @binding(1) var<uniform> u: U;\nfn f() -> u32 { return u32(u.b); }", line: 4, col: 18, msg: "must start at least 16 bytes after", rule: ruleLayout},
	{name: "write-only storage texture read", src: "@group(0) @binding(1) var t: texture_storage_2d<rgba8unorm, write>;\nfn f() -> u32 { return u32(textureLoad(t, vec2(0)).x); }", line: 4, col: 40, msg: "write-only storage texture", rule: ruleAddr},
	{name: "store to read-only texture", src: "@group(0) @binding(1) var t: texture_storage_2d<r32float, read>;\nfn f() -> u32 { textureStore(t, vec2(0), vec4(1.0)); return 0u; }", line: 4, col: 30, msg: "read-only storage texture", rule: ruleAddr},
	{name: "workgroup initializer", src: "var<workgroup> w: u32 = 1u;\nfn f() -> u32 { return w; }", line: 3, col: 25, msg: "cannot have an initializer", rule: ruleAddr},

	// Extensions.
	{name: "f16 without enable", src: "fn f() -> u32 { let h: f16 = 1.0; return 0u; }", line: 3, col: 24, msg: "needs 'enable f16;'", rule: ruleExt},
	{name: "f16 literal without enable", src: "fn f() -> u32 { let h = 1.0h; return 0u; }", line: 3, col: 25, msg: "needs 'enable f16;'", rule: ruleExt},
	{name: "subgroups without enable", src: "fn f() -> u32 { return subgroupAdd(1u); }", line: 3, col: 24, msg: "needs 'enable subgroups;'", rule: ruleExt},

	// Arrays.
	{name: "runtime array size in function", src: "fn f() -> u32 { let n = out[0]; var a: array<u32, n>; return 0u; }", line: 3, col: 51, msg: "must be a const-expression", rule: ruleType},
	{name: "override array size in function", src: "override n = 4u;\nfn f() -> u32 { var a: array<u32, n>; return 0u; }", line: 4, col: 35, msg: "only allowed as the type of var<workgroup>", rule: ruleType},
	{name: "zero array size", src: "fn f() -> u32 { var a: array<u32, 0>; return 0u; }", line: 3, col: 35, msg: "must be positive", rule: ruleType},
	{name: "runtime array not last", src: "struct S { a: array<u32>, b: u32 }\nfn f() -> u32 { return 0u; }", line: 3, col: 12, msg: "only be the last member", rule: ruleType},

	// Functions and control flow.
	{name: "recursion", src: "fn f() -> u32 { return g(); }\nfn g() -> u32 { return f(); }", line: 4, col: 24, msg: "recursion is not allowed", rule: ruleFunc},
	{name: "missing return", src: "fn f() -> u32 { if out[0] > 1u { return 1u; } }", line: 3, col: 15, msg: "missing return", rule: ruleBehavior},
	{name: "return value from void", src: "fn f() -> u32 { g(); return 0u; }\nfn g() { return 1u; }", line: 4, col: 17, msg: "has no return type but returns a value", rule: ruleType},
	{name: "break outside loop", src: "fn f() -> u32 { break; }", line: 3, col: 17, msg: "'break' must be inside a loop or switch", rule: ruleStmt},
	{name: "continue outside loop", src: "fn f() -> u32 { continue; }", line: 3, col: 17, msg: "'continue' must be inside a loop", rule: ruleStmt},
	{name: "return in continuing", src: "fn f() -> u32 { loop { continuing { return 1u; } } }", line: 3, col: 37, msg: "'return' cannot be used in a continuing block", rule: ruleStmt},
	{name: "duplicate case", src: "fn f() -> u32 { switch out[0] { case 1u, 2u: {} case 2u: {} default: {} } return 0u; }", line: 3, col: 54, msg: "duplicate case value 2", rule: ruleStmt},
	{name: "no default", src: "fn f() -> u32 { switch out[0] { case 1u: {} } return 0u; }", line: 3, col: 17, msg: "exactly one 'default'", rule: ruleStmt},
	{name: "address of vector component", src: "fn f() -> u32 { var v = vec2u(); let p = &v.x; return *p; }", line: 3, col: 42, msg: "address of a vector component", rule: ruleType},

	// Entry points.
	{name: "workgroup size zero", noHead: true, src: "@compute @workgroup_size(8, 0) fn main() {}", line: 1, col: 29, msg: "@workgroup_size arguments must be positive, found 0", rule: ruleAttr},
	{name: "missing workgroup size", noHead: true, src: "@compute fn main() {}", line: 1, col: 10, msg: "needs a @workgroup_size", rule: ruleEntry},
	{name: "several entry points", noHead: true, src: "@compute @workgroup_size(1) fn a() {}\n@compute @workgroup_size(1) fn b() {}", line: 2, col: 29, msg: "several @compute entry points (a, b)", rule: ruleEntry},
	{name: "no entry point", noHead: true, src: "fn f() {}", line: 1, col: 1, msg: "no @compute entry point", rule: ruleEntry},
	{name: "entry parameter without builtin", noHead: true, src: "@compute @workgroup_size(1) fn main(x: u32) {}", line: 1, col: 37, msg: "needs a @builtin attribute", rule: ruleEntry},
	{name: "builtin type", noHead: true, src: "@compute @workgroup_size(1) fn main(@builtin(global_invocation_id) g: vec3<i32>) {}", line: 1, col: 68, msg: "must have type 'vec3<u32>'", rule: ruleEntry},
	{name: "fragment builtin", noHead: true, src: "@compute @workgroup_size(1) fn main(@builtin(position) p: vec4<f32>) {}", line: 1, col: 56, msg: "not a compute shader input", rule: ruleEntry},
	{name: "derivative in compute", src: "fn f() -> u32 { return u32(dpdx(1.0)); }", line: 3, col: 28, msg: "only allowed in fragment shaders", rule: ruleFunc},
}

func TestCheckErrors(t *testing.T) {
	for _, c := range invalidPrograms {
		t.Run(c.name, func(t *testing.T) {
			src := c.src
			if !c.noHead {
				src = head + src
			}
			res, err := Translate([]byte(src), Options{Filename: "bad.wgsl"})
			if err == nil {
				t.Fatalf("accepted:\n%s\nGLSL:\n%s", src, res.GLSL)
			}
			list, ok := err.(ErrorList)
			if !ok || len(list) == 0 {
				t.Fatalf("error %T %v, want an ErrorList", err, err)
			}
			e := list[0]
			if e.File != "bad.wgsl" || e.Line != c.line || e.Col != c.col || !strings.Contains(e.Msg, c.msg) || e.Rule != c.rule {
				t.Errorf("got  %s\nwant bad.wgsl:%d:%d: ...%s... [%s]\n(all: %v)", e, c.line, c.col, c.msg, c.rule, list)
			}
		})
	}
}

// TestEntryPointOption checks Options.EntryPoint errors.
func TestEntryPointOption(t *testing.T) {
	src := "@compute @workgroup_size(1) fn a() {}\nfn helper() {}\n"
	_, err := Translate([]byte(src), Options{EntryPoint: "b"})
	if err == nil || !strings.Contains(err.Error(), "no @compute function 'b' (compute entry points: a)") {
		t.Errorf("EntryPoint b: %v", err)
	}
	_, err = Translate([]byte(src), Options{EntryPoint: "helper"})
	if err == nil || !strings.Contains(err.Error(), "'helper' is not a @compute entry point") {
		t.Errorf("EntryPoint helper: %v", err)
	}
	r, err := Translate([]byte(src), Options{EntryPoint: "a"})
	if err != nil || r.EntryPoint != "a" {
		t.Errorf("EntryPoint a: %v", err)
	}
}

// TestConstEval checks values through const_assert, which fails the
// translation when the evaluator is wrong.
func TestConstEval(t *testing.T) {
	asserts := []string{
		"1 + 2 * 3 == 7",
		"7 / 2 == 3 && -7 / 2 == -3 && 7 % -2 == 1",
		"7.0 / 2.0 == 3.5",
		"5.5 % 2.0 == 1.5 && -5.5 % 2.0 == -1.5",
		"0x7fffffffi + 1i == -2147483647i - 1i",
		"0xffffffffu + 1u == 0u",
		"(1u << 31u) == 0x80000000u",
		"(-8 >> 1u) == -4 && (0x80000000u >> 31u) == 1u",
		"~0u == 0xffffffffu && ~0i == -1i",
		"(6 & 3) == 2 && (6 | 3) == 7 && (6 ^ 3) == 5",
		"all(vec3(1, 2, 3) + 1 == vec3(2, 3, 4))",
		"all(vec2(1.0, 2.0) * 2.0 == vec2(2.0, 4.0))",
		"all(mat2x2(1.0, 2.0, 3.0, 4.0) * vec2(1.0, 1.0) == vec2(4.0, 6.0))",
		"all(vec2(1.0, 1.0) * mat2x2(1.0, 2.0, 3.0, 4.0) == vec2(3.0, 7.0))",
		"all((mat2x2(1.0, 0.0, 0.0, 1.0) * mat2x2(1.0, 2.0, 3.0, 4.0))[1] == vec2(3.0, 4.0))",
		"determinant(mat3x3(2.0, 0.0, 0.0, 0.0, 3.0, 0.0, 0.0, 0.0, 4.0)) == 24.0",
		"all(transpose(mat2x3(1.0, 2.0, 3.0, 4.0, 5.0, 6.0))[2] == vec2(3.0, 6.0))",
		"abs(-2147483647 - 1) == 2147483648",
		"min(3u, 5u) == 3u && max(-1, -2) == -1 && clamp(1.5, 0.0, 1.0) == 1.0",
		"sign(-3) == -1 && sign(0.0) == 0.0",
		"round(2.5) == 2.0 && round(3.5) == 4.0 && round(-2.5) == -2.0",
		"floor(-1.5) == -2.0 && ceil(-1.5) == -1.0 && trunc(-1.5) == -1.0 && fract(1.25) == 0.25",
		"sqrt(9.0) == 3.0 && inverseSqrt(4.0) == 0.5 && exp2(3.0) == 8.0 && log2(8.0) == 3.0",
		"degrees(radians(90.0)) == 90.0",
		"step(1.0, 2.0) == 1.0 && step(3.0, 2.0) == 0.0",
		"smoothstep(0.0, 1.0, 0.5) == 0.5",
		"mix(1.0, 3.0, 0.5) == 2.0 && all(mix(vec2(0.0), vec2(2.0), 0.25) == vec2(0.5))",
		"fma(2.0, 3.0, 1.0) == 7.0",
		"length(vec2(3.0, 4.0)) == 5.0 && distance(vec2(0.0), vec2(3.0, 4.0)) == 5.0",
		"all(normalize(vec2(3.0, 4.0)) == vec2(0.6, 0.8))",
		"all(cross(vec3(1.0, 0.0, 0.0), vec3(0.0, 1.0, 0.0)) == vec3(0.0, 0.0, 1.0))",
		"dot(vec3(1, 2, 3), vec3(4, 5, 6)) == 32",
		"all(reflect(vec2(1.0, -1.0), vec2(0.0, 1.0)) == vec2(1.0, 1.0))",
		"countOneBits(0xffu) == 8u && countLeadingZeros(1u) == 31u && countTrailingZeros(8u) == 3u",
		"countLeadingZeros(0u) == 32u && countTrailingZeros(0i) == 32i",
		"firstLeadingBit(-1i) == -1i && firstLeadingBit(-2i) == 0i && firstLeadingBit(0x100u) == 8u && firstLeadingBit(0u) == 0xffffffffu",
		"firstTrailingBit(0u) == 0xffffffffu && firstTrailingBit(12u) == 2u",
		"reverseBits(1u) == 0x80000000u",
		"extractBits(0xf0u, 4u, 4u) == 0xfu && extractBits(0x80i, 4u, 4u) == -8i && extractBits(5u, 40u, 4u) == 0u",
		"insertBits(0xffffffffu, 0u, 8u, 8u) == 0xffff00ffu && insertBits(1u, 2u, 0u, 40u) == 2u",
		"dot4U8Packed(0x01020304u, 0x01010101u) == 10u && dot4I8Packed(0xffffffffu, 0x01010101u) == -4i",
		"pack4x8snorm(vec4(1.0, -1.0, 0.0, 0.5)) == 0x4000817fu",
		"pack2x16float(vec2(1.0, 2.0)) == 0x40003c00u && all(unpack2x16float(0x40003c00u) == vec2(1.0, 2.0))",
		"pack4xI8(vec4(-1, 1, -128, 127)) == 0x7f8001ffu && pack4xU8Clamp(vec4(300u, 1u, 2u, 3u)) == 0x030201ffu",
		"all(unpack4xI8(0x7f8001ffu) == vec4(-1, 1, -128, 127)) && all(unpack4xU8(0x030201ffu) == vec4(255u, 1u, 2u, 3u))",
		"all(unpack4x8unorm(0xff00ff00u) == vec4(0.0, 1.0, 0.0, 1.0))",
		"bitcast<u32>(-1i) == 0xffffffffu && bitcast<f32>(0x40000000u) == 2.0",
		"select(1, 2, true) == 2 && all(select(vec2(1, 2), vec2(3, 4), vec2(true, false)) == vec2(3, 2))",
		"any(vec2(false, true)) && !all(vec2(false, true))",
		"frexp(8.0).exp == 4 && frexp(8.0).fract == 0.5",
		"modf(-1.5).whole == -1.0 && modf(-1.5).fract == -0.5",
		"quantizeToF16(1.0f) == 1.0f",
		"ldexp(1.0, 4) == 16.0",
		"i32(3.9) == 3 && i32(-3.9) == -3 && u32(-1.0) == 0u && u32(1e20) == 4294967295u && u32(1e20f) == 4294967040u",
		"f32(0x1000001) == 16777216.0f",
		"u32(4 * 1000 * 1000 * 1000) == 4000000000u",
		"array(1, 2, 3)[1] == 2 && vec3(1, 2, 3).zyx.x == 3",
		"S(1, vec2(2.0, 3.0)).b.y == 3.0",
		"T.x == 4",
		"(0x1p4 == 16.0) && (1e3 == 1000.0) && (0x10 == 16)",
		"true != false && (true | false) && !(true & false)",
	}
	var b strings.Builder
	b.WriteString("struct S { a: i32, b: vec2<f32> }\nconst T = vec3(4, 5, 6);\n")
	for _, a := range asserts {
		b.WriteString("const_assert " + a + ";\n")
	}
	b.WriteString("@compute @workgroup_size(1) fn main() {}\n")
	if _, err := Translate([]byte(b.String()), Options{}); err != nil {
		t.Fatal(err)
	}
}

func TestNeverPanics(t *testing.T) {
	// Fragments of valid and invalid programs must give results or
	// errors, never panics (Translate recovers, but should not need to).
	srcs := []string{
		"", "fn", "@compute @workgroup_size(1) fn main() { let x = ; }",
		"struct S { a: S }\n@compute @workgroup_size(1) fn main() {}",
		"alias A = B;\nalias B = A;\n@compute @workgroup_size(1) fn main() {}",
		"const a = array<u32, 3>(1u, 2u, 3u)[5];\n@compute @workgroup_size(1) fn main() {}",
		"@compute @workgroup_size(1) fn main() { var x = vec3(1, 2, 3); x = x.xyzz; }",
		"@compute @workgroup_size(1) fn main() { let p = &main; }",
		"@compute @workgroup_size(1) fn main() { _ = bitcast<vec3<f16>>(1u); }",
		"@compute @workgroup_size(1) fn main() { _ = textureLoad(); _ = atomicAdd(1, 2); _ = frexp(); }",
		"@compute @workgroup_size(1) fn main() { var a: array<f32, 1 << 30>; }",
		"@compute @workgroup_size(1) fn main() { let m = mat2x2(1, 2, 3); }",
		"@compute @workgroup_size(1) fn main() { let x = f32(); let y = S(); }",
		"@compute @workgroup_size(1) fn main() { let x = 1.0 / 0.0; let y = 1 / 0; }",
		"@compute @workgroup_size(1) fn main() { switch 1.0 { default: {} } }",
		"@compute @workgroup_size(1) fn main() { var a: array<array<array<f32, 1 << 20>, 1 << 20>, 1 << 20>; let b = array<array<array<f32, 1 << 20>, 1 << 20>, 1 << 20>(); }",
		"struct S { a: array<array<f32, 1 << 22>, 1 << 22>, b: array<array<f32, 1 << 22>, 1 << 22> }\n@group(0) @binding(0) var<storage> s: S;\n@compute @workgroup_size(1) fn main() { _ = s.b[1][2]; }",
	}
	for _, s := range srcs {
		func() {
			defer func() {
				if r := recover(); r != nil {
					t.Errorf("%q: panic %v", s, r)
				}
			}()
			_, err := Translate([]byte(s), Options{})
			if err != nil {
				if list, ok := err.(ErrorList); ok {
					for _, e := range list {
						if e.Rule == ruleInternal {
							t.Errorf("%q: internal error %v", s, e)
						}
					}
				}
			}
		}()
	}
}
