package shader

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
)

// nagaglsl.go: Options.NagaGLSL, the rewrite of the GLSL that naga
// (compushady's GLSL compiler) accepts and glslang rejects; see "naga GLSL"
// in the package documentation. Uniforms of non-opaque types outside
// blocks become anonymous uniform blocks,
//
//	layout(set = 0, binding = 3) uniform float m;
//	layout(set = 0, binding = 3) uniform _gfxcuda_loose_m { float m; };
//
// and image types take their sampled type from their format qualifier.
// Text is only inserted or replaced within a line.

// glslTokKind classifies a token of the scanner.
type glslTokKind int

const (
	tokIdent glslTokKind = iota
	tokNumber
	tokString
	tokPunct
)

// glslToken is a token of GLSL source: src[start:end], on line (from 1).
// afterDirective is set when a preprocessor directive lies between the
// previous token and this one.
type glslToken struct {
	kind           glslTokKind
	start, end     int
	line           int
	afterDirective bool
}

// scanGLSL splits src into tokens, leaving out whitespace, comments and
// preprocessor directives (lines whose first token is #, with their
// backslash continuations). Every byte that is not skipped lies in a token:
// operators are tokens of one byte each.
func scanGLSL(src []byte) []glslToken {
	var toks []glslToken
	line := 1
	lineStart := true // only whitespace and comments so far on this line
	directive := false
	nextLine := 0 // from a #line directive, 0 for none
	i := 0
	// skipBlockComment skips a /* comment starting at i, counting lines.
	skipBlockComment := func() {
		j := bytes.Index(src[i+2:], []byte("*/"))
		end := len(src)
		if j >= 0 {
			end = i + 2 + j + 2
		}
		line += bytes.Count(src[i:end], []byte("\n"))
		i = end
	}
	for i < len(src) {
		c := src[i]
		switch {
		case c == '\n':
			line++
			i++
			lineStart = true
			continue
		case c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v':
			i++
			continue
		case c == '\\' && i+1 < len(src) && (src[i+1] == '\n' || src[i+1] == '\r' && i+2 < len(src) && src[i+2] == '\n'):
			// A line continuation joins lines without starting a new one.
			i += 2
			if src[i-1] == '\r' {
				i++
			}
			line++
			continue
		case c == '/' && i+1 < len(src) && src[i+1] == '/':
			for i < len(src) && src[i] != '\n' {
				if src[i] == '\\' && i+1 < len(src) && src[i+1] == '\n' {
					line++
					i++
				}
				i++
			}
			continue
		case c == '/' && i+1 < len(src) && src[i+1] == '*':
			skipBlockComment()
			continue
		case c == '#' && lineStart:
			// A directive runs to the end of its logical line; block
			// comments in it may span lines. "#line N" numbers the next
			// line N, as glslang's diagnostics do.
			if m := lineDirectiveRE.FindSubmatch(src[i:min(len(src), i+64)]); m != nil {
				if n, err := strconv.Atoi(string(m[1])); err == nil {
					nextLine = n
				}
			}
			for i < len(src) && src[i] != '\n' {
				switch {
				case src[i] == '\\' && i+1 < len(src) && src[i+1] == '\n':
					line++
					i += 2
				case src[i] == '\\' && i+2 < len(src) && src[i+1] == '\r' && src[i+2] == '\n':
					line++
					i += 3
				case src[i] == '/' && i+1 < len(src) && src[i+1] == '*':
					skipBlockComment()
				case src[i] == '/' && i+1 < len(src) && src[i+1] == '/':
					for i < len(src) && src[i] != '\n' {
						i++
					}
				case src[i] == '"':
					i = skipString(src, i)
				default:
					i++
				}
			}
			if nextLine > 0 {
				line = nextLine - 1 // the newline ending the directive counts
				nextLine = 0
			}
			directive = true
			continue
		}
		lineStart = false
		t := glslToken{start: i, line: line, afterDirective: directive}
		directive = false
		switch {
		case isIdentByte(c) && !(c >= '0' && c <= '9'):
			t.kind = tokIdent
			for i < len(src) && isIdentByte(src[i]) {
				i++
			}
		case c >= '0' && c <= '9' || c == '.' && i+1 < len(src) && src[i+1] >= '0' && src[i+1] <= '9':
			t.kind = tokNumber
			for i < len(src) {
				d := src[i]
				if (d == '+' || d == '-') && (src[i-1] == 'e' || src[i-1] == 'E') && !bytes.HasPrefix(src[t.start:], []byte("0x")) && !bytes.HasPrefix(src[t.start:], []byte("0X")) {
					i++
					continue
				}
				if !isIdentByte(d) && d != '.' {
					break
				}
				i++
			}
		case c == '"':
			t.kind = tokString
			i = skipString(src, i)
		default:
			t.kind = tokPunct
			i++
		}
		t.end = i
		toks = append(toks, t)
	}
	return toks
}

// skipString returns the offset after the string literal starting at the
// quote at i; an unterminated literal ends at the end of its line.
func skipString(src []byte, i int) int {
	for i++; i < len(src); i++ {
		switch src[i] {
		case '\\':
			if i+1 < len(src) && src[i+1] != '\n' {
				i++
			}
		case '"':
			return i + 1
		case '\n':
			return i
		}
	}
	return i
}

// glslQualifiers are the GLSL qualifier keywords that may precede the type
// of a declaration (layout is handled apart).
var glslQualifiers = map[string]bool{
	"const": true, "in": true, "out": true, "inout": true, "attribute": true, "uniform": true,
	"varying": true, "buffer": true, "shared": true, "centroid": true, "sample": true, "patch": true,
	"smooth": true, "flat": true, "noperspective": true, "precise": true, "invariant": true,
	"highp": true, "mediump": true, "lowp": true, "coherent": true, "volatile": true,
	"restrict": true, "readonly": true, "writeonly": true, "subroutine": true,
	"devicecoherent": true, "queuefamilycoherent": true, "workgroupcoherent": true,
	"subgroupcoherent": true, "nonprivate": true, "nonuniformEXT": true,
}

// precisionQualifiers may stay on a loose uniform that is rewritten.
var precisionQualifiers = map[string]bool{"highp": true, "mediump": true, "lowp": true}

// imageFormatPrefix maps the GLSL image format qualifiers to the prefix of
// the image type of their sampled type: "" for float, "i" and "u".
var imageFormatPrefix = map[string]string{}

func init() {
	for _, f := range strings.Fields("rgba32f rgba16f rg32f rg16f r11f_g11f_b10f r32f r16f rgba16 rgb10_a2 rgba8 rg16 rg8 r16 r8 rgba16_snorm rgba8_snorm rg16_snorm rg8_snorm r16_snorm r8_snorm") {
		imageFormatPrefix[f] = ""
	}
	for _, f := range strings.Fields("rgba32i rgba16i rgba8i rg32i rg16i rg8i r32i r16i r8i r64i") {
		imageFormatPrefix[f] = "i"
	}
	for _, f := range strings.Fields("rgba32ui rgba16ui rgb10_a2ui rgba8ui rg32ui rg16ui rg8ui r32ui r16ui r8ui r64ui") {
		imageFormatPrefix[f] = "u"
	}
}

// imageDims are the suffixes of the GLSL storage image types.
var imageDims = map[string]bool{
	"1D": true, "2D": true, "3D": true, "Cube": true, "2DRect": true, "1DArray": true,
	"2DArray": true, "CubeArray": true, "Buffer": true, "2DMS": true, "2DMSArray": true,
}

// splitImageType returns the prefix ("", "i" or "u") and dimension of an
// image type name such as uimage2DArray; ok is false for other names.
func splitImageType(name string) (prefix, dim string, ok bool) {
	for _, p := range []string{"", "i", "u"} {
		if rest, found := strings.CutPrefix(name, p+"image"); found && imageDims[rest] {
			return p, rest, true
		}
	}
	return "", "", false
}

// opaqueType reports whether a type name is one of GLSL's opaque types,
// which may be declared uniform outside a block.
func opaqueType(name string) bool {
	for _, p := range []string{"", "i", "u"} {
		for _, kind := range []string{"sampler", "texture", "image", "subpassInput"} {
			if strings.HasPrefix(name, p+kind) {
				return true
			}
		}
	}
	return name == "atomic_uint" || strings.HasPrefix(name, "accelerationStructure") || strings.HasPrefix(name, "rayQuery")
}

// glslEdit replaces src[start:end] with text.
type glslEdit struct {
	start, end int
	text       string
}

// nagaRewrite is the result of rewriting a source for naga compatibility.
type nagaRewrite struct {
	src []byte
	// notes says, by line, why a uniform outside a block there was left
	// as it was; they are added to glslang's diagnostic about it.
	notes map[int]string
}

// rewriteNagaGLSL rewrites the constructs of GLSL that naga accepts and
// glslang rejects (see the comment at the top of this file). It returns src
// itself when there is nothing to rewrite.
func rewriteNagaGLSL(src []byte) nagaRewrite {
	toks := scanGLSL(src)
	text := func(t glslToken) string { return string(src[t.start:t.end]) }
	used := map[string]bool{}
	for _, t := range toks {
		if t.kind == tokIdent {
			used[text(t)] = true
		}
	}
	var edits []glslEdit
	notes := map[int]string{}
	depth := 0
	var stmt []glslToken
	for _, t := range toks {
		if t.kind == tokPunct {
			switch src[t.start] {
			case '{':
				depth++
				stmt = nil
				continue
			case '}':
				if depth > 0 {
					depth--
				}
				stmt = nil
				continue
			case ';':
				if depth == 0 {
					stmt = append(stmt, t)
					e, line, note := rewriteDeclaration(src, stmt, used)
					edits = append(edits, e...)
					if note != "" {
						notes[line] = note
					}
				}
				stmt = nil
				continue
			}
		}
		if depth == 0 {
			stmt = append(stmt, t)
		}
	}
	if len(edits) == 0 {
		return nagaRewrite{src: src, notes: notes}
	}
	var out bytes.Buffer
	out.Grow(len(src) + 64*len(edits))
	at := 0
	for _, e := range edits { // in source order, not overlapping
		out.Write(src[at:e.start])
		out.WriteString(e.text)
		at = e.end
	}
	out.Write(src[at:])
	return nagaRewrite{src: out.Bytes(), notes: notes}
}

// rewriteDeclaration returns the edits for one file-scope statement (its
// tokens, ending with the semicolon), and a note, with the line of the
// declared name, when it declares a uniform outside a block that it cannot
// rewrite. used holds the identifiers in use; the block names it makes are
// added.
func rewriteDeclaration(src []byte, stmt []glslToken, used map[string]bool) (edits []glslEdit, line int, note string) {
	text := func(t glslToken) string { return string(src[t.start:t.end]) }
	punct := func(t glslToken, c byte) bool { return t.kind == tokPunct && src[t.start] == c }

	// Qualifiers.
	var (
		uniform      bool
		others       []string // qualifiers a rewritten uniform may not have
		hasBinding   bool
		pushConstant bool
		format       string
	)
	i := 0
	for i < len(stmt) && stmt[i].kind == tokIdent {
		word := text(stmt[i])
		if word == "layout" {
			if i+1 >= len(stmt) || !punct(stmt[i+1], '(') {
				return nil, 0, ""
			}
			// Items are "name" or "name = expression", comma-separated.
			pd, item := 0, true
			j := i + 1
			for ; j < len(stmt); j++ {
				t := stmt[j]
				switch {
				case punct(t, '('):
					pd++
					continue
				case punct(t, ')'):
					pd--
				case punct(t, ',') && pd == 1:
					item = true
					continue
				}
				if pd == 0 {
					break
				}
				if item && pd == 1 && t.kind == tokIdent {
					switch key := strings.ToLower(text(t)); {
					case key == "binding":
						hasBinding = true
					case key == "push_constant":
						pushConstant = true
					default:
						if _, ok := imageFormatPrefix[key]; ok {
							format = key
						}
					}
				}
				item = false
			}
			if j >= len(stmt) {
				return nil, 0, ""
			}
			i = j + 1
			continue
		}
		if !glslQualifiers[word] {
			break
		}
		if word == "uniform" {
			uniform = true
		} else if !precisionQualifiers[word] {
			others = append(others, word)
		}
		i++
	}
	if !uniform || i >= len(stmt) || stmt[i].kind != tokIdent {
		return nil, 0, ""
	}
	typ := stmt[i]
	typeName := text(typ)
	for _, t := range stmt[1:] {
		if t.afterDirective {
			return nil, 0, "" // a declaration split by #if and the like
		}
	}

	if prefix, dim, ok := splitImageType(typeName); ok {
		want, known := imageFormatPrefix[format]
		if !known || want == prefix {
			return nil, 0, ""
		}
		return []glslEdit{{start: typ.start, end: typ.end, text: want + "image" + dim}}, 0, ""
	}
	if opaqueType(typeName) || typeName == "struct" {
		return nil, 0, ""
	}

	// A uniform of a non-opaque type outside a block: type [array]
	// name [array] ;
	j := i + 1
	skipArrays := func() bool {
		for j < len(stmt) && punct(stmt[j], '[') {
			d := 0
			for ; j < len(stmt); j++ {
				if punct(stmt[j], '[') {
					d++
				} else if punct(stmt[j], ']') {
					d--
					if d == 0 {
						break
					}
				}
			}
			if j >= len(stmt) {
				return false
			}
			j++
		}
		return true
	}
	if !skipArrays() || j >= len(stmt) || stmt[j].kind != tokIdent {
		return nil, 0, ""
	}
	nameTok := stmt[j]
	name := text(nameTok)
	j++
	if !skipArrays() || j >= len(stmt) {
		return nil, 0, ""
	}
	switch {
	case punct(stmt[j], ','):
		return nil, nameTok.line, fmt.Sprintf("naga GLSL: declare each uniform outside a block on its own; %q shares its declaration", name)
	case punct(stmt[j], '='):
		return nil, nameTok.line, fmt.Sprintf("naga GLSL: uniform %q outside a block cannot have an initializer", name)
	case !punct(stmt[j], ';'):
		return nil, 0, ""
	case len(others) > 0:
		return nil, nameTok.line, fmt.Sprintf("naga GLSL: uniform %q outside a block cannot be %s", name, strings.Join(others, " "))
	case !hasBinding && !pushConstant:
		return nil, nameTok.line, fmt.Sprintf("naga GLSL: uniform %q outside a block needs layout(binding = N), as naga's uniform blocks do", name)
	}
	block := "_gfxcuda_loose_" + name
	if strings.HasPrefix(name, "_") {
		block = "_gfxcuda_loose" + name
	}
	for n, base := 2, block; used[block]; n++ {
		block = base + strconv.Itoa(n)
	}
	used[block] = true
	end := stmt[j].end
	return []glslEdit{
		{start: typ.start, end: typ.start, text: block + " { "},
		{start: end, end: end, text: " };"},
	}, 0, ""
}

// addNagaNotes adds the rewrite's notes to glslang's complaints about the
// uniforms outside a block that were left as they were: notes are those of
// the main source, named file, and inc's those of included files.
func (inc *includer) addNagaNotes(ce *CompileError, file string, notes map[int]string) {
	inc.mu.Lock()
	defer inc.mu.Unlock()
	for i := range ce.Diagnostics {
		d := &ce.Diagnostics[i]
		if d.Severity != SeverityError || !strings.Contains(d.Message, "uniforms outside a block") {
			continue
		}
		ns := inc.notes[d.File]
		if d.File == file {
			ns = notes
		}
		if note := ns[d.Line]; note != "" {
			d.Message += " (" + note + ")"
		}
	}
}
