package wgsl

// This file is the parser: a recursive-descent parser for the WGSL grammar
// (https://www.w3.org/TR/WGSL/#grammar-recursive-descent) that builds the
// syntax tree of package internal/ast from the tokens of lex.go.
//
// Error handling: the first error in a construct puts the parser in "bad"
// mode, in which further errors are not reported; the statement, struct
// member, switch clause and global declaration loops then skip to a
// synchronisation point (the next ';', the matching '}', or the start of
// the next declaration) and leave bad mode. Every loop consumes a token or
// exits, nesting is bounded by maxParseDepth, and parsing stops after maxParseErrors
// errors.

import (
	"github.com/gfxcuda/gfxcuda/shader/wgsl/internal/ast"

	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// maxParseDepth bounds the nesting of expressions, template lists, prefix
// operators and blocks.
const maxParseDepth = 128

// parser holds the parser state.
type parser struct {
	file    string
	src     string
	toks    []token
	i       int // index of the current token; toks[len(toks)-1] is tEOF
	errs    ErrorList
	nlex    int  // errors the lexer reported (they count towards maxParseErrors)
	bad     bool // an error was reported; more are suppressed until a sync point
	stopped bool // too many errors: the parser skipped to the end
	depth   int
}

// parse parses a WGSL translation unit. It returns a non-nil *Module when
// the ErrorList is empty; with errors, the module may be partial or nil.
// filename names the source in errors ("<wgsl>" when empty). parse never
// panics.
func parse(src []byte, filename string) (m *ast.Module, errs ErrorList) {
	if filename == "" {
		filename = "<wgsl>"
	}
	p := &parser{file: filename}
	var lexErrs ErrorList
	defer func() {
		if r := recover(); r != nil {
			pos := ast.Pos{Line: 1, Col: 1}
			if p.i >= 0 && p.i < len(p.toks) {
				pos = p.toks[p.i].pos
			}
			errs = mergeParseErrors(lexErrs, p.errs)
			errs = append(errs, &Error{
				File: filename, Line: pos.Line, Col: pos.Col,
				Msg:  fmt.Sprintf("internal error in the WGSL parser (%v); please report this program", r),
				Rule: "internal",
			})
			m = nil
		}
	}()
	p.src = string(src)
	p.toks, lexErrs = lex(p.src, filename)
	p.nlex = len(lexErrs)
	m = p.module()
	errs = mergeParseErrors(lexErrs, p.errs)
	return m, errs
}

// mergeParseErrors returns the lexer's and the parser's errors in source order,
// at most maxParseErrors of them, or nil when there are none.
func mergeParseErrors(a, b ErrorList) ErrorList {
	if len(a)+len(b) == 0 {
		return nil
	}
	all := make(ErrorList, 0, len(a)+len(b))
	all = append(all, a...)
	all = append(all, b...)
	slices.SortStableFunc(all, func(x, y *Error) int {
		if c := cmp.Compare(x.Line, y.Line); c != 0 {
			return c
		}
		return cmp.Compare(x.Col, y.Col)
	})
	if len(all) > maxParseErrors {
		all = all[:maxParseErrors]
	}
	return all
}

// ---- Tokens and errors -----------------------------------------------------

func (p *parser) tok() *token { return &p.toks[p.i] }

func (p *parser) peek(k int) *token {
	j := p.i + k
	if j >= len(p.toks) {
		j = len(p.toks) - 1
	}
	return &p.toks[j]
}

func (p *parser) next() {
	if p.i < len(p.toks)-1 {
		p.i++
	}
}

// is reports whether the current token is the punctuation op.
func (p *parser) is(op string) bool { return tokIs(p.tok(), op) }

// isKw reports whether the current token is the keyword kw.
func (p *parser) isKw(kw string) bool {
	t := p.tok()
	return t.kind == tKeyword && p.str(t) == kw
}

// got consumes the punctuation op if it is the current token.
func (p *parser) got(op string) bool {
	if p.is(op) {
		p.next()
		return true
	}
	return false
}

// splitFirst consumes the first character of the current operator token
// ("--" becomes "-", "&&" becomes "&"): the specification's tokenizer only
// returns the longest token that is valid where the parser is.
func (p *parser) splitFirst() {
	t := &p.toks[p.i]
	t.op = [3]byte{t.op[1], t.op[2]}
	t.n--
	t.pos.Col++
	t.off++
}

// str returns the text of a token.
func (p *parser) str(t *token) string { return t.text(p.src) }

// describe names a token for "found ..." in messages.
func (p *parser) describe(t *token) string {
	if t.kind == tEOF {
		return "end of input"
	}
	return "'" + p.str(t) + "'"
}

// report records an error unless errors are suppressed; it does not change
// bad mode.
func (p *parser) report(pos ast.Pos, rule, msg string) {
	if p.bad || p.stopped {
		return
	}
	if n := len(p.errs); n > 0 && p.errs[n-1].Line == pos.Line && p.errs[n-1].Col == pos.Col {
		return
	}
	p.errs = append(p.errs, &Error{File: p.file, Line: pos.Line, Col: pos.Col, Msg: msg, Rule: rule})
	if p.nlex+len(p.errs) >= maxParseErrors {
		p.stopped = true
		p.i = len(p.toks) - 1
	}
}

// errorAt records an error and enters bad mode.
func (p *parser) errorAt(pos ast.Pos, rule, msg string) {
	p.report(pos, rule, msg)
	p.bad = true
}

// errExpected reports "expected WHAT CTX, found TOKEN" at the current token
// and enters bad mode. A token right after a lexical error is not reported:
// the lexer's error says what is wrong.
func (p *parser) errExpected(what, ctx, rule string) {
	t := p.tok()
	if t.flags&fAfterError != 0 {
		p.bad = true
		return
	}
	msg := "expected " + what
	if ctx != "" {
		msg += " " + ctx
	}
	p.errorAt(t.pos, rule, msg+", found "+p.describe(t))
}

// expect consumes the punctuation op or reports it missing.
func (p *parser) expect(op, ctx, rule string) bool {
	if p.got(op) {
		return true
	}
	p.errExpected("'"+op+"'", ctx, rule)
	return false
}

// expectSemi consumes the ';' that ends a statement or declaration. When it
// is missing before a '}' or at the end of a line, the error is reported
// without skipping the next line.
func (p *parser) expectSemi(ctx, rule string) {
	if p.got(";") || p.bad {
		return
	}
	t := p.tok()
	if p.i > 0 && t.kind != tEOF && t.flags&fAfterError == 0 &&
		(tokIs(t, "}") || t.pos.Line > p.toks[p.i-1].pos.Line) {
		p.report(t.pos, rule, "expected ';' "+ctx+", found "+p.describe(t))
		return
	}
	p.errExpected("';'", ctx, rule)
}

// enter enters one level of nesting, or reports that nesting is too deep.
func (p *parser) enter() bool {
	if p.depth >= maxParseDepth {
		p.errorAt(p.tok().pos, "limits", "nesting too deep: more than "+strconv.Itoa(maxParseDepth)+" levels of nested expressions and blocks")
		return false
	}
	p.depth++
	return true
}

func (p *parser) leave() { p.depth-- }

// badExpr stands for an expression that could not be parsed.
func (p *parser) badExpr() ast.Expr { return &ast.Ident{Pos: p.tok().pos} }

// name parses an identifier used as a declared name.
func (p *parser) name(ctx, rule string) (string, ast.Pos) {
	t := p.tok()
	switch t.kind {
	case tIdent:
		p.next()
		return p.str(t), t.pos
	case tKeyword:
		p.errorAt(t.pos, rule, "expected a name "+ctx+", found keyword '"+p.str(t)+"'")
	case tUnderscore:
		p.errorAt(t.pos, rule, "expected a name "+ctx+", found '_' (a lone '_' is not an identifier)")
	default:
		p.errExpected("a name", ctx, rule)
	}
	return "", t.pos
}

// ---- Synchronisation -------------------------------------------------------

// globalStartKeywords are the keywords that start a global declaration or directive.
var globalStartKeywords = map[string]bool{
	"fn": true, "struct": true, "alias": true, "const_assert": true,
	"override": true, "var": true, "const": true, "enable": true,
	"requires": true, "diagnostic": true,
}

// stmtStartKeywords are keywords that start a statement, where statement-level
// recovery stops.
var stmtStartKeywords = map[string]bool{
	"let": true, "var": true, "const": true, "return": true, "loop": true,
	"for": true, "while": true, "switch": true, "const_assert": true,
	"discard": true,
}

// isGlobalOnly reports whether t is a keyword that only starts a global
// declaration: met inside a function body, the body's '}' is missing.
func (p *parser) isGlobalOnly(t *token) bool {
	if t.kind != tKeyword {
		return false
	}
	switch p.str(t) {
	case "fn", "struct", "alias", "override", "enable", "requires":
		return true
	}
	return false
}

// syncGlobal skips to the end of a broken global declaration: after a ';'
// or a '}' that closes a block, or before the next declaration.
func (p *parser) syncGlobal() {
	defer func() { p.bad = false }()
	depth := 0
	for {
		t := p.tok()
		switch {
		case t.kind == tEOF:
			return
		case tokIs(t, "{"):
			depth++
		case tokIs(t, "}"):
			if depth == 0 {
				return
			}
			depth--
			if depth == 0 {
				p.next()
				return
			}
		case depth == 0 && tokIs(t, ";"):
			p.next()
			return
		case depth == 0 && (tokIs(t, "@") || t.kind == tKeyword && globalStartKeywords[p.str(t)]):
			return
		}
		p.next()
	}
}

// syncStmt skips to the end of a broken statement: after a ';' or a '}'
// that closes a nested block, or before the '}' that closes the enclosing
// block or a keyword that starts a statement.
func (p *parser) syncStmt() {
	defer func() { p.bad = false }()
	depth := 0
	for {
		t := p.tok()
		switch {
		case t.kind == tEOF:
			return
		case tokIs(t, "{"):
			depth++
		case tokIs(t, "}"):
			if depth == 0 {
				return
			}
			depth--
			if depth == 0 {
				p.next()
				return
			}
		case depth == 0 && tokIs(t, ";"):
			p.next()
			return
		case depth == 0 && t.kind == tKeyword && stmtStartKeywords[p.str(t)]:
			return
		case p.isGlobalOnly(t):
			return
		}
		p.next()
	}
}

// syncUntil skips to the next stop token at brace depth 0 (consuming it
// when consume is set), or to the '}' that closes the enclosing braces.
func (p *parser) syncUntil(consume bool, stops ...string) {
	defer func() { p.bad = false }()
	depth := 0
	for {
		t := p.tok()
		switch {
		case t.kind == tEOF:
			return
		case tokIs(t, "{"):
			depth++
		case tokIs(t, "}"):
			if depth == 0 {
				return
			}
			depth--
		case depth == 0 && (t.kind == tPunct || t.kind == tKeyword) && slices.Contains(stops, p.str(t)):
			if consume {
				p.next()
			}
			return
		}
		p.next()
	}
}

// ---- Module and global declarations ----------------------------------------

// module parses translation_unit.
func (p *parser) module() *ast.Module {
	m := &ast.Module{}
	declSeen := false
	for p.tok().kind != tEOF {
		start := p.i
		t := p.tok()
		switch {
		case tokIs(t, ";"):
			p.next()
		case tokIs(t, "}"):
			p.report(t.pos, "syntax: global_decl", "unexpected '}' at module scope: it has no matching '{'")
			p.next()
		case t.kind == tKeyword && (p.str(t) == "enable" || p.str(t) == "requires" || p.str(t) == "diagnostic"):
			if declSeen {
				p.report(t.pos, "syntax: global_directive",
					"the '"+p.str(t)+"' directive must come before all global declarations")
			}
			if d := p.directive(); d != nil {
				m.Directives = append(m.Directives, d)
			}
		default:
			declSeen = true
			if d := p.globalDecl(); d != nil {
				m.Decls = append(m.Decls, d)
			}
		}
		if p.bad {
			p.syncGlobal()
		}
		if p.i == start {
			p.next()
		}
	}
	return m
}

// directive parses an enable, requires or diagnostic directive.
func (p *parser) directive() *ast.Directive {
	t := p.tok()
	p.next()
	d := &ast.Directive{Pos: t.pos, Kind: p.str(t)}
	rule := "syntax: " + p.str(t) + "_directive"
	if p.str(t) == "diagnostic" {
		sev, _, r, _, ok := p.diagnosticControl("after 'diagnostic'", rule)
		if !ok {
			return nil
		}
		d.Args = []string{sev, r}
	} else {
		for {
			n := p.tok()
			if n.kind != tIdent {
				p.errExpected("an extension name", "in the '"+p.str(t)+"' directive", rule)
				return nil
			}
			p.next()
			d.Args = append(d.Args, p.str(n))
			if !p.got(",") || p.is(";") {
				break
			}
		}
	}
	p.expectSemi("after the '"+p.str(t)+"' directive", rule)
	return d
}

// globalDecl parses global_decl or global_assert.
func (p *parser) globalDecl() ast.Decl {
	attrs := p.attributes()
	if p.bad {
		return nil
	}
	t := p.tok()
	noAttrs := func(what string) {
		if len(attrs) > 0 {
			p.report(attrs[0].Pos, "syntax: global_decl", "attributes are not allowed on "+what)
		}
	}
	if t.kind == tKeyword {
		switch p.str(t) {
		case "fn":
			return p.funcDecl(attrs)
		case "var":
			d := p.varDecl(attrs)
			p.expectSemi("after the variable declaration", "syntax: global_variable_decl")
			return d
		case "override":
			d := p.varDecl(attrs)
			p.expectSemi("after the override declaration", "syntax: global_value_decl")
			return d
		case "const":
			noAttrs("'const' declarations")
			d := p.varDecl(nil)
			p.expectSemi("after the 'const' declaration", "syntax: global_value_decl")
			return d
		case "let":
			noAttrs("'let' declarations")
			p.report(t.pos, "syntax: global_decl", "'let' declarations are only allowed inside functions; use 'const' at module scope")
			d := p.varDecl(nil)
			p.expectSemi("after the 'let' declaration", "syntax: global_decl")
			return d
		case "alias":
			noAttrs("'alias' declarations")
			return p.aliasDecl()
		case "struct":
			noAttrs("'struct' declarations")
			return p.structDecl()
		case "const_assert":
			noAttrs("'const_assert'")
			a := p.constAssert()
			p.expectSemi("after the const_assert condition", "syntax: global_assert")
			return a
		}
	}
	ctx := ""
	if len(attrs) > 0 {
		ctx = "after the attributes"
	}
	p.errExpected("a global declaration ('fn', 'var', 'const', 'override', 'alias', 'struct' or 'const_assert')", ctx, "syntax: global_decl")
	return nil
}

// varDecl parses var, let, const and override declarations up to, not
// including, the ';'.
func (p *parser) varDecl(attrs []*ast.Attribute) *ast.VarDecl {
	t := p.tok()
	p.next()
	d := &ast.VarDecl{Pos: t.pos, Attrs: attrs, Kind: p.str(t)}
	rule := "syntax: variable_or_value_statement"
	if p.str(t) == "var" {
		rule = "syntax: variable_decl"
		if p.tok().kind == tTmplStart {
			for i, a := range p.templateList() {
				id, ok := a.(*ast.Ident)
				switch {
				case p.bad:
				case !ok || id.Args != nil:
					p.errorAt(a.Position(), rule, "expected an address space or access mode name in the 'var' template list")
				case i == 0:
					d.AddressSpace = id.Name
				case i == 1:
					d.Access = id.Name
				default:
					p.errorAt(a.Position(), rule, "too many arguments in the 'var' template list: expected an address space and an optional access mode")
				}
			}
			if p.bad {
				return d
			}
		} else if p.is("<") {
			p.errorAt(p.tok().pos, "syntax: template_list", "'<' after 'var' does not start a template list: no matching '>' was found")
			return d
		}
	}
	var ctx string
	switch d.Kind {
	case "var":
		ctx = "after 'var'"
	case "let":
		ctx = "after 'let'"
	case "const":
		ctx = "after 'const'"
	default:
		ctx = "after 'override'"
	}
	d.Name, d.NamePos = p.name(ctx, rule)
	if p.bad {
		return d
	}
	if p.got(":") {
		d.Type = p.typeSpec("after ':'")
		if p.bad {
			return d
		}
	}
	if p.got("=") {
		d.Init = p.expr()
	} else if p.str(t) == "let" || p.str(t) == "const" {
		what := "after the name"
		if d.Type != nil {
			what = "after the type"
		}
		p.errExpected("'='", what+" (a '"+p.str(t)+"' declaration needs an initializer)", rule)
	}
	return d
}

// typeSpec parses type_specifier: an identifier with an optional template
// list.
func (p *parser) typeSpec(ctx string) *ast.Ident {
	t := p.tok()
	if t.kind != tIdent {
		if t.kind == tKeyword {
			p.errorAt(t.pos, "syntax: type_specifier", "expected a type "+ctx+", found keyword '"+p.str(t)+"'")
		} else {
			p.errExpected("a type", ctx, "syntax: type_specifier")
		}
		return &ast.Ident{Pos: t.pos}
	}
	p.next()
	id := &ast.Ident{Pos: t.pos, Name: p.str(t)}
	if p.tok().kind == tTmplStart {
		id.Args = p.templateList()
	} else if p.is("<") {
		p.errorAt(p.tok().pos, "syntax: template_list", "'<' after '"+p.str(t)+"' does not start a template list: no matching '>' was found")
	}
	return id
}

// templateList parses a template list; the current token is its '<'. The
// result is non-nil.
func (p *parser) templateList() []ast.Expr {
	p.next()
	args := make([]ast.Expr, 0, 2)
	if !p.enter() {
		return args
	}
	defer p.leave()
	for {
		if p.tok().kind == tTmplEnd {
			if len(args) == 0 {
				p.errorAt(p.tok().pos, "syntax: template_list", "expected a template argument, found '>' (empty template list)")
			}
			p.next()
			return args
		}
		args = append(args, p.expr())
		if p.got(",") {
			continue
		}
		if p.tok().kind == tTmplEnd {
			p.next()
			return args
		}
		p.errExpected("',' or '>'", "in the template list", "syntax: template_list")
		return args
	}
}

// aliasDecl parses `alias Name = T;`.
func (p *parser) aliasDecl() ast.Decl {
	t := p.tok()
	p.next()
	d := &ast.AliasDecl{Pos: t.pos}
	const rule = "syntax: type_alias_decl"
	d.Name, _ = p.name("after 'alias'", rule)
	if p.bad || !p.expect("=", "after the alias name", rule) {
		return d
	}
	d.Type = p.typeSpec("after '='")
	p.expectSemi("after the alias declaration", rule)
	return d
}

// structDecl parses `struct Name { members }`.
func (p *parser) structDecl() ast.Decl {
	t := p.tok()
	p.next()
	const rule = "syntax: struct_decl"
	s := &ast.StructDecl{Pos: t.pos}
	s.Name, _ = p.name("after 'struct'", rule)
	if p.bad {
		return s
	}
	open := p.tok()
	if !p.expect("{", "after the struct name", rule) {
		return s
	}
	for !p.is("}") && p.tok().kind != tEOF {
		start := p.i
		if m := p.member(); m != nil {
			s.Members = append(s.Members, m)
		}
		switch {
		case p.bad:
			p.syncUntil(true, ",", ";")
		case p.got(","):
		case p.is("}"):
		case p.is(";"):
			p.report(p.tok().pos, rule, "expected ',' or '}' after the struct member, found ';' (struct members are separated by ',')")
			p.next()
		default:
			p.errExpected("',' or '}'", "after the struct member", rule)
			p.syncUntil(true, ",", ";")
		}
		if p.i == start && !p.is("}") {
			p.next()
		}
	}
	if len(s.Members) == 0 && p.is("}") {
		p.report(p.tok().pos, rule, "expected a struct member, found '}' (a structure needs at least one member)")
	}
	if !p.is("}") {
		p.errExpected("'}'", "to close the struct that starts at "+posText(open.pos), rule)
		return s
	}
	p.next()
	return s
}

// member parses one struct member.
func (p *parser) member() *ast.Member {
	const rule = "syntax: struct_member"
	attrs := p.attributes()
	if p.bad {
		return nil
	}
	t := p.tok()
	m := &ast.Member{Pos: t.pos, Attrs: attrs}
	m.Name, _ = p.name("for the struct member", rule)
	if p.bad || !p.expect(":", "after the member name", rule) {
		return m
	}
	m.Type = p.typeSpec("after ':'")
	return m
}

// funcDecl parses a function declaration.
func (p *parser) funcDecl(attrs []*ast.Attribute) ast.Decl {
	t := p.tok()
	p.next()
	const rule = "syntax: function_decl"
	f := &ast.FuncDecl{Pos: t.pos, Attrs: attrs}
	f.Name, _ = p.name("after 'fn'", rule)
	if p.bad || !p.expect("(", "after the function name", rule) {
		return f
	}
	for !p.is(")") {
		pattrs := p.attributes()
		if p.bad {
			return f
		}
		pt := p.tok()
		prm := &ast.Param{Pos: pt.pos, Attrs: pattrs}
		prm.Name, _ = p.name("for the parameter", "syntax: param")
		if p.bad || !p.expect(":", "after the parameter name", "syntax: param") {
			return f
		}
		prm.Type = p.typeSpec("after ':'")
		if p.bad {
			return f
		}
		f.Params = append(f.Params, prm)
		if p.got(",") {
			continue
		}
		if !p.is(")") {
			p.errExpected("',' or ')'", "after the parameter", "syntax: param_list")
			return f
		}
	}
	p.next()
	if p.got("->") {
		f.ResultAttrs = p.attributes()
		if p.bad {
			return f
		}
		f.Result = p.typeSpec("after '->'")
		if p.bad {
			return f
		}
	}
	f.Body = p.blockAttrs("for the function body", rule)
	return f
}

// constAssert parses `const_assert expr` (without the ';').
func (p *parser) constAssert() *ast.ConstAssert {
	t := p.tok()
	p.next()
	return &ast.ConstAssert{Pos: t.pos, Cond: p.expr()}
}

// ---- Attributes ------------------------------------------------------------

// attributes parses zero or more attributes.
func (p *parser) attributes() []*ast.Attribute {
	var attrs []*ast.Attribute
	for p.is("@") && !p.bad {
		if a := p.attribute(); a != nil {
			attrs = append(attrs, a)
		}
	}
	return attrs
}

// attribute parses one attribute; the current token is its '@'.
func (p *parser) attribute() *ast.Attribute {
	const rule = "syntax: attribute"
	at := p.tok()
	p.next()
	t := p.tok()
	if t.kind != tIdent && !(t.kind == tKeyword && (p.str(t) == "const" || p.str(t) == "diagnostic")) {
		p.errExpected("an attribute name", "after '@'", rule)
		return nil
	}
	p.next()
	a := &ast.Attribute{Pos: at.pos, Name: p.str(t)}
	switch p.str(t) {
	case "compute", "const", "fragment", "invariant", "must_use", "vertex":
		if p.is("(") {
			p.report(p.tok().pos, rule, "attribute '@"+p.str(t)+"' does not take arguments")
			p.skipParens()
		}
	case "align", "binding", "blend_src", "group", "id", "location", "size", "subgroup_size":
		a.Args = p.attrArgs(p.str(t), 1, 1, false)
	case "workgroup_size":
		a.Args = p.attrArgs(p.str(t), 1, 3, false)
	case "builtin":
		a.Args = p.attrArgs(p.str(t), 1, 1, true)
	case "interpolate":
		a.Args = p.attrArgs(p.str(t), 1, 2, true)
	case "diagnostic":
		sev, sevPos, r, rPos, ok := p.diagnosticControl("after '@diagnostic'", rule)
		if !ok {
			return nil
		}
		a.Args = []ast.Expr{&ast.Ident{Pos: sevPos, Name: sev}, &ast.Ident{Pos: rPos, Name: r}}
	default:
		p.report(at.pos, "attributes", "unknown attribute '@"+p.str(t)+"'")
		if p.is("(") {
			p.skipParens()
		}
		return nil
	}
	return a
}

// skipParens skips a balanced parenthesised token sequence; the current
// token is its '('.
func (p *parser) skipParens() {
	depth := 0
	for {
		t := p.tok()
		switch {
		case t.kind == tEOF:
			return
		case tokIs(t, "("):
			depth++
		case tokIs(t, ")"):
			depth--
			if depth <= 0 {
				p.next()
				return
			}
		case tokIs(t, ";") || tokIs(t, "{") || tokIs(t, "}"):
			return
		}
		p.next()
	}
}

// attrArgs parses an attribute's parenthesised arguments: between min and
// max expressions, or identifiers when idents is set.
func (p *parser) attrArgs(name string, min, max int, idents bool) []ast.Expr {
	const rule = "syntax: attribute"
	if !p.is("(") {
		p.errExpected("'('", "after '@"+name+"'", rule)
		return nil
	}
	p.next()
	args := make([]ast.Expr, 0, max)
	for !p.is(")") {
		if len(args) == max {
			p.errorAt(p.tok().pos, rule, fmt.Sprintf("too many arguments for '@%s': it takes %s", name, attrArgCount(max, "argument")))
			return args
		}
		if idents {
			t := p.tok()
			if t.kind != tIdent {
				p.errExpected("a name", "in '@"+name+"'", rule)
				return args
			}
			p.next()
			args = append(args, &ast.Ident{Pos: t.pos, Name: p.str(t)})
		} else {
			args = append(args, p.expr())
			if p.bad {
				return args
			}
		}
		if p.got(",") {
			continue
		}
		if !p.is(")") {
			p.errExpected("',' or ')'", "in the arguments of '@"+name+"'", rule)
			return args
		}
	}
	if len(args) < min {
		p.errorAt(p.tok().pos, rule, fmt.Sprintf("expected an argument for '@%s', found ')'", name))
		return args
	}
	p.next()
	return args
}

func attrArgCount(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return "at most " + strconv.Itoa(n) + " " + what + "s"
}

// diagSeverities are the diagnostic severity control names.
var diagSeverities = map[string]bool{"error": true, "warning": true, "info": true, "off": true}

// diagnosticControl parses `(severity, rule)` or `(severity, a.b)`.
func (p *parser) diagnosticControl(ctx, rule string) (sev string, sevPos ast.Pos, name string, namePos ast.Pos, ok bool) {
	if !p.expect("(", ctx, rule) {
		return
	}
	t := p.tok()
	if t.kind != tIdent {
		p.errExpected("a severity ('error', 'warning', 'info' or 'off')", "in the diagnostic control", rule)
		return
	}
	if !diagSeverities[p.str(t)] {
		p.report(t.pos, "diagnostics", "unknown diagnostic severity '"+p.str(t)+"': expected 'error', 'warning', 'info' or 'off'")
	}
	p.next()
	sev, sevPos = p.str(t), t.pos
	if !p.expect(",", "after the diagnostic severity", rule) {
		return
	}
	t = p.tok()
	if t.kind != tIdent {
		p.errExpected("a diagnostic rule name", "in the diagnostic control", rule)
		return
	}
	p.next()
	name, namePos = p.str(t), t.pos
	if p.got(".") {
		t = p.tok()
		if t.kind != tIdent {
			p.errExpected("a diagnostic rule name", "after '.'", rule)
			return
		}
		p.next()
		name += "." + p.str(t)
	}
	p.got(",")
	if !p.expect(")", "after the diagnostic rule name", rule) {
		return
	}
	return sev, sevPos, name, namePos, true
}

// stmtAttributes parses attributes before a statement or a block: only
// @diagnostic is allowed there.
func (p *parser) stmtAttributes() []*ast.Attribute {
	attrs := p.attributes()
	for _, a := range attrs {
		if a.Name != "diagnostic" {
			p.report(a.Pos, "attributes", "attribute '@"+a.Name+"' is not allowed here: only '@diagnostic' may be applied to a statement")
		}
	}
	return attrs
}

// ---- Statements ------------------------------------------------------------

func posText(p ast.Pos) string { return strconv.Itoa(p.Line) + ":" + strconv.Itoa(p.Col) }

// blockAttrs parses attribute* '{' statement* '}' (compound_statement).
// The attributes (only @diagnostic is allowed) are checked and dropped:
// a range diagnostic filter does not affect the translation.
func (p *parser) blockAttrs(ctx, rule string) *ast.BlockStmt {
	if p.is("@") {
		p.stmtAttributes()
	}
	return p.block(ctx, rule)
}

// block parses '{' statement* '}'.
func (p *parser) block(ctx, rule string) *ast.BlockStmt {
	open := p.tok()
	b := &ast.BlockStmt{Pos: open.pos}
	if p.bad {
		return b
	}
	if !tokIs(open, "{") {
		p.errExpected("'{'", ctx, rule)
		return b
	}
	if !p.enter() {
		return b
	}
	defer p.leave()
	p.next()
	b.Stmts = p.stmts(nil, stmtsInBlock)
	p.closeBrace(open, "block")
	return b
}

// closeBrace consumes the '}' matching open.
func (p *parser) closeBrace(open *token, what string) {
	if !p.got("}") {
		p.errExpected("'}'", "to close the "+what+" that starts at "+posText(open.pos), "syntax: compound_statement")
	}
}

// Where stmts stops, besides '}' and the end of input.
const (
	stmtsInBlock      = iota
	stmtsInLoopBody   // also stops at 'continuing'
	stmtsInContinuing // also stops at 'break if'
)

// stmts parses statements up to a '}' or the end of input (or the stop
// that mode names), appending them to list.
func (p *parser) stmts(list []ast.Stmt, mode int) []ast.Stmt {
	for !p.is("}") && p.tok().kind != tEOF && !p.isGlobalOnly(p.tok()) {
		if mode == stmtsInLoopBody && p.isKw("continuing") ||
			mode == stmtsInContinuing && p.isKw("break") && p.peek(1).kind == tKeyword && p.str(p.peek(1)) == "if" {
			break
		}
		start := p.i
		if s := p.stmt(); s != nil {
			list = append(list, s)
		}
		if p.bad {
			p.syncStmt()
		}
		if p.i == start && !p.is("}") {
			p.next()
		}
	}
	return list
}

// stmt parses one statement; it returns nil for an empty statement or
// after an error.
func (p *parser) stmt() ast.Stmt {
	t := p.tok()
	switch t.kind {
	case tPunct:
		switch p.str(t) {
		case ";":
			p.next()
			return nil
		case "{":
			return p.block("", "syntax: compound_statement")
		case "@":
			attrs := p.stmtAttributes()
			if p.bad {
				return nil
			}
			if p.is("{") {
				return p.block("", "syntax: compound_statement")
			}
			if p.tok().kind == tKeyword {
				switch p.str(p.tok()) {
				case "if", "switch", "loop", "for", "while":
					return p.keywordStmt(attrs)
				}
			}
			p.errExpected("'{', 'if', 'switch', 'loop', 'for' or 'while'", "after the statement attributes", "syntax: statement")
			return nil
		case "(", "*", "&", "&&":
			return p.updatingStmt()
		}
	case tIdent, tUnderscore:
		return p.updatingStmt()
	case tKeyword:
		return p.keywordStmt(nil)
	}
	p.errExpected("a statement", "", "syntax: statement")
	return nil
}

// updatingStmt parses an assignment, increment, decrement or call
// statement with its ';'.
func (p *parser) updatingStmt() ast.Stmt {
	s := p.updating()
	if s == nil || p.bad {
		return s
	}
	switch s := s.(type) {
	case *ast.CallStmt:
		p.expectSemi("after the function call", "syntax: func_call_statement")
	case *ast.IncDecStmt:
		if s.Op == "++" {
			p.expectSemi("after the increment", "syntax: increment_statement")
		} else {
			p.expectSemi("after the decrement", "syntax: decrement_statement")
		}
	default:
		p.expectSemi("after the assignment", "syntax: assignment_statement")
	}
	return s
}

// isAssignOp reports whether t is '=' or a compound assignment operator.
func isAssignOp(t *token) bool {
	if t.kind != tPunct {
		return false
	}
	switch t.n {
	case 1:
		return t.op[0] == '='
	case 2:
		return t.op[1] == '=' && strings.IndexByte("+-*/%&|^", t.op[0]) >= 0
	case 3:
		return t.op[2] == '=' && (t.op[0] == '<' || t.op[0] == '>')
	}
	return false
}

// updating parses variable_updating_statement or func_call_statement
// without the ';'.
func (p *parser) updating() ast.Stmt {
	t := p.tok()
	if t.kind == tUnderscore {
		p.next()
		if !p.expect("=", "after '_'", "syntax: assignment_statement") {
			return nil
		}
		return &ast.AssignStmt{Pos: t.pos, Op: "=", RHS: p.expr()}
	}
	x := p.lhs()
	if p.bad {
		return nil
	}
	op := p.tok()
	if op.kind == tPunct {
		if isAssignOp(op) {
			p.next()
			return &ast.AssignStmt{Pos: t.pos, LHS: x, Op: p.str(op), RHS: p.expr()}
		}
		if p.str(op) == "++" || p.str(op) == "--" {
			p.next()
			return &ast.IncDecStmt{Pos: t.pos, LHS: x, Op: p.str(op)}
		}
	}
	if call, ok := x.(*ast.CallExpr); ok {
		return &ast.CallStmt{Call: call}
	}
	p.errExpected("'=', a compound assignment, '++' or '--'", "after the expression", "syntax: variable_updating_statement")
	return nil
}

// lhs parses lhs_expression.
func (p *parser) lhs() ast.Expr {
	type prefix struct {
		pos ast.Pos
		op  string
	}
	var buf [4]prefix
	pre := buf[:0]
	defer func() { p.depth -= len(pre) }()
	for {
		t := p.tok()
		if tokIs(t, "*") || tokIs(t, "&") {
			pre = append(pre, prefix{t.pos, p.str(t)})
			p.next()
		} else if tokIs(t, "&&") {
			pre = append(pre, prefix{t.pos, "&"})
			p.splitFirst()
		} else {
			break
		}
		if !p.enter() {
			pre = pre[:len(pre)-1]
			return p.badExpr()
		}
	}
	t := p.tok()
	var x ast.Expr
	switch {
	case t.kind == tIdent:
		p.next()
		id := &ast.Ident{Pos: t.pos, Name: p.str(t)}
		x = id
		if p.tok().kind == tTmplStart {
			id.Args = p.templateList()
			if !p.is("(") && !p.bad {
				p.errExpected("'('", "after the template list", "syntax: core_lhs_expression")
				return x
			}
		}
		if p.is("(") {
			x = &ast.CallExpr{Pos: t.pos, Callee: id, Args: p.callArgs()}
		}
	case tokIs(t, "("):
		if !p.enter() {
			return p.badExpr()
		}
		p.next()
		inner := p.lhs()
		p.leave()
		if !p.bad {
			p.expect(")", "to close the parenthesised expression", "syntax: core_lhs_expression")
		}
		x = &ast.ParenExpr{Pos: t.pos, X: inner}
	default:
		p.errExpected("a statement", "", "syntax: statement")
		return p.badExpr()
	}
	x = p.postfix(x)
	for i := len(pre) - 1; i >= 0; i-- {
		x = &ast.UnaryExpr{Pos: pre[i].pos, Op: pre[i].op, X: x}
	}
	return x
}

// keywordStmt parses a statement that starts with a keyword. attrs are
// the statement's attributes (only if, switch, loop, for and while take
// them).
func (p *parser) keywordStmt(attrs []*ast.Attribute) ast.Stmt {
	t := p.tok()
	switch p.str(t) {
	case "if":
		return p.ifStmt(attrs)
	case "switch":
		return p.switchStmt(attrs)
	case "loop":
		return p.loopStmt(attrs)
	case "for":
		return p.forStmt(attrs)
	case "while":
		return p.whileStmt(attrs)
	case "return":
		p.next()
		s := &ast.ReturnStmt{Pos: t.pos}
		if !p.is(";") && !p.is("}") {
			s.Value = p.expr()
		}
		p.expectSemi("after the return statement", "syntax: return_statement")
		return s
	case "break":
		if n := p.peek(1); n.kind == tKeyword && p.str(n) == "if" {
			p.errorAt(t.pos, "syntax: break_if_statement", "'break if' is only allowed as the last statement of a 'continuing' block")
			return nil
		}
		fallthrough
	case "continue", "discard":
		p.next()
		kind := p.str(t)
		switch kind {
		case "break":
			p.expectSemi("after 'break'", "syntax: break_statement")
		case "continue":
			p.expectSemi("after 'continue'", "syntax: continue_statement")
		default:
			p.expectSemi("after 'discard'", "syntax: statement")
		}
		return &ast.BranchStmt{Pos: t.pos, Kind: kind}
	case "let", "var", "const":
		d := p.varDecl(nil)
		if !p.bad {
			switch d.Kind {
			case "var":
				p.expectSemi("after the variable declaration", "syntax: variable_or_value_statement")
			case "let":
				p.expectSemi("after the 'let' declaration", "syntax: variable_or_value_statement")
			default:
				p.expectSemi("after the 'const' declaration", "syntax: variable_or_value_statement")
			}
		}
		return &ast.DeclStmt{Decl: d}
	case "const_assert":
		a := p.constAssert()
		p.expectSemi("after the const_assert condition", "syntax: assert_statement")
		return &ast.ConstAssertStmt{Assert: a}
	case "continuing":
		p.errorAt(t.pos, "syntax: continuing_statement", "'continuing' is only allowed at the end of a 'loop' body")
		return nil
	case "else":
		p.errorAt(t.pos, "syntax: if_statement", "'else' without a matching 'if'")
		return nil
	case "case", "default":
		p.errorAt(t.pos, "syntax: switch_statement", "'"+p.str(t)+"' is only allowed directly inside a switch body")
		return nil
	}
	p.errExpected("a statement", "", "syntax: statement")
	return nil
}

// ifStmt parses if / else if / else.
func (p *parser) ifStmt(attrs []*ast.Attribute) ast.Stmt {
	const rule = "syntax: if_statement"
	t := p.tok()
	p.next()
	s := &ast.IfStmt{Pos: t.pos, Attrs: attrs, Cond: p.expr()}
	s.Body = p.blockAttrs("after the 'if' condition", rule)
	cur := s
	for !p.bad && p.isKw("else") {
		p.next()
		if p.isKw("if") {
			n := &ast.IfStmt{Pos: p.tok().pos}
			p.next()
			n.Cond = p.expr()
			n.Body = p.blockAttrs("after the 'else if' condition", rule)
			cur.Else = n
			cur = n
			continue
		}
		cur.Else = p.blockAttrs("after 'else'", rule)
		break
	}
	return s
}

// switchStmt parses a switch statement.
func (p *parser) switchStmt(attrs []*ast.Attribute) ast.Stmt {
	const rule = "syntax: switch_statement"
	t := p.tok()
	p.next()
	s := &ast.SwitchStmt{Pos: t.pos, Attrs: attrs, Tag: p.expr()}
	if p.bad {
		return s
	}
	if p.is("@") {
		p.stmtAttributes()
		if p.bad {
			return s
		}
	}
	open := p.tok()
	if !p.expect("{", "after the switch expression", rule) {
		return s
	}
	if !p.enter() {
		return s
	}
	defer p.leave()
	for !p.is("}") && p.tok().kind != tEOF {
		start := p.i
		if c := p.caseClause(); c != nil {
			s.Clauses = append(s.Clauses, c)
		}
		if p.bad {
			p.syncUntil(false, "case", "default")
		}
		if p.i == start && !p.is("}") {
			p.next()
		}
	}
	if len(s.Clauses) == 0 && p.is("}") {
		p.report(p.tok().pos, "syntax: switch_body", "expected 'case' or 'default' in the switch body, found '}'")
	}
	p.closeBrace(open, "switch body")
	return s
}

// caseClause parses `case selectors :? { }` or `default :? { }`.
func (p *parser) caseClause() *ast.CaseClause {
	const rule = "syntax: switch_clause"
	t := p.tok()
	c := &ast.CaseClause{Pos: t.pos}
	switch {
	case p.isKw("case"):
		p.next()
		for {
			if p.isKw("default") {
				p.next()
				c.Selectors = append(c.Selectors, nil)
			} else {
				c.Selectors = append(c.Selectors, p.expr())
				if p.bad {
					return c
				}
			}
			if !p.got(",") || p.is(":") || p.is("{") || p.is("@") {
				break
			}
		}
		p.got(":")
		c.Body = p.blockAttrs("after the case selectors", rule)
	case p.isKw("default"):
		p.next()
		c.Default = true
		p.got(":")
		c.Body = p.blockAttrs("after 'default'", rule)
	default:
		p.errExpected("'case' or 'default'", "in the switch body", "syntax: switch_body")
		return nil
	}
	return c
}

// loopStmt parses `loop { ... continuing { ... break if e; } }`.
func (p *parser) loopStmt(attrs []*ast.Attribute) ast.Stmt {
	const rule = "syntax: loop_statement"
	t := p.tok()
	p.next()
	s := &ast.LoopStmt{Pos: t.pos, Attrs: attrs}
	if p.is("@") {
		p.stmtAttributes()
		if p.bad {
			return s
		}
	}
	open := p.tok()
	s.Body = &ast.BlockStmt{Pos: open.pos}
	if !p.expect("{", "after 'loop'", rule) {
		return s
	}
	if !p.enter() {
		return s
	}
	defer p.leave()
	s.Body.Stmts = p.stmts(nil, stmtsInLoopBody)
	if p.isKw("continuing") {
		p.next()
		if p.is("@") {
			p.stmtAttributes()
			if p.bad {
				return s
			}
		}
		copen := p.tok()
		cb := &ast.BlockStmt{Pos: copen.pos}
		s.Continuing = cb
		if !p.expect("{", "after 'continuing'", "syntax: continuing_compound_statement") {
			return s
		}
		if !p.enter() {
			return s
		}
		defer p.leave()
		cb.Stmts = p.stmts(nil, stmtsInContinuing)
		if p.isKw("break") {
			p.next()
			p.next()
			s.BreakIf = p.expr()
			p.expectSemi("after the 'break if' condition", "syntax: break_if_statement")
			if !p.bad && !p.is("}") {
				p.errorAt(p.tok().pos, "syntax: continuing_compound_statement", "'break if' must be the last statement of the continuing block: expected '}', found "+p.describe(p.tok()))
			}
			if p.bad {
				p.syncUntil(false)
			}
		}
		p.closeBrace(copen, "continuing block")
		if !p.bad && !p.is("}") && p.tok().kind != tEOF {
			p.errorAt(p.tok().pos, rule, "expected '}' to close the loop body that starts at "+posText(open.pos)+
				", found "+p.describe(p.tok())+" (the continuing block must be the last part of a loop)")
		}
		if p.bad {
			p.skipBlockRest()
			return s
		}
	}
	p.closeBrace(open, "loop body")
	return s
}

// skipBlockRest skips to the '}' that closes the current block and
// consumes it.
func (p *parser) skipBlockRest() {
	p.bad = false
	depth := 0
	for {
		t := p.tok()
		switch {
		case t.kind == tEOF:
			return
		case tokIs(t, "{"):
			depth++
		case tokIs(t, "}"):
			if depth == 0 {
				p.next()
				return
			}
			depth--
		}
		p.next()
	}
}

// forStmt parses `for (init; cond; update) { }`. After an error in the
// header it skips to the header's ')' and still parses the body.
func (p *parser) forStmt(attrs []*ast.Attribute) ast.Stmt {
	const rule = "syntax: for_statement"
	t := p.tok()
	p.next()
	s := &ast.ForStmt{Pos: t.pos, Attrs: attrs}
	if !p.expect("(", "after 'for'", rule) {
		return s
	}
	p.forHeader(s)
	if p.bad {
		if !p.skipForHeader() {
			return s
		}
		p.bad = false
	} else if !p.expect(")", "to close the for-loop header", rule) {
		return s
	}
	s.Body = p.blockAttrs("after the for-loop header", rule)
	return s
}

// forHeader parses the three parts of a for-loop header, up to its ')'.
func (p *parser) forHeader(s *ast.ForStmt) {
	const rule = "syntax: for_statement"
	if !p.is(";") {
		if p.isKw("var") || p.isKw("let") || p.isKw("const") {
			s.Init = &ast.DeclStmt{Decl: p.varDecl(nil)}
		} else {
			s.Init = p.updating()
		}
		if p.bad {
			return
		}
	}
	if !p.expect(";", "after the for-loop initializer", rule) {
		return
	}
	if !p.is(";") {
		s.Cond = p.expr()
		if p.bad {
			return
		}
	}
	if !p.expect(";", "after the for-loop condition", rule) {
		return
	}
	if !p.is(")") {
		s.Update = p.updating()
	}
}

// skipForHeader skips past the ')' that closes a broken for-loop header.
// It reports whether the loop body's '{' (or its attributes) follow.
func (p *parser) skipForHeader() bool {
	depth := 0
	for {
		t := p.tok()
		switch {
		case t.kind == tEOF || tokIs(t, "{") || tokIs(t, "}"):
			return false
		case tokIs(t, "("):
			depth++
		case tokIs(t, ")"):
			if depth == 0 {
				p.next()
				return p.is("{") || p.is("@")
			}
			depth--
		}
		p.next()
	}
}

// whileStmt parses `while cond { }`.
func (p *parser) whileStmt(attrs []*ast.Attribute) ast.Stmt {
	t := p.tok()
	p.next()
	s := &ast.WhileStmt{Pos: t.pos, Attrs: attrs, Cond: p.expr()}
	s.Body = p.blockAttrs("after the 'while' condition", "syntax: while_statement")
	return s
}

// ---- Expressions -----------------------------------------------------------

// binOpRank classifies binary operator tokens: 0 for tokens that are not
// binary operators.
const (
	binNone = iota
	binBitwise
	binShortCircuit
	binRelational
	binShift
	binAdditive
	binMultiplicative
)

func binOpClass(t *token) int {
	if t.kind != tPunct {
		return binNone
	}
	a, b := t.op[0], t.op[1]
	switch t.n {
	case 1:
		switch a {
		case '&', '|', '^':
			return binBitwise
		case '<', '>':
			return binRelational
		case '+', '-':
			return binAdditive
		case '*', '/', '%':
			return binMultiplicative
		}
	case 2:
		switch {
		case (a == '&' || a == '|') && b == a:
			return binShortCircuit
		case (a == '<' || a == '>') && b == a:
			return binShift
		case b == '=' && (a == '<' || a == '>' || a == '=' || a == '!'):
			return binRelational
		case a == '-' && b == '-':
			return binAdditive
		}
	}
	return binNone
}

// binOpClassOf classifies an operator's spelling like binOpClass.
func binOpClassOf(op string) int {
	t := token{kind: tPunct, n: int32(len(op))}
	copy(t.op[:], op)
	return binOpClass(&t)
}

// mixError reports an operator that cannot follow the operator prev
// without parentheses.
func (p *parser) mixError(prev string, t *token) {
	pc, tc := binOpClassOf(prev), binOpClass(t)
	rule := "syntax: expression"
	switch {
	case pc == binBitwise || tc == binBitwise:
		rule = "syntax: bitwise_expression"
	case pc == binShift || tc == binShift:
		rule = "syntax: shift_expression"
	case pc == binRelational || tc == binRelational:
		rule = "syntax: relational_expression"
	}
	op := p.str(t)
	if op == "--" {
		op = "-"
	}
	msg := "operators '" + prev + "' and '" + op + "' cannot be mixed without parentheses"
	switch {
	case pc == binRelational && tc == binRelational:
		msg = "comparisons cannot be chained: '" + op + "' after '" + prev + "'; use parentheses, or '&&' to combine comparisons"
	case pc == binShift && tc == binShift:
		msg = "shifts cannot be chained: '" + op + "' after '" + prev + "' needs parentheses"
	case pc == tc && pc == binBitwise:
		msg = "operators '" + prev + "' and '" + op + "' cannot be mixed without parentheses"
	}
	p.errorAt(t.pos, rule, msg)
}

// expr parses expression.
func (p *parser) expr() ast.Expr {
	if !p.enter() {
		return p.badExpr()
	}
	defer p.leave()
	u := p.unary()
	var x ast.Expr
	if t := p.tok(); binOpClass(t) == binBitwise {
		op := p.str(t)
		x = u
		for p.is(op) {
			pos := p.tok().pos
			p.next()
			x = &ast.BinaryExpr{Pos: pos, Op: op, X: x, Y: p.unary()}
		}
	} else {
		x = p.relationalPost(u)
		if t := p.tok(); binOpClass(t) == binShortCircuit {
			op := p.str(t)
			for p.is(op) {
				pos := p.tok().pos
				p.next()
				x = &ast.BinaryExpr{Pos: pos, Op: op, X: x, Y: p.relationalPost(p.unary())}
			}
		}
	}
	if t := p.tok(); binOpClass(t) != binNone && !p.bad {
		if b, ok := x.(*ast.BinaryExpr); ok {
			p.mixError(b.Op, t)
		} else {
			p.errExpected("an operand", "", "syntax: expression")
		}
	}
	return x
}

// relationalPost parses relational_expression.post.unary_expression.
func (p *parser) relationalPost(u ast.Expr) ast.Expr {
	x := p.shiftPost(u)
	if t := p.tok(); binOpClass(t) == binRelational {
		p.next()
		x = &ast.BinaryExpr{Pos: t.pos, Op: p.str(t), X: x, Y: p.shiftPost(p.unary())}
		if t2 := p.tok(); binOpClass(t2) == binRelational && !p.bad {
			p.mixError(p.str(t), t2)
		}
	}
	return x
}

// shiftPost parses shift_expression.post.unary_expression.
func (p *parser) shiftPost(u ast.Expr) ast.Expr {
	if t := p.tok(); binOpClass(t) == binShift {
		p.next()
		x := &ast.BinaryExpr{Pos: t.pos, Op: p.str(t), X: u, Y: p.unary()}
		if t2 := p.tok(); !p.bad {
			if c := binOpClass(t2); c == binShift || c == binAdditive || c == binMultiplicative {
				p.mixError(p.str(t), t2)
			}
		}
		return x
	}
	x := p.mulPost(u)
	for {
		t := p.tok()
		if binOpClass(t) != binAdditive {
			break
		}
		pos := t.pos
		op := p.str(t)
		if op == "--" { // a--b is a - (-b)
			op = "-"
			p.splitFirst()
		} else {
			p.next()
		}
		x = &ast.BinaryExpr{Pos: pos, Op: op, X: x, Y: p.mulPost(p.unary())}
	}
	if t := p.tok(); binOpClass(t) == binShift && !p.bad {
		if b, ok := x.(*ast.BinaryExpr); ok {
			p.mixError(b.Op, t)
		}
	}
	return x
}

// mulPost parses the multiplicative part of an additive expression.
func (p *parser) mulPost(x ast.Expr) ast.Expr {
	for binOpClass(p.tok()) == binMultiplicative {
		t := p.tok()
		p.next()
		x = &ast.BinaryExpr{Pos: t.pos, Op: p.str(t), X: x, Y: p.unary()}
	}
	return x
}

// unary parses unary_expression. Prefix operators are collected in a loop
// (not by recursion) and count towards the nesting limit.
func (p *parser) unary() ast.Expr {
	type prefix struct {
		pos ast.Pos
		op  string
	}
	var buf [4]prefix
	pre := buf[:0]
	defer func() { p.depth -= len(pre) }()
loop:
	for {
		t := p.tok()
		if t.kind != tPunct {
			break
		}
		switch p.str(t) {
		case "-", "!", "~", "*", "&":
			pre = append(pre, prefix{t.pos, p.str(t)})
			p.next()
		case "--", "&&":
			pre = append(pre, prefix{t.pos, p.str(t)[:1]})
			p.splitFirst()
		default:
			break loop
		}
		if !p.enter() {
			pre = pre[:len(pre)-1]
			return p.badExpr()
		}
	}
	x := p.postfix(p.primary())
	for i := len(pre) - 1; i >= 0; i-- {
		x = &ast.UnaryExpr{Pos: pre[i].pos, Op: pre[i].op, X: x}
	}
	return x
}

// primary parses primary_expression.
func (p *parser) primary() ast.Expr {
	t := p.tok()
	switch t.kind {
	case tIdent:
		p.next()
		id := &ast.Ident{Pos: t.pos, Name: p.str(t)}
		if p.tok().kind == tTmplStart {
			id.Args = p.templateList()
		}
		if p.is("(") {
			return &ast.CallExpr{Pos: t.pos, Callee: id, Args: p.callArgs()}
		}
		return id
	case tInt, tFloat:
		p.next()
		lit := &ast.Literal{Pos: t.pos, Kind: ast.LitInt, Text: p.str(t)}
		if t.kind == tFloat {
			lit.Kind = ast.LitFloat
		}
		if t.suffix != 0 {
			lit.Suffix = string(rune(t.suffix))
		}
		return lit
	case tKeyword:
		if p.str(t) == "true" || p.str(t) == "false" {
			p.next()
			return &ast.Literal{Pos: t.pos, Kind: ast.LitBool, Text: p.str(t)}
		}
	case tPunct:
		if p.str(t) == "(" {
			p.next()
			x := p.expr()
			if !p.bad {
				p.expect(")", "to close the parenthesised expression", "syntax: paren_expression")
			}
			return &ast.ParenExpr{Pos: t.pos, X: x}
		}
	}
	if t.kind == tKeyword {
		p.errorAt(t.pos, "syntax: primary_expression", "expected an expression, found keyword '"+p.str(t)+"'")
	} else {
		p.errExpected("an expression", "", "syntax: primary_expression")
	}
	return p.badExpr()
}

// callArgs parses argument_expression_list; the current token is '('.
func (p *parser) callArgs() []ast.Expr {
	open := p.tok()
	p.next()
	var args []ast.Expr
	for !p.is(")") {
		args = append(args, p.expr())
		if p.bad {
			return args
		}
		if p.got(",") {
			continue
		}
		if !p.is(")") {
			p.errExpected("',' or ')'", "in the argument list that starts at "+posText(open.pos), "syntax: argument_expression_list")
			return args
		}
	}
	p.next()
	return args
}

// postfix parses component_or_swizzle_specifier chains.
func (p *parser) postfix(x ast.Expr) ast.Expr {
	for !p.bad {
		t := p.tok()
		switch {
		case tokIs(t, "."):
			p.next()
			m := p.tok()
			if m.kind != tIdent {
				if m.kind == tKeyword {
					p.errorAt(m.pos, "syntax: component_or_swizzle_specifier", "expected a member name or swizzle after '.', found keyword '"+p.str(m)+"'")
				} else {
					p.errExpected("a member name or swizzle", "after '.'", "syntax: component_or_swizzle_specifier")
				}
				return x
			}
			p.next()
			x = &ast.MemberExpr{Pos: t.pos, X: x, Member: p.str(m)}
		case tokIs(t, "["):
			p.next()
			idx := p.expr()
			x = &ast.IndexExpr{Pos: t.pos, X: x, Index: idx}
			if !p.bad {
				p.expect("]", "to close the index expression", "syntax: component_or_swizzle_specifier")
			}
		default:
			return x
		}
	}
	return x
}
