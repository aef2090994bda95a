package gointerp

import (
	"regexp"
	"strings"
)

// yaegiPanics are the messages of panics only yaegi raises, from its own
// machinery (its compiler, its use of reflection), never from what the
// code asked for: code whose load or call ends in one was not run as Go
// runs it, so it says nothing about the code. Panics that stand for Go's
// runtime errors, such as yaegi's "on zero Value" for a nil pointer, are
// the code's. Each is a regular expression for the message's start.
var yaegiPanics = []string{
	`invalid interface value`,
	`nil type$`,
	`reflect\.Type is nil`,
	`CFG post-order panic`,
	`reflect\.Set: value of type .* is not assignable to type`,
	`reflect: Call using .* as type`,
	`reflect: call of reflect\.Value\.\w+ on \w+ Value`,
	`reflect\.Value\.Interface: cannot return value obtained from unexported`,
	// A submission cannot import reflect, so these come from yaegi's
	// own use of it (seen in Go's test programs, bench/gotests.sh).
	`reflect: reflect\.Value\.Set using unaddressable value`,
	`reflect\.Value\.Convert: value of type .* cannot be converted to type`,
	`reflect\.MakeChan: unidirectional channel type`,
	// errors.Join given an error of the file's own types: yaegi passes
	// the bare struct where the parameter is an error.
	`reflect: cannot use .* as type .* in Call`,
}

// interpreterPanic matches a message of yaegiPanics, after the "line:col: "
// yaegi may put first.
var interpreterPanic = regexp.MustCompile(`^(?:\d+:\d+: )?(?:` + strings.Join(yaegiPanics, "|") + `)`)

// IsInterpreterPanic reports whether msg, a panic's message, is one only
// yaegi raises (yaegiPanics): the interpreter's failure, not the code's.
func IsInterpreterPanic(msg string) bool { return interpreterPanic.MatchString(msg) }
