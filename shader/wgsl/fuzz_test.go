package wgsl

import (
	"github.com/gfxcuda/gfxcuda/shader/wgsl/internal/ast"

	"bytes"
	"fmt"
	"strings"
	"testing"
)

// fuzzSeeds are valid and invalid programs for FuzzParse.
var fuzzSeeds = []string{
	bigShader,
	"",
	"enable f16;\nconst x = 1.5h;",
	`@group(0) @binding(0) var<storage, read_write> data: array<u32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
  let i = id.x;
  if i < arrayLength(&data) && i > 0u { data[i] = data[i - 1u] << 1u; }
}`,
	"fn f() { loop { continuing { break if a<b>(c) > d; } } }",
	"const a = array<vec3<f32>,select(2,3,x>y)>();",
	"fn f() { switch x { case 1, 2, default: {} case 3 {} } }",
	"fn f() { for (var i = 0; i < 4; i++) { x >>= 1u; _ = y; } }",
	"/* unterminated /* nested */",
	"const __x = 0x;",
	"const x = a & b | c << d + e < f < g;",
	"fn f() { let x = (((1 + ; }",
	"struct S { a: i32; b: f32 }",
	"@foo(1) @compute() fn f(@builtin(1) x: u32) -> {",
	"}}}{{{",
	"var<private x: array<f32, 4;",
	"const x = 1e; const y = 08; const z = 0x1p; const w = 1.5q;",
	"fn f() { a--b; --c; &&d = 1; x = a--b; }",
	"const c\u2028= 1;\u0085const d = \xff;",
	"diagnostic(loud, x.y); enable; requires a,;",
}

// FuzzParse checks that parse never panics, never hangs, and reports
// well-formed errors; and that an error-free parse yields a complete tree.
//
// Note for the checker/translator: this target deliberately calls only
// parse. Once Translate is written it may be extended to also call
// Translate(data, Options{}) on every input, asserting that it never
// panics and that its errors are an ErrorList with the same properties.
func FuzzParse(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		m, errs := parse(data, "fuzz.wgsl")
		checkParseResult(t, data, m, errs)
	})
}

// TestParseFuzzSeeds runs the fuzz seeds and mutations of them as a plain
// test.
func TestParseFuzzSeeds(t *testing.T) {
	for _, s := range fuzzSeeds {
		data := []byte(s)
		m, errs := parse(data, "fuzz.wgsl")
		checkParseResult(t, data, m, errs)
		// Delete, duplicate and swap bytes around every position.
		for i := 0; i < len(data); i += 1 + len(data)/200 {
			for _, mut := range [][]byte{
				append(append([]byte{}, data[:i]...), data[i+1:]...),
				append(append([]byte{}, data[:i+1]...), data[i:]...),
				append(append(append([]byte{}, data[:i]...), '<'), data[i:]...),
				append(append(append([]byte{}, data[:i]...), '>'), data[i:]...),
				append(append(append([]byte{}, data[:i]...), '('), data[i:]...),
				append(append(append([]byte{}, data[:i]...), '}'), data[i:]...),
			} {
				m, errs := parse(mut, "fuzz.wgsl")
				checkParseResult(t, mut, m, errs)
			}
		}
	}
}

func checkParseResult(t *testing.T, data []byte, m *ast.Module, errs ErrorList) {
	t.Helper()
	lines := 1 + bytes.Count(data, []byte("\n")) + bytes.Count(data, []byte("\r")) +
		bytes.Count(data, []byte("\v")) + bytes.Count(data, []byte("\f")) +
		bytes.Count(data, []byte("\u0085")) + bytes.Count(data, []byte("\u2028")) +
		bytes.Count(data, []byte("\u2029"))
	if len(errs) > maxParseErrors {
		t.Errorf("%d errors, want at most %d", len(errs), maxParseErrors)
	}
	for i, e := range errs {
		if e == nil {
			t.Fatalf("nil error in %v", errs)
		}
		if e.Line < 1 || e.Col < 1 || e.Msg == "" || e.File != "fuzz.wgsl" || e.Rule == "" {
			t.Errorf("malformed error %#v", e)
		}
		if e.Line > lines || e.Col > len(data)+1 {
			t.Errorf("error position %d:%d outside the source (%d lines, %d bytes)", e.Line, e.Col, lines, len(data))
		}
		if e.Rule == "internal" {
			t.Errorf("internal error: %v\ninput: %q", e, data)
		}
		if i > 0 && (e.Line < errs[i-1].Line || e.Line == errs[i-1].Line && e.Col < errs[i-1].Col) {
			t.Errorf("errors out of order: %v", errs)
		}
	}
	if len(errs) == 0 {
		if m == nil {
			t.Fatalf("nil module without errors")
		}
		if problem := validateModule(m); problem != "" {
			t.Errorf("incomplete tree without errors: %s\ninput: %q", problem, data)
		}
	}
}

// validateModule checks that a module parsed without errors is complete:
// no missing expressions or names where the grammar requires them. It
// returns "" or a description of the first problem.
func validateModule(m *ast.Module) (problem string) {
	fail := func(format string, args ...any) {
		if problem == "" {
			problem = fmt.Sprintf(format, args...)
		}
	}
	pos := func(p ast.Pos, what string) {
		if p.Line < 1 || p.Col < 1 {
			fail("%s at %v", what, p)
		}
	}
	var expr func(e ast.Expr, what string)
	var typ func(id *ast.Ident, what string)
	attrs := func(as []*ast.Attribute) {
		for _, a := range as {
			if a == nil || a.Name == "" {
				fail("bad attribute")
				continue
			}
			pos(a.Pos, "attribute")
			for _, x := range a.Args {
				expr(x, "attribute argument")
			}
		}
	}
	expr = func(e ast.Expr, what string) {
		switch e := e.(type) {
		case nil:
			fail("nil %s", what)
		case *ast.Ident:
			if e == nil || e.Name == "" {
				fail("empty identifier for %s", what)
				return
			}
			pos(e.Pos, "identifier")
			if e.Args != nil && len(e.Args) == 0 {
				fail("empty template list on %s", e.Name)
			}
			for _, a := range e.Args {
				expr(a, "template argument")
			}
		case *ast.Literal:
			if e.Text == "" {
				fail("empty literal")
			}
			pos(e.Pos, "literal")
		case *ast.CallExpr:
			pos(e.Pos, "call")
			expr(e.Callee, "callee")
			for _, a := range e.Args {
				expr(a, "argument")
			}
		case *ast.ParenExpr:
			pos(e.Pos, "paren")
			expr(e.X, "parenthesised expression")
		case *ast.MemberExpr:
			pos(e.Pos, "member")
			if e.Member == "" {
				fail("empty member name")
			}
			expr(e.X, "member base")
		case *ast.IndexExpr:
			pos(e.Pos, "index")
			expr(e.X, "index base")
			expr(e.Index, "index")
		case *ast.UnaryExpr:
			pos(e.Pos, "unary")
			if !strings.Contains("-!~*&", e.Op) || len(e.Op) != 1 {
				fail("unary operator %q", e.Op)
			}
			expr(e.X, "operand")
		case *ast.BinaryExpr:
			pos(e.Pos, "binary")
			if binOpClassOf(e.Op) == binNone || e.Op == "--" {
				fail("binary operator %q", e.Op)
			}
			expr(e.X, "left operand")
			expr(e.Y, "right operand")
		default:
			fail("unknown expression %T", e)
		}
	}
	typ = func(id *ast.Ident, what string) {
		if id == nil {
			fail("nil type for %s", what)
			return
		}
		expr(id, what)
	}
	var stmt func(s ast.Stmt)
	var block func(b *ast.BlockStmt, what string)
	block = func(b *ast.BlockStmt, what string) {
		if b == nil {
			fail("nil %s", what)
			return
		}
		pos(b.Pos, what)
		for _, s := range b.Stmts {
			stmt(s)
		}
	}
	varDecl := func(d *ast.VarDecl) {
		if d == nil || d.Name == "" {
			fail("variable without a name")
			return
		}
		pos(d.Pos, "declaration")
		pos(d.NamePos, "declaration name")
		attrs(d.Attrs)
		if d.Type != nil {
			typ(d.Type, "variable type")
		}
		if d.Init != nil {
			expr(d.Init, "initializer")
		} else if d.Kind == "let" || d.Kind == "const" {
			fail("%s %s without initializer", d.Kind, d.Name)
		}
		if d.Access != "" && d.AddressSpace == "" {
			fail("access mode without address space")
		}
	}
	update := func(s ast.Stmt, what string) {
		switch s.(type) {
		case *ast.AssignStmt, *ast.IncDecStmt, *ast.CallStmt:
			stmt(s)
		default:
			fail("%s is %T", what, s)
		}
	}
	stmt = func(s ast.Stmt) {
		switch s := s.(type) {
		case *ast.BlockStmt:
			block(s, "block")
		case *ast.DeclStmt:
			varDecl(s.Decl)
		case *ast.AssignStmt:
			if s.LHS != nil {
				expr(s.LHS, "assignment target")
			}
			expr(s.RHS, "assigned value")
			op := token{kind: tPunct, n: int32(len(s.Op))}
			copy(op.op[:], s.Op)
			if len(s.Op) > 3 || !isAssignOp(&op) {
				fail("assignment operator %q", s.Op)
			}
		case *ast.IncDecStmt:
			expr(s.LHS, "increment target")
		case *ast.CallStmt:
			if s.Call == nil {
				fail("nil call")
				return
			}
			expr(s.Call, "call")
		case *ast.IfStmt:
			attrs(s.Attrs)
			expr(s.Cond, "if condition")
			block(s.Body, "if body")
			switch e := s.Else.(type) {
			case nil:
			case *ast.IfStmt:
				stmt(e)
			case *ast.BlockStmt:
				block(e, "else body")
			default:
				fail("else is %T", e)
			}
		case *ast.SwitchStmt:
			attrs(s.Attrs)
			expr(s.Tag, "switch expression")
			if len(s.Clauses) == 0 {
				fail("switch without clauses")
			}
			for _, c := range s.Clauses {
				if c.Default != (len(c.Selectors) == 0) {
					fail("clause default=%v with %d selectors", c.Default, len(c.Selectors))
				}
				for _, sel := range c.Selectors {
					if sel != nil {
						expr(sel, "case selector")
					}
				}
				block(c.Body, "case body")
			}
		case *ast.LoopStmt:
			attrs(s.Attrs)
			block(s.Body, "loop body")
			if s.Continuing != nil {
				block(s.Continuing, "continuing")
			}
			if s.BreakIf != nil {
				if s.Continuing == nil {
					fail("break if without continuing")
				}
				expr(s.BreakIf, "break if")
			}
		case *ast.ForStmt:
			attrs(s.Attrs)
			if s.Init != nil {
				if d, ok := s.Init.(*ast.DeclStmt); ok {
					varDecl(d.Decl)
				} else {
					update(s.Init, "for init")
				}
			}
			if s.Cond != nil {
				expr(s.Cond, "for condition")
			}
			if s.Update != nil {
				update(s.Update, "for update")
			}
			block(s.Body, "for body")
		case *ast.WhileStmt:
			attrs(s.Attrs)
			expr(s.Cond, "while condition")
			block(s.Body, "while body")
		case *ast.BranchStmt:
			if s.Kind != "break" && s.Kind != "continue" && s.Kind != "discard" {
				fail("branch %q", s.Kind)
			}
		case *ast.ReturnStmt:
			if s.Value != nil {
				expr(s.Value, "return value")
			}
		case *ast.ConstAssertStmt:
			if s.Assert == nil {
				fail("nil const_assert")
				return
			}
			expr(s.Assert.Cond, "const_assert condition")
		default:
			fail("unknown statement %T", s)
		}
	}
	for _, d := range m.Directives {
		if d == nil || len(d.Args) == 0 {
			fail("empty directive")
			continue
		}
		if d.Kind == "diagnostic" && len(d.Args) != 2 {
			fail("diagnostic directive with %d arguments", len(d.Args))
		}
	}
	for _, d := range m.Decls {
		switch d := d.(type) {
		case *ast.VarDecl:
			varDecl(d)
		case *ast.StructDecl:
			if d.Name == "" || len(d.Members) == 0 {
				fail("struct %q with %d members", d.Name, len(d.Members))
			}
			for _, mb := range d.Members {
				if mb.Name == "" {
					fail("member without a name")
				}
				attrs(mb.Attrs)
				typ(mb.Type, "member type")
			}
		case *ast.AliasDecl:
			if d.Name == "" {
				fail("alias without a name")
			}
			typ(d.Type, "aliased type")
		case *ast.FuncDecl:
			if d.Name == "" {
				fail("function without a name")
			}
			attrs(d.Attrs)
			attrs(d.ResultAttrs)
			for _, prm := range d.Params {
				if prm.Name == "" {
					fail("parameter without a name")
				}
				attrs(prm.Attrs)
				typ(prm.Type, "parameter type")
			}
			if d.Result != nil {
				typ(d.Result, "result type")
			} else if len(d.ResultAttrs) > 0 {
				fail("result attributes without result")
			}
			block(d.Body, "function body")
		case *ast.ConstAssert:
			expr(d.Cond, "const_assert condition")
		default:
			fail("unknown declaration %T", d)
		}
	}
	return problem
}
