package shader

import (
	"regexp"
	"strconv"
	"strings"
)

// Severity is the severity of a diagnostic.
type Severity int

// Severities.
const (
	SeverityError Severity = iota
	SeverityWarning
)

// String returns "error" or "warning".
func (s Severity) String() string {
	if s == SeverityWarning {
		return "warning"
	}
	return "error"
}

// Diagnostic is one message from the compiler.
type Diagnostic struct {
	File     string // the file the message is about; the input's Filename for the top-level source
	Line     int    // 1-based line number, 0 if unknown
	Column   int    // 1-based column number, 0 if unknown
	Severity Severity
	Message  string
}

// String formats the diagnostic as "file:line: message" ("file:line:col:"
// when the column is known, "file:" when the line is not, nothing when the
// file is not), with "warning: " before the message of a warning.
func (d Diagnostic) String() string {
	var b strings.Builder
	if d.File != "" {
		b.WriteString(d.File)
		if d.Line > 0 {
			b.WriteString(":")
			b.WriteString(strconv.Itoa(d.Line))
			if d.Column > 0 {
				b.WriteString(":")
				b.WriteString(strconv.Itoa(d.Column))
			}
		}
		b.WriteString(": ")
	}
	if d.Severity == SeverityWarning {
		b.WriteString("warning: ")
	}
	b.WriteString(d.Message)
	return b.String()
}

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
