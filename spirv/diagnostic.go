package spirv

import (
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

// Diagnostic is one message from the compiler that produced a module
// (Module.Warnings, and package shader's CompileError).
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
