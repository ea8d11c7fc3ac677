package shader

import (
	"regexp"
	"strconv"
	"strings"
)

// CompileError is returned by Compile when the compiler rejects the source.
type CompileError struct {
	// Diagnostics lists the compiler's messages, errors and warnings, in
	// the order it gave them.
	Diagnostics []Diagnostic
	// Log is the compiler's unparsed output.
	Log string
}

// Error returns the diagnostics, one per line, as "file:line: message".
func (e *CompileError) Error() string {
	if len(e.Diagnostics) == 0 {
		if s := strings.TrimSpace(e.Log); s != "" {
			return s
		}
		return "shader compilation failed"
	}
	lines := make([]string, len(e.Diagnostics))
	for i, d := range e.Diagnostics {
		lines[i] = d.String()
	}
	return strings.Join(lines, "\n")
}

// Errors returns the diagnostics of error severity.
func (e *CompileError) Errors() []Diagnostic {
	var out []Diagnostic
	for _, d := range e.Diagnostics {
		if d.Severity == SeverityError {
			out = append(out, d)
		}
	}
	return out
}

var (
	// file:line: error: msg, file:line:col: error: msg
	diagLineRE = regexp.MustCompile(`^(.*?):(\d+):(?:(\d+):)? ?(error|warning): ?(.*)$`)
	// file: error: msg
	diagFileRE = regexp.MustCompile(`^(.*?): ?(error|warning): ?(.*)$`)
	// file: file(line): error at column col, msg (glslang's HLSL parser)
	diagColumnRE = regexp.MustCompile(`^(?:.*?: )?(.+?)\((\d+)\): (error|warning) at column (\d+), (.*)$`)
)

// parseDiagnostics parses shaderc's log: lines of the form
// "file:line: error: message". Lines of other forms are kept as messages
// without a file, except glslang's noise ("compilation terminated", "N
// errors generated").
func parseDiagnostics(log string) []Diagnostic {
	var out []Diagnostic
	for _, line := range strings.Split(log, "\n") {
		line = strings.TrimRight(line, "\r ")
		if line == "" {
			continue
		}
		var d Diagnostic
		if m := diagColumnRE.FindStringSubmatch(line); m != nil {
			d.File = m[1]
			d.Line, _ = strconv.Atoi(m[2])
			d.Column, _ = strconv.Atoi(m[4])
			d.Severity = severity(m[3])
			d.Message = m[5]
		} else if m := diagLineRE.FindStringSubmatch(line); m != nil {
			d.File = m[1]
			d.Line, _ = strconv.Atoi(m[2])
			d.Column, _ = strconv.Atoi(m[3])
			d.Severity = severity(m[4])
			d.Message = m[5]
		} else if m := diagFileRE.FindStringSubmatch(line); m != nil {
			d.File = m[1]
			d.Severity = severity(m[2])
			d.Message = m[3]
		} else {
			if strings.HasSuffix(line, " generated.") {
				continue // "2 errors generated."
			}
			d.Message = line
		}
		if strings.Contains(d.Message, "'' : compilation terminated") {
			continue
		}
		out = append(out, d)
	}
	return out
}

func severity(s string) Severity {
	if s == "warning" {
		return SeverityWarning
	}
	return SeverityError
}
