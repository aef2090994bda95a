package main

import (
	"github.com/faultline-dev/faultline/internal/problems"
)

// contentKits are the kits a problem's code.kit may name, with each kit's
// scenario schema: the content loader (lint, serve, -watch) checks a
// scenarios file with them and names its errors by file and line. They are
// the grading child's kits (gradingKits), so a kit added there is one the
// content may name. The checks are given here because the loader must not
// link the interpreter the kits' packages bring.
func contentKits() []problems.Kit {
	var kits []problems.Kit
	for _, k := range gradingKits() {
		kits = append(kits, problems.Kit{Name: k.Name(), Scenarios: true, CheckScenarios: func(file string, data []byte) []problems.Diagnostic {
			_, err := k.ParseScenarios(file, data)
			return problems.ErrorDiagnostics(file, err)
		}})
	}
	return kits
}

// contentOptions is how the server loads content.
func contentOptions() problems.Options { return problems.Options{Kits: contentKits()} }
