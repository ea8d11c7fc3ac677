package wgsl

// This file is the lexer: it turns WGSL source into tokens, following the
// specification's sections "Blankspace and Line Breaks", "Comments",
// "Tokens", "Literals", "Keywords", "Identifiers" and "Template Lists".
//
// Lexing runs in three passes over the whole source:
//
//  1. scan: blankspace and comments are dropped; identifiers, keywords and
//     literals become one token each; every punctuation code point becomes
//     a token of its own, remembering whether the next code point follows
//     it immediately.
//  2. discoverTemplates: the specification's template list discovery
//     algorithm runs over those tokens (it is defined on code points, but
//     with single-character punctuation tokens and adjacency the two are
//     the same) and marks the '<' and '>' that delimit template lists.
//  3. mergeOps: adjacent punctuation tokens that are not template list
//     delimiters are joined into the longest operator they spell ("<<=",
//     "->", "&&", ...), which is the specification's longest-token rule.

import (
	"github.com/gfxcuda/gfxcuda/shader/wgsl/internal/ast"

	"strings"
	"unicode"
	"unicode/utf8"
)

// tokKind is the kind of a token.
type tokKind uint8

const (
	tEOF        tokKind = iota
	tIdent              // an identifier (also reserved words and "__x", after an error)
	tKeyword            // a keyword: fn, var, true, ...
	tUnderscore         // a lone '_'
	tInt                // an integer literal
	tFloat              // a floating point literal
	tPunct              // an operator or punctuation: "(", "<<=", "->", ...
	tTmplStart          // '<' that starts a template list
	tTmplEnd            // '>' that ends a template list
)

// Token flags.
const (
	// fAfterError marks a token that follows a lexical error (a dropped
	// character, an unterminated comment): the parser does not report it
	// as unexpected, since the real problem has been reported already.
	fAfterError uint8 = 1 << iota
)

// token is one token. It holds no pointers (the garbage collector need not
// scan the token list): its text is src[off:off+n].
type token struct {
	pos    ast.Pos
	off    int32 // byte offset of the first byte
	n      int32 // length in bytes
	kind   tokKind
	flags  uint8
	suffix byte    // literal suffix: 0, 'i', 'u', 'f' or 'h'
	op     [3]byte // a punctuation token's characters (n of them)
}

// end returns the byte offset just past the token.
func (t *token) end() int32 { return t.off + t.n }

// text returns the token's text in src.
func (t *token) text(src string) string { return src[t.off : t.off+t.n] }

// maxParseErrors caps the errors reported for one program.
const maxParseErrors = 20

// Word classes for wgslWords.
const (
	wordKeyword  = 1
	wordReserved = 2
)

// wgslWords classifies the WGSL keywords (section "Keyword Summary") and
// reserved words (section "Reserved Words"); wgslWordGate[c] has bit n set
// when some word starts with byte c and has length n (n < 64), so that
// most identifiers need no map look-up.
var wgslWords, wgslWordGate = func() (map[string]uint8, *[128]uint64) {
	m := map[string]uint8{}
	gate := new([128]uint64)
	add := func(w string, class uint8) {
		m[w] = class
		gate[w[0]] |= 1 << min(len(w), 63)
	}
	for _, w := range strings.Fields(`alias break case const const_assert
		continue continuing default diagnostic discard else enable false fn
		for if let loop override requires return struct switch true var
		while`) {
		add(w, wordKeyword)
	}
	for _, w := range strings.Fields(`NULL Self abstract active alignas
		alignof as asm asm_fragment async attribute auto await become cast
		catch class co_await co_return co_yield coherent column_major common
		compile compile_fragment concept const_cast consteval constexpr
		constinit crate debugger decltype delete demote demote_to_helper do
		dynamic_cast enum explicit export extends extern external
		fallthrough filter final finally friend from fxgroup get goto
		groupshared highp impl implements import inline instanceof
		interface layout lowp macro macro_rules match mediump meta mod
		module move mut mutable namespace new nil noexcept noinline
		nointerpolation non_coherent noncoherent noperspective null nullptr
		of operator package packoffset partition pass patch pixelfragment
		precise precision premerge priv protected pub public readonly ref
		regardless register reinterpret_cast require resource restrict self
		set shared sizeof smooth snorm static static_assert static_cast std
		subroutine super target template this thread_local throw trait try
		type typedef typeid typename typeof union unless unorm unsafe
		unsized use using varying virtual volatile wgsl where with
		writeonly yield`) {
		add(w, wordReserved)
	}
	return m, gate
}()

// wordClass returns wordKeyword, wordReserved or 0 for an identifier.
func wordClass(s string) uint8 {
	if s[0] >= 128 || wgslWordGate[s[0]]&(1<<min(len(s), 63)) == 0 {
		return 0
	}
	return wgslWords[s]
}

// lexer holds the state of the scan pass.
type lexer struct {
	src       string
	file      string
	i         int // current byte offset
	line      int // current line, 1-based
	lineStart int // byte offset of the current line's first byte
	toks      []token
	errs      ErrorList
	afterErr  bool // the next token follows a lexical error
}

// lex tokenizes src: the token list always ends with a tEOF token.
func lex(src, file string) ([]token, ErrorList) {
	l := &lexer{src: src, file: file, line: 1}
	l.toks = make([]token, 0, len(src)/3+8)
	l.scan()
	discoverTemplates(l.toks)
	return mergeOps(l.toks), l.errs
}

func (l *lexer) pos(off int) ast.Pos { return ast.Pos{Line: l.line, Col: off - l.lineStart + 1} }

func (l *lexer) errorf(p ast.Pos, rule, msg string) {
	l.afterErr = true
	if len(l.errs) >= maxParseErrors {
		return
	}
	l.errs = append(l.errs, &Error{File: l.file, Line: p.Line, Col: p.Col, Msg: msg, Rule: rule})
}

func (l *lexer) emit(kind tokKind, start int, p ast.Pos) *token {
	t := token{kind: kind, pos: p, off: int32(start), n: int32(l.i - start)}
	if kind == tPunct {
		t.op[0] = l.src[start]
	}
	if l.afterErr {
		t.flags |= fAfterError
		l.afterErr = false
	}
	l.toks = append(l.toks, t)
	return &l.toks[len(l.toks)-1]
}

// lineBreak returns the length in bytes of the line break starting at
// offset i, or 0 when none starts there. CR LF counts as one line break.
func lineBreak(s string, i int) int {
	switch s[i] {
	case '\n', '\v', '\f':
		return 1
	case '\r':
		if i+1 < len(s) && s[i+1] == '\n' {
			return 2
		}
		return 1
	case 0xC2: // U+0085 next line
		if i+1 < len(s) && s[i+1] == 0x85 {
			return 2
		}
	case 0xE2: // U+2028 line separator, U+2029 paragraph separator
		if i+2 < len(s) && s[i+1] == 0x80 && (s[i+2] == 0xA8 || s[i+2] == 0xA9) {
			return 3
		}
	}
	return 0
}

// newline consumes a line break of n bytes at the current offset.
func (l *lexer) newline(n int) {
	l.i += n
	l.line++
	l.lineStart = l.i
}

func lexDigit(c byte) bool    { return '0' <= c && c <= '9' }
func lexHexDigit(c byte) bool { return lexDigit(c) || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F' }
func lexLetter(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

// asciiPunct marks the ASCII bytes that are punctuation tokens.
var asciiPunct = func() (t [128]bool) {
	for _, c := range []byte("&|^~!+-*/%<>=()[]{},.;:@") {
		t[c] = true
	}
	return t
}()

// asciiIdent marks the ASCII bytes that continue an identifier.
var asciiIdent = func() (t [256]bool) {
	for c := 0; c < 128; c++ {
		t[c] = lexLetter(byte(c)) || lexDigit(byte(c)) || c == '_'
	}
	return t
}()

// lexIdentStart approximates XID_Start for non-ASCII code points.
func lexIdentStart(r rune) bool {
	return unicode.IsLetter(r) || unicode.Is(unicode.Nl, r)
}

// lexIdentContinue approximates XID_Continue for non-ASCII code points.
func lexIdentContinue(r rune) bool {
	return lexIdentStart(r) || unicode.In(r, unicode.Mn, unicode.Mc, unicode.Nd, unicode.Pc)
}

// identContinueLen returns the size of the identifier-continuing code point
// at offset i, or 0.
func identContinueLen(s string, i int) int {
	if i >= len(s) {
		return 0
	}
	c := s[i]
	if c < utf8.RuneSelf {
		if lexLetter(c) || lexDigit(c) || c == '_' {
			return 1
		}
		return 0
	}
	r, n := utf8.DecodeRuneInString(s[i:])
	if r == utf8.RuneError || !lexIdentContinue(r) {
		return 0
	}
	return n
}

// scan is the first pass: it fills l.toks and ends them with tEOF.
func (l *lexer) scan() {
	s := l.src
	if strings.HasPrefix(s, "\uFEFF") { // a UTF-8 byte order mark
		l.i = 3
		l.lineStart = 3
	}
	for l.i < len(s) {
		c := s[l.i]
		switch {
		case c == ' ' || c == '\t':
			l.i++
		case c == '\n' || c == '\v' || c == '\f' || c == '\r':
			l.newline(lineBreak(s, l.i))
		case c == '/' && l.i+1 < len(s) && s[l.i+1] == '/':
			for l.i < len(s) && lineBreak(s, l.i) == 0 {
				l.i++
			}
		case c == '/' && l.i+1 < len(s) && s[l.i+1] == '*':
			l.blockComment()
		case lexDigit(c) || c == '.' && l.i+1 < len(s) && lexDigit(s[l.i+1]):
			l.number()
		case lexLetter(c) || c == '_':
			l.ident()
		case c < utf8.RuneSelf:
			if asciiPunct[c] {
				start := l.i
				p := l.pos(start)
				l.i++
				l.emit(tPunct, start, p)
			} else {
				l.badChar()
			}
		default:
			if n := lineBreak(s, l.i); n > 0 {
				l.newline(n)
				continue
			}
			r, n := utf8.DecodeRuneInString(s[l.i:])
			switch {
			case r == utf8.RuneError && n == 1:
				p := l.pos(l.i)
				for l.i < len(s) && s[l.i] >= utf8.RuneSelf {
					if r, n := utf8.DecodeRuneInString(s[l.i:]); r != utf8.RuneError || n != 1 {
						break
					}
					l.i++
				}
				l.errorf(p, "syntax: tokens", "invalid UTF-8 encoding in the source text")
			case r == 0x200E || r == 0x200F: // left-to-right, right-to-left mark
				l.i += n
			case lexIdentStart(r):
				l.ident()
			default:
				l.badChar()
			}
		}
	}
	l.emit(tEOF, l.i, l.pos(l.i))
}

// badChar reports and skips a code point that starts no token.
func (l *lexer) badChar() {
	p := l.pos(l.i)
	r, n := utf8.DecodeRuneInString(l.src[l.i:])
	l.i += n
	var what string
	if unicode.IsPrint(r) {
		what = "'" + string(r) + "'"
	} else {
		what = "U+" + strings.ToUpper(lexHex4(uint32(r)))
	}
	l.errorf(p, "syntax: tokens", "invalid character "+what+" in the source text")
}

// lexHex4 formats v in hexadecimal with at least 4 digits.
func lexHex4(v uint32) string {
	const digits = "0123456789abcdef"
	var b [8]byte
	i := len(b)
	for v != 0 || i > len(b)-4 {
		i--
		b[i] = digits[v&15]
		v >>= 4
	}
	return string(b[i:])
}

// blockComment skips a (nested) block comment starting at l.i.
func (l *lexer) blockComment() {
	s := l.src
	p := l.pos(l.i)
	depth := 0
	for l.i < len(s) {
		c := s[l.i]
		switch {
		case c == '/' && l.i+1 < len(s) && s[l.i+1] == '*':
			depth++
			l.i += 2
		case c == '*' && l.i+1 < len(s) && s[l.i+1] == '/':
			depth--
			l.i += 2
			if depth == 0 {
				return
			}
		default:
			if n := lineBreak(s, l.i); n > 0 {
				l.newline(n)
			} else {
				l.i++
			}
		}
	}
	l.errorf(p, "comments", "unterminated block comment: '/*' has no matching '*/'")
}

// ident scans an identifier, keyword or reserved word.
func (l *lexer) ident() {
	s := l.src
	start := l.i
	p := l.pos(start)
	for l.i < len(s) && asciiIdent[s[l.i]] {
		l.i++
	}
	for {
		n := identContinueLen(s, l.i)
		if n == 0 {
			break
		}
		l.i += n
	}
	if l.i == start { // cannot happen: the caller saw a start character
		l.i++
	}
	text := s[start:l.i]
	class := wordClass(text)
	switch {
	case text == "_":
		l.emit(tUnderscore, start, p)
	case class == wordKeyword:
		l.emit(tKeyword, start, p)
	case class == wordReserved:
		l.errorf(p, "reserved words", "'"+text+"' is a reserved word in WGSL and cannot be used as a name")
		l.afterErr = false
		l.emit(tIdent, start, p)
	case strings.HasPrefix(text, "__"):
		l.errorf(p, "identifiers", "identifier '"+text+"' must not start with '__'")
		l.afterErr = false
		l.emit(tIdent, start, p)
	default:
		l.emit(tIdent, start, p)
	}
}

// digits advances past decimal digits and returns how many there were.
func (l *lexer) digits() int {
	n := 0
	for l.i < len(l.src) && lexDigit(l.src[l.i]) {
		l.i++
		n++
	}
	return n
}

func (l *lexer) hexDigits() int {
	n := 0
	for l.i < len(l.src) && lexHexDigit(l.src[l.i]) {
		l.i++
		n++
	}
	return n
}

// exponent advances past [eE][+-]?[0-9]+ (or [pP] for hex floats) when it
// is complete, and reports whether it was.
func (l *lexer) exponent(e1, e2 byte) bool {
	s := l.src
	j := l.i
	if j >= len(s) || s[j] != e1 && s[j] != e2 {
		return false
	}
	j++
	if j < len(s) && (s[j] == '+' || s[j] == '-') {
		j++
	}
	if j >= len(s) || !lexDigit(s[j]) {
		return false
	}
	for j < len(s) && lexDigit(s[j]) {
		j++
	}
	l.i = j
	return true
}

// suffix advances past one of the suffix bytes a or b and returns it, or 0.
func (l *lexer) suffix(a, b byte) byte {
	if l.i < len(l.src) && (l.src[l.i] == a || l.src[l.i] == b) {
		l.i++
		return l.src[l.i-1]
	}
	return 0
}

// number scans a numeric literal: the longest match of the specification's
// decimal_int_literal, hex_int_literal, decimal_float_literal and
// hex_float_literal patterns. A literal immediately followed by identifier
// characters (08, 1e, 0x1h, 1.5q) is reported as one invalid literal.
func (l *lexer) number() {
	s := l.src
	start := l.i
	p := l.pos(start)
	kind := tInt
	var suf byte
	problem := ""
	exp := false
	if s[l.i] == '0' && l.i+1 < len(s) && (s[l.i+1] == 'x' || s[l.i+1] == 'X') {
		l.i += 2
		h1 := l.hexDigits()
		h2 := 0
		dot := false
		if l.i < len(s) && s[l.i] == '.' && (h1 > 0 || l.i+1 < len(s) && lexHexDigit(s[l.i+1])) {
			dot = true
			l.i++
			h2 = l.hexDigits()
		}
		switch {
		case h1 == 0 && h2 == 0:
			problem = "'0x' must be followed by hexadecimal digits"
		case l.exponent('p', 'P'):
			kind, exp = tFloat, true
			suf = l.suffix('f', 'h')
		case dot:
			kind = tFloat
		default:
			suf = l.suffix('i', 'u')
		}
		if problem == "" && !exp && l.i < len(s) && (s[l.i] == 'p' || s[l.i] == 'P') {
			problem = "the exponent has no digits"
		}
	} else {
		d := l.digits()
		switch {
		case l.i < len(s) && s[l.i] == '.' && (d > 0 || l.i+1 < len(s) && lexDigit(s[l.i+1])):
			l.i++
			l.digits()
			kind = tFloat
			exp = l.exponent('e', 'E')
			suf = l.suffix('f', 'h')
		case l.exponent('e', 'E'):
			kind, exp = tFloat, true
			suf = l.suffix('f', 'h')
		case d > 1 && s[start] == '0':
			problem = "leading zeros are not allowed in integer literals"
		case l.i < len(s) && (s[l.i] == 'f' || s[l.i] == 'h'):
			kind = tFloat
			suf = l.suffix('f', 'h')
		default:
			suf = l.suffix('i', 'u')
		}
		if problem == "" && !exp && suf == 0 && l.i < len(s) && (s[l.i] == 'e' || s[l.i] == 'E') {
			problem = "the exponent has no digits"
		}
	}
	// A literal must not run into identifier characters.
	validEnd := l.i
	if n := identContinueLen(s, l.i); n > 0 || problem != "" {
		for n > 0 {
			l.i += n
			n = identContinueLen(s, l.i)
		}
		if problem == "" {
			problem = "'" + s[validEnd:l.i] + "' is not a valid suffix"
		}
		l.errorf(p, "literals", "invalid numeric literal '"+s[start:l.i]+"': "+problem)
		l.afterErr = false
	}
	t := l.emit(kind, start, p)
	t.suffix = suf
}

// tokIdentLike reports whether t matches the specification's
// ident_pattern_token (identifiers, keywords and reserved words alike).
func tokIdentLike(t *token) bool { return t.kind == tIdent || t.kind == tKeyword }

// tokIs reports whether t is the punctuation token op.
func tokIs(t *token, op string) bool {
	if t.kind != tPunct || int(t.n) != len(op) {
		return false
	}
	for i := 0; i < len(op); i++ {
		if t.op[i] != op[i] {
			return false
		}
	}
	return true
}

// adjacent reports whether token b starts right where token a ends.
func tokAdjacent(a, b *token) bool { return a.end() == b.off }

// discoverTemplates runs the specification's "template list discovery"
// algorithm over single-character punctuation tokens and turns the '<'
// and '>' tokens that delimit template lists into tTmplStart and tTmplEnd.
func discoverTemplates(toks []token) {
	type candidate struct{ idx, depth int }
	var pendingBuf [16]candidate
	pending := pendingBuf[:0]
	depth := 0
	popTo := func(d int) { // pop while top.depth >= d
		for len(pending) > 0 && pending[len(pending)-1].depth >= d {
			pending = pending[:len(pending)-1]
		}
	}
	n := len(toks)
	for i := 0; i < n; i++ {
		t := &toks[i]
		if tokIdentLike(t) {
			if i+1 < n && tokIs(&toks[i+1], "<") {
				j := i + 1
				if j+1 < n && tokAdjacent(&toks[j], &toks[j+1]) && (tokIs(&toks[j+1], "<") || tokIs(&toks[j+1], "=")) {
					// "<<" or "<=": not a template list.
					i = j + 1
					continue
				}
				pending = append(pending, candidate{j, depth})
				i = j
			}
			continue
		}
		if t.kind != tPunct {
			continue
		}
		if t.n != 1 {
			continue
		}
		switch t.op[0] {
		case '>':
			if len(pending) > 0 && pending[len(pending)-1].depth == depth {
				toks[pending[len(pending)-1].idx].kind = tTmplStart
				t.kind = tTmplEnd
				pending = pending[:len(pending)-1]
				continue
			}
			if nextIs(toks, i, '=') {
				i++
			}
		case '(', '[':
			depth++
		case ')', ']':
			popTo(depth)
			depth = max(0, depth-1)
		case '!':
			if nextIs(toks, i, '=') {
				i++
			}
		case '=':
			if nextIs(toks, i, '=') {
				i++
				continue
			}
			depth = 0
			pending = pending[:0]
		case ';', '{', ':':
			depth = 0
			pending = pending[:0]
		case '&', '|':
			if nextIs(toks, i, t.op[0]) {
				popTo(depth)
				i++
			}
		}
	}
}

// nextIs reports whether toks[i+1] is the single-character punctuation
// c and follows toks[i] immediately.
func nextIs(toks []token, i int, c byte) bool {
	if i+1 >= len(toks) {
		return false
	}
	n := &toks[i+1]
	return n.kind == tPunct && n.n == 1 && n.op[0] == c && tokAdjacent(&toks[i], n)
}

// mergeOps joins adjacent punctuation tokens into multi-character
// operators, in place; template list delimiters are never joined. The
// operators are those of the specification: "&&" "||" "--" "++" "->"
// "<<" ">>" "<=" ">=" "==" "!=" "+=" "-=" "*=" "/=" "%=" "&=" "|=" "^="
// "<<=" ">>=".
func mergeOps(toks []token) []token {
	w := 0
	for r := 0; r < len(toks); r++ {
		t := toks[r]
		if t.kind == tPunct && r+1 < len(toks) {
			if n := &toks[r+1]; n.kind == tPunct && n.flags&fAfterError == 0 && tokAdjacent(&t, n) {
				if k := opLen(t.op[0], n.op[0], toks[r+1:]); k > 1 {
					t.op[1] = n.op[0]
					if k == 3 {
						t.op[2] = '='
					}
					t.n = int32(k)
					r += k - 1
				}
			}
		}
		toks[w] = t
		w++
	}
	return toks[:w]
}

// opLen returns how many single-character tokens, starting with the
// characters a and b, form one operator: 3, 2 or 0. rest starts at b's
// token.
func opLen(a, b byte, rest []token) int {
	switch {
	case (a == '<' || a == '>') && b == a:
		if len(rest) > 1 && tokIs(&rest[1], "=") && rest[1].flags&fAfterError == 0 && tokAdjacent(&rest[0], &rest[1]) {
			return 3
		}
		return 2
	case b == '=':
		if strings.IndexByte("<>=!+-*/%&|^", a) >= 0 {
			return 2
		}
	case (a == '&' || a == '|' || a == '+' || a == '-') && b == a, a == '-' && b == '>':
		return 2
	}
	return 0
}
