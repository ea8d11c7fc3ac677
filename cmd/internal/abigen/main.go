// Command abigen writes Python's ctypes declarations of libgfxcuda's C ABI
// (python/gfxcuda/_abi.py) from the C header, cmd/libgfxcuda/gfxcuda.h,
// the one place the ABI is declared: its struct typedefs become
// ctypes.Structure classes, its enum constants Python ints, and its
// prototypes a table of each function's result and argument types, every
// one with the header's doc comment kept as a comment.
//
// cmd/libgfxcuda runs it through go generate:
//
//	go generate ./cmd/libgfxcuda
//
// The parser is purpose-built for gfxcuda.h's regular style: block comments
// (the one right above a declaration, with no blank line between, is its
// documentation), enums and struct typedefs with one trailing comment per
// line, and prototypes of the fixed-width integer types, size_t, ssize_t,
// int, char, void, float, double and the header's own struct typedefs.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"regexp"
	"strings"
)

func main() {
	header := flag.String("header", "gfxcuda.h", "the C header to read")
	out := flag.String("out", "../../python/gfxcuda/_abi.py", "the Python module to write")
	flag.Parse()
	src, err := os.ReadFile(*header)
	if err != nil {
		fmt.Fprintf(os.Stderr, "abigen: %v\n", err)
		os.Exit(1)
	}
	py, err := generate(string(src))
	if err != nil {
		fmt.Fprintf(os.Stderr, "abigen: %s: %v\n", *header, err)
		os.Exit(1)
	}
	if err := os.WriteFile(*out, py, 0o644); err != nil {
		fmt.Fprintf(os.Stderr, "abigen: %v\n", err)
		os.Exit(1)
	}
}

// abi is what the header declares.
type abi struct {
	items []item // in the header's order
}

// item is one declaration: an enum, a struct typedef or a function.
type item struct {
	kind    string // "enum", "struct" or "func"
	doc     []string
	name    string   // the struct's typedef name or the function's name
	members []member // enum constants or struct fields
	ret     cType    // functions
	params  []param  // functions
}

// member is an enum constant (value set) or a struct field (typ set).
type member struct {
	name    string
	value   string
	typ     cType
	array   string // a field's array length ("" when none)
	comment string // the trailing comment of its line
}

type param struct {
	name string
	typ  cType
}

// cType is a C type as the header spells it: a base type and how many
// pointers to it (const dropped: ctypes has none).
type cType struct {
	base string
	ptrs int
}

// unit is a top-level piece of the header: a block comment or a statement
// (up to its ';').
type unit struct {
	comment        bool
	text           string
	startLn, endLn int
}

// split cuts the header into top-level block comments and statements,
// skipping preprocessor lines and the __cplusplus guards between them.
func split(src string) ([]unit, error) {
	var units []unit
	line, depth := 1, 0
	var stmt strings.Builder
	stmtStart := 0
	atLineStart := true
	for i := 0; i < len(src); {
		c := src[i]
		switch {
		case depth == 0 && atLineStart && c == '#':
			end := strings.IndexByte(src[i:], '\n')
			if end < 0 {
				end = len(src) - i
			}
			directive := strings.Join(strings.Fields(src[i:i+end]), " ")
			i += end
			if directive == "#ifdef __cplusplus" {
				// Skip to its #endif: extern "C" { or its }.
				j := strings.Index(src[i:], "\n#endif")
				if j < 0 {
					return nil, fmt.Errorf("line %d: #ifdef __cplusplus without #endif", line)
				}
				line += strings.Count(src[i:i+j+1], "\n")
				i += j + 1
				end = strings.IndexByte(src[i:], '\n')
				if end < 0 {
					end = len(src) - i
				}
				i += end
			}
			continue
		case c == '/' && i+1 < len(src) && src[i+1] == '*':
			end := strings.Index(src[i+2:], "*/")
			if end < 0 {
				return nil, fmt.Errorf("line %d: an unterminated comment", line)
			}
			text := src[i : i+2+end+2]
			n := strings.Count(text, "\n")
			if depth == 0 && strings.TrimSpace(stmt.String()) == "" {
				units = append(units, unit{comment: true, text: text, startLn: line, endLn: line + n})
			} else {
				stmt.WriteString(text)
			}
			line += n
			i += len(text)
			atLineStart = false
			continue
		case c == '/' && i+1 < len(src) && src[i+1] == '/':
			return nil, fmt.Errorf("line %d: a // comment (the header uses /* */ only)", line)
		}
		if strings.TrimSpace(stmt.String()) == "" && c > ' ' {
			stmt.Reset()
			stmtStart = line
		}
		switch c {
		case '{':
			depth++
		case '}':
			depth--
			if depth < 0 {
				return nil, fmt.Errorf("line %d: an unmatched }", line)
			}
		case '\n':
			line++
		}
		atLineStart = c == '\n'
		if c == ';' && depth == 0 {
			units = append(units, unit{text: strings.TrimSpace(stmt.String()), startLn: stmtStart, endLn: line})
			stmt.Reset()
		} else {
			stmt.WriteByte(c)
		}
		i++
	}
	if rest := strings.TrimSpace(stmt.String()); rest != "" {
		return nil, fmt.Errorf("line %d: a declaration without its ';': %.40q", stmtStart, rest)
	}
	return units, nil
}

// commentLines is a block comment's text, one string a line, without the
// comment's marks.
func commentLines(c string) []string {
	c = strings.TrimSuffix(strings.TrimPrefix(c, "/*"), "*/")
	var out []string
	for _, l := range strings.Split(c, "\n") {
		l = strings.TrimRight(l, " \t")
		t := strings.TrimLeft(l, " \t")
		if strings.HasPrefix(t, "*") {
			l = strings.TrimPrefix(strings.TrimPrefix(t, "*"), " ")
		} else {
			l = strings.TrimPrefix(l, " ")
		}
		out = append(out, l)
	}
	for len(out) > 0 && strings.TrimSpace(out[0]) == "" {
		out = out[1:]
	}
	for len(out) > 0 && strings.TrimSpace(out[len(out)-1]) == "" {
		out = out[:len(out)-1]
	}
	return out
}

var (
	reFunc   = regexp.MustCompile(`(?s)^(.*?)\b(gfxcuda_\w+)\s*\((.*)\)$`)
	reStruct = regexp.MustCompile(`(?s)^typedef\s+struct\s*\{(.*)\}\s*(\w+)$`)
	reEnum   = regexp.MustCompile(`(?s)^(?:typedef\s+)?enum\s*\{(.*)\}\s*(\w*)$`)
	reIdent  = regexp.MustCompile(`^[A-Za-z_]\w*$`)
	reArray  = regexp.MustCompile(`^(\w+)\s*\[\s*(\d+)\s*\]$`)
	reLineC  = regexp.MustCompile(`/\*(.*?)\*/`)
)

// parse reads the header's declarations.
func parse(src string) (*abi, error) {
	units, err := split(src)
	if err != nil {
		return nil, err
	}
	a := &abi{}
	for k, u := range units {
		if u.comment {
			continue
		}
		var doc []string
		if k > 0 && units[k-1].comment && units[k-1].endLn+1 >= u.startLn {
			doc = commentLines(units[k-1].text)
		}
		text := strings.Join(strings.Fields(reLineC.ReplaceAllString(u.text, " ")), " ")
		switch {
		case reStruct.MatchString(u.text):
			m := reStruct.FindStringSubmatch(u.text)
			fields, err := members(m[1], false)
			if err != nil {
				return nil, fmt.Errorf("line %d: struct %s: %w", u.startLn, m[2], err)
			}
			a.items = append(a.items, item{kind: "struct", doc: doc, name: m[2], members: fields})
		case reEnum.MatchString(u.text):
			m := reEnum.FindStringSubmatch(u.text)
			consts, err := members(m[1], true)
			if err != nil {
				return nil, fmt.Errorf("line %d: enum: %w", u.startLn, err)
			}
			a.items = append(a.items, item{kind: "enum", doc: doc, name: m[2], members: consts})
		case reFunc.MatchString(text):
			m := reFunc.FindStringSubmatch(text)
			ret, err := parseType(m[1])
			if err != nil {
				return nil, fmt.Errorf("line %d: %s's result: %w", u.startLn, m[2], err)
			}
			it := item{kind: "func", doc: doc, name: m[2], ret: ret}
			if ps := strings.TrimSpace(m[3]); ps != "void" {
				for _, p := range strings.Split(ps, ",") {
					pr, err := parseParam(p)
					if err != nil {
						return nil, fmt.Errorf("line %d: %s: %w", u.startLn, m[2], err)
					}
					it.params = append(it.params, pr)
				}
			}
			a.items = append(a.items, it)
		default:
			return nil, fmt.Errorf("line %d: a declaration abigen does not know: %.60q", u.startLn, text)
		}
	}
	return a, nil
}

// members reads an enum's constants or a struct's fields, line by line
// (a line's trailing comment is its members').
func members(body string, enum bool) ([]member, error) {
	var out []member
	for _, l := range strings.Split(body, "\n") {
		comment := ""
		if m := reLineC.FindStringSubmatch(l); m != nil {
			comment = strings.TrimSpace(m[1])
			l = reLineC.ReplaceAllString(l, "")
		}
		l = strings.TrimSpace(l)
		if l == "" {
			continue
		}
		if enum {
			for _, c := range strings.Split(l, ",") {
				c = strings.TrimSpace(c)
				if c == "" {
					continue
				}
				name, value, ok := strings.Cut(c, "=")
				name, value = strings.TrimSpace(name), strings.TrimSpace(value)
				if !ok || !reIdent.MatchString(name) {
					return nil, fmt.Errorf("constant %q: give each constant its value (NAME = 1)", c)
				}
				out = append(out, member{name: name, value: value, comment: comment})
				comment = "" // the line's first constant carries it
			}
			continue
		}
		for _, decl := range strings.Split(l, ";") {
			decl = strings.TrimSpace(decl)
			if decl == "" {
				continue
			}
			names := strings.Split(decl, ",")
			// The type is the first declarator's words but its last.
			first := strings.Fields(strings.ReplaceAll(names[0], "*", " * "))
			if len(first) < 2 {
				return nil, fmt.Errorf("field %q: no type", decl)
			}
			base := strings.Join(first[:len(first)-1], " ")
			names[0] = first[len(first)-1]
			// Pointers written with the type (int64_t *shape) count for
			// the first name only; write one pointer field a line.
			for _, n := range names {
				n = strings.TrimSpace(n)
				array := ""
				if m := reArray.FindStringSubmatch(n); m != nil {
					n, array = m[1], m[2]
				}
				if !reIdent.MatchString(n) {
					return nil, fmt.Errorf("field %q of %q", n, decl)
				}
				t, err := parseType(base)
				if err != nil {
					return nil, fmt.Errorf("field %s: %w", n, err)
				}
				out = append(out, member{name: n, typ: t, array: array, comment: comment})
				comment = "" // the line's first field carries it
			}
		}
	}
	return out, nil
}

// parseType reads a type without a name: "const uint64_t *".
func parseType(s string) (cType, error) {
	var t cType
	var words []string
	for _, w := range strings.Fields(strings.ReplaceAll(s, "*", " * ")) {
		switch w {
		case "*":
			t.ptrs++
		case "const":
		default:
			if t.ptrs > 0 {
				return t, fmt.Errorf("type %q: a word after *", s)
			}
			words = append(words, w)
		}
	}
	t.base = strings.Join(words, " ")
	if t.base == "" {
		return t, fmt.Errorf("type %q: no base type", s)
	}
	return t, nil
}

// parseParam reads a parameter: "const uint64_t *resources", "uint64_t tiles[7]".
func parseParam(s string) (param, error) {
	s = strings.TrimSpace(s)
	array := false
	if m := regexp.MustCompile(`^(.*?)\s*\[\s*\d*\s*\]$`).FindStringSubmatch(s); m != nil {
		s, array = m[1], true
	}
	i := strings.LastIndexAny(s, " *")
	if i < 0 || !reIdent.MatchString(s[i+1:]) {
		return param{}, fmt.Errorf("parameter %q: give every parameter a name", s)
	}
	t, err := parseType(s[:i+1])
	if err != nil {
		return param{}, err
	}
	if array {
		t.ptrs++ // an array parameter is a pointer
	}
	return param{name: s[i+1:], typ: t}, nil
}

// scalars are the ctypes of the header's base types.
var scalars = map[string]string{
	"int": "ctypes.c_int", "char": "ctypes.c_char", "float": "ctypes.c_float", "double": "ctypes.c_double",
	"int8_t": "ctypes.c_int8", "uint8_t": "ctypes.c_uint8", "int16_t": "ctypes.c_int16",
	"uint16_t": "ctypes.c_uint16", "int32_t": "ctypes.c_int32", "uint32_t": "ctypes.c_uint32",
	"int64_t": "ctypes.c_int64", "uint64_t": "ctypes.c_uint64", "size_t": "ctypes.c_size_t",
	"ssize_t": "ctypes.c_ssize_t",
}

// className is the Python class of a struct typedef:
// gfxcuda_gl_source_info_t is GLSourceInfo.
func className(typedef string) string {
	var b strings.Builder
	for _, w := range strings.Split(strings.TrimSuffix(strings.TrimPrefix(typedef, "gfxcuda_"), "_t"), "_") {
		switch w {
		case "gl", "cuda", "ipc", "fd":
			b.WriteString(strings.ToUpper(w))
		default:
			b.WriteString(strings.ToUpper(w[:1]) + w[1:])
		}
	}
	return b.String()
}

// ctype is t's ctypes expression.
func (a *abi) ctype(t cType) (string, error) {
	var s string
	ptrs := t.ptrs
	switch {
	case t.base == "void" && ptrs == 0:
		return "None", nil
	case t.base == "void":
		s, ptrs = "ctypes.c_void_p", ptrs-1
	case t.base == "char" && ptrs > 0:
		s, ptrs = "ctypes.c_char_p", ptrs-1
	case scalars[t.base] != "":
		s = scalars[t.base]
	default:
		for _, it := range a.items {
			if it.kind == "struct" && it.name == t.base {
				s = className(it.name)
			}
		}
		if s == "" {
			return "", fmt.Errorf("type %q: abigen knows no ctypes for it (add it to scalars, or typedef the struct in the header before its use)", t.base)
		}
	}
	for ; ptrs > 0; ptrs-- {
		s = "ctypes.POINTER(" + s + ")"
	}
	return s, nil
}

// generate is the Python module of the header src.
func generate(src string) ([]byte, error) {
	a, err := parse(src)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	b.WriteString(`# Code generated by cmd/internal/abigen from cmd/libgfxcuda/gfxcuda.h; DO NOT EDIT.
# Change gfxcuda.h and run go generate ./cmd/libgfxcuda.

"""libgfxcuda's C ABI as ctypes declarations, generated from gfxcuda.h (the
one place it is declared): the enum constants, a ctypes.Structure per struct
typedef, and FUNCTIONS, each function's (restype, argtypes) in the header's
order, each with the header's documentation. _lib declares the library's
functions from FUNCTIONS when it loads the library."""

import ctypes
`)
	comment := func(indent string, lines []string) {
		for _, l := range lines {
			b.WriteString(strings.TrimRight(indent+"# "+l, " ") + "\n")
		}
	}
	defined := map[string]bool{}
	for _, it := range a.items {
		switch it.kind {
		case "enum":
			b.WriteString("\n")
			if it.name != "" {
				comment("", append(it.doc, "("+it.name+")"))
			} else {
				comment("", it.doc)
			}
			for _, m := range it.members {
				line := m.name + " = " + m.value
				if m.comment != "" {
					line += "  # " + m.comment
				}
				b.WriteString(line + "\n")
			}
		case "struct":
			b.WriteString("\n\n")
			comment("", it.doc)
			fmt.Fprintf(&b, "class %s(ctypes.Structure):\n    \"\"\"%s (gfxcuda.h).\"\"\"\n\n    _fields_ = [\n", className(it.name), it.name)
			for _, m := range it.members {
				t, err := a.ctype(m.typ)
				if err != nil {
					return nil, fmt.Errorf("struct %s, field %s: %w", it.name, m.name, err)
				}
				if m.array != "" {
					t += " * " + m.array
				}
				line := fmt.Sprintf("        (%q, %s),", m.name, t)
				if m.comment != "" {
					line += "  # " + m.comment
				}
				b.WriteString(line + "\n")
			}
			b.WriteString("    ]\n")
			defined[it.name] = true
		}
	}
	b.WriteString("\n\n# Each function's (restype, argtypes).\nFUNCTIONS = {\n")
	for _, it := range a.items {
		if it.kind != "func" {
			continue
		}
		for _, t := range append([]cType{it.ret}, paramTypes(it.params)...) {
			if _, ok := scalars[t.base]; !ok && t.base != "void" && t.base != "char" && !defined[t.base] {
				return nil, fmt.Errorf("%s: type %s is not declared above it", it.name, t.base)
			}
		}
		ret, err := a.ctype(it.ret)
		if err != nil {
			return nil, fmt.Errorf("%s's result: %w", it.name, err)
		}
		var args []string
		for _, p := range it.params {
			t, err := a.ctype(p.typ)
			if err != nil {
				return nil, fmt.Errorf("%s, parameter %s: %w", it.name, p.name, err)
			}
			args = append(args, t)
		}
		comment("    ", it.doc)
		fmt.Fprintf(&b, "    %q: (%s, [%s]),\n", it.name, ret, strings.Join(args, ", "))
	}
	b.WriteString("}\n")
	return b.Bytes(), nil
}

func paramTypes(ps []param) []cType {
	out := make([]cType, len(ps))
	for i, p := range ps {
		out[i] = p.typ
	}
	return out
}
