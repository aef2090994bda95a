package problems

import (
	"slices"
	"strconv"
	"strings"
)

// Kit is what the content loader knows of one grading kit (the family of
// code problems a problem's code.kit names). The loader itself never
// grades and never interprets Go: a kit's scenario check is given to it
// by the program (cmd/server), so this package stays free of the
// interpreter.
type Kit struct {
	Name string
	// Scenarios says the kit grades against a scenarios file beside
	// problem.md (code.scenarios, default scenarios.yaml); a kit without
	// one has its scenarios compiled in.
	Scenarios bool
	// CheckScenarios checks a scenarios file against the kit's schema
	// and returns its errors with file and line; nil checks nothing
	// beyond the file being there. file is the path under the content
	// root.
	CheckScenarios func(file string, data []byte) []Diagnostic
}

// Options change how Load checks content.
type Options struct {
	// Kits are the kits a code.kit may name; nil means DefaultKits.
	Kits []Kit
}

// DefaultKits names the kits this build grades with, with no scenario
// check: Load uses them when it is given none. The server passes the same
// names with their checks (cmd/server tests that the two lists agree).
func DefaultKits() []Kit {
	return []Kit{{Name: "createclient", Scenarios: true}, {Name: "refund", Scenarios: true}}
}

// DefaultScenariosFile is the scenarios file a kit with scenarios reads
// when code.scenarios does not name one.
const DefaultScenariosFile = "scenarios.yaml"

func kitNames(kits []Kit) string {
	names := make([]string, len(kits))
	for i, k := range kits {
		names[i] = k.Name
	}
	slices.Sort(names)
	return strings.Join(names, ", ")
}

// ErrorDiagnostics turns a kit's error about file (one error, or several
// joined with errors.Join, each "file:line: message" or "file: message")
// into diagnostics, so a kit need not know this package's types.
func ErrorDiagnostics(file string, err error) []Diagnostic {
	if err == nil {
		return nil
	}
	var errs []error
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		errs = j.Unwrap()
	} else {
		errs = []error{err}
	}
	var out []Diagnostic
	for _, e := range errs {
		d := Diagnostic{File: file, Message: e.Error()}
		if rest, ok := strings.CutPrefix(d.Message, file+":"); ok {
			d.Message = strings.TrimSpace(rest)
			if n, msg, ok := strings.Cut(rest, ": "); ok {
				if line, err := strconv.Atoi(n); err == nil {
					d.Line, d.Message = line, msg
				}
			}
		}
		out = append(out, d)
	}
	return out
}
