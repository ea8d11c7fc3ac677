package wgsl

import (
	"fmt"
	"strings"
)

// Error is one problem in a WGSL program.
type Error struct {
	File      string
	Line, Col int
	// Msg says what was expected or found, in plain words, e.g.
	// "expected ';' after the declaration, found '}'" or
	// "unknown identifier 'colr'; did you mean 'color'?".
	Msg string
	// Rule is the WGSL specification's term for the rule broken, e.g.
	// "syntax: global_decl", "shader-creation error: type mismatch",
	// "address space: uniform"; empty when none applies.
	Rule string
}

// Error formats the error as file:line:col: message (rule).
func (e *Error) Error() string {
	s := fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Col, e.Msg)
	if e.Rule != "" {
		s += " [" + e.Rule + "]"
	}
	return s
}

// ErrorList is every error found in a program, in source order. Translate
// returns one (as error) when the program is invalid.
type ErrorList []*Error

// Error joins the errors, one per line.
func (l ErrorList) Error() string {
	var b strings.Builder
	for i, e := range l {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(e.Error())
	}
	return b.String()
}
