// Package ast is the WGSL syntax tree that package wgsl's parser
// (parse.go) produces and its checker (check.go) and GLSL writer (glsl.go)
// read; internal, so that package wgsl's API is Translate and its results
// alone. It follows the WGSL grammar
// (https://www.w3.org/TR/WGSL/#grammar-recursive-descent): a type is an
// identifier with an optional template list, exactly like the callee of a
// value constructor, so types are *Ident nodes throughout.
package ast

// Pos is a position in the source: 1-based line and column (columns count
// bytes, as the specification's diagnostics do).
type Pos struct {
	Line, Col int
}

// Node is any syntax tree node.
type Node interface {
	Position() Pos
}

// Attribute is @name or @name(args...), e.g. @group(0), @workgroup_size(8, 8),
// @builtin(global_invocation_id). Arguments are expressions; the builtin and
// interpolation names are *Ident expressions.
type Attribute struct {
	Pos  Pos
	Name string
	Args []Expr
}

// ---- Module ----------------------------------------------------------------

// Module is one translation unit.
type Module struct {
	// Directives are enable, requires and diagnostic directives, in order.
	Directives []*Directive
	// Decls are the global declarations in source order.
	Decls []Decl
}

// Directive is `enable f16;`, `requires readonly_and_readwrite_storage_textures;`
// or `diagnostic(off, derivative_uniformity);`.
type Directive struct {
	Pos  Pos
	Kind string   // "enable", "requires" or "diagnostic"
	Args []string // extension names, or the diagnostic's severity and rule
}

// Decl is a global declaration: *VarDecl (var, let, const, override),
// *StructDecl, *AliasDecl, *FuncDecl or *ConstAssert.
type Decl interface {
	Node
	declNode()
}

// VarDecl is `var<space, access> name: T = init;`, `const name: T = init;`,
// `override name: T = init;` or, inside functions, `let name: T = init;`.
type VarDecl struct {
	Pos   Pos
	Attrs []*Attribute
	Kind  string // "var", "let", "const" or "override"
	// AddressSpace and Access are the var's template list (empty when absent).
	AddressSpace string
	Access       string
	Name         string
	NamePos      Pos
	Type         *Ident // nil when inferred
	Init         Expr   // nil when absent
}

// StructDecl is `struct Name { members }`.
type StructDecl struct {
	Pos     Pos
	Name    string
	Members []*Member
}

// Member is one struct member, with its @align, @size, @builtin... attributes.
type Member struct {
	Pos   Pos
	Attrs []*Attribute
	Name  string
	Type  *Ident
}

// AliasDecl is `alias Name = T;`.
type AliasDecl struct {
	Pos  Pos
	Name string
	Type *Ident
}

// FuncDecl is a function declaration.
type FuncDecl struct {
	Pos         Pos
	Attrs       []*Attribute // @compute, @workgroup_size(...), ...
	Name        string
	Params      []*Param
	Result      *Ident       // nil when the function returns nothing
	ResultAttrs []*Attribute // attributes after ->
	Body        *BlockStmt
}

// Param is one function parameter.
type Param struct {
	Pos   Pos
	Attrs []*Attribute
	Name  string
	Type  *Ident
}

// ConstAssert is `const_assert expr;`; inside a function body it is
// wrapped in a *ConstAssertStmt.
type ConstAssert struct {
	Pos  Pos
	Cond Expr
}

func (*VarDecl) declNode()     {}
func (*StructDecl) declNode()  {}
func (*AliasDecl) declNode()   {}
func (*FuncDecl) declNode()    {}
func (*ConstAssert) declNode() {}

func (d *VarDecl) Position() Pos     { return d.Pos }
func (d *StructDecl) Position() Pos  { return d.Pos }
func (d *Member) Position() Pos      { return d.Pos }
func (d *AliasDecl) Position() Pos   { return d.Pos }
func (d *FuncDecl) Position() Pos    { return d.Pos }
func (d *Param) Position() Pos       { return d.Pos }
func (d *ConstAssert) Position() Pos { return d.Pos }
func (d *Attribute) Position() Pos   { return d.Pos }
func (d *Directive) Position() Pos   { return d.Pos }

// ---- Statements ------------------------------------------------------------

// Stmt is a statement.
type Stmt interface {
	Node
	stmtNode()
}

// BlockStmt is `{ stmts }`.
type BlockStmt struct {
	Pos   Pos
	Stmts []Stmt
}

// DeclStmt declares a local var, let or const.
type DeclStmt struct {
	Decl *VarDecl
}

// AssignStmt is `lhs = rhs`, `lhs op= rhs` (Op is "+=", "<<=", ...) or the
// phony assignment `_ = rhs` (LHS is nil).
type AssignStmt struct {
	Pos Pos
	LHS Expr // nil for `_ = rhs`
	Op  string
	RHS Expr
}

// IncDecStmt is `lhs++` or `lhs--`.
type IncDecStmt struct {
	Pos Pos
	LHS Expr
	Op  string // "++" or "--"
}

// CallStmt is a function call used as a statement.
type CallStmt struct {
	Call *CallExpr
}

// IfStmt is `if cond { } else if ... else { }`; Else is nil, an *IfStmt or a
// *BlockStmt.
type IfStmt struct {
	Pos   Pos
	Attrs []*Attribute
	Cond  Expr
	Body  *BlockStmt
	Else  Stmt
}

// SwitchStmt is `switch expr { case ...: {} default: {} }`.
type SwitchStmt struct {
	Pos     Pos
	Attrs   []*Attribute
	Tag     Expr
	Clauses []*CaseClause
}

// CaseClause is one case or default clause. Selectors holds the case
// expressions; a nil element stands for `default` used as a selector
// (`case 1, default:`). Default is true for a `default:` clause.
type CaseClause struct {
	Pos       Pos
	Selectors []Expr
	Default   bool
	Body      *BlockStmt
}

// LoopStmt is `loop { body continuing { ... break if cond; } }`.
type LoopStmt struct {
	Pos        Pos
	Attrs      []*Attribute
	Body       *BlockStmt
	Continuing *BlockStmt // nil when absent
	BreakIf    Expr       // the continuing block's `break if`, nil when absent
}

// ForStmt is `for (init; cond; update) { body }`; each part may be nil.
// Init is a *DeclStmt, *AssignStmt, *IncDecStmt or *CallStmt; Update an
// *AssignStmt, *IncDecStmt or *CallStmt.
type ForStmt struct {
	Pos    Pos
	Attrs  []*Attribute
	Init   Stmt
	Cond   Expr
	Update Stmt
	Body   *BlockStmt
}

// WhileStmt is `while cond { body }`.
type WhileStmt struct {
	Pos   Pos
	Attrs []*Attribute
	Cond  Expr
	Body  *BlockStmt
}

// BranchStmt is break, continue or discard.
type BranchStmt struct {
	Pos  Pos
	Kind string // "break", "continue" or "discard"
}

// ReturnStmt is `return` or `return expr`.
type ReturnStmt struct {
	Pos   Pos
	Value Expr // nil when absent
}

// ConstAssertStmt is const_assert inside a function.
type ConstAssertStmt struct {
	Assert *ConstAssert
}

func (*BlockStmt) stmtNode()       {}
func (*DeclStmt) stmtNode()        {}
func (*AssignStmt) stmtNode()      {}
func (*IncDecStmt) stmtNode()      {}
func (*CallStmt) stmtNode()        {}
func (*IfStmt) stmtNode()          {}
func (*SwitchStmt) stmtNode()      {}
func (*LoopStmt) stmtNode()        {}
func (*ForStmt) stmtNode()         {}
func (*WhileStmt) stmtNode()       {}
func (*BranchStmt) stmtNode()      {}
func (*ReturnStmt) stmtNode()      {}
func (*ConstAssertStmt) stmtNode() {}

func (s *BlockStmt) Position() Pos       { return s.Pos }
func (s *DeclStmt) Position() Pos        { return s.Decl.Pos }
func (s *AssignStmt) Position() Pos      { return s.Pos }
func (s *IncDecStmt) Position() Pos      { return s.Pos }
func (s *CallStmt) Position() Pos        { return s.Call.Pos }
func (s *IfStmt) Position() Pos          { return s.Pos }
func (s *SwitchStmt) Position() Pos      { return s.Pos }
func (s *CaseClause) Position() Pos      { return s.Pos }
func (s *LoopStmt) Position() Pos        { return s.Pos }
func (s *ForStmt) Position() Pos         { return s.Pos }
func (s *WhileStmt) Position() Pos       { return s.Pos }
func (s *BranchStmt) Position() Pos      { return s.Pos }
func (s *ReturnStmt) Position() Pos      { return s.Pos }
func (s *ConstAssertStmt) Position() Pos { return s.Assert.Pos }

// ---- Expressions -----------------------------------------------------------

// Expr is an expression. Types are expressions too (*Ident with template
// arguments), as in the grammar's template_elaborated_ident.
type Expr interface {
	Node
	exprNode()
}

// Ident is a name with an optional template list: `x`, `f32`,
// `vec3<f32>`, `array<vec4f, 16>`, `ptr<function, i32>`,
// `texture_storage_2d<rgba8unorm, write>`. Template arguments that are
// enumerants (address spaces, access modes, texel formats) are *Ident too.
type Ident struct {
	Pos  Pos
	Name string
	Args []Expr // template arguments; nil when there is no template list
}

// LitKind is the kind of a literal.
type LitKind int

// Literal kinds.
const (
	LitBool  LitKind = iota // true, false
	LitInt                  // 1, 0x1f, 1i, 2u (Suffix says which)
	LitFloat                // 1.0, 1e3, 0x1p4, 1f, 1h (Suffix says which)
)

// Literal is a bool, integer or floating-point literal, kept as written.
type Literal struct {
	Pos    Pos
	Kind   LitKind
	Text   string // as written, suffix included
	Suffix string // "", "i", "u", "f" or "h"
}

// CallExpr is a function call, a value constructor (`vec3<f32>(...)`,
// `array(...)`, `S(...)`) or a conversion (`f32(x)`, `bitcast<u32>(x)`):
// the callee is an *Ident, possibly with a template list.
type CallExpr struct {
	Pos    Pos
	Callee *Ident
	Args   []Expr
}

// ParenExpr is `(x)`.
type ParenExpr struct {
	Pos Pos
	X   Expr
}

// MemberExpr is `x.name`: a struct member or a vector swizzle.
type MemberExpr struct {
	Pos    Pos // position of the '.'
	X      Expr
	Member string
}

// IndexExpr is `x[index]`.
type IndexExpr struct {
	Pos   Pos // position of the '['
	X     Expr
	Index Expr
}

// UnaryExpr is `-x`, `!x`, `~x`, `*p` (dereference) or `&x` (address-of).
type UnaryExpr struct {
	Pos Pos
	Op  string
	X   Expr
}

// BinaryExpr is `x op y` for the arithmetic, bitwise, shift, relational and
// short-circuit operators.
type BinaryExpr struct {
	Pos  Pos // position of the operator
	Op   string
	X, Y Expr
}

func (*Ident) exprNode()      {}
func (*Literal) exprNode()    {}
func (*CallExpr) exprNode()   {}
func (*ParenExpr) exprNode()  {}
func (*MemberExpr) exprNode() {}
func (*IndexExpr) exprNode()  {}
func (*UnaryExpr) exprNode()  {}
func (*BinaryExpr) exprNode() {}

func (e *Ident) Position() Pos      { return e.Pos }
func (e *Literal) Position() Pos    { return e.Pos }
func (e *CallExpr) Position() Pos   { return e.Pos }
func (e *ParenExpr) Position() Pos  { return e.Pos }
func (e *MemberExpr) Position() Pos { return e.Pos }
func (e *IndexExpr) Position() Pos  { return e.Pos }
func (e *UnaryExpr) Position() Pos  { return e.Pos }
func (e *BinaryExpr) Position() Pos { return e.Pos }
