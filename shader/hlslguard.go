package shader

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/gfxcuda/gfxcuda/internal/shaderc"
)

// glslang 12 dereferences a null pointer, killing the process, when an
// argument of an HLSL [numthreads(...)] attribute is not a constant: an
// undeclared name (a misspelt or undefined macro) or a variable. Before
// compiling HLSL whose numthreads arguments are not plain numbers, Compile
// preprocesses the source and checks that every name they use is a constant
// declared, at file scope, before the attribute, and reports a
// CompileError instead of compiling if not.

var (
	identRE = regexp.MustCompile(`[0-9][0-9A-Za-z_.]*|\.?[A-Za-z_][0-9A-Za-z_]*`)
	// Scalar type names that may appear in casts.
	hlslScalarTypes = map[string]bool{
		"int": true, "uint": true, "dword": true, "bool": true, "float": true, "half": true, "double": true,
		"min16int": true, "min16uint": true, "min12int": true, "min16float": true, "min10float": true,
		"int16_t": true, "uint16_t": true, "int32_t": true, "uint32_t": true, "int64_t": true, "uint64_t": true,
		"float16_t": true, "float32_t": true, "float64_t": true,
	}
)

type numthreadsAttr struct {
	pos  int      // byte offset of "numthreads"
	args []string // the argument texts
}

// findNumthreads returns the numthreads attributes in text.
func findNumthreads(text []byte) []numthreadsAttr {
	var out []numthreadsAttr
	key := []byte("numthreads")
	for off := 0; ; {
		i := bytes.Index(text[off:], key)
		if i < 0 {
			return out
		}
		pos := off + i
		off = pos + len(key)
		if pos > 0 && isIdentByte(text[pos-1]) || off < len(text) && isIdentByte(text[off]) {
			continue
		}
		j := off
		for j < len(text) && (text[j] == ' ' || text[j] == '\t' || text[j] == '\n' || text[j] == '\r') {
			j++
		}
		if j >= len(text) || text[j] != '(' {
			continue
		}
		depth, start := 0, j+1
		var args []string
		for k := j; k < len(text); k++ {
			switch text[k] {
			case '(':
				depth++
			case ')':
				depth--
				if depth == 0 {
					args = append(args, string(text[start:k]))
					out = append(out, numthreadsAttr{pos: pos, args: args})
					off = k + 1
					k = len(text)
				}
			case ',':
				if depth == 1 {
					args = append(args, string(text[start:k]))
					start = k + 1
				}
			}
		}
	}
}

func isIdentByte(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// argNames returns the names an attribute argument refers to, leaving out
// numbers, member and swizzle selections, and scalar type names.
func argNames(arg string) []string {
	var names []string
	for _, loc := range identRE.FindAllStringIndex(arg, -1) {
		tok := arg[loc[0]:loc[1]]
		if tok[0] == '.' || tok[0] >= '0' && tok[0] <= '9' || hlslScalarTypes[tok] {
			continue
		}
		// A selection after "." with spaces between, as the
		// preprocessor writes it.
		if strings.HasSuffix(strings.TrimRight(arg[:loc[0]], " \t\r\n"), ".") {
			continue
		}
		names = append(names, tok)
	}
	return names
}

// needsNumthreadsCheck reports whether some numthreads argument in src
// names something, so that the source must be preprocessed and checked.
func needsNumthreadsCheck(src []byte) bool {
	for _, a := range findNumthreads(src) {
		for _, arg := range a.args {
			if len(argNames(arg)) > 0 {
				return true
			}
		}
	}
	return false
}

// fileScope returns text with everything inside braces blanked out, so
// that only file-scope declarations remain visible to a search.
func fileScope(text []byte) []byte {
	out := bytes.Clone(text)
	depth := 0
	for i, c := range out {
		switch c {
		case '{':
			depth++
		case '}':
			if depth > 0 {
				depth--
			}
			continue
		}
		if depth > 0 && c != '\n' {
			out[i] = ' '
		}
	}
	return out
}

// checkNumthreads checks the numthreads attributes of preprocessed HLSL and
// returns the diagnostics for arguments that name no file-scope constant
// declared before the attribute.
func checkNumthreads(pp []byte, filename string) []Diagnostic {
	scope := fileScope(pp)
	var diags []Diagnostic
	for _, a := range findNumthreads(pp) {
		before := string(scope[:a.pos])
		for _, arg := range a.args {
			for _, name := range argNames(arg) {
				if declaredConst(before, name) {
					continue
				}
				file, line := ppLocation(pp, a.pos, filename)
				diags = append(diags, Diagnostic{
					File: file, Line: line, Severity: SeverityError,
					Message: fmt.Sprintf("'%s' : numthreads argument is not a constant declared before the attribute", name),
				})
			}
		}
	}
	return diags
}

// declaredConst reports whether text declares name as a constant at file
// scope: "static const T name =" or "const T name =", possibly after other
// declarators of the same statement. glslang does not treat "const static"
// or plain "static" variables as constants.
func declaredConst(text, name string) bool {
	re := regexp.MustCompile(`(?:^|[;}\n])\s*(?:static\s+)?const\s+([^;{}]*?)\b` + regexp.QuoteMeta(name) + `\s*(?:\[[^\]]*\]\s*)?=`)
	for _, m := range re.FindAllStringSubmatch(text, -1) {
		if !regexp.MustCompile(`\bstatic\b`).MatchString(m[1]) {
			return true
		}
	}
	return false
}

var lineDirectiveRE = regexp.MustCompile(`^\s*#\s*line\s+(\d+)(?:\s+"([^"]*)")?`)

// ppLocation maps a byte offset in preprocessed text to a file and line,
// following the #line directives the preprocessor writes around included
// text.
func ppLocation(pp []byte, pos int, filename string) (string, int) {
	file, line := filename, 1
	for _, l := range strings.SplitAfter(string(pp[:pos]), "\n") {
		if !strings.HasSuffix(l, "\n") {
			break // the line pos is on
		}
		if m := lineDirectiveRE.FindStringSubmatch(l); m != nil {
			n, _ := strconv.Atoi(m[1])
			line = n
			if m[2] != "" {
				file = m[2]
			}
			continue
		}
		line++
	}
	return file, line
}

// guardNumthreads preprocesses HLSL whose numthreads arguments name
// something and returns a CompileError if one of them would crash glslang.
func guardNumthreads(src []byte, so *shaderc.Options) error {
	if !needsNumthreadsCheck(src) {
		return nil
	}
	res, err := shaderc.Preprocess(src, so)
	if err != nil {
		// Compiling after a failed preprocessing (a missing include
		// that defines the numthreads macros, say) could crash too.
		var se *shaderc.Error
		if errors.As(err, &se) {
			return &CompileError{Diagnostics: parseDiagnostics(se.Log), Log: se.Log}
		}
		return err
	}
	if diags := checkNumthreads(res.SPIRV, so.Filename); len(diags) > 0 {
		var log strings.Builder
		for _, d := range diags {
			fmt.Fprintf(&log, "%s:%d: error: %s\n", d.File, d.Line, d.Message)
		}
		return &CompileError{Diagnostics: diags, Log: log.String()}
	}
	return nil
}
