package wgsl

import (
	"github.com/gfxcuda/gfxcuda/shader/wgsl/internal/ast"

	"fmt"
	"os"
	"strings"
	"testing"
)

// exprString renders an expression fully parenthesised: binary (x op y),
// unary (op x), calls f<T>(a, b), parenthesised expressions paren(x).
func exprString(e ast.Expr) string {
	switch e := e.(type) {
	case nil:
		return "<nil>"
	case *ast.Ident:
		if e.Args == nil {
			return e.Name
		}
		return e.Name + "<" + exprList(e.Args) + ">"
	case *ast.Literal:
		return e.Text
	case *ast.CallExpr:
		return exprString(e.Callee) + "(" + exprList(e.Args) + ")"
	case *ast.ParenExpr:
		return "paren(" + exprString(e.X) + ")"
	case *ast.MemberExpr:
		return exprString(e.X) + "." + e.Member
	case *ast.IndexExpr:
		return exprString(e.X) + "[" + exprString(e.Index) + "]"
	case *ast.UnaryExpr:
		return "(" + e.Op + " " + exprString(e.X) + ")"
	case *ast.BinaryExpr:
		return "(" + exprString(e.X) + " " + e.Op + " " + exprString(e.Y) + ")"
	}
	return fmt.Sprintf("?%T", e)
}

func exprList(l []ast.Expr) string {
	s := make([]string, len(l))
	for i, e := range l {
		s[i] = exprString(e)
	}
	return strings.Join(s, ", ")
}

func attrString(attrs []*ast.Attribute) string {
	var s []string
	for _, a := range attrs {
		if a.Args == nil {
			s = append(s, "@"+a.Name)
		} else {
			s = append(s, "@"+a.Name+"("+exprList(a.Args)+")")
		}
	}
	return strings.Join(s, " ")
}

// stmtString renders a statement on one line, compactly.
func stmtString(s ast.Stmt) string {
	switch s := s.(type) {
	case nil:
		return "<nil>"
	case *ast.BlockStmt:
		if s == nil {
			return "<nil block>"
		}
		parts := make([]string, len(s.Stmts))
		for i, x := range s.Stmts {
			parts[i] = stmtString(x)
		}
		return "{" + strings.Join(parts, "; ") + "}"
	case *ast.DeclStmt:
		d := s.Decl
		out := d.Kind
		if d.AddressSpace != "" {
			out += "<" + d.AddressSpace
			if d.Access != "" {
				out += "," + d.Access
			}
			out += ">"
		}
		out += " " + d.Name
		if d.Type != nil {
			out += ": " + exprString(d.Type)
		}
		if d.Init != nil {
			out += " = " + exprString(d.Init)
		}
		return out
	case *ast.AssignStmt:
		lhs := "_"
		if s.LHS != nil {
			lhs = exprString(s.LHS)
		}
		return lhs + " " + s.Op + " " + exprString(s.RHS)
	case *ast.IncDecStmt:
		return exprString(s.LHS) + s.Op
	case *ast.CallStmt:
		return "call " + exprString(s.Call)
	case *ast.IfStmt:
		out := "if " + exprString(s.Cond) + " " + stmtString(s.Body)
		if s.Else != nil {
			out += " else " + stmtString(s.Else)
		}
		return out
	case *ast.SwitchStmt:
		var cl []string
		for _, c := range s.Clauses {
			var sel []string
			for _, e := range c.Selectors {
				if e == nil {
					sel = append(sel, "default")
				} else {
					sel = append(sel, exprString(e))
				}
			}
			if c.Default {
				cl = append(cl, "default: "+stmtString(c.Body))
			} else {
				cl = append(cl, "case "+strings.Join(sel, ",")+": "+stmtString(c.Body))
			}
		}
		return "switch " + exprString(s.Tag) + " [" + strings.Join(cl, " | ") + "]"
	case *ast.LoopStmt:
		out := "loop " + stmtString(s.Body)
		if s.Continuing != nil {
			out += " continuing " + stmtString(s.Continuing)
		}
		if s.BreakIf != nil {
			out += " break if " + exprString(s.BreakIf)
		}
		return out
	case *ast.ForStmt:
		init, update := "", ""
		if s.Init != nil {
			init = stmtString(s.Init)
		}
		if s.Update != nil {
			update = stmtString(s.Update)
		}
		cond := ""
		if s.Cond != nil {
			cond = exprString(s.Cond)
		}
		return "for (" + init + "; " + cond + "; " + update + ") " + stmtString(s.Body)
	case *ast.WhileStmt:
		return "while " + exprString(s.Cond) + " " + stmtString(s.Body)
	case *ast.BranchStmt:
		return s.Kind
	case *ast.ReturnStmt:
		if s.Value == nil {
			return "return"
		}
		return "return " + exprString(s.Value)
	case *ast.ConstAssertStmt:
		return "const_assert " + exprString(s.Assert.Cond)
	}
	return fmt.Sprintf("?%T", s)
}

// mustParse parses src and fails the test on errors.
func mustParse(t *testing.T, src string) *ast.Module {
	t.Helper()
	m, errs := parse([]byte(src), "test.wgsl")
	if len(errs) > 0 {
		t.Fatalf("unexpected errors:\n%v", errs)
	}
	if m == nil {
		t.Fatal("nil module without errors")
	}
	return m
}

// parseExpr parses one expression through a const declaration.
func parseExpr(t *testing.T, src string) ast.Expr {
	t.Helper()
	m := mustParse(t, "const x = "+src+";")
	return m.Decls[0].(*ast.VarDecl).Init
}

// bigShader uses every construct of the grammar.
const bigShader = `// A realistic compute shader touching every part of the grammar.
enable f16;
enable subgroups, ;
requires readonly_and_readwrite_storage_textures;
diagnostic(off, derivative_uniformity);

/* Block comments /* nest */ and
   span lines. */
struct Particle {
  pos: vec3<f32>,
  @align(16) vel: vec4<f32>,
  @size(32) mass: f32,
  hist: array<vec3<f32>, 4>,
}

struct Params { count: u32, dt: f32 }

alias Mat = mat4x4<f32>;
alias Buf = array<Particle>;

@group(0) @binding(0) var<storage, read_write> particles: Buf;
@group(0) @binding(1) var<uniform> params: Params;
@group(1) @binding(0) var img: texture_storage_2d<rgba8unorm, write>;
var<workgroup> tile: array<array<f32, 16>, 16>;
var<private> seed: u32 = 0x9E37u;

@id(7) override scale: f32 = 1.5;
override enabled: bool;
const table = array<i32, select(2, 3, 1 > 0)>(1, 2, 3);
const lits = vec4(1., .5, 1e3, 1.5e-3f);
const hexes = vec3(0x1p4, 0x1.8p-2, 0x.8p1h);
const ints = vec4(0, 12i, 0x1Fu, 1f);
const_assert 1 + 2 == 3;
;

@must_use
fn rand(state: ptr<function, u32>) -> f32 {
  *state = *state * 747796405u + 2891336453u;
  let word = ((*state >> ((*state >> 28u) + 4u)) ^ *state) * 277803737u;
  return f32((word >> 22u) ^ word) / 4294967295.0;
}

fn shade(@location(0) c: vec4<f32>, k: f32,) -> @location(0) vec4<f32> {
  return c * k;
}

@compute @workgroup_size(8, 8, 1)
fn main(@builtin(global_invocation_id) gid: vec3<u32>,
        @builtin(local_invocation_index) lidx: u32) {
  var s: u32 = gid.x;
  let i = gid.x + gid.y * 8u;
  var p = particles[i];
  p.pos += p.vel.xyz * params.dt;
  p.hist[0].x = -p.pos.y;
  let m = mat4x4<f32>();
  let b = bitcast<u32>(p.mass);
  let q = vec2<f32>(1.0, 2.0).yx;
  let v = array<vec3<f32>, 2>(vec3(1.0), vec3(2.0));
  let cmp = i < 3u && s > 2u;
  let both = (i & 1u) | (s & 2u);
  let sh = (i << 2u) + 1u;
  let neg = -i32(s) - -1;
  let notb = !enabled;
  let inv = ~s;
  let ptrv = &p;
  let d = (*ptrv).mass;
  _ = rand(&s);
  s++;
  s--;
  s <<= 1u;
  s >>= 1u;
  s %= 7u;
  tile[lidx / 16u][lidx % 16u] = p.mass;
  workgroupBarrier();
  if i == 0u {
    s = 1u;
  } else if i == 1u {
    s = 2u;
  } else {
    s = 3u;
  }
  switch i {
    case 0u, 1u: { s = 4u; }
    case 2u { s = 5u; }
    case 3u, default, { s = 6u; }
  }
  switch s { default: {} }
  switch s { case 1u: {} default {} }
  loop {
    if s > 100u { break; }
    s += 1u;
    continuing {
      s = s * 2u;
      break if s > 1000u;
    }
  }
  loop { break; }
  for (var k = 0u; k < 4u; k++) {
    if k == 2u { continue; }
  }
  for (;;) { break; }
  for (s = 0u; s < 2u; s += 1u) {}
  for (workgroupBarrier(); ; workgroupBarrier()) { break; }
  while s > 0u {
    s = s / 2u;
  }
  @diagnostic(off, derivative_uniformity) {
    const_assert true;
  }
  @diagnostic(warning, subgroup_uniformity) if s == 0u {}
  {
    let inner = 1;
  }
  const kk = 3;
  textureStore(img, vec2<i32>(gid.xy), vec4<f32>(p.pos, 1.0));
  particles[i] = p;
  return;
}
`

func TestParseBigShader(t *testing.T) {
	m := mustParse(t, bigShader)

	// Directives.
	var dirs []string
	for _, d := range m.Directives {
		dirs = append(dirs, d.Kind+"("+strings.Join(d.Args, ",")+")")
	}
	if got, want := strings.Join(dirs, " "), "enable(f16) enable(subgroups) requires(readonly_and_readwrite_storage_textures) diagnostic(off,derivative_uniformity)"; got != want {
		t.Errorf("directives: got %s, want %s", got, want)
	}

	decls := map[string]ast.Decl{}
	var order []string
	for _, d := range m.Decls {
		var name string
		switch d := d.(type) {
		case *ast.VarDecl:
			name = d.Name
		case *ast.StructDecl:
			name = d.Name
		case *ast.AliasDecl:
			name = d.Name
		case *ast.FuncDecl:
			name = d.Name
		case *ast.ConstAssert:
			name = "const_assert"
		}
		decls[name] = d
		order = append(order, name)
	}
	if got, want := strings.Join(order, " "), "Particle Params Mat Buf particles params img tile seed scale enabled table lits hexes ints const_assert rand shade main"; got != want {
		t.Fatalf("declarations:\n got %s\nwant %s", got, want)
	}

	// Struct members, nested templates, attributes, trailing comma.
	ps := decls["Particle"].(*ast.StructDecl)
	var mem []string
	for _, mb := range ps.Members {
		s := mb.Name + ": " + exprString(mb.Type)
		if len(mb.Attrs) > 0 {
			s = attrString(mb.Attrs) + " " + s
		}
		mem = append(mem, s)
	}
	if got, want := strings.Join(mem, "; "), "pos: vec3<f32>; @align(16) vel: vec4<f32>; @size(32) mass: f32; hist: array<vec3<f32>, 4>"; got != want {
		t.Errorf("Particle members:\n got %s\nwant %s", got, want)
	}
	if ps.Pos != (ast.Pos{Line: 9, Col: 1}) || ps.Members[1].Pos != (ast.Pos{Line: 11, Col: 14}) {
		t.Errorf("struct positions: %v %v", ps.Pos, ps.Members[1].Pos)
	}
	if a := decls["Mat"].(*ast.AliasDecl); exprString(a.Type) != "mat4x4<f32>" {
		t.Errorf("alias Mat = %s", exprString(a.Type))
	}

	// Global variables.
	for _, c := range []struct{ name, want string }{
		{"particles", "@group(0) @binding(0) var<storage,read_write> particles: Buf"},
		{"params", "@group(0) @binding(1) var<uniform> params: Params"},
		{"img", "@group(1) @binding(0) var img: texture_storage_2d<rgba8unorm, write>"},
		{"tile", "var<workgroup> tile: array<array<f32, 16>, 16>"},
		{"seed", "var<private> seed: u32 = 0x9E37u"},
		{"scale", "@id(7) override scale: f32 = 1.5"},
		{"enabled", "override enabled: bool"},
		{"table", "const table = array<i32, select(2, 3, (1 > 0))>(1, 2, 3)"},
		{"lits", "const lits = vec4(1., .5, 1e3, 1.5e-3f)"},
		{"hexes", "const hexes = vec3(0x1p4, 0x1.8p-2, 0x.8p1h)"},
	} {
		d := decls[c.name].(*ast.VarDecl)
		got := stmtString(&ast.DeclStmt{Decl: d})
		if len(d.Attrs) > 0 {
			got = attrString(d.Attrs) + " " + got
		}
		if got != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.name, got, c.want)
		}
	}
	call := decls["ints"].(*ast.VarDecl).Init.(*ast.CallExpr)
	var kinds []string
	for _, a := range call.Args {
		l := a.(*ast.Literal)
		kinds = append(kinds, fmt.Sprintf("%s:%d:%q", l.Text, l.Kind, l.Suffix))
	}
	if got, want := strings.Join(kinds, " "), `0:1:"" 12i:1:"i" 0x1Fu:1:"u" 1f:2:"f"`; got != want {
		t.Errorf("int literals: got %s, want %s", got, want)
	}
	if l := decls["hexes"].(*ast.VarDecl).Init.(*ast.CallExpr).Args[2].(*ast.Literal); l.Kind != ast.LitFloat || l.Suffix != "h" {
		t.Errorf("0x.8p1h: %+v", l)
	}
	if ca := decls["const_assert"].(*ast.ConstAssert); exprString(ca.Cond) != "((1 + 2) == 3)" {
		t.Errorf("const_assert %s", exprString(ca.Cond))
	}

	// Functions.
	rand := decls["rand"].(*ast.FuncDecl)
	if attrString(rand.Attrs) != "@must_use" || exprString(rand.Params[0].Type) != "ptr<function, u32>" || exprString(rand.Result) != "f32" {
		t.Errorf("rand header: %s %s %s", attrString(rand.Attrs), exprString(rand.Params[0].Type), exprString(rand.Result))
	}
	wantRand := []string{
		"(* state) = (((* state) * 747796405u) + 2891336453u)",
		"let word = (paren((paren(((* state) >> paren((paren(((* state) >> 28u)) + 4u)))) ^ (* state))) * 277803737u)",
		"return (f32((paren((word >> 22u)) ^ word)) / 4294967295.0)",
	}
	for i, w := range wantRand {
		if got := stmtString(rand.Body.Stmts[i]); got != w {
			t.Errorf("rand stmt %d:\n got %s\nwant %s", i, got, w)
		}
	}
	shade := decls["shade"].(*ast.FuncDecl)
	if len(shade.Params) != 2 || attrString(shade.Params[0].Attrs) != "@location(0)" || attrString(shade.ResultAttrs) != "@location(0)" || exprString(shade.Result) != "vec4<f32>" {
		t.Errorf("shade header: %d params, result %s %s", len(shade.Params), attrString(shade.ResultAttrs), exprString(shade.Result))
	}

	main := decls["main"].(*ast.FuncDecl)
	if got := attrString(main.Attrs); got != "@compute @workgroup_size(8, 8, 1)" {
		t.Errorf("main attrs: %s", got)
	}
	if got := attrString(main.Params[0].Attrs) + " " + main.Params[0].Name + " " + attrString(main.Params[1].Attrs); got != "@builtin(global_invocation_id) gid @builtin(local_invocation_index)" {
		t.Errorf("main params: %s", got)
	}
	if _, ok := main.Params[0].Attrs[0].Args[0].(*ast.Ident); !ok {
		t.Errorf("builtin argument is %T, want *Ident", main.Params[0].Attrs[0].Args[0])
	}
	want := []string{
		"var s: u32 = gid.x",
		"let i = (gid.x + (gid.y * 8u))",
		"var p = particles[i]",
		"p.pos += (p.vel.xyz * params.dt)",
		"p.hist[0].x = (- p.pos.y)",
		"let m = mat4x4<f32>()",
		"let b = bitcast<u32>(p.mass)",
		"let q = vec2<f32>(1.0, 2.0).yx",
		"let v = array<vec3<f32>, 2>(vec3(1.0), vec3(2.0))",
		"let cmp = ((i < 3u) && (s > 2u))",
		"let both = (paren((i & 1u)) | paren((s & 2u)))",
		"let sh = (paren((i << 2u)) + 1u)",
		"let neg = ((- i32(s)) - (- 1))",
		"let notb = (! enabled)",
		"let inv = (~ s)",
		"let ptrv = (& p)",
		"let d = paren((* ptrv)).mass",
		"_ = rand((& s))",
		"s++",
		"s--",
		"s <<= 1u",
		"s >>= 1u",
		"s %= 7u",
		"tile[(lidx / 16u)][(lidx % 16u)] = p.mass",
		"call workgroupBarrier()",
		"if (i == 0u) {s = 1u} else if (i == 1u) {s = 2u} else {s = 3u}",
		"switch i [case 0u,1u: {s = 4u} | case 2u: {s = 5u} | case 3u,default: {s = 6u}]",
		"switch s [default: {}]",
		"switch s [case 1u: {} | default: {}]",
		"loop {if (s > 100u) {break}; s += 1u} continuing {s = (s * 2u)} break if (s > 1000u)",
		"loop {break}",
		"for (var k = 0u; (k < 4u); k++) {if (k == 2u) {continue}}",
		"for (; ; ) {break}",
		"for (s = 0u; (s < 2u); s += 1u) {}",
		"for (call workgroupBarrier(); ; call workgroupBarrier()) {break}",
		"while (s > 0u) {s = (s / 2u)}",
		"{const_assert true}",
		"if (s == 0u) {}",
		"{let inner = 1}",
		"const kk = 3",
		"call textureStore(img, vec2<i32>(gid.xy), vec4<f32>(p.pos, 1.0))",
		"particles[i] = p",
		"return",
	}
	for i := range max(len(want), len(main.Body.Stmts)) {
		got, w := "<missing>", "<none>"
		if i < len(main.Body.Stmts) {
			got = stmtString(main.Body.Stmts[i])
		}
		if i < len(want) {
			w = want[i]
		}
		if got != w {
			t.Errorf("main stmt %d:\n got %s\nwant %s", i, got, w)
		}
	}
	// Statement attributes are kept where the tree has room for them.
	for _, s := range main.Body.Stmts {
		if is, ok := s.(*ast.IfStmt); ok && len(is.Attrs) > 0 {
			if got := attrString(is.Attrs); got != "@diagnostic(warning, subgroup_uniformity)" {
				t.Errorf("if attrs: %s", got)
			}
		}
	}
	// A few positions: binary operators sit at the operator, members at '.'.
	let := main.Body.Stmts[1].(*ast.DeclStmt).Decl
	if let.Pos != (ast.Pos{Line: 51, Col: 3}) || let.NamePos != (ast.Pos{Line: 51, Col: 7}) {
		t.Errorf("let i at %v, name at %v", let.Pos, let.NamePos)
	}
	bin := let.Init.(*ast.BinaryExpr)
	if bin.Pos != (ast.Pos{Line: 51, Col: 17}) || bin.X.(*ast.MemberExpr).Pos != (ast.Pos{Line: 51, Col: 14}) {
		t.Errorf("'+' at %v, '.x' at %v", bin.Pos, bin.X.(*ast.MemberExpr).Pos)
	}
}

func TestParseExpressions(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{"a + b * c", "(a + (b * c))"},
		{"a * b + c * d - e", "(((a * b) + (c * d)) - e)"},
		{"a / b % c", "((a / b) % c)"},
		{"-a * b", "((- a) * b)"},
		{"-a.b[1]", "(- a.b[1])"},
		{"*p.x", "(* p.x)"},
		{"&a[0]", "(& a[0])"},
		{"!!a", "(! (! a))"},
		{"- -a", "(- (- a))"},
		{"--a", "(- (- a))"},
		{"a--b", "(a - (- b))"},
		{"a - -b", "(a - (- b))"},
		{"&&a", "(& (& a))"},
		{"a & b & c", "((a & b) & c)"},
		{"a | b | c", "((a | b) | c)"},
		{"a ^ b", "(a ^ b)"},
		{"a << b", "(a << b)"},
		{"a >> b", "(a >> b)"},
		{"(a + b) << c", "(paren((a + b)) << c)"},
		{"a << (b + c)", "(a << paren((b + c)))"},
		{"a + b < c * d", "((a + b) < (c * d))"},
		{"a == b", "(a == b)"},
		{"a != -b", "(a != (- b))"},
		{"a <= b", "(a <= b)"},
		{"a >= b", "(a >= b)"},
		{"a < b && c > d", "((a < b) && (c > d))"},
		{"a && b && c", "((a && b) && c)"},
		{"a || b || c", "((a || b) || c)"},
		{"a << b < c", "((a << b) < c)"},
		{"i < 3 && j > 2", "((i < 3) && (j > 2))"},
		{"a<b>(c)", "a<b>(c)"},
		{"a < b || c > d", "((a < b) || (c > d))"},
		{"array<i32,select(2,3,a>b)>()", "array<i32, select(2, 3, (a > b))>()"},
		{"A<B<<C>()", "A<(B << C)>()"},
		{"A<B<=C>()", "A<(B <= C)>()"},
		{"A<(B>=C)>()", "A<paren((B >= C))>()"},
		{"A<(B!=C)>()", "A<paren((B != C))>()"},
		{"A<(B==C)>()", "A<paren((B == C))>()"},
		{"a[b<d]>c", "(a[(b < d)] > c)"},
		{"vec3<f32>(1.0).xyz.x", "vec3<f32>(1.0).xyz.x"},
		{"array<vec3<f32>,4>()", "array<vec3<f32>, 4>()"},
		{"array<array<u32, 2>, 2>()", "array<array<u32, 2>, 2>()"},
		{"f(a, b,)", "f(a, b)"},
		{"vec2<f32,>(1.0)", "vec2<f32>(1.0)"},
		{"m[0][1]", "m[0][1]"},
		{"s.arr[i].x", "s.arr[i].x"},
		{"bitcast<u32>(1.0)", "bitcast<u32>(1.0)"},
		{"a>>b", "(a >> b)"},
		{"x<y", "(x < y)"},
		{"true != false", "(true != false)"},
		{"~0u & 0xffu", "((~ 0u) & 0xffu)"},
		{"Δέλτα + 朝焼け", "(Δέλτα + 朝焼け)"},
		{"_a + a_", "(_a + a_)"},
	} {
		m, errs := parse([]byte("const x = "+c.src+";"), "")
		if len(errs) > 0 {
			t.Errorf("%s: %v", c.src, errs)
			continue
		}
		if got := exprString(m.Decls[0].(*ast.VarDecl).Init); got != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.src, got, c.want)
		}
	}
}

func TestParseLiterals(t *testing.T) {
	for _, c := range []struct {
		src    string
		kind   ast.LitKind
		suffix string
	}{
		{"0", ast.LitInt, ""}, {"0i", ast.LitInt, "i"}, {"0u", ast.LitInt, "u"},
		{"123", ast.LitInt, ""}, {"123u", ast.LitInt, "u"}, {"0x123", ast.LitInt, ""},
		{"0X123u", ast.LitInt, "u"}, {"0x3f", ast.LitInt, ""}, {"0x1f", ast.LitInt, ""},
		{"0xABCi", ast.LitInt, "i"},
		{"0f", ast.LitFloat, "f"}, {"0h", ast.LitFloat, "h"}, {"1f", ast.LitFloat, "f"},
		{"120h", ast.LitFloat, "h"}, {"1.", ast.LitFloat, ""}, {".5", ast.LitFloat, ""},
		{"01.", ast.LitFloat, ""}, {"00.5", ast.LitFloat, ""}, {".0f", ast.LitFloat, "f"},
		{"12.34", ast.LitFloat, ""}, {"1e3", ast.LitFloat, ""}, {"1E3", ast.LitFloat, ""},
		{"01e3", ast.LitFloat, ""}, {"1.5e-3", ast.LitFloat, ""}, {"0.e+4f", ast.LitFloat, "f"},
		{"1e5h", ast.LitFloat, "h"}, {"1.2f", ast.LitFloat, "f"},
		{"0x1p4", ast.LitFloat, ""}, {"0x1.8p-2", ast.LitFloat, ""}, {"0x.8p1", ast.LitFloat, ""},
		{"0xa.fp+2", ast.LitFloat, ""}, {"0x1P+4f", ast.LitFloat, "f"}, {"0X.3", ast.LitFloat, ""},
		{"0x3p+2h", ast.LitFloat, "h"}, {"0X1.fp-4", ast.LitFloat, ""}, {"0x3.2p+2h", ast.LitFloat, "h"},
		{"0x1.", ast.LitFloat, ""}, {"0x1.0p10f", ast.LitFloat, "f"},
	} {
		m, errs := parse([]byte("const x = "+c.src+";"), "")
		if len(errs) > 0 {
			t.Errorf("%s: %v", c.src, errs)
			continue
		}
		l, ok := m.Decls[0].(*ast.VarDecl).Init.(*ast.Literal)
		if !ok {
			t.Errorf("%s: got %s", c.src, exprString(m.Decls[0].(*ast.VarDecl).Init))
			continue
		}
		if l.Text != c.src || l.Kind != c.kind || l.Suffix != c.suffix {
			t.Errorf("%s: got text %q kind %d suffix %q, want kind %d suffix %q", c.src, l.Text, l.Kind, l.Suffix, c.kind, c.suffix)
		}
	}
}

// TestParseTemplateDiscovery checks the template list discovery on the
// token stream: ‹ and › mark template list delimiters.
func TestParseTemplateDiscovery(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{"a<b>(c)", "a ‹ b › ( c )"},
		{"i < 3 && j > 2", "i < 3 && j > 2"},
		{"a<b || c>d", "a < b || c > d"},
		{"A ( B < C, D > ( E ) )", "A ( B ‹ C , D › ( E ) )"},
		{"array<i32,select(2,3,a>b)>", "array ‹ i32 , select ( 2 , 3 , a > b ) ›"},
		{"a[b<d]>()", "a [ b < d ] > ( )"},
		{"A<B<<C>", "A ‹ B << C ›"},
		{"A<B<=C>", "A ‹ B <= C ›"},
		{"A<(B>=C)>", "A ‹ ( B >= C ) ›"},
		{"A<(B!=C)>", "A ‹ ( B != C ) ›"},
		{"A<(B==C)>", "A ‹ ( B == C ) ›"},
		{"array<vec3<f32>>", "array ‹ vec3 ‹ f32 › ›"},
		{"var<private> v: vec2<f32>=x;", "var ‹ private › v : vec2 ‹ f32 › = x ;"},
		{"a>>=b; c<<=d; e>=f", "a >>= b ; c <<= d ; e >= f"},
		{"fn f() -> vec4<f32> {}", "fn f ( ) -> vec4 ‹ f32 › { }"},
		{"x = a<b>>c;", "x = a ‹ b › > c ;"},
		{"a<b>=c", "a ‹ b › = c"},
		{"a<b>==c", "a ‹ b › == c"},
		{"x<y; z>w", "x < y ; z > w"},
		{"1.0f<a>b", "1.0f < a > b"},
	} {
		toks, errs := lex(c.src, "")
		if len(errs) > 0 {
			t.Errorf("%s: %v", c.src, errs)
		}
		var parts []string
		for _, tk := range toks {
			switch tk.kind {
			case tEOF:
			case tTmplStart:
				parts = append(parts, "‹")
			case tTmplEnd:
				parts = append(parts, "›")
			default:
				parts = append(parts, tk.text(c.src))
			}
		}
		if got := strings.Join(parts, " "); got != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.src, got, c.want)
		}
	}
}

func TestParseBlankspaceAndLines(t *testing.T) {
	// Every line break of the specification counts one line; CR LF is one.
	for _, c := range []struct {
		sep  string
		line int
	}{
		{"\n", 2}, {"\r\n", 2}, {"\r", 2}, {"\v", 2}, {"\f", 2},
		{"\u0085", 2}, {"\u2028", 2}, {"\u2029", 2}, {"\n\r\n\r", 4},
		{"\u200e", 1}, {"\u200f \t", 1},
	} {
		src := "const a = 1;" + c.sep + "const b = $;"
		_, errs := parse([]byte(src), "")
		if len(errs) != 1 || errs[0].Line != c.line {
			t.Errorf("separator %q: got %v, want one error on line %d", c.sep, errs, c.line)
		}
	}
	// Comments.
	mustParse(t, "// line comment\nconst a = 1; // trailing\n/* a /* nested /* deeper */ */ block */ const b = 2;\n// no newline at end")
	mustParse(t, "const/**/a=1;const b/*\n*/=/**/2;")
	m := mustParse(t, "const a = 1;\u2028// comment\u2028const b = 2;")
	if d := m.Decls[1].(*ast.VarDecl); d.Pos.Line != 3 {
		t.Errorf("const b on line %d, want 3", d.Pos.Line)
	}
}

func TestParseErrors(t *testing.T) {
	for _, c := range []struct {
		name      string
		src       string
		line, col int
		msg, rule string
	}{
		{"unterminated comment", "const x = 1;\n  /* a /* b */ c", 2, 3, "unterminated block comment", "comments"},
		{"unterminated nested comment", "/* /* */", 1, 1, "unterminated block comment", "comments"},
		{"reserved word", "const class = 1;", 1, 7, "'class' is a reserved word in WGSL", "reserved words"},
		{"reserved word in expression", "fn f() { let x = typeof(1); }", 1, 18, "'typeof' is a reserved word in WGSL", "reserved words"},
		{"missing semicolon", "fn f() {\n  var x = 1\n}", 3, 1, "expected ';' after the variable declaration, found '}'", "syntax: variable_or_value_statement"},
		{"missing semicolon global", "const x = 1\nconst y = 2;", 2, 1, "expected ';' after the 'const' declaration, found 'const'", "syntax: global_value_decl"},
		{"missing semicolon at end of input", "fn f() { return 1", 1, 18, "expected ';' after the return statement, found end of input", "syntax: return_statement"},
		{"mixing & and |", "const x = a & b | c;", 1, 17, "operators '&' and '|' cannot be mixed without parentheses", "syntax: bitwise_expression"},
		{"mixing | and &", "const x = a | b & c;", 1, 17, "'|' and '&'", "syntax: bitwise_expression"},
		{"mixing & and +", "const x = a & b + c;", 1, 17, "'&' and '+'", "syntax: bitwise_expression"},
		{"mixing + and &", "const x = a + b & c;", 1, 17, "'+' and '&'", "syntax: bitwise_expression"},
		{"mixing == and ^", "const x = a == b ^ c;", 1, 18, "'==' and '^'", "syntax: bitwise_expression"},
		{"shift then add", "const x = a << b + c;", 1, 18, "operators '<<' and '+' cannot be mixed without parentheses", "syntax: shift_expression"},
		{"add then shift", "const x = a + b << c;", 1, 17, "'+' and '<<'", "syntax: shift_expression"},
		{"mul then shift", "const x = a * b >> c;", 1, 17, "'*' and '>>'", "syntax: shift_expression"},
		{"chained shift", "const x = a << b << c;", 1, 18, "shifts cannot be chained", "syntax: shift_expression"},
		{"chained comparison", "const x = a < b < c;", 1, 17, "comparisons cannot be chained", "syntax: relational_expression"},
		{"chained equality", "const x = a == b != c;", 1, 18, "comparisons cannot be chained", "syntax: relational_expression"},
		{"mixing && and ||", "const x = a && b || c;", 1, 18, "'&&' and '||'", "syntax: expression"},
		{"mixing || and &&", "const x = a || b && c;", 1, 18, "'||' and '&&'", "syntax: expression"},
		{"mixing & and &&", "const x = a & b && c;", 1, 17, "'&' and '&&'", "syntax: bitwise_expression"},
		{"bad hex literal", "const x = 0x;", 1, 11, "invalid numeric literal '0x'", "literals"},
		{"bad exponent", "const x = 1e;", 1, 11, "invalid numeric literal '1e': the exponent has no digits", "literals"},
		{"bad exponent sign", "const x = 1.5e+;", 1, 11, "invalid numeric literal '1.5e'", "literals"},
		{"bad hex exponent", "const x = 0x1p;", 1, 11, "invalid numeric literal '0x1p': the exponent has no digits", "literals"},
		{"leading zero", "const x = 08;", 1, 11, "invalid numeric literal '08': leading zeros are not allowed", "literals"},
		{"leading zero float suffix", "const x = 01f;", 1, 11, "invalid numeric literal '01f'", "literals"},
		{"bad suffix", "const x = 1.5q;", 1, 11, "invalid numeric literal '1.5q': 'q' is not a valid suffix", "literals"},
		{"bad int suffix", "const x = 0x1h;", 1, 11, "'h' is not a valid suffix", "literals"},
		{"double underscore", "const __x = 1;", 1, 7, "identifier '__x' must not start with '__'", "identifiers"},
		{"lone underscore", "fn f() { let _ = 1; }", 1, 14, "found '_'", "syntax: variable_or_value_statement"},
		{"stray brace", "fn f() {\n}\n}\nconst x = 1;", 3, 1, "unexpected '}'", "syntax: global_decl"},
		{"stray brace 2", "}", 1, 1, "unexpected '}'", "syntax: global_decl"},
		{"unknown attribute", "@foo fn f() {}", 1, 1, "unknown attribute '@foo'", "attributes"},
		{"unknown attribute with args", "@foo(1, 2) @compute @workgroup_size(1) fn f() {}", 1, 1, "unknown attribute '@foo'", "attributes"},
		{"attribute without args", "@compute() fn f() {}", 1, 9, "attribute '@compute' does not take arguments", "syntax: attribute"},
		{"attribute missing args", "@group var x: i32;", 1, 8, "expected '(' after '@group', found 'var'", "syntax: attribute"},
		{"attribute empty args", "@group() var x: i32;", 1, 8, "expected an argument for '@group', found ')'", "syntax: attribute"},
		{"attribute too many args", "@workgroup_size(1, 2, 3, 4) fn f() {}", 1, 26, "too many arguments for '@workgroup_size'", "syntax: attribute"},
		{"builtin needs a name", "fn f(@builtin(1) x: u32) {}", 1, 15, "expected a name in '@builtin', found '1'", "syntax: attribute"},
		{"unclosed template", "var<private> x: array<f32, 4;", 1, 22, "'<' after 'array' does not start a template list", "syntax: template_list"},
		{"unclosed var template", "var<private x: f32;", 1, 4, "'<' after 'var' does not start a template list", "syntax: template_list"},
		{"empty template", "var<private> x: vec3<>;", 1, 22, "expected a template argument, found '>'", "syntax: template_list"},
		{"bad var template", "var<private, read, x> v: f32;", 1, 20, "too many arguments in the 'var' template list", "syntax: variable_decl"},
		{"let at module scope", "let x = 1;", 1, 1, "'let' declarations are only allowed inside functions", "syntax: global_decl"},
		{"const without init", "const x: i32;", 1, 13, "expected '=' after the type (a 'const' declaration needs an initializer), found ';'", "syntax: variable_or_value_statement"},
		{"keyword as name", "fn loop() {}", 1, 4, "expected a name after 'fn', found keyword 'loop'", "syntax: function_decl"},
		{"keyword as type", "var<private> x: loop;", 1, 17, "expected a type after ':', found keyword 'loop'", "syntax: type_specifier"},
		{"break if outside continuing", "fn f() { loop { break if true; } }", 1, 17, "'break if' is only allowed as the last statement of a 'continuing' block", "syntax: break_if_statement"},
		{"break if not last", "fn f() { loop { continuing { break if true; let x = 1; } } }", 1, 45, "'break if' must be the last statement", "syntax: continuing_compound_statement"},
		{"statement after continuing", "fn f() { loop { continuing { } let x = 1; } }\nconst y = 1;", 1, 32, "the continuing block must be the last part of a loop", "syntax: loop_statement"},
		{"continuing outside loop", "fn f() { continuing {} }", 1, 10, "'continuing' is only allowed at the end of a 'loop' body", "syntax: continuing_statement"},
		{"else without if", "fn f() { else {} }", 1, 10, "'else' without a matching 'if'", "syntax: if_statement"},
		{"case outside switch", "fn f() { case 1: {} }", 1, 10, "only allowed directly inside a switch body", "syntax: switch_statement"},
		{"empty switch", "fn f() { switch 1 {} }", 1, 20, "expected 'case' or 'default' in the switch body, found '}'", "syntax: switch_body"},
		{"case without block", "fn f() { switch 1 { case 1: x = 1; } }", 1, 29, "expected '{' after the case selectors, found 'x'", "syntax: switch_clause"},
		{"empty struct", "struct S {}", 1, 11, "expected a struct member, found '}'", "syntax: struct_decl"},
		{"struct semicolons", "struct S { a: i32; b: f32 }", 1, 18, "found ';' (struct members are separated by ',')", "syntax: struct_decl"},
		{"struct missing comma", "struct S { a: i32 b: f32 }", 1, 19, "expected ',' or '}' after the struct member, found 'b'", "syntax: struct_decl"},
		{"attributes on const", "@id(1) const x = 1;", 1, 1, "attributes are not allowed on 'const' declarations", "syntax: global_decl"},
		{"attribute on let statement", "fn f() { @diagnostic(off, x) let y = 1; }", 1, 30, "expected '{', 'if', 'switch', 'loop', 'for' or 'while' after the statement attributes, found 'let'", "syntax: statement"},
		{"non-diagnostic statement attribute", "fn f() { @compute { } }", 1, 10, "attribute '@compute' is not allowed here", "attributes"},
		{"bad severity", "diagnostic(loud, derivative_uniformity);", 1, 12, "unknown diagnostic severity 'loud'", "diagnostics"},
		{"directive after declaration", "const x = 1;\nenable f16;", 2, 1, "the 'enable' directive must come before all global declarations", "syntax: global_directive"},
		{"invalid character", "const x = 1 $ 2;", 1, 13, "invalid character '$'", "syntax: tokens"},
		{"invalid control character", "const x = 1;\x01", 1, 13, "invalid character U+0001", "syntax: tokens"},
		{"invalid utf8", "const x = \xff;", 1, 11, "invalid UTF-8", "syntax: tokens"},
		{"missing brace before fn", "fn f() {\n  if true {\n    let y = 2;\n\nfn g() {}", 5, 1, "expected '}' to close the block that starts at 2:11, found 'fn'", "syntax: compound_statement"},
		{"byte order mark", "\uFEFFconst x = $;", 1, 11, "invalid character '$'", "syntax: tokens"},
		{"misplaced byte order mark", "const x = 1;\uFEFF", 1, 13, "invalid character U+FEFF", "syntax: tokens"},
		{"comparison pair is a template", "fn f() { g(a < b, c > d); }", 1, 23, "expected ',' or ')' in the argument list that starts at 1:11, found 'd'", "syntax: argument_expression_list"},
		{"truncated function", "fn f(", 1, 6, "expected a name for the parameter, found end of input", "syntax: param"},
		{"truncated block", "fn f() {\n  let x = 1;\n", 3, 1, "expected '}' to close the block that starts at 1:8, found end of input", "syntax: compound_statement"},
		{"missing paren", "fn f() { let x = (1 + 2; }", 1, 24, "expected ')' to close the parenthesised expression, found ';'", "syntax: paren_expression"},
		{"missing bracket", "fn f() { let x = a[1; }", 1, 21, "expected ']' to close the index expression, found ';'", "syntax: component_or_swizzle_specifier"},
		{"missing expression", "fn f() { let x = ; }", 1, 18, "expected an expression, found ';'", "syntax: primary_expression"},
		{"keyword in expression", "fn f() { let x = 1 + loop; }", 1, 22, "expected an expression, found keyword 'loop'", "syntax: primary_expression"},
		{"call args", "fn f() { g(1 2); }", 1, 14, "expected ',' or ')' in the argument list that starts at 1:11, found '2'", "syntax: argument_expression_list"},
		{"not a statement", "fn f() { 1 + 2; }", 1, 10, "expected a statement, found '1'", "syntax: statement"},
		{"expression statement", "fn f() { x; }", 1, 11, "expected '=', a compound assignment, '++' or '--' after the expression, found ';'", "syntax: variable_updating_statement"},
		{"phony compound", "fn f() { _ += 1; }", 1, 12, "expected '=' after '_', found '+='", "syntax: assignment_statement"},
		{"for without paren", "fn f() { for i = 0; i < 1; i++ {} }", 1, 14, "expected '(' after 'for', found 'i'", "syntax: for_statement"},
		{"member keyword", "fn f() { let x = a.loop; }", 1, 20, "expected a member name or swizzle after '.', found keyword 'loop'", "syntax: component_or_swizzle_specifier"},
		{"global junk", "hello;", 1, 1, "expected a global declaration ('fn', 'var', 'const', 'override', 'alias', 'struct' or 'const_assert'), found 'hello'", "syntax: global_decl"},
		{"fn without body", "fn f() -> i32;", 1, 14, "expected '{' for the function body, found ';'", "syntax: function_decl"},
		{"nesting too deep", "const x = " + strings.Repeat("(", 200) + "1" + strings.Repeat(")", 200) + ";", 1, 139, "nesting too deep", "limits"},
		{"nesting too deep unary", "const x = " + strings.Repeat("-", 300) + "1;", 1, 139, "nesting too deep", "limits"},
		{"nesting too deep blocks", "fn f() " + strings.Repeat("{", 300) + strings.Repeat("}", 300), 1, 136, "nesting too deep", "limits"},
		{"nesting too deep templates", "alias T = " + strings.Repeat("array<", 200) + "f32" + strings.Repeat(">", 200) + ";", 1, 401, "nesting too deep", "limits"},
	} {
		_, errs := parse([]byte(c.src), "bad.wgsl")
		if len(errs) == 0 {
			t.Errorf("%s: no error", c.name)
			continue
		}
		e := errs[0]
		if e.File != "bad.wgsl" || e.Line != c.line || e.Col != c.col || !strings.Contains(e.Msg, c.msg) || e.Rule != c.rule {
			t.Errorf("%s: got\n  %v\nwant\n  bad.wgsl:%d:%d: ...%s... [%s]", c.name, errs, c.line, c.col, c.msg, c.rule)
		}
	}
}

func TestParseErrorRecovery(t *testing.T) {
	src := `const a = 1
fn f() {
  let x = (1 + ;
  let y = 2;
  y = y + ;
  var z: i32 = 08;
}
struct S { a: i32 b: f32 }
fn g() -> { }
const ok = 1;
`
	m, errs := parse([]byte(src), "")
	var got []string
	for _, e := range errs {
		got = append(got, fmt.Sprintf("%d:%d", e.Line, e.Col))
		if e.File != "<wgsl>" {
			t.Errorf("file %q, want <wgsl>", e.File)
		}
	}
	if want := "2:1 3:16 5:11 6:16 8:19 9:11"; strings.Join(got, " ") != want {
		t.Errorf("error positions: got %s, want %s\n%v", strings.Join(got, " "), want, errs)
	}
	// The module is partial but still holds the good declarations.
	if m == nil || len(m.Decls) == 0 {
		t.Fatalf("no partial module")
	}
	if d, ok := m.Decls[len(m.Decls)-1].(*ast.VarDecl); !ok || d.Name != "ok" {
		t.Errorf("last declaration %T", m.Decls[len(m.Decls)-1])
	}

	// The number of errors is capped.
	var b strings.Builder
	b.WriteString("fn f() {\n")
	for range 100 {
		b.WriteString("  let = 1;\n")
	}
	b.WriteString("}\n")
	_, errs = parse([]byte(b.String()), "")
	if len(errs) != 20 {
		t.Errorf("got %d errors, want 20", len(errs))
	}
	for i := 1; i < len(errs); i++ {
		if errs[i].Line < errs[i-1].Line {
			t.Errorf("errors out of order: %v", errs)
		}
	}
}

// TestParseTruncated parses every prefix of a valid program: none may
// panic, and each must report an error unless it ends between two global
// declarations.
func TestParseTruncated(t *testing.T) {
	chunks := []string{
		"enable f16;",
		"diagnostic(off, derivative_uniformity);",
		"struct P { /* header */ a: vec3<f32>, @size(16) b: array<u32, 4>, }",
		"alias V = vec4<f32>;",
		"@group(0) @binding(0) var<storage, read_write> buf: array<P>;",
		"override k: f32 = 1.5e-3f;",
		"const c = array<i32, 2>(0x1Fi, 2);",
		"const_assert c[0] >= 0;",
		`@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
  // comment
  var s = 0u;
  for (var i = 0u; i < 4u && s >= 0u; i++) {
    s += buf[id.x].b[i] << 1u;
  }
  switch s { case 1u, 2u: { s = 0u; } default { } }
  loop { continuing { break if s > 0x10u; } }
  if (s & 1u) == 0u { s = ~s; } else if s < 2u { _ = s; } else { s--; }
  while s > 0u { s = s >> 1u; }
  let v = vec2<f32>(1.0, -.5).yx;
  buf[0].a = vec3(f32(s) * v.x, 0.0, 0h);
  /* trailing /* nested */ comment */
}`,
	}
	src := strings.Join(chunks, "\n")
	mustParse(t, src)
	ends := map[int]bool{0: true}
	n := 0
	for _, c := range chunks {
		n += len(c)
		ends[n] = true
		n++ // the newline
	}
	for i := 0; i <= len(src); i++ {
		prefix := src[:i]
		_, errs := parse([]byte(prefix), "")
		trimmed := len(strings.TrimRight(prefix, " \n"))
		if ends[trimmed] {
			if len(errs) > 0 {
				t.Errorf("prefix ending at %d (%q): unexpected errors %v", i, prefix[max(0, i-20):], errs)
			}
			continue
		}
		if len(errs) == 0 {
			t.Errorf("prefix ending at %d (...%q): no error", i, prefix[max(0, i-20):])
		}
		for _, e := range errs {
			if e.Line < 1 || e.Col < 1 || e.Msg == "" || e.Rule == "internal" {
				t.Errorf("prefix ending at %d: bad error %v", i, e)
			}
		}
	}
}

func TestParseNeverHangs(t *testing.T) {
	// Pathological inputs must finish quickly and report errors.
	for _, src := range []string{
		strings.Repeat("(", 100000),
		strings.Repeat("{", 100000),
		strings.Repeat("}", 1000),
		strings.Repeat("@", 1000),
		strings.Repeat("fn f(", 1000),
		"fn f() {" + strings.Repeat("let x = ((((", 10000),
		strings.Repeat("a<", 10000) + strings.Repeat(">", 10000),
		"const x = " + strings.Repeat("-", 100000) + "1;",
		"fn f() { " + strings.Repeat("*", 100000) + "p = 1; }",
		"fn f() { " + strings.Repeat("if x {} else ", 5000) + "{} }",
		strings.Repeat("/*", 1000),
		"struct S {" + strings.Repeat(";", 1000),
		"fn f() { switch x {" + strings.Repeat("case", 1000),
		"fn f() { loop { continuing {" + strings.Repeat("break if", 1000),
	} {
		_, errs := parse([]byte(src), "")
		if len(errs) == 0 && !strings.HasPrefix(src, "fn f() { if") {
			t.Errorf("%.40q...: no errors", src)
		}
		if len(errs) > 20 {
			t.Errorf("%.40q...: %d errors", src, len(errs))
		}
	}
}

// BenchmarkParse100 parses the 100-line compute shader that the shader
// package benchmarks compile, when it is there.
func BenchmarkParse100(b *testing.B) {
	src, err := os.ReadFile("../testdata/bench100.wgsl")
	if err != nil {
		b.Skip(err)
	}
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		if _, errs := parse(src, ""); errs != nil {
			b.Fatal(errs)
		}
	}
}

func BenchmarkParse(b *testing.B) {
	src := []byte(bigShader)
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		if _, errs := parse(src, ""); errs != nil {
			b.Fatal(errs)
		}
	}
}

// specReservedWords is the WGSL specification's list of reserved words
// (wgsl/wgsl.reserved.bs.include in github.com/gpuweb/gpuweb), copied here
// so that the lexer's table is checked against it.
const specReservedWords = `NULL Self abstract active alignas alignof as asm asm_fragment async
attribute auto await become cast catch class co_await co_return co_yield coherent
column_major common compile compile_fragment concept const_cast consteval constexpr
constinit crate debugger decltype delete demote demote_to_helper do dynamic_cast enum
explicit export extends extern external fallthrough filter final finally friend from
fxgroup get goto groupshared highp impl implements import inline instanceof interface
layout lowp macro macro_rules match mediump meta mod module move mut mutable namespace
new nil noexcept noinline nointerpolation non_coherent noncoherent noperspective null
nullptr of operator package packoffset partition pass patch pixelfragment precise
precision premerge priv protected pub public readonly ref regardless register
reinterpret_cast require resource restrict self set shared sizeof smooth snorm static
static_assert static_cast std subroutine super target template this thread_local throw
trait try type typedef typeid typename typeof union unless unorm unsafe unsized use
using varying virtual volatile wgsl where with writeonly yield`

// TestReservedWords checks that every reserved word is rejected wherever
// an identifier is declared or used (the words GLSL also reserves, such
// as filter, common, active, partition, shared and smooth, included), and
// that the lexer's table is the specification's list.
func TestReservedWords(t *testing.T) {
	spec := strings.Fields(specReservedWords)
	for _, w := range spec {
		if wordClass(w) != wordReserved {
			t.Errorf("%q is a reserved word, but the lexer classifies it as %d", w, wordClass(w))
		}
	}
	n := 0
	for w, class := range wgslWords {
		if class == wordReserved {
			n++
			if !strings.Contains(" "+strings.Join(spec, " ")+" ", " "+w+" ") {
				t.Errorf("the lexer reserves %q, which the specification does not", w)
			}
		}
	}
	if n != len(spec) {
		t.Errorf("the lexer has %d reserved words, the specification %d", n, len(spec))
	}
	// W is the word; every position is an identifier being declared or used.
	positions := []string{
		"@group(0) @binding(0) var<uniform> W: f32;",
		"@group(0) @binding(0) var<storage, read_write> W: array<u32>;",
		"@group(0) @binding(0) var W: texture_2d<f32>;",
		"var<private> W: i32;",
		"var<workgroup> W: array<u32, 4>;",
		"const W = 1;",
		"override W: u32;",
		"alias W = u32;",
		"struct W { a: u32 }",
		"struct S { W: u32 }",
		"fn W() {}",
		"fn f(W: u32) {}",
		"fn f() -> W { }",
		"fn f() { let W = 1; }",
		"fn f() { var W = 1; }",
		"fn f() { const W = 1; }",
		"fn f() { for (var W = 0; W < 4; W++) {} }",
		"fn f() { let x = W; }",
		"fn f() { W = 1; }",
		"fn f() { W(); }",
		"fn f() { let x = W(1); }",
		"fn f() { let x = s.W; }",
		"fn f() { let x = a[W]; }",
		"fn f() { let x = array<W, 4>(); }",
		"fn f() { let x = vec2<W>(); }",
		"var<private> x: W;",
		"var<private> x: array<u32, W>;",
		"var<W> x: u32;",
		"@compute @workgroup_size(W) fn f() {}",
		"@group(W) @binding(0) var<uniform> u: f32;",
		"const_assert W;",
		"fn f() { switch W { default {} } }",
		"fn f(p: ptr<function, W>) {}",
	}
	for _, w := range spec {
		for _, pos := range positions {
			src := strings.ReplaceAll(pos, "W", w)
			col := strings.Index(pos, "W") + 1
			_, errs := parse([]byte(src), "r.wgsl")
			if len(errs) == 0 {
				t.Errorf("%s: no error", src)
				continue
			}
			if e := errs[0]; e.Line != 1 || e.Col != col || e.Rule != "reserved words" || !strings.Contains(e.Msg, "'"+w+"' is a reserved word") {
				t.Errorf("%s: first error %v, want 1:%d: '%s' is a reserved word [reserved words]", src, e, col, w)
			}
		}
	}
	// Near misses stay identifiers.
	for _, w := range []string{"filters", "commonly", "Active", "partition_", "shared2", "smoothstep", "_shared", "Smooth"} {
		if _, errs := parse([]byte("var<private> "+w+": i32;\nfn f() { "+w+" = 1; }"), "ok.wgsl"); len(errs) > 0 {
			t.Errorf("%s: %v", w, errs)
		}
	}
}

// TestOperatorMixing checks that different bitwise operators, and && with
// ||, are not mixed without parentheses (bitwise_expression is a chain of
// one operator; short_circuit_or_expression and
// short_circuit_and_expression of '||' and '&&' alone), wherever an
// expression appears, while chains of one operator and parenthesised
// mixes parse.
func TestOperatorMixing(t *testing.T) {
	contexts := []string{
		"const k = E;",
		"override o: u32 = E;",
		"var<private> p: u32 = E;",
		"const_assert E;",
		"@compute @workgroup_size(E) fn m() {}",
		"var<workgroup> w: array<u32, (E)>;", // '&&' and '||' end template list discovery
		"fn f() { let x = E; }",
		"fn f() { var x: u32; x = E; }",
		"fn f() { var x: u32; x |= E; }",
		"fn f() { _ = E; }",
		"fn f() { if E {} }",
		"fn f() { if (E) {} else if E {} }",
		"fn f() { while E {} }",
		"fn f() { for (var i = E; E; i += E) {} }",
		"fn f() { switch E { case E: {} default {} } }",
		"fn f() -> u32 { return E; }",
		"fn f() { loop { continuing { break if E; } } }",
		"fn f() { let v = vec2(1, E); }",
		"fn f() { let v = s[E].m; }",
		"fn f() { g(E); }",
		"fn f() { let v = bitcast<u32>(E); }",
		"fn f() { let x = -(E); }",
		"fn f() { let x = array<u32, (E)>(); }",
	}
	for _, c := range []struct{ expr, op1, op2, rule string }{
		{"a ^ b | c", "^", "|", "syntax: bitwise_expression"},
		{"a | b ^ c", "|", "^", "syntax: bitwise_expression"},
		{"a & b ^ c", "&", "^", "syntax: bitwise_expression"},
		{"a ^ b & c", "^", "&", "syntax: bitwise_expression"},
		{"a & b | c", "&", "|", "syntax: bitwise_expression"},
		{"a | b & c", "|", "&", "syntax: bitwise_expression"},
		{"a | b | c ^ d", "|", "^", "syntax: bitwise_expression"},
		{"a || b && c", "||", "&&", "syntax: expression"},
		{"a && b || c", "&&", "||", "syntax: expression"},
		{"a < b || c && d", "||", "&&", "syntax: expression"},
		{"a && b && c || d", "&&", "||", "syntax: expression"},
	} {
		for _, ctx := range contexts {
			src := strings.ReplaceAll(ctx, "E", c.expr)
			_, errs := parse([]byte(src), "m.wgsl")
			if len(errs) == 0 {
				t.Errorf("%s: no error", src)
				continue
			}
			want := "operators '" + c.op1 + "' and '" + c.op2 + "' cannot be mixed without parentheses"
			if e := errs[0]; e.Rule != c.rule || !strings.Contains(e.Msg, want) {
				t.Errorf("%s: first error %v, want %s [%s]", src, e, want, c.rule)
			}
		}
	}
	for _, e := range []string{"a ^ b ^ c", "a | b | c", "a & b & c", "a || b || c", "a && b && c",
		"(a ^ b) | c", "a ^ (b | c)", "(a || b) && c", "a || (b && c)", "a < b && c > d", "a == b || c != d", "~a & -b", "!a || !b"} {
		for _, ctx := range contexts {
			src := strings.ReplaceAll(ctx, "E", e)
			if _, errs := parse([]byte(src), "ok.wgsl"); len(errs) > 0 {
				t.Errorf("%s: %v", src, errs)
			}
		}
	}
}
